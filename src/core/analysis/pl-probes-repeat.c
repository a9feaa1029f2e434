/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-probes.h"

/* Repeated draws of a probe and their spread: the number one run gives moves
 * with its random folds and pairs, so the honest answer is a mean with an
 * interval. */

#define MAX_REPEATS 10000u

double
pl_probe_chance_mae (gsize n)
{
  gsize middle = (n - 1) / 2;
  double total = 0;

  g_return_val_if_fail (n > 0, NAN);

  /* Σ |i − m| for i < m and i > m, in closed form. */
  total = (double) middle * (middle + 1) / 2 + (double) (n - 1 - middle) * (n - middle) / 2;
  return total / n;
}

gboolean
pl_probe_absolute_is_random (PlProbeProtocol protocol)
{
  return protocol != PL_PROBE_INTERLEAVED;
}

gboolean
pl_probe_repeat (const PlMatrix        *x,
                 const PlProbeOptions  *options,
                 guint                  n_repeats,
                 PlProbeResult         *runs,
                 GCancellable          *cancellable,
                 GError               **error)
{
  return pl_probe_repeat_full (x, options, n_repeats, runs, NULL, NULL, cancellable, error);
}

gboolean
pl_probe_repeat_full (const PlMatrix        *x,
                      const PlProbeOptions  *options,
                      guint                  n_repeats,
                      PlProbeResult         *runs,
                      PlProbeProgressFunc    progress,
                      gpointer               progress_data,
                      GCancellable          *cancellable,
                      GError               **error)
{
  gboolean absolute_random;

  g_return_val_if_fail (x != NULL && options != NULL && runs != NULL, FALSE);

  if (n_repeats == 0 || n_repeats > MAX_REPEATS ||
      (guint64) options->seed + n_repeats - 1 > G_MAXUINT32)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "choose 1 to %u repeats whose seeds stay below 2³², not %u from seed %u",
                   MAX_REPEATS, n_repeats, options->seed);
      return FALSE;
    }
  absolute_random = pl_probe_absolute_is_random (options->protocol);
  for (guint r = 0; r < n_repeats; r++)
    {
      PlProbeOptions one = *options;

      one.seed = options->seed + r;
      /* A probe that draws nothing at random gives every repeat the first
       * run's number: it runs once. */
      if (r == 0 || absolute_random)
        {
          if (!pl_probe_run (x, &one, &runs[r], cancellable, error))
            return FALSE;
        }
      else
        {
          runs[r] = runs[0];
          runs[r].seed = one.seed;
          if (!pl_probe_relative (x, &one, &runs[r].relative_error, runs[r].relative_folds, cancellable, error))
            return FALSE;
        }
      if (progress != NULL)
        progress ((double) (r + 1) / n_repeats, progress_data);
    }
  return TRUE;
}

/* P(|T| ≤ t) for Student's T with DF degrees of freedom, in closed form
 * (Abramowitz and Stegun 26.7.3 and 26.7.4): with θ = atan (t / √df),
 * odd DF: (2/π)(θ + sin θ (cos θ + ⅔ cos³θ + … + (2·4⋯(df−3))/(1·3⋯(df−2)) cos^(df−2) θ)),
 * even DF: sin θ (1 + ½ cos²θ + (1·3)/(2·4) cos⁴θ + … + (1·3⋯(df−3))/(2·4⋯(df−2)) cos^(df−2) θ). */
static double
student_t_central (double t,
                   guint  df)
{
  double theta = atan (t / sqrt ((double) df));
  double s = sin (theta), c = cos (theta), c2 = c * c;
  double term, sum;

  if (df % 2 == 1)
    {
      if (df == 1)
        return 2 * theta / G_PI;
      term = c;
      sum = c;
      for (guint k = 3; k <= df - 2; k += 2)
        {
          term *= c2 * (k - 1) / k;
          sum += term;
        }
      return 2 / G_PI * (theta + s * sum);
    }
  term = 1;
  sum = 1;
  for (guint k = 2; k <= df - 2; k += 2)
    {
      term *= c2 * (k - 1) / k;
      sum += term;
    }
  return s * sum;
}

double
pl_student_t_975 (guint df)
{
  double lo = 0, hi = 1;

  g_return_val_if_fail (df > 0, NAN);

  while (student_t_central (hi, df) < 0.95)
    hi *= 2;
  /* Bisection to the last bit: the function rises monotonically. */
  for (guint i = 0; i < 200 && hi - lo > 1e-15 * hi; i++)
    {
      double mid = 0.5 * (lo + hi);

      if (student_t_central (mid, df) < 0.95)
        lo = mid;
      else
        hi = mid;
    }
  return 0.5 * (lo + hi);
}

void
pl_probe_spread (const double  *values,
                 gsize          n,
                 PlProbeSpread *spread)
{
  double sum = 0, squares = 0;

  g_return_if_fail (spread != NULL && (values != NULL || n == 0));

  spread->n = (guint) n;
  spread->mean = spread->half_width = spread->sd = 0;
  spread->min = spread->max = n > 0 ? values[0] : NAN;
  if (n == 0)
    {
      spread->mean = NAN;
      return;
    }
  for (gsize r = 0; r < n; r++)
    {
      double v = values[r];

      sum += v;
      spread->min = MIN (spread->min, v);
      spread->max = MAX (spread->max, v);
    }
  spread->mean = sum / n;
  if (n < 2)
    return;
  for (gsize r = 0; r < n; r++)
    {
      double e = values[r] - spread->mean;

      squares += e * e;
    }
  spread->sd = sqrt (squares / (n - 1));
  spread->half_width = pl_student_t_975 ((guint) n - 1) * spread->sd / sqrt ((double) n);
}

void
pl_probe_summarise (const PlProbeResult *runs,
                    guint                n_runs,
                    PlProbeSummary      *summary)
{
  g_autofree double *absolute = g_new (double, MAX (n_runs, 1));
  g_autofree double *relative = g_new (double, MAX (n_runs, 1));

  g_return_if_fail (summary != NULL && (runs != NULL || n_runs == 0));

  for (guint r = 0; r < n_runs; r++)
    {
      absolute[r] = runs[r].absolute_mae;
      relative[r] = runs[r].relative_error;
    }
  pl_probe_spread (absolute, n_runs, &summary->absolute);
  pl_probe_spread (relative, n_runs, &summary->relative);
}

void
pl_probe_summarise_repeats (const PlProbeResult   *runs,
                            guint                  n_runs,
                            const PlProbeOptions  *options,
                            PlProbeSummary        *summary)
{
  g_return_if_fail (options != NULL);

  pl_probe_summarise (runs, n_runs, summary);
  /* Repeats of a probe with no random draw are one run said n times. */
  if (!pl_probe_absolute_is_random (options->protocol) && n_runs > 0)
    pl_probe_spread (&runs[0].absolute_mae, 1, &summary->absolute);
}
