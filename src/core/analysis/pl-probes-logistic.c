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

/* A logistic problem by what Newton's method asks of its data: the margins
 * x_s·w + b, the sum Σ r_s x_s, and the step for a curvature. The samples
 * are rows of a matrix (explicit) or pairs [p_i ; p_j] of rows of a
 * position table, whose products go through the table's n rows instead. */
typedef struct _Problem Problem;
struct _Problem
{
  gsize          n;      /* samples */
  gsize          p;      /* features */
  const guint8  *y;
  void         (*margins)      (const Problem *self, const double *w, double b, double *z);
  void         (*add_gradient) (const Problem *self, const double *r, double *g);
  gboolean     (*newton_step)  (const Problem *self, double c, const double *dcurv,
                                const double *gw, double gb, double *dw, double *db);
};

static double
objective (const Problem *problem,
           double         c,
           const double  *w,
           double         b,
           double        *z)
{
  double f = 0.5 * cblas_ddot ((blasint) problem->p, w, 1, w, 1);

  problem->margins (problem, w, b, z);
  for (gsize i = 0; i < problem->n; i++)
    f += c * log_loss (z[i], problem->y[i]);
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

/* The samples as the rows of X (n×p), with their kernel XXᵀ when p + 1 > n. */
typedef struct
{
  Problem        base;
  const double  *x;
  const double  *kernel;
} ExplicitProblem;

static void
explicit_margins (const Problem *problem,
                  const double  *w,
                  double         b,
                  double        *z)
{
  const ExplicitProblem *self = (const ExplicitProblem *) problem;

  for (gsize i = 0; i < problem->n; i++)
    z[i] = b;
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) problem->n, (blasint) problem->p, 1.0, self->x,
               (blasint) problem->p, w, 1, 1.0, z, 1);
}

static void
explicit_add_gradient (const Problem *problem,
                       const double  *r,
                       double        *g)
{
  const ExplicitProblem *self = (const ExplicitProblem *) problem;

  cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) problem->n, (blasint) problem->p, 1.0, self->x,
               (blasint) problem->p, r, 1, 1.0, g, 1);
}

/* The Newton step (Δw, Δb) for the gradient (gw, gb) with curvature D. With
 * fewer samples than features the p×p system goes through the n×n one. */
static gboolean
explicit_newton_step (const Problem *problem,
                      double         c,
                      const double  *dcurv,
                      const double  *gw,
                      double         gb,
                      double        *dw,
                      double        *db)
{
  const ExplicitProblem *self = (const ExplicitProblem *) problem;
  const double *x = self->x;
  gsize n = problem->n, p = problem->p, q = p + 1;

  if (self->kernel == NULL)
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
          nn[j * n + i] = (i == j ? 1.0 : 0.0) + s[i] * self->kernel[i * n + j] * s[j];
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

/* The samples as pairs (p_i ; p_j) of the rows of a table P (rows × d), so
 * x_s·w = (P w₁)_i + (P w₂)_j, Σ r_s x_s = (Pᵀa ; Pᵀc) with a, c the sums of
 * r over the pairs by first and by second row, and the Hessian's blocks are
 * Pᵀ diag(α) P, Pᵀ diag(β) P and Pᵀ W P with W the curvature summed over the
 * pairs by both rows: a cost set by the table, not by the number of pairs. */
typedef struct
{
  Problem         base;
  const double   *table;
  gsize           rows;
  gsize           d;
  const guint32  *pair_i;
  const guint32  *pair_j;
  double         *u;        /* rows: P w₁ */
  double         *v;        /* rows: P w₂ */
} PairsProblem;

static void
pairs_margins (const Problem *problem,
               const double  *w,
               double         b,
               double        *z)
{
  const PairsProblem *self = (const PairsProblem *) problem;

  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) self->rows, (blasint) self->d, 1.0, self->table,
               (blasint) self->d, w, 1, 0.0, self->u, 1);
  cblas_dgemv (CblasRowMajor, CblasNoTrans, (blasint) self->rows, (blasint) self->d, 1.0, self->table,
               (blasint) self->d, w + self->d, 1, 0.0, self->v, 1);
  for (gsize s = 0; s < problem->n; s++)
    z[s] = b + self->u[self->pair_i[s]] + self->v[self->pair_j[s]];
}

/* A[k] = Σ over the pairs whose first row is k of VALUES, B[k] the same by
 * the second row. */
static void
sum_by_rows (const PairsProblem *self,
             const double       *values,
             double             *a,
             double             *b)
{
  memset (a, 0, self->rows * sizeof (double));
  memset (b, 0, self->rows * sizeof (double));
  for (gsize s = 0; s < self->base.n; s++)
    {
      a[self->pair_i[s]] += values[s];
      b[self->pair_j[s]] += values[s];
    }
}

static void
pairs_add_gradient (const Problem *problem,
                    const double  *r,
                    double        *g)
{
  const PairsProblem *self = (const PairsProblem *) problem;
  g_autofree double *a = g_new (double, self->rows);
  g_autofree double *c = g_new (double, self->rows);

  sum_by_rows (self, r, a, c);
  cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) self->rows, (blasint) self->d, 1.0, self->table,
               (blasint) self->d, a, 1, 1.0, g, 1);
  cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) self->rows, (blasint) self->d, 1.0, self->table,
               (blasint) self->d, c, 1, 1.0, g + self->d, 1);
}

static gboolean
pairs_newton_step (const Problem *problem,
                   double         c,
                   const double  *dcurv,
                   const double  *gw,
                   double         gb,
                   double        *dw,
                   double        *db)
{
  const PairsProblem *self = (const PairsProblem *) problem;
  gsize n = self->rows, d = self->d, q = 2 * d + 1;
  g_autofree double *cd = g_new (double, problem->n);
  g_autofree double *alpha = g_new (double, n);
  g_autofree double *beta = g_new (double, n);
  g_autofree double *cross = g_new0 (double, n * n);
  g_autofree double *scaled = g_new (double, n * d);
  g_autofree double *wp = g_new (double, n * d);
  g_autofree double *h = g_new0 (double, q * q);
  g_autofree double *rhs = g_new (double, q);
  double total = 0;

  for (gsize s = 0; s < problem->n; s++)
    {
      cd[s] = c * dcurv[s];
      cross[(gsize) self->pair_i[s] * n + self->pair_j[s]] += cd[s];
      total += cd[s];
    }
  sum_by_rows (self, cd, alpha, beta);

  /* H is column-major (q×q, lower triangle used): row-major upper blocks
   * written into h read as its lower triangle. Block (1,1): Pᵀ diag(α) P. */
  for (guint half = 0; half < 2; half++)
    {
      const double *weight = half == 0 ? alpha : beta;
      gsize at = half * d;

      for (gsize k = 0; k < n; k++)
        {
          double sw = sqrt (weight[k]);
          for (gsize j = 0; j < d; j++)
            scaled[k * d + j] = sw * self->table[k * d + j];
        }
      cblas_dsyrk (CblasRowMajor, CblasUpper, CblasTrans, (blasint) d, (blasint) n, 1.0, scaled,
                   (blasint) d, 0.0, h + at * q + at, (blasint) q);
      /* The intercept's column: Pᵀ α (or β). */
      cblas_dgemv (CblasRowMajor, CblasTrans, (blasint) n, (blasint) d, 1.0, self->table, (blasint) d,
                   weight, 1, 0.0, rhs, 1);
      for (gsize j = 0; j < d; j++)
        h[(at + j) * q + 2 * d] = rhs[j];
    }
  /* Block (1,2): Pᵀ W P, W[i][j] the curvature of the pairs (i, j). */
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint) n, (blasint) d, (blasint) n, 1.0,
               cross, (blasint) n, self->table, (blasint) d, 0.0, wp, (blasint) d);
  cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, (blasint) d, (blasint) d, (blasint) n, 1.0,
               self->table, (blasint) d, wp, (blasint) d, 0.0, h + d, (blasint) q);
  for (gsize j = 0; j < 2 * d; j++)
    h[j * q + j] += 1.0;
  h[(q - 1) * q + q - 1] = total;

  for (gsize j = 0; j < 2 * d; j++)
    rhs[j] = -gw[j];
  rhs[2 * d] = -gb;
  if (LAPACKE_dposv (LAPACK_COL_MAJOR, 'L', (lapack_int) q, 1, h, (lapack_int) q,
                     rhs, (lapack_int) q) != 0)
    return FALSE;
  memcpy (dw, rhs, 2 * d * sizeof (double));
  *db = rhs[2 * d];
  return TRUE;
}

double *
pl_probes_gram (const double *x,
                gsize         n,
                gsize         d)
{
  double *gram = g_new (double, n * n);

  cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) n, (blasint) d,
               1.0, x, (blasint) d, 0.0, gram, (blasint) n);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < i; j++)
      gram[i * n + j] = gram[j * n + i];
  return gram;
}

/* Newton's method with a backtracking line search from w = 0, b = 0. */
static gboolean
newton (const Problem  *problem,
        double          c,
        double         *w,
        double         *b,
        GError        **error)
{
  gsize n = problem->n, p = problem->p;
  g_autofree double *z = g_new (double, n);
  g_autofree double *r = g_new (double, n);
  g_autofree double *dcurv = g_new (double, n);
  g_autofree double *gw = g_new (double, p);
  g_autofree double *dw = g_new (double, p);
  g_autofree double *w_try = g_new (double, p);
  double f;

  memset (w, 0, p * sizeof (double));
  *b = 0;
  f = objective (problem, c, w, *b, z);
  for (guint iter = 0; iter < NEWTON_MAX_ITER; iter++)
    {
      double gb = 0, db = 0, decrement, step = 1, f_try = f, b_try = *b;

      for (gsize i = 0; i < n; i++)
        {
          double sg = sigmoid (z[i]);
          r[i] = c * (sg - problem->y[i]);
          dcurv[i] = sg * (1 - sg);
          gb += r[i];
        }
      memcpy (gw, w, p * sizeof (double));
      problem->add_gradient (problem, r, gw);

      if (!problem->newton_step (problem, c, dcurv, gw, gb, dw, &db))
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
          f_try = objective (problem, c, w_try, b_try, z);
          if (f_try <= f - 1e-4 * step * decrement)
            break;
        }
      if (!(f_try <= f - 1e-4 * step * decrement))
        {
          /* No decrease left at double precision: as good as it gets. */
          objective (problem, c, w, *b, z);
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
  ExplicitProblem problem = {
    .base = { .n = n, .p = p, .y = y, .margins = explicit_margins,
              .add_gradient = explicit_add_gradient, .newton_step = explicit_newton_step },
    .x = x,
    .kernel = kernel,
  };

  return newton (&problem.base, c, w, b, error);
}

gboolean
pl_logistic_fit_pairs (const double   *table,
                       gsize           rows,
                       gsize           d,
                       const guint32  *pair_i,
                       const guint32  *pair_j,
                       const guint8   *y,
                       gsize           n,
                       double          c,
                       double         *w,
                       double         *b,
                       GError        **error)
{
  g_autofree double *u = g_new (double, rows);
  g_autofree double *v = g_new (double, rows);
  PairsProblem problem = {
    .base = { .n = n, .p = 2 * d, .y = y, .margins = pairs_margins,
              .add_gradient = pairs_add_gradient, .newton_step = pairs_newton_step },
    .table = table,
    .rows = rows,
    .d = d,
    .pair_i = pair_i,
    .pair_j = pair_j,
    .u = u,
    .v = v,
  };

  return newton (&problem.base, c, w, b, error);
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
    kernel = pl_probes_gram (x, n, p);
  return pl_logistic_fit_kernel (x, y, n, p, c, kernel, w, b, error);
}
