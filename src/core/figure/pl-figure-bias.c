/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "pl-figure-private.h"

/* Position as a bias on attention scores (T5's buckets, ALiBi's slopes):
 * above, every head's bias by offset j − i as a heatmap, heads down and
 * offsets across; below, the curves of a few heads on the same offset axis.
 * Where T5's bucket changes between two offsets a dotted line crosses both,
 * so the exact buckets, the log-spaced ones and the flat end read off the
 * picture; offsets a causal stack never sees are left blank. */

#define GAP          6.0
#define TICK_LENGTH  4.0
#define TICK_GAP     3.0
#define BAR_WIDTH   10.0
#define BAR_GAP     12.0
#define PANEL_GAP   10.0
#define SWATCH      14.0
#define MAX_EDGES  128

static void
series_free (gpointer data)
{
  PlSeries *s = data;

  g_free (s->name);
  g_free (s->y);
  g_free (s);
}

static gboolean curve_range (PlFigure *self,
                             double   *lo,
                             double   *hi);

PlFigure *
pl_figure_new_position_bias (PlMatrix     *bias,
                             int           first_offset,
                             const int    *buckets,
                             const guint  *heads,
                             guint         n_heads)
{
  PlFigure *self;

  g_return_val_if_fail (bias != NULL && bias->rows > 0 && bias->cols > 0, NULL);
  g_return_val_if_fail (heads != NULL || n_heads == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_POSITION_BIAS);
  self->auto_x_label = g_strdup (_("Offset j − i (key − query)"));
  self->auto_y_label = g_strdup (_("Head"));
  /* short: it runs along a colour bar as tall as the heatmap */
  self->value_label = g_strdup (_("Bias"));
  self->values = pl_matrix_ref (bias);
  pl_figure_scan_extremes (self);
  self->n_xs = bias->cols;
  self->xs = g_new (double, bias->cols);
  for (gsize c = 0; c < bias->cols; c++)
    self->xs[c] = first_offset + (double) c;
  if (buckets != NULL)
    self->bias_buckets = g_memdup2 (buckets, bias->cols * sizeof (int));
  self->series = g_ptr_array_new_with_free_func (series_free);
  for (guint i = 0; i < n_heads; i++)
    {
      PlSeries *s = g_new0 (PlSeries, 1);

      g_return_val_if_fail (heads[i] < bias->rows, self);
      /* Translators: a line of the position-bias figure: attention head number, from 1 */
      s->name = g_strdup_printf (_("Head %u"), heads[i] + 1);
      s->y = g_new (double, bias->cols);
      for (gsize c = 0; c < bias->cols; c++)
        s->y[c] = pl_matrix_row (bias, heads[i])[c];
      g_ptr_array_add (self->series, s);
    }
  return self;
}

/* One pixel per cell, each coloured by its value; transparent (the
 * background shows) where the value is NaN. */
static cairo_surface_t *
ensure_image (PlFigure *self,
              double    lo,
              double    hi)
{
  cairo_surface_t *image;
  guint8 *data;
  int stride;

  if (self->image != NULL && self->image_colormap == self->colormap && self->image_reversed == self->reversed &&
      self->image_lo == lo && self->image_hi == hi)
    return self->image;
  g_clear_pointer (&self->image, cairo_surface_destroy);
  image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) self->values->cols, (int) self->values->rows);
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return NULL;
    }
  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  stride = cairo_image_surface_get_stride (image);
  for (gsize r = 0; r < self->values->rows; r++)
    {
      guint32 *out = (guint32 *) (gpointer) (data + r * stride);
      const float *row = pl_matrix_row (self->values, r);

      for (gsize c = 0; c < self->values->cols; c++)
        out[c] = isnan (row[c]) ? 0
                 : 0xff000000u | pl_colormap_lookup (self->colormap, self->reversed,
                                                     hi > lo ? CLAMP ((row[c] - lo) / (hi - lo), 0, 1) : 0.5);
    }
  cairo_surface_mark_dirty (image);
  self->image = image;
  self->image_colormap = self->colormap;
  self->image_reversed = self->reversed;
  self->image_lo = lo;
  self->image_hi = hi;
  return image;
}

static double
widest (PlDraw  *draw,
        GArray  *ticks,
        double   step,
        double   size)
{
  double w = 0;

  for (guint i = 0; i < ticks->len; i++)
    {
      g_autofree char *label = pl_format_tick (g_array_index (ticks, double, i), step);
      double lw;

      pl_draw_text_size (draw, label, size, 0, &lw, NULL);
      w = MAX (w, lw);
    }
  return w;
}

static double
legend_width (PlFigure *self,
              PlDraw   *draw,
              double    size)
{
  double w = 0;

  for (guint i = 0; i < self->series->len; i++)
    {
      PlSeries *s = g_ptr_array_index (self->series, i);
      double lw;

      pl_draw_text_size (draw, s->name, size, 0, &lw, NULL);
      w = MAX (w, SWATCH + GAP / 2 + lw);
    }
  return w;
}

/* The y axis of one panel: ticks at VALUES mapped by Y0 … Y1 onto the
 * panel's height, and its title rotated at TITLE_X. */
static void
draw_y_axis (PlFigure                *self,
             PlDraw                  *draw,
             const cairo_rectangle_t *panel,
             GArray                  *ticks,
             double                   step,
             double                   v_top,
             double                   v_bottom,
             const char              *title,
             double                   title_x)
{
  cairo_t *cr = draw->cr;
  double size = pl_figure_tick_size (self);

  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  pl_draw_set_rgb (draw, draw->axis);
  for (guint i = 0; i < ticks->len; i++)
    {
      double v = g_array_index (ticks, double, i);
      double y = panel->y + (v - v_top) / (v_bottom - v_top) * panel->height;
      g_autofree char *label = pl_format_tick (v, step);

      cairo_move_to (cr, panel->x, y);
      cairo_line_to (cr, panel->x - TICK_LENGTH, y);
      cairo_stroke (cr);
      pl_draw_text (draw, label, size, 0, draw->fg, panel->x - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
    }
  cairo_restore (cr);
  pl_draw_text (draw, title, pl_draw_fit_size (draw, title, self->font_size, 0, panel->height + 2 * GAP),
                PL_TEXT_AXIS_TITLE, draw->fg, title_x, panel->y + panel->height / 2, 0.5, 0, -G_PI / 2);
}

void
pl_figure_bias_render (PlFigure                *self,
                       PlDraw                  *draw,
                       const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  double size = pl_figure_tick_size (self);
  double first = self->xs[0], last = self->xs[self->n_xs - 1];
  guint heads = self->values->rows;
  g_autoptr(GArray) xticks = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) hticks = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) bticks = g_array_new (FALSE, FALSE, sizeof (double));
  double lo, hi, blo = INFINITY, bhi = -INFINITY, tick_h, label_h, left, right, top, bottom;
  double bar_w, legend_w, plot_w, map_h, lines_h, hstep, bstep, xstep;
  gboolean curves = self->series->len > 0;
  cairo_rectangle_t map, lines, bar;
  cairo_surface_t *image;
  guint n_edges = 0;

  pl_figure_heatmap_auto_range (self, &lo, &hi);
  if (!curve_range (self, &blo, &bhi))
    blo = 0, bhi = 1;

  pl_draw_text_size (draw, "0", size, 0, NULL, &tick_h);
  pl_draw_text_size (draw, "Head", self->font_size, 0, NULL, &label_h);
  top = pl_draw_top_room (draw, area->width - 2 * GAP, tick_h);
  bottom = TICK_LENGTH + TICK_GAP + tick_h + GAP + label_h + GAP;

  /* The heatmap takes more of the height when there are no curves. */
  {
    double h = MAX (area->height - top - bottom, 20);

    map_h = curves ? MAX ((h - PANEL_GAP) * 0.5, 10) : h;
    lines_h = curves ? MAX (h - PANEL_GAP - map_h, 10) : 0;
  }
  /* Heads count from 1 on the axis, as everywhere the app names them. */
  hstep = pl_nice_ticks (1, heads, (guint) CLAMP (map_h / (tick_h * 2.2), 1, 10), TRUE, hticks);
  bstep = curves ? pl_nice_ticks (blo, bhi, (guint) CLAMP (lines_h / (tick_h * 2.2), 2, 8), FALSE, bticks) : 1;
  left = GAP + label_h + GAP + MAX (widest (draw, hticks, hstep, size), widest (draw, bticks, bstep, size)) +
         TICK_LENGTH + TICK_GAP;
  {
    cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, map_h };

    bar_w = pl_draw_colorbar (draw, &probe, lo, hi, TRUE);
  }
  legend_w = curves ? legend_width (self, draw, size) : 0;
  right = MAX (BAR_GAP + bar_w, curves ? BAR_GAP + legend_w : 0) + GAP;
  plot_w = MAX (area->width - left - right, 10);

  map = (cairo_rectangle_t) { area->x + left, area->y + top, plot_w, map_h };
  lines = (cairo_rectangle_t) { map.x, map.y + map_h + PANEL_GAP, plot_w, lines_h };
  self->plot_area = map;
  self->lines_area = lines;

  /* The map: cell (column, row) spans the offset column and the head row. */
  image = ensure_image (self, lo, hi);
  if (image != NULL)
    {
      cairo_save (cr);
      cairo_rectangle (cr, map.x, map.y, map.width, map.height);
      cairo_clip (cr);
      cairo_translate (cr, map.x, map.y);
      cairo_scale (cr, map.width / self->values->cols, map.height / heads);
      cairo_set_source_surface (cr, image, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
    }
  pl_draw_frame (draw, &map);
  /* heads: row r, head r + 1, spans [r, r + 1) from the top */
  draw_y_axis (self, draw, &map, hticks, hstep, 0.5, heads + 0.5, pl_figure_y_label (self),
               area->x + GAP);
  bar = (cairo_rectangle_t) { map.x + map.width + BAR_GAP, map.y, BAR_WIDTH, map.height };
  pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
  self->colorbar_area = bar;
  self->has_colorbar = TRUE;

  /* The curves, on the map's offset axis */
  if (curves)
    {
      cairo_save (cr);
      cairo_rectangle (cr, lines.x, lines.y, lines.width, lines.height);
      cairo_clip (cr);
      cairo_set_line_width (cr, 0.5);
      pl_draw_set_rgb (draw, draw->muted);
      if (blo < 0 && bhi > 0)
        {
          double y0 = lines.y + (bhi - 0) / (bhi - blo) * lines.height;

          cairo_move_to (cr, lines.x, y0);
          cairo_line_to (cr, lines.x + lines.width, y0);
          cairo_stroke (cr);
        }
      cairo_set_line_width (cr, 1.5);
      cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
      for (guint i = 0; i < self->series->len; i++)
        {
          PlSeries *s = g_ptr_array_index (self->series, i);
          gboolean down = FALSE;
          double rgb[3];

          pl_figure_series_rgb (self, i, self->series->len, rgb);
          pl_draw_set_rgb (draw, rgb);
          for (gsize c = 0; c < self->n_xs; c++)
            {
              double x = lines.x + (c + 0.5) / self->n_xs * lines.width;
              double y = lines.y + (bhi - s->y[c]) / (bhi - blo) * lines.height;

              if (!isfinite (s->y[c]))
                {
                  down = FALSE;
                  continue;
                }
              if (down)
                cairo_line_to (cr, x, y);
              else
                cairo_move_to (cr, x, y);
              down = TRUE;
            }
          cairo_stroke (cr);
        }
      cairo_restore (cr);
      pl_draw_frame (draw, &lines);
      draw_y_axis (self, draw, &lines, bticks, bstep, bhi, blo, _("Bias"), area->x + GAP);
      /* the legend beside the curves */
      for (guint i = 0; i < self->series->len; i++)
        {
          PlSeries *s = g_ptr_array_index (self->series, i);
          double x = lines.x + lines.width + BAR_GAP, y = lines.y + i * (tick_h + GAP / 2);
          double rgb[3];

          if (y + tick_h > lines.y + lines.height)
            break;
          pl_figure_series_rgb (self, i, self->series->len, rgb);
          pl_draw_set_rgb (draw, rgb);
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, x, y + tick_h / 2);
          cairo_line_to (cr, x + SWATCH, y + tick_h / 2);
          cairo_stroke (cr);
          pl_draw_text (draw, s->name, size, 0, draw->fg, x + SWATCH + GAP / 2, y, 0, 0, 0);
        }
    }

  /* T5's bucket edges across both panels */
  if (self->bias_buckets != NULL)
    {
      double bottom_y = curves ? lines.y + lines.height : map.y + map.height;
      static const double dash[] = { 1.5, 2.0 };

      cairo_save (cr);
      cairo_set_line_width (cr, 0.6);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      pl_draw_set_rgb (draw, draw->fg);
      for (gsize c = 1; c < self->n_xs && n_edges < MAX_EDGES; c++)
        {
          int a = self->bias_buckets[c - 1], b = self->bias_buckets[c];
          double x = map.x + (double) c / self->n_xs * map.width;

          if (a < 0 || b < 0 || a == b)
            continue;
          cairo_move_to (cr, x, map.y - TICK_LENGTH);
          cairo_line_to (cr, x, bottom_y);
          n_edges++;
        }
      cairo_stroke (cr);
      cairo_restore (cr);
    }

  /* The shared offset axis under the lower panel */
  {
    const cairo_rectangle_t *axis = curves ? &lines : &map;
    double w = 0;

    pl_nice_ticks (first, last, 12, TRUE, xticks);
    w = widest (draw, xticks, 1, size);
    xstep = pl_nice_ticks (first, last, (guint) CLAMP (plot_w / (w + tick_h * 2.5), 2, 12), TRUE, xticks);
    pl_figure_record_ticks (self, 0, xticks);
    pl_figure_record_ticks (self, 1, hticks);
    cairo_save (cr);
    cairo_set_line_width (cr, 0.75);
    pl_draw_set_rgb (draw, draw->axis);
    for (guint i = 0; i < xticks->len; i++)
      {
        double v = g_array_index (xticks, double, i);
        double x = axis->x + (v - first + 0.5) / self->n_xs * axis->width;
        g_autofree char *label = pl_format_tick (v, xstep);

        cairo_move_to (cr, x, axis->y + axis->height);
        cairo_line_to (cr, x, axis->y + axis->height + TICK_LENGTH);
        if (curves)
          {
            cairo_move_to (cr, x, map.y + map.height);
            cairo_line_to (cr, x, map.y + map.height + TICK_LENGTH);
          }
        cairo_stroke (cr);
        pl_draw_text (draw, label, size, 0, draw->fg, x, axis->y + axis->height + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
      }
    cairo_restore (cr);
    pl_draw_text (draw, pl_figure_x_label (self),
                  pl_draw_fit_size (draw, pl_figure_x_label (self), self->font_size, 0, area->width - 2 * GAP),
                  PL_TEXT_AXIS_TITLE, draw->fg, axis->x + axis->width / 2,
                  axis->y + axis->height + TICK_LENGTH + TICK_GAP + tick_h + GAP, 0.5, 0, 0);
  }
  pl_draw_title (draw, map.x + map.width / 2,
                 map.y - pl_draw_title_gap (tick_h) - (self->bias_buckets ? TICK_LENGTH : 0),
                 area->x + GAP, area->x + area->width - GAP);
}

gboolean
pl_figure_bias_hit (PlFigure *self,
                    double    x,
                    double    y,
                    guint    *column,
                    guint    *row)
{
  const cairo_rectangle_t *m = &self->plot_area;

  if (!self->rendered || x < m->x || y < m->y || x >= m->x + m->width || y >= m->y + m->height)
    return FALSE;
  *column = MIN ((guint) ((x - m->x) / m->width * self->values->cols), self->values->cols - 1);
  *row = MIN ((guint) ((y - m->y) / m->height * self->values->rows), self->values->rows - 1);
  return TRUE;
}

gboolean
pl_figure_hit_bias_curve (PlFigure *self,
                          double    x,
                          double    y,
                          guint    *series,
                          guint    *column)
{
  const cairo_rectangle_t *l = &self->lines_area;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->kind != PL_FIGURE_POSITION_BIAS || !self->rendered || self->series->len == 0 ||
      x < l->x || y < l->y || x >= l->x + l->width || y >= l->y + l->height)
    return FALSE;
  *column = MIN ((guint) ((x - l->x) / l->width * self->n_xs), self->n_xs - 1);
  /* the curve nearest in value at that offset */
  {
    double best = INFINITY, lo, hi;
    guint found = 0;

    if (!curve_range (self, &lo, &hi))
      return FALSE;
    for (guint i = 0; i < self->series->len; i++)
      {
        PlSeries *s = g_ptr_array_index (self->series, i);
        double v = s->y[*column], py;

        if (!isfinite (v))
          continue;
        py = l->y + (hi - v) / (hi - lo) * l->height;
        if (fabs (py - y) < best)
          best = fabs (py - y), found = i;
      }
    if (!isfinite (best))
      return FALSE;
    *series = found;
  }
  return TRUE;
}

static gboolean
curve_range (PlFigure *self,
             double   *lo,
             double   *hi)
{
  double blo = INFINITY, bhi = -INFINITY;

  for (guint i = 0; i < self->series->len; i++)
    {
      PlSeries *s = g_ptr_array_index (self->series, i);
      double a, b;

      if (pl_finite_range (s->y, self->n_xs, &a, &b))
        blo = MIN (blo, a), bhi = MAX (bhi, b);
    }
  if (!isfinite (blo))
    return FALSE;
  pl_pad_range (&blo, &bhi, 0.06);
  *lo = blo;
  *hi = bhi;
  return TRUE;
}
