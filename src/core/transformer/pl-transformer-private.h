/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-attention-stats.h"
#include "pl-linear-amx.h"
#include "pl-rope-profile.h"
#include "pl-transformer.h"
#include "pl-transformer-relpos.h"

G_BEGIN_DECLS

typedef struct
{
  PlMatrix *qkv_w;      /* [hidden, 3 hidden]: Q, K and V side by side */
  PlMatrix *qkv_b;
  PlMatrix *out_w;
  PlMatrix *out_b;
  PlMatrix *ln1_w;
  PlMatrix *ln1_b;
  PlMatrix *ffn_in_w;
  PlMatrix *ffn_in_b;
  PlMatrix *ffn_out_w;
  PlMatrix *ffn_out_b;
  PlMatrix *ln2_w;
  PlMatrix *ln2_b;
  /* the four weights above as AMX tiles where the processor has them, else NULL */
  PlLinearTiles *qkv_tiles;
  PlLinearTiles *out_tiles;
  PlLinearTiles *ffn_in_tiles;
  PlLinearTiles *ffn_out_tiles;
} PlTransformerLayer;

void pl_transformer_layer_clear (PlTransformerLayer *layer);

/* One layer of a rotary-position decoder, its weights as stored (nn.Linear
 * [out, in]; views of a mapped file where the reader gives them), norms and
 * biases float32. Q, K and V fill one [T, q + 2 kv] matrix side by side, and
 * so do a gated feed-forward's gate and up halves, each from its own weight
 * (pl_stored_gemm_columns): nothing is copied to put them together. The
 * weights are checked (NaN, infinities) and made ready for the products
 * (AMX tiles) once, when the layer is first used: pl_decoder_layer_prepare. */
typedef struct
{
  PlStoredMatrix *q_w;        /* [q, hidden] */
  PlStoredMatrix *k_w;        /* [kv, hidden] */
  PlStoredMatrix *v_w;        /* [kv, hidden] */
  PlMatrix       *qkv_b;      /* 1 × (q + 2 kv): every query head's, then the key heads', the value heads', or NULL */
  PlStoredMatrix *out_w;      /* [hidden, q] */
  PlMatrix       *out_b;
  PlMatrix       *norm1_w;    /* Gemma's 1 + w already added */
  PlMatrix       *norm1_b;    /* LayerNorm only */
  PlMatrix       *norm2_w;
  PlMatrix       *norm2_b;
  PlStoredMatrix *gate_w;     /* gated: [ffn, hidden]; else NULL */
  PlStoredMatrix *up_w;       /* [ffn, hidden] */
  PlMatrix       *up_b;       /* gated: 1 × 2 ffn, the gate's then up's; else 1 × ffn */
  PlStoredMatrix *down_w;     /* [hidden, ffn] */
  PlMatrix       *down_b;
  PlMatrix       *q_norm_w;   /* Qwen 3: [head_dim], or NULL */
  PlMatrix       *k_norm_w;
  PlMatrix       *post_attn_w; /* Gemma 2: [hidden], 1 + w added, or NULL */
  PlMatrix       *post_ffn_w;
  /* a mixture of experts' layer (decoder.layer_experts), instead of up and
   * down: the router and each expert's gated feed-forward, as up_w, down_w */
  PlStoredMatrix *router_w;   /* [experts, hidden] */
  PlStoredMatrix **expert_up; /* n_experts × [2 expert_ffn, hidden], gate rows then up's */
  PlStoredMatrix **expert_down; /* n_experts × [hidden, expert_ffn] */
  GMutex          lock;       /* held while the layer is prepared */
  gint            prepared;   /* checked and made ready (atomic) */
  GError         *problem;    /* what preparing found wrong, or NULL */
} PlDecoderLayer;

struct _PlTransformer
{
  GObject              parent_instance;

  PlTransformerConfig  config;
  PlMatrix            *token_embedding;
  PlMatrix            *position_embedding;  /* every row, as stored */
  PlMatrix            *token_type;          /* row 0 of the type table, or NULL */
  PlMatrix            *embed_ln_w;
  PlMatrix            *embed_ln_b;
  PlMatrix            *embed_project_w;     /* [embedding, hidden], or NULL when they agree */
  PlMatrix            *embed_project_b;
  PlMatrix            *final_ln_w;
  PlMatrix            *final_ln_b;
  /* The layers as stored, and layer l's weights as layers[l]: ALBERT
   * applies its one stored layer n_layers times. */
  PlTransformerLayer  *stored_layers;
  guint                n_stored_layers;
  PlTransformerLayer **layers;
  /* from the tokenizer, when known */
  gboolean             has_specials;
  int                  start_id;
  int                  end_id;
  GHashTable          *specials;
  /* rotary decoders */
  PlStoredMatrix      *token_embedding_stored;  /* [vocab, hidden] */
  PlDecoderLayer      *decoder_layers;
  guint               *layer_windows;           /* config.decoder.layer_windows' storage */
  gboolean            *layer_experts;           /* config.decoder.layer_experts' storage */
  /* T5, UMT5, BLOOM, MPT, DeBERTa (pl-transformer-relpos.c): their layers,
   * run in place of the ones above, and the longest input they take (0:
   * n_positions) */
  PlRelposNet         *relpos;
  guint                max_tokens;
};

/* FALSE, with ERROR saying that WEIGHT (of LAYER, or −1 for none) holds
 * NaN or infinite values. */
gboolean pl_decoder_not_finite    (PlWeight              weight,
                                   int                   layer,
                                   GError              **error);
/* GATE_UP [T, 2 ffn] (gate, then up) → OUT [T, ffn] = act(gate) ⊙ up */
void     pl_decoder_gate          (const PlMatrix       *gate_up,
                                   PlActivation          activation,
                                   PlMatrix             *out);
/* pl-transformer-experts.c: a mixture of experts' feed-forward of X
 * [T, hidden] (layer W's router and experts) into OUT [T, hidden]. */
gboolean pl_decoder_run_experts   (PlTransformer        *self,
                                   const PlDecoderLayer *w,
                                   const PlMatrix       *x,
                                   PlMatrix             *out,
                                   GError              **error);

/* pl-transformer-decoder.c */
/* Called with LAYER's (0-based) queries, keys and values after the
 * rotation, [T, q + 2 kv]: every query head, then the key heads, then the
 * value heads, head_dim columns each. */
typedef void (*PlQkvFunc) (guint           layer,
                           const PlMatrix *qkv,
                           gpointer        user_data);

void      pl_transformer_clear_decoder      (PlTransformer  *self);
/* Layer L's weights checked (no NaN or infinity) and made ready for the
 * products, the first time it is asked for (once, whichever thread asks
 * first; the others wait for it); FALSE and what is wrong, every time, when
 * they are not usable. Cancelled, it is left to the next pass to prepare. */
gboolean  pl_transformer_prepare_decoder_layer (PlTransformer *self,
                                             guint           l,
                                             GCancellable   *cancellable,
                                             GError        **error);
/* pl_transformer_run for rotary decoders, QKV_FUNC (may be NULL) seeing
 * each layer's queries and keys. */
gboolean  pl_transformer_run_decoder        (PlTransformer  *self,
                                             const int      *ids,
                                             gsize           n_ids,
                                             gboolean        want_attentions,
                                             PlLayerFunc     layer_func,
                                             gpointer        layer_data,
                                             PlQkvFunc       qkv_func,
                                             gpointer        qkv_data,
                                             GCancellable   *cancellable,
                                             PlProgressFunc  progress,
                                             gpointer        progress_data,
                                             GError        **error);
/* pl-transformer.c */
/* pl_transformer_run with QKV_FUNC (may be NULL; rotary models only)
 * seeing each layer's queries and keys. */
gboolean  pl_transformer_run_with_qkv       (PlTransformer  *self,
                                             const int      *ids,
                                             gsize           n_ids,
                                             gboolean        want_attentions,
                                             PlLayerFunc     layer_func,
                                             gpointer        layer_data,
                                             PlQkvFunc       qkv_func,
                                             gpointer        qkv_data,
                                             GCancellable   *cancellable,
                                             PlProgressFunc  progress,
                                             gpointer        progress_data,
                                             GError        **error);
/* pl-transformer-inputs.c */
/* What each forward pass of several reports (pl_transformer_run_with_qkv's
 * arguments of the same names). */
typedef struct
{
  gboolean     want_attentions;
  PlLayerFunc  layer_func;
  gpointer     layer_data;
  PlQkvFunc    qkv_func;
  gpointer     qkv_data;
} PlForwardHooks;

/* pl_transformer_run_with_qkv on each of SEQUENCES (GArrays of ids) in turn,
 * with the same HOOKS; PROGRESS (may be NULL) sees the share of all of them
 * done. */
gboolean  pl_transformer_run_sequences      (PlTransformer        *self,
                                             GPtrArray            *sequences,
                                             const PlForwardHooks *hooks,
                                             GCancellable         *cancellable,
                                             PlProgressFunc        progress,
                                             gpointer              progress_data,
                                             GError              **error);
/* pl-rope-profile.c */
/* The rotary profile's running sums over inputs of one length: give
 * pl_rope_sums_add_layer as the QKV_FUNC of each input's forward pass. */
typedef struct _PlRopeSums PlRopeSums;
PlRopeSums    *pl_rope_sums_new             (PlTransformer  *self);
void           pl_rope_sums_add_layer       (guint           layer,
                                             const PlMatrix *qkv,
                                             gpointer        sums);
/* The mean norms over N_SEQUENCES inputs of LENGTH tokens; frees SUMS. */
PlRopeProfile *pl_rope_sums_finish          (PlRopeSums     *sums,
                                             guint           length,
                                             guint           n_sequences);
void           pl_rope_sums_free            (PlRopeSums     *sums);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlRopeSums, pl_rope_sums_free)
/* pl-attention-stats.c */
/* Everything an activations file holds from one forward pass per input:
 * the attention statistics, the positional components of layers 0 to
 * n_layers and, through QKV_FUNC (rotary models), the rotary sums. */
gboolean  pl_attention_stats_compute_all    (PlTransformer     *self,
                                             GPtrArray         *sequences,
                                             PlQkvFunc          qkv_func,
                                             gpointer           qkv_data,
                                             GCancellable      *cancellable,
                                             PlAttentionStats **stats,
                                             GPtrArray        **components,
                                             GError           **error);
/* pl-transformer-embed.c */
gboolean  pl_transformer_check_length       (PlTransformer  *self,
                                             gsize           n_tokens,
                                             GError        **error);
/* hidden_states[0] for IDS (checked): [n, hidden] */
PlMatrix *pl_transformer_embed              (PlTransformer  *self,
                                             const int      *ids,
                                             gsize           n,
                                             GError        **error);

G_END_DECLS
