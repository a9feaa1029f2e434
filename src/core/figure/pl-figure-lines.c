/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-private.h"

/* Line plots (one line per layer or head, with a legend), scatter plots
 * (coloured by a value, with a colour bar) and bars (with an optional running
 * total), all on the numeric axes of pl-figure-axes.c. */

#define GAP          6.0
#define BAR_WIDTH   10.0
#define BAR_GAP     12.0
#define SWATCH      14.0
/* Past this many series a legend stops being readable: a colour bar over
 * the series' order replaces it. */
#define MAX_LEGEND  16
/* The ring around a picked scatter point (points are 3.2 across the radius). */
#define HIGHLIGHT_RING 6.5

static void
series_free (gpointer data)
{
  PlSeries *s = data;

  g_free (s->name);
  g_free (s->y);
  g_free (s);
}

PlFigure *
pl_figure_new_lines (const double *x,
                     gsize         n)
{
  PlFigure *self;

  g_return_val_if_fail (x != NULL || n == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_LINES);
  self->xs = g_memdup2 (x, n * sizeof (double));
  self->n_xs = n;
  self->series = g_ptr_array_new_with_free_func (series_free);
  self->integer_scale = TRUE;    /* the colour bar, past MAX_LEGEND series, counts series */
  self->highlight_series = -1;

  return self;
}

void
pl_figure_set_highlight_series (PlFigure *self,
                                int       index)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_LINES || self->kind == PL_FIGURE_SCATTER);

  self->highlight_series = index;
}

gboolean
pl_figure_hit_line (PlFigure *self,
                    double    x,
                    double    y,
                    double    radius,
                    guint    *series,
                    guint    *index)
{
  int point;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->kind != PL_FIGURE_LINES || !self->rendered)
    return FALSE;
  for (guint i = 0; self->label_boxes != NULL && i < self->label_boxes->len; i++)
    {
      PlLabelBox *box = &g_array_index (self->label_boxes, PlLabelBox, i);

      if (x >= box->box.x && x < box->box.x + box->box.width && y >= box->box.y && y < box->box.y + box->box.height)
        {
          *series = box->index;
          *index = G_MAXUINT;
          return TRUE;
        }
    }
  /* The points run series by series, n_xs each. */
  if ((point = pl_figure_hit_point (self, x, y, radius)) < 0 || self->n_xs == 0)
    return FALSE;
  *series = point / self->n_xs;
  *index = point % self->n_xs;
  return TRUE;
}

void
pl_figure_add_series (PlFigure     *self,
                      const char   *name,
                      const double *y)
{
  PlSeries *s;

  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_LINES);
  g_return_if_fail (y != NULL || self->n_xs == 0);

  s = g_new0 (PlSeries, 1);
  s->name = g_strdup (name != NULL ? name : "");
  s->y = g_memdup2 (y, self->n_xs * sizeof (double));
  g_ptr_array_add (self->series, s);
}

void
pl_figure_set_x_integers (PlFigure *self,
                          gboolean  integers)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->x_integers = !!integers;
}

PlFigure *
pl_figure_new_scatter (const double *x,
                       const double *y,
                       gsize         n)
{
  PlFigure *self;

  g_return_val_if_fail ((x != NULL && y != NULL) || n == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_SCATTER);
  self->xs = g_memdup2 (x, n * sizeof (double));
  self->ys = g_memdup2 (y, n * sizeof (double));
  self->n_xs = n;
  self->n_points = n;
  self->highlight_series = -1;
  self->points = g_new (double, 2 * MAX (n, 1));
  for (gsize i = 0; i < 2 * n; i++)
    self->points[i] = NAN;

  return self;
}

void
pl_figure_set_point_values (PlFigure     *self,
                            const double *values)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_SCATTER);

  g_clear_pointer (&self->point_values, g_free);
  self->integer_scale = FALSE;
  if (values != NULL)
    {
      self->point_values = g_memdup2 (values, self->n_xs * sizeof (double));
      /* Heads, layers: label the scale with whole numbers only. */
      self->integer_scale = TRUE;
      for (gsize i = 0; i < self->n_xs; i++)
        if (isfinite (values[i]) && values[i] != floor (values[i]))
          self->integer_scale = FALSE;
    }
}

PlFigure *
pl_figure_new_bars (const double       *values,
                    gsize               n,
                    const char * const *labels)
{
  PlFigure *self;

  g_return_val_if_fail (values != NULL || n == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_BARS);
  self->ys = g_memdup2 (values, n * sizeof (double));
  self->n_xs = n;
  self->categories = g_new0 (char *, n + 1);
  for (gsize i = 0; i < n; i++)
    self->categories[i] = labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%zu", i + 1);

  return self;
}

void
pl_figure_set_cumulative (PlFigure *self,
                          gboolean  cumulative)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->cumulative = !!cumulative;
}

/* ---- Lines ---------------------------------------------------------------- */

static double
legend_width (PlDraw *draw)
{
  PlFigure *self = draw->figure;
  double widest = 0;

  for (guint s = 0; s < self->series->len; s++)
    {
      PlSeries *series = g_ptr_array_index (self->series, s);
      double w;

      pl_draw_text_size (draw, series->name, pl_figure_tick_size (self), 0, &w, NULL);
      widest = MAX (widest, w);
    }
  return BAR_GAP + SWATCH + 4 + widest + GAP;
}

static void
draw_legend (PlDraw                  *draw,
             const cairo_rectangle_t *plot)
{
  PlFigure *self = draw->figure;
  cairo_t *cr = draw->cr;
  double size = pl_figure_tick_size (self);
  double row_h, x = plot->x + plot->width + BAR_GAP, y = plot->y;
  guint n = self->series->len;

  pl_draw_text_size (draw, "Ag", size, 0, NULL, &row_h);
  row_h *= 1.25;
  if (self->label_boxes == NULL)
    self->label_boxes = g_array_new (FALSE, FALSE, sizeof (PlLabelBox));
  cairo_save (cr);
  cairo_set_line_width (cr, 1.6);
  for (guint s = 0; s < n; s++)
    {
      PlSeries *series = g_ptr_array_index (self->series, s);
      double rgb[3], cy = y + row_h * (s + 0.5);

      PlLabelBox box = { 2, s, { x, cy - row_h / 2, legend_width (draw) - BAR_GAP, row_h } };

      pl_figure_series_rgb (self, s, n, rgb);
      pl_draw_set_rgb (draw, rgb);
      cairo_set_line_width (cr, (int) s == self->highlight_series ? 3.5 : 1.6);
      cairo_move_to (cr, x, cy);
      cairo_line_to (cr, x + SWATCH, cy);
      cairo_stroke (cr);
      pl_draw_text (draw, series->name, size, 0, draw->fg, x + SWATCH + 4, cy, 0, 0.5, 0);
      /* Where each entry landed, for clicks on the legend. */
      g_array_append_val (self->label_boxes, box);
    }
  cairo_restore (cr);
}

void
pl_figure_lines_render (PlFigure                *self,
                        PlDraw                  *draw,
                        const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  guint n_series = self->series->len;
  gboolean legend = n_series <= MAX_LEGEND;
  double xlo, xhi, ylo = INFINITY, yhi = -INFINITY, right = GAP;
  gboolean integers = TRUE;
  PlAxes axes;

  if (!pl_finite_range (self->xs, self->n_xs, &xlo, &xhi))
    xlo = 0, xhi = 1;
  for (gsize i = 0; i < self->n_xs; i++)
    if (self->xs[i] != floor (self->xs[i]))
      integers = FALSE;
  for (guint s = 0; s < n_series; s++)
    {
      PlSeries *series = g_ptr_array_index (self->series, s);
      double a, b;

      if (pl_finite_range (series->y, self->n_xs, &a, &b))
        {
          ylo = MIN (ylo, a);
          yhi = MAX (yhi, b);
        }
    }
  pl_pad_range (&xlo, &xhi, 0.02);
  pl_pad_range (&ylo, &yhi, 0.05);

  pl_axes_init (&axes);
  axes.x0 = xlo;
  axes.x1 = xhi;
  axes.y0 = ylo;
  axes.y1 = yhi;
  axes.x_integers = integers || self->x_integers;
  if (n_series > 0)
    {
      if (legend)
        right = legend_width (draw);
      else
        {
          cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - 4 * GAP, 10) };
          right = BAR_GAP + pl_draw_colorbar (draw, &probe, 0, n_series - 1, TRUE) + GAP;
        }
    }
  pl_axes_layout (draw, &axes, area, right);
  self->plot_area = axes.plot;
  pl_axes_draw_grid (draw, &axes);

  /* Every value's place, series by series, for hit tests. */
  g_free (self->points);
  self->n_points = (gsize) n_series * self->n_xs;
  self->points = g_new (double, 2 * MAX (self->n_points, 1));
  if (self->label_boxes != NULL)
    g_array_set_size (self->label_boxes, 0);

  cairo_save (cr);
  cairo_rectangle (cr, axes.plot.x, axes.plot.y, axes.plot.width, axes.plot.height);
  cairo_clip (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint k = 0; k < n_series; k++)
    {
      /* The highlighted series last, over the others. */
      int h = self->highlight_series;
      guint s = h >= 0 && (guint) h < n_series ? (k < (guint) h ? k : k == n_series - 1 ? (guint) h : k + 1) : k;
      gboolean faded = h >= 0 && (guint) h < n_series && s != (guint) h;
      PlSeries *series = g_ptr_array_index (self->series, s);
      gboolean pen_down = FALSE;
      double rgb[3];

      cairo_set_line_width (cr, n_series > MAX_LEGEND ? 0.9 : h >= 0 && s == (guint) h ? 3.0 : 1.5);
      if (faded)
        cairo_push_group (cr);
      for (gsize i = 0; i < self->n_xs; i++)
        {
          double *point = &self->points[2 * ((gsize) s * self->n_xs + i)];

          point[0] = point[1] = NAN;
          if (isfinite (series->y[i]) && isfinite (self->xs[i]))
            {
              point[0] = pl_axes_px (&axes, self->xs[i]);
              point[1] = pl_axes_py (&axes, series->y[i]);
            }
        }

      /* With a colour bar for a key, the lines span the whole map as the bar does. */
      if (legend)
        pl_figure_series_rgb (self, s, n_series, rgb);
      else
        pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed,
                                             n_series > 1 ? (double) s / (n_series - 1) : 0.5), rgb);
      pl_draw_set_rgb (draw, rgb);
      for (gsize i = 0; i < self->n_xs; i++)
        {
          if (!isfinite (series->y[i]) || !isfinite (self->xs[i]))
            {
              pen_down = FALSE;
              continue;
            }
          if (pen_down)
            cairo_line_to (cr, pl_axes_px (&axes, self->xs[i]), pl_axes_py (&axes, series->y[i]));
          else
            cairo_move_to (cr, pl_axes_px (&axes, self->xs[i]), pl_axes_py (&axes, series->y[i]));
          pen_down = TRUE;
        }
      cairo_stroke (cr);
      /* Dots on the values when they are few enough to count. */
      if (self->n_xs <= 40 && n_series <= MAX_LEGEND)
        for (gsize i = 0; i < self->n_xs; i++)
          if (isfinite (series->y[i]))
            {
              cairo_new_sub_path (cr);
              cairo_arc (cr, pl_axes_px (&axes, self->xs[i]), pl_axes_py (&axes, series->y[i]), 1.8, 0, 2 * G_PI);
              cairo_fill (cr);
            }
      if (faded)
        {
          cairo_pop_group_to_source (cr);
          cairo_paint_with_alpha (cr, 0.3);
        }
    }
  cairo_restore (cr);

  pl_axes_draw (draw, &axes);
  if (n_series > 0 && legend)
    draw_legend (draw, &axes.plot);
  else if (n_series > 0)
    {
      cairo_rectangle_t bar = { axes.plot.x + axes.plot.width + BAR_GAP, axes.plot.y, BAR_WIDTH, axes.plot.height };
      pl_draw_colorbar (draw, &bar, 0, n_series - 1, FALSE);
      self->colorbar_area = bar;
      self->has_colorbar = TRUE;
    }
  pl_axes_clear (&axes);
}

/* ---- Scatter -------------------------------------------------------------- */

void
pl_figure_scatter_render (PlFigure                *self,
                          PlDraw                  *draw,
                          const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  double xlo, xhi, ylo, yhi, vlo = 0, vhi = 1, right = GAP;
  gboolean integers = TRUE;
  double plain[3];
  PlAxes axes;

  if (!pl_finite_range (self->xs, self->n_xs, &xlo, &xhi))
    xlo = 0, xhi = 1;
  if (!pl_finite_range (self->ys, self->n_xs, &ylo, &yhi))
    ylo = 0, yhi = 1;
  for (gsize i = 0; i < self->n_xs; i++)
    if (self->xs[i] != floor (self->xs[i]))
      integers = FALSE;
  pl_pad_range (&xlo, &xhi, 0.05);
  pl_pad_range (&ylo, &yhi, 0.05);

  pl_axes_init (&axes);
  axes.x0 = xlo;
  axes.x1 = xhi;
  axes.y0 = ylo;
  axes.y1 = yhi;
  axes.x_integers = integers || self->x_integers;
  if (self->point_values != NULL)
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - 4 * GAP, 10) };

      pl_figure_value_range (self, &vlo, &vhi);
      right = BAR_GAP + pl_draw_colorbar (draw, &probe, vlo, vhi, TRUE) + GAP;
    }
  pl_axes_layout (draw, &axes, area, right);
  self->plot_area = axes.plot;
  pl_axes_draw_grid (draw, &axes);

  pl_figure_series_rgb (self, 0, 2, plain);
  cairo_save (cr);
  cairo_rectangle (cr, axes.plot.x, axes.plot.y, axes.plot.width, axes.plot.height);
  cairo_clip (cr);
  cairo_set_line_width (cr, 0.6);
  for (gsize i = 0; i < self->n_xs; i++)
    {
      double x, y, rgb[3], casing[3];

      if (!isfinite (self->xs[i]) || !isfinite (self->ys[i]))
        {
          self->points[2 * i] = self->points[2 * i + 1] = NAN;
          continue;
        }
      x = self->points[2 * i] = pl_axes_px (&axes, self->xs[i]);
      y = self->points[2 * i + 1] = pl_axes_py (&axes, self->ys[i]);
      if (self->point_values != NULL)
        pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed,
                                             vhi > vlo ? (self->point_values[i] - vlo) / (vhi - vlo) : 0.5), rgb);
      else
        memcpy (rgb, plain, sizeof rgb);
      cairo_new_sub_path (cr);
      cairo_arc (cr, x, y, 3.2, 0, 2 * G_PI);
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.85);
      cairo_fill_preserve (cr);
      /* Outlined in the background to stand apart, or lighter where the
       * point alone would melt into a dark background. */
      if (!pl_draw_casing (draw, rgb, casing))
        memcpy (casing, draw->bg, sizeof casing);
      pl_draw_set_rgb (draw, casing);
      cairo_stroke (cr);
    }
  if (self->highlight_series >= 0 && (gsize) self->highlight_series < self->n_xs &&
      isfinite (self->points[2 * self->highlight_series]))
    {
      /* The picked point: a ring clear of its fill, in the text's colour. */
      cairo_new_path (cr);
      cairo_arc (cr, self->points[2 * self->highlight_series], self->points[2 * self->highlight_series + 1],
                 HIGHLIGHT_RING, 0, 2 * G_PI);
      cairo_set_line_width (cr, 2);
      pl_draw_set_rgb (draw, draw->fg);
      cairo_stroke (cr);
    }
  cairo_restore (cr);

  pl_axes_draw (draw, &axes);
  if (self->point_values != NULL)
    {
      cairo_rectangle_t bar = { axes.plot.x + axes.plot.width + BAR_GAP, axes.plot.y, BAR_WIDTH, axes.plot.height };

      pl_draw_colorbar (draw, &bar, vlo, vhi, FALSE);
      self->colorbar_area = bar;
      self->has_colorbar = TRUE;
    }
  pl_axes_clear (&axes);
}

/* ---- Bars ----------------------------------------------------------------- */

int
pl_figure_hit_bar (PlFigure *self,
                   double    x,
                   double    y)
{
  const cairo_rectangle_t *plot;
  double at;

  g_return_val_if_fail (PL_IS_FIGURE (self), -1);

  plot = &self->plot_area;
  if (self->kind != PL_FIGURE_BARS || !self->rendered || self->n_xs == 0 || plot->width <= 0 ||
      y < plot->y || y > plot->y + plot->height)
    return -1;
  /* The axis runs from −0.6 to N − 0.4, bar i centred on i. */
  at = -0.6 + (x - plot->x) / plot->width * self->n_xs;
  if (at < -0.5 || at >= self->n_xs - 0.5)
    return -1;
  return (int) floor (at + 0.5);
}

void
pl_figure_bars_render (PlFigure                *self,
                       PlDraw                  *draw,
                       const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  gsize n = self->n_xs;
  double lo = 0, hi = 0, total = 0, rgb[3], line[3];
  PlAxes axes;

  for (gsize i = 0; i < n; i++)
    if (isfinite (self->ys[i]))
      {
        lo = MIN (lo, self->ys[i]);
        hi = MAX (hi, self->ys[i]);
        total += self->ys[i];
        if (self->cumulative)
          hi = MAX (hi, total);
      }
  if (hi <= lo)
    hi = lo + 1;
  /* Bars stand on zero: pad only away from it. */
  if (lo < 0)
    lo -= (hi - lo) * 0.05;
  hi += (hi - lo) * 0.05;

  pl_axes_init (&axes);
  axes.x0 = -0.6;
  axes.x1 = MAX (n, 1) - 0.4;
  axes.y0 = lo;
  axes.y1 = hi;
  axes.x_categories = self->categories;
  pl_axes_layout (draw, &axes, area, GAP);
  self->plot_area = axes.plot;
  pl_axes_draw_grid (draw, &axes);

  pl_figure_series_rgb (self, 1, 3, rgb);
  pl_figure_series_rgb (self, 0, 3, line);
  cairo_save (cr);
  for (gsize i = 0; i < n; i++)
    {
      double x0 = pl_axes_px (&axes, i - 0.38), x1 = pl_axes_px (&axes, i + 0.38);
      double y0 = pl_axes_py (&axes, 0), y1;

      if (!isfinite (self->ys[i]))
        continue;
      y1 = pl_axes_py (&axes, self->ys[i]);
      pl_draw_set_rgb (draw, rgb);
      cairo_rectangle (cr, x0, MIN (y0, y1), x1 - x0, fabs (y1 - y0));
      cairo_fill (cr);
    }
  if (self->cumulative && n > 0)
    {
      double run = 0;

      pl_draw_set_rgb (draw, line);
      cairo_set_line_width (cr, 1.5);
      for (gsize i = 0; i < n; i++)
        {
          run += isfinite (self->ys[i]) ? self->ys[i] : 0;
          if (i == 0)
            cairo_move_to (cr, pl_axes_px (&axes, i), pl_axes_py (&axes, run));
          else
            cairo_line_to (cr, pl_axes_px (&axes, i), pl_axes_py (&axes, run));
        }
      cairo_stroke (cr);
      run = 0;
      for (gsize i = 0; i < n; i++)
        {
          run += isfinite (self->ys[i]) ? self->ys[i] : 0;
          cairo_new_sub_path (cr);
          cairo_arc (cr, pl_axes_px (&axes, i), pl_axes_py (&axes, run), 2.2, 0, 2 * G_PI);
          cairo_fill (cr);
        }
    }
  if (lo < 0)
    {
      pl_draw_set_rgb (draw, draw->axis);
      cairo_set_line_width (cr, 0.75);
      cairo_move_to (cr, axes.plot.x, pl_axes_py (&axes, 0));
      cairo_line_to (cr, axes.plot.x + axes.plot.width, pl_axes_py (&axes, 0));
      cairo_stroke (cr);
    }
  cairo_restore (cr);

  pl_axes_draw (draw, &axes);
  if (self->cumulative && n > 0)
    {
      double size = pl_figure_tick_size (self);

      /* A key for the line, inside the top left corner where the running total is lowest. */
      cairo_save (cr);
      pl_draw_set_rgb (draw, line);
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, axes.plot.x + GAP, axes.plot.y + GAP + size / 2);
      cairo_line_to (cr, axes.plot.x + GAP + SWATCH, axes.plot.y + GAP + size / 2);
      cairo_stroke (cr);
      cairo_restore (cr);
      pl_draw_text (draw, "Cumulative", size, PL_TEXT_HALO, draw->fg,
                    axes.plot.x + GAP + SWATCH + 4, axes.plot.y + GAP + size / 2, 0, 0.5, 0);
    }
  pl_axes_clear (&axes);
}
