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
pl_probe_protocol_to_string (PlProbeProtocol protocol)
{
  switch (protocol)
    {
    case PL_PROBE_PAPER:       return "paper";
    case PL_PROBE_INTERLEAVED: return "interleaved";
    case PL_PROBE_SHUFFLED:    return "shuffled";
    default:                   g_return_val_if_reached (NULL);
    }
}

gboolean
pl_probe_protocol_from_string (const char      *name,
                               PlProbeProtocol *protocol)
{
  for (guint p = 0; p < PL_PROBE_N_PROTOCOLS; p++)
    if (g_strcmp0 (name, pl_probe_protocol_to_string (p)) == 0)
      {
        *protocol = p;
        return TRUE;
      }
  return FALSE;
}

void
pl_probe_options_init (PlProbeOptions *options)
{
  g_return_if_fail (options != NULL);

  options->protocol = PL_PROBE_PAPER;
  options->seed = 0;
  options->n_folds = 5;
  options->n_pairs = 0;
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
/* Row I's target: its index, or TARGET[I]. */
static inline double
target_of (const double *target,
           gsize         i)
{
  return target != NULL ? target[i] : (double) i;
}

static gsize
split_fold (gsize         n,
            const guint  *fold_of,
            const double *target,
            guint         k,
            gsize        *index,
            double       *ybar)
{
  gsize m = 0;
  double sum = 0;

  for (gsize i = 0; i < n; i++)
    if (fold_of[i] != k)
      {
        index[m++] = i;
        sum += target_of (target, i);
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
                          const double  *target,
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
  gsize m = split_fold (n, fold_of, target, k, index, &ybar);

  a = g_new (double, m * d);
  yc = g_new (double, m);
  for (gsize r = 0; r < m; r++)
    {
      memcpy (a + r * d, xd + index[r] * d, d * sizeof (double));
      yc[r] = target_of (target, index[r]) - ybar;
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
        *sum_abs += fabs (nearbyint (pred) - target_of (target, i));
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
                    const double  *target,
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
  gsize m = split_fold (n, fold_of, target, k, index, &ybar);

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
      yc[a] = target_of (target, index[a]) - ybar;
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
        *sum_abs += fabs (nearbyint (pred) - target_of (target, i));
      }
  return TRUE;
}

static gboolean
check_input (const PlMatrix        *x,
             const PlProbeOptions  *options,
             GError               **error)
{
  if (options->n_folds < 2 || options->n_folds > PL_PROBE_MAX_FOLDS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "cross-validation needs 2 to %u folds, not %u", PL_PROBE_MAX_FOLDS, options->n_folds);
      return FALSE;
    }
  if ((guint) options->protocol >= PL_PROBE_N_PROTOCOLS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "unknown probe protocol %d", (int) options->protocol);
      return FALSE;
    }
  if (x->rows < 2 * options->n_folds || x->cols == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a probe with %u folds needs at least %u positions; the table has %" G_GSIZE_FORMAT,
                   options->n_folds, 2 * options->n_folds, x->rows);
      return FALSE;
    }
  if (x->rows > G_MAXINT32)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a probe takes at most %d positions; the table has %" G_GSIZE_FORMAT,
                   G_MAXINT32, x->rows);
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
                   double                *folds,
                   GCancellable          *cancellable,
                   GError               **error)
{
  return pl_probe_absolute_targets (x, NULL, options, mae, folds, cancellable, error);
}

gboolean
pl_probe_absolute_targets (const PlMatrix        *x,
                           const double          *target,
                           const PlProbeOptions  *options,
                           double                *mae,
                           double                *folds,
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
  fold_of = pl_probe_row_folds (n, options);
  fold_size = g_new0 (gsize, options->n_folds);
  for (gsize i = 0; i < n; i++)
    fold_size[fold_of[i]]++;
  smallest_train = n;
  for (guint k = 0; k < options->n_folds; k++)
    smallest_train = MIN (smallest_train, n - fold_size[k]);

  /* As many dimensions as training rows or more: one Gram matrix serves
   * every fold. */
  if (d >= smallest_train)
    gram = pl_probes_gram (xd, n, d);

  for (guint k = 0; k < options->n_folds; k++)
    {
      double sum_abs = 0;
      gboolean ok;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      ok = gram ? absolute_fold_gram (gram, n, fold_of, target, k, &sum_abs, error)
                : absolute_fold_covariance (xd, n, d, fold_of, target, k, &sum_abs, error);
      if (!ok)
        return FALSE;
      if (folds != NULL)
        folds[k] = sum_abs / fold_size[k];
      total += sum_abs / fold_size[k];
    }
  *mae = total / options->n_folds;
  return TRUE;
}

/* The rows the relative probe draws from: the paper's first 512 (relative.py
 * 25: x = x[:512]), else all. */
static gsize
relative_rows (const PlMatrix       *x,
               const PlProbeOptions *options)
{
  return options->protocol == PL_PROBE_PAPER ? MIN (x->rows, PL_PROBE_PAPER_ROWS) : x->rows;
}

/* The error rate on fold K of the pairs: the logistic fit on the others,
 * applied to its own. XD is the table (n × d, centred), GRAM its Gram
 * matrix, made when first needed. */
static gboolean
relative_fold (const double   *xd,
               gsize           n,
               gsize           d,
               const guint32  *pair_i,
               const guint32  *pair_j,
               const guint8   *labels,
               const guint    *fold_of,
               gsize           np,
               guint           k,
               double        **gram,
               double         *error_rate,
               GError        **error)
{
  gsize p = 2 * d, m = 0, row = 0, wrong = 0, t = 0, positives = 0;
  g_autofree guint32 *train_i = NULL;
  g_autofree guint32 *train_j = NULL;
  g_autofree guint8 *train_y = NULL;
  g_autofree double *w = g_new (double, p);
  g_autofree double *u = g_new (double, n);
  g_autofree double *v = g_new (double, n);
  double b;

  for (gsize s = 0; s < np; s++)
    m += fold_of[s] != k;
  train_i = g_new (guint32, MAX (m, 1));
  train_j = g_new (guint32, MAX (m, 1));
  train_y = g_new (guint8, MAX (m, 1));
  for (gsize s = 0; s < np; s++)
    if (fold_of[s] != k)
      {
        train_i[row] = pair_i[s];
        train_j[row] = pair_j[s];
        train_y[row] = labels[s];
        positives += labels[s];
        row++;
      }
  if (positives == 0 || positives == m || m == np)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "fold %u of the relative-order probe %s; sample more pairs", k + 1,
                   m == np ? "tests no pairs" : "trains on pairs of one order only");
      return FALSE;
    }

  if (p + 1 > m)
    {
      /* Fewer pairs than features: the Newton steps go through the pairs'
       * kernel, [p_i; p_j]·[p_k; p_l] = G_ik + G_jl, from one Gram matrix
       * of the positions that serves every fold. */
      g_autofree double *train = g_new (double, m * p);
      g_autofree double *kernel = g_new (double, m * m);

      if (*gram == NULL)
        *gram = pl_probes_gram (xd, n, d);
      for (gsize a = 0; a < m; a++)
        {
          const double *gi = *gram + (gsize) train_i[a] * n;
          const double *gj = *gram + (gsize) train_j[a] * n;

          memcpy (train + a * p, xd + (gsize) train_i[a] * d, d * sizeof (double));
          memcpy (train + a * p + d, xd + (gsize) train_j[a] * d, d * sizeof (double));
          for (gsize c = 0; c < m; c++)
            kernel[a * m + c] = gi[train_i[c]] + gj[train_j[c]];
        }
      if (!pl_logistic_fit_kernel (train, train_y, m, p, 1.0, kernel, w, &b, error))
        return FALSE;
    }
  else if (!pl_logistic_fit_pairs (xd, n, d, train_i, train_j, train_y, m, 1.0, w, &b, error))
    return FALSE;

  /* z = b + p_i·w₁ + p_j·w₂; scikit-learn predicts the later class when z > 0. */
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) n, (blasint) d, 1.0, xd, (blasint) d,
               w, 1, 0.0, u, 1);
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) n, (blasint) d, 1.0, xd, (blasint) d,
               w + d, 1, 0.0, v, 1);
  for (gsize s = 0; s < np; s++)
    if (fold_of[s] == k)
      {
        double z = b + u[pair_i[s]] + v[pair_j[s]];

        wrong += (z > 0) != (labels[s] != 0);
        t++;
      }
  *error_rate = (double) wrong / t;
  return TRUE;
}

gboolean
pl_probe_relative (const PlMatrix        *x,
                   const PlProbeOptions  *options,
                   double                *error_rate,
                   double                *folds,
                   GCancellable          *cancellable,
                   GError               **error)
{
  g_autoptr(PlMatrix) rows = NULL;
  g_autofree guint8 *labels = NULL;
  g_autofree guint32 *pair_i = NULL;
  g_autofree guint32 *pair_j = NULL;
  gsize n, np;

  g_return_val_if_fail (x != NULL && options != NULL && error_rate != NULL, FALSE);

  if (!check_input (x, options, error))
    return FALSE;
  n = relative_rows (x, options);
  rows = pl_matrix_slice_rows (x, 0, n);
  np = options->n_pairs ? options->n_pairs : pl_probe_default_pairs (options, x->rows, x->cols);
  if (np < 2 * options->n_folds || np > MAX_PAIRS ||
      (options->protocol == PL_PROBE_PAPER && np > n * n))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "choose %u to %u pairs for the relative-order probe, not %" G_GSIZE_FORMAT,
                   2 * options->n_folds,
                   options->protocol == PL_PROBE_PAPER ? (guint) MIN (MAX_PAIRS, n * n) : MAX_PAIRS, np);
      return FALSE;
    }

  /* relative.py 26-32: pairs of rows, the features [p_i ; p_j], the label
   * j > i. */
  labels = g_new (guint8, np);
  pair_i = g_new (guint32, np);
  pair_j = g_new (guint32, np);
  pl_probe_draw_pairs (n, options, (guint) np, pair_i, pair_j, labels);
  return pl_probe_relative_pairs (rows, pair_i, pair_j, labels, np, options, error_rate, folds, cancellable, error);
}

gboolean
pl_probe_relative_pairs (const PlMatrix        *x,
                         const guint32         *pair_i,
                         const guint32         *pair_j,
                         const guint8          *labels,
                         gsize                  np,
                         const PlProbeOptions  *options,
                         double                *error_rate,
                         double                *folds,
                         GCancellable          *cancellable,
                         GError               **error)
{
  g_autofree double *xd = NULL;
  g_autofree guint *fold_of = NULL;
  g_autofree double *gram = NULL;
  gsize n = x->rows;
  double total = 0;

  /* The table is centred: a shift of the features moves only the
   * intercept, which the penalty leaves alone. */
  xd = centred_double (x);
  fold_of = pl_probe_pair_folds (labels, (guint) np, options);
  for (guint k = 0; k < options->n_folds; k++)
    {
      double fold_error;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (!relative_fold (xd, n, x->cols, pair_i, pair_j, labels, fold_of, np, k, &gram,
                          &fold_error, error))
        return FALSE;
      if (folds != NULL)
        folds[k] = fold_error;
      total += fold_error;
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

  memset (result, 0, sizeof *result);
  result->rows = x->rows;
  result->relative_rows = relative_rows (x, options);
  result->n_pairs = options->n_pairs ? options->n_pairs
                                     : pl_probe_default_pairs (options, x->rows, x->cols);
  result->n_folds = options->n_folds;
  result->seed = options->seed;
  return pl_probe_absolute (x, options, &result->absolute_mae, result->absolute_folds,
                            cancellable, error) &&
         pl_probe_relative (x, options, &result->relative_error, result->relative_folds,
                            cancellable, error);
}
