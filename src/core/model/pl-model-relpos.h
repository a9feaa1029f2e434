/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-model.h"

G_BEGIN_DECLS

/* The largest sizes Poslens takes from config.json, whatever the family. */
#define PL_RELPOS_MAX_HEADS 4096
#define PL_RELPOS_MAX_LAYERS 1024
#define PL_RELPOS_MAX_BUCKETS (1u << 16)
#define PL_RELPOS_MAX_DISTANCE (1u << 24)
#define PL_RELPOS_MAX_POSITIONS (1u << 24)

/* What the families of pl-model-relpos.c are beyond the common sizes, from
 * config.json with Hugging Face's defaults for what it leaves out, each
 * value checked before use. The forward passes of T5, BLOOM, MPT and
 * DeBERTa read it (src/core/transformer/pl-transformer-t5.c, -alibi.c,
 * -deberta.c). */
typedef struct
{
  /* T5 and UMT5: the bias over buckets, and the stacks' layers */
  guint       n_buckets;          /* relative_attention_num_buckets */
  guint       max_distance;       /* relative_attention_max_distance */
  guint       d_kv;               /* each head's width; heads × d_kv need not be d_model */
  gboolean    gated;              /* feed_forward_proj "gated-…": wo(act(wi_0 x) ⊙ wi_1 x) */
  guint       n_encoder_layers;
  guint       n_decoder_layers;
  /* BLOOM and MPT: ALiBi */
  double      alibi_bias_max;     /* MPT's attn_config.alibi_bias_max */
  double      clip_qkv;           /* MPT: QKV clamped to ±clip_qkv; 0 for none */
  double      softmax_scale;      /* MPT: attn_config.softmax_scale, or 1 / √head_dim */
  gboolean    residual_post_ln;   /* BLOOM's apply_residual_connection_post_layernorm */
  /* DeBERTa-v2/v3 */
  guint       position_buckets;   /* 0: none, offsets used as they are */
  guint       max_relative;       /* max_relative_positions (or max_position_embeddings) */
  guint       span;               /* rel_embeddings holds 2 span rows */
  gboolean    c2p;                /* pos_att_type */
  gboolean    p2c;
  gboolean    share_att_key;
  gboolean    norm_rel_ebd;       /* "layer_norm": rel_embeddings through encoder.LayerNorm first */
  gboolean    position_biased_input;
  guint       head_size;          /* attention_head_size */
  /* every family: the longest input the forward pass takes */
  guint       max_input;
} PlRelposSpec;

/* The description of a model of these families, or NULL for others. */
const PlRelposSpec *pl_model_get_relpos      (PlModel       *self);
/* A tensor relative to the chosen stack's prefix ("block.0.layer.0.SelfAttention.q.weight"),
 * or to the model's own prefix when SHARED ("shared.weight"), read as float32
 * as stored (nn.Linear [out, in]; a Keras kernel transposed to that); NULL and
 * an error naming the file and tensor when it is not there (OPTIONAL: NULL,
 * no error). */
PlMatrix           *pl_model_read_named      (PlModel       *self,
                                              const char    *relative,
                                              gboolean       shared,
                                              gboolean       optional,
                                              GError       **error);
/* The same in the precision the file stores it (a Keras kernel comes back
 * float32, transposed). */
PlStoredMatrix     *pl_model_read_named_stored (PlModel     *self,
                                              const char    *relative,
                                              gboolean       shared,
                                              gboolean       optional,
                                              GError       **error);
/* Its shape as PyTorch stores it, or FALSE. */
gboolean            pl_model_named_shape     (PlModel       *self,
                                              const char    *relative,
                                              gboolean       shared,
                                              guint64       *rows,
                                              guint64       *cols);

G_END_DECLS
