/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-pca-private.h"

/* Block Lanczos with full reorthogonalisation for the top eigenpairs of a
 * symmetric float32 matrix. The tridiagonal reduction inside ?syevr costs
 * O(m³) and touches the whole matrix m times; a Krylov basis of a few
 * hundred vectors reaches the top components of a position table in a
 * handful of products. Every answer is checked by its residual, and the
 * caller falls back to ?syevr when it is not reached. */

/* Orthonormalises the B columns of W (m × b, column-major) against the first
 * CUR columns of Q and among themselves, twice. Columns that vanish (the
 * Krylov space ran out) are replaced by fresh random directions. */
static void
orthonormalise_block (const float *q,
                      gsize        m,
                      gsize        cur,
                      float       *wblk,
                      guint        b,
                      float       *h,
                      GRand       *rand)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      if (cur > 0)
        {
          /* H = QᵀW, W −= QH. */
          cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) cur, (blasint) b, (blasint) m,
                       1.0f, q, (blasint) m, wblk, (blasint) m, 0.0f, h, (blasint) cur);
          cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) b, (blasint) cur,
                       -1.0f, q, (blasint) m, h, (blasint) cur, 1.0f, wblk, (blasint) m);
        }
      for (guint c = 0; c < b; c++)
        {
          float *col = wblk + (gsize) c * m;
          double before = cblas_snrm2 ((blasint) m, col, 1), after;

          for (guint e = 0; e < c; e++)
            {
              const float *prev = wblk + (gsize) e * m;
              double dot = 0;
              for (gsize i = 0; i < m; i++)
                dot += (double) prev[i] * col[i];
              cblas_saxpy ((blasint) m, (float) -dot, prev, 1, col, 1);
            }
          after = cblas_snrm2 ((blasint) m, col, 1);
          if (!(after > 1e-4 * before) || after == 0)
            {
              /* Lost to rounding: start the column afresh; the second
               * pass orthogonalises it. */
              for (gsize i = 0; i < m; i++)
                col[i] = (float) g_rand_double_range (rand, -1, 1);
              after = cblas_snrm2 ((blasint) m, col, 1);
            }
          cblas_sscal ((blasint) m, (float) (1.0 / after), col, 1);
        }
    }
}

gboolean
pl_pca_lanczos_top (const float *c,
                    gsize        m,
                    guint        kk,
                    double       tolerance,
                    gsize        max_basis,
                    double      *w,
                    double      *z)
{
  guint b = MAX (kk + 4, 8u);

  g_autofree float *cfull = NULL;
  g_autofree float *q = NULL;
  g_autofree float *cq = NULL;
  g_autofree float *h = NULL;
  g_autofree double *t = NULL;
  g_autofree double *tfull = NULL;
  g_autofree float *tcol = NULL;
  g_autofree float *yf = NULL;
  g_autofree float *v = NULL;
  g_autofree float *r = NULL;
  g_autofree double *theta = NULL;
  g_autofree double *y = NULL;
  g_autofree lapack_int *support = NULL;
  gsize cur = 0;
  guint blocks = 0, next_check = 2, last_blocks = 0;
  double last_worst = 0, goal;
  GRand *rand;
  gboolean converged = FALSE;

  max_basis = MIN (max_basis, m / 2) / b * b;
  if (max_basis < 3 * (gsize) b)
    return FALSE;

  cfull = g_new (float, m * m);
  for (gsize j = 0; j < m; j++)
    for (gsize i = j; i < m; i++)
      cfull[j * m + i] = cfull[i * m + j] = c[j * m + i];
  q = g_new (float, m * max_basis);
  cq = g_new (float, m * max_basis);
  h = g_new (float, max_basis * b);
  t = g_new (double, max_basis * max_basis);
  tfull = g_new (double, max_basis * max_basis);
  tcol = g_new (float, max_basis * b);
  yf = g_new (float, max_basis * kk);
  v = g_new (float, m * kk);
  r = g_new (float, m * kk);
  theta = g_new (double, max_basis);
  y = g_new (double, max_basis * kk);
  support = g_new (lapack_int, 2 * kk);

  /* A fixed seed: the same table gives the same answer, bit for bit. */
  rand = g_rand_new_with_seed (0x5ca1ab1e);
  for (gsize i = 0; i < m * b; i++)
    q[i] = (float) g_rand_double_range (rand, -1, 1);
  orthonormalise_block (q, m, 0, q, b, h, rand);

  while (cur + b <= max_basis)
    {
      float *qblk = q + cur * m;
      float *cqblk = cq + cur * m;

      /* C Q_j, from the full copy (SSYMM would expand the triangle each time). */
      cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) b, (blasint) m,
                   1.0f, cfull, (blasint) m, qblk, (blasint) m, 0.0f, cqblk, (blasint) m);
      /* T = Qᵀ(CQ) grows by the new block's columns (and rows, by symmetry). */
      cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) (cur + b), (blasint) b, (blasint) m,
                   1.0f, q, (blasint) m, cqblk, (blasint) m, 0.0f, tcol, (blasint) (cur + b));
      for (guint e = 0; e < b; e++)
        for (gsize i = 0; i < cur + b; i++)
          {
            double val = tcol[(gsize) e * (cur + b) + i];
            gsize j = cur + e;

            /* The new diagonal block arrives twice: average its halves. */
            if (i >= cur)
              val = 0.5 * (val + tcol[(i - cur) * (cur + b) + j]);
            tfull[j * max_basis + i] = val;
            tfull[i * max_basis + j] = val;
          }
      cur += b;
      blocks++;

      /* Rayleigh–Ritz now and then, further apart as the basis grows. */
      if (blocks == next_check || cur + b > max_basis)
        {
          lapack_int found = 0;
          double worst = 0;

          next_check = next_check < 4 ? next_check + 1 : next_check * 3 / 2;
          for (gsize j = 0; j < cur; j++)
            for (gsize i = j; i < cur; i++)
              t[j * cur + i] = tfull[j * max_basis + i];
          if (LAPACKE_dsyevr (LAPACK_COL_MAJOR, 'V', 'I', 'L', (lapack_int) cur, t, (lapack_int) cur,
                              0.0, 0.0, (lapack_int) (cur - kk + 1), (lapack_int) cur, 0.0,
                              &found, theta, y, (lapack_int) cur, support) != 0 ||
              found != (lapack_int) kk)
            break;
          for (gsize i = 0; i < cur * kk; i++)
            yf[i] = (float) y[i];
          /* V = QY, R = (CQ)Y − VΘ. */
          cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) kk, (blasint) cur,
                       1.0f, q, (blasint) m, yf, (blasint) cur, 0.0f, v, (blasint) m);
          cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) kk, (blasint) cur,
                       1.0f, cq, (blasint) m, yf, (blasint) cur, 0.0f, r, (blasint) m);
          for (guint k = 0; k < kk; k++)
            {
              cblas_saxpy ((blasint) m, (float) -theta[k], v + (gsize) k * m, 1, r + (gsize) k * m, 1);
              worst = MAX (worst, cblas_snrm2 ((blasint) m, r + (gsize) k * m, 1));
            }
          goal = tolerance * MAX (fabs (theta[kk - 1]), G_MINDOUBLE);
          if (worst <= goal)
            {
              converged = TRUE;
              break;
            }
          /* A flat spectrum converges slowly: when the residuals' rate so
           * far will not reach the goal within the basis, stop early and
           * leave the table to the dense solver. */
          if (last_worst > 0)
            {
              double rate = (log (worst) - log (last_worst)) / (blocks - last_blocks);
              double needed = rate < 0 ? (log (goal) - log (worst)) / rate : G_MAXDOUBLE;

              if (cur + needed * b > max_basis)
                break;
            }
          last_worst = worst;
          last_blocks = blocks;
        }

      if (cur + b > max_basis)
        break;
      /* The next block: C Q_j orthonormalised against the basis. */
      memcpy (q + cur * m, cqblk, m * b * sizeof (float));
      orthonormalise_block (q, m, cur, q + cur * m, b, h, rand);
    }
  g_rand_free (rand);

  if (!converged)
    return FALSE;
  for (guint k = 0; k < kk; k++)
    w[k] = theta[k];
  for (gsize i = 0; i < m * kk; i++)
    z[i] = v[i];
  return TRUE;
}
