/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-amx-tiles.h"
#include "pl-cpu.h"
#include "pl-executor.h"
#include "pl-stored-gemm-private.h"

/* OUT += X · Wᵀ for BF16 weights on Intel's AMX tiles (Sapphire Rapids and
 * later). A tile product multiplies BF16 pairs and adds in float32; the
 * weights are BF16 already, and each activation x is split into three BF16
 * numbers, t₀ = bf16(x), t₁ = bf16(x − t₀), t₂ = bf16(x − t₀ − t₁), which
 * hold x's 24 bits of mantissa, and every product w·tᵢ is exact in
 * float32. What is left is float32 summation, as in SGEMM: the
 * tests compare this path with the plain one (pl_stored_gemm_plain).
 *
 * W comes in AMX tile order (PL_STORED_BF16_TILES, packed once when the
 * model loads: pl_stored_gemm_prepare), so its tiles load straight from it.
 * Shapes: 32 × 32 blocks of OUT, each four 16 × 16 float32 tiles (C), fed
 * by two 16-row tiles of the split activations (A: 16 rows × 32 k of BF16,
 * read in place with the row stride) and two tiles of W's 32-row panel (B).
 * The executor's threads split the activations by rows, then take groups
 * of panels from a shared counter (pl_executor_split); a group's panels
 * stay in the thread's L2 cache while every 32-row block of the
 * activations passes them, each block used by the whole group before the
 * next. Each thread loads its own tile configuration and releases it. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16")

#define TERMS 3
/* bytes of W's panels a group keeps in L2 at most */
#define GROUP_BYTES ((gsize) 1 << 20)
/* activation rows split per piece */
#define SPLIT_ROWS 32

typedef struct
{
  const PlMatrix *x;
  guint16        *a;        /* [TERMS][mp][kp] BF16: t₀, t₁, t₂ */
  const guint16  *w;        /* panels of [32][kp], tile order */
  float          *out;      /* [m][ldo] */
  gsize           m, n, k, ldo;
  gsize           mp, kp;   /* m and k rounded up to 32 */
  gsize           n_panels; /* 32-row panels of W: 32 columns of OUT */
  gsize           group;    /* panels per piece of work */
  gint            next;     /* the next group to take */
} Job;

static inline guint16
round_bf16 (float x)
{
  guint32 bits;

  memcpy (&bits, &x, 4);
  return (guint16) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

static inline float
widen_bf16 (guint16 b)
{
  guint32 bits = (guint32) b << 16;
  float x;

  memcpy (&x, &bits, 4);
  return x;
}

/* Row R of X into the TERMS split rows of A (zero past K). */
static void
split_row (const float *x,
           gsize        k,
           gsize        kp,
           gsize        term_stride,
           guint16     *a)
{
  gsize j = 0;

  for (; j + 16 <= k; j += 16)
    {
      __m512 rest = _mm512_loadu_ps (x + j);

      for (guint t = 0; t < TERMS; t++)
        {
          __m256bh part = _mm512_cvtneps_pbh (rest);
          /* the masked forms: GCC 12's unmasked ones warn of an undefined source */
          __m512i bits = _mm512_maskz_slli_epi32 (0xffff, _mm512_maskz_cvtepu16_epi32 (0xffff, (__m256i) part), 16);
          __m512 wide = _mm512_castsi512_ps (bits);

          _mm256_storeu_si256 ((__m256i *) (a + t * term_stride + j), (__m256i) part);
          rest = _mm512_sub_ps (rest, wide);
        }
    }
  for (; j < kp; j++)
    {
      float rest = j < k ? x[j] : 0.0f;

      for (guint t = 0; t < TERMS; t++)
        {
          guint16 part = round_bf16 (rest);

          a[t * term_stride + j] = part;
          rest -= widen_bf16 (part);
        }
    }
}

static void
split_piece (guint    piece,
             guint    slot,
             gpointer data)
{
  Job *job = data;
  gsize term = job->mp * job->kp;

  for (gsize r = piece * SPLIT_ROWS; r < MIN (job->mp, (piece + 1) * SPLIT_ROWS); r++)
    {
      if (r < job->m)
        split_row (pl_matrix_row (job->x, r), job->k, job->kp, term, job->a + r * job->kp);
      else
        for (guint t = 0; t < TERMS; t++)
          memset (job->a + t * term + r * job->kp, 0, job->kp * sizeof (guint16));
    }
}

/* OUT's 32 × 32 block at rows M0, columns of PANEL, += its product */
static void
multiply_block (const Job *job,
                gsize      m0,
                gsize      panel)
{
  gsize kbs = job->kp / 32, lda = job->kp * sizeof (guint16), term = job->mp * job->kp;
  const guint16 *b0 = job->w + panel * 32 * job->kp, *b1 = b0 + kbs * 512;
  gsize rows = MIN (32, job->m - m0), cols = MIN (32, job->n - panel * 32);
  float block[32 * 32];

  PL_TILE_ZERO (0);
  PL_TILE_ZERO (1);
  PL_TILE_ZERO (2);
  PL_TILE_ZERO (3);
  for (gsize kb = 0; kb < kbs; kb++)
    {
      PL_TILE_LOAD (6, b0 + kb * 512, 64);
      PL_TILE_LOAD (7, b1 + kb * 512, 64);
      for (guint t = 0; t < TERMS; t++)
        {
          const guint16 *a = job->a + t * term + m0 * job->kp + kb * 32;

          PL_TILE_LOAD (4, a, lda);
          PL_TILE_LOAD (5, a + 16 * job->kp, lda);
          PL_TILE_DPBF16PS (0, 4, 6);
          PL_TILE_DPBF16PS (1, 4, 7);
          PL_TILE_DPBF16PS (2, 5, 6);
          PL_TILE_DPBF16PS (3, 5, 7);
        }
    }
  PL_TILE_STORE (0, block, 128);
  PL_TILE_STORE (1, block + 16, 128);
  PL_TILE_STORE (2, block + 16 * 32, 128);
  PL_TILE_STORE (3, block + 16 * 32 + 16, 128);
  for (gsize r = 0; r < rows; r++)
    {
      float *o = job->out + (m0 + r) * job->ldo + panel * 32;

      for (gsize c = 0; c < cols; c++)
        o[c] += block[r * 32 + c];
    }
}

static gpointer
multiply_groups (gpointer data)
{
  Job *job = data;
  gsize n_groups = (job->n_panels + job->group - 1) / job->group;

  PL_TILE_CONFIGURE ();

  for (;;)
    {
      gsize group = (gsize) g_atomic_int_add (&job->next, 1);
      gsize first = group * job->group, end = MIN (job->n_panels, first + job->group);

      if (group >= n_groups)
        break;
      for (gsize m0 = 0; m0 < job->m; m0 += 32)
        for (gsize panel = first; panel < end; panel++)
          multiply_block (job, m0, panel);
    }
  PL_TILE_RELEASE ();
  return NULL;
}

gboolean
pl_stored_gemm_amx (const PlMatrix       *x,
                    const PlStoredMatrix *w,
                    float                *out,
                    gsize                 ldo)
{
  Job job = { 0, };
  g_autofree guint16 *a = NULL;
  PlExecutor *executor;
  guint threads;

  if (w->type != PL_STORED_BF16_TILES || !PL_AMX_USABLE ())
    return FALSE;

  job.x = x;
  job.m = x->rows;
  job.n = w->rows;
  job.k = w->cols;
  job.mp = (job.m + 31) / 32 * 32;
  job.kp = (job.k + 31) / 32 * 32;
  job.n_panels = (job.n + 31) / 32;
  if (!(a = g_try_malloc (TERMS * job.mp * job.kp * sizeof (guint16))))
    return FALSE;
  job.a = a;
  job.w = (const guint16 *) w->data;
  job.out = out;
  job.ldo = ldo;
  executor = pl_executor_get_default ();
  threads = pl_executor_get_n_threads (executor);
  pl_executor_for (executor, (guint) (job.mp / SPLIT_ROWS), split_piece, &job);
  /* as many panels as GROUP_BYTES hold, and four groups a thread at least */
  job.group = CLAMP (MIN (GROUP_BYTES / (32 * job.kp * sizeof (guint16)), job.n_panels / (4 * threads)),
                     1, job.n_panels);
  threads = MIN (threads, (guint) ((job.n_panels + job.group - 1) / job.group));
  pl_executor_split (executor, MAX (threads, 1), multiply_groups, &job);
  return TRUE;
}

#pragma GCC pop_options

#else

gboolean
pl_stored_gemm_amx (const PlMatrix       *x,
                    const PlStoredMatrix *w,
                    float                *out,
                    gsize                 ldo)
{
  return FALSE;
}

#endif
