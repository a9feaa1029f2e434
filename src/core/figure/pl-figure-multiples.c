/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-figure-private.h"

/* Small multiples: several figures in a grid, heatmaps on one shared colour
 * scale read from a single colour bar. A panel of another quantity (a
 * difference beside two similarities) keeps its own scale and bar; then each
 * row's shared panels draw the shared bar beside the last of them. The grid
 * takes the number of columns that gives its panels the most room. */

#define GAP         6.0
#define BAR_WIDTH  10.0
#define BAR_GAP    12.0

PlFigure *
pl_figure_new_multiples (PlFigure * const *panels,
                         guint             n_panels,
                         guint             columns)
{
  PlFigure *self;

  g_return_val_if_fail (panels != NULL || n_panels == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_MULTIPLES);
  self->panels = g_ptr_array_new_with_free_func (g_object_unref);
  self->panel_areas = g_array_new (FALSE, TRUE, sizeof (cairo_rectangle_t));
  for (guint i = 0; i < n_panels; i++)
    {
      g_return_val_if_fail (PL_IS_FIGURE (panels[i]), self);
      g_return_val_if_fail (panels[i]->kind != PL_FIGURE_MULTIPLES, self);
      g_ptr_array_add (self->panels, g_object_ref (panels[i]));
      if (i == 0)
        self->value_label = g_strdup (panels[i]->value_label);
    }
  self->n_columns = columns;

  return self;
}

void
pl_figure_set_own_scale (PlFigure *self,
                         gboolean  own_scale)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->own_scale = !!own_scale;
}

void
pl_figure_set_relative_width (PlFigure *self,
                              double    width)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (width > 0);

  self->relative_width = width;
}

PlFigure *
pl_figure_get_panel (PlFigure *self,
                     guint     index)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);
  g_return_val_if_fail (self->kind == PL_FIGURE_MULTIPLES, NULL);
  g_return_val_if_fail (index < self->panels->len, NULL);

  return g_ptr_array_index (self->panels, index);
}

guint
pl_figure_get_n_panels (PlFigure *self)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), 0);

  return self->panels != NULL ? self->panels->len : 0;
}

gboolean
pl_figure_get_panel_area (PlFigure          *self,
                          guint              index,
                          cairo_rectangle_t *area)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->kind != PL_FIGURE_MULTIPLES || !self->rendered || index >= self->panel_areas->len)
    return FALSE;
  if (area)
    *area = g_array_index (self->panel_areas, cairo_rectangle_t, index);
  return TRUE;
}

int
pl_figure_get_panel_at (PlFigure *self,
                        double    x,
                        double    y,
                        double   *panel_x,
                        double   *panel_y)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), -1);

  if (self->kind != PL_FIGURE_MULTIPLES || !self->rendered)
    return -1;
  for (guint i = 0; i < self->panel_areas->len; i++)
    {
      const cairo_rectangle_t *r = &g_array_index (self->panel_areas, cairo_rectangle_t, i);

      if (x >= r->x && y >= r->y && x < r->x + r->width && y < r->y + r->height)
        {
          if (panel_x)
            *panel_x = x - r->x;
          if (panel_y)
            *panel_y = y - r->y;
          return (int) i;
        }
    }
  return -1;
}

/* One range over every heatmap panel, so equal colours mean equal values. */
static gboolean
shared_range (PlFigure *self,
              double   *lo,
              double   *hi)
{
  double a = INFINITY, b = -INFINITY;
  gboolean any = FALSE;

  for (guint i = 0; i < self->panels->len; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      if (panel->kind != PL_FIGURE_HEATMAP || panel->own_scale)
        continue;
      any = TRUE;
      if (isfinite (panel->data_min))
        {
          a = MIN (a, panel->data_min);
          b = MAX (b, panel->data_max);
        }
    }
  if (!any)
    return FALSE;
  if (!isfinite (a))
    a = 0, b = 1;
  if (self->colormap == PL_COLORMAP_DIVERGING)
    {
      double m = MAX (fabs (a), fabs (b));
      a = -m;
      b = m;
    }
  if (!isnan (self->vmin))
    a = self->vmin;
  if (!isnan (self->vmax))
    b = self->vmax;
  *lo = a;
  *hi = b;
  return TRUE;
}

/* Panels coloured by a value, which a colour bar explains. */
static gboolean
is_coloured (PlFigure *panel)
{
  return panel->kind == PL_FIGURE_HEATMAP || panel->kind == PL_FIGURE_TRAJECTORY ||
         panel->kind == PL_FIGURE_TRAJECTORY_3D;
}

/* The number of columns whose panels get the largest square plot in
 * WIDTH × HEIGHT, from a rough room for each panel's labels and bar. */
static guint
best_columns (PlFigure *self,
              double    width,
              double    height,
              gboolean  bar_per_row)
{
  guint n = self->panels->len, best = 1;
  double best_side = -INFINITY;
  double room_w = self->font_size * (bar_per_row ? 10.0 : 5.0);
  double room_h = self->font_size * 5.0;

  for (guint columns = 1; columns <= MAX (n, 1); columns++)
    {
      guint rows = (MAX (n, 1) + columns - 1) / columns;
      double side = MIN (width / columns - room_w, height / rows - room_h);

      /* Ties go to fewer columns (a square grid before a long row). */
      if (side > best_side + 0.5)
        {
          best_side = side;
          best = columns;
        }
    }
  return best;
}

/* Draws panel I in R (in the multiples' units) with the figure's look: a
 * shared panel on the shared scale, with no bar (GRID_BAR), the room for
 * one, or, last of its row's shared panels, the shared bar itself. */
static void
render_panel (PlFigure                *self,
              PlDraw                  *draw,
              guint                    i,
              guint                    columns,
              gboolean                 grid_bar,
              const cairo_rectangle_t *r)
{
  PlFigure *panel = g_ptr_array_index (self->panels, i);
  guint n = self->panels->len, row = i / columns;
  double saved_min = panel->vmin, saved_max = panel->vmax;
  char *saved_label = panel->value_label;

  panel->dark = self->dark;
  pl_figure_set_font (panel, self->font_family, self->font_size);
  panel->panel_bar = PL_PANEL_BAR_OWN;
  if (!panel->own_scale && is_coloured (panel))
    {
      gboolean last_in_row = TRUE;

      /* Shared panels follow the whole figure's look and scale. */
      panel->colormap = self->colormap;
      panel->reversed = self->reversed;
      if (panel->kind == PL_FIGURE_HEATMAP)
        {
          panel->vmin = self->shared_lo;
          panel->vmax = self->shared_hi;
        }
      for (guint j = i + 1; j < (row + 1) * columns && j < n; j++)
        {
          PlFigure *next = g_ptr_array_index (self->panels, j);

          if (!next->own_scale && is_coloured (next))
            last_in_row = FALSE;
        }
      if (grid_bar)
        panel->panel_bar = PL_PANEL_BAR_NONE;
      else
        {
          /* The room is measured with the shared bar's title. */
          panel->panel_bar = last_in_row ? PL_PANEL_BAR_OWN : PL_PANEL_BAR_ROOM;
          panel->value_label = self->value_label;
        }
    }
  panel->slack_x = panel->slack_y = 0;
  pl_figure_render_panel (panel, draw, (int) i, r);
  panel->vmin = saved_min;
  panel->vmax = saved_max;
  panel->value_label = saved_label;
  panel->panel_bar = PL_PANEL_BAR_OWN;
}

/* Cell I of the grid: its column's and row's place, a short last row centred. */
static cairo_rectangle_t
cell_rect (guint         i,
           guint         n,
           guint         columns,
           const double *column_x,
           const double *row_y)
{
  guint row = i / columns, column = i % columns;
  guint in_row = MIN (columns, n - row * columns);
  double shift = (column_x[columns] - column_x[in_row]) / 2;

  return (cairo_rectangle_t) { column_x[column] + shift, row_y[row],
                               column_x[column + 1] - column_x[column], row_y[row + 1] - row_y[row] };
}

void
pl_figure_multiples_render (PlFigure                *self,
                            PlDraw                  *draw,
                            const cairo_rectangle_t *area)
{
  guint n = self->panels->len;
  double title_h = pl_draw_title_height (draw), top, right = 0, lo = 0, hi = 1, total_weight = 0;
  double avail_w, avail_h, used_w = 0, used_h = 0;
  gboolean has_shared = FALSE, any_own = FALSE, grid_bar;
  PlFigure *first = NULL;
  guint columns, rows;
  g_autofree double *column_x = NULL;
  g_autofree double *column_w = NULL;
  g_autofree double *row_y = NULL;
  g_autofree double *row_h = NULL;

  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      any_own = any_own || panel->own_scale;
      if (first == NULL && !panel->own_scale)
        first = panel;
    }
  if (shared_range (self, &lo, &hi))
    has_shared = TRUE;
  else if (first != NULL && (first->kind == PL_FIGURE_TRAJECTORY || first->kind == PL_FIGURE_TRAJECTORY_3D))
    {
      pl_figure_value_range (first, &lo, &hi);
      has_shared = TRUE;
    }
  self->shared_lo = lo;
  self->shared_hi = hi;
  /* One bar right of the grid when every panel reads it; else one per row. */
  grid_bar = has_shared && !any_own;

  top = title_h > 0 ? GAP + title_h + GAP : 0;
  if (grid_bar)
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - top, 10) };
      right = BAR_GAP + pl_draw_colorbar (draw, &probe, lo, hi, TRUE) + GAP;
    }
  avail_w = MAX (area->width - right, 1);
  avail_h = MAX (area->height - top, 1);
  columns = self->n_columns > 0 ? self->n_columns : best_columns (self, avail_w, avail_h, !grid_bar);
  columns = MIN (columns, MAX (n, 1));
  rows = (MAX (n, 1) + columns - 1) / columns;

  /* Each column as wide as its widest-asking panel wants, in proportion. */
  column_x = g_new0 (double, columns + 1);
  column_w = g_new0 (double, columns);
  row_y = g_new0 (double, rows + 1);
  row_h = g_new0 (double, rows);
  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      column_w[i % columns] = MAX (column_w[i % columns], panel->relative_width);
    }
  for (guint c = 0; c < columns; c++)
    total_weight += column_w[c] = column_w[c] > 0 ? column_w[c] : 1;
  for (guint c = 0; c < columns; c++)
    {
      column_w[c] = MAX (avail_w * column_w[c] / total_weight, 1);
      column_x[c + 1] = column_x[c] + column_w[c];
    }
  for (guint r = 0; r < rows; r++)
    {
      row_h[r] = avail_h / rows;
      row_y[r + 1] = row_y[r] + row_h[r];
    }

  /* Square plots leave room beside them (a row of tall cells) or below (a
   * column of wide ones): a first pass, drawn nowhere, measures it, and the
   * grid closes up around the plots and stands in the middle. */
  if (n > 0)
    {
      cairo_surface_t *scratch = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
      cairo_t *cr = cairo_create (scratch);
      PlDraw measure;
      g_autofree double *spare_w = g_new (double, columns);
      g_autofree double *spare_h = g_new (double, rows);

      for (guint c = 0; c < columns; c++)
        spare_w[c] = INFINITY;
      for (guint r = 0; r < rows; r++)
        spare_h[r] = INFINITY;
      pl_draw_init (&measure, self, cr, NULL);
      for (guint i = 0; i < n; i++)
        {
          PlFigure *panel = g_ptr_array_index (self->panels, i);
          cairo_rectangle_t r = cell_rect (i, n, columns, column_x, row_y);

          render_panel (self, &measure, i, columns, grid_bar, &r);
          spare_w[i % columns] = MIN (spare_w[i % columns], panel->slack_x);
          spare_h[i / columns] = MIN (spare_h[i / columns], panel->slack_y);
        }
      pl_draw_clear (&measure);
      cairo_destroy (cr);
      cairo_surface_destroy (scratch);
      for (guint c = 0; c < columns; c++)
        used_w += column_w[c] -= MIN (spare_w[c], column_w[c] - 1);
      for (guint r = 0; r < rows; r++)
        used_h += row_h[r] -= MIN (spare_h[r], row_h[r] - 1);
      column_x[0] = area->x + (avail_w - used_w) / 2;
      for (guint c = 0; c < columns; c++)
        column_x[c + 1] = column_x[c] + column_w[c];
      row_y[0] = area->y + top + (avail_h - used_h) / 2;
      for (guint r = 0; r < rows; r++)
        row_y[r + 1] = row_y[r] + row_h[r];
    }

  g_array_set_size (self->panel_areas, n);
  for (guint i = 0; i < n; i++)
    {
      cairo_rectangle_t r = cell_rect (i, n, columns, column_x, row_y);

      render_panel (self, draw, i, columns, grid_bar, &r);
      g_array_index (self->panel_areas, cairo_rectangle_t, i) = r;
    }

  /* The grid's plot area: from the first panel's plot to the last row's. */
  if (n > 0)
    {
      PlFigure *first_panel = g_ptr_array_index (self->panels, 0);
      const cairo_rectangle_t *r0 = &g_array_index (self->panel_areas, cairo_rectangle_t, 0);
      double y0 = r0->y + first_panel->plot_area.y;
      PlFigure *last_row = g_ptr_array_index (self->panels, (rows - 1) * columns);
      const cairo_rectangle_t *rl = &g_array_index (self->panel_areas, cairo_rectangle_t, (rows - 1) * columns);
      double y1 = rl->y + last_row->plot_area.y + last_row->plot_area.height;

      self->plot_area = (cairo_rectangle_t) { column_x[0], y0, column_x[columns] - column_x[0], y1 - y0 };
      pl_draw_title (draw, (column_x[0] + column_x[columns]) / 2, row_y[0] - GAP,
                     area->x + GAP, area->x + area->width - GAP);
      if (grid_bar)
        {
          cairo_rectangle_t bar = { column_x[columns] + BAR_GAP - GAP, y0, BAR_WIDTH, y1 - y0 };

          pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
          self->colorbar_area = bar;
          self->has_colorbar = TRUE;
        }
    }
}
