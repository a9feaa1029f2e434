/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-probes.h"
#include "pl-probes-private.h"

/* L2-regularised logistic regression with an unpenalised intercept, as
 * scikit-learn's LogisticRegression (C = 1), solved exactly by Newton's
 * method: a few steps reach the optimum to double precision. */

#define NEWTON_MAX_ITER 100

static inline double
sigmoid (double z)
{
  if (z >= 0)
    return 1.0 / (1.0 + exp (-z));
  else
    {
      double e = exp (z);
      return e / (1.0 + e);
    }
}

/* log(1 + e^z) − y z, without overflow. */
static inline double
log_loss (double z, guint8 y)
{
  return log1p (exp (-fabs (z))) + MAX (z, 0.0) - (y ? z : 0.0);
}

static double
objective (const double *x,
           const guint8 *y,
           gsize         n,
           gsize         p,
           double        c,
           const double *w,
           double        b,
           double       *z)
{
  double f = 0.5 * cblas_ddot ((blasint) p, w, 1, w, 1);

  for (gsize i = 0; i < n; i++)
    z[i] = b;
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) n, (blasint) p, 1.0, x, (blasint) p,
               w, 1, 1.0, z, 1);
  for (gsize i = 0; i < n; i++)
    f += c * log_loss (z[i], y[i]);
  return f;
}

/* out = A⁻¹ v with A = I + XᵀS²X, by Woodbury: v − XᵀS N⁻¹ S X v, where N =
 * I + SKS is already Cholesky-factored. */
static void
woodbury_apply (const double *x,
                gsize         n,
                gsize         p,
                const double *s,
                const double *chol_n,
                const double *v,
                double       *out,
                double       *tmp)
{
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) n, (blasint) p, 1.0, x, (blasint) p,
               v, 1, 0.0, tmp, 1);
  for (gsize i = 0; i < n; i++)
    tmp[i] *= s[i];
  LAPACKE_dpotrs (LAPACK_COL_MAJOR, 'L', (lapack_int) n, 1, chol_n, (lapack_int) n,
                  tmp, (lapack_int) n);
  for (gsize i = 0; i < n; i++)
    tmp[i] *= s[i];
  memcpy (out, v, p * sizeof (double));
  cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) n, (blasint) p, -1.0, x, (blasint) p,
               tmp, 1, 1.0, out, 1);
}

/* The Newton step (Δw, Δb) for the gradient (gw, gb) with curvature D. With
 * fewer samples than features the p×p system goes through the n×n one. */
static gboolean
newton_step (const double *x,
             gsize         n,
             gsize         p,
             double        c,
             const double *dcurv,
             const double *kernel,
             const double *gw,
             double        gb,
             double       *dw,
             double       *db)
{
  gsize q = p + 1;

  if (kernel == NULL)
    {
      /* H = C X̃ᵀDX̃ + diag(1, …, 1, 0), X̃ = [X 1]: (p+1)×(p+1) Cholesky. */
      g_autofree double *m = g_new (double, n * q);
      g_autofree double *h = g_new (double, q * q);
      g_autofree double *rhs = g_new (double, q);

      for (gsize i = 0; i < n; i++)
        {
          double s = sqrt (c * dcurv[i]);
          for (gsize j = 0; j < p; j++)
            m[i * q + j] = s * x[i * p + j];
          m[i * q + p] = s;
        }
      cblas_dsyrk (CblasRowMajor, CblasUpper, CblasTrans, (blasint) q, (blasint) n,
                   1.0, m, (blasint) q, 0.0, h, (blasint) q);
      for (gsize j = 0; j < p; j++)
        h[j * q + j] += 1.0;
      for (gsize j = 0; j < p; j++)
        rhs[j] = -gw[j];
      rhs[p] = -gb;
      if (LAPACKE_dposv (LAPACK_COL_MAJOR, 'L', (lapack_int) q, 1, h, (lapack_int) q,
                         rhs, (lapack_int) q) != 0)
        return FALSE;
      memcpy (dw, rhs, p * sizeof (double));
      *db = rhs[p];
      return TRUE;
    }
  else
    {
      /* Schur complement on the intercept, A⁻¹ by Woodbury. */
      g_autofree double *s = g_new (double, n);
      g_autofree double *nn = g_new (double, n * n);
      g_autofree double *u = g_new (double, p);
      g_autofree double *a1 = g_new (double, p);
      g_autofree double *a2 = g_new (double, p);
      g_autofree double *tmp = g_new (double, n);
      g_autofree double *cd = g_new (double, n);
      double c0 = 0, denom;

      for (gsize i = 0; i < n; i++)
        {
          s[i] = sqrt (c * dcurv[i]);
          cd[i] = c * dcurv[i];
          c0 += cd[i];
        }
      for (gsize j = 0; j < n; j++)
        for (gsize i = j; i < n; i++)
          nn[j * n + i] = (i == j ? 1.0 : 0.0) + s[i] * kernel[i * n + j] * s[j];
      if (LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', (lapack_int) n, nn, (lapack_int) n) != 0)
        return FALSE;
      cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) n, (blasint) p, 1.0, x, (blasint) p,
                   cd, 1, 0.0, u, 1);
      woodbury_apply (x, n, p, s, nn, gw, a1, tmp);
      woodbury_apply (x, n, p, s, nn, u, a2, tmp);
      denom = c0 - cblas_ddot ((blasint) p, u, 1, a2, 1);
      *db = denom > 1e-300 ? (-gb + cblas_ddot ((blasint) p, u, 1, a1, 1)) / denom : 0.0;
      for (gsize j = 0; j < p; j++)
        dw[j] = -a1[j] - a2[j] * *db;
      return TRUE;
    }
}

gboolean
pl_logistic_fit_kernel (const double  *x,
                        const guint8  *y,
                        gsize          n,
                        gsize          p,
                        double         c,
                        const double  *kernel,
                        double        *w,
                        double        *b,
                        GError       **error)
{
  g_autofree double *z = g_new (double, n);
  g_autofree double *r = g_new (double, n);
  g_autofree double *dcurv = g_new (double, n);
  g_autofree double *gw = g_new (double, p);
  g_autofree double *dw = g_new (double, p);
  g_autofree double *w_try = g_new (double, p);
  double f;

  memset (w, 0, p * sizeof (double));
  *b = 0;
  f = objective (x, y, n, p, c, w, *b, z);
  for (guint iter = 0; iter < NEWTON_MAX_ITER; iter++)
    {
      double gb = 0, db = 0, decrement, step = 1, f_try = f, b_try = *b;

      for (gsize i = 0; i < n; i++)
        {
          double sg = sigmoid (z[i]);
          r[i] = c * (sg - y[i]);
          dcurv[i] = sg * (1 - sg);
          gb += r[i];
        }
      memcpy (gw, w, p * sizeof (double));
      cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) n, (blasint) p, 1.0, x, (blasint) p,
                   r, 1, 1.0, gw, 1);

      if (!newton_step (x, n, p, c, dcurv, kernel, gw, gb, dw, &db))
        break;
      decrement = -(cblas_ddot ((blasint) p, gw, 1, dw, 1) + gb * db);
      /* f − f* ≈ decrement / 2: this close, the full step lands on the
       * optimum to double precision (quadratic convergence). */
      if (!(decrement > 1e-13 * MAX (1.0, f)))
        {
          for (gsize j = 0; j < p; j++)
            w[j] += dw[j];
          *b += db;
          return TRUE;
        }
      for (guint ls = 0; ls < 60; ls++, step *= 0.5)
        {
          for (gsize j = 0; j < p; j++)
            w_try[j] = w[j] + step * dw[j];
          b_try = *b + step * db;
          f_try = objective (x, y, n, p, c, w_try, b_try, z);
          if (f_try <= f - 1e-4 * step * decrement)
            break;
        }
      if (!(f_try <= f - 1e-4 * step * decrement))
        {
          /* No decrease left at double precision: as good as it gets. */
          objective (x, y, n, p, c, w, *b, z);
          return TRUE;
        }
      memcpy (w, w_try, p * sizeof (double));
      *b = b_try;
      f = f_try;
    }

  g_set_error (error, PL_ERROR, PL_ERROR_FAILED,
               "logistic regression did not converge in %u Newton steps", NEWTON_MAX_ITER);
  return FALSE;
}

gboolean
pl_logistic_fit (const double  *x,
                 const guint8  *y,
                 gsize          n,
                 gsize          p,
                 double         c,
                 double        *w,
                 double        *b,
                 GError       **error)
{
  g_autofree double *kernel = NULL;

  g_return_val_if_fail (x != NULL && y != NULL && w != NULL && b != NULL, FALSE);

  if (p + 1 > n)
    {
      kernel = g_new (double, n * n);
      cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) n, (blasint) p,
                   1.0, x, (blasint) p, 0.0, kernel, (blasint) n);
      for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j < i; j++)
          kernel[i * n + j] = kernel[j * n + i];
    }
  return pl_logistic_fit_kernel (x, y, n, p, c, kernel, w, b, error);
}
