/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-figure-private.h"

/* Small multiples: several figures of one kind in a grid, heatmaps on one
 * shared colour scale read from a single colour bar. */

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
      panels[i]->in_multiples = TRUE;
      if (i == 0)
        self->value_label = g_strdup (panels[i]->value_label);
    }
  self->n_columns = columns;

  return self;
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

      if (panel->kind != PL_FIGURE_HEATMAP)
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

void
pl_figure_multiples_render (PlFigure                *self,
                            PlDraw                  *draw,
                            const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  guint n = self->panels->len;
  guint columns = self->n_columns > 0 ? self->n_columns : (guint) ceil (sqrt (MAX (n, 1)));
  guint rows = (MAX (n, 1) + columns - 1) / columns;
  double title_h = pl_draw_title_height (draw), top, right = 0, cell_w, cell_h, lo = 0, hi = 1;
  gboolean has_bar = FALSE;
  PlFigure *first = n > 0 ? g_ptr_array_index (self->panels, 0) : NULL;

  if (shared_range (self, &lo, &hi))
    has_bar = TRUE;
  else if (first != NULL && (first->kind == PL_FIGURE_TRAJECTORY || first->kind == PL_FIGURE_TRAJECTORY_3D))
    {
      pl_figure_value_range (first, &lo, &hi);
      has_bar = TRUE;
    }
  self->shared_lo = lo;
  self->shared_hi = hi;

  top = title_h > 0 ? GAP + title_h + GAP : 0;
  if (has_bar)
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - top, 10) };
      right = BAR_GAP + pl_draw_colorbar (draw, &probe, lo, hi, TRUE) + GAP;
    }
  cell_w = MAX ((area->width - right) / columns, 1);
  cell_h = MAX ((area->height - top) / rows, 1);

  g_array_set_size (self->panel_areas, n);
  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);
      cairo_rectangle_t r = { area->x + (i % columns) * cell_w, area->y + top + (i / columns) * cell_h, cell_w, cell_h };
      double saved_min = panel->vmin, saved_max = panel->vmax;

      /* Panels follow the whole figure's look and share its scale. */
      panel->colormap = self->colormap;
      panel->reversed = self->reversed;
      panel->dark = self->dark;
      pl_figure_set_font (panel, self->font_family, self->font_size);
      if (panel->kind == PL_FIGURE_HEATMAP)
        {
          panel->vmin = lo;
          panel->vmax = hi;
        }
      cairo_save (cr);
      cairo_translate (cr, r.x, r.y);
      pl_figure_render_full (panel, cr, r.width, r.height, draw->svg_text);
      cairo_restore (cr);
      panel->vmin = saved_min;
      panel->vmax = saved_max;
      g_array_index (self->panel_areas, cairo_rectangle_t, i) = r;
    }

  /* The grid's plot area: from the first panel's plot to the last one's. */
  if (n > 0)
    {
      const cairo_rectangle_t *r0 = &g_array_index (self->panel_areas, cairo_rectangle_t, 0);
      double y0 = r0->y + first->plot_area.y;
      PlFigure *last_row = g_ptr_array_index (self->panels, (rows - 1) * columns);
      const cairo_rectangle_t *rl = &g_array_index (self->panel_areas, cairo_rectangle_t, (rows - 1) * columns);
      double y1 = rl->y + last_row->plot_area.y + last_row->plot_area.height;

      self->plot_area = (cairo_rectangle_t) { area->x, y0, columns * cell_w, y1 - y0 };
      pl_draw_title (draw, area->x + columns * cell_w / 2, area->y + GAP + title_h,
                     area->x + GAP, area->x + area->width - GAP);
      if (has_bar)
        {
          cairo_rectangle_t bar = { area->x + columns * cell_w + BAR_GAP - GAP, y0, BAR_WIDTH, y1 - y0 };

          pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
          self->colorbar_area = bar;
          self->has_colorbar = TRUE;
        }
    }
}
