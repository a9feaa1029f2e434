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

/* GPT-2's byte ↔ character map, which byte-level BPE and Poslens' byte
 * tokenizer spell their tokens in: printable Latin-1 bytes stand for
 * themselves, the other 68 for U+0100 onwards in byte order. */
static gboolean
byte_is_printable (guint b)
{
  return (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}

static int
byte_of_char (gunichar c)
{
  guint n = 0;

  if (c < 256)
    return byte_is_printable (c) ? (int) c : -1;
  for (guint b = 0; b < 256; b++)
    if (!byte_is_printable (b) && n++ == c - 256)
      return (int) b;
  return -1;
}

/* A byte-level token that is only part of a character (“é” split into two
 * tokens): its bytes, the whole characters as text and the rest as \xHH,
 * where decoding it alone would give only replacement characters. */
static char *
partial_label (const char *token)
{
  g_autoptr(GString) bytes = g_string_new (NULL);
  GString *out = g_string_new (NULL);
  const char *p, *end;

  for (p = token; *p != '\0'; p = g_utf8_next_char (p))
    {
      int b = byte_of_char (g_utf8_get_char (p));

      if (b >= 0)
        g_string_append_c (bytes, (char) b);
      else
        g_string_append_len (bytes, p, g_utf8_next_char (p) - p);
    }
  p = bytes->str;
  end = bytes->str + bytes->len;
  while (p < end)
    {
      const char *valid_end;

      g_utf8_validate (p, end - p, &valid_end);
      g_string_append_len (out, p, valid_end - p);
      p = valid_end;
      if (p < end)
        {
          g_string_append_printf (out, "\\x%02X", (guint) (guchar) *p);
          p++;
        }
    }
  return g_string_free (out, FALSE);
}

char **
pl_text_token_labels (PlTokenizer *tokenizer,
                      const int   *ids,
                      gsize        n_ids)
{
  gboolean byte_level;
  char **labels;

  g_return_val_if_fail (PL_IS_TOKENIZER (tokenizer), NULL);

  byte_level = pl_tokenizer_get_kind (tokenizer) != PL_TOKENIZER_WORDPIECE;
  labels = g_new0 (char *, n_ids + 1);
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *token = pl_tokenizer_id_to_token (tokenizer, ids[i]);

      if (token != NULL && pl_tokenizer_is_special (tokenizer, ids[i]))
        labels[i] = g_strdup (token);
      else
        {
          labels[i] = pl_tokenizer_decode (tokenizer, &ids[i], 1, FALSE);
          if (byte_level && token != NULL && labels[i] != NULL && strstr (labels[i], "\xef\xbf\xbd") != NULL)
            {
              g_free (labels[i]);
              labels[i] = partial_label (token);
            }
        }
      if (labels[i] == NULL)
        labels[i] = g_strdup_printf ("#%d", ids[i]);
    }
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
