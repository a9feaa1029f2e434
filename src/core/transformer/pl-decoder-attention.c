/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-decoder-attention.h"
#include "pl-executor.h"
#include "pl-transformer-kernels.h"

/* The first key query I sees. */
static inline gsize
first_key (const PlDecoderAttention *job,
           gsize                     i)
{
  return job->window > 0 && i + 1 > job->window ? i + 1 - job->window : 0;
}

/* Softmax of each row's visible keys, zero elsewhere. */
static void
softmax_rows (const PlDecoderAttention *job,
              float                    *p,
              gsize                     first_row,
              gsize                     n_rows)
{
  gsize t = job->n_tokens;

  for (gsize i = first_row; i < first_row + n_rows; i++)
    {
      float *row = p + i * t;
      gsize first = first_key (job, i);

      pl_kernel_softmax_row (row + first, i + 1 - first, t - first);
      if (first > 0)
        memset (row, 0, first * sizeof (float));
    }
}

/* One head's attention: its scores into KEEP's or SCRATCH's [T, T], its
 * context into CTX's columns. KT, when the function wants one, is [hd, T]
 * of scratch. */
typedef void (*HeadFunc) (const PlDecoderAttention *job,
                          gsize                     head,
                          float                    *kt,
                          float                    *scratch);

/* The heads, split over the executor's threads (pl_executor_split): each
 * thread takes the next head from a counter, with scratch of its own, and
 * looks at the cancellable before each. */
typedef struct
{
  const PlDecoderAttention *job;
  HeadFunc                  run_head;
  gboolean                  wants_kt;
  GCancellable             *cancellable;
  gint                      next_head;
  gint                      cancelled;
} Team;

static gpointer
work (gpointer data)
{
  Team *team = data;
  const PlDecoderAttention *job = team->job;
  gsize t = job->n_tokens;
  g_autofree float *kt = team->wants_kt ? g_new (float, (gsize) job->head_dim * t) : NULL;
  g_autofree float *scratch = job->probs ? NULL : g_new (float, t * t);

  for (;;)
    {
      gint head = g_atomic_int_add (&team->next_head, 1);

      if (head >= (gint) job->n_heads || g_atomic_int_get (&team->cancelled))
        break;
      if (g_cancellable_is_cancelled (team->cancellable))
        {
          g_atomic_int_set (&team->cancelled, 1);
          break;
        }
      team->run_head (job, head, kt, scratch);
    }
  return NULL;
}

static gboolean
split_heads (const PlDecoderAttention  *job,
             HeadFunc                   run_head,
             gboolean                   wants_kt,
             GCancellable              *cancellable,
             GError                   **error)
{
  PlExecutor *executor = pl_executor_get_default ();
  Team team = { job, run_head, wants_kt, cancellable, 0, 0 };

  pl_executor_split (executor, MAX (MIN (pl_executor_get_n_threads (executor), job->n_heads), 1), work, &team);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* The plain path: two single-threaded SGEMMs per head (OpenBLAS runs on one
 * thread under the executor). */
static void
run_head_plain (const PlDecoderAttention *job,
                gsize                     head,
                float                    *kt,
                float                    *scratch)
{
  gsize t = job->n_tokens, hd = job->head_dim, group = job->n_heads / job->n_kv_heads, g = head / group;
  gsize q_cols = (gsize) job->n_heads * hd, kv_cols = (gsize) job->n_kv_heads * hd;
  const float *q = job->qkv + head * hd;
  const float *k = job->qkv + q_cols + g * hd;
  const float *v = job->qkv + q_cols + kv_cols + g * hd;
  float *p = job->probs ? job->probs->data + head * t * t : scratch;

  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, t, t, hd,
               job->scale, q, job->stride, k, job->stride, 0.0f, p, t);
  softmax_rows (job, p, 0, t);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, t, hd, t,
               1.0f, p, t, v, job->stride, 0.0f, job->ctx + head * hd, q_cols);
}

gboolean
pl_decoder_attention_plain (const PlDecoderAttention  *job,
                            GCancellable              *cancellable,
                            GError                   **error)
{
  return split_heads (job, run_head_plain, FALSE, cancellable, error);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512dq")
#pragma GCC optimize ("O3")

/* Rows of scores and of context computed together. */
#define SCORE_ROWS 8
#define CTX_ROWS   6

static inline __mmask16
tail_mask (gsize n)
{
  return n >= 16 ? 0xffff : (__mmask16) ((1u << n) - 1);
}

/* P[i, j] = scale · q_i · k_j for rows i0 … i0 + rows − 1 and keys j0 …
 * j1 − 1, 32 keys at a time: KT is the head's keys transposed, [hd, T]
 * (row stride KT_STRIDE). */
static void
score_block (const PlDecoderAttention *job,
             const float              *q,
             const float              *kt,
             gsize                     kt_stride,
             gsize                     i0,
             gsize                     rows,
             gsize                     j0,
             gsize                     j1,
             float                    *p)
{
  gsize hd = job->head_dim, t = job->n_tokens;
  __m512 scale = _mm512_set1_ps (job->scale);

  for (gsize j = j0; j < j1; j += 32)
    {
      __mmask16 m0 = tail_mask (j1 - j), m1 = j + 16 < j1 ? tail_mask (j1 - j - 16) : 0;
      __m512 acc[SCORE_ROWS][2];

      for (gsize r = 0; r < SCORE_ROWS; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps ();
      for (gsize d = 0; d < hd; d++)
        {
          const float *krow = kt + d * kt_stride + j;
          __m512 k0 = _mm512_maskz_loadu_ps (m0, krow);
          __m512 k1 = _mm512_maskz_loadu_ps (m1, krow + 16);

          for (gsize r = 0; r < SCORE_ROWS; r++)
            if (r < rows)
              {
                __m512 qv = _mm512_set1_ps (q[(i0 + r) * job->stride + d]);

                acc[r][0] = _mm512_fmadd_ps (qv, k0, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps (qv, k1, acc[r][1]);
              }
        }
      for (gsize r = 0; r < rows; r++)
        {
          _mm512_mask_storeu_ps (p + (i0 + r) * t + j, m0, _mm512_mul_ps (acc[r][0], scale));
          _mm512_mask_storeu_ps (p + (i0 + r) * t + j + 16, m1, _mm512_mul_ps (acc[r][1], scale));
        }
    }
}

/* ctx_i = Σ_j P[i, j] v_j for rows i0 … i0 + rows − 1 over keys j0 … j1 − 1
 * (zero probabilities outside each row's keys), 64 dims at a time. */
static void
context_block (const PlDecoderAttention *job,
               const float              *p,
               const float              *v,
               gsize                     i0,
               gsize                     rows,
               gsize                     j0,
               gsize                     j1,
               float                    *ctx,
               gsize                     ctx_stride)
{
  gsize hd = job->head_dim, t = job->n_tokens;

  for (gsize c = 0; c < hd; c += 64)
    {
      __mmask16 mask[4];
      __m512 acc[CTX_ROWS][4];

      for (gsize s = 0; s < 4; s++)
        mask[s] = c + 16 * s < hd ? tail_mask (hd - c - 16 * s) : 0;
      for (gsize r = 0; r < CTX_ROWS; r++)
        for (gsize s = 0; s < 4; s++)
          acc[r][s] = _mm512_setzero_ps ();
      for (gsize j = j0; j < j1; j++)
        {
          const float *vrow = v + j * job->stride + c;
          __m512 vv[4];

          for (gsize s = 0; s < 4; s++)
            vv[s] = _mm512_maskz_loadu_ps (mask[s], vrow + 16 * s);
          for (gsize r = 0; r < CTX_ROWS; r++)
            if (r < rows)
              {
                __m512 pv = _mm512_set1_ps (p[(i0 + r) * t + j]);

                for (gsize s = 0; s < 4; s++)
                  acc[r][s] = _mm512_fmadd_ps (pv, vv[s], acc[r][s]);
              }
        }
      for (gsize r = 0; r < rows; r++)
        for (gsize s = 0; s < 4; s++)
          _mm512_mask_storeu_ps (ctx + (i0 + r) * ctx_stride + c + 16 * s, mask[s], acc[r][s]);
    }
}

static void
run_head (const PlDecoderAttention *job,
          gsize                     head,
          float                    *kt,
          float                    *scratch)
{
  gsize t = job->n_tokens, hd = job->head_dim, group = job->n_heads / job->n_kv_heads, g = head / group;
  gsize q_cols = (gsize) job->n_heads * hd, kv_cols = (gsize) job->n_kv_heads * hd;
  const float *q = job->qkv + head * hd;
  const float *k = job->qkv + q_cols + g * hd;
  const float *v = job->qkv + q_cols + kv_cols + g * hd;
  float *p = job->probs ? job->probs->data + head * t * t : scratch;

  for (gsize j = 0; j < t; j++)
    for (gsize d = 0; d < hd; d++)
      kt[d * t + j] = k[j * job->stride + d];
  /* only the keys a block of queries sees: up to its last row, and from
   * the window's start of its first */
  for (gsize i0 = 0; i0 < t; i0 += SCORE_ROWS)
    {
      gsize rows = MIN (SCORE_ROWS, t - i0);

      score_block (job, q, kt, t, i0, rows, first_key (job, i0), i0 + rows, p);
      /* keys past the block's diagonal that no row sees: zero, as the
       * softmax leaves them only for keys after its own row */
      softmax_rows (job, p, i0, rows);
    }
  for (gsize i0 = 0; i0 < t; i0 += CTX_ROWS)
    {
      gsize rows = MIN (CTX_ROWS, t - i0);

      context_block (job, p, v, i0, rows, first_key (job, i0), i0 + rows, job->ctx + head * hd, q_cols);
    }
}

#pragma GCC pop_options

gboolean
pl_decoder_attention (const PlDecoderAttention  *job,
                      GCancellable              *cancellable,
                      GError                   **error)
{
  if (!pl_cpu_has_avx512 ())
    return pl_decoder_attention_plain (job, cancellable, error);
  return split_heads (job, run_head, TRUE, cancellable, error);
}

#else

gboolean
pl_decoder_attention (const PlDecoderAttention  *job,
                      GCancellable              *cancellable,
                      GError                   **error)
{
  return pl_decoder_attention_plain (job, cancellable, error);
}

#endif
