/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-cpu.h"
#include "pl-fused-attention.h"

/* One head: its queries (times the scale), keys (as Kᵀ in panels of PANEL
 * keys, [d, PANEL] each, so the score loop reads them in order) and values
 * copied out of QKV once. Then blocks of ROWS queries: their scores against
 * the keys the block sees (ROWS × PANEL per panel, in 16 registers), each
 * row's softmax left unnormalised in a ROWS × T strip that stays in the L1
 * cache, and the context as the strip times the values (ROWS × 32 columns
 * in 16 registers), divided by each row's sum as it is stored; kept
 * probabilities are the strip's rows divided by their sums, written out
 * beside, so keeping them changes no context. Against
 * pl-attention-heads.c's SGEMMs, nothing is packed again per block, and
 * the softmax makes two passes over a strip in L1 instead of three over a
 * block in L2. The scores are (scale · q) · k, not scale · (q · k): they
 * differ by a float rounding. */

static gint force_plain;

void
pl_fused_attention_force_plain (gboolean plain)
{
  g_atomic_int_set (&force_plain, plain);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

/* GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps () along, which
 * -Wmaybe-uninitialized reports inside the header. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

/* queries per block; the kernels hold ROWS × 2 vectors */
#define ROWS 8
/* keys per panel of Kᵀ: two vectors */
#define PANEL 32

gboolean
pl_fused_attention_usable (const PlAttentionHeads *job)
{
  /* capped scores (Gemma 2) and added biases (T5, ALiBi, DeBERTa) take the plain path */
  return job->head_dim > 0 && job->head_dim % 16 == 0 && job->softcap == 0 && job->add_bias == NULL &&
         !g_atomic_int_get (&force_plain) && pl_cpu_has_avx512f ();
}

static gsize
n_panels (const PlAttentionHeads *job)
{
  return (job->n_tokens + PANEL - 1) / PANEL;
}

gsize
pl_fused_attention_scratch_size (const PlAttentionHeads *job)
{
  gsize width = n_panels (job) * PANEL, d = job->head_dim;

  /* Kᵀ panels, values, queries and a block of zeros, the strip */
  return width * d + job->n_tokens * d + (job->n_tokens + ROWS) * d + ROWS * width;
}

#pragma GCC push_options
#pragma GCC optimize ("O3", "no-trapping-math", "no-math-errno")
#pragma GCC target ("avx512f,avx2,fma")

/* exp(x) for x in [−87, 88], as pl-transformer-kernels-impl.h's exp1:
 * 2^n · p(r), r = x − n ln 2, Cephes' degree-6 polynomial (about 1 ulp). */
static inline __m512
exp16 (__m512 x)
{
  __m512 n, r, p;

  x = _mm512_min_ps (_mm512_max_ps (x, _mm512_set1_ps (-87.0f)), _mm512_set1_ps (88.0f));
  n = _mm512_roundscale_ps (_mm512_mul_ps (x, _mm512_set1_ps (1.44269504088896341f)),
                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm512_fnmadd_ps (n, _mm512_set1_ps (0.693359375f), x);
  r = _mm512_fmadd_ps (n, _mm512_set1_ps (2.12194440e-4f), r);
  p = _mm512_set1_ps (1.9875691500e-4f);
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (1.3981999507e-3f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (8.3334519073e-3f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (4.1665795894e-2f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (1.6666665459e-1f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (5.0000001201e-1f));
  p = _mm512_fmadd_ps (p, _mm512_mul_ps (r, r), _mm512_add_ps (r, _mm512_set1_ps (1.0f)));
  return _mm512_scalef_ps (p, n);
}

/* S[r][0 … PANEL · (P1 − P0)) = Q[r] · Kᵀ over panels P0 … P1 − 1, rows
 * WIDTH apart. */
static void
scores (const float *q,
        const float *kt,
        gsize        d,
        gsize        p0,
        gsize        p1,
        float       *s,
        gsize        width)
{
  for (gsize p = p0; p < p1; p++)
    {
      const float *panel = kt + p * d * PANEL;
      float *out = s + (p - p0) * PANEL;
      __m512 a0[ROWS], a1[ROWS];

#pragma GCC unroll 8
      for (int r = 0; r < ROWS; r++)
        a0[r] = a1[r] = _mm512_setzero_ps ();
      for (gsize k = 0; k < d; k++)
        {
          __m512 b0 = _mm512_loadu_ps (panel + k * PANEL);
          __m512 b1 = _mm512_loadu_ps (panel + k * PANEL + 16);

#pragma GCC unroll 8
          for (int r = 0; r < ROWS; r++)
            {
              __m512 x = _mm512_set1_ps (q[r * d + k]);

              a0[r] = _mm512_fmadd_ps (x, b0, a0[r]);
              a1[r] = _mm512_fmadd_ps (x, b1, a1[r]);
            }
        }
#pragma GCC unroll 8
      for (int r = 0; r < ROWS; r++)
        {
          _mm512_storeu_ps (out + r * width, a0[r]);
          _mm512_storeu_ps (out + r * width + 16, a1[r]);
        }
    }
}

/* ROW[LO … HI) = exp(ROW − its maximum there), ROW[0 … LO) and
 * ROW[HI … N) = 0; returns 1 / the sum (HI > LO). */
static float
softmax_row (float *row,
             gsize  lo,
             gsize  hi,
             gsize  n)
{
  __m512 vmax = _mm512_set1_ps (-G_MAXFLOAT), vsum = _mm512_setzero_ps (), m;
  __mmask16 tail = (__mmask16) ((1u << ((hi - lo) % 16)) - 1);
  gsize end = hi - (hi - lo) % 16, j;

  for (j = lo; j < end; j += 16)
    vmax = _mm512_max_ps (vmax, _mm512_loadu_ps (row + j));
  if (tail)
    vmax = _mm512_mask_max_ps (vmax, tail, vmax, _mm512_maskz_loadu_ps (tail, row + end));
  m = _mm512_set1_ps (_mm512_reduce_max_ps (vmax));
  for (j = lo; j < end; j += 16)
    {
      __m512 e = exp16 (_mm512_sub_ps (_mm512_loadu_ps (row + j), m));

      _mm512_storeu_ps (row + j, e);
      vsum = _mm512_add_ps (vsum, e);
    }
  if (tail)
    {
      __m512 e = exp16 (_mm512_sub_ps (_mm512_maskz_loadu_ps (tail, row + end), m));

      _mm512_mask_storeu_ps (row + end, tail, e);
      vsum = _mm512_mask_add_ps (vsum, tail, vsum, e);
    }
  memset (row, 0, lo * sizeof (float));
  memset (row + hi, 0, (n - hi) * sizeof (float));
  /* the sum is at least 1: the maximum contributes exp(0) */
  return 1.0f / _mm512_reduce_add_ps (vsum);
}

/* CTX[r][C … C + 16 · VECTORS) = Σ_j S[r][j − JBASE] · V[j][C …] over keys
 * J0 … J1 − 1, times INV[r], for the first N_ROWS rows. */
static inline __attribute__ ((always_inline)) void
context_columns (const float *s,
                 gsize        width,
                 const float *v,
                 gsize        d,
                 gsize        c,
                 int          vectors,
                 gsize        jbase,
                 gsize        j0,
                 gsize        j1,
                 const float *inv,
                 gsize        n_rows,
                 float       *ctx,
                 gsize        ctx_stride)
{
  __m512 a0[ROWS], a1[ROWS];

#pragma GCC unroll 8
  for (int r = 0; r < ROWS; r++)
    a0[r] = a1[r] = _mm512_setzero_ps ();
  for (gsize j = j0; j < j1; j++)
    {
      const float *vj = v + j * d + c;
      const float *sj = s + (j - jbase);
      __m512 b0 = _mm512_loadu_ps (vj);
      __m512 b1 = vectors == 2 ? _mm512_loadu_ps (vj + 16) : b0;

#pragma GCC unroll 8
      for (int r = 0; r < ROWS; r++)
        {
          __m512 x = _mm512_set1_ps (sj[r * width]);

          a0[r] = _mm512_fmadd_ps (x, b0, a0[r]);
          if (vectors == 2)
            a1[r] = _mm512_fmadd_ps (x, b1, a1[r]);
        }
    }
  for (gsize r = 0; r < n_rows; r++)
    {
      __m512 scale = _mm512_set1_ps (inv[r]);

      _mm512_storeu_ps (ctx + r * ctx_stride + c, _mm512_mul_ps (a0[r], scale));
      if (vectors == 2)
        _mm512_storeu_ps (ctx + r * ctx_stride + c + 16, _mm512_mul_ps (a1[r], scale));
    }
}

/* The head's queries times the scale into QS ([T, d], then ROWS rows of
 * zeros for the last block), its keys into KT's panels (zeros past the
 * last key) and its values into VS ([T, d]). The rows lie a QKV row apart,
 * further than the hardware prefetchers look: each is asked for AHEAD rows
 * before it is read. */
#define AHEAD 6

static void
pack_head (const PlAttentionHeads *job,
           const float              *q,
           const float              *k,
           const float              *v,
           float                    *kt,
           float                    *vs,
           float                    *qs)
{
  gsize t = job->n_tokens, d = job->head_dim, width = n_panels (job) * PANEL;
  __m512 scale = _mm512_set1_ps (job->scale);

  memset (kt + (width - PANEL) * d, 0, PANEL * d * sizeof (float));
  memset (qs + t * d, 0, ROWS * d * sizeof (float));
  for (gsize j = 0; j < t; j++)
    {
      const float *qj = q + j * job->stride, *kj = k + j * job->stride, *vj = v + j * job->stride;
      float *panel = kt + (j / PANEL) * PANEL * d + j % PANEL;

      if (j + AHEAD < t)
        for (gsize i = 0; i < d; i += 16)
          {
            _mm_prefetch ((const char *) (qj + AHEAD * job->stride + i), _MM_HINT_T0);
            _mm_prefetch ((const char *) (kj + AHEAD * job->stride + i), _MM_HINT_T0);
            _mm_prefetch ((const char *) (vj + AHEAD * job->stride + i), _MM_HINT_T0);
          }
      for (gsize i = 0; i < d; i += 16)
        {
          _mm512_storeu_ps (qs + j * d + i, _mm512_mul_ps (scale, _mm512_loadu_ps (qj + i)));
          _mm512_storeu_ps (vs + j * d + i, _mm512_loadu_ps (vj + i));
        }
      for (gsize i = 0; i < d; i++)
        panel[i * PANEL] = kj[i];
    }
}

/* The block's probabilities (the strip's rows times their INV) into the
 * kept [heads × T, T], zero where a query sees no key. */
static void
keep_probabilities (const PlAttentionHeads *job,
                    gsize                     head,
                    gsize                     i0,
                    gsize                     n_rows,
                    const float              *s,
                    gsize                     width,
                    gsize                     jbase,
                    gsize                     n,
                    const float              *inv)
{
  gsize t = job->n_tokens, end = MIN (jbase + n, t);

  for (gsize r = 0; r < n_rows; r++)
    {
      float *dst = pl_matrix_row (job->probs, head * t + i0 + r);
      const float *row = s + r * width - jbase;
      __m512 scale = _mm512_set1_ps (inv[r]);
      gsize j = jbase;

      memset (dst, 0, jbase * sizeof (float));
      for (; j + 16 <= end; j += 16)
        _mm512_storeu_ps (dst + j, _mm512_mul_ps (_mm512_loadu_ps (row + j), scale));
      for (; j < end; j++)
        dst[j] = row[j] * inv[r];
      memset (dst + end, 0, (t - end) * sizeof (float));
    }
}

void
pl_fused_attention_head (const PlAttentionHeads *job,
                         gsize                     head,
                         float                    *scratch)
{
  gsize t = job->n_tokens, d = job->head_dim, group = job->n_heads / job->n_kv_heads, g = head / group;
  gsize q_cols = (gsize) job->n_heads * d, kv_cols = (gsize) job->n_kv_heads * d;
  gsize width = n_panels (job) * PANEL;
  const float *q = job->qkv + head * d;
  const float *k = job->qkv + q_cols + g * d;
  const float *v = job->qkv + q_cols + kv_cols + g * d;
  float *kt = scratch, *vs = kt + width * d, *qs = vs + t * d, *s = qs + (t + ROWS) * d;
  float inv[ROWS];

  g_assert (d % 16 == 0);
  pack_head (job, q, k, v, kt, vs, qs);
  for (gsize i0 = 0; i0 < t; i0 += ROWS)
    {
      gsize n_rows = MIN (ROWS, t - i0);
      gsize j0 = pl_attention_heads_first_key (job, i0);
      gsize j1 = pl_attention_heads_end_key (job, i0 + n_rows - 1);
      gsize p0 = j0 / PANEL, p1 = (j1 + PANEL - 1) / PANEL, jbase = p0 * PANEL, n = (p1 - p0) * PANEL;
      float *out = job->ctx + i0 * q_cols + head * d;

      scores (qs + i0 * d, kt, d, p0, p1, s, width);
      for (gsize r = 0; r < ROWS; r++)
        {
          if (r < n_rows)
            inv[r] = softmax_row (s + r * width, pl_attention_heads_first_key (job, i0 + r) - jbase,
                                  pl_attention_heads_end_key (job, i0 + r) - jbase, n);
          else
            {
              memset (s + r * width, 0, n * sizeof (float));
              inv[r] = 0.0f;
            }
        }
      if (job->probs != NULL)
        keep_probabilities (job, head, i0, n_rows, s, width, jbase, n, inv);
      for (gsize c = 0; c < d; c += 32)
        {
          if (d - c >= 32)
            context_columns (s, width, vs, d, c, 2, jbase, j0, j1, inv, n_rows, out, q_cols);
          else
            context_columns (s, width, vs, d, c, 1, jbase, j0, j1, inv, n_rows, out, q_cols);
        }
    }
}

#pragma GCC pop_options

#else

gboolean
pl_fused_attention_usable (const PlAttentionHeads *job)
{
  return FALSE;
}

gsize
pl_fused_attention_scratch_size (const PlAttentionHeads *job)
{
  return 0;
}

void
pl_fused_attention_head (const PlAttentionHeads *job,
                         gsize                     head,
                         float                    *scratch)
{
  g_assert_not_reached ();
}

#endif
