/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-figure.h"

G_BEGIN_DECLS

/* The window of cells a PlFigureView shows of a heatmap, and where its
 * cells lie under the pointer: zoom, pan and the panels of small multiples,
 * as arithmetic on the figure's last render. No GTK here, so the tests run
 * it without a display. */
typedef struct
{
  /* The cells zoom and pan move over: the largest panel's. */
  guint   columns;
  guint   rows;
  /* Each panel's cells as (columns, rows) pairs on small multiples, whose
   * panels show the common window moved inside their own cells; empty for
   * a figure that is one grid. */
  GArray *panel_cells;
  /* The window shown, in cells: [x0, x1) × [y0, y1). */
  double  x0, y0, x1, y1;
} PlFigureViewport;

/* The narrowest window zooming in reaches, in cells. */
#define PL_FIGURE_VIEWPORT_MIN_CELLS 4.0

void     pl_figure_viewport_init         (PlFigureViewport *self);
void     pl_figure_viewport_clear        (PlFigureViewport *self);
/* N_PANELS panels of CELLS[2i] × CELLS[2i + 1] cells (PER_PANEL FALSE:
 * one grid for the whole figure, the largest of them). The window stays
 * when the cells are the ones set before, else it shows every cell. */
void     pl_figure_viewport_set_cells    (PlFigureViewport *self,
                                          const guint      *cells,
                                          guint             n_panels,
                                          gboolean          per_panel);
/* The window over every cell. */
void     pl_figure_viewport_reset        (PlFigureViewport *self);
/* The window PANEL shows (-1: the figure's own): the common window moved
 * inside the panel's cells, as wide as fits. */
void     pl_figure_viewport_get_panel_window (const PlFigureViewport *self,
                                          int               panel,
                                          double           *x0,
                                          double           *y0,
                                          double           *x1,
                                          double           *y1);
/* The number of rows of PANEL (-1: the figure's). */
guint    pl_figure_viewport_get_panel_rows (const PlFigureViewport *self,
                                          int               panel);
/* Zooms in by FACTOR (< 1 zooms out) around the cell point (CX, CY), which
 * stays where it is unless the window meets the grid's edge or its
 * narrowest. */
void     pl_figure_viewport_zoom         (PlFigureViewport *self,
                                          double            factor,
                                          double            cx,
                                          double            cy);
/* The window that began at (START_X0, START_Y0) dragged by (DX, DY) pixels
 * over a plot AREA: the cells follow the pointer, inside the grid. */
void     pl_figure_viewport_drag         (PlFigureViewport        *self,
                                          double                   start_x0,
                                          double                   start_y0,
                                          double                   dx,
                                          double                   dy,
                                          const cairo_rectangle_t *area);
/* The cell coordinate of the point (X, Y) in the plot AREA of PANEL,
 * unclamped. */
void     pl_figure_viewport_point_to_cell (const PlFigureViewport *self,
                                          int                      panel,
                                          const cairo_rectangle_t *area,
                                          double                   x,
                                          double                   y,
                                          double                  *cx,
                                          double                  *cy);
/* Shows the window on FIGURE and on each of its panels. */
void     pl_figure_viewport_apply        (const PlFigureViewport *self,
                                          PlFigure               *figure);

/* Where the cells of FIGURE lie for a point of its last render: its plot
 * (returns -1), or on small multiples (which zoom as one) the plot of the
 * panel under the point, or of the first panel when the point is in none
 * (returns the panel). */
int      pl_figure_viewport_plot_area_at (PlFigure          *figure,
                                          double             x,
                                          double             y,
                                          cairo_rectangle_t *area);
/* The plot area of heatmap I of FIGURE (its panels on small multiples,
 * itself otherwise), empty for a panel of another kind; FALSE past the
 * last. */
gboolean pl_figure_viewport_heatmap_area (PlFigure          *figure,
                                          guint              i,
                                          cairo_rectangle_t *area);

G_END_DECLS
