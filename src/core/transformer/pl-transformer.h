/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* What the forward pass needs to know about a model. Filled from PlModel's
 * getters (config.json), never assumed. */
typedef struct
{
  PlFamily      family;
  guint         hidden_size;
  guint         n_layers;
  guint         n_heads;
  guint         ffn_size;
  guint         vocab_size;
  guint         n_positions;     /* longest input */
  guint         first_position;  /* table row of position 0: RoBERTa pad + 1 */
  double        layer_norm_eps;
  PlActivation  activation;
  gboolean      pre_ln;          /* GPT-2, OPT: LN before each block, a final LN at the end */
  gboolean      causal;
  int           bos_id;          /* start id wrapped around BERT-style inputs (OPT: put
                                  * before its inputs, with no end id), or -1 */
  int           eos_id;          /* end id, or -1 */
  int           pad_id;          /* or -1 */
  /* Width of the token, position and type embeddings; 0: the token
   * embedding's. When it differs from hidden_size (ELECTRA-small), the
   * embedding projection (PL_WEIGHT_EMBED_PROJECT_*) maps it up. */
  guint         embedding_size;
  /* ALBERT: one layer's weights applied n_layers times, and the embeddings
   * always mapped to the hidden size by the projection, even when the two
   * widths agree. */
  gboolean      shared_layers;
  /* Rotary-position decoders (Llama, Mistral, Qwen2, Gemma, Phi-3,
   * GPT-NeoX): no position table; n_positions is max_position_embeddings,
   * which inputs may exceed as in Hugging Face. The transformer keeps its own
   * copy of decoder.layer_windows. */
  gboolean      rotary;
  PlRotaryDecoderSpec decoder;
} PlTransformerConfig;

/* Returns the weight by role, linear weights [in, out], biases 1 × n. Used to
 * build a transformer from anything, not only a PlModel (tests, benchmarks). */
typedef PlMatrix *(*PlWeightFunc)   (PlWeight   weight,
                                     int        layer,
                                     gpointer   user_data,
                                     GError   **error);

/* Returns a rotary decoder's weight by role in the precision it is stored:
 * linear weights [out, in] as nn.Linear keeps them, vectors 1 × n. */
typedef PlStoredMatrix *(*PlStoredWeightFunc) (PlWeight   weight,
                                               int        layer,
                                               gpointer   user_data,
                                               GError   **error);

/* Called on the worker thread with the fraction done, after each layer. The
 * callback may cancel the run's GCancellable. */
typedef void      (*PlProgressFunc) (double    fraction,
                                     gpointer  user_data);

/* Called on the worker thread for k = 0 … n_layers: HIDDEN is Hugging Face's
 * hidden_states[k] ([T, hidden]; k = 0 is the embedding output, projected to
 * the hidden size when the model has an embedding projection; GPT-2's and
 * OPT's last one is after their final LayerNorm) and ATTENTION is attentions[k − 1] as [heads × T, T]
 * (row h·T + i: head h, query i), or NULL for k = 0 and when not asked for.
 * Both are fresh matrices: ref them to keep them. Return FALSE to stop early
 * (not an error). */
typedef gboolean  (*PlLayerFunc)    (guint      k,
                                     PlMatrix  *attention,
                                     PlMatrix  *hidden,
                                     gpointer   user_data);

typedef enum
{
  PL_FORWARD_NONE          = 0,
  PL_FORWARD_ATTENTIONS    = 1 << 0,
  PL_FORWARD_HIDDEN_STATES = 1 << 1,
} PlForwardFlags;

/* What pl_transformer_forward keeps, like output_attentions and
 * output_hidden_states. */
typedef struct
{
  guint      n_tokens;
  guint      n_layers;
  guint      n_heads;
  PlMatrix **attentions;     /* n_layers × [heads × T, T], or NULL */
  PlMatrix **hidden_states;  /* (n_layers + 1) × [T, hidden], or NULL */
} PlForwardResult;

void pl_forward_result_free (PlForwardResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlForwardResult, pl_forward_result_free)

#define PL_TYPE_TRANSFORMER (pl_transformer_get_type ())

G_DECLARE_FINAL_TYPE (PlTransformer, pl_transformer, PL, TRANSFORMER, GObject)

/* Reads every weight the forward pass needs (float32, once; ALBERT's shared
 * layer once for all its layers). Fails with PL_ERROR_UNSUPPORTED for
 * families without a forward pass (tables, analytic encodings) and for
 * ALBERT and OPT variants it does not cover (config.json says which), and
 * with G_IO_ERROR_CANCELLED soon after CANCELLABLE is (looked at per weight
 * and per panel of packed tiles). */
PlTransformer             *pl_transformer_new         (PlModel              *model,
                                                       GCancellable         *cancellable,
                                                       GError              **error);
PlTransformer             *pl_transformer_new_full    (const PlTransformerConfig *config,
                                                       PlWeightFunc          weights,
                                                       gpointer              user_data,
                                                       GCancellable         *cancellable,
                                                       GError              **error);
/* A rotary-position decoder (CONFIG->rotary) from weights in their stored
 * precision: BF16 and F16 weights stay so in memory and are used a layer at
 * a time. */
PlTransformer             *pl_transformer_new_decoder (const PlTransformerConfig *config,
                                                       PlStoredWeightFunc    weights,
                                                       gpointer              user_data,
                                                       GCancellable         *cancellable,
                                                       GError              **error);
const PlTransformerConfig *pl_transformer_get_config  (PlTransformer        *self);
/* The longest input the model takes: n_positions for a position table,
 * more for rotary models (bounded by memory). */
guint                      pl_transformer_get_max_tokens (PlTransformer     *self);
/* The position rows the model adds for a T-token input, as stored:
 * [T, embedding_size] (the hidden size unless projected). */
PlMatrix                  *pl_transformer_get_positions (PlTransformer      *self,
                                                       guint                 n_tokens,
                                                       GError              **error);
/* Embedding rows other than positions that every input carries: token type 0
 * for BERT-style models, or NULL. 1 × embedding_size. */
PlMatrix                  *pl_transformer_get_token_type (PlTransformer     *self);
/* The LayerNorm applied before layer 0's attention, in place on X
 * ([T, embedding_size]): GPT-2's ln_1 and OPT's self_attn_layer_norm of
 * layer 0, BERT-style families (ALBERT too) the embedding LayerNorm. */
void                       pl_transformer_first_norm  (PlTransformer        *self,
                                                       PlMatrix             *x);
/* X [T, embedding_size] through the embedding projection (with its bias)
 * to [T, hidden]: a new matrix, or X itself (a new reference) when the model
 * has no projection. */
PlMatrix                  *pl_transformer_project_embeddings (PlTransformer *self,
                                                       const PlMatrix       *x);
/* Layer 0's query and key projections (with biases) of X, [T, hidden] each. */
void                       pl_transformer_first_qk    (PlTransformer        *self,
                                                       const PlMatrix       *x,
                                                       PlMatrix             *q,
                                                       PlMatrix             *k);

/* Inputs. Each returns a GArray of int holding exactly the tokens the model
 * sees. BERT-style models (not causal, with start/end ids) get the start id
 * first and the end id last, inside LENGTH; OPT gets its bos id (</s>) first,
 * as its tokenizer does, and nothing last, and so do causal models whose
 * tokenizer puts one id before a text (Llama's bos). */
GArray                    *pl_transformer_random_ids  (PlTransformer        *self,
                                                       guint                 length,
                                                       guint64               seed);
/* N_SEQUENCES random inputs of LENGTH tokens, input s drawn with SEED + s:
 * GArrays of int, freed with the array. */
GPtrArray                 *pl_transformer_random_sequences (PlTransformer   *self,
                                                       guint                 n_sequences,
                                                       guint                 length,
                                                       guint64               seed);
/* A random segment of PERIOD ids repeated to fill LENGTH. */
GArray                    *pl_transformer_repeated_ids (PlTransformer       *self,
                                                       guint                 length,
                                                       guint                 period,
                                                       guint64               seed);
/* IDS with the model's start and end ids around them (as given for GPT-2). */
GArray                    *pl_transformer_wrap_ids    (PlTransformer        *self,
                                                       const int            *ids,
                                                       gsize                 n_ids);
/* What the model's tokenizer says: the ids it puts around a text (START_ID
 * and END_ID, −1 for none) and its special tokens, which random inputs avoid.
 * Without this, BERT-style inputs are wrapped in the configuration's bos/eos
 * ids and random ids avoid those, pad and any ids below them. */
void                       pl_transformer_set_special_ids (PlTransformer    *self,
                                                       int                   start_id,
                                                       int                   end_id,
                                                       const int            *special_ids,
                                                       gsize                 n_special_ids);
/* Whether ID may appear in a random input (not a special token). */
gboolean                   pl_transformer_is_regular_id (PlTransformer      *self,
                                                       int                   id);

/* The forward pass over IDS, as given. Memory: one layer's activations plus
 * what LAYER_FUNC keeps. Fails with G_IO_ERROR_CANCELLED when cancelled
 * (checked before each layer and each head). The weights are read-only once
 * built, so several threads may run one transformer at once. */
gboolean                   pl_transformer_run         (PlTransformer        *self,
                                                       const int            *ids,
                                                       gsize                 n_ids,
                                                       gboolean              want_attentions,
                                                       PlLayerFunc           layer_func,
                                                       gpointer              layer_data,
                                                       GCancellable         *cancellable,
                                                       PlProgressFunc        progress,
                                                       gpointer              progress_data,
                                                       GError              **error);
PlForwardResult           *pl_transformer_forward     (PlTransformer        *self,
                                                       const int            *ids,
                                                       gsize                 n_ids,
                                                       PlForwardFlags        flags,
                                                       GCancellable         *cancellable,
                                                       PlProgressFunc        progress,
                                                       gpointer              progress_data,
                                                       GError              **error);

G_END_DECLS
