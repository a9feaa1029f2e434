/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "pl-figure.h"

G_BEGIN_DECLS

#define PL_TYPE_FIGURE_VIEW (pl_figure_view_get_type ())

G_DECLARE_FINAL_TYPE (PlFigureView, pl_figure_view, PL, FIGURE_VIEW, GtkWidget)

GtkWidget *pl_figure_view_new         (void);
PlFigure  *pl_figure_view_get_figure  (PlFigureView *self);
/* GRID_COLUMNS × GRID_ROWS cells can be zoomed and panned (0 × 0: a figure without a grid). */
void       pl_figure_view_set_figure  (PlFigureView *self,
                                       PlFigure     *figure,
                                       guint         grid_columns,
                                       guint         grid_rows);
/* Small multiples whose panel I has COLUMNS[I] × ROWS[I] cells: zoom and
 * pan move one window of cells over the largest, which each panel shows
 * inside its own cells; hover and selection read the panel's own cells. */
void       pl_figure_view_set_multiples (PlFigureView *self,
                                       PlFigure     *figure,
                                       const guint  *columns,
                                       const guint  *rows);
void       pl_figure_view_reset_zoom  (PlFigureView *self);
/* Draws the figure again after it was changed in place (colours, dark mode). */
void       pl_figure_view_invalidate  (PlFigureView *self);
/* Cells [START, END) drawn as selected (END == START: none). */
void       pl_figure_view_set_highlight (PlFigureView *self,
                                       guint         start,
                                       guint         end);
void       pl_figure_view_get_highlight (PlFigureView *self,
                                       guint        *start,
                                       guint        *end);
/* The cell numbered 0 is position OFFSET in the selection's label. */
void       pl_figure_view_set_label_offset (PlFigureView *self,
                                       guint         offset);
/* What ::describe says of the place under (X, Y) in widget coordinates, as
 * the tooltip shows it; NULL for nothing there. */
char      *pl_figure_view_describe_at (PlFigureView *self,
                                       double        x,
                                       double        y);
/* Emits ::activate for the place under (X, Y), as a click does; FALSE when
 * nothing is there. */
gboolean   pl_figure_view_activate_at (PlFigureView *self,
                                       double        x,
                                       double        y);
/* What a Shift-drag from (START_X, START_Y) to (X, Y) selects: the rows
 * between, of the panel where it began; emits ::select. FALSE when it began
 * on no cell. */
gboolean   pl_figure_view_select_drag (PlFigureView *self,
                                       double        start_x,
                                       double        start_y,
                                       double        x,
                                       double        y);
void       pl_figure_view_zoom        (PlFigureView *self,
                                       double        factor,
                                       double        x,
                                       double        y);

G_END_DECLS
