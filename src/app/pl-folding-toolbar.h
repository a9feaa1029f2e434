/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A row of controls that folds into a "View Options" menu at the start of
 * the row when the row is too narrow for them, the controls (and linked
 * groups of buttons) then one under another; it unfolds when there is room
 * again. Folding is decided after the allocation that finds it, never during
 * one; it looks again whenever a control is shown or hidden. */

#define PL_TYPE_FOLDING_TOOLBAR (pl_folding_toolbar_get_type ())

G_DECLARE_FINAL_TYPE (PlFoldingToolbar, pl_folding_toolbar, PL, FOLDING_TOOLBAR, GtkWidget)

GtkWidget *pl_folding_toolbar_new          (void);
void       pl_folding_toolbar_append       (PlFoldingToolbar *self,
                                            GtkWidget        *child);
/* TRUE while the controls, too wide for the row, are a menu. */
gboolean   pl_folding_toolbar_get_folded   (PlFoldingToolbar *self);
/* The box of controls, in its row or in the menu. */
GtkWidget *pl_folding_toolbar_get_controls (PlFoldingToolbar *self);

G_END_DECLS
