/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "pl-figure-private.h"

/* Colours over the patch grid: each patch a square of its own colour (the
 * first three principal components of its row as red, green and blue), so
 * patches the table holds alike look alike. A key on the right says which
 * component each primary stands for. */

#define GAP      6.0
#define KEY_GAP 12.0
#define SWATCH  10.0

PlFigure *
pl_figure_new_grid_colors (PlMatrix     *rgb,
                           guint         rows,
                           guint         cols,
                           const double *explained_ratio)
{
  PlFigure *self;

  g_return_val_if_fail (rgb != NULL, NULL);
  g_return_val_if_fail (rows > 0 && cols > 0, NULL);
  g_return_val_if_fail (rgb->rows == (gsize) rows * cols && rgb->cols == 3, NULL);

  self = pl_figure_new_kind (PL_FIGURE_GRID_COLORS);
  self->auto_x_label = g_strdup ("Patch column");
  self->auto_y_label = g_strdup ("Patch row");
  self->values = pl_matrix_ref (rgb);
  self->grid_rows = rows;
  self->grid_cols = cols;
  if (explained_ratio != NULL)
    self->explained = g_memdup2 (explained_ratio, 3 * sizeof (double));
  return self;
}

static guint8
channel (float v)
{
  return (guint8) lround (CLAMP (isnan (v) ? 0.5f : v, 0.0f, 1.0f) * 255);
}

static cairo_surface_t *
ensure_image (PlFigure *self)
{
  cairo_surface_t *image;
  guint8 *data;
  int stride;

  if (self->image != NULL)
    return self->image;
  image = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) self->grid_cols, (int) self->grid_rows);
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return NULL;
    }
  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  stride = cairo_image_surface_get_stride (image);
  for (guint r = 0; r < self->grid_rows; r++)
    {
      guint32 *out = (guint32 *) (gpointer) (data + (gsize) r * stride);

      for (guint c = 0; c < self->grid_cols; c++)
        {
          const float *rgb = pl_matrix_row (self->values, (gsize) r * self->grid_cols + c);

          out[c] = 0xff000000u | (guint32) channel (rgb[0]) << 16 | (guint32) channel (rgb[1]) << 8 |
                   channel (rgb[2]);
        }
    }
  cairo_surface_mark_dirty (image);
  self->image = image;
  return image;
}

/* "PC1 (42.0 %)" beside a red swatch, and so on. */
char *
pl_figure_get_key_label (PlFigure *self,
                         guint     k)
{
  g_return_val_if_fail (self != NULL && pl_figure_get_kind (self) == PL_FIGURE_GRID_COLORS && k < 3, NULL);

  if (self->explained != NULL && isfinite (self->explained[k]))
    /* Translators: the key of the principal colours: a principal component and its share of the variance */
    return g_strdup_printf (_("PC%u (%.1f %%)"), k + 1, 100 * self->explained[k]);
  /* Translators: a principal component ("PC1") */
  return g_strdup_printf (_("PC%u"), k + 1);
}

void
pl_figure_grid_colors_render (PlFigure                *self,
                              PlDraw                  *draw,
                              const cairo_rectangle_t *area)
{
  static const double primaries[3][3] = { { 0.9, 0.1, 0.1 }, { 0.1, 0.75, 0.1 }, { 0.15, 0.3, 0.95 } };
  cairo_t *cr = draw->cr;
  double tick_size = pl_figure_tick_size (self);
  double left, bottom, top, key_w = 0, key_h = 0, aw, ah, s;
  cairo_surface_t *image = ensure_image (self);
  cairo_rectangle_t plot;
  char *labels[3];

  pl_patch_axes_measure (self, draw, &left, &bottom, &top);
  for (guint k = 0; k < 3; k++)
    {
      double w;

      labels[k] = pl_figure_get_key_label (self, k);
      pl_draw_text_size (draw, labels[k], tick_size, 0, &w, &key_h);
      key_w = MAX (key_w, SWATCH + GAP / 2 + w);
    }
  aw = MAX (area->width - left - KEY_GAP - key_w - GAP, 1);
  ah = MAX (area->height - top - bottom, 1);
  s = MAX (MIN (aw / self->grid_cols, ah / self->grid_rows), 1e-3);
  plot = (cairo_rectangle_t) { area->x + left + (aw - self->grid_cols * s) / 2,
                               area->y + top + (ah - self->grid_rows * s) / 2,
                               self->grid_cols * s, self->grid_rows * s };
  self->plot_area = plot;
  self->map_scale = s;

  if (image != NULL)
    {
      cairo_save (cr);
      cairo_translate (cr, plot.x, plot.y);
      cairo_scale (cr, s, s);
      cairo_set_source_surface (cr, image, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
    }
  pl_draw_frame (draw, &plot);
  pl_patch_axes_draw (self, draw, &plot, s, s, s, s, left);

  for (guint k = 0; k < 3; k++)
    {
      double x = plot.x + plot.width + KEY_GAP, y = plot.y + k * (key_h + GAP / 2);

      pl_draw_set_rgb (draw, primaries[k]);
      cairo_rectangle (cr, x, y + (key_h - SWATCH) / 2, SWATCH, SWATCH);
      cairo_fill (cr);
      pl_draw_text (draw, labels[k], tick_size, 0, draw->fg, x + SWATCH + GAP / 2, y, 0, 0, 0);
      g_free (labels[k]);
    }
}

gboolean
pl_figure_grid_colors_hit (PlFigure *self,
                           double    x,
                           double    y,
                           guint    *column,
                           guint    *row)
{
  const cairo_rectangle_t *p = &self->plot_area;

  if (!self->rendered || self->map_scale <= 0 ||
      x < p->x || y < p->y || x >= p->x + p->width || y >= p->y + p->height)
    return FALSE;
  *column = MIN ((guint) ((x - p->x) / self->map_scale), self->grid_cols - 1);
  *row = MIN ((guint) ((y - p->y) / self->map_scale), self->grid_rows - 1);
  return TRUE;
}
