/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-figure-private.h"

/* The figure object: settings common to every kind, the frame (background),
 * and what the last render left behind for hit tests. Each kind draws itself
 * in its own file; pl-figure-export.c writes files. */

G_DEFINE_FINAL_TYPE (PlFigure, pl_figure, G_TYPE_OBJECT)

static void
pl_figure_finalize (GObject *object)
{
  PlFigure *self = PL_FIGURE (object);

  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->x_label, g_free);
  g_clear_pointer (&self->y_label, g_free);
  g_clear_pointer (&self->value_label, g_free);
  g_clear_pointer (&self->font_family, g_free);
  g_clear_pointer (&self->values, pl_matrix_unref);
  g_clear_pointer (&self->image, cairo_surface_destroy);
  g_clear_pointer (&self->bar_image, cairo_surface_destroy);

  G_OBJECT_CLASS (pl_figure_parent_class)->finalize (object);
}

static void
pl_figure_class_init (PlFigureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pl_figure_finalize;
}

static void
pl_figure_init (PlFigure *self)
{
  self->font_family = g_strdup ("Cantarell, Sans");
  self->font_size = 10;
  self->colormap = PL_COLORMAP_VIRIDIS;
  self->vmin = NAN;
  self->vmax = NAN;
  self->data_min = NAN;
  self->data_max = NAN;
}

static void
scan_extremes (PlFigure *self)
{
  double lo = INFINITY, hi = -INFINITY;
  gsize n = self->values->rows * self->values->cols;

  for (gsize i = 0; i < n; i++)
    {
      float v = self->values->data[i];

      if (isfinite (v))
        {
          lo = MIN (lo, v);
          hi = MAX (hi, v);
        }
    }
  self->data_min = isfinite (lo) ? lo : NAN;
  self->data_max = isfinite (hi) ? hi : NAN;
}

PlFigure *
pl_figure_new_heatmap (PlMatrix *values,
                       guint     first_position)
{
  PlFigure *self;

  g_return_val_if_fail (values != NULL, NULL);

  self = g_object_new (PL_TYPE_FIGURE, NULL);
  self->kind = PL_FIGURE_HEATMAP;
  pl_figure_set_values (self, values, first_position);

  return self;
}

void
pl_figure_set_values (PlFigure *self,
                      PlMatrix *values,
                      guint     first_position)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (values != NULL);

  if (self->values == NULL || self->values->rows != values->rows || self->values->cols != values->cols)
    self->has_view = FALSE;
  pl_matrix_ref (values);
  g_clear_pointer (&self->values, pl_matrix_unref);
  self->values = values;
  self->first_position = first_position;
  scan_extremes (self);
  pl_figure_heatmap_clear (self);
}

PlFigureKind
pl_figure_get_kind (PlFigure *self)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), 0);

  return self->kind;
}

void
pl_figure_set_grid (PlFigure *self,
                    gboolean  grid)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->grid = !!grid;
}

void
pl_figure_set_view (PlFigure *self,
                    double    x0,
                    double    y0,
                    double    x1,
                    double    y1)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (x1 > x0 && y1 > y0);

  self->view_x0 = x0;
  self->view_y0 = y0;
  self->view_x1 = x1;
  self->view_y1 = y1;
  self->has_view = TRUE;
}

void
pl_figure_reset_view (PlFigure *self)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->has_view = FALSE;
}

void
pl_figure_set_title (PlFigure   *self,
                     const char *title)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  g_free (self->title);
  self->title = g_strdup (title);
}

void
pl_figure_set_axis_labels (PlFigure   *self,
                           const char *x_label,
                           const char *y_label)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  g_free (self->x_label);
  self->x_label = g_strdup (x_label);
  g_free (self->y_label);
  self->y_label = g_strdup (y_label);
}

void
pl_figure_set_value_label (PlFigure   *self,
                           const char *label)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  g_free (self->value_label);
  self->value_label = g_strdup (label);
}

void
pl_figure_set_colormap (PlFigure     *self,
                        PlColormapId  colormap)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (pl_colormap_to_string (colormap) != NULL);

  self->colormap = colormap;
}

void
pl_figure_set_reversed (PlFigure *self,
                        gboolean  reversed)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->reversed = !!reversed;
}

void
pl_figure_set_range (PlFigure *self,
                     double    vmin,
                     double    vmax)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->vmin = vmin;
  self->vmax = vmax;
}

void
pl_figure_get_range (PlFigure *self,
                     double   *vmin,
                     double   *vmax)
{
  double lo = 0, hi = 1;

  g_return_if_fail (PL_IS_FIGURE (self));

  if (self->kind == PL_FIGURE_HEATMAP)
    pl_figure_heatmap_auto_range (self, &lo, &hi);
  if (vmin)
    *vmin = lo;
  if (vmax)
    *vmax = hi;
}

void
pl_figure_set_dark (PlFigure *self,
                    gboolean  dark)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->dark = !!dark;
}

void
pl_figure_set_font (PlFigure   *self,
                    const char *family,
                    double      size_pt)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  if (family != NULL)
    {
      g_free (self->font_family);
      self->font_family = g_strdup (family);
    }
  if (size_pt > 0)
    self->font_size = size_pt;
}

/* Shared by pl_figure_render and the exporters (which pass an SVG text sink). */
void
pl_figure_render_full (PlFigure *self,
                       cairo_t  *cr,
                       double    width,
                       double    height,
                       GString  *svg_text)
{
  PlDraw draw;
  cairo_rectangle_t area = { 0, 0, width, height };

  pl_draw_init (&draw, self, cr, svg_text);

  cairo_save (cr);
  pl_draw_set_rgb (&draw, draw.bg);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  self->has_colorbar = FALSE;
  switch (self->kind)
    {
    case PL_FIGURE_HEATMAP:
      pl_figure_heatmap_render (self, &draw, &area);
      break;
    default:
      g_assert_not_reached ();
    }
  cairo_restore (cr);

  pl_draw_clear (&draw);
  self->rendered = TRUE;
}

void
pl_figure_render (PlFigure *self,
                  cairo_t  *cr,
                  double    width,
                  double    height)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (cr != NULL);

  pl_figure_render_full (self, cr, width, height, NULL);
}

void
pl_figure_get_plot_area (PlFigure          *self,
                         cairo_rectangle_t *area)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (area != NULL);

  *area = self->plot_area;
}

gboolean
pl_figure_get_colorbar_area (PlFigure          *self,
                             cairo_rectangle_t *area)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (area != NULL)
    *area = self->colorbar_area;
  return self->rendered && self->has_colorbar;
}

gboolean
pl_figure_hit_cell (PlFigure *self,
                    double    x,
                    double    y,
                    guint    *column,
                    guint    *row)
{
  const cairo_rectangle_t *p = &self->plot_area;
  double cx, cy;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->kind != PL_FIGURE_HEATMAP || !self->rendered || self->values == NULL)
    return FALSE;
  if (x < p->x || y < p->y || x >= p->x + p->width || y >= p->y + p->height)
    return FALSE;

  cx = self->view_x0 + (x - p->x) / p->width * (self->view_x1 - self->view_x0);
  cy = self->view_y0 + (y - p->y) / p->height * (self->view_y1 - self->view_y0);
  if (cx < 0 || cy < 0 || cx >= self->values->cols || cy >= self->values->rows)
    return FALSE;

  if (column)
    *column = (guint) cx;
  if (row)
    *row = (guint) cy;
  return TRUE;
}
