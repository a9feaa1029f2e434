/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-page.h"
#include "pl-position-bias.h"

G_BEGIN_DECLS

/* What the table views (Similarity, Trajectory) show for a model whose
 * position is a bias on attention scores and which has no table: T5, UMT5,
 * BLOOM, MPT and builtin:alibi. At the table layer they draw the bias each
 * head adds by offset j − i, as Hugging Face computes it (a heatmap of heads
 * × offset over the curves of up to eight heads, T5's bucket edges dotted;
 * UMT5's first layer). The bias is asked through the page's runner and kept
 * on the page for the hover readout. */

/* For the ⓘ of the table views: a paragraph (markup) explaining the
 * scheme of MODEL's family for a lecture, with its own numbers (T5's
 * buckets, ALiBi's slopes, DeBERTa's two relative terms), or NULL for the
 * families the view's own text covers. */
char           *pl_bias_view_explain  (PlModel     *model);
/* LABEL shows that paragraph for the workspace's model, or is hidden. */
void            pl_bias_view_show_explanation (GtkLabel    *label,
                                               PlWorkspace *workspace);
/* Whether the workspace's model, at its layer, is shown as its bias. */
gboolean        pl_bias_view_applies  (PlWorkspace *workspace);
/* Asks for the bias of the workspace's model and shows it on PAGE's figure
 * view (or why it cannot be computed). */
void            pl_bias_view_show     (PlPage      *page);
/* Forgets the bias PAGE showed. */
void            pl_bias_view_clear    (PlPage      *page);
/* The bias PAGE shows, or NULL. */
PlPositionBias *pl_bias_view_get_bias (PlPage      *page);
/* The hover readout of the map's cell (PANEL 0: COLUMN the offset's index,
 * ROW the head) or of a curve (PANEL 1: ROW indexes the curves), or NULL
 * when PAGE shows no bias. */
char           *pl_bias_view_describe (PlPage      *page,
                                       int          panel,
                                       guint        column,
                                       guint        row);

G_END_DECLS
