/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>

#include "pl-error.h"
#include "pl-position-coordinates.h"

static gboolean
check_lapack (lapack_int   info,
              const char  *routine,
              GError     **error)
{
  if (info != 0)
    g_set_error (error, PL_ERROR, PL_ERROR_FAILED,
                 "the positional component's basis: LAPACK's %s failed (info %d)", routine, (int) info);
  return info == 0;
}

PlMatrix *
pl_position_coordinates (const PlMatrix  *x,
                         PlMatrix       **basis,
                         GError         **error)
{
  gsize t, d;
  g_autofree double *q = NULL;
  g_autofree double *tau = NULL;
  g_autofree double *c0 = NULL;
  g_autofree double *centred = NULL;
  g_autofree double *s = NULL;
  g_autofree double *wt = NULL;
  g_autofree double *superb = NULL;
  g_autofree double *b = NULL;
  g_autofree double *c = NULL;
  g_autoptr(PlMatrix) coordinates = NULL;

  g_return_val_if_fail (x != NULL && x->rows > 0 && x->cols > x->rows, NULL);

  t = x->rows;
  d = x->cols;
  if (!pl_matrix_all_finite (x))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the positional component holds a NaN or an infinity");
      return NULL;
    }
  if (!pl_matrix_check_size (t, d * 4, error) ||
      !(q = g_try_new (double, t * d)) || !(b = g_try_new (double, t * d)))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE, "out of memory for the positional component's basis");
      return NULL;
    }

  /* Row-major X [T, D] is Xᵀ [D, T] column-major: Xᵀ = QR, so X = Rᵀ Qᵀ
   * and row i's coordinates in Q's columns are R's column i. */
  for (gsize n = 0; n < t * d; n++)
    q[n] = x->data[n];
  tau = g_new (double, t);
  if (!check_lapack (LAPACKE_dgeqrf (LAPACK_COL_MAJOR, (lapack_int) d, (lapack_int) t, q, (lapack_int) d, tau),
                     "dgeqrf", error))
    return NULL;
  c0 = g_new0 (double, t * t);
  for (gsize i = 0; i < t; i++)
    for (gsize j = 0; j <= i; j++)
      c0[i * t + j] = q[i * d + j];
  /* Q [D, T] column-major: row-major, Q's columns are the rows of q. */
  if (!check_lapack (LAPACKE_dorgqr (LAPACK_COL_MAJOR, (lapack_int) d, (lapack_int) t, (lapack_int) t, q,
                                     (lapack_int) d, tau), "dorgqr", error))
    return NULL;

  /* The centred coordinates' right singular vectors W: their principal
   * axes in Q's coordinates, largest singular value first. */
  centred = g_memdup2 (c0, t * t * sizeof (double));
  for (gsize j = 0; j < t; j++)
    {
      double mean = 0;

      for (gsize i = 0; i < t; i++)
        mean += centred[i * t + j];
      mean /= t;
      for (gsize i = 0; i < t; i++)
        centred[i * t + j] -= mean;
    }
  s = g_new (double, t);
  wt = g_new (double, t * t);
  superb = g_new (double, MAX (t, 2) - 1);
  if (!check_lapack (LAPACKE_dgesvd (LAPACK_ROW_MAJOR, 'N', 'A', (lapack_int) t, (lapack_int) t, centred,
                                     (lapack_int) t, s, NULL, 1, wt, (lapack_int) t, superb), "dgesvd", error))
    return NULL;

  /* B = Wᵀ Qᵀ [T, D]: row k is the axis b_k in R^D, signed as PCA signs
   * its loadings (the first largest |entry| positive). */
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint) t, (blasint) d, (blasint) t,
               1.0, wt, (blasint) t, q, (blasint) d, 0.0, b, (blasint) d);
  for (gsize k = 0; k < t; k++)
    {
      double *row = b + k * d;
      gsize arg = 0;

      for (gsize j = 1; j < d; j++)
        if (fabs (row[j]) > fabs (row[arg]))
          arg = j;
      if (row[arg] < 0)
        {
          for (gsize j = 0; j < d; j++)
            row[j] = -row[j];
          for (gsize j = 0; j < t; j++)
            wt[k * t + j] = -wt[k * t + j];
        }
    }

  /* The coordinates in B: C = Rᵀ W. */
  c = g_new (double, t * t);
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) t, (blasint) t, (blasint) t,
               1.0, c0, (blasint) t, wt, (blasint) t, 0.0, c, (blasint) t);
  coordinates = pl_matrix_new (t, t);
  for (gsize n = 0; n < t * t; n++)
    coordinates->data[n] = (float) c[n];
  if (basis != NULL)
    {
      *basis = pl_matrix_new (t, d);
      for (gsize n = 0; n < t * d; n++)
        (*basis)->data[n] = (float) b[n];
    }
  return g_steal_pointer (&coordinates);
}
