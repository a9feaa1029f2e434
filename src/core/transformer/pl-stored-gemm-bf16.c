/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-cpu.h"
#include "pl-executor.h"
#include "pl-stored-gemm-private.h"

/* OUT += X · Wᵀ for BF16 weights with AVX-512 BF16's VDPBF16PS, which
 * multiplies 32 BF16 pairs and adds them into 16 float32 sums in one
 * instruction: twice the products of a float32 FMA. The activations are
 * rounded to BF16 once per product (to nearest, even on ties), as llama.cpp
 * and PyTorch's bfloat16 models round them; the weights are BF16 already and
 * are read in place, row by row as the file stores them (a mapped file's
 * pages included), with nothing packed. Each product of two BF16 numbers is
 * exact in float32 and the sums are float32, so the difference from the
 * plain path is the rounding of X: at most 2⁻⁸ of each |x| (BF16 keeps 8
 * bits), so 2⁻⁸ of Σ|x·w| in the worst case and about a tenth of that
 * typically (the tests hold it to the worst case against double).
 *
 * A block-quantised weight (ggml's Q8_0, Q4_K, …) stays in its blocks:
 * each piece of work unpacks its block of W's rows to BF16 in its thread's
 * scratch (pl-stored-blocks-bf16.c; 256 KiB, in L2) and multiplies every
 * row of X by it there, so the unpacking is paid once per weight and
 * product, not once per row of X. Rounding the unpacked weight to BF16
 * moves it by at most 2⁻⁹ of itself, so the bound is 2⁻⁸ of Σ|x·w| with
 * the rounding of X, as for BF16 weights.
 *
 * Shapes: OUT in tiles of 3 rows × 8 columns, each 24 dot products of a row
 * of X and a row of W in 24 registers of 16 partial sums, 32 elements of K
 * a step (3 + 8 loads for 24 products), summed across their lanes once at
 * the end of K. The threads take blocks of W's rows (OUT's columns) from a
 * shared counter; a block (256 KiB at most) stays in the thread's L2 cache
 * while every 3-row tile of X passes it, each tile of X used by the whole
 * block's W tiles before the next. Rows past T or N in the last tiles read
 * the last real row again and are not written. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

#define RM 3
#define RN 8
/* bytes of W a block keeps in L2 */
#define BLOCK_BYTES ((gsize) 256 << 10)
/* rows of X converted per piece */
#define CONVERT_ROWS 16

typedef struct
{
  const PlMatrix *x;
  guint16        *xb;        /* [t][kp] X in BF16, zero past K */
  const guint16  *w;         /* [n][k], or NULL: unpacked per piece from BLOCKS */
  const PlStoredMatrix *blocks;   /* a block format's W */
  guint16        *unpacked;  /* [threads][block][k] */
  float          *floats;    /* [threads][k] */
  float          *out;       /* [t][ldo] */
  gsize           t, n, k, kp, ldo;
  gsize           block;     /* W rows a piece */
} Job;

static void
convert_piece (guint    piece,
               guint    slot,
               gpointer data)
{
  Job *job = data;
  gsize k = job->k;

  for (gsize r = piece * CONVERT_ROWS; r < MIN (job->t, (piece + 1) * (gsize) CONVERT_ROWS); r++)
    {
      const float *x = pl_matrix_row (job->x, r);
      guint16 *o = job->xb + r * job->kp;
      gsize j = 0;

      for (; j + 16 <= k; j += 16)
        _mm256_storeu_si256 ((__m256i *) (o + j), (__m256i) _mm512_cvtneps_pbh (_mm512_loadu_ps (x + j)));
      if (j < k)
        {
          __mmask16 m = (__mmask16) ((1u << (k - j)) - 1);

          _mm256_mask_storeu_epi16 (o + j, m, (__m256i) _mm512_cvtneps_pbh (_mm512_maskz_loadu_ps (m, x + j)));
        }
      memset (o + k, 0, (job->kp - k) * sizeof (guint16));
    }
}

/* The eight sums of V0 … V7's lanes, in order */
static inline __m256
sum_lanes (__m512 v0, __m512 v1, __m512 v2, __m512 v3, __m512 v4, __m512 v5, __m512 v6, __m512 v7)
{
#define HALVES(v) _mm256_add_ps (_mm512_maskz_extractf32x8_ps (0xff, v, 0), _mm512_maskz_extractf32x8_ps (0xff, v, 1))
  __m256 h01 = _mm256_hadd_ps (HALVES (v0), HALVES (v1));
  __m256 h23 = _mm256_hadd_ps (HALVES (v2), HALVES (v3));
  __m256 h45 = _mm256_hadd_ps (HALVES (v4), HALVES (v5));
  __m256 h67 = _mm256_hadd_ps (HALVES (v6), HALVES (v7));
  __m256 h0123 = _mm256_hadd_ps (h01, h23);
  __m256 h4567 = _mm256_hadd_ps (h45, h67);
#undef HALVES

  return _mm256_add_ps (_mm256_permute2f128_ps (h0123, h4567, 0x20), _mm256_permute2f128_ps (h0123, h4567, 0x31));
}

/* OUT row T's columns N0 … (COLS) += the eight sums */
static inline void
add_row (const Job *job,
         gsize      t,
         gsize      n0,
         __mmask8   cols,
         __m256     sums)
{
  float *o = job->out + t * job->ldo + n0;

  if (t < job->t)
    _mm256_mask_storeu_ps (o, cols, _mm256_add_ps (_mm256_maskz_loadu_ps (cols, o), sums));
}

/* Every name below declared once per row i and column j of the tile. */
#define ROW(i, M) M (i, 0) M (i, 1) M (i, 2) M (i, 3) M (i, 4) M (i, 5) M (i, 6) M (i, 7)
#define TILE(M) ROW (0, M) ROW (1, M) ROW (2, M)
#define ZERO(i, j) __m512 acc##i##j = _mm512_setzero_ps ();
/* column j of the step: W's row n0 + j against the three rows of X */
#define STEP(j, load)                                         \
  {                                                           \
    __m512bh w = (__m512bh) (load);                           \
    acc0##j = _mm512_dpbf16_ps (acc0##j, x0, w);              \
    acc1##j = _mm512_dpbf16_ps (acc1##j, x1, w);              \
    acc2##j = _mm512_dpbf16_ps (acc2##j, x2, w);              \
  }
#define STEPS(LOAD) \
  STEP (0, LOAD (0)) STEP (1, LOAD (1)) STEP (2, LOAD (2)) STEP (3, LOAD (3)) \
  STEP (4, LOAD (4)) STEP (5, LOAD (5)) STEP (6, LOAD (6)) STEP (7, LOAD (7))
#define LOAD_FULL(j) _mm512_loadu_si512 (b##j + kk)
#define LOAD_TAIL(j) _mm512_maskz_loadu_epi16 (m, b##j + kk)
#define SUMS(i) sum_lanes (acc##i##0, acc##i##1, acc##i##2, acc##i##3, acc##i##4, acc##i##5, acc##i##6, acc##i##7)

/* OUT's tile at rows T0, columns N0 += its 24 dot products; ROWS holds W's
 * rows from BASE on */
static inline void
multiply_tile (const Job     *job,
               const guint16 *rows,
               gsize          base,
               gsize          t0,
               gsize          n0)
{
  gsize k = job->k, full = k / 32 * 32, kk;
  gsize last = job->n - 1 - base;
  const guint16 *a0 = job->xb + MIN (t0, job->t - 1) * job->kp;
  const guint16 *a1 = job->xb + MIN (t0 + 1, job->t - 1) * job->kp;
  const guint16 *a2 = job->xb + MIN (t0 + 2, job->t - 1) * job->kp;
  gsize j0 = n0 - base;
  const guint16 *b0 = rows + MIN (j0, last) * k, *b1 = rows + MIN (j0 + 1, last) * k;
  const guint16 *b2 = rows + MIN (j0 + 2, last) * k, *b3 = rows + MIN (j0 + 3, last) * k;
  const guint16 *b4 = rows + MIN (j0 + 4, last) * k, *b5 = rows + MIN (j0 + 5, last) * k;
  const guint16 *b6 = rows + MIN (j0 + 6, last) * k, *b7 = rows + MIN (j0 + 7, last) * k;
  __mmask8 cols = (__mmask8) (job->n - n0 >= RN ? 0xff : (1u << (job->n - n0)) - 1);
  TILE (ZERO)

  for (kk = 0; kk < full; kk += 32)
    {
      __m512bh x0 = (__m512bh) _mm512_loadu_si512 (a0 + kk);
      __m512bh x1 = (__m512bh) _mm512_loadu_si512 (a1 + kk);
      __m512bh x2 = (__m512bh) _mm512_loadu_si512 (a2 + kk);

      STEPS (LOAD_FULL)
    }
  if (kk < k)
    {
      /* X is zero past K; W is read only up to K */
      __mmask32 m = (__mmask32) ((1ull << (k - kk)) - 1);
      __m512bh x0 = (__m512bh) _mm512_loadu_si512 (a0 + kk);
      __m512bh x1 = (__m512bh) _mm512_loadu_si512 (a1 + kk);
      __m512bh x2 = (__m512bh) _mm512_loadu_si512 (a2 + kk);

      STEPS (LOAD_TAIL)
    }
  add_row (job, t0, n0, cols, SUMS (0));
  add_row (job, t0 + 1, n0, cols, SUMS (1));
  add_row (job, t0 + 2, n0, cols, SUMS (2));
}

static void
multiply_piece (guint    piece,
                guint    slot,
                gpointer data)
{
  Job *job = data;
  gsize first = piece * job->block, end = MIN (job->n, first + job->block);
  const guint16 *w = job->w;
  gsize base = 0;

  if (w == NULL)
    {
      guint16 *own = job->unpacked + slot * job->block * job->k;

      pl_stored_blocks_to_bf16 (job->blocks, first, end - first, own, job->floats + slot * job->k);
      w = own;
      base = first;
    }
  for (gsize t0 = 0; t0 < job->t; t0 += RM)
    for (gsize n0 = first; n0 < end; n0 += RN)
      multiply_tile (job, w, base, t0, n0);
}

gboolean
pl_stored_gemm_bf16 (const PlMatrix       *x,
                     const PlStoredMatrix *w,
                     float                *out,
                     gsize                 ldo)
{
  PlExecutor *executor;
  g_autofree guint16 *xb = NULL;
  g_autofree guint16 *unpacked = NULL;
  g_autofree float *floats = NULL;
  guint n_threads;
  Job job = { 0, };

  if (!pl_stored_gemm_rounds_activations (w))
    return FALSE;
  job.x = x;
  job.t = x->rows;
  job.n = w->rows;
  job.k = w->cols;
  job.kp = (job.k + 31) / 32 * 32;
  job.ldo = ldo;
  job.out = out;
  if (!(xb = g_try_malloc (job.t * job.kp * sizeof (guint16))))
    return FALSE;
  job.xb = xb;
  /* a block of whole tiles that BLOCK_BYTES hold, and four blocks a thread at least */
  executor = pl_executor_get_default ();
  n_threads = pl_executor_get_n_threads (executor);
  job.block = MIN (BLOCK_BYTES / (job.k * sizeof (guint16)), (job.n + 4 * n_threads - 1) / (4 * n_threads));
  job.block = MAX (job.block / RN, 1) * RN;
  if (w->type == PL_STORED_BF16)
    job.w = (const guint16 *) w->data;
  else
    {
      job.blocks = w;
      if (!(job.unpacked = unpacked = g_try_malloc (n_threads * job.block * job.k * sizeof (guint16))) ||
          !(job.floats = floats = g_try_malloc (n_threads * job.k * sizeof (float))))
        return FALSE;
    }
  pl_executor_for (executor, (guint) ((job.t + CONVERT_ROWS - 1) / CONVERT_ROWS), convert_piece, &job);
  pl_executor_for (executor, (guint) ((job.n + job.block - 1) / job.block), multiply_piece, &job);
  return TRUE;
}

#pragma GCC pop_options

#else

gboolean
pl_stored_gemm_bf16 (const PlMatrix       *x,
                     const PlStoredMatrix *w,
                     float                *out,
                     gsize                 ldo)
{
  return FALSE;
}

#endif
