/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-figure-private.h"

/* The grid of grids (Dosovitskiy et al. 2021, Figure 7): the patches of a
 * vision transformer's table in their grid, and in each patch's place a
 * small map of its similarity with every patch. One coloured image holds
 * every map, a transparent pixel between neighbours, drawn scaled without
 * smoothing; the special tokens' maps stand in a column of their own to the
 * right, never in the grid. */

#define GAP          6.0
#define BAR_WIDTH   10.0
#define BAR_GAP     12.0
#define TICK_LENGTH  3.5
#define TICK_GAP     2.5
#define MAP_GAP      1     /* image pixels between the small maps */

PlFigure *
pl_figure_new_patch_grid (PlMatrix *similarity,
                          guint     rows,
                          guint     cols)
{
  PlFigure *self;

  g_return_val_if_fail (similarity != NULL, NULL);
  g_return_val_if_fail (rows > 0 && cols > 0, NULL);
  g_return_val_if_fail (similarity->rows == (gsize) rows * cols && similarity->cols == similarity->rows, NULL);

  self = pl_figure_new_kind (PL_FIGURE_PATCH_GRID);
  self->auto_x_label = g_strdup ("Patch column");
  self->auto_y_label = g_strdup ("Patch row");
  self->values = pl_matrix_ref (similarity);
  self->grid_rows = rows;
  self->grid_cols = cols;
  pl_figure_scan_extremes (self);
  return self;
}

void
pl_figure_set_special_maps (PlFigure           *self,
                            PlMatrix           *values,
                            const char * const *names)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_PATCH_GRID);
  g_return_if_fail (values == NULL || values->cols == self->values->cols);
  g_return_if_fail (values == NULL || names != NULL);

  g_clear_pointer (&self->special_values, pl_matrix_unref);
  g_clear_pointer (&self->special_names, g_strfreev);
  g_clear_pointer (&self->image, cairo_surface_destroy);
  g_clear_pointer (&self->special_image, cairo_surface_destroy);
  if (values != NULL && values->rows > 0)
    {
      self->special_values = pl_matrix_ref (values);
      self->special_names = g_new0 (char *, values->rows + 1);
      for (gsize i = 0; i < values->rows; i++)
        self->special_names[i] = g_strdup (names[i]);
    }
  pl_figure_scan_extremes (self);
}

/* The image of N_ACROSS × N_DOWN maps of SELF's grid size. */
static void
maps_size (PlFigure *self,
           guint64   n_across,
           guint64   n_down,
           guint64  *width,
           guint64  *height)
{
  *width = n_across * self->grid_cols + (n_across - 1) * MAP_GAP;
  *height = n_down * self->grid_rows + (n_down - 1) * MAP_GAP;
}

void
pl_figure_patch_grid_image_size (PlFigure *self,
                                 guint64  *width,
                                 guint64  *height,
                                 guint64  *special_width,
                                 guint64  *special_height)
{
  maps_size (self, self->grid_cols, self->grid_rows, width, height);
  *special_width = *special_height = 0;
  if (self->special_values != NULL)
    maps_size (self, 1, self->special_values->rows, special_width, special_height);
}

/* Small maps of SIDE_COLS × SIDE_ROWS pixels, N_ACROSS × N_DOWN of them with
 * MAP_GAP transparent pixels between; map m (row by row) is row m of VALUES.
 * NULL when cairo cannot make an image that large (pl_figure_check_size
 * says so before). */
static cairo_surface_t *
paint_maps (PlFigure       *self,
            const PlMatrix *values,
            guint           n_across,
            guint           n_down,
            double          lo,
            double          hi)
{
  guint32 lut[PL_COLORMAP_N_ENTRIES];
  guint side_cols = self->grid_cols, side_rows = self->grid_rows;
  int width = (int) (n_across * side_cols + (n_across - 1) * MAP_GAP);
  int height = (int) (n_down * side_rows + (n_down - 1) * MAP_GAP);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  double scale = hi > lo ? PL_COLORMAP_N_ENTRIES / (hi - lo) : 0;
  guint8 *data;
  int stride;

  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return NULL;
    }
  pl_colormap_fill_argb (self->colormap, self->reversed, lut);
  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  stride = cairo_image_surface_get_stride (image);
  memset (data, 0, (gsize) stride * height);

  for (gsize m = 0; m < values->rows; m++)
    {
      const float *row = pl_matrix_row (values, m);
      guint x0 = (guint) (m % n_across) * (side_cols + MAP_GAP);
      guint y0 = (guint) (m / n_across) * (side_rows + MAP_GAP);

      for (guint i = 0; i < side_rows; i++)
        {
          guint32 *out = (guint32 *) (gpointer) (data + (gsize) (y0 + i) * stride) + x0;

          for (guint j = 0; j < side_cols; j++)
            {
              double v = row[i * side_cols + j];
              double k;

              if (isnan (v))
                {
                  out[j] = 0xff000000u | PL_COLORMAP_NO_VALUE;
                  continue;
                }
              k = scale > 0 ? (v - lo) * scale : PL_COLORMAP_N_ENTRIES / 2;
              out[j] = lut[(guint) CLAMP (k, 0, PL_COLORMAP_N_ENTRIES - 1)];
            }
        }
    }
  cairo_surface_mark_dirty (image);
  return image;
}

static void
ensure_images (PlFigure *self,
               double    lo,
               double    hi)
{
  if (self->image != NULL && self->image_colormap == self->colormap &&
      self->image_reversed == self->reversed && self->image_lo == lo && self->image_hi == hi)
    return;
  g_clear_pointer (&self->image, cairo_surface_destroy);
  g_clear_pointer (&self->special_image, cairo_surface_destroy);
  self->image = paint_maps (self, self->values, self->grid_cols, self->grid_rows, lo, hi);
  if (self->special_values != NULL)
    self->special_image = paint_maps (self, self->special_values, 1, (guint) self->special_values->rows, lo, hi);
  self->image_colormap = self->colormap;
  self->image_reversed = self->reversed;
  self->image_lo = lo;
  self->image_hi = hi;
}

static void
paint_image (cairo_t         *cr,
             cairo_surface_t *image,
             double           x,
             double           y,
             double           scale)
{
  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_scale (cr, scale, scale);
  cairo_set_source_surface (cr, image, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
}

void
pl_patch_axes_measure (PlFigure *self,
                       PlDraw   *draw,
                       double   *left,
                       double   *bottom,
                       double   *top)
{
  double tick_size = pl_figure_tick_size (self), tick_h, label_h, widest;
  g_autofree char *last = g_strdup_printf ("%u", MAX (self->grid_rows, 1) - 1);

  pl_draw_text_size (draw, last, tick_size, 0, &widest, &tick_h);
  pl_draw_text_size (draw, "Patch", self->font_size, 0, NULL, &label_h);
  *left = GAP + label_h + GAP + widest + TICK_LENGTH + TICK_GAP;
  *bottom = TICK_LENGTH + TICK_GAP + tick_h + GAP + label_h + GAP;
  *top = pl_draw_top_room (draw, draw->width - 2 * GAP, tick_h);
}

/* Whole-number ticks at the centres of the grid's rows and columns: column
 * c at PLOT's x + (c + ½)·PITCH_X − GAP_X / 2, as the maps lie. */
void
pl_patch_axes_draw (PlFigure                *self,
                    PlDraw                  *draw,
                    const cairo_rectangle_t *plot,
                    double                   pitch_x,
                    double                   pitch_y,
                    double                   inner_x,
                    double                   inner_y,
                    double                   left)
{
  cairo_t *cr = draw->cr;
  double tick_size = pl_figure_tick_size (self), tick_h, widest;
  g_autoptr(GArray) xticks = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) yticks = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *last = g_strdup_printf ("%u", MAX (self->grid_cols, 1) - 1);
  const char *x_label = pl_figure_x_label (self), *y_label = pl_figure_y_label (self);

  pl_draw_text_size (draw, last, tick_size, 0, &widest, &tick_h);
  pl_nice_ticks (0, self->grid_cols - 1, (guint) CLAMP (plot->width / (widest + 2 * tick_h), 2, 12), TRUE, xticks);
  pl_nice_ticks (0, self->grid_rows - 1, (guint) CLAMP (plot->height / (tick_h * 2.5), 2, 12), TRUE, yticks);
  pl_figure_record_ticks (self, 0, xticks);
  pl_figure_record_ticks (self, 1, yticks);

  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  pl_draw_set_rgb (draw, draw->axis);
  for (guint i = 0; i < xticks->len; i++)
    {
      double c = g_array_index (xticks, double, i);
      double x = plot->x + c * pitch_x + inner_x / 2;
      g_autofree char *label = pl_format_tick (c, 1);

      if (c < 0 || c >= self->grid_cols)
        continue;
      cairo_move_to (cr, x, plot->y + plot->height);
      cairo_line_to (cr, x, plot->y + plot->height + TICK_LENGTH);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, x, plot->y + plot->height + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
    }
  for (guint i = 0; i < yticks->len; i++)
    {
      double r = g_array_index (yticks, double, i);
      double y = plot->y + r * pitch_y + inner_y / 2;
      g_autofree char *label = pl_format_tick (r, 1);

      if (r < 0 || r >= self->grid_rows)
        continue;
      cairo_move_to (cr, plot->x, y);
      cairo_line_to (cr, plot->x - TICK_LENGTH, y);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, plot->x - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
    }
  cairo_restore (cr);

  pl_draw_text (draw, x_label, pl_draw_fit_size (draw, x_label, self->font_size, 0, draw->width - 2 * GAP),
                PL_TEXT_AXIS_TITLE, draw->fg, plot->x + plot->width / 2,
                plot->y + plot->height + TICK_LENGTH + TICK_GAP + tick_h + GAP, 0.5, 0, 0);
  pl_draw_text (draw, y_label, pl_draw_fit_size (draw, y_label, self->font_size, 0, plot->height + 2 * GAP),
                PL_TEXT_AXIS_TITLE, draw->fg, plot->x - left + GAP, plot->y + plot->height / 2, 0.5, 0, -G_PI / 2);
  pl_draw_title (draw, plot->x + plot->width / 2, plot->y - pl_draw_title_gap (tick_h), GAP, draw->width - GAP);
}

void
pl_figure_patch_grid_render (PlFigure                *self,
                             PlDraw                  *draw,
                             const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  guint rows = self->grid_rows, cols = self->grid_cols;
  double image_w = cols * cols + (cols - 1) * MAP_GAP, image_h = rows * rows + (rows - 1) * MAP_GAP;
  double left, bottom, top, right = GAP, special_w = 0, names_w = 0, bar_w = 0, lo, hi, s, aw, ah, name_h = 0;
  double tick_size = pl_figure_tick_size (self);
  gsize n_special = self->special_values ? self->special_values->rows : 0;
  cairo_rectangle_t plot;

  pl_figure_heatmap_auto_range (self, &lo, &hi);
  ensure_images (self, lo, hi);
  pl_patch_axes_measure (self, draw, &left, &bottom, &top);
  if (self->panel_bar != PL_PANEL_BAR_NONE)
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - top - bottom, 10) };

      bar_w = pl_draw_colorbar (draw, &probe, lo, hi, TRUE);
      right = BAR_GAP + bar_w + GAP;
    }
  for (gsize k = 0; k < n_special; k++)
    {
      double w;

      pl_draw_text_size (draw, self->special_names[k], tick_size, 0, &w, &name_h);
      names_w = MAX (names_w, w);
    }

  /* The maps at one scale S (device units per image pixel): the grid's,
   * and beside it the special maps, each a map the size of one in the grid
   * scaled up to a quarter of the grid's height at most. */
  aw = MAX (area->width - left - right, 1);
  ah = MAX (area->height - top - bottom, 1);
  s = MIN (aw / image_w, ah / image_h);
  if (n_special > 0)
    {
      double special_scale;

      for (int pass = 0; pass < 2; pass++)
        {
          special_scale = MIN (s * image_h / 4 / rows, (ah - n_special * (name_h + GAP)) / (n_special * rows));
          special_w = MAX (cols * special_scale, names_w) + 2 * GAP;
          s = MIN ((aw - special_w) / image_w, ah / image_h);
        }
      self->special_scale = MAX (special_scale, 0);
    }
  s = MAX (s, 1e-3);
  /* The grid, the special maps and the colour bar side by side, centred. */
  plot = (cairo_rectangle_t) { area->x + left + (aw - special_w - image_w * s) / 2,
                               area->y + top + (ah - image_h * s) / 2, image_w * s, image_h * s };
  self->plot_area = plot;
  self->map_scale = s;

  if (self->image != NULL)
    paint_image (cr, self->image, plot.x, plot.y, s);
  pl_draw_frame (draw, &plot);
  pl_patch_axes_draw (self, draw, &plot, (cols + MAP_GAP) * s, (rows + MAP_GAP) * s, cols * s, rows * s, left);

  /* The special tokens: a map each, named above it, right of the grid. */
  self->special_area = (cairo_rectangle_t) { 0, 0, 0, 0 };
  if (n_special > 0 && self->special_image != NULL)
    {
      double ss = self->special_scale, x = plot.x + plot.width + 2 * GAP, y = plot.y;

      self->special_pitch = rows * ss + name_h + GAP;
      self->special_offset = name_h + GAP / 2;
      self->special_area = (cairo_rectangle_t) { x, y, cols * ss, n_special * self->special_pitch };
      for (gsize k = 0; k < n_special; k++)
        {
          cairo_rectangle_t frame = { x, y + self->special_offset, cols * ss, rows * ss };

          pl_draw_text (draw, self->special_names[k], tick_size, 0, draw->fg, x, y, 0, 0, 0);
          cairo_save (cr);
          cairo_rectangle (cr, frame.x, frame.y, frame.width, frame.height);
          cairo_clip (cr);
          /* Map k of the stacked image, scaled to this frame. */
          cairo_translate (cr, frame.x, frame.y - k * (rows + MAP_GAP) * ss);
          cairo_scale (cr, ss, ss);
          cairo_set_source_surface (cr, self->special_image, 0, 0);
          cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
          cairo_paint (cr);
          cairo_restore (cr);
          pl_draw_frame (draw, &frame);
          y += self->special_pitch;
        }
    }

  if (self->panel_bar == PL_PANEL_BAR_OWN)
    {
      cairo_rectangle_t bar = { plot.x + plot.width + special_w + BAR_GAP, plot.y, BAR_WIDTH, plot.height };

      pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
      self->colorbar_area = bar;
      self->has_colorbar = TRUE;
    }
}

gboolean
pl_figure_patch_grid_hit (PlFigure *self,
                          double    x,
                          double    y,
                          guint    *column,
                          guint    *row)
{
  guint rows = self->grid_rows, cols = self->grid_cols;
  const cairo_rectangle_t *p = &self->plot_area;
  const cairo_rectangle_t *sp = &self->special_area;

  if (!self->rendered || self->map_scale <= 0)
    return FALSE;
  if (x >= p->x && y >= p->y && x < p->x + p->width && y < p->y + p->height)
    {
      double px = (x - p->x) / self->map_scale, py = (y - p->y) / self->map_scale;
      guint c = (guint) (px / (cols + MAP_GAP)), r = (guint) (py / (rows + MAP_GAP));
      double j = px - c * (cols + MAP_GAP), i = py - r * (rows + MAP_GAP);

      if (r >= rows || c >= cols || j >= cols || i >= rows)
        return FALSE;
      *row = r * cols + c;
      *column = (guint) i * cols + (guint) j;
      return TRUE;
    }
  if (self->special_values != NULL && self->special_scale > 0 &&
      x >= sp->x && x < sp->x + sp->width && y >= sp->y && y < sp->y + sp->height)
    {
      guint k = (guint) ((y - sp->y) / self->special_pitch);
      double i = ((y - sp->y) - k * self->special_pitch - self->special_offset) / self->special_scale;
      double j = (x - sp->x) / self->special_scale;

      if (k >= self->special_values->rows || i < 0 || i >= rows || j >= cols)
        return FALSE;
      *row = rows * cols + k;
      *column = (guint) i * cols + (guint) j;
      return TRUE;
    }
  return FALSE;
}
