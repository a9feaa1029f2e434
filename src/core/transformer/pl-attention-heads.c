/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "pl-attention-heads.h"
#include "pl-executor.h"
#include "pl-fused-attention.h"
#include "pl-transformer-kernels.h"

/* Each head runs in blocks of QUERY_BLOCK queries, each block two
 * single-threaded SGEMMs (OpenBLAS runs on one thread under the executor)
 * over the keys the block sees: a causal head multiplies about half of the
 * square, and unless the probabilities are kept one block's scores at a time
 * (QUERY_BLOCK × T per thread) stay in the cache between the two products. */
#define QUERY_BLOCK 64

/* Softmax of each row's visible keys (their scores capped first when the
 * job says, as Gemma 2's eager attention does: / cap, tanh, × cap in
 * float32), zero elsewhere: P holds the rows of queries FIRST_ROW …
 * FIRST_ROW + N_ROWS − 1, T apart. */
static void
softmax_rows (const PlAttentionHeads *job,
              float                    *p,
              gsize                     first_row,
              gsize                     n_rows)
{
  gsize t = job->n_tokens;

  for (gsize r = 0; r < n_rows; r++)
    {
      float *row = p + r * t;
      gsize i = first_row + r, first = pl_attention_heads_first_key (job, i);

      if (job->softcap > 0)
        for (gsize j = first; j < pl_attention_heads_end_key (job, i); j++)
          row[j] = tanhf (row[j] / job->softcap) * job->softcap;
      pl_kernel_softmax_row (row + first, pl_attention_heads_end_key (job, i) - first, t - first);
      if (first > 0)
        memset (row, 0, first * sizeof (float));
    }
}

/* One head's attention: its probabilities into the kept [heads × T, T] or
 * a block at a time into SCRATCH, its context into CTX's columns. */
static void
run_head (const PlAttentionHeads *job,
          gsize                     head,
          float                    *scratch)
{
  gsize t = job->n_tokens, hd = job->head_dim, group = job->n_heads / job->n_kv_heads, g = head / group;
  gsize q_cols = (gsize) job->n_heads * hd, kv_cols = (gsize) job->n_kv_heads * hd;
  const float *q = job->qkv + head * hd;
  const float *k = job->qkv + q_cols + g * hd;
  const float *v = job->qkv + q_cols + kv_cols + g * hd;

  for (gsize i0 = 0; i0 < t; i0 += QUERY_BLOCK)
    {
      gsize rows = MIN (QUERY_BLOCK, t - i0);
      gsize j0 = pl_attention_heads_first_key (job, i0), j1 = pl_attention_heads_end_key (job, i0 + rows - 1);
      float *p = job->probs ? job->probs->data + (head * t + i0) * t : scratch;

      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, j1 - j0, hd,
                   job->scale, q + i0 * job->stride, job->stride, k + j0 * job->stride, job->stride,
                   0.0f, p + j0, t);
      if (job->add_bias != NULL)
        job->add_bias (job, head, i0, rows, j0, j1 - j0, p + j0, t);
      softmax_rows (job, p, i0, rows);
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, j1 - j0,
                   1.0f, p + j0, t, v + j0 * job->stride, job->stride,
                   0.0f, job->ctx + i0 * q_cols + head * hd, q_cols);
    }
}

/* The heads, split over the executor's threads (pl_executor_split): each
 * thread takes the next head from a counter, with scratch of its own, and
 * looks at the cancellable before each. A head runs fused where the
 * processor allows (pl-fused-attention.c), this file's SGEMMs being its
 * plain path. */
typedef struct
{
  const PlAttentionHeads *job;
  GCancellable             *cancellable;
  gint                      next_head;
  gint                      cancelled;
} Team;

static gpointer
run_heads (gpointer data)
{
  Team *team = data;
  const PlAttentionHeads *job = team->job;
  gsize t = job->n_tokens;
  gboolean fused = pl_fused_attention_usable (job);
  g_autofree float *scratch = fused ? g_new (float, pl_fused_attention_scratch_size (job))
                              : job->probs ? NULL : g_new (float, MIN (t, QUERY_BLOCK) * t);

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
      if (fused)
        pl_fused_attention_head (job, head, scratch);
      else
        run_head (job, head, scratch);
    }
  return NULL;
}

gboolean
pl_attention_heads (const PlAttentionHeads  *job,
                      GCancellable              *cancellable,
                      GError                   **error)
{
  PlExecutor *executor = pl_executor_get_default ();
  Team team = { job, cancellable, 0, 0 };

  g_assert (!job->bidirectional || job->window == 0);
  pl_executor_split (executor, MAX (MIN (pl_executor_get_n_threads (executor), job->n_heads), 1), run_heads, &team);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}
