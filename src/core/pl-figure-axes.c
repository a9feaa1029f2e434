/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-private.h"

/* Text, ticks, frames and the colour bar shared by every figure kind. */

#define TICK_LENGTH 3.5
#define TICK_GAP    2.5
#define LINE_WIDTH  0.75

static const double light_fg[3]    = { 0.13, 0.13, 0.13 };
static const double light_axis[3]  = { 0.30, 0.30, 0.30 };
static const double light_muted[3] = { 0.82, 0.82, 0.82 };
static const double light_bg[3]    = { 1.00, 1.00, 1.00 };
/* libadwaita's dark view background, so the figure sits in the window. */
static const double dark_fg[3]     = { 0.93, 0.93, 0.93 };
static const double dark_axis[3]   = { 0.72, 0.72, 0.72 };
static const double dark_muted[3]  = { 0.30, 0.30, 0.30 };
static const double dark_bg[3]     = { 0.118, 0.118, 0.118 };

static void
copy3 (double dst[3], const double src[3])
{
  dst[0] = src[0];
  dst[1] = src[1];
  dst[2] = src[2];
}

void
pl_draw_init (PlDraw   *draw,
              PlFigure *figure,
              cairo_t  *cr,
              GString  *svg_text)
{
  cairo_font_options_t *options;

  draw->figure = figure;
  draw->cr = cr;
  draw->svg_text = svg_text;
  draw->pango = pango_cairo_create_context (cr);
  /* Sizes are in points and one cairo unit is one point. */
  pango_cairo_context_set_resolution (draw->pango, 72);
  /* No hinting: the same layout on screen, in PNG, SVG and PDF. */
  options = cairo_font_options_create ();
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  pango_cairo_context_set_font_options (draw->pango, options);
  cairo_font_options_destroy (options);

  copy3 (draw->fg, figure->dark ? dark_fg : light_fg);
  copy3 (draw->axis, figure->dark ? dark_axis : light_axis);
  copy3 (draw->muted, figure->dark ? dark_muted : light_muted);
  copy3 (draw->bg, figure->dark ? dark_bg : light_bg);
}

void
pl_draw_clear (PlDraw *draw)
{
  g_clear_object (&draw->pango);
}

void
pl_draw_set_rgb (PlDraw       *draw,
                 const double  rgb[3])
{
  cairo_set_source_rgb (draw->cr, rgb[0], rgb[1], rgb[2]);
}

double
pl_figure_tick_size (PlFigure *self)
{
  return self->font_size * 0.85;
}

static PangoLayout *
make_layout (PlDraw      *draw,
             const char  *text,
             double       size,
             PlTextFlags  flags)
{
  PangoLayout *layout = pango_layout_new (draw->pango);
  PangoFontDescription *desc = pango_font_description_from_string (draw->figure->font_family);

  pango_font_description_set_size (desc, (int) (size * PANGO_SCALE + 0.5));
  if (flags & PL_TEXT_BOLD)
    pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (desc);

  return layout;
}

void
pl_draw_text_size (PlDraw      *draw,
                   const char  *text,
                   double       size,
                   PlTextFlags  flags,
                   double      *width,
                   double      *height)
{
  g_autoptr(PangoLayout) layout = make_layout (draw, text, size, flags);
  PangoRectangle logical;

  pango_layout_get_extents (layout, NULL, &logical);
  if (width)
    *width = (double) logical.width / PANGO_SCALE;
  if (height)
    *height = (double) logical.height / PANGO_SCALE;
}

static void
append_svg_text (PlDraw       *draw,
                 const char   *text,
                 double        size,
                 PlTextFlags   flags,
                 const double  rgb[3],
                 double        ax,
                 double        baseline)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autofree char *family = g_markup_escape_text (draw->figure->font_family, -1);
  const char *anchor = ax < 0.25 ? "start" : ax > 0.75 ? "end" : "middle";
  cairo_matrix_t m;
  char buf[6][G_ASCII_DTOSTR_BUF_SIZE];

  /* The current cairo matrix maps the text's own frame to the page, whose
   * units are points, the SVG's user units. */
  cairo_get_matrix (draw->cr, &m);
  g_ascii_formatd (buf[0], sizeof buf[0], "%.4f", m.xx);
  g_ascii_formatd (buf[1], sizeof buf[1], "%.4f", m.yx);
  g_ascii_formatd (buf[2], sizeof buf[2], "%.4f", m.xy);
  g_ascii_formatd (buf[3], sizeof buf[3], "%.4f", m.yy);
  g_ascii_formatd (buf[4], sizeof buf[4], "%.3f", m.x0);
  g_ascii_formatd (buf[5], sizeof buf[5], "%.3f", m.y0);
  g_string_append_printf (draw->svg_text,
                          "<text transform=\"matrix(%s %s %s %s %s %s)\" x=\"0\" ",
                          buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
  g_ascii_formatd (buf[0], sizeof buf[0], "%.3f", baseline);
  g_ascii_formatd (buf[1], sizeof buf[1], "%.3f", size);
  g_string_append_printf (draw->svg_text,
                          "y=\"%s\" font-family=\"%s, sans-serif\" font-size=\"%s\"%s "
                          "text-anchor=\"%s\" fill=\"#%02x%02x%02x\" xml:space=\"preserve\">%s</text>\n",
                          buf[0], family, buf[1],
                          (flags & PL_TEXT_BOLD) ? " font-weight=\"bold\"" : "",
                          anchor,
                          (guint) (rgb[0] * 255 + 0.5), (guint) (rgb[1] * 255 + 0.5),
                          (guint) (rgb[2] * 255 + 0.5), escaped);
}

void
pl_draw_text (PlDraw       *draw,
              const char   *text,
              double        size,
              PlTextFlags   flags,
              const double  rgb[3],
              double        x,
              double        y,
              double        ax,
              double        ay,
              double        angle)
{
  g_autoptr(PangoLayout) layout = NULL;
  PangoRectangle logical;
  double w, h, baseline;

  if (text == NULL || text[0] == '\0')
    return;

  layout = make_layout (draw, text, size, flags);
  pango_layout_get_extents (layout, NULL, &logical);
  w = (double) logical.width / PANGO_SCALE;
  h = (double) logical.height / PANGO_SCALE;
  baseline = (double) pango_layout_get_baseline (layout) / PANGO_SCALE;

  cairo_save (draw->cr);
  cairo_translate (draw->cr, x, y);
  if (angle != 0)
    cairo_rotate (draw->cr, angle);

  if (draw->svg_text != NULL)
    {
      /* Anchored at the left, centre or right of the baseline, so a viewer
       * with slightly different metrics still aligns it the same way. */
      append_svg_text (draw, text, size, flags, rgb, ax, -ay * h + baseline);
    }
  else
    {
      cairo_move_to (draw->cr, -ax * w - (double) logical.x / PANGO_SCALE, -ay * h);
      pl_draw_set_rgb (draw, rgb);
      pango_cairo_update_layout (draw->cr, layout);
      pango_cairo_show_layout (draw->cr, layout);
    }

  cairo_restore (draw->cr);
}

double
pl_nice_ticks (double    lo,
               double    hi,
               guint     max_ticks,
               gboolean  integers,
               GArray   *ticks)
{
  double range, raw, mag, norm, step, first;

  g_array_set_size (ticks, 0);
  if (!isfinite (lo) || !isfinite (hi))
    return 1;
  if (hi < lo)
    {
      double t = lo;
      lo = hi;
      hi = t;
    }

  range = hi - lo;
  if (range <= 0)
    range = fabs (lo) > 0 ? fabs (lo) : 1;
  max_ticks = MAX (max_ticks, 2);
  raw = range / max_ticks;
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

  return step;
}

char *
pl_format_tick (double value,
                double step)
{
  int decimals = 0;
  g_autofree char *plain = NULL;

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
  step = pl_nice_ticks (lo, hi, max_ticks, FALSE, ticks);

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
    pl_draw_text (draw, self->value_label, self->font_size, 0, draw->fg,
                  bar->x + used, bar->y + bar->height / 2, 0.5, 1, -G_PI / 2);

  return used;
}
