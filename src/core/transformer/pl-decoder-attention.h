/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* One layer's attention in a rotary decoder, every head: causal scores of
 * the rotated queries and keys, softmax, and each head's context.
 *
 * Grouped-query attention: query head h reads key/value head
 * h / (n_heads / n_kv_heads), the head Hugging Face's repeat_kv copies to
 * position h. Scores q·k · SCALE; query i sees keys max(0, i − window + 1)
 * … i (all of 0 … i when WINDOW is 0); the others get exactly 0, as HF's
 * mask of the dtype's minimum gives them. */
typedef struct
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
} PlDecoderAttention;

/* On AVX-512 kernels with the heads split over threads where the processor
 * has them, else as pl_decoder_attention_plain. */
gboolean pl_decoder_attention       (const PlDecoderAttention *job,
                                     GCancellable             *cancellable,
                                     GError                  **error);
/* The plain path: OpenBLAS's SGEMM per head. The tests compare the two. */
gboolean pl_decoder_attention_plain (const PlDecoderAttention *job,
                                     GCancellable             *cancellable,
                                     GError                  **error);

G_END_DECLS
