/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure-view.h"
#include "pl-text-attention.h"
#include "pl-page.h"

G_BEGIN_DECLS

/* The Attention view's Text sub-view: the user types a sentence, the model's
 * tokenizer and forward pass run on a worker, and the attention map of the
 * workspace's layer and head is drawn with the tokens along both axes. */

#define PL_TYPE_ATTENTION_TEXT (pl_attention_text_get_type ())

G_DECLARE_FINAL_TYPE (PlAttentionText, pl_attention_text, PL, ATTENTION_TEXT, PlPage)

/* Follows MODEL of WORKSPACE: reads its tokenizer (kept in the workspace's
 * cache, one per model) and its forward pass; NULL for none. */
void             pl_attention_text_set_model    (PlAttentionText *self,
                                                 PlWorkspace     *workspace,
                                                 PlModel         *model);
/* Draws the map again for the workspace's layer, head and style. */
void             pl_attention_text_redraw       (PlAttentionText *self);
PlFigureView    *pl_attention_text_get_view     (PlAttentionText *self);
/* The readout for the cell at COLUMN (key) and ROW (query), or NULL. */
char            *pl_attention_text_describe     (PlAttentionText *self,
                                                 guint            column,
                                                 guint            row);
/* For export names: the 1-based layer and head shown. */
void             pl_attention_text_get_shown    (PlAttentionText *self,
                                                 guint           *layer,
                                                 guint           *head);
/* For tests and screenshots: the sentence's entry, what was computed, the
 * message shown, and whether work is pending (a worker running, typing not
 * yet run, or a model not yet read because the sub-view was not shown). */
GtkEditable     *pl_attention_text_get_entry    (PlAttentionText *self);
PlTextAttention *pl_attention_text_get_result   (PlAttentionText *self);

G_END_DECLS
