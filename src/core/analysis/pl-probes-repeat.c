/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-probes.h"

/* Repeated draws of a probe and their spread: the number one run gives moves
 * with its random folds and pairs, so the honest answer is a mean with an
 * interval. */

#define MAX_REPEATS 10000u

gboolean
pl_probe_repeat (const PlMatrix        *x,
                 const PlProbeOptions  *options,
                 guint                  n_repeats,
                 PlProbeResult         *runs,
                 GCancellable          *cancellable,
                 GError               **error)
{
  g_return_val_if_fail (x != NULL && options != NULL && runs != NULL, FALSE);

  if (n_repeats == 0 || n_repeats > MAX_REPEATS ||
      (guint64) options->seed + n_repeats - 1 > G_MAXUINT32)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "choose 1 to %u repeats whose seeds stay below 2³², not %u from seed %u",
                   MAX_REPEATS, n_repeats, options->seed);
      return FALSE;
    }
  for (guint r = 0; r < n_repeats; r++)
    {
      PlProbeOptions one = *options;

      one.seed = options->seed + r;
      if (!pl_probe_run (x, &one, &runs[r], cancellable, error))
        return FALSE;
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
