/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-blas.h"
#include "pl-blas-split.h"
#include "pl-cpu.h"
#include "pl-pca-private.h"
#include "pl-transpose-private.h"

/* Block Lanczos with full reorthogonalisation for the top eigenpairs of a
 * symmetric float32 matrix. The tridiagonal reduction inside ?syevr costs
 * O(m³) and touches the whole matrix m times; a Krylov basis of a few
 * hundred vectors reaches the top components of a position table in a
 * handful of products. Every answer is checked by its residual, and the
 * caller falls back to ?syevr when it is not reached. */

/* Column C of BLK (m × b, column-major) orthogonalised against the columns
 * before it (dot products accumulated in double) and normalised, unless
 * it keeps no more than KEEP of its norm: then FALSE, and it is left as
 * the projections made it. */
static gboolean
orthonormalise_column (float  *blk,
                       gsize   m,
                       guint   c,
                       double  keep)
{
  float *col = blk + (gsize) c * m;
  double before = cblas_snrm2 ((blasint) m, col, 1), after;

  for (guint e = 0; e < c; e++)
    {
      const float *prev = blk + (gsize) e * m;
      double dot = cblas_dsdot ((blasint) m, prev, 1, col, 1);

      cblas_saxpy ((blasint) m, (float) -dot, prev, 1, col, 1);
    }
  after = cblas_snrm2 ((blasint) m, col, 1);
  if (!(after > keep * before) || after == 0)
    return FALSE;
  cblas_sscal ((blasint) m, (float) (1.0 / after), col, 1);
  return TRUE;
}

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
        if (!orthonormalise_column (wblk, m, c, 1e-4))
          {
            /* Lost to rounding: start the column afresh; the second pass
             * orthogonalises it. */
            float *col = wblk + (gsize) c * m;

            for (gsize i = 0; i < m; i++)
              col[i] = (float) g_rand_double_range (rand, -1, 1);
            cblas_sscal ((blasint) m, (float) (1.0 / cblas_snrm2 ((blasint) m, col, 1)), col, 1);
          }
    }
}

/* The columns of BLK (m × b), already projected off the basis, made
 * orthonormal among themselves, twice. A column that loses more than 1 − 1/√2
 * of its norm here would carry what rounding left of the basis into the
 * next block magnified (the "twice is enough" criterion of Kahan and
 * Parlett): then FALSE, and the caller orthonormalises the block afresh
 * against the whole basis, projecting again after each pass. */
static gboolean
orthonormalise_within (float  *blk,
                       gsize   m,
                       guint   b)
{
  for (guint pass = 0; pass < 2; pass++)
    for (guint c = 0; c < b; c++)
      if (!orthonormalise_column (blk, m, c, G_SQRT2 / 2))
        return FALSE;
  return TRUE;
}

/* Each step of the Lanczos loop works on the new block's columns in groups
 * of four, one group per share of our thread team: W = C Q_j, the column of
 * T = Qᵀ W, and W projected off the basis twice (classical Gram–Schmidt
 * twice). Every column's arithmetic is its own, so one wake of the team
 * does all three, and the answer does not depend on which thread took
 * which group. Only the orthonormalisation within the block, O(m b²),
 * is left to the caller. */
#define GROUP 4

/* W[:, g] = C Q[:, g] for a group of four vectors (C symmetric m × m, Q and
 * W column-major): column i of C is row i, so W[i, v] = C[:, i] · Q[:, v],
 * dot products over contiguous columns of C with the group's vectors in
 * cache. cblas_sgemm packs all of C on every call, which for a few columns
 * costs as much as the product; here C is read once and not copied. QP
 * holds the group's first m/8*8 rows as 8×4 tiles, a row-chunk of all four
 * vectors in 32 contiguous floats: the columns, 4 KiB apart at m = 1024,
 * would all fall in the same L1 sets. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
# define HAVE_GROUP_AVX2 1
typedef float PlV8 __attribute__ ((vector_size (32), aligned (4)));

static inline float
sum8 (PlV8 a)
{
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

/* Rows I and I + 1 of C against the four packed vectors: eight
 * accumulators, two loads of C and four of Q per eight FMAs. */
__attribute__ ((target ("avx2,fma")))
static inline void
symm_rows2 (const float *c0,
            const float *c1,
            gsize        m8,
            const float *qp,
            float        out[8])
{
  PlV8 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
  const float *p = qp;

  for (gsize j = 0; j < m8; j += 8, p += 32)
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
symm_group_avx2 (const float *c,
                 gsize        m,
                 const float *q,
                 float       *w)
{
  gsize m8 = m / 8 * 8;
  g_autofree float *qp = g_new (float, m8 * GROUP);

  for (gsize j = 0; j < m8; j++)
    for (guint v = 0; v < GROUP; v++)
      qp[j / 8 * 32 + v * 8 + j % 8] = q[v * m + j];
  for (gsize i = 0; i < m; i += 2)
    {
      /* An odd last row pairs with itself. */
      const float *c0 = c + i * m, *c1 = i + 1 < m ? c0 + m : c0;
      float out[8];

      symm_rows2 (c0, c1, m8, qp, out);
      for (guint v = 0; v < GROUP; v++)
        for (guint r = 0; r < 2 && i + r < m; r++)
          {
            const float *col = r ? c1 : c0;
            float tail = 0;

            for (gsize j = m8; j < m; j++)
              tail += col[j] * q[v * m + j];
            w[v * m + i + r] = out[r * 4 + v] + tail;
          }
    }
}
#endif

typedef struct
{
  const float *c;
  gsize        m;
  const float *q;       /* the basis, its last block Q_j included */
  gsize        cur;     /* columns of Q, Q_j's last */
  guint        b;
  float       *cq;      /* out: C Q_j, m × b */
  float       *tcol;    /* out: Qᵀ C Q_j, cur × b */
  float       *next;    /* out, unless NULL: C Q_j projected off Q twice */
  guint        n_groups;
  gint         taken;   /* atomic: the next group to take */
} ExpandJob;

static void
expand_group (ExpandJob *job,
              guint      g)
{
  gsize m = job->m, cur = job->cur, c0 = (gsize) g * GROUP;
  guint width = MIN (GROUP, job->b - (guint) c0);
  const float *qj = job->q + (cur - job->b + c0) * m;
  float *w = job->cq + c0 * m, *t = job->tcol + c0 * cur;
  g_autofree float *h = NULL;

#ifdef HAVE_GROUP_AVX2
  if (width == GROUP && pl_cpu_has_avx2_fma ())
    symm_group_avx2 (job->c, m, qj, w);
  else
#endif
    cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) width, (blasint) m,
                 1.0f, job->c, (blasint) m, qj, (blasint) m, 0.0f, w, (blasint) m);
  cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) cur, (blasint) width, (blasint) m,
               1.0f, job->q, (blasint) m, w, (blasint) m, 0.0f, t, (blasint) cur);
  if (job->next == NULL)
    return;

  /* The first projection's coefficients are T's new columns; the second
   * takes off what rounding left. */
  h = g_new (float, cur * width);
  memcpy (job->next + c0 * m, w, m * width * sizeof (float));
  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) cur, (blasint) width, (blasint) m,
                     1.0f, job->q, (blasint) m, job->next + c0 * m, (blasint) m, 0.0f, h, (blasint) cur);
      cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) width, (blasint) cur,
                   -1.0f, job->q, (blasint) m, pass == 0 ? t : h, (blasint) cur,
                   1.0f, job->next + c0 * m, (blasint) m);
    }
}

static gpointer
expand_worker (gpointer data)
{
  ExpandJob *job = data;
  guint g;

  while ((g = (guint) g_atomic_int_add (&job->taken, 1)) < job->n_groups)
    expand_group (job, g);
  return NULL;
}

/* C (m × m, column-major) made whole, in place: its lower triangle, all
 * that ?syevr reads and left unchanged, copied into the upper one in 64×64
 * tiles (whose strided writes stay within L1), 8×8 blocks transposed in
 * registers where AVX2 is there. */
static void
complete_symmetric (float *c,
                    gsize  m)
{
#ifdef PL_HAVE_TRANSPOSE8
  gboolean avx2 = pl_cpu_has_avx2_fma ();
#endif

  for (gsize jb = 0; jb < m; jb += 64)
    for (gsize ib = jb; ib < m; ib += 64)
      for (gsize j0 = jb; j0 < MIN (jb + 64, m); j0 += 8)
        for (gsize i0 = MAX (ib, j0); i0 < MIN (ib + 64, m); i0 += 8)
          {
#ifdef PL_HAVE_TRANSPOSE8
            /* Column j of the lower triangle is row j, right of the
             * diagonal, of the row-major view. */
            if (avx2 && i0 > j0 && i0 + 8 <= m)
              {
                pl_transpose8_copy (c, m, j0, i0);
                continue;
              }
#endif
            for (gsize j = j0; j < MIN (j0 + 8, m); j++)
              for (gsize i = MAX (i0, j + 1); i < MIN (i0 + 8, m); i++)
                c[i * m + j] = c[j * m + i];
          }
}

/* A Rayleigh–Ritz step on the first CUR vectors of the basis: the top KK
 * eigenpairs of T, their Ritz vectors V = QY and the largest residual
 * ‖(CQ)Y − VΘ‖. It reads only the first CUR columns of Q, CQ and T, so it
 * runs beside the team's next step, which writes past them. */
typedef struct
{
  const float  *q;
  const float  *cq;
  const double *tfull;      /* T, MAX_BASIS apart */
  gsize         m;
  gsize         max_basis;
  gsize         cur;
  guint         kk;
  double       *t;          /* work, cur × cur */
  lapack_int   *support;
  double       *theta;      /* out: ascending */
  double       *y;
  float        *yf;
  float        *v;          /* out: the Ritz vectors, m × kk */
  float        *r;
  gboolean      solved;     /* out: the eigensolver found KK pairs */
  double        worst;      /* out */
} RitzCheck;

static gpointer
ritz_check (gpointer data)
{
  RitzCheck *rc = data;
  gsize m = rc->m, cur = rc->cur;
  guint kk = rc->kk;
  lapack_int found = 0;

  for (gsize j = 0; j < cur; j++)
    for (gsize i = j; i < cur; i++)
      rc->t[j * cur + i] = rc->tfull[j * rc->max_basis + i];
  rc->solved = LAPACKE_dsyevr (LAPACK_COL_MAJOR, 'V', 'I', 'L', (lapack_int) cur, rc->t, (lapack_int) cur,
                               0.0, 0.0, (lapack_int) (cur - kk + 1), (lapack_int) cur, 0.0,
                               &found, rc->theta, rc->y, (lapack_int) cur, rc->support) == 0 &&
               found == (lapack_int) kk;
  if (!rc->solved)
    return NULL;
  for (gsize i = 0; i < cur * kk; i++)
    rc->yf[i] = (float) rc->y[i];
  /* V = QY, R = (CQ)Y − VΘ. */
  cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) kk, (blasint) cur,
               1.0f, rc->q, (blasint) m, rc->yf, (blasint) cur, 0.0f, rc->v, (blasint) m);
  cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) m, (blasint) kk, (blasint) cur,
               1.0f, rc->cq, (blasint) m, rc->yf, (blasint) cur, 0.0f, rc->r, (blasint) m);
  rc->worst = 0;
  for (guint k = 0; k < kk; k++)
    {
      cblas_saxpy ((blasint) m, (float) -rc->theta[k], rc->v + (gsize) k * m, 1, rc->r + (gsize) k * m, 1);
      rc->worst = MAX (rc->worst, cblas_snrm2 ((blasint) m, rc->r + (gsize) k * m, 1));
    }
  return NULL;
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
  RitzCheck rc;
  gsize cur = 0;
  guint blocks = 0, next_check = 2, last_check = 0;
  double last_worst = 0;
  GRand *rand;
  gboolean converged = FALSE, check_due = FALSE;
  PlBlasTeam *team;

  max_basis = MIN (max_basis, m / 2) / b * b;
  if (max_basis < 3 * (gsize) b)
    return FALSE;

  complete_symmetric (c, m);
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
  rc = (RitzCheck) { q, cq, tfull, m, max_basis, 0, kk, t, support, theta, y, yf, v, r, FALSE, 0 };

  /* Our threads for each step's products, started once and woken once
   * per step; BLAS inside them runs single-threaded (BLAS's own threads
   * cost more to wake than they save on products this thin: measured
   * 37-54 ms against 61-94 ms). */
  team = pl_blas_team_new (pl_blas_split_threads ());
  /* A fixed seed: the same table gives the same answer, bit for bit. */
  rand = g_rand_new_with_seed (0x5ca1ab1e);
  for (gsize i = 0; i < m * b; i++)
    q[i] = (float) g_rand_double_range (rand, -1, 1);
  orthonormalise_block (q, m, 0, q, b, h, rand);

  for (;;)
    {
      /* A step's products, unless the basis is full; the Rayleigh–Ritz
       * check that fell due at the last step runs beside them, on this
       * thread (at 1024 × 1024 the checks were a sixth of the time, and
       * the helpers' share of the step fills it). */
      if (cur + b <= max_basis)
        {
          ExpandJob job = { c, m, q, cur + b, b, cq + cur * m, tcol, NULL, (b + GROUP - 1) / GROUP, 0 };

          /* C Q_j from the full matrix (SSYMM would expand the triangle
           * each time), T's new columns, and, unless the basis is then
           * full, the next block projected off the basis. */
          if (cur + 2 * b <= max_basis)
            job.next = q + (cur + b) * m;
          pl_blas_team_run_beside (team, expand_worker, &job, check_due ? ritz_check : NULL, &rc);
        }
      else if (check_due)
        ritz_check (&rc);
      else
        break;

      if (check_due)
        {
          double goal;

          check_due = FALSE;
          if (!rc.solved)
            break;
          goal = tolerance * MAX (fabs (theta[kk - 1]), G_MINDOUBLE);
          if (rc.worst <= goal)
            {
              converged = TRUE;
              break;
            }
          /* A flat spectrum (random data) converges late but then fast:
           * residuals creep for a hundred vectors and fall by orders of
           * magnitude in the next hundred, so a rate measured early says
           * nothing. Give up only when they stop falling at all. */
          if (last_worst > 0 && rc.worst >= last_worst)
            break;
          /* Each check is a dense eigenproblem of the basis' size, so the
           * next one goes where the goal is due if the residuals keep
           * their last log-rate (they speed up, so this does not
           * overshoot), at most half the basis again. */
          if (last_worst > 0)
            {
              double rate = (log (rc.worst) - log (last_worst)) / (rc.cur / b - last_check);
              double due = (log (goal) - log (rc.worst)) / rate;

              next_check = (guint) (rc.cur / b) + (guint) CLAMP (ceil (due), 1.0, MAX (1.0, rc.cur / b / 2.0));
            }
          else
            next_check = (guint) (rc.cur / b) + 1;
          last_worst = rc.worst;
          last_check = (guint) (rc.cur / b);
        }
      if (cur + b > max_basis)
        continue;

      /* T = Qᵀ(CQ) grows by the new block's columns (and rows, by symmetry). */
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
      /* Rayleigh–Ritz now and then, further apart as the basis grows; on
       * the last step at the latest. */
      if (blocks >= next_check || cur + b > max_basis)
        {
          check_due = TRUE;
          rc.cur = cur;
        }

      if (cur + b > max_basis)
        continue;
      /* The next block: C Q_j orthonormalised against the basis; its first
       * projections onto the basis are the new columns of T, in TCOL. */
      if (!orthonormalise_within (q + cur * m, m, b))
        {
          memcpy (q + cur * m, cq + (cur - b) * m, m * b * sizeof (float));
          orthonormalise_block (q, m, cur, q + cur * m, b, h, rand);
        }
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
