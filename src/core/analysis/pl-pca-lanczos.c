/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-executor.h"
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

/* Each step of the Lanczos loop is four wakes of our thread team, each
 * over shares taken from a counter, by rows or by columns of the basis so
 * that every array is read once per wake whatever the block's width and
 * both threads work even on a block of four:
 *   PRODUCT   W = C Q_j by rows of C (C, 4 MiB at m = 1024, read once),
 *             and beside it T's new columns above the block,
 *             T_old = (C Q_old)ᵀ Q_j, by columns of the stored C Q;
 *   SUBTRACT  NEXT = W − Q T by rows (classical Gram–Schmidt ...
 *   COEFFS    H = Qᵀ NEXT by columns of Q
 *   CORRECT   NEXT −= Q H by rows (... twice).
 * Every entry's arithmetic is its own, so the answer does not depend on
 * which thread took which share. The b × b block of T on the diagonal and
 * the orthonormalisation within the new block, O(m b²), are the caller's. */
typedef enum
{
  PHASE_PRODUCT,
  PHASE_SUBTRACT,
  PHASE_COEFFS,
  PHASE_CORRECT,
} StepPhase;

/* Rows of C or of the basis per share. */
#define ROW_SHARE 128
/* Columns of the basis per share. */
#define COLUMN_SHARE 32
/* Vectors per pass of the product kernel. */
#define GROUP 4

typedef struct
{
  const float *c;
  gsize        m;
  guint        b;
  const float *q;       /* the basis, Q_j its columns [cur, cur + b) */
  gsize        cur;
  const float *qp;      /* Q_j packed (see pack_block), or NULL */
  const float *cq;      /* C Q, columns [0, cur) */
  float       *w;       /* out: C Q_j, m × b, at cq's column cur */
  float       *t;       /* out: T's new columns, (cur + b) × b */
  float       *next;    /* out: the next block, m × b */
  float       *h;       /* the second pass's coefficients, (cur + b) × b */
  StepPhase    phase;
  guint        n_shares;
  gint         taken;   /* atomic: the next share to take */
  GThreadFunc  side;    /* serial work the first thread in runs first, or NULL */
  gpointer     side_data;
  gint         side_taken;   /* atomic */
} StepJob;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
# define HAVE_PRODUCT_AVX2 1
typedef float PlV8 __attribute__ ((vector_size (32), aligned (4)));

static inline float
sum8 (PlV8 a)
{
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

/* Rows I and I + 1 of C against four packed vectors: eight accumulators,
 * two loads of C and four of Q per eight FMAs. */
__attribute__ ((target ("avx2,fma")))
static inline void
product_rows2 (const float *c0,
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

/* Rows [R0, R1) of W = C Q_j, R0 even: W[i, v] = C[:, i] · Q_j[:, v] (C
 * symmetric, column i is row i), dot products over contiguous columns of
 * C with the block's vectors packed in L1. cblas_sgemm would copy these
 * rows of C into its packed format on every call, a pass over C as
 * costly as the product. */
__attribute__ ((target ("avx2,fma")))
static void
product_rows_avx2 (const StepJob *job,
                   gsize          r0,
                   gsize          r1)
{
  gsize m = job->m, m8 = m / 8 * 8;
  const float *qj = job->q + job->cur * m;

  for (gsize i = r0; i < r1; i += 2)
    {
      /* An odd last row pairs with itself. */
      const float *c0 = job->c + i * m, *c1 = i + 1 < m ? c0 + m : c0;

      for (guint g = 0; g * GROUP < job->b; g++)
        {
          float out[8];

          product_rows2 (c0, c1, m8, job->qp + (gsize) g * m8 * GROUP, out);
          for (guint v = g * GROUP; v < MIN (job->b, (g + 1) * GROUP); v++)
            for (guint r = 0; r < 2 && i + r < r1; r++)
              {
                const float *row = r ? c1 : c0, *qv = qj + (gsize) v * m;
                float tail = 0;

                for (gsize j = m8; j < m; j++)
                  tail += row[j] * qv[j];
                job->w[(gsize) v * m + i + r] = out[r * 4 + v % GROUP] + tail;
              }
        }
    }
}

/* Q_j's first m/8*8 rows as 8×4 tiles, four vectors of one 8-row chunk in
 * 32 contiguous floats (the columns, 4 KiB apart at m = 1024, would all
 * fall in the same L1 sets), group after group; a last group of fewer
 * than four is padded with zeros. */
static float *
pack_block (const float *qj,
            gsize        m,
            guint        b)
{
  gsize m8 = m / 8 * 8;
  guint n_groups = (b + GROUP - 1) / GROUP;
  float *qp = g_new0 (float, m8 * GROUP * n_groups);

  for (guint v = 0; v < b; v++)
    for (gsize j = 0; j < m8; j++)
      qp[(gsize) (v / GROUP) * m8 * GROUP + j / 8 * 32 + (v % GROUP) * 8 + j % 8] = qj[(gsize) v * m + j];
  return qp;
}
#endif

static guint
row_shares (const StepJob *job)
{
  return (guint) ((job->m + ROW_SHARE - 1) / ROW_SHARE);
}

/* Share S of the current phase: a ROW_SHARE of rows of C or of the basis,
 * or COLUMN_SHARE columns of the basis; PRODUCT's column shares (T above
 * the block) come after its row shares. */
static void
step_share (StepJob *job,
            guint    s)
{
  gsize m = job->m, b = job->b, width = job->cur + b;
  gsize r0 = (gsize) s * ROW_SHARE, r1 = MIN (m, r0 + ROW_SHARE);

  switch (job->phase)
    {
    case PHASE_PRODUCT:
      if (s >= row_shares (job))
        {
          /* T_old[i, v] = (C q_i) · Q_j[:, v]: T = Qᵀ C Q_j, by symmetry. */
          gsize i0 = (gsize) (s - row_shares (job)) * COLUMN_SHARE, i1 = MIN (job->cur, i0 + COLUMN_SHARE);

          cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) (i1 - i0), (blasint) b, (blasint) m,
                       1.0f, job->cq + i0 * m, (blasint) m, job->q + job->cur * m, (blasint) m,
                       0.0f, job->t + i0, (blasint) width);
          break;
        }
#ifdef HAVE_PRODUCT_AVX2
      if (job->qp != NULL)
        {
          product_rows_avx2 (job, r0, r1);
          break;
        }
#endif
      /* Rows of C are its columns: W[r0:r1, :] = C[:, r0:r1]ᵀ Q_j. */
      cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) (r1 - r0), (blasint) b, (blasint) m,
                   1.0f, job->c + r0 * m, (blasint) m, job->q + job->cur * m, (blasint) m,
                   0.0f, job->w + r0, (blasint) m);
      break;

    case PHASE_SUBTRACT:
      /* The first projection's coefficients are T's new columns. */
      for (gsize v = 0; v < b; v++)
        memcpy (job->next + v * m + r0, job->w + v * m + r0, (r1 - r0) * sizeof (float));
      cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) (r1 - r0), (blasint) b, (blasint) width,
                   -1.0f, job->q + r0, (blasint) m, job->t, (blasint) width, 1.0f, job->next + r0, (blasint) m);
      break;

    case PHASE_COEFFS:
      {
        /* The second pass takes off what rounding left. */
        gsize i0 = (gsize) s * COLUMN_SHARE, i1 = MIN (width, i0 + COLUMN_SHARE);

        cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) (i1 - i0), (blasint) b, (blasint) m,
                     1.0f, job->q + i0 * m, (blasint) m, job->next, (blasint) m, 0.0f, job->h + i0, (blasint) width);
        break;
      }

    case PHASE_CORRECT:
      cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint) (r1 - r0), (blasint) b, (blasint) width,
                   -1.0f, job->q + r0, (blasint) m, job->h, (blasint) width, 1.0f, job->next + r0, (blasint) m);
      break;

    default:
      g_assert_not_reached ();
    }
}

static gpointer
step_worker (gpointer data)
{
  StepJob *job = data;
  guint s;

  if (job->side != NULL && g_atomic_int_compare_and_exchange (&job->side_taken, 0, 1))
    job->side (job->side_data);
  while ((s = (guint) g_atomic_int_add (&job->taken, 1)) < job->n_shares)
    step_share (job, s);
  return NULL;
}

/* One phase of a step on the executor's threads, beside SIDE (or NULL),
 * which one of them runs first. */
static void
run_phase (StepJob     *job,
           StepPhase    phase,
           GThreadFunc  side,
           gpointer     side_data)
{
  gsize width = job->cur + job->b;

  job->phase = phase;
  job->taken = 0;
  if (phase == PHASE_PRODUCT)
    job->n_shares = row_shares (job) + (guint) ((job->cur + COLUMN_SHARE - 1) / COLUMN_SHARE);
  else if (phase == PHASE_COEFFS)
    job->n_shares = (guint) ((width + COLUMN_SHARE - 1) / COLUMN_SHARE);
  else
    job->n_shares = row_shares (job);
  job->side = side;
  job->side_data = side_data;
  job->side_taken = 0;
  pl_executor_split (pl_executor_get_default (), pl_executor_get_n_threads (pl_executor_get_default ()),
                     step_worker, job);
}

/* The mirror of C, one 64-wide tile column per share. */
typedef struct
{
  float *c;
  gsize  m;
  gint   taken;   /* atomic: the next tile column to take */
} MirrorJob;

static gpointer
mirror_worker (gpointer data)
{
  MirrorJob *job = data;
  float *c = job->c;
  gsize m = job->m, jb;
#ifdef PL_HAVE_TRANSPOSE8
  gboolean avx2 = pl_cpu_has_avx2_fma ();
#endif

  while ((jb = 64 * (gsize) g_atomic_int_add (&job->taken, 1)) < m)
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
  return NULL;
}

/* C (m × m, column-major) made whole, in place, on the executor: its lower
 * triangle, all that ?syevr reads and left unchanged, copied into the
 * upper one in 64×64 tiles (whose strided writes stay within L1), 8×8
 * blocks transposed in registers where AVX2 is there; the tallest tile
 * columns are handed out first. */
static void
complete_symmetric (float *c,
                    gsize  m)
{
  MirrorJob job = { c, m, 0 };

  pl_executor_split (pl_executor_get_default (), pl_executor_get_n_threads (pl_executor_get_default ()),
                     mirror_worker, &job);
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
pl_pca_lanczos_top (float        *c,
                    gsize         m,
                    guint         kk,
                    double        tolerance,
                    gsize         max_basis,
                    double       *w,
                    double       *z,
                    GCancellable *cancellable)
{
  /* Blocks one wider than the components asked for: a smaller block
   * reaches a higher polynomial degree for the same number of vectors, so
   * it converges within fewer. Four at least, the product kernel's width. */
  guint b = MAX (kk + 1, 4u);

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

  max_basis = MIN (max_basis, m / 2) / b * b;
  if (max_basis < 3 * (gsize) b)
    return FALSE;

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
  rc = (RitzCheck) { .q = q, .cq = cq, .tfull = tfull, .m = m, .max_basis = max_basis, .kk = kk, .t = t,
                     .support = support, .theta = theta, .y = y, .yf = yf, .v = v, .r = r };

  complete_symmetric (c, m);
  /* A fixed seed: the same table gives the same answer, bit for bit. */
  rand = g_rand_new_with_seed (0x5ca1ab1e);
  for (gsize i = 0; i < m * b; i++)
    q[i] = (float) g_rand_double_range (rand, -1, 1);
  orthonormalise_block (q, m, 0, q, b, h, rand);

  while (!g_cancellable_is_cancelled (cancellable))
    {
      /* A step's products, unless the basis is full; the Rayleigh–Ritz
       * check that fell due at the last step runs beside them, on this
       * thread, while the helpers take the product's shares. */
      if (cur + b <= max_basis)
        {
          StepJob job = { .c = c, .m = m, .b = b, .q = q, .cur = cur, .cq = cq, .w = cq + cur * m,
                          .t = tcol, .next = q + (cur + b) * m, .h = h };
#ifdef HAVE_PRODUCT_AVX2
          g_autofree float *qp = pl_cpu_has_avx2_fma () ? pack_block (q + cur * m, m, b) : NULL;

          job.qp = qp;
#endif
          run_phase (&job, PHASE_PRODUCT, check_due ? ritz_check : NULL, &rc);
          /* T's diagonal block, Q_jᵀ W. */
          cblas_sgemm (CblasColMajor, CblasTrans, CblasNoTrans, (blasint) b, (blasint) b, (blasint) m,
                       1.0f, q + cur * m, (blasint) m, job.w, (blasint) m, 0.0f, tcol + cur, (blasint) (cur + b));
          /* The next block, unless the basis is then full. */
          if (cur + 2 * b <= max_basis)
            {
              run_phase (&job, PHASE_SUBTRACT, NULL, NULL);
              run_phase (&job, PHASE_COEFFS, NULL, NULL);
              run_phase (&job, PHASE_CORRECT, NULL, NULL);
            }
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

  if (!converged)
    return FALSE;
  for (guint k = 0; k < kk; k++)
    w[k] = theta[k];
  for (gsize i = 0; i < m * kk; i++)
    z[i] = v[i];
  return TRUE;
}
