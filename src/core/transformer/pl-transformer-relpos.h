/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-attention-heads.h"
#include "pl-model.h"
#include "pl-stored-matrix.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* The forward passes of the families whose position is a bias or a
 * relative table (T5 and UMT5 in pl-transformer-t5.c, BLOOM and MPT in
 * pl-transformer-alibi.c, DeBERTa-v2/v3 in pl-transformer-deberta.c): each
 * a PlRelposNet that PlTransformer runs in place of its own layers. Weights
 * stay in the precision the file stores them (PlStoredMatrix, nn.Linear's
 * [out, in]); norms, biases and position tables are float32. */
typedef struct _PlRelposNet PlRelposNet;

struct _PlRelposNet
{
  /* pl_transformer_run for this family: hidden_states and attentions as
   * Hugging Face's model gives them with output_hidden_states and
   * output_attentions (eager). */
  gboolean (*run)  (PlTransformer   *transformer,
                    PlRelposNet     *net,
                    const int       *ids,
                    gsize            n_ids,
                    gboolean         want_attentions,
                    PlLayerFunc      layer_func,
                    gpointer         layer_data,
                    GCancellable    *cancellable,
                    PlProgressFunc   progress,
                    gpointer         progress_data,
                    GError         **error);
  void     (*free) (PlRelposNet     *net);
};

void            pl_relpos_net_free   (PlRelposNet    *net);

/* pl-transformer-relpos.c: MODEL's transformer when it is of these
 * families; CONFIG is filled for pl_transformer_get_config. */
PlTransformer  *pl_transformer_new_relpos (PlModel       *model,
                                           GCancellable  *cancellable,
                                           GError       **error);

/* Weights by name (after the chosen stack's prefix, or the model's own when
 * SHARED), checked to be ROWS × COLS (0: any) and finite, prepared for
 * pl_stored_gemm; an error naming the file and tensor otherwise. */
PlStoredMatrix *pl_relpos_load       (PlModel        *model,
                                      const char     *name,
                                      gboolean        shared,
                                      gsize           rows,
                                      gsize           cols,
                                      GCancellable   *cancellable,
                                      GError        **error);
/* A vector of N floats (or a table, ROWS × COLS) read as float32; NULL
 * without an error when OPTIONAL and absent. */
PlMatrix       *pl_relpos_load_float (PlModel        *model,
                                      const char     *name,
                                      gboolean        shared,
                                      gsize           rows,
                                      gsize           cols,
                                      gboolean        optional,
                                      GError        **error);
/* ROWS of a stored embedding [vocab, width] as float32, one per id. */
PlMatrix       *pl_relpos_embed      (const PlStoredMatrix *embedding,
                                      const int      *ids,
                                      gsize           n,
                                      GError        **error);
/* One attention over QKV [T, 3 · heads · head_dim], every head's
 * probabilities into PROBS (may be NULL), contexts into CTX [T, heads ·
 * head_dim]; BIAS (may be NULL) adds to the scores. */
gboolean        pl_relpos_attend     (const PlMatrix *qkv,
                                      guint           n_heads,
                                      guint           head_dim,
                                      float           scale,
                                      gboolean        causal,
                                      PlAttentionBiasFunc bias,
                                      gconstpointer   bias_data,
                                      PlMatrix       *probs,
                                      PlMatrix       *ctx,
                                      GCancellable   *cancellable,
                                      GError        **error);
/* An offset bias [heads, 2T − 1] (column (j − i) + T − 1) added to scores:
 * a PlAttentionBiasFunc whose data is the PlMatrix. */
void            pl_relpos_offset_bias (const PlAttentionHeads *job,
                                       gsize           head,
                                       gsize           i0,
                                       gsize           n_rows,
                                       gsize           j0,
                                       gsize           n_keys,
                                       float          *scores,
                                       gsize           ld);

/* The families' constructors: the net, and CONFIG's sizes set. */
PlRelposNet    *pl_relpos_alibi_new  (PlModel             *model,
                                      PlTransformerConfig *config,
                                      GCancellable        *cancellable,
                                      GError             **error);
PlRelposNet    *pl_relpos_deberta_new (PlModel            *model,
                                      PlTransformerConfig *config,
                                      GCancellable        *cancellable,
                                      GError             **error);
PlRelposNet    *pl_relpos_t5_new     (PlModel             *model,
                                      PlTransformerConfig *config,
                                      GCancellable        *cancellable,
                                      GError             **error);

G_END_DECLS
