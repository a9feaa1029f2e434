/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-blas.h"
#include "pl-blas-split.h"
#include "pl-pca-private.h"

/* Block Lanczos with full reorthogonalisation for the top eigenpairs of a
 * symmetric float32 matrix. The tridiagonal reduction inside ?syevr costs
 * O(m³) and touches the whole matrix m times; a Krylov basis of a few
 * hundred vectors reaches the top components of a position table in a
 * handful of products. Every answer is checked by its residual, and the
 * caller falls back to ?syevr when it is not reached. */

/* Orthonormalises the B columns of W (m × b, column-major) against the first
 * CUR columns of Q and among themselves, twice. Columns that vanish (the
 * Krylov space ran out) are replaced by fresh random directions. KNOWN, when
 * not NULL, is QᵀW already (cur × b): the first pass then skips that product. */
static void
orthonormalise_block (const float *q,
                      gsize        m,
                      gsize        cur,
                      float       *wblk,
                      guint        b,
                      float       *h,
                      const float *known,
                      GRand       *rand)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      if (cur > 0)
        {
          /* H = QᵀW, W −= QH. */
          if (pass == 0 && known != NULL)
            memcpy (h, known, cur * b * sizeof (float));
          else
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

/* W = C Q for a block of eight vectors (C symmetric m × m, Q and W m × 8,
 * column-major): column i of C is row i, so W[i, v] = C[:, i] · Q[:, v],
 * dot products over contiguous columns with Q staying in cache.
 * cblas_sgemm packs all of C on every call, which for eight columns costs
 * as much as the product; here C is read once and not copied. QP is Q's
 * first m/8*8 rows packed as 8×8 tiles, a row-chunk of all eight vectors
 * in 64 contiguous floats: the eight columns, 4 KiB apart at m = 1024,
 * would all fall in the same L1 sets. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
# define HAVE_BLOCK8_AVX2 1
typedef float PlV8 __attribute__ ((vector_size (32), aligned (4)));

static inline float
sum8 (PlV8 a)
{
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

/* Rows I and I + 1 of C against four of the packed vectors (from HALF × 4):
 * eight accumulators, two loads of C and four of Q per eight FMAs. */
__attribute__ ((target ("avx2,fma")))
static inline void
symm_rows2 (const float *c0,
            const float *c1,
            gsize        m8,
            const float *qp,
            guint        half,
            float        out[8])
{
  PlV8 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
  const float *p = qp + half * 32;

  for (gsize j = 0; j < m8; j += 8, p += 64)
    {
      PlV8 x = *(const PlV8 *) (c0 + j), y = *(const PlV8 *) (c1 + j);
      PlV8 q0 = *(const PlV8 *) p, q1 = *(const PlV8 *) (p + 8);
      PlV8 q2 = *(const PlV8 *) (p + 16), q3 = *(const PlV8 *) (p + 24);

      a0 += x * q0; a1 += x * q1; a2 += x * q2; a3 += x * q3;
      b0 += y * q0; b1 += y * q1; b2 += y * q2; b3 += y * q3;
    }
  out[0] = sum8 (a0); out[1] = sum8 (a1); out[2] = sum8 (a2); out[3] = sum8 (a3);
  out[4] = sum8 (b0); out[5] = sum8 (b1); out[6] = sum8 (b2); out[7] = sum8 (b3);
}

__attribute__ ((target ("avx2,fma")))
static void
symm_block8_avx2 (const float *c,
                  gsize        m,
                  const float *q,
                  const float *qp,
                  float       *w,
                  gsize        first,
                  gsize        last)
{
  gsize m8 = m / 8 * 8;

  for (gsize i = first; i < last; i += 2)
    {
      /* An odd last row pairs with itself. */
      const float *c0 = c + i * m, *c1 = i + 1 < last ? c0 + m : c0;
      float out[2][8];

      symm_rows2 (c0, c1, m8, qp, 0, out[0]);
      symm_rows2 (c0, c1, m8, qp, 1, out[1]);
      for (guint h = 0; h < 2; h++)
        for (guint v = 0; v < 4; v++)
          for (guint r = 0; r < 2 && i + r < last; r++)
            {
              const float *col = r ? c1 : c0;
              float tail = 0;

              for (gsize j = m8; j < m; j++)
                tail += col[j] * q[(h * 4 + v) * m + j];
              w[(h * 4 + v) * m + i + r] = out[h][r * 4 + v] + tail;
            }
    }
}
#endif

/* Rows of C per share of a product split over threads: C's rows are read
 * once per product, so a share of 64 rows is 64 × m floats streamed. */
#define SHARE_ROWS 64

typedef struct
{
  const float *c;
  gsize        m;
  const float *q;
  const float *qp;
  float       *w;
  guint        n_shares;
  gint         next;
} SymmJob;

#ifdef HAVE_BLOCK8_AVX2
static gpointer
symm_block8_worker (gpointer data)
{
  SymmJob *job = data;
  guint s;

  while ((s = (guint) g_atomic_int_add (&job->next, 1)) < job->n_shares)
    symm_block8_avx2 (job->c, job->m, job->q, job->qp, job->w,
                      (gsize) s * SHARE_ROWS, MIN (job->m, ((gsize) s + 1) * SHARE_ROWS));
  return NULL;
}
#endif

/* W = C Q for B vectors, C the full symmetric m × m matrix. The product of
 * eight streams C from L3 and is the bulk of the work: it is split over
 * the threads BLAS may use. */
static void
symm_block (const float *c,
            gsize        m,
            const float *q,
            guint        b,
            float       *w,
            PlBlasTeam  *team)
{
#ifdef HAVE_BLOCK8_AVX2
  static gsize avx2 = 0;

  if (g_once_init_enter (&avx2))
    {
      __builtin_cpu_init ();
      g_once_init_leave (&avx2, __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") ? 2 : 1);
    }
  if (b == 8 && avx2 == 2)
    {
      gsize m8 = m / 8 * 8;
      g_autofree float *qp = g_new (float, m8 * 8);
      SymmJob job = { c, m, q, qp, w, (guint) ((m + SHARE_ROWS - 1) / SHARE_ROWS), 0 };

      for (gsize j = 0; j < m8; j++)
        for (guint v = 0; v < 8; v++)
          qp[j / 8 * 64 + v * 8 + j % 8] = q[v * m + j];
      pl_blas_team_run (team, symm_block8_worker, &job);
      return;
    }
#endif
  cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) b, (blasint) m,
               1.0f, c, (blasint) m, q, (blasint) m, 0.0f, w, (blasint) m);
}

gboolean
pl_pca_lanczos_top (float       *c,
                    gsize        m,
                    guint        kk,
                    double       tolerance,
                    gsize        max_basis,
                    double      *w,
                    double      *z)
{
  guint b = MAX (kk + 4, 8u);

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
  guint blocks = 0, next_check = 2, last_check = 0;
  double last_worst = 0, goal;
  GRand *rand;
  gboolean converged = FALSE;
  PlBlasTeam *team;

  max_basis = MIN (max_basis, m / 2) / b * b;
  if (max_basis < 3 * (gsize) b)
    return FALSE;

  /* The full matrix, in place: the lower triangle mirrored into the upper
   * one in 64×64 tiles, whose strided writes stay within L1. The lower
   * triangle, all that ?syevr reads, is unchanged. */
  for (gsize jb = 0; jb < m; jb += 64)
    for (gsize ib = jb; ib < m; ib += 64)
      for (gsize j = jb; j < MIN (jb + 64, m); j++)
        for (gsize i = MAX (ib, j + 1); i < MIN (ib + 64, m); i++)
          c[i * m + j] = c[j * m + i];
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

  /* Our threads for C Q, started once; the other products are small
   * (m × basis × 8) and run single-threaded: BLAS threads cost more to
   * wake than they save (measured 37-54 ms against 61-94 ms). */
  team = pl_blas_team_new (pl_blas_split_threads ());
  /* A fixed seed: the same table gives the same answer, bit for bit. */
  rand = g_rand_new_with_seed (0x5ca1ab1e);
  for (gsize i = 0; i < m * b; i++)
    q[i] = (float) g_rand_double_range (rand, -1, 1);
  orthonormalise_block (q, m, 0, q, b, h, NULL, rand);

  while (cur + b <= max_basis)
    {
      float *qblk = q + cur * m;
      float *cqblk = cq + cur * m;

      /* C Q_j, from the full matrix (SSYMM would expand the triangle each time). */
      symm_block (c, m, qblk, b, cqblk, team);
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
          /* A flat spectrum (random data) converges late but then fast:
           * residuals creep for a hundred vectors and fall by orders of
           * magnitude in the next hundred, so a rate measured early says
           * nothing. Give up only when they stop falling at all. */
          if (last_worst > 0 && worst >= last_worst)
            break;
          /* Each check is a dense eigenproblem of the basis' size, so the
           * next one goes where the goal is due if the residuals keep
           * their last log-rate (they speed up, so this does not
           * overshoot), at most half the basis again. */
          if (last_worst > 0)
            {
              double rate = (log (worst) - log (last_worst)) / (blocks - last_check);
              double due = (log (goal) - log (worst)) / rate;

              next_check = blocks + (guint) CLAMP (ceil (due), 1.0, MAX (1.0, blocks / 2.0));
            }
          else
            next_check = blocks + 1;
          last_worst = worst;
          last_check = blocks;
        }

      if (cur + b > max_basis)
        break;
      /* The next block: C Q_j orthonormalised against the basis; its first
       * projections onto the basis are the new columns of T, in TCOL. */
      memcpy (q + cur * m, cqblk, m * b * sizeof (float));
      orthonormalise_block (q, m, cur, q + cur * m, b, h, tcol, rand);
    }
  g_rand_free (rand);
  pl_blas_team_free (team);

  if (!converged)
    return FALSE;
  for (guint k = 0; k < kk; k++)
    w[k] = theta[k];
  for (gsize i = 0; i < m * kk; i++)
    z[i] = v[i];
  return TRUE;
}
