/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-model-relpos.h"
#include "pl-stored-gemm.h"
#include "pl-transformer-private.h"
#include "pl-transformer-relpos.h"

/* What the forward passes of T5, UMT5, BLOOM, MPT and DeBERTa share: their
 * weights read by name from the model and checked, the embedding lookup,
 * one attention over the executor's threads with a bias added to the scores,
 * and the transformer built around a family's net. */

void
pl_relpos_net_free (PlRelposNet *net)
{
  if (net != NULL)
    net->free (net);
}

static const char *
file_of (PlModel *model)
{
  return pl_checkpoint_get_path (pl_model_get_checkpoint (model));
}

PlStoredMatrix *
pl_relpos_load (PlModel       *model,
                const char    *name,
                gboolean       shared,
                gsize          rows,
                gsize          cols,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(PlStoredMatrix) w = NULL;
  const PlRelposSpec *spec = pl_model_get_relpos (model);

  g_return_val_if_fail (spec != NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (!(w = pl_model_read_named_stored (model, name, shared, FALSE, error)))
    return NULL;
  if ((rows != 0 && w->rows != rows) || (cols != 0 && w->cols != cols))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” is %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT ", but the configuration asks for %"
                   G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT, file_of (model), name, w->rows, w->cols,
                   rows ? rows : w->rows, cols ? cols : w->cols);
      return NULL;
    }
  if (!pl_stored_matrix_all_finite (w))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "%s: “%s” holds NaN or infinite values",
                   file_of (model), name);
      return NULL;
    }
  return pl_stored_gemm_prepare (w, cancellable, error);
}

PlMatrix *
pl_relpos_load_float (PlModel     *model,
                      const char  *name,
                      gboolean     shared,
                      gsize        rows,
                      gsize        cols,
                      gboolean     optional,
                      GError     **error)
{
  g_autoptr(PlMatrix) m = NULL;
  GError *local_error = NULL;

  if (!(m = pl_model_read_named (model, name, shared, optional, &local_error)))
    {
      if (local_error != NULL)
        g_propagate_error (error, local_error);
      return NULL;
    }
  /* vectors are 1 × n */
  if (rows == 1 && m->rows * m->cols == cols && m->rows != 1)
    {
      PlMatrix *v = pl_matrix_new_from (1, cols, m->data);

      pl_matrix_unref (m);
      m = v;
    }
  if ((rows != 0 && m->rows != rows) || (cols != 0 && m->cols != cols))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” is %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT ", but the configuration asks for %"
                   G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT, file_of (model), name, m->rows, m->cols,
                   rows ? rows : m->rows, cols ? cols : m->cols);
      return NULL;
    }
  if (!pl_matrix_all_finite (m))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "%s: “%s” holds NaN or infinite values",
                   file_of (model), name);
      return NULL;
    }
  return g_steal_pointer (&m);
}

PlMatrix *
pl_relpos_embed (const PlStoredMatrix  *embedding,
                 const int             *ids,
                 gsize                  n,
                 GError               **error)
{
  PlMatrix *x = pl_matrix_try_new (n, embedding->cols, error);

  if (x == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    pl_stored_matrix_to_float (embedding, ids[i], 1, pl_matrix_row (x, i));
  return x;
}

gboolean
pl_relpos_attend (const PlMatrix       *qkv,
                  guint                 n_heads,
                  guint                 head_dim,
                  float                 scale,
                  gboolean              causal,
                  PlAttentionBiasFunc   bias,
                  gconstpointer         bias_data,
                  PlMatrix             *probs,
                  PlMatrix             *ctx,
                  GCancellable         *cancellable,
                  GError              **error)
{
  PlAttentionHeads job = {
    .qkv = qkv->data,
    .stride = qkv->cols,
    .n_tokens = qkv->rows,
    .n_heads = n_heads,
    .n_kv_heads = n_heads,
    .head_dim = head_dim,
    .scale = scale,
    .probs = probs,
    .ctx = ctx->data,
    .bidirectional = !causal,
    .add_bias = bias,
    .bias_data = bias_data,
  };

  g_assert (qkv->cols == 3 * (gsize) n_heads * head_dim);
  return pl_attention_heads (&job, cancellable, error);
}

void
pl_relpos_offset_bias (const PlAttentionHeads *job,
                       gsize                     head,
                       gsize                     i0,
                       gsize                     n_rows,
                       gsize                     j0,
                       gsize                     n_keys,
                       float                    *scores,
                       gsize                     ld)
{
  const PlMatrix *bias = job->bias_data;
  gsize t = job->n_tokens;
  const float *row = pl_matrix_row (bias, head);

  for (gsize r = 0; r < n_rows; r++)
    {
      /* column (j − i) + T − 1 for key j = j0 + c of query i = i0 + r */
      const float *b = row + (j0 + t - 1 - (i0 + r));

      for (gsize c = 0; c < n_keys; c++)
        scores[r * ld + c] += b[c];
    }
}

PlTransformer *
pl_transformer_new_relpos (PlModel       *model,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(PlTransformer) self = g_object_new (PL_TYPE_TRANSFORMER, NULL);
  PlTransformerConfig *c = &self->config;

  c->family = pl_model_get_family (model);
  c->hidden_size = pl_model_get_hidden_size (model);
  c->embedding_size = pl_model_get_embedding_size (model);
  c->n_layers = pl_model_get_n_layers (model);
  c->n_heads = pl_model_get_n_heads (model);
  c->ffn_size = pl_model_get_ffn_size (model);
  c->vocab_size = pl_model_get_vocab_size (model);
  c->n_positions = pl_model_get_relpos (model)->max_input;
  c->layer_norm_eps = pl_model_get_layer_norm_eps (model);
  c->activation = pl_model_get_activation (model);
  c->pre_ln = pl_model_get_pre_ln (model);
  c->causal = pl_model_get_causal (model);
  c->bos_id = pl_model_get_bos_id (model);
  c->eos_id = pl_model_get_eos_id (model);
  c->pad_id = pl_model_get_pad_id (model);
  if (c->hidden_size == 0 || c->n_heads == 0 || c->n_layers == 0 || c->vocab_size == 0 || c->n_positions == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s: the model configuration lacks a size (hidden %u, heads %u, layers %u, vocabulary %u, "
                   "positions %u)", file_of (model), c->hidden_size, c->n_heads, c->n_layers, c->vocab_size,
                   c->n_positions);
      return NULL;
    }

  switch (c->family)
    {
    case PL_FAMILY_T5:
    case PL_FAMILY_UMT5:
      self->relpos = pl_relpos_t5_new (model, c, cancellable, error);
      break;
    case PL_FAMILY_BLOOM:
    case PL_FAMILY_MPT:
      self->relpos = pl_relpos_alibi_new (model, c, cancellable, error);
      /* HF's MptModel slices a bias of max_seq_len keys: no longer input runs */
      if (c->family == PL_FAMILY_MPT)
        self->max_tokens = c->n_positions;
      break;
    case PL_FAMILY_DEBERTA_V2:
      self->relpos = pl_relpos_deberta_new (model, c, cancellable, error);
      /* an absolute table bounds the input; relative positions alone do not */
      if (pl_model_get_relpos (model)->position_biased_input)
        self->max_tokens = c->n_positions;
      break;
    default:
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: Poslens runs no %s forward pass",
                   file_of (model), pl_model_get_family_display_name (model));
      return NULL;
    }
  if (self->relpos == NULL)
    return NULL;
  /* relative positions have no limit of their own: a bias of that many
   * offsets is (MPT's and an absolute table's are the model's) */
  if (self->max_tokens == 0)
    self->max_tokens = PL_POSITION_BIAS_MAX_LENGTH;
  return g_steal_pointer (&self);
}
