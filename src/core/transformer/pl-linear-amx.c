/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-amx-tiles.h"
#include "pl-cpu.h"
#include "pl-error.h"
#include "pl-executor.h"
#include "pl-linear-amx.h"
#include "pl-transformer-kernels.h"

/* A float32 linear layer on Intel's AMX tiles (Sapphire Rapids and later).
 * A tile product multiplies BF16 pairs and adds in float32. Each weight w
 * is split once, when the model loads, into hi = bf16 (w) and
 * lo = bf16 (w − hi), which hold 16 of its 24 bits of mantissa; each
 * activation x the same way on every call. x·w is then
 * x_hi·w_hi + x_hi·w_lo + x_lo·w_hi, every product exact in float32; the
 * dropped x_lo·w_lo and the two residuals are each about 2⁻¹⁸ of |x·w|, so
 * a sum is within about 3·2⁻¹⁸ ≈ 1.1e-5 of Σ|x·w| from the splitting, plus
 * float32 summation as in SGEMM. The tests compare this path with double
 * and with the plain one (pl_linear_plain) on that bound.
 *
 * Layout: W in panels of 32 output columns; a panel holds, for every 32
 * rows of K (kb), four 16 × 16 BF16-pair tiles: hi of columns 0–15, hi of
 * 16–31, lo of 0–15, lo of 16–31, 4 KiB together. X's terms go the same
 * way, in blocks of 32 rows: for every kb, hi of rows 0–15, hi of 16–31,
 * lo of 0–15, lo of 16–31. OUT is made of 32 × 32 blocks, each four float32
 * tiles (C), fed by two tiles of one term of X (A) and two of one term of W
 * (B); the three products of a kb need eight tile loads, the middle one
 * (hi·hi) sharing an operand with each of the others.
 *
 * The executor's threads split X by rows, then take groups of panels from
 * a shared counter; a group's panels stay in the thread's L2 cache while
 * every 32-row block of X passes them. Past 768 of K the products go in
 * chunks of K, their partial sums through a float32 scratch, so that the
 * panels' chunks and a block's stay in L2 together. Each thread loads its
 * own tile configuration and releases it. Bias, residual and activation
 * are applied to a block as it leaves the tiles. */

struct _PlLinearTiles
{
  gsize    k, n;
  gsize    kp;       /* K rounded up to 32 */
  gsize    n_panels; /* 32 columns each */
  guint16 *data;     /* [n_panels][kp / 32][4][512] */
};

#define TILE 512   /* BF16 numbers in a tile */

/* once, not again where pl-linear-amx-emulated-tiles.c builds this file */
#ifndef PL_AMX_EMULATED_TILES
void
pl_linear_tiles_free (PlLinearTiles *tiles)
{
  if (tiles == NULL)
    return;
  g_free (tiles->data);
  g_free (tiles);
}

gsize
pl_linear_tiles_size (const PlLinearTiles *tiles)
{
  return tiles->n_panels * tiles->kp * 32 * 2 * sizeof (guint16);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16")

/* bytes of W's panels a group keeps in L2 at most */
#define GROUP_BYTES ((gsize) 1 << 20)
/* kb per chunk of K */
#define CHUNK_BLOCKS 24

typedef struct
{
  const PlMatrix *w;
  PlLinearTiles  *tiles;
  GCancellable        *cancellable;
} PackJob;

/* 16 float32 as BF16 (rounded to nearest even) in the low half of each 32-bit lane */
static inline __m512i
bf16_lanes (__m512 v)
{
  /* the masked forms: GCC 12's unmasked ones warn of an undefined source */
  return _mm512_maskz_cvtepu16_epi32 (0xffff, (__m256i) _mm512_cvtneps_pbh (v));
}

/* The float32 numbers of the BF16 in the low halves of V's lanes */
static inline __m512
widen_lanes (__m512i v)
{
  return _mm512_castsi512_ps (_mm512_maskz_slli_epi32 (0xffff, v, 16));
}

/* M's 16 numbers from row R, column C on, zero past its rows and columns */
static inline __m512
load_16 (const PlMatrix *m,
         gsize           r,
         gsize           c)
{
  __mmask16 mask;

  if (r >= m->rows || c >= m->cols)
    return _mm512_setzero_ps ();
  mask = c + 16 <= m->cols ? 0xffff : (__mmask16) ((1u << (m->cols - c)) - 1);
  return _mm512_maskz_loadu_ps (mask, pl_matrix_row (m, r) + c);
}

/* Panel PIECE of W into its tiles: rows 2p and 2p + 1 of a kb, columns
 * c … c + 15, make row p of a tile, each column's two numbers side by side. */
static void
pack_panel (guint    piece,
            guint    slot,
            gpointer data)
{
  const PackJob *job = data;
  const PlMatrix *w = job->w;
  PlLinearTiles *tiles = job->tiles;
  gsize kbs = tiles->kp / 32;
  guint16 *panel = tiles->data + piece * kbs * 4 * TILE;

  if (g_cancellable_is_cancelled (job->cancellable))
    return;

  for (gsize kb = 0; kb < kbs; kb++)
    for (gsize p = 0; p < 16; p++)
      for (guint h = 0; h < 2; h++)
        {
          gsize col = piece * 32 + h * 16, row = kb * 32 + 2 * p;
          __m512 even = load_16 (w, row, col), odd = load_16 (w, row + 1, col);
          __m512i hi_even = bf16_lanes (even), hi_odd = bf16_lanes (odd);
          __m512i lo_even = bf16_lanes (_mm512_sub_ps (even, widen_lanes (hi_even)));
          __m512i lo_odd = bf16_lanes (_mm512_sub_ps (odd, widen_lanes (hi_odd)));
          guint16 *tile = panel + kb * 4 * TILE + h * TILE + p * 32;

          _mm512_storeu_si512 (tile, _mm512_or_si512 (hi_even, _mm512_maskz_slli_epi32 (0xffff, hi_odd, 16)));
          _mm512_storeu_si512 (tile + 2 * TILE,
                               _mm512_or_si512 (lo_even, _mm512_maskz_slli_epi32 (0xffff, lo_odd, 16)));
        }
}

PlLinearTiles *
pl_linear_tiles_new (const PlMatrix  *w,
                     GCancellable    *cancellable,
                     GError         **error)
{
  g_autoptr(PlLinearTiles) tiles = NULL;
  PackJob job;

  if (!PL_AMX_USABLE () || w->rows == 0 || w->cols == 0)
    return NULL;
  tiles = g_new0 (PlLinearTiles, 1);
  tiles->k = w->rows;
  tiles->n = w->cols;
  tiles->kp = (w->rows + 31) / 32 * 32;
  tiles->n_panels = (w->cols + 31) / 32;
  if (!(tiles->data = g_try_malloc (pl_linear_tiles_size (tiles))))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "out of memory for a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " weight's AMX tiles",
                   w->rows, w->cols);
      return NULL;
    }
  job.w = w;
  job.tiles = tiles;
  job.cancellable = cancellable;
  pl_executor_for (pl_executor_get_default (), (guint) tiles->n_panels, pack_panel, &job);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return g_steal_pointer (&tiles);
}

typedef struct
{
  const PlMatrix      *x;
  const PlLinearTiles *tiles;
  const PlMatrix      *b;
  const PlMatrix      *residual;
  PlActivation         activation;
  PlMatrix            *out;
  guint16             *a;      /* X's terms: [mp / 32][kp / 32][4][512] */
  float               *acc;    /* partial sums, [mp][n_panels * 32], when K takes more than a chunk */
  gsize                m, mp;  /* rows of X, and rounded up to 32 */
  gsize                group;  /* panels per piece of work */
  gint                 next;   /* the next group to take */
} Job;

/* X's 32-row block PIECE into its terms (zero past X's rows and K), a kb
 * at a time, so that the terms are written in order */
static void
split_piece (guint    piece,
             guint    slot,
             gpointer data)
{
  const Job *job = data;
  gsize kbs = job->tiles->kp / 32;
  guint16 *a = job->a + piece * kbs * 4 * TILE;

  for (gsize kb = 0; kb < kbs; kb++)
    for (gsize i = 0; i < 32; i++)
      for (guint h = 0; h < 2; h++)
        {
          __m512 v = load_16 (job->x, piece * 32 + i, kb * 32 + h * 16);
          __m512i hi = bf16_lanes (v), lo = bf16_lanes (_mm512_sub_ps (v, widen_lanes (hi)));
          guint16 *row = a + kb * 4 * TILE + (i / 16) * TILE + (i % 16) * 32 + h * 16;

          _mm256_storeu_si256 ((__m256i *) row, _mm512_maskz_cvtepi32_epi16 (0xffff, hi));
          _mm256_storeu_si256 ((__m256i *) (row + 2 * TILE), _mm512_maskz_cvtepi32_epi16 (0xffff, lo));
        }
}

/* The four C tiles += the product of A tiles 4, 5 (rows) and B 6, 7 (columns) */
#define PRODUCTS() \
  G_STMT_START { \
    PL_TILE_DPBF16PS (0, 4, 6); \
    PL_TILE_DPBF16PS (1, 4, 7); \
    PL_TILE_DPBF16PS (2, 5, 6); \
    PL_TILE_DPBF16PS (3, 5, 7); \
  } G_STMT_END
#define LOAD_A(term) \
  G_STMT_START { \
    PL_TILE_LOAD (4, a + (term) * 2 * TILE, 64); \
    PL_TILE_LOAD (5, a + (term) * 2 * TILE + TILE, 64); \
  } G_STMT_END
#define LOAD_B(term) \
  G_STMT_START { \
    PL_TILE_LOAD (6, b + (term) * 2 * TILE, 64); \
    PL_TILE_LOAD (7, b + (term) * 2 * TILE + TILE, 64); \
  } G_STMT_END

/* The partial sums of OUT's 32 × 32 block at rows M0, columns of PANEL,
 * over X's columns of kb FIRST … END: started from zero at the first kb,
 * else from ACC; into ACC unless END is the last, else finished into OUT */
static void
multiply_block (const Job *job,
                gsize      m0,
                gsize      panel,
                gsize      first,
                gsize      end)
{
  const PlLinearTiles *tiles = job->tiles;
  gsize kbs = tiles->kp / 32, n = tiles->n, c0 = panel * 32, acc_stride = tiles->n_panels * 32;
  const guint16 *a0 = job->a + (m0 / 32) * kbs * 4 * TILE, *b0 = tiles->data + panel * kbs * 4 * TILE;
  gsize rows = MIN (32, job->m - m0), cols = MIN (32, n - c0);
  float *acc = job->acc != NULL ? job->acc + m0 * acc_stride + c0 : NULL;
  float block[32 * 32];

  if (first == 0)
    {
      PL_TILE_ZERO (0);
      PL_TILE_ZERO (1);
      PL_TILE_ZERO (2);
      PL_TILE_ZERO (3);
    }
  else
    {
      PL_TILE_LOAD (0, acc, acc_stride * 4);
      PL_TILE_LOAD (1, acc + 16, acc_stride * 4);
      PL_TILE_LOAD (2, acc + 16 * acc_stride, acc_stride * 4);
      PL_TILE_LOAD (3, acc + 16 * acc_stride + 16, acc_stride * 4);
    }
  for (gsize kb = first; kb < end; kb++)
    {
      const guint16 *a = a0 + kb * 4 * TILE, *b = b0 + kb * 4 * TILE;

      /* 0 is hi, 1 lo: x_hi·w_lo, x_hi·w_hi, x_lo·w_hi */
      LOAD_A (0);
      LOAD_B (1);
      PRODUCTS ();
      LOAD_B (0);
      PRODUCTS ();
      LOAD_A (1);
      PRODUCTS ();
    }
  if (end < kbs)
    {
      PL_TILE_STORE (0, acc, acc_stride * 4);
      PL_TILE_STORE (1, acc + 16, acc_stride * 4);
      PL_TILE_STORE (2, acc + 16 * acc_stride, acc_stride * 4);
      PL_TILE_STORE (3, acc + 16 * acc_stride + 16, acc_stride * 4);
      return;
    }
  PL_TILE_STORE (0, block, 128);
  PL_TILE_STORE (1, block + 16, 128);
  PL_TILE_STORE (2, block + 16 * 32, 128);
  PL_TILE_STORE (3, block + 16 * 32 + 16, 128);
  for (gsize r = 0; r < rows; r++)
    {
      float *o = pl_matrix_row (job->out, m0 + r) + c0;
      const float *bias = job->b->data + c0;
      const float *res = job->residual != NULL ? pl_matrix_row (job->residual, m0 + r) + c0 : NULL;
      const float *p = block + r * 32;

      if (cols == 32)
        for (guint h = 0; h < 2; h++)
          {
            __m512 v = _mm512_add_ps (_mm512_loadu_ps (p + h * 16), _mm512_loadu_ps (bias + h * 16));

            if (res != NULL)
              v = _mm512_add_ps (v, _mm512_loadu_ps (res + h * 16));
            _mm512_storeu_ps (o + h * 16, v);
          }
      else
        for (gsize c = 0; c < cols; c++)
          o[c] = p[c] + bias[c] + (res != NULL ? res[c] : 0.0f);
      if (job->activation != PL_ACTIVATION_NONE)
        pl_kernel_activate (o, cols, job->activation);
    }
}

static gpointer
multiply_groups (gpointer data)
{
  Job *job = data;
  gsize n_panels = job->tiles->n_panels, n_groups = (n_panels + job->group - 1) / job->group;
  gsize kbs = job->tiles->kp / 32;

  PL_TILE_CONFIGURE ();
  for (;;)
    {
      gsize group = (gsize) g_atomic_int_add (&job->next, 1);
      gsize first = group * job->group, end = MIN (n_panels, first + job->group);

      if (group >= n_groups)
        break;
      for (gsize kb = 0; kb < kbs; kb += CHUNK_BLOCKS)
        for (gsize m0 = 0; m0 < job->m; m0 += 32)
          for (gsize panel = first; panel < end; panel++)
            multiply_block (job, m0, panel, kb, MIN (kbs, kb + CHUNK_BLOCKS));
    }
  PL_TILE_RELEASE ();
  return NULL;
}

gboolean
pl_linear_amx (const PlMatrix      *x,
               const PlLinearTiles *tiles,
               const PlMatrix      *b,
               const PlMatrix      *residual,
               PlActivation         activation,
               PlMatrix            *out)
{
  Job job = { x, tiles, b, residual, activation, out };
  g_autofree guint16 *a = NULL;
  g_autofree float *acc = NULL;
  PlExecutor *executor;
  guint threads;

  g_assert (x->cols == tiles->k && out->rows == x->rows && out->cols == tiles->n);
  g_assert (b->rows * b->cols == tiles->n);
  g_assert (residual == NULL || (residual->rows == x->rows && residual->cols == tiles->n));
  if (x->rows == 0 || tiles->n == 0)
    return TRUE;
  job.m = x->rows;
  job.mp = (job.m + 31) / 32 * 32;
  if (!(a = g_try_malloc (job.mp * tiles->kp * 2 * sizeof (guint16))))
    return FALSE;
  job.a = a;
  if (tiles->kp > CHUNK_BLOCKS * 32 &&
      !(job.acc = acc = g_try_malloc (job.mp * tiles->n_panels * 32 * sizeof (float))))
    return FALSE;
  executor = pl_executor_get_default ();
  threads = pl_executor_get_n_threads (executor);
  pl_executor_for (executor, (guint) (job.mp / 32), split_piece, &job);
  /* as many panels' chunks as GROUP_BYTES hold, and two groups a thread at least */
  job.group = CLAMP (MIN (GROUP_BYTES / (32 * MIN (tiles->kp, CHUNK_BLOCKS * 32) * 2 * sizeof (guint16)),
                          tiles->n_panels / (2 * threads)),
                     1, tiles->n_panels);
  threads = MIN (threads, (guint) ((tiles->n_panels + job.group - 1) / job.group));
  pl_executor_split (executor, MAX (threads, 1), multiply_groups, &job);
  return TRUE;
}

#pragma GCC pop_options

#else

PlLinearTiles *
pl_linear_tiles_new (const PlMatrix  *w,
                     GCancellable    *cancellable,
                     GError         **error)
{
  return NULL;
}

gboolean
pl_linear_amx (const PlMatrix      *x,
               const PlLinearTiles *tiles,
               const PlMatrix      *b,
               const PlMatrix      *residual,
               PlActivation         activation,
               PlMatrix            *out)
{
  return FALSE;
}

#endif
