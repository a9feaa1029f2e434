/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-pca.h"
#include "pl-pca-private.h"

/* Below this many multiply-adds the cross-product is formed in double: cheap,
 * and it keeps the small trailing eigenvalues of small tables exact. */
#define DOUBLE_WORK_LIMIT ((double) (1u << 28))
/* Large float32 problems try block Lanczos first, accepted when every
 * residual ‖Cv − λv‖ is below this fraction of λmax (float32 rounding of C
 * itself is of that order); otherwise the dense solver. Random data, with
 * its flat Marchenko–Pastur top, needs about 170 basis vectors for three
 * components at m = 1024, still a fraction of the dense
 * solver's tridiagonal reduction; below LANCZOS_MIN_SIZE that reduction is
 * cheap enough on its own. */
#define LANCZOS_MIN_SIZE  512
#define LANCZOS_TOLERANCE 1e-6
#define LANCZOS_MAX_BASIS 512

G_DEFINE_BOXED_TYPE (PlPca, pl_pca, pl_pca_ref, pl_pca_unref)

PlPca *
pl_pca_ref (PlPca *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_pca_unref (PlPca *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_int_dec_and_test (&self->ref_count))
    {
      g_clear_pointer (&self->projection, pl_matrix_unref);
      g_clear_pointer (&self->components, pl_matrix_unref);
      g_clear_pointer (&self->explained_variance, pl_matrix_unref);
      g_clear_pointer (&self->explained_variance_ratio, pl_matrix_unref);
      g_clear_pointer (&self->mean, pl_matrix_unref);
      g_free (self);
    }
}

/* Reports an eigensolver failure. */
static gboolean
check_solver (lapack_int   info,
              lapack_int   found,
              guint        kk,
              GError     **error)
{
  if (info != 0 || found != (lapack_int) kk)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED,
                   "the eigensolver did not converge on this table (LAPACK info %d)", (int) info);
      return FALSE;
    }
  return TRUE;
}

/* The top KK eigenpairs (W ascending, Z column-major m×kk) of the m×m
 * cross-product of the centred rows XC, the Gram matrix XXᵀ when GRAM, else
 * XᵀX, all in double: for small problems, where it is cheap and keeps the
 * small trailing eigenvalues exact. */
static gboolean
top_eigenpairs_double (const float  *xc,
                       gsize         n,
                       gsize         d,
                       gboolean      gram,
                       guint         kk,
                       double       *w,
                       double       *z,
                       GError      **error)
{
  gsize m = gram ? n : d;
  gsize k = gram ? d : n;
  g_autofree lapack_int *support = g_new (lapack_int, 2 * kk);
  g_autofree double *xd = g_new (double, n * d);
  g_autofree double *s = g_try_new (double, m * m);
  lapack_int found = 0, info;

  if (s == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "out of memory for a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " cross-product", m, m);
      return FALSE;
    }
  for (gsize i = 0; i < n * d; i++)
    xd[i] = xc[i];
  /* Row-major upper = column-major lower. */
  cblas_dsyrk (CblasRowMajor, CblasUpper, gram ? CblasNoTrans : CblasTrans,
               (blasint) m, (blasint) k, 1.0, xd, (blasint) d, 0.0, s, (blasint) m);
  info = LAPACKE_dsyevr (LAPACK_COL_MAJOR, 'V', 'I', 'L', (lapack_int) m, s, (lapack_int) m,
                         0.0, 0.0, (lapack_int) (m - kk + 1), (lapack_int) m, 0.0,
                         &found, w, z, (lapack_int) m, support);
  return check_solver (info, found, kk, error);
}

/* The same from the float32 cross-product S (m×m, column-major lower), where
 * the halved memory traffic pays: block Lanczos when it reaches its residual
 * goal, else the dense solver. S is overwritten. */
static gboolean
top_eigenpairs_float (float         *s,
                      gsize          m,
                      guint          kk,
                      double        *w,
                      double        *z,
                      GCancellable  *cancellable,
                      GError       **error)
{
  g_autofree lapack_int *support = g_new (lapack_int, 2 * kk);
  g_autofree float *wf = g_new (float, m);
  g_autofree float *zf = g_new (float, m * kk);
  lapack_int found = 0, info;

  if (m >= LANCZOS_MIN_SIZE &&
      pl_pca_lanczos_top (s, m, kk, LANCZOS_TOLERANCE, LANCZOS_MAX_BASIS, w, z, cancellable))
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  info = LAPACKE_ssyevr (LAPACK_COL_MAJOR, 'V', 'I', 'L', (lapack_int) m, s, (lapack_int) m,
                         0.0f, 0.0f, (lapack_int) (m - kk + 1), (lapack_int) m, 0.0f,
                         &found, wf, zf, (lapack_int) m, support);
  for (guint c = 0; c < kk; c++)
    w[c] = wf[c];
  for (gsize i = 0; i < m * kk; i++)
    z[i] = zf[i];
  return check_solver (info, found, kk, error);
}

PlPca *
pl_pca_compute (const PlMatrix  *x,
                guint            n_components,
                GCancellable    *cancellable,
                GError         **error)
{
  g_autoptr(PlMatrix) xc = NULL;
  g_autofree double *mean = NULL;
  g_autofree double *column_ss = NULL;
  g_autofree double *w = NULL;
  g_autofree double *z = NULL;
  g_autoptr(PlPca) pca = NULL;
  gsize n, d, m;
  guint kk;
  gboolean gram;
  double total = 0;

  g_return_val_if_fail (x != NULL, NULL);

  n = x->rows;
  d = x->cols;
  kk = n_components;
  if (n < 2 || d < 1)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "PCA needs at least 2 rows; the table is %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT,
                   n, d);
      return NULL;
    }
  if (kk < 1 || kk > PL_PCA_MAX_COMPONENTS || kk > MIN (n, d))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "cannot take %u components of a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT
                   " table: choose 1 to %" G_GSIZE_FORMAT,
                   kk, n, d, MIN (MIN (n, d), (gsize) PL_PCA_MAX_COMPONENTS));
      return NULL;
    }
  mean = g_new (double, d);
  if (!pl_pca_column_means (x, mean))
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                           "the table holds NaN or infinite values");
      return NULL;
    }

  /* The smaller of the Gram and covariance matrices share their nonzero
   * eigenvalues; only the top K are wanted. */
  gram = n < d;
  m = gram ? n : d;
  /* ?syevr fills W up to its order N whatever range it is asked for. */
  w = g_new (double, m);
  z = g_new (double, m * kk);
  column_ss = g_new0 (double, d);
  if (!gram && (double) m * m * n / 2 > DOUBLE_WORK_LIMIT)
    {
      /* Tall and large: the covariance straight from X, centred a chunk at
       * a time, so no centred copy of the table is made. */
      g_autofree float *s = g_try_new (float, m * m);

      if (s == NULL)
        goto oom;
      pl_pca_covariance (x, mean, s, column_ss, cancellable);
      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          !top_eigenpairs_float (s, m, kk, w, z, cancellable, error))
        return NULL;
    }
  else
    {
      /* Centre in double into a float copy for the BLAS calls; the Gram
       * route needs it again for the loadings. */
      if (!(xc = pl_matrix_try_new (n, d, error)))
        return NULL;
      for (gsize i = 0; i < n; i++)
        pl_pca_centre_row (pl_matrix_row (x, i), mean, d, pl_matrix_row (xc, i), column_ss);
      if ((double) m * m * (gram ? d : n) / 2 <= DOUBLE_WORK_LIMIT)
        {
          if (!top_eigenpairs_double (xc->data, n, d, gram, kk, w, z, error))
            return NULL;
        }
      else
        {
          g_autofree float *s = g_try_new (float, m * m);

          if (s == NULL)
            goto oom;
          /* Row-major upper = column-major lower. */
          cblas_ssyrk (CblasRowMajor, CblasUpper, gram ? CblasNoTrans : CblasTrans,
                       (blasint) m, (blasint) (gram ? d : n), 1.0f, xc->data, (blasint) d,
                       0.0f, s, (blasint) m);
          if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
              !top_eigenpairs_float (s, m, kk, w, z, cancellable, error))
            return NULL;
        }
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  for (gsize j = 0; j < d; j++)
    total += column_ss[j];

  pca = g_new0 (PlPca, 1);
  pca->ref_count = 1;
  pca->n_rows = n;
  pca->n_cols = d;
  pca->n_components = kk;
  pca->total_variance = total / (n - 1);
  pca->components = pl_matrix_new (kk, d);
  pca->projection = pl_matrix_new (n, kk);
  pca->explained_variance = pl_matrix_new (1, kk);
  pca->explained_variance_ratio = pl_matrix_new (1, kk);
  pca->mean = pl_matrix_new (1, d);
  for (gsize j = 0; j < d; j++)
    pca->mean->data[j] = (float) mean[j];

  /* LAPACK returns ascending eigenvalues: component c is column kk − 1 − c. */
  for (guint c = 0; c < kk; c++)
    {
      guint src = kk - 1 - c;
      double lambda = MAX (w[src], 0.0);
      const double *col = z + (gsize) src * m;
      float *comp = pl_matrix_row (pca->components, c);

      pca->explained_variance->data[c] = (float) (lambda / (n - 1));
      pca->explained_variance_ratio->data[c] = total > 0 ? (float) (lambda / total) : 0.0f;

      if (!gram)
        {
          for (gsize j = 0; j < d; j++)
            comp[j] = (float) col[j];
        }
      else if (lambda > w[kk - 1] * 1e-12 && lambda > 0)
        {
          /* v = Xcᵀu / √λ: the loading behind the Gram eigenvector u. */
          g_autofree double *v = g_new0 (double, d);
          double inv = 1.0 / sqrt (lambda);

          for (gsize i = 0; i < n; i++)
            {
              const float *row = pl_matrix_row (xc, i);
              double ui = col[i];
              for (gsize j = 0; j < d; j++)
                v[j] += ui * row[j];
            }
          for (gsize j = 0; j < d; j++)
            comp[j] = (float) (v[j] * inv);
        }
      /* else: no variance left, the component is undefined and stays zero. */
    }

  /* Deterministic signs: each component's largest |loading| is positive. */
  for (guint c = 0; c < kk; c++)
    {
      float *comp = pl_matrix_row (pca->components, c);
      gsize arg = 0;

      for (gsize j = 1; j < d; j++)
        if (fabsf (comp[j]) > fabsf (comp[arg]))
          arg = j;
      if (comp[arg] < 0)
        for (gsize j = 0; j < d; j++)
          comp[j] = -comp[j];
    }

  if (xc != NULL)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) n, (blasint) kk, (blasint) d,
                 1.0f, xc->data, (blasint) d, pca->components->data, (blasint) d,
                 0.0f, pca->projection->data, (blasint) kk);
  else
    pl_pca_project (x, mean, pca->components, pca->projection);

  return g_steal_pointer (&pca);

oom:
  g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
               "out of memory for a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " cross-product", m, m);
  return NULL;
}
