/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-text-attention.h"

/* A typed sentence through the tokenizer and the forward pass, kept with
 * labels for its tokens so that figures can name them. */

G_DEFINE_BOXED_TYPE (PlTextAttention, pl_text_attention, pl_text_attention_ref, pl_text_attention_unref)

PlTextAttention *
pl_text_attention_ref (PlTextAttention *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_text_attention_unref (PlTextAttention *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  for (guint l = 0; self->attentions != NULL && l < self->n_layers; l++)
    g_clear_pointer (&self->attentions[l], pl_matrix_unref);
  g_free (self->attentions);
  g_clear_pointer (&self->ids, g_array_unref);
  g_strfreev (self->labels);
  g_free (self->text);
  g_free (self);
}

char **
pl_text_token_labels (PlTokenizer *tokenizer,
                      const int   *ids,
                      gsize        n_ids)
{
  char **labels;

  g_return_val_if_fail (PL_IS_TOKENIZER (tokenizer), NULL);

  labels = g_new0 (char *, n_ids + 1);
  for (gsize i = 0; i < n_ids; i++)
    labels[i] = pl_tokenizer_get_label (tokenizer, ids[i]);
  return labels;
}

PlTextAttention *
pl_text_attention_compute (PlTransformer   *transformer,
                           PlTokenizer     *tokenizer,
                           const char      *text,
                           GCancellable    *cancellable,
                           PlProgressFunc   progress,
                           gpointer         progress_data,
                           GError         **error)
{
  guint max;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(PlForwardResult) forward = NULL;
  PlTextAttention *self;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);
  g_return_val_if_fail (PL_IS_TOKENIZER (tokenizer), NULL);
  g_return_val_if_fail (text != NULL, NULL);

  if (!pl_tokenizer_encode (tokenizer, text, &ids, NULL, error))
    return NULL;
  if (ids->len == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "The text gives no token to run the model on");
      return NULL;
    }
  max = pl_transformer_get_max_tokens (transformer);
  if (ids->len > max)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "The text is %u tokens long, but the model reads at most %u; shorten it by %u tokens",
                   ids->len, max, ids->len - max);
      return NULL;
    }

  forward = pl_transformer_forward (transformer, (const int *) (gpointer) ids->data, ids->len, PL_FORWARD_ATTENTIONS,
                                    cancellable, progress, progress_data, error);
  if (forward == NULL)
    return NULL;

  self = g_new0 (PlTextAttention, 1);
  self->ref_count = 1;
  self->text = g_strdup (text);
  self->labels = pl_text_token_labels (tokenizer, (const int *) (gpointer) ids->data, ids->len);
  self->ids = g_steal_pointer (&ids);
  self->n_tokens = forward->n_tokens;
  self->n_layers = forward->n_layers;
  self->n_heads = forward->n_heads;
  self->attentions = g_new0 (PlMatrix *, self->n_layers);
  for (guint l = 0; l < self->n_layers; l++)
    self->attentions[l] = pl_matrix_ref (forward->attentions[l]);
  return self;
}

PlMatrix *
pl_text_attention_get_map (PlTextAttention *self,
                           guint            layer,
                           guint            head)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (layer < self->n_layers && head < self->n_heads, NULL);

  return pl_matrix_slice_rows (self->attentions[layer], (gsize) head * self->n_tokens, self->n_tokens);
}
