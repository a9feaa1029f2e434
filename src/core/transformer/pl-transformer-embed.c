/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <string.h>

#include "pl-error.h"
#include "pl-transformer.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"

/* What layer 0 is fed: token + position (+ token type 0) embeddings, their
 * LayerNorm and, for ELECTRA-small, the projection to the hidden size; and
 * the pieces of it the position-only analysis uses. */

PlMatrix *
pl_transformer_get_token_type (PlTransformer *self)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);
  return self->token_type;
}

gboolean
pl_transformer_check_length (PlTransformer  *self,
                             gsize           n_tokens,
                             GError        **error)
{
  guint max = pl_transformer_get_max_tokens (self);

  if (n_tokens == 0 || n_tokens > max)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "an input of %" G_GSIZE_FORMAT " tokens: the model takes 1 to %u",
                   n_tokens, max);
      return FALSE;
    }
  return TRUE;
}

PlMatrix *
pl_transformer_get_positions (PlTransformer  *self,
                              guint           n_tokens,
                              GError        **error)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);

  if (self->position_embedding == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   self->config.rotary ? "the model has no position table: its positions enter attention as rotations (RoPE)"
                   : "the model has no position table: its positions enter attention as a bias on the scores "
                     "or through a table of relative positions");
      return NULL;
    }
  if (!pl_transformer_check_length (self, n_tokens, error))
    return NULL;
  return pl_matrix_slice_rows (self->position_embedding, self->config.first_position, n_tokens);
}

void
pl_transformer_first_norm (PlTransformer *self,
                           PlMatrix      *x)
{
  g_return_if_fail (PL_IS_TRANSFORMER (self));
  g_return_if_fail (x->cols == self->config.embedding_size);

  if (self->config.pre_ln)
    pl_kernel_layer_norm (x->data, x->data, x->rows, x->cols,
                          self->layers[0]->ln1_w->data, self->layers[0]->ln1_b->data,
                          self->config.layer_norm_eps);
  else
    pl_kernel_layer_norm (x->data, x->data, x->rows, x->cols,
                          self->embed_ln_w->data, self->embed_ln_b->data,
                          self->config.layer_norm_eps);
}

/* OUT [T, hidden] = X [T, embedding] · W + b */
static void
project (PlTransformer  *self,
         const PlMatrix *x,
         PlMatrix       *out)
{
  gsize e = self->config.embedding_size, h = self->config.hidden_size;

  for (gsize r = 0; r < x->rows; r++)
    memcpy (pl_matrix_row (out, r), self->embed_project_b->data, h * sizeof (float));
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, x->rows, h, e,
               1.0f, x->data, e, self->embed_project_w->data, h, 1.0f, out->data, h);
}

PlMatrix *
pl_transformer_project_embeddings (PlTransformer  *self,
                                   const PlMatrix *x)
{
  PlMatrix *out;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);
  g_return_val_if_fail (x->cols == self->config.embedding_size, NULL);

  if (self->embed_project_w == NULL)
    return pl_matrix_ref ((PlMatrix *) x);
  out = pl_matrix_new (x->rows, self->config.hidden_size);
  project (self, x, out);
  return out;
}

void
pl_transformer_first_qk (PlTransformer  *self,
                         const PlMatrix *x,
                         PlMatrix       *q,
                         PlMatrix       *k)
{
  gsize h = self->config.hidden_size;
  const PlTransformerLayer *w;

  g_return_if_fail (PL_IS_TRANSFORMER (self));
  g_return_if_fail (x->cols == h && q->rows == x->rows && k->rows == x->rows);
  g_return_if_fail (q->cols == h && k->cols == h);

  w = self->layers[0];
  for (gsize r = 0; r < x->rows; r++)
    {
      memcpy (pl_matrix_row (q, r), w->qkv_b->data, h * sizeof (float));
      memcpy (pl_matrix_row (k, r), w->qkv_b->data + h, h * sizeof (float));
    }
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, x->rows, h, h,
               1.0f, x->data, h, w->qkv_w->data, 3 * h, 1.0f, q->data, h);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, x->rows, h, h,
               1.0f, x->data, h, w->qkv_w->data + h, 3 * h, 1.0f, k->data, h);
}

static gboolean
roberta_positions (const PlTransformerConfig *c)
{
  return (c->family == PL_FAMILY_ROBERTA || c->family == PL_FAMILY_XLM_ROBERTA) &&
         c->pad_id >= 0 && c->first_position > 0;
}

/* Token + position (+ token type 0), then the embedding LayerNorm for
 * post-LN families, all as wide as the embeddings; then the projection to
 * the hidden size when there is one (HF's ElectraModel applies
 * embeddings_project to the embeddings' output, so hidden_states[0] is the
 * projected state). RoBERTa numbers non-padding tokens from pad + 1 and
 * gives padding the padding row, as Hugging Face does. */
PlMatrix *
pl_transformer_embed (PlTransformer  *self,
                      const int      *ids,
                      gsize           n,
                      GError        **error)
{
  const PlTransformerConfig *c = &self->config;
  gsize e = c->embedding_size;
  g_autoptr(PlMatrix) x = pl_matrix_try_new (n, e, error);
  g_autoptr(PlMatrix) projected = NULL;
  gsize counted = 0;

  if (x == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      const float *tok = pl_matrix_row (self->token_embedding, ids[i]);
      const float *pos;
      float *o = pl_matrix_row (x, i);

      if (roberta_positions (c) && ids[i] == c->pad_id)
        pos = pl_matrix_row (self->position_embedding, c->first_position - 1);
      else
        pos = pl_matrix_row (self->position_embedding, c->first_position + counted++);
      for (gsize j = 0; j < e; j++)
        o[j] = tok[j] + pos[j];
      if (self->token_type != NULL)
        for (gsize j = 0; j < e; j++)
          o[j] += self->token_type->data[j];
    }
  if (!c->pre_ln)
    pl_kernel_layer_norm (x->data, x->data, n, e, self->embed_ln_w->data, self->embed_ln_b->data,
                          c->layer_norm_eps);
  if (self->embed_project_w == NULL)
    return g_steal_pointer (&x);
  if (!(projected = pl_matrix_try_new (n, c->hidden_size, error)))
    return NULL;
  project (self, x, projected);
  return g_steal_pointer (&projected);
}
