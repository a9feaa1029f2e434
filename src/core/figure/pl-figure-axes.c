/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-private.h"

/* Ticks, frames, the colour bar and numeric axes shared by every figure kind. */

#define TICK_LENGTH 3.5
#define TICK_GAP    2.5
#define LINE_WIDTH  0.75

void
pl_ticks_at_step (double  lo,
                  double  hi,
                  double  step,
                  GArray *ticks)
{
  double first;

  g_array_set_size (ticks, 0);
  if (!(step > 0) || !isfinite (lo) || !isfinite (hi))
    return;
  first = ceil (lo / step - 1e-9) * step;
  for (double v = first; v <= hi + step * 1e-9; v += step)
    {
      /* Snap away the accumulated error so labels read "0.3", not "0.30000001". */
      double snapped = round (v / step) * step;

      if (fabs (snapped) < step * 1e-9)
        snapped = 0;
      g_array_append_val (ticks, snapped);
      if (ticks->len > 1000)
        break;
    }
}

static double
ticks_at_step (double   lo,
               double   hi,
               guint    max_ticks,
               gboolean integers,
               GArray  *ticks)
{
  double range = hi - lo, raw, mag, norm, step;

  if (range <= 0)
    range = fabs (lo) > 0 ? fabs (lo) : 1;
  raw = range / MAX (max_ticks, 1);
  mag = pow (10, floor (log10 (raw)));
  norm = raw / mag;
  if (norm <= 1)
    step = mag;
  else if (norm <= 2)
    step = 2 * mag;
  else if (norm <= 5)
    step = 5 * mag;
  else
    step = 10 * mag;
  if (integers && step < 1)
    step = 1;

  pl_ticks_at_step (lo, hi, step, ticks);
  return step;
}

double
pl_nice_ticks (double    lo,
               double    hi,
               guint     max_ticks,
               gboolean  integers,
               GArray   *ticks)
{
  double step;

  g_array_set_size (ticks, 0);
  if (!isfinite (lo) || !isfinite (hi))
    return 1;
  if (hi < lo)
    {
      double t = lo;
      lo = hi;
      hi = t;
    }

  max_ticks = MAX (max_ticks, 2);
  step = ticks_at_step (lo, hi, max_ticks, integers, ticks);
  /* An axis needs two labels to be read; ask for finer steps until it has them. */
  for (guint more = max_ticks + 1; ticks->len < 2 && hi > lo && more <= max_ticks + 8; more++)
    step = ticks_at_step (lo, hi, more, integers, ticks);

  return step;
}

static const char * const superscripts[] = {
  "\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", "\xe2\x81\xb4",
  "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9",
};

/* "2.5×10⁶", for numbers too large or too small to print plainly. */
static char *
format_scientific (double value,
                   double step)
{
  int exponent = (int) floor (log10 (fabs (value)) + 1e-12);
  double mantissa = value / pow (10, exponent);
  int decimals = 2;
  GString *out;
  g_autofree char *digits = NULL;
  g_autofree char *expo = NULL;

  /* As many digits as the step needs, so neighbours never print alike:
   * 1.98×10⁻³ next to 2.00×10⁻³ (step 2×10⁻⁵), 1.5×10⁶ (step 5×10⁵), and
   * one more for steps like 2.5. */
  if (step > 0)
    {
      int step_exponent = (int) floor (log10 (step) + 1e-9);
      double step_mantissa = step / pow (10, step_exponent);

      decimals = exponent - step_exponent + (fabs (step_mantissa - round (step_mantissa)) > 1e-6 ? 1 : 0);
    }
  decimals = CLAMP (decimals, 0, 4);
  out = g_string_new (NULL);
  expo = g_strdup_printf ("%d", ABS (exponent));

  /* Round-trip "9.99×10²" to "1×10³". */
  digits = g_strdup_printf ("%.*f", decimals, fabs (mantissa));
  if (g_ascii_strtod (digits, NULL) >= 10)
    {
      exponent++;
      mantissa /= 10;
      g_free (digits);
      g_free (expo);
      digits = g_strdup_printf ("%.*f", decimals, fabs (mantissa));
      expo = g_strdup_printf ("%d", ABS (exponent));
    }
  if (mantissa < 0)
    g_string_append (out, "\xe2\x88\x92");
  if (!g_str_equal (digits, "1"))
    g_string_append_printf (out, "%s\xc3\x97", digits);     /* × */
  g_string_append (out, "10");
  if (exponent < 0)
    g_string_append (out, "\xe2\x81\xbb");                  /* superscript minus */
  for (const char *d = expo; *d; d++)
    g_string_append (out, superscripts[*d - '0']);

  return g_string_free (out, FALSE);
}

char *
pl_format_tick (double value,
                double step)
{
  int decimals = 0;
  g_autofree char *plain = NULL;

  if (fabs (value) >= 1e5 || (step < 1e-3 && step > 0))
    return value == 0 ? g_strdup ("0") : format_scientific (value, step);

  if (step > 0 && step < 1)
    decimals = (int) ceil (-log10 (step) - 1e-9);
  /* Steps like 0.25 need one more digit than their magnitude. */
  if (decimals > 0 && fabs (round (step * pow (10, decimals)) - step * pow (10, decimals)) > 1e-6)
    decimals++;
  decimals = CLAMP (decimals, 0, 9);

  plain = g_strdup_printf ("%.*f", decimals, value);
  if (plain[0] == '-')
    {
      if (strspn (plain + 1, "0.") == strlen (plain + 1))
        return g_strdup (plain + 1);
      return g_strconcat ("\xe2\x88\x92", plain + 1, NULL);   /* U+2212 minus */
    }
  return g_steal_pointer (&plain);
}

void
pl_draw_frame (PlDraw                  *draw,
               const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;

  cairo_save (cr);
  cairo_set_line_width (cr, LINE_WIDTH);
  pl_draw_set_rgb (draw, draw->axis);
  cairo_rectangle (cr, area->x, area->y, area->width, area->height);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static cairo_surface_t *
ensure_bar_image (PlFigure *self)
{
  if (self->bar_image != NULL &&
      self->bar_colormap == self->colormap &&
      self->bar_reversed == self->reversed)
    return self->bar_image;

  g_clear_pointer (&self->bar_image, cairo_surface_destroy);
  {
    guint32 lut[PL_COLORMAP_N_ENTRIES];
    cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, PL_COLORMAP_N_ENTRIES);
    guint8 *data = cairo_image_surface_get_data (image);
    int stride = cairo_image_surface_get_stride (image);

    pl_colormap_fill_argb (self->colormap, self->reversed, lut);
    /* Top row is the high end of the scale. */
    for (guint i = 0; i < PL_COLORMAP_N_ENTRIES; i++)
      *(guint32 *) (gpointer) (data + (gsize) i * stride) = lut[PL_COLORMAP_N_ENTRIES - 1 - i];
    cairo_surface_mark_dirty (image);
    self->bar_image = image;
    self->bar_colormap = self->colormap;
    self->bar_reversed = self->reversed;
  }

  return self->bar_image;
}

double
pl_draw_colorbar (PlDraw                  *draw,
                  const cairo_rectangle_t *bar,
                  double                   lo,
                  double                   hi,
                  gboolean                 measure_only)
{
  PlFigure *self = draw->figure;
  cairo_t *cr = draw->cr;
  double tick_size = pl_figure_tick_size (self);
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (double));
  double label_h, step, widest = 0, used;
  guint max_ticks;

  pl_draw_text_size (draw, "0", tick_size, 0, NULL, &label_h);
  max_ticks = (guint) CLAMP (bar->height / (label_h * 2.2), 2, 10);
  step = pl_nice_ticks (lo, hi, max_ticks, self->integer_scale, ticks);

  for (guint i = 0; i < ticks->len; i++)
    {
      g_autofree char *label = pl_format_tick (g_array_index (ticks, double, i), step);
      double w;

      pl_draw_text_size (draw, label, tick_size, 0, &w, NULL);
      widest = MAX (widest, w);
    }
  used = bar->width + TICK_LENGTH + TICK_GAP + widest;
  if (self->value_label != NULL && self->value_label[0] != '\0')
    used += TICK_GAP * 2 + label_h * self->font_size / tick_size;

  if (measure_only)
    return used;

  /* The scale itself: a 1 × 256 image, stretched without smoothing so each
   * entry of the table stays one flat band. */
  {
    cairo_surface_t *image = ensure_bar_image (self);
    cairo_pattern_t *pattern;

    cairo_save (cr);
    cairo_rectangle (cr, bar->x, bar->y, bar->width, bar->height);
    cairo_clip (cr);
    cairo_translate (cr, bar->x, bar->y);
    cairo_scale (cr, bar->width, bar->height / PL_COLORMAP_N_ENTRIES);
    cairo_set_source_surface (cr, image, 0, 0);
    pattern = cairo_get_source (cr);
    cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
    cairo_pattern_set_extend (pattern, CAIRO_EXTEND_PAD);
    cairo_paint (cr);
    cairo_restore (cr);
  }
  pl_draw_frame (draw, bar);

  cairo_save (cr);
  cairo_set_line_width (cr, LINE_WIDTH);
  pl_draw_set_rgb (draw, draw->axis);
  for (guint i = 0; i < ticks->len; i++)
    {
      double v = g_array_index (ticks, double, i);
      double y = hi > lo ? bar->y + bar->height * (hi - v) / (hi - lo) : bar->y + bar->height / 2;
      g_autofree char *label = pl_format_tick (v, step);

      cairo_move_to (cr, bar->x + bar->width, y);
      cairo_line_to (cr, bar->x + bar->width + TICK_LENGTH, y);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg,
                    bar->x + bar->width + TICK_LENGTH + TICK_GAP, y, 0, 0.5, 0);
    }
  cairo_restore (cr);

  if (self->value_label != NULL && self->value_label[0] != '\0')
    pl_draw_text (draw, self->value_label,
                  pl_draw_fit_size (draw, self->value_label, self->font_size, 0, bar->height + 2 * TICK_GAP),
                  PL_TEXT_AXIS_TITLE, draw->fg, bar->x + used, bar->y + bar->height / 2, 0.5, 1, -G_PI / 2);

  return used;
}

/* ---- Numeric axes for trajectories, lines, scatter and bars --------------- */

#define GAP 6.0

void
pl_axes_init (PlAxes *axes)
{
  memset (axes, 0, sizeof *axes);
  axes->xticks = g_array_new (FALSE, FALSE, sizeof (double));
  axes->yticks = g_array_new (FALSE, FALSE, sizeof (double));
  axes->x1 = 1;
  axes->y1 = 1;
}

void
pl_axes_clear (PlAxes *axes)
{
  g_clear_pointer (&axes->xticks, g_array_unref);
  g_clear_pointer (&axes->yticks, g_array_unref);
}

void
pl_pad_range (double *lo,
              double *hi,
              double  margin)
{
  double span;

  if (!isfinite (*lo) || !isfinite (*hi))
    {
      *lo = 0;
      *hi = 1;
      return;
    }
  span = *hi - *lo;
  if (span <= 0)
    {
      double d = fabs (*lo) > 0 ? fabs (*lo) * 0.1 : 0.5;
      *lo -= d;
      *hi += d;
      return;
    }
  *lo -= span * margin;
  *hi += span * margin;
}

double
pl_axes_px (const PlAxes *axes,
            double        x)
{
  return axes->plot.x + (x - axes->x0) / (axes->x1 - axes->x0) * axes->plot.width;
}

double
pl_axes_py (const PlAxes *axes,
            double        y)
{
  return axes->plot.y + axes->plot.height - (y - axes->y0) / (axes->y1 - axes->y0) * axes->plot.height;
}

static char *
x_tick_label (const PlAxes *axes,
              double        v)
{
  if (axes->x_categories != NULL)
    return g_strdup (axes->x_categories[(gsize) v]);
  return pl_format_tick (v, axes->xstep);
}

static double
widest_tick (PlDraw       *draw,
             const PlAxes *axes,
             GArray       *ticks,
             gboolean      x)
{
  double size = pl_figure_tick_size (draw->figure);
  double widest = 0;

  for (guint i = 0; i < ticks->len; i++)
    {
      double v = g_array_index (ticks, double, i);
      g_autofree char *label = x ? x_tick_label (axes, v) : pl_format_tick (v, axes->ystep);
      double w;

      pl_draw_text_size (draw, label, size, 0, &w, NULL);
      widest = MAX (widest, w);
    }

  return widest;
}

static void
make_x_ticks (PlDraw  *draw,
              PlAxes  *axes,
              double   width)
{
  double tick_h;

  pl_draw_text_size (draw, "0", pl_figure_tick_size (draw->figure), 0, NULL, &tick_h);
  if (axes->x_categories != NULL)
    {
      guint n = g_strv_length (axes->x_categories);
      double widest, every;

      g_array_set_size (axes->xticks, 0);
      for (guint i = 0; i < n; i++)
        {
          double v = i;
          g_array_append_val (axes->xticks, v);
        }
      /* Thin the labels out until they no longer touch. */
      widest = widest_tick (draw, axes, axes->xticks, TRUE) + tick_h;
      every = MAX (1, ceil (widest * n / MAX (width, 1)));
      g_array_set_size (axes->xticks, 0);
      for (guint i = 0; i < n; i += (guint) every)
        {
          double v = i;
          g_array_append_val (axes->xticks, v);
        }
      axes->xstep = every;
      return;
    }

  axes->xstep = pl_nice_ticks (axes->x0, axes->x1, 12, axes->x_integers, axes->xticks);
  {
    double widest = widest_tick (draw, axes, axes->xticks, TRUE);
    guint max_ticks = (guint) CLAMP (width / (widest + tick_h * 2.5), 2, 12);

    axes->xstep = pl_nice_ticks (axes->x0, axes->x1, max_ticks, axes->x_integers, axes->xticks);
  }
}

static void
make_y_ticks (PlDraw *draw,
              PlAxes *axes,
              double  height)
{
  double tick_h;

  pl_draw_text_size (draw, "0", pl_figure_tick_size (draw->figure), 0, NULL, &tick_h);
  axes->ystep = pl_nice_ticks (axes->y0, axes->y1, (guint) CLAMP (height / (tick_h * 3), 2, 10),
                               axes->y_integers, axes->yticks);
}

void
pl_axes_layout (PlDraw                  *draw,
                PlAxes                  *axes,
                const cairo_rectangle_t *area,
                double                   right)
{
  PlFigure *self = draw->figure;
  const char *x_label = pl_figure_x_label (self);
  const char *y_label = pl_figure_y_label (self);
  double tick_h, label_h, left, bottom, top, w, h;

  pl_draw_text_size (draw, "0", pl_figure_tick_size (self), 0, NULL, &tick_h);
  pl_draw_text_size (draw, "Position", self->font_size, 0, NULL, &label_h);
  top = pl_draw_top_room (draw, draw->width - 2 * GAP, tick_h);
  bottom = TICK_LENGTH + TICK_GAP + tick_h + (x_label ? GAP + label_h : 0) + GAP;
  make_y_ticks (draw, axes, area->height - top - bottom);
  left = GAP + (y_label ? label_h + GAP : 0) + widest_tick (draw, axes, axes->yticks, FALSE) + TICK_LENGTH + TICK_GAP;
  /* Room for half of the last x label, which centres on the right edge. */
  right = MAX (right, GAP + tick_h * 1.5);
  {
    double margins[4] = { left, top, right, bottom };

    pl_figure_take_margins (self, margins);
    w = MAX (area->width - margins[0] - margins[2], 1);
    h = MAX (area->height - margins[1] - margins[3], 1);
    axes->plot = (cairo_rectangle_t) { area->x + margins[0], area->y + margins[1], w, h };
    /* The y title hugs the tick labels. */
    axes->y_title_x = axes->plot.x - left + GAP;
  }
  make_y_ticks (draw, axes, h);
  make_x_ticks (draw, axes, w);
}

void
pl_axes_draw_grid (PlDraw *draw,
                   PlAxes *axes)
{
  cairo_t *cr = draw->cr;
  const cairo_rectangle_t *p = &axes->plot;

  cairo_save (cr);
  cairo_set_line_width (cr, 0.5);
  pl_draw_set_rgb (draw, draw->muted);
  for (guint i = 0; i < axes->yticks->len; i++)
    {
      double y = pl_axes_py (axes, g_array_index (axes->yticks, double, i));

      cairo_move_to (cr, p->x, y);
      cairo_line_to (cr, p->x + p->width, y);
    }
  if (axes->x_categories == NULL)
    for (guint i = 0; i < axes->xticks->len; i++)
      {
        double x = pl_axes_px (axes, g_array_index (axes->xticks, double, i));

        cairo_move_to (cr, x, p->y);
        cairo_line_to (cr, x, p->y + p->height);
      }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
pl_axes_draw (PlDraw *draw,
              PlAxes *axes)
{
  PlFigure *self = draw->figure;
  cairo_t *cr = draw->cr;
  const cairo_rectangle_t *p = &axes->plot;
  double tick_size = pl_figure_tick_size (self);
  const char *x_label = pl_figure_x_label (self);
  const char *y_label = pl_figure_y_label (self);
  double tick_h;

  pl_draw_text_size (draw, "0", tick_size, 0, NULL, &tick_h);
  pl_draw_frame (draw, p);
  pl_figure_record_ticks (self, 0, axes->x_categories == NULL ? axes->xticks : NULL);
  pl_figure_record_ticks (self, 1, axes->yticks);

  cairo_save (cr);
  cairo_set_line_width (cr, LINE_WIDTH);
  pl_draw_set_rgb (draw, draw->axis);
  for (guint i = 0; i < axes->xticks->len; i++)
    {
      double v = g_array_index (axes->xticks, double, i);
      double x = pl_axes_px (axes, v);
      g_autofree char *label = x_tick_label (axes, v);

      cairo_move_to (cr, x, p->y + p->height);
      cairo_line_to (cr, x, p->y + p->height + TICK_LENGTH);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, x, p->y + p->height + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
    }
  for (guint i = 0; i < axes->yticks->len; i++)
    {
      double v = g_array_index (axes->yticks, double, i);
      double y = pl_axes_py (axes, v);
      g_autofree char *label = pl_format_tick (v, axes->ystep);

      cairo_move_to (cr, p->x, y);
      cairo_line_to (cr, p->x - TICK_LENGTH, y);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, p->x - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
    }
  cairo_restore (cr);

  if (x_label != NULL)
    pl_draw_text (draw, x_label, pl_draw_fit_size (draw, x_label, self->font_size, 0, draw->width - 2 * GAP),
                  PL_TEXT_AXIS_TITLE, draw->fg, p->x + p->width / 2, p->y + p->height + TICK_LENGTH + TICK_GAP + tick_h + GAP,
                  0.5, 0, 0);
  if (y_label != NULL)
    pl_draw_text (draw, y_label, pl_draw_fit_size (draw, y_label, self->font_size, 0, p->height + 2 * GAP),
                  PL_TEXT_AXIS_TITLE, draw->fg, axes->y_title_x, p->y + p->height / 2, 0.5, 0, -G_PI / 2);
  pl_draw_title (draw, p->x + p->width / 2, p->y - pl_draw_title_gap (tick_h), GAP, draw->width - GAP);
}
