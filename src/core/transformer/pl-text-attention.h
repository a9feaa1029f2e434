/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-tokenizer.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* The attention of one sentence: its tokens as the model sees them, a
 * readable label for each, and every layer's attention maps. Shared by the
 * window's Text view and `poslens-cli attention --text`. Immutable. */
typedef struct
{
  char      *text;
  GArray    *ids;          /* int, special tokens included */
  char     **labels;       /* one per token, NULL-terminated */
  guint      n_tokens;
  guint      n_layers;
  guint      n_heads;
  PlMatrix **attentions;   /* n_layers × [heads × T, T], row h·T + i: head h, query i */
  /*< private >*/
  gint       ref_count;
} PlTextAttention;

#define PL_TYPE_TEXT_ATTENTION (pl_text_attention_get_type ())

GType            pl_text_attention_get_type (void) G_GNUC_CONST;
PlTextAttention *pl_text_attention_ref      (PlTextAttention *self);
void             pl_text_attention_unref    (PlTextAttention *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlTextAttention, pl_text_attention_unref)

/* Readable text of each token (pl_tokenizer_get_label): what it stands for
 * in the text (byte-level "Ġworld" and SentencePiece "▁world" are " world",
 * "<0x0A>" a line break), special tokens by name ("[CLS]"). A token holding
 * part of a character shows those bytes as \xHH. */
char           **pl_text_token_labels       (PlTokenizer     *tokenizer,
                                             const int       *ids,
                                             gsize            n_ids);
/* Tokenises TEXT and runs the forward pass over it. Fails with
 * PL_ERROR_INVALID_ARGUMENT when the text gives no token or more tokens than
 * the model has positions (the message says how many of each), and with the
 * tokenizer's error for text it cannot read. */
PlTextAttention *pl_text_attention_compute  (PlTransformer   *transformer,
                                             PlTokenizer     *tokenizer,
                                             const char      *text,
                                             GCancellable    *cancellable,
                                             PlProgressFunc   progress,
                                             gpointer         progress_data,
                                             GError         **error);
/* The [T, T] map of one head of LAYER (0-based): row query i, column key j. */
PlMatrix        *pl_text_attention_get_map  (PlTextAttention *self,
                                             guint            layer,
                                             guint            head);

G_END_DECLS
