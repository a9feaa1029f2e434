/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-activations-file.h"
#include "pl-checkpoint.h"
#include "pl-encodings.h"
#include "pl-matrix.h"
#include "pl-position-bias.h"
#include "pl-rope.h"
#include "pl-stored-matrix.h"

G_BEGIN_DECLS

typedef enum
{
  PL_FAMILY_TABLE,         /* a plain 2-D table from any file */
  PL_FAMILY_ANALYTIC,      /* computed, no file: sinusoidal, RoPE, ALiBi, none */
  PL_FAMILY_GPT2,
  PL_FAMILY_BERT,
  PL_FAMILY_ROBERTA,
  PL_FAMILY_XLM_ROBERTA,
  PL_FAMILY_DISTILBERT,
  PL_FAMILY_ELECTRA,
  PL_FAMILY_ALBERT,
  PL_FAMILY_OPT,
  /* Rotary-position decoders: no position table, RoPE inside attention. */
  PL_FAMILY_LLAMA,
  PL_FAMILY_MISTRAL,
  PL_FAMILY_QWEN2,
  PL_FAMILY_GEMMA,
  PL_FAMILY_PHI3,
  PL_FAMILY_GPT_NEOX,
  PL_FAMILY_QWEN3,
  PL_FAMILY_GEMMA2,
  PL_FAMILY_QWEN3_MOE,
  /* Vision transformers: a learned table whose rows, after the special
   * tokens', are the patches of an image in a grid. */
  PL_FAMILY_VIT,
  PL_FAMILY_DEIT,
  PL_FAMILY_DINOV2,
  PL_FAMILY_CLIP_VISION,
  PL_FAMILY_SIGLIP_VISION,
  /* Position as a bias on attention scores (T5's learned buckets, ALiBi's
   * slopes) or a learned table of relative positions (DeBERTa); and the
   * learned tables of encoder–decoders and of CLIP's text tower
   * (pl-model-relpos.c). */
  PL_FAMILY_T5,
  PL_FAMILY_UMT5,
  PL_FAMILY_BLOOM,
  PL_FAMILY_MPT,
  PL_FAMILY_DEBERTA_V2,
  PL_FAMILY_BART,
  PL_FAMILY_MBART,
  PL_FAMILY_WHISPER,
  PL_FAMILY_CLIP_TEXT,
} PlFamily;

/* What a model's position table is (pl-model-tables.c). */
typedef enum
{
  PL_TABLE_ABSOLUTE,    /* a learned row per position */
  PL_TABLE_RELATIVE,    /* a learned row per relative bucket (DeBERTa's rel_embeddings) */
  PL_TABLE_SINUSOIDAL,  /* stored but not trained: sinusoids (Whisper's encoder) */
  PL_TABLE_BIAS,        /* a learned bias per bucket and head, [buckets, heads] (T5) */
} PlTableKind;

/* One of a model's position tables, as info --json lists them. */
typedef struct
{
  const char  *stack;           /* "encoder", "decoder", "text", "vision", or NULL (a plain table) */
  const char  *tensor;          /* its name in the file */
  guint        rows;
  guint        cols;
  guint        first_position;  /* rows before the first real position */
  guint        n_positions;
  PlTableKind  kind;
  guint        layer;           /* UMT5's bias tables: their layer, from 1; 0 otherwise */
} PlPositionTableInfo;

/* "absolute", "relative", "sinusoidal", "bias" */
const char    *pl_table_kind_name            (PlTableKind  kind);

typedef enum
{
  PL_ACTIVATION_NONE,
  PL_ACTIVATION_GELU,        /* exact, erf */
  PL_ACTIVATION_GELU_TANH,   /* gelu_new, gelu_pytorch_tanh */
  PL_ACTIVATION_RELU,
  PL_ACTIVATION_SILU,        /* x · sigmoid(x): silu, swish */
} PlActivation;

/* Weights by role, so the forward pass never sees a file's naming. Linear
 * weights come back as [in, out], whatever the file stored. */
typedef enum
{
  PL_WEIGHT_TOKEN_EMBEDDING,      /* [vocab, embedding]; embedding = hidden unless projected */
  PL_WEIGHT_POSITION_EMBEDDING,   /* [rows, embedding], every row, padding included */
  PL_WEIGHT_TOKEN_TYPE_EMBEDDING, /* [types, embedding] */
  PL_WEIGHT_EMBED_LN_WEIGHT,      /* post-LN families: LayerNorm after the embeddings, [embedding] */
  PL_WEIGHT_EMBED_LN_BIAS,
  PL_WEIGHT_Q_WEIGHT,             /* per layer, [hidden, hidden] */
  PL_WEIGHT_Q_BIAS,
  PL_WEIGHT_K_WEIGHT,
  PL_WEIGHT_K_BIAS,
  PL_WEIGHT_V_WEIGHT,
  PL_WEIGHT_V_BIAS,
  PL_WEIGHT_ATTN_OUT_WEIGHT,
  PL_WEIGHT_ATTN_OUT_BIAS,
  PL_WEIGHT_LN1_WEIGHT,           /* pre-LN: before attention; post-LN: after attention */
  PL_WEIGHT_LN1_BIAS,
  PL_WEIGHT_FFN_IN_WEIGHT,        /* [hidden, ffn] */
  PL_WEIGHT_FFN_IN_BIAS,
  PL_WEIGHT_FFN_OUT_WEIGHT,       /* [ffn, hidden] */
  PL_WEIGHT_FFN_OUT_BIAS,
  PL_WEIGHT_LN2_WEIGHT,           /* pre-LN: before the FFN; post-LN: after the FFN */
  PL_WEIGHT_LN2_BIAS,
  PL_WEIGHT_FINAL_LN_WEIGHT,      /* GPT-2 ln_f */
  PL_WEIGHT_FINAL_LN_BIAS,
  /* ELECTRA's embeddings_project, a Linear from the embedding size to the
   * hidden size after the embedding LayerNorm, [embedding, hidden]; only in
   * checkpoints whose embedding size differs. */
  PL_WEIGHT_EMBED_PROJECT_WEIGHT,
  PL_WEIGHT_EMBED_PROJECT_BIAS,
  /* Per layer: the gate of a gated feed-forward, act(x · gate) ⊙ (x · in),
   * [hidden, ffn] (Llama's gate_proj; FFN_IN is its up_proj). */
  PL_WEIGHT_FFN_GATE_WEIGHT,
  PL_WEIGHT_FFN_GATE_BIAS,
  /* Per layer, Qwen 3: the RMSNorm of each head's query and key before the
   * rotation, [head_dim]. */
  PL_WEIGHT_Q_NORM_WEIGHT,
  PL_WEIGHT_K_NORM_WEIGHT,
  /* Per layer, Gemma 2: the norms of the attention's and the feed-forward's
   * outputs before each is added to the residual, [hidden]. */
  PL_WEIGHT_POST_ATTN_LN_WEIGHT,
  PL_WEIGHT_POST_FFN_LN_WEIGHT,
  /* Per layer, a mixture of experts (Qwen3-MoE): the router, [experts,
   * hidden], and the experts' gated feed-forwards, every expert's weight
   * one after the other: gate and up [experts × expert_ffn, hidden], down
   * [experts × hidden, expert_ffn] (nn.Linear's [out, in] each). */
  PL_WEIGHT_ROUTER_WEIGHT,
  PL_WEIGHT_EXPERT_GATE_WEIGHT,
  PL_WEIGHT_EXPERT_UP_WEIGHT,
  PL_WEIGHT_EXPERT_DOWN_WEIGHT,
} PlWeight;

/* Whether WEIGHT is one of each layer's (else one of the model's). */
gboolean       pl_weight_is_per_layer        (PlWeight     weight);

/* The normalisation before attention and before the feed-forward. */
typedef enum
{
  PL_NORM_LAYER,             /* LayerNorm: (x − mean) / √(var + ε) · w + b */
  PL_NORM_RMS,               /* RMSNorm: x / √(mean x² + ε) · w */
  PL_NORM_RMS_PLUS_ONE,      /* Gemma's RMSNorm: x / √(mean x² + ε) · (1 + w) */
} PlNormKind;

/* What a rotary-position decoder (Llama, Mistral, Qwen2, Gemma, Phi-3,
 * GPT-NeoX, Qwen3, Gemma 2) is beyond the common sizes, from its config.json with Hugging
 * Face's defaults for what it leaves out. */
typedef struct
{
  guint          n_kv_heads;         /* num_key_value_heads: heads share keys and values in groups */
  guint          head_dim;           /* head_dim, or hidden / heads */
  PlNormKind     norm;
  gboolean       gated_mlp;          /* down(act(gate(x)) ⊙ up(x)); else out(act(in(x))) */
  gboolean       parallel_residual;  /* GPT-NeoX: x + attn(ln1(x)) + mlp(ln2(x)) */
  gboolean       scale_embeddings;   /* Gemma: embeddings × √hidden */
  gboolean       qk_norm;            /* Qwen 3: each query and key head RMSNormed before the rotation */
  gboolean       post_norms;         /* Gemma 2: x + norm(attn(norm1(x))), then + norm(mlp(norm2(·))) */
  double         attention_scale;    /* scores q·k × this: head_dim^−½ (Gemma 2: query_pre_attn_scalar^−½) */
  double         attention_softcap;  /* Gemma 2: scores → cap · tanh(scores / cap); 0 for none */
  gboolean       qkv_bias;
  gboolean       out_bias;
  gboolean       mlp_bias;
  /* n_layers entries: each layer's sliding window (a query sees the last
   * WINDOW keys, itself included), 0 for none; NULL when no layer has one */
  const guint   *layer_windows;
  PlRopeSpec     rope;
  /* Qwen3-MoE: the layers whose feed-forward is N_EXPERTS experts
   * (n_layers entries, NULL when none is): each token's router softmax
   * over them, its top N_EXPERTS_PER_TOKEN (their weights renormalised to
   * sum to 1 when NORM_TOPK), each a gated feed-forward of EXPERT_FFN */
  const gboolean *layer_experts;
  guint          n_experts;
  guint          n_experts_per_token;
  guint          expert_ffn;
  gboolean       norm_topk;
} PlRotaryDecoderSpec;

#define PL_TYPE_MODEL (pl_model_get_type ())

G_DECLARE_FINAL_TYPE (PlModel, pl_model, PL, MODEL, GObject)

/* PATH is a file, a checkpoint folder, a demo's name ("mini-bert") or
 * "builtin:KIND:..." for an analytic encoding. DATASET, when given, names a
 * 2-D tensor to use as a plain table. Fails with G_IO_ERROR_CANCELLED once
 * CANCELLABLE is cancelled (looked at before and after the file is read). */
PlModel       *pl_model_open                 (const char    *path,
                                              const char    *dataset,
                                              GCancellable  *cancellable,
                                              GError       **error);
PlModel       *pl_model_new_for_table        (const char  *name,
                                              PlMatrix    *table);

const char    *pl_model_get_name             (PlModel     *self);
const char    *pl_model_get_path             (PlModel     *self);
PlCheckpoint  *pl_model_get_checkpoint       (PlModel     *self);
PlFamily       pl_model_get_family           (PlModel     *self);
const char    *pl_model_get_family_name      (PlModel     *self);
guint          pl_model_get_hidden_size      (PlModel     *self);
/* The width of the token, position and token type embeddings: config.json's
 * embedding_size, else the token embedding's; the hidden size when neither
 * says (ELECTRA-small: 128, projected to its hidden size 256). */
guint          pl_model_get_embedding_size   (PlModel     *self);
guint          pl_model_get_n_layers         (PlModel     *self);
guint          pl_model_get_n_heads          (PlModel     *self);
guint          pl_model_get_ffn_size         (PlModel     *self);
guint          pl_model_get_vocab_size       (PlModel     *self);
double         pl_model_get_layer_norm_eps   (PlModel     *self);
PlActivation   pl_model_get_activation       (PlModel     *self);
gboolean       pl_model_get_pre_ln           (PlModel     *self);
gboolean       pl_model_get_causal           (PlModel     *self);
/* ALBERT: one stored layer applied n_layers times. */
gboolean       pl_model_get_shared_layers    (PlModel     *self);
/* The position table as stored, and which of its rows are real positions. */
const char    *pl_model_get_position_table_name (PlModel  *self);
guint          pl_model_get_position_table_rows (PlModel  *self);
guint          pl_model_get_first_position   (PlModel     *self);
guint          pl_model_get_n_positions      (PlModel     *self);
/* Token ids of the special tokens: -1 when the model has none. */
int            pl_model_get_bos_id           (PlModel     *self);
int            pl_model_get_eos_id           (PlModel     *self);
int            pl_model_get_pad_id           (PlModel     *self);

/* "GPT-2", "BERT", … for display; the activation as config.json names it
 * (NULL when absent); the table's width; the analytic encoding of a
 * builtin: model (NULL otherwise). */
const char    *pl_model_get_family_display_name (PlModel *self);
const char    *pl_model_get_activation_name  (PlModel     *self);
guint          pl_model_get_position_table_cols (PlModel  *self);
const PlEncodingSpec *pl_model_get_encoding  (PlModel     *self);
/* Whether Poslens's forward pass runs FAMILY's architecture at all, and
 * whether it may run this model (its family does, and config.json gives its
 * heads); pl_model_require_config says what is missing. */
gboolean       pl_family_has_forward         (PlFamily     family);
/* The display names of the families the forward pass runs, for messages:
 * "GPT-2, OPT, DistilBERT, …". */
char          *pl_family_list_forward        (void);
gboolean       pl_model_has_forward          (PlModel     *self);
/* TRUE when the model can be run: a known architecture with layers, and
 * heads, epsilon and activation known from config.json. Otherwise an error
 * naming what is missing and where to put it. The forward pass calls this
 * before anything else. */
gboolean       pl_model_require_config       (PlModel     *self,
                                              GError     **error);

/* The grid of a vision transformer's table (or of a 2-D analytic encoding):
 * ROWS × COLS patches after the special tokens' rows, flattened row by row
 * as the patch embedding's convolution output is (patch p sits in row
 * p / COLS, column p % COLS), so pl_model_read_positions gives the patches in
 * that order. FALSE when the model has no grid; pl_model_require_grid then
 * says why (a 1-D table, or a vision table whose grid config.json and the
 * row count do not tell). */
gboolean       pl_model_get_grid             (PlModel     *self,
                                              guint       *rows,
                                              guint       *cols);
gboolean       pl_model_require_grid         (PlModel     *self,
                                              guint       *rows,
                                              guint       *cols,
                                              GError     **error);
/* Rows of special tokens before the patches (ViT's class token, DeiT's class
 * and distillation tokens), kept out of the grid; 0 for other models. */
guint          pl_model_get_n_special_rows   (PlModel     *self);
/* "CLS", "distillation": what special row I stands for. */
const char    *pl_model_get_special_row_name (PlModel     *self,
                                              guint        i);
/* The special rows, float32, [n_special_rows, width]; an error when there
 * are none. They are not checked for zeros: MAE's class row is all zeros. */
PlMatrix      *pl_model_read_special_rows    (PlModel     *self,
                                              GError     **error);

/* An activations file (README, "Activations files") opened as a model: what
 * a forward pass measured, read from the file, with no weights; NULL for
 * other models. Its sizes and name are the file's, its positions the sample
 * inputs' T, and it has no position table. */
PlActivationsFile *pl_model_get_activations  (PlModel     *self);
/* TRUE when the model has weights; for an activations file, an error
 * saying what it holds and that this needs the checkpoint itself. */
gboolean       pl_model_require_weights      (PlModel     *self,
                                              GError     **error);

/* The position tables the model holds, the one the views open on first
 * (pl_model_get_position_table_name's) among them when it has one. */
guint          pl_model_get_n_position_tables (PlModel   *self);
const PlPositionTableInfo *pl_model_get_position_table_info (PlModel *self,
                                              guint        index);
/* Makes TABLE the model's table: a stack ("encoder", "decoder", "text",
 * "vision"), a kind ("relative", "absolute") or a tensor's name, the first
 * of the list that matches. For T5 it chooses the stack whose bias and
 * forward pass the commands use. Call it before the model is shared
 * between threads. FALSE and an error listing the tables when none
 * matches. */
gboolean       pl_model_select_table         (PlModel     *self,
                                              const char  *table,
                                              GError     **error);
/* The stack of the chosen table ("encoder", …), NULL for none. */
const char    *pl_model_get_stack            (PlModel     *self);
PlTableKind    pl_model_get_table_kind       (PlModel     *self);
/* TRUE when position enters attention as a bias (T5, UMT5, BLOOM, MPT,
 * builtin:alibi). */
gboolean       pl_model_has_position_bias    (PlModel     *self);
/* The bias the chosen stack's LAYER (from 0) adds over T = LENGTH tokens
 * (LENGTH 0: the model's default, pl_model_get_bias_length), as Hugging
 * Face computes it; an error naming the file for models without one. */
PlPositionBias *pl_model_compute_position_bias (PlModel   *self,
                                              guint        layer,
                                              guint        length,
                                              GError     **error);
guint          pl_model_get_bias_length      (PlModel     *self);
/* UMT5: every layer has a bias of its own; T5 computes one in layer 0 that
 * every layer shares. */
gboolean       pl_model_get_bias_per_layer   (PlModel     *self);
/* DeBERTa's relative table: row ROW stands for bucket ROW − span of the
 * offset i − j (query minus key), −span … span − 1; which offsets it
 * gathers, in words ("bucket −6: i − j from −18 to −9"); the zero bucket's
 * row. */
int            pl_model_get_relative_bucket  (PlModel     *self,
                                              guint        row);
char          *pl_model_describe_relative_row (PlModel    *self,
                                              guint        row);
guint          pl_model_get_relative_zero_row (PlModel    *self);

/* The embedding tables and LayerNorm all as wide as the embedding size, and
 * when that differs from the hidden size, an embedding projection of the
 * right shape; otherwise an error naming the file and the tensor (checked
 * before the forward pass reads them). */
gboolean       pl_model_check_embeddings     (PlModel     *self,
                                              GError     **error);

/* How a rotary-position decoder (Llama, Mistral, Qwen2, Gemma, Phi-3,
 * GPT-NeoX) is built: its heads, norms, MLP and RoPE; NULL for models
 * without rotary embeddings (GPT-2 and OPT are decoders with a table). */
const PlRotaryDecoderSpec *pl_model_get_rotary_decoder (PlModel *self);

/* The rows that are real positions, float32, [n_positions, hidden]. */
PlMatrix      *pl_model_read_positions       (PlModel     *self,
                                              GError     **error);
/* The rows PE-Study's probe scripts give the probes (pl-model-paper.c):
 * the table as stored from row 0, padding rows included, GPT-2's cut to its
 * first 512; and those rows in words, for the output. */
PlMatrix      *pl_model_read_paper_positions (PlModel     *self,
                                              GError     **error);
char          *pl_model_describe_paper_rows  (PlModel     *self);
/* TRUE unless the table's rows are no positions: DeBERTa's relative table,
 * whose rows are buckets of an offset (the probes predict a row's position
 * and order two rows); else an error naming the file and why. */
gboolean       pl_model_require_probe_table  (PlModel     *self,
                                              GError     **error);
/* TRUE when the paper's figure and probes can read the model: a learned or
 * analytic 1-D position table; else an error naming the file and why (a
 * grid of image patches, a rotary model, an activations file). */
gboolean       pl_model_require_paper_table  (PlModel     *self,
                                              GError     **error);
PlMatrix      *pl_model_read_weight          (PlModel     *self,
                                              PlWeight     weight,
                                              int          layer,
                                              GError     **error);
/* A weight in the precision the file stores it, linear weights in
 * nn.Linear's layout [out, in] (Keras kernels transposed), vectors 1 × n;
 * the Q, K and V parts of a fused projection and the gate and up halves of
 * Phi-3's gate_up_proj as separate matrices. */
PlStoredMatrix *pl_model_read_stored_weight  (PlModel     *self,
                                              PlWeight     weight,
                                              int          layer,
                                              GError     **error);

G_END_DECLS
