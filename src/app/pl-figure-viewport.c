/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-figure-viewport.h"

void
pl_figure_viewport_init (PlFigureViewport *self)
{
  memset (self, 0, sizeof *self);
  self->panel_cells = g_array_new (FALSE, FALSE, sizeof (guint));
}

void
pl_figure_viewport_clear (PlFigureViewport *self)
{
  g_clear_pointer (&self->panel_cells, g_array_unref);
}

void
pl_figure_viewport_set_cells (PlFigureViewport *self,
                              const guint      *cells,
                              guint             n_panels,
                              gboolean          per_panel)
{
  guint columns = 0, rows = 0, n_cells = per_panel ? 2 * n_panels : 0;
  gboolean same;

  for (guint i = 0; i < n_panels; i++)
    {
      columns = MAX (columns, cells[2 * i]);
      rows = MAX (rows, cells[2 * i + 1]);
    }
  same = columns == self->columns && rows == self->rows && n_cells == self->panel_cells->len &&
         (n_cells == 0 || memcmp (cells, self->panel_cells->data, n_cells * sizeof (guint)) == 0);

  g_array_set_size (self->panel_cells, 0);
  if (n_cells > 0)
    g_array_append_vals (self->panel_cells, cells, n_cells);
  self->columns = columns;
  self->rows = rows;
  /* Keep the zoom when only the values change (another metric, another layer). */
  if (!same || self->x1 <= self->x0)
    pl_figure_viewport_reset (self);
}

void
pl_figure_viewport_reset (PlFigureViewport *self)
{
  self->x0 = 0;
  self->y0 = 0;
  self->x1 = self->columns;
  self->y1 = self->rows;
}

/* The window [A, B) moved inside N cells, as wide as fits. */
static void
window_inside (double  a,
               double  b,
               guint   n,
               double *inside_a,
               double *inside_b)
{
  double w = MIN (b - a, (double) n);

  *inside_a = CLAMP (a, 0, n - w);
  *inside_b = *inside_a + w;
}

void
pl_figure_viewport_get_panel_window (const PlFigureViewport *self,
                                     int                     panel,
                                     double                 *x0,
                                     double                 *y0,
                                     double                 *x1,
                                     double                 *y1)
{
  guint columns = self->columns, rows = self->rows;

  if (panel >= 0 && (guint) panel < self->panel_cells->len / 2)
    {
      columns = g_array_index (self->panel_cells, guint, 2 * panel);
      rows = g_array_index (self->panel_cells, guint, 2 * panel + 1);
    }
  window_inside (self->x0, self->x1, columns, x0, x1);
  window_inside (self->y0, self->y1, rows, y0, y1);
}

guint
pl_figure_viewport_get_panel_rows (const PlFigureViewport *self,
                                   int                     panel)
{
  if (panel >= 0 && (guint) panel < self->panel_cells->len / 2)
    return g_array_index (self->panel_cells, guint, 2 * panel + 1);
  return self->rows;
}

/* Keeps the window inside the grid, at least MIN_CELLS wide. */
static void
clamp_window (PlFigureViewport *self)
{
  double w = CLAMP (self->x1 - self->x0, MIN (PL_FIGURE_VIEWPORT_MIN_CELLS, self->columns), self->columns);
  double h = CLAMP (self->y1 - self->y0, MIN (PL_FIGURE_VIEWPORT_MIN_CELLS, self->rows), self->rows);

  self->x0 = CLAMP (self->x0, 0, self->columns - w);
  self->y0 = CLAMP (self->y0, 0, self->rows - h);
  self->x1 = self->x0 + w;
  self->y1 = self->y0 + h;
}

void
pl_figure_viewport_zoom (PlFigureViewport *self,
                         double            factor,
                         double            cx,
                         double            cy)
{
  if (self->columns == 0 || factor <= 0)
    return;

  cx = CLAMP (cx, self->x0, self->x1);
  cy = CLAMP (cy, self->y0, self->y1);
  self->x0 = cx - (cx - self->x0) / factor;
  self->x1 = cx + (self->x1 - cx) / factor;
  self->y0 = cy - (cy - self->y0) / factor;
  self->y1 = cy + (self->y1 - cy) / factor;
  clamp_window (self);
}

void
pl_figure_viewport_drag (PlFigureViewport        *self,
                         double                   start_x0,
                         double                   start_y0,
                         double                   dx,
                         double                   dy,
                         const cairo_rectangle_t *area)
{
  double w = self->x1 - self->x0, h = self->y1 - self->y0;

  self->x0 = start_x0 - dx / MAX (area->width, 1) * w;
  self->y0 = start_y0 - dy / MAX (area->height, 1) * h;
  self->x1 = self->x0 + w;
  self->y1 = self->y0 + h;
  clamp_window (self);
}

void
pl_figure_viewport_point_to_cell (const PlFigureViewport  *self,
                                  int                      panel,
                                  const cairo_rectangle_t *area,
                                  double                   x,
                                  double                   y,
                                  double                  *cx,
                                  double                  *cy)
{
  double x0, y0, x1, y1;

  pl_figure_viewport_get_panel_window (self, panel, &x0, &y0, &x1, &y1);
  *cx = x0 + (x - area->x) / MAX (area->width, 1) * (x1 - x0);
  *cy = y0 + (y - area->y) / MAX (area->height, 1) * (y1 - y0);
}

void
pl_figure_viewport_apply (const PlFigureViewport *self,
                          PlFigure               *figure)
{
  if (figure == NULL || self->columns == 0)
    return;

  pl_figure_set_view (figure, self->x0, self->y0, self->x1, self->y1);
  for (guint i = 0; i < self->panel_cells->len / 2; i++)
    {
      double x0, y0, x1, y1;

      pl_figure_viewport_get_panel_window (self, (int) i, &x0, &y0, &x1, &y1);
      if (x1 > x0 && y1 > y0)
        pl_figure_set_view (pl_figure_get_panel (figure, i), x0, y0, x1, y1);
    }
}

/* The plot area of PANEL of small multiples FIGURE in the figure's
 * coordinates; FALSE when the last render did not place it. */
static gboolean
panel_plot_area (PlFigure          *figure,
                 guint              panel,
                 cairo_rectangle_t *area)
{
  cairo_rectangle_t cell;

  if (!pl_figure_get_panel_area (figure, panel, &cell))
    return FALSE;
  pl_figure_get_plot_area (pl_figure_get_panel (figure, panel), area);
  area->x += cell.x;
  area->y += cell.y;
  return TRUE;
}

int
pl_figure_viewport_plot_area_at (PlFigure          *figure,
                                 double             x,
                                 double             y,
                                 cairo_rectangle_t *area)
{
  int panel;

  if (pl_figure_get_kind (figure) != PL_FIGURE_MULTIPLES)
    {
      pl_figure_get_plot_area (figure, area);
      return -1;
    }
  panel = MAX (pl_figure_get_panel_at (figure, x, y, NULL, NULL), 0);
  if (!panel_plot_area (figure, panel, area))
    {
      pl_figure_get_plot_area (figure, area);
      return -1;
    }
  return panel;
}

gboolean
pl_figure_viewport_heatmap_area (PlFigure          *figure,
                                 guint              i,
                                 cairo_rectangle_t *area)
{
  if (pl_figure_get_kind (figure) != PL_FIGURE_MULTIPLES)
    {
      pl_figure_get_plot_area (figure, area);
      return i == 0;
    }
  if (i >= pl_figure_get_n_panels (figure) || !panel_plot_area (figure, i, area))
    return FALSE;
  /* Another kind of panel holds no cells: an empty area. */
  if (pl_figure_get_kind (pl_figure_get_panel (figure, i)) != PL_FIGURE_HEATMAP)
    area->width = area->height = 0;
  return TRUE;
}
