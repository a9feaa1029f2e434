/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* One layer's attention, every head: scores of the queries and keys (a
 * rotary decoder's rotated ones), softmax, and each head's context.
 *
 * Grouped-query attention: query head h reads key/value head
 * h / (n_heads / n_kv_heads), the head Hugging Face's repeat_kv copies to
 * position h. Scores q·k · SCALE; query i sees keys max(0, i − window + 1)
 * … i (all of 0 … i when WINDOW is 0); the others get exactly 0, as HF's
 * mask of the dtype's minimum gives them. BIDIRECTIONAL: every query sees
 * every key (an encoder's attention; WINDOW is 0 then). SOFTCAP (Gemma 2):
 * each visible score s becomes softcap · tanh(s / softcap) before the
 * softmax; 0 leaves them. */
typedef struct _PlAttentionHeads PlAttentionHeads;

/* Adds to head HEAD's scores of queries I0 … I0 + N_ROWS − 1 against keys
 * J0 … J0 + N_KEYS − 1, SCORES[r · LD + c] for query I0 + r and key J0 + c,
 * after they are scaled and before the softmax: a position bias (T5's,
 * ALiBi's) or DeBERTa's relative terms. Keys a causal query does not see
 * may be among them: their scores are dropped whatever is added. */
typedef void (*PlAttentionBiasFunc) (const PlAttentionHeads *job,
                                     gsize                     head,
                                     gsize                     i0,
                                     gsize                     n_rows,
                                     gsize                     j0,
                                     gsize                     n_keys,
                                     float                    *scores,
                                     gsize                     ld);

struct _PlAttentionHeads
{
  const float *qkv;        /* [T, q + 2 kv]: all query heads, then key heads, then value heads */
  gsize        stride;     /* floats between rows of QKV */
  gsize        n_tokens;   /* T */
  guint        n_heads;
  guint        n_kv_heads;
  guint        head_dim;
  guint        window;     /* 0: none */
  float        scale;
  PlMatrix    *probs;      /* [heads × T, T] (row h·T + i: head h, query i) to keep, or NULL */
  float       *ctx;        /* [T, heads × head_dim]: head h's context in columns h·head_dim … */
  gboolean     bidirectional;
  float        softcap;    /* 0: none */
  PlAttentionBiasFunc add_bias;   /* or NULL; the heads then run on the SGEMM path */
  gconstpointer bias_data;        /* for ADD_BIAS */
};

/* The first key query I sees. */
static inline gsize
pl_attention_heads_first_key (const PlAttentionHeads *job,
                              gsize                   i)
{
  return job->window > 0 && i + 1 > job->window ? i + 1 - job->window : 0;
}

/* One past the last key query I sees. */
static inline gsize
pl_attention_heads_end_key (const PlAttentionHeads *job,
                            gsize                   i)
{
  return job->bidirectional ? job->n_tokens : i + 1;
}

/* The heads split over the executor's threads, each in blocks of queries
 * by OpenBLAS's SGEMM over the keys they see (pl-attention-heads.c), or
 * fused where the processor allows (pl-fused-attention.c). */
gboolean pl_attention_heads (const PlAttentionHeads  *job,
                             GCancellable            *cancellable,
                             GError                 **error);

G_END_DECLS
