/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PL_TYPE_FIGURE_PAIR (pl_figure_pair_get_type ())

G_DECLARE_FINAL_TYPE (PlFigurePair, pl_figure_pair, PL, FIGURE_PAIR, GtkWidget)

/* Two figures (its children, from a .ui file) sharing its room equally,
 * side by side, or one above the other where that gives each a larger
 * square (a narrow window); one visible child takes all the room. With a
 * side width (pixels, 0 for none) the second is a side panel of that width
 * beside the first, or a strip under it where that leaves the first a
 * larger square. */
GtkWidget *pl_figure_pair_new            (void);
int        pl_figure_pair_get_side_width (PlFigurePair *self);
void       pl_figure_pair_set_side_width (PlFigurePair *self,
                                          int           side_width);
/* Whether the second figure lay under the first in the last allocation. */
gboolean   pl_figure_pair_get_stacked    (PlFigurePair *self);

G_END_DECLS
