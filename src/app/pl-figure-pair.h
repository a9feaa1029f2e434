/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PL_TYPE_FIGURE_PAIR (pl_figure_pair_get_type ())

G_DECLARE_FINAL_TYPE (PlFigurePair, pl_figure_pair, PL, FIGURE_PAIR, GtkWidget)

/* Two figures (its children, from a .ui file) sharing its room equally,
 * side by side, or one above the other where that gives each a larger
 * square (a narrow window); one visible child takes all the room. */
GtkWidget *pl_figure_pair_new (void);

G_END_DECLS
