/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

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
 * Shapes: 32 × 32 blocks of OUT, each four 16 × 16 float32 tiles (C),
 * fed by two 16-row tiles of the split activations (A: 16 rows × 32 k of
 * BF16, read in place with the row stride) and two tiles of weights (B:
 * 16 k-pairs × 16 columns, the pair of column n in one 32-bit word, as
 * TDPBF16PS wants them), packed 32 columns × all of K at a time. The
 * executor's threads (pl_executor_split) take 32-column panels from a
 * shared counter; each loads its own tile configuration and releases it. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16")

#define TERMS 3

typedef struct
{
  guint8   palette;
  guint8   start_row;
  guint8   reserved[14];
  guint16  colsb[16];
  guint8   rows[16];
} TileConfig;

typedef struct
{
  const guint16 *a;        /* [TERMS][mp][kp] BF16: t₀, t₁, t₂ */
  const guint16 *w;        /* [n][k] BF16 */
  float         *out;      /* [m][n] */
  gsize          m, n, k;
  gsize          mp, kp;   /* m and k rounded up to 32 */
  gsize          n_panels; /* 32-column panels */
  gint           next;     /* the next panel to take */
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

/* Columns [32 P, 32 P + 32) of Wᵀ as two runs of B tiles, one per 32 k:
 * tile row r, column c holds W[n][k0 + 2r] and W[n][k0 + 2r + 1] of
 * n = 32 P + 16 h + c (zero past N and K). */
static void
pack_panel (const Job *job,
            gsize      panel,
            guint32   *b)
{
  gsize kbs = job->kp / 32;

  for (guint h = 0; h < 2; h++)
    for (guint c = 0; c < 16; c++)
      {
        gsize n = panel * 32 + h * 16 + c;
        const guint16 *row = job->w + MIN (n, job->n - 1) * job->k;

        for (gsize kb = 0; kb < kbs; kb++)
          {
            guint32 *tile = b + (h * kbs + kb) * 256;
            gsize k0 = kb * 32;

            if (n < job->n && k0 + 32 <= job->k)
              for (guint r = 0; r < 16; r++)
                tile[r * 16 + c] = row[k0 + 2 * r] | (guint32) row[k0 + 2 * r + 1] << 16;
            else
              for (guint r = 0; r < 16; r++)
                {
                  gsize k = k0 + 2 * r;
                  guint32 lo = n < job->n && k < job->k ? row[k] : 0;
                  guint32 hi = n < job->n && k + 1 < job->k ? row[k + 1] : 0;

                  tile[r * 16 + c] = lo | hi << 16;
                }
          }
      }
}

static gpointer
work (gpointer data)
{
  Job *job = data;
  TileConfig config = { .palette = 1 };
  gsize kbs = job->kp / 32, lda = job->kp * sizeof (guint16), term = job->mp * job->kp;
  g_autofree guint32 *b = g_malloc (2 * kbs * 256 * sizeof (guint32));
  float block[32 * 32];

  for (guint i = 0; i < 8; i++)
    {
      config.rows[i] = 16;
      config.colsb[i] = 64;
    }
  _tile_loadconfig (&config);

  for (;;)
    {
      gsize panel = (gsize) g_atomic_int_add (&job->next, 1);
      const guint32 *b0 = b, *b1 = b + kbs * 256;

      if (panel >= job->n_panels)
        break;
      pack_panel (job, panel, b);
      for (gsize m0 = 0; m0 < job->mp; m0 += 32)
        {
          gsize rows = MIN (32, job->m - MIN (m0, job->m)), cols = MIN (32, job->n - panel * 32);

          _tile_zero (0);
          _tile_zero (1);
          _tile_zero (2);
          _tile_zero (3);
          for (gsize kb = 0; kb < kbs; kb++)
            {
              _tile_loadd (6, b0 + kb * 256, 64);
              _tile_loadd (7, b1 + kb * 256, 64);
              for (guint t = 0; t < TERMS; t++)
                {
                  const guint16 *a = job->a + t * term + m0 * job->kp + kb * 32;

                  _tile_loadd (4, a, lda);
                  _tile_loadd (5, a + 16 * job->kp, lda);
                  _tile_dpbf16ps (0, 4, 6);
                  _tile_dpbf16ps (1, 4, 7);
                  _tile_dpbf16ps (2, 5, 6);
                  _tile_dpbf16ps (3, 5, 7);
                }
            }
          _tile_stored (0, block, 128);
          _tile_stored (1, block + 16, 128);
          _tile_stored (2, block + 16 * 32, 128);
          _tile_stored (3, block + 16 * 32 + 16, 128);
          for (gsize r = 0; r < rows; r++)
            {
              float *o = job->out + (m0 + r) * job->n + panel * 32;

              for (gsize c = 0; c < cols; c++)
                o[c] += block[r * 32 + c];
            }
        }
    }
  _tile_release ();
  return NULL;
}

gboolean
pl_stored_gemm_amx (const PlMatrix       *x,
                    const PlStoredMatrix *w,
                    PlMatrix             *out)
{
  Job job = { 0, };
  g_autofree guint16 *a = NULL;
  PlExecutor *executor;
  guint threads;

  if (w->type != PL_STORED_BF16 || !pl_cpu_has_amx_bf16 ())
    return FALSE;

  job.m = x->rows;
  job.n = w->rows;
  job.k = w->cols;
  job.mp = (job.m + 31) / 32 * 32;
  job.kp = (job.k + 31) / 32 * 32;
  job.n_panels = (job.n + 31) / 32;
  if (!(a = g_try_malloc (TERMS * job.mp * job.kp * sizeof (guint16))))
    return FALSE;
  for (gsize r = 0; r < job.mp; r++)
    {
      if (r < job.m)
        split_row (pl_matrix_row (x, r), job.k, job.kp, job.mp * job.kp, a + r * job.kp);
      else
        for (guint t = 0; t < TERMS; t++)
          memset (a + t * job.mp * job.kp + r * job.kp, 0, job.kp * sizeof (guint16));
    }
  job.a = a;
  job.w = (const guint16 *) w->data;
  job.out = out->data;
  executor = pl_executor_get_default ();
  threads = MIN (pl_executor_get_n_threads (executor), (guint) job.n_panels);
  pl_executor_split (executor, MAX (threads, 1), work, &job);
  return TRUE;
}

#pragma GCC pop_options

#else

gboolean
pl_stored_gemm_amx (const PlMatrix       *x,
                    const PlStoredMatrix *w,
                    PlMatrix             *out)
{
  return FALSE;
}

#endif
