/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-probes.h"
#include "pl-probes-private.h"

/* Cholesky answers are trusted down to this reciprocal condition number;
 * below it the pseudo-inverse decides which directions count. */
#define CHOLESKY_MIN_RCOND 1e-10
#define MAX_PAIRS          100000u

const char *
pl_folds_to_string (PlFolds folds)
{
  switch (folds)
    {
    case PL_FOLDS_INTERLEAVED: return "interleaved";
    case PL_FOLDS_SHUFFLED:    return "shuffled";
    default:                   g_return_val_if_reached (NULL);
    }
}

gboolean
pl_folds_from_string (const char *name,
                      PlFolds    *folds)
{
  for (PlFolds f = PL_FOLDS_INTERLEAVED; f <= PL_FOLDS_SHUFFLED; f++)
    if (g_strcmp0 (name, pl_folds_to_string (f)) == 0)
      {
        *folds = f;
        return TRUE;
      }
  return FALSE;
}

void
pl_probe_options_init (PlProbeOptions *options)
{
  g_return_if_fail (options != NULL);

  options->folds = PL_FOLDS_INTERLEAVED;
  options->seed = 0;
  options->n_folds = 5;
  options->n_pairs = 512;
}

/* fold_of[i] for N items: i % k, or a seeded permutation cut into k parts
 * whose sizes differ by at most one (the first n % k parts are longer). */
static guint *
assign_folds (gsize                 n,
              const PlProbeOptions *options,
              guint32               salt)
{
  guint *fold_of = g_new (guint, n);
  guint k = options->n_folds;

  if (options->folds == PL_FOLDS_INTERLEAVED)
    {
      for (gsize i = 0; i < n; i++)
        fold_of[i] = i % k;
    }
  else
    {
      g_autofree gsize *perm = g_new (gsize, n);
      GRand *rand = g_rand_new_with_seed (options->seed ^ salt);
      gsize start = 0;

      for (gsize i = 0; i < n; i++)
        perm[i] = i;
      for (gsize i = n - 1; i > 0; i--)
        {
          gsize j = g_rand_int_range (rand, 0, (gint32) (i + 1));
          gsize t = perm[i];
          perm[i] = perm[j];
          perm[j] = t;
        }
      g_rand_free (rand);
      for (guint f = 0; f < k; f++)
        {
          gsize size = n / k + (f < n % k ? 1 : 0);
          for (gsize i = start; i < start + size; i++)
            fold_of[perm[i]] = f;
          start += size;
        }
    }
  return fold_of;
}

/* The table in double, centred on its overall mean: the folds re-centre on
 * their own means, this only keeps the cross-products well conditioned. */
static double *
centred_double (const PlMatrix *x)
{
  gsize n = x->rows, d = x->cols;
  double *xd = g_new (double, n * d);
  g_autofree double *mean = g_new0 (double, d);

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < d; j++)
      mean[j] += x->data[i * d + j];
  for (gsize j = 0; j < d; j++)
    mean[j] /= n;
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < d; j++)
      xd[i * d + j] = x->data[i * d + j] - mean[j];
  return xd;
}

/* Solves A z = r for a symmetric positive semi-definite m×m A (lower
 * triangle, column-major; destroyed) in the least-squares minimum-norm sense:
 * Cholesky when A is well conditioned, else the pseudo-inverse that drops
 * eigenvalues below (FLT_EPSILON)²·λmax, i.e. singular values of the data
 * below FLT_EPSILON·σmax, as gelsd does for float32 input. ONES_NULL: the
 * all-ones vector is a known null vector (a centred Gram matrix); it is
 * lifted before Cholesky, which leaves the solution unchanged when r ⟂ 1. */
static gboolean
psd_solve (double        *a,
           gsize          m,
           gboolean       ones_null,
           const double  *r,
           double        *z,
           GError       **error)
{
  g_autofree double *saved = g_new (double, m * m);
  g_autofree double *w = NULL;
  double anorm, rcond = 0, trace = 0, lambda_max, cut;
  lapack_int info;

  memcpy (saved, a, m * m * sizeof (double));
  if (ones_null)
    {
      for (gsize i = 0; i < m; i++)
        trace += a[i * m + i];
      for (gsize j = 0; j < m; j++)
        for (gsize i = j; i < m; i++)
          a[j * m + i] += trace / m / m;
    }
  anorm = LAPACKE_dlansy (LAPACK_COL_MAJOR, '1', 'L', (lapack_int) m, a, (lapack_int) m);
  info = LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', (lapack_int) m, a, (lapack_int) m);
  if (info == 0)
    info = LAPACKE_dpocon (LAPACK_COL_MAJOR, 'L', (lapack_int) m, a, (lapack_int) m, anorm, &rcond);
  if (info == 0 && rcond > CHOLESKY_MIN_RCOND)
    {
      memcpy (z, r, m * sizeof (double));
      return LAPACKE_dpotrs (LAPACK_COL_MAJOR, 'L', (lapack_int) m, 1, a, (lapack_int) m,
                             z, (lapack_int) m) == 0;
    }

  w = g_new (double, m);
  info = LAPACKE_dsyevd (LAPACK_COL_MAJOR, 'V', 'L', (lapack_int) m, saved, (lapack_int) m, w);
  if (info != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED,
                   "the least-squares eigensolver did not converge (LAPACK info %d)", (int) info);
      return FALSE;
    }
  lambda_max = w[m - 1];
  cut = lambda_max * FLT_EPSILON * FLT_EPSILON;
  memset (z, 0, m * sizeof (double));
  for (gsize k = 0; k < m; k++)
    if (w[k] > cut && w[k] > 0)
      {
        const double *v = saved + k * m;
        double proj = cblas_ddot ((blasint) m, v, 1, r, 1) / w[k];
        cblas_daxpy ((blasint) m, proj, v, 1, z, 1);
      }
  return TRUE;
}

/* The rows not in fold K into INDEX (returns how many), and the mean of
 * their positions. */
static gsize
split_fold (gsize        n,
            const guint *fold_of,
            guint        k,
            gsize       *index,
            double      *ybar)
{
  gsize m = 0;
  double sum = 0;

  for (gsize i = 0; i < n; i++)
    if (fold_of[i] != k)
      {
        index[m++] = i;
        sum += (double) i;
      }
  *ybar = m > 0 ? sum / m : 0;
  return m;
}

/* Fold K by the d×d normal equations (fewer dimensions than training rows). */
static gboolean
absolute_fold_covariance (const double  *xd,
                          gsize          n,
                          gsize          d,
                          const guint   *fold_of,
                          guint          k,
                          double        *sum_abs,
                          GError       **error)
{
  g_autofree gsize *index = g_new (gsize, n);
  g_autofree double *mu = g_new0 (double, d);
  g_autofree double *w = g_new0 (double, d);
  g_autofree double *rhs = g_new (double, d);
  g_autofree double *cross = g_new (double, d * d);
  g_autofree double *a = NULL;
  g_autofree double *yc = NULL;
  double ybar;
  gsize m = split_fold (n, fold_of, k, index, &ybar);

  a = g_new (double, m * d);
  yc = g_new (double, m);
  for (gsize r = 0; r < m; r++)
    {
      memcpy (a + r * d, xd + index[r] * d, d * sizeof (double));
      yc[r] = (double) index[r] - ybar;
      for (gsize j = 0; j < d; j++)
        mu[j] += a[r * d + j];
    }
  for (gsize j = 0; j < d; j++)
    mu[j] /= m;
  for (gsize r = 0; r < m; r++)
    for (gsize j = 0; j < d; j++)
      a[r * d + j] -= mu[j];

  cblas_dsyrk (CblasRowMajor, CblasUpper, CblasTrans, (blasint) d, (blasint) m,
               1.0, a, (blasint) d, 0.0, cross, (blasint) d);
  cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) m, (blasint) d, 1.0, a, (blasint) d,
               yc, 1, 0.0, rhs, 1);
  if (!psd_solve (cross, d, FALSE, rhs, w, error))
    return FALSE;

  for (gsize i = 0; i < n; i++)
    if (fold_of[i] == k)
      {
        double pred = ybar;
        for (gsize j = 0; j < d; j++)
          pred += (xd[i * d + j] - mu[j]) * w[j];
        /* nearbyint rounds half to even, as numpy's round. */
        *sum_abs += fabs (nearbyint (pred) - (double) i);
      }
  return TRUE;
}

/* Fold K by the minimum-norm solution w = Aᵀ(AAᵀ)⁺y of the centred training
 * rows A, through the Gram matrix G of all rows (n×n, full): centring is
 * Kc = G − r1ᵀ − 1rᵀ + s on the training block, so no fold touches X. */
static gboolean
absolute_fold_gram (const double  *gram,
                    gsize          n,
                    const guint   *fold_of,
                    guint          k,
                    double        *sum_abs,
                    GError       **error)
{
  g_autofree gsize *index = g_new (gsize, n);
  g_autofree double *r = NULL;
  g_autofree double *kc = NULL;
  g_autofree double *yc = NULL;
  g_autofree double *alpha = NULL;
  double ybar, s = 0;
  gsize m = split_fold (n, fold_of, k, index, &ybar);

  r = g_new0 (double, m);
  kc = g_new (double, m * m);
  yc = g_new (double, m);
  alpha = g_new (double, m);
  for (gsize a = 0; a < m; a++)
    {
      const double *row = gram + index[a] * n;
      for (gsize b = 0; b < m; b++)
        r[a] += row[index[b]];
      r[a] /= m;
      s += r[a];
      yc[a] = (double) index[a] - ybar;
    }
  s /= m;
  for (gsize b = 0; b < m; b++)
    {
      const double *row = gram + index[b] * n;
      for (gsize a = b; a < m; a++)
        kc[b * m + a] = row[index[a]] - r[a] - r[b] + s;
    }
  if (!psd_solve (kc, m, TRUE, yc, alpha, error))
    return FALSE;

  for (gsize i = 0; i < n; i++)
    if (fold_of[i] == k)
      {
        const double *row = gram + i * n;
        double rt = 0, pred = ybar;

        for (gsize a = 0; a < m; a++)
          rt += row[index[a]];
        rt /= m;
        for (gsize a = 0; a < m; a++)
          pred += (row[index[a]] - rt - r[a] + s) * alpha[a];
        *sum_abs += fabs (nearbyint (pred) - (double) i);
      }
  return TRUE;
}

static gboolean
check_input (const PlMatrix        *x,
             const PlProbeOptions  *options,
             GError               **error)
{
  if (options->n_folds < 2)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "cross-validation needs at least 2 folds, not %u", options->n_folds);
      return FALSE;
    }
  if (x->rows < 2 * options->n_folds || x->cols == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a probe with %u folds needs at least %u positions; the table has %" G_GSIZE_FORMAT,
                   options->n_folds, 2 * options->n_folds, x->rows);
      return FALSE;
    }
  if (!pl_matrix_all_finite (x))
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                           "the table holds NaN or infinite values");
      return FALSE;
    }
  return TRUE;
}

gboolean
pl_probe_absolute (const PlMatrix        *x,
                   const PlProbeOptions  *options,
                   double                *mae,
                   GCancellable          *cancellable,
                   GError               **error)
{
  g_autofree double *xd = NULL;
  g_autofree double *gram = NULL;
  g_autofree guint *fold_of = NULL;
  g_autofree gsize *fold_size = NULL;
  gsize n, d, smallest_train;
  double total = 0;

  g_return_val_if_fail (x != NULL && options != NULL && mae != NULL, FALSE);

  if (!check_input (x, options, error))
    return FALSE;

  n = x->rows;
  d = x->cols;
  xd = centred_double (x);
  fold_of = assign_folds (n, options, 0);
  fold_size = g_new0 (gsize, options->n_folds);
  for (gsize i = 0; i < n; i++)
    fold_size[fold_of[i]]++;
  smallest_train = n;
  for (guint k = 0; k < options->n_folds; k++)
    smallest_train = MIN (smallest_train, n - fold_size[k]);

  /* As many dimensions as training rows or more: one Gram matrix serves
   * every fold. */
  if (d >= smallest_train)
    {
      gram = g_new (double, n * n);
      cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) n, (blasint) d,
                   1.0, xd, (blasint) d, 0.0, gram, (blasint) n);
      for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j < i; j++)
          gram[i * n + j] = gram[j * n + i];
    }

  for (guint k = 0; k < options->n_folds; k++)
    {
      double sum_abs = 0;
      gboolean ok;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      ok = gram ? absolute_fold_gram (gram, n, fold_of, k, &sum_abs, error)
                         : absolute_fold_covariance (xd, n, d, fold_of, k, &sum_abs, error);

      if (!ok)
        return FALSE;
      total += sum_abs / fold_size[k];
    }
  *mae = total / options->n_folds;
  return TRUE;
}

gboolean
pl_probe_relative (const PlMatrix        *x,
                   const PlProbeOptions  *options,
                   double                *error_rate,
                   GCancellable          *cancellable,
                   GError               **error)
{
  g_autofree double *xd = NULL;
  g_autofree double *features = NULL;
  g_autofree guint8 *labels = NULL;
  g_autofree guint *fold_of = NULL;
  g_autofree gsize *pair_i = NULL;
  g_autofree gsize *pair_j = NULL;
  g_autofree double *gram = NULL;
  gsize n, d, p, np;
  GRand *rand;
  double total = 0;

  g_return_val_if_fail (x != NULL && options != NULL && error_rate != NULL, FALSE);

  if (!check_input (x, options, error))
    return FALSE;
  np = options->n_pairs;
  if (np < 2 * options->n_folds || np > MAX_PAIRS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "choose %u to %u pairs for the relative-order probe, not %u",
                   2 * options->n_folds, MAX_PAIRS, options->n_pairs);
      return FALSE;
    }

  n = x->rows;
  d = x->cols;
  p = 2 * d;
  xd = centred_double (x);
  features = g_new (double, np * p);
  labels = g_new (guint8, np);
  pair_i = g_new (gsize, np);
  pair_j = g_new (gsize, np);

  /* Ordered pairs i ≠ j, uniform, from the seed. */
  rand = g_rand_new_with_seed (options->seed);
  for (gsize s = 0; s < np; s++)
    {
      gsize i = g_rand_int_range (rand, 0, (gint32) n);
      gsize j = g_rand_int_range (rand, 0, (gint32) n - 1);

      if (j >= i)
        j++;
      memcpy (features + s * p, xd + i * d, d * sizeof (double));
      memcpy (features + s * p + d, xd + j * d, d * sizeof (double));
      labels[s] = j > i;
      pair_i[s] = i;
      pair_j[s] = j;
    }
  g_rand_free (rand);


  fold_of = assign_folds (np, options, 0x9e3779b9u);
  for (guint k = 0; k < options->n_folds; k++)
    {
      g_autofree double *train = NULL;
      g_autofree guint8 *train_y = NULL;
      g_autofree gsize *train_index = NULL;
      g_autofree double *kernel = NULL;
      g_autofree double *w = g_new (double, p);
      gsize m = 0, row = 0, wrong = 0, t = 0, positives = 0;
      double b;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      for (gsize s = 0; s < np; s++)
        m += fold_of[s] != k;
      train = g_new (double, m * p);
      train_y = g_new (guint8, m);
      train_index = g_new (gsize, m);
      for (gsize s = 0; s < np; s++)
        if (fold_of[s] != k)
          {
            memcpy (train + row * p, features + s * p, p * sizeof (double));
            train_index[row] = s;
            train_y[row] = labels[s];
            positives += labels[s];
            row++;
          }
      if (positives == 0 || positives == m)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "fold %u trains on pairs of one order only; sample more pairs", k + 1);
          return FALSE;
        }
      /* With fewer pairs than features the Newton steps go through the
       * pairs' kernel, [p_i; p_j]·[p_k; p_l] = G_ik + G_jl: one Gram matrix
       * of the positions serves every fold. */
      if (p + 1 > m && gram == NULL)
        {
          gram = g_new (double, n * n);
          cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) n, (blasint) d,
                       1.0, xd, (blasint) d, 0.0, gram, (blasint) n);
          for (gsize i = 0; i < n; i++)
            for (gsize j = 0; j < i; j++)
              gram[i * n + j] = gram[j * n + i];
        }
      if (p + 1 > m)
        {
          kernel = g_new (double, m * m);
          for (gsize a = 0; a < m; a++)
            {
              const double *gi = gram + pair_i[train_index[a]] * n;
              const double *gj = gram + pair_j[train_index[a]] * n;

              for (gsize c = 0; c < m; c++)
                kernel[a * m + c] = gi[pair_i[train_index[c]]] + gj[pair_j[train_index[c]]];
            }
        }
      if (!pl_logistic_fit_kernel (train, train_y, m, p, 1.0, kernel, w, &b, error))
        return FALSE;
      for (gsize s = 0; s < np; s++)
        if (fold_of[s] == k)
          {
            double zz = b + cblas_ddot ((blasint) p, features + s * p, 1, w, 1);
            wrong += (zz > 0) != (labels[s] != 0);
            t++;
          }
      total += (double) wrong / t;
    }
  *error_rate = total / options->n_folds;
  return TRUE;
}

gboolean
pl_probe_run (const PlMatrix        *x,
              const PlProbeOptions  *options,
              PlProbeResult         *result,
              GCancellable          *cancellable,
              GError               **error)
{
  g_return_val_if_fail (x != NULL && options != NULL && result != NULL, FALSE);

  result->rows = x->rows;
  result->n_pairs = options->n_pairs;
  return pl_probe_absolute (x, options, &result->absolute_mae, cancellable, error) &&
         pl_probe_relative (x, options, &result->relative_error, cancellable, error);
}
