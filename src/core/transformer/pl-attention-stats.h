/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-model.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* How attention depends on position, for every layer and head, averaged over
 * the queries of several inputs of one length. Immutable once computed. */
typedef struct
{
  guint     n_layers;
  guint     n_heads;
  guint     n_tokens;        /* T */
  guint     n_sequences;
  /* [layers × heads, 2T − 1]; row l·heads + h, column (j − i) + T − 1: the
   * attention mass query i puts on key j = i + offset, averaged over queries
   * and inputs. Each row sums to 1. */
  PlMatrix *offset_profile;
  /* [layers, heads]: Σ_j A_ij |j − i|, averaged over queries and inputs. */
  PlMatrix *mean_distance;
  /* [layers, heads]: A_i0, the mass on the first token, likewise averaged. */
  PlMatrix *first_token;
  /*< private >*/
  gint      ref_count;
} PlAttentionStats;

#define PL_TYPE_ATTENTION_STATS (pl_attention_stats_get_type ())

GType             pl_attention_stats_get_type    (void) G_GNUC_CONST;
PlAttentionStats *pl_attention_stats_ref         (PlAttentionStats *self);
void              pl_attention_stats_unref       (PlAttentionStats *self);

/* Over N_SEQUENCES random inputs of LENGTH tokens (see
 * pl_transformer_random_ids), input s drawn with seed SEED + s. LENGTH 0
 * means the model's n_positions. */
PlAttentionStats *pl_attention_stats_compute     (PlTransformer    *transformer,
                                                  guint             n_sequences,
                                                  guint             length,
                                                  guint64           seed,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);
/* Over given inputs: SEQUENCES holds GArrays of int, all of one length. */
PlAttentionStats *pl_attention_stats_compute_for_ids (PlTransformer *transformer,
                                                  GPtrArray        *sequences,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);
/* The same over only the first N_LAYERS layers (at least 1, at most the
 * model's), each pass stopped after them: stats->n_layers is N_LAYERS, and
 * its numbers are those of the whole computation's first layers. What a
 * view shows of a large model while the rest is computed. */
PlAttentionStats *pl_attention_stats_compute_first (PlTransformer  *transformer,
                                                  guint             n_layers,
                                                  guint             n_sequences,
                                                  guint             length,
                                                  guint64           seed,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);
/* What an activations file recorded, laid out as computed. */
PlAttentionStats *pl_attention_stats_new_from_file (PlActivationsFile *file,
                                                  GError          **error);
/* One profile as 1 × (2T − 1), offsets −(T − 1) … T − 1. */
PlMatrix         *pl_attention_stats_get_profile (PlAttentionStats *self,
                                                  guint             layer,
                                                  guint             head);

/* The first layer's position-only term, from the weights alone, per head:
 * softmax((LN(P) Wq + bq) · (LN(P) Wk + bk)ᵀ / √d_head) over the first
 * LENGTH positions (0: all), as [heads × T, T] (row h·T + i).
 * LN is what the model applies before layer 0's attention: GPT-2's ln_1 of
 * P; for BERT-style models the embedding LayerNorm of P plus the token type 0
 * embedding, because every input carries that row too and the LayerNorm sees
 * the sum. ELECTRA-small's embedding projection (with its bias) follows
 * that LayerNorm, as it does in the model: proj(LN(P + type 0)).
 * The biases are included because the model always adds them.
 * Causal models mask keys after the query, so rows sum to 1 over j ≤ i. */
PlMatrix         *pl_attention_position_only     (PlTransformer    *transformer,
                                                  guint             length,
                                                  GError          **error);

/* The positional component of every layer: for k = 0 … n_layers, the mean of
 * hidden_states[k] at each position over N_SEQUENCES random inputs of LENGTH
 * tokens (seed SEED + s; LENGTH 0: n_positions), each [T, hidden]. What is
 * left after averaging over the tokens is what the layer holds about position. */
GPtrArray        *pl_attention_positional_components (PlTransformer *transformer,
                                                  guint             max_layer,
                                                  guint             n_sequences,
                                                  guint             length,
                                                  guint64           seed,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);
/* The same over given inputs: SEQUENCES holds GArrays of int, all of one
 * length. */
GPtrArray        *pl_attention_positional_components_for_ids (PlTransformer *transformer,
                                                  guint             max_layer,
                                                  GPtrArray        *sequences,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);
/* The table for layer LAYER alone (0: the embedding output), [T, hidden],
 * for similarity, PCA and probes to take like any position table. Reads the
 * model's weights, runs only the layers needed; an activations file's is
 * read from it (over its own inputs: N_SEQUENCES, LENGTH and SEED unused). */
PlMatrix         *pl_attention_positional_component (PlModel        *model,
                                                  guint             layer,
                                                  guint             n_sequences,
                                                  guint             length,
                                                  guint64           seed,
                                                  GCancellable     *cancellable,
                                                  PlProgressFunc    progress,
                                                  gpointer          progress_data,
                                                  GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlAttentionStats, pl_attention_stats_unref)

G_END_DECLS
