/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-private.h"

/* Drawing helpers every figure kind shares: colours for light and dark,
 * text through pango (or, for SVG, as <text> elements), titles. */

#define TITLE_GAP 6.0

static const double light_fg[3]    = { 0.13, 0.13, 0.13 };
static const double light_axis[3]  = { 0.30, 0.30, 0.30 };
static const double light_muted[3] = { 0.82, 0.82, 0.82 };
static const double light_bg[3]    = { 1.00, 1.00, 1.00 };
/* libadwaita's dark view background, so the figure sits in the window. */
static const double dark_fg[3]     = { 0.93, 0.93, 0.93 };
static const double dark_axis[3]   = { 0.72, 0.72, 0.72 };
static const double dark_muted[3]  = { 0.30, 0.30, 0.30 };
static const double dark_bg[3]     = { 0.118, 0.118, 0.118 };
/* Around marks too dark to see on the dark background: 5:1 against it,
 * 3:1 still when a 3-D view fades it a third of the way for depth. */
static const double dark_casing[3] = { 0.58, 0.58, 0.58 };

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
  draw->layout = NULL;
  cairo_matrix_init_identity (&draw->to_figure);
  draw->panel = -1;
  draw->axis_title_min = INFINITY;
  draw->has_title = FALSE;
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
  g_autofree char *lower = g_ascii_strdown (draw->figure->font_family, -1);
  /* CSS's own fallback: a list that ends in pango's Serif wants serif. */
  const char *generic = g_str_has_suffix (lower, "serif") && !g_str_has_suffix (lower, "sans serif")
                        ? "serif" : "sans-serif";
  const char *anchor = ax < 0.25 ? "start" : ax > 0.75 ? "end" : "middle";
  cairo_matrix_t m;
  char buf[6][G_ASCII_DTOSTR_BUF_SIZE];
  char halo[96];

  g_snprintf (halo, sizeof halo,
              " stroke=\"#%02x%02x%02x\" stroke-width=\"2.5\" stroke-linejoin=\"round\" paint-order=\"stroke\"",
              (guint) (draw->bg[0] * 255 + 0.5), (guint) (draw->bg[1] * 255 + 0.5), (guint) (draw->bg[2] * 255 + 0.5));

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
                          "y=\"%s\" font-family=\"%s, %s\" font-size=\"%s\"%s%s "
                          "text-anchor=\"%s\" fill=\"#%02x%02x%02x\" xml:space=\"preserve\">%s</text>\n",
                          buf[0], family, generic, buf[1],
                          (flags & PL_TEXT_BOLD) ? " font-weight=\"bold\"" : "",
                          (flags & PL_TEXT_HALO) ? halo : "",
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

  if (flags & PL_TEXT_AXIS_TITLE)
    draw->axis_title_min = MIN (draw->axis_title_min, size);
  cairo_save (draw->cr);
  cairo_translate (draw->cr, x, y);
  if (angle != 0)
    cairo_rotate (draw->cr, angle);
  pl_layout_add_text (draw, (flags & PL_TEXT_AXIS_TITLE) ? PL_LAYOUT_AXIS_TITLE : PL_LAYOUT_TEXT,
                      text, size, &(cairo_rectangle_t) { -ax * w, -ay * h, w, h });

  if (draw->svg_text != NULL)
    {
      /* Anchored at the left, centre or right of the baseline, so a viewer
       * with slightly different metrics still aligns it the same way. */
      append_svg_text (draw, text, size, flags, rgb, ax, -ay * h + baseline);
    }
  else
    {
      cairo_move_to (draw->cr, -ax * w - (double) logical.x / PANGO_SCALE, -ay * h);
      pango_cairo_update_layout (draw->cr, layout);
      if (flags & PL_TEXT_HALO)
        {
          cairo_save (draw->cr);
          pango_cairo_layout_path (draw->cr, layout);
          pl_draw_set_rgb (draw, draw->bg);
          cairo_set_line_width (draw->cr, 2.5);
          cairo_set_line_join (draw->cr, CAIRO_LINE_JOIN_ROUND);
          cairo_stroke (draw->cr);
          cairo_restore (draw->cr);
          cairo_move_to (draw->cr, -ax * w - (double) logical.x / PANGO_SCALE, -ay * h);
        }
      pl_draw_set_rgb (draw, rgb);
      pango_cairo_show_layout (draw->cr, layout);
    }

  cairo_restore (draw->cr);
}

void
pl_rgb_from_hex (guint32 hex,
                 double  rgb[3])
{
  rgb[0] = ((hex >> 16) & 0xff) / 255.0;
  rgb[1] = ((hex >> 8) & 0xff) / 255.0;
  rgb[2] = (hex & 0xff) / 255.0;
}

/* WCAG's relative luminance of an sRGB colour. */
static double
luminance (const double rgb[3])
{
  double l[3];

  for (guint c = 0; c < 3; c++)
    l[c] = rgb[c] <= 0.03928 ? rgb[c] / 12.92 : pow ((rgb[c] + 0.055) / 1.055, 2.4);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

double
pl_figure_contrast (const double a[3],
                    const double b[3])
{
  double la = luminance (a), lb = luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

/* How far into the map (from its dark end, at t = 0 or t = 1) a line must
 * start to stand out 3:1 from the dark background, WCAG's contrast for
 * graphics: about 0.4 of viridis, half of magma and inferno. */
static double
dark_end_skip (PlFigure *self,
               gboolean  dark_at_zero)
{
  for (guint k = 0; k <= 64; k++)
    {
      double t = k / 64.0, rgb[3];

      pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, dark_at_zero ? t : 1 - t), rgb);
      if (pl_figure_contrast (rgb, dark_bg) >= 3.0)
        return t;
    }
  return 0.5;
}

gboolean
pl_draw_casing (PlDraw       *draw,
                const double  rgb[3],
                double        casing[3])
{
  if (!draw->figure->dark || pl_figure_contrast (rgb, draw->bg) >= 3.0)
    return FALSE;
  copy3 (casing, dark_casing);
  return TRUE;
}

void
pl_figure_series_rgb (PlFigure *self,
                      guint     i,
                      guint     n,
                      double    rgb[3])
{
  /* Skip the end of the map that melts into the background. */
  double lo = 0.0, hi = 0.85, t;

  if (self->dark)
    {
      double first[3], last[3];
      gboolean dark_at_zero;

      pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, 0), first);
      pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, 1), last);
      dark_at_zero = luminance (first) <= luminance (last);
      lo = dark_at_zero ? dark_end_skip (self, TRUE) : 0.0;
      hi = dark_at_zero ? 1.0 : 1.0 - dark_end_skip (self, FALSE);
    }
  else if (self->reversed)
    {
      /* Reversed, the pale yellow end is at 0. */
      lo = 0.15;
      hi = 1.0;
    }
  t = n > 1 ? lo + (hi - lo) * i / (n - 1) : (lo + hi) / 2;

  if (self->colormap == PL_COLORMAP_DIVERGING)
    {
      /* The pale centre of the diverging map is unreadable as a line. */
      t = n > 1 ? (double) i / (n - 1) : 0;
      t = t < 0.5 ? t * 0.7 : 0.65 + (t - 0.5) * 0.7;
    }
  pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, t), rgb);
}

double
pl_draw_shrink_floor (double size)
{
  return MIN (size, MAX (size * 0.6, PL_FIGURE_MIN_TEXT_PT));
}

double
pl_draw_fit_size (PlDraw      *draw,
                  const char  *text,
                  double       size,
                  PlTextFlags  flags,
                  double       max_width)
{
  double floor = pl_draw_shrink_floor (size), w;

  /* Twice: a face's widths need not scale exactly with its size. */
  for (guint i = 0; i < 2; i++)
    {
      pl_draw_text_size (draw, text, size, flags, &w, NULL);
      if (w <= max_width || w <= 0 || size <= floor)
        break;
      size = MAX (floor, size * max_width / w * 0.999);
    }
  return size;
}

/* Shows LAYOUT (TEXT at SIZE, as one paragraph) with its top left at (X, Y),
 * its lines recorded as ROLE; in SVG one <text> a line, anchored at the
 * left or, when CENTRED, the centre of the layout's width. */
static void
show_lines (PlDraw       *draw,
            PangoLayout  *layout,
            const char   *text,
            double        size,
            PlTextFlags   flags,
            PlLayoutRole  role,
            double        x,
            double        y,
            gboolean      centred)
{
  double width = (double) pango_layout_get_width (layout) / PANGO_SCALE;
  PangoLayoutIter *iter = pango_layout_get_iter (layout);

  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      g_autofree char *part = g_strchomp (g_strndup (text + line->start_index, line->length));
      PangoRectangle extents;

      pango_layout_iter_get_line_extents (iter, NULL, &extents);
      cairo_save (draw->cr);
      cairo_translate (draw->cr, x, y);
      pl_layout_add_text (draw, role, part, size,
                          &(cairo_rectangle_t) { (double) extents.x / PANGO_SCALE, (double) extents.y / PANGO_SCALE,
                                                 (double) extents.width / PANGO_SCALE,
                                                 (double) extents.height / PANGO_SCALE });
      if (draw->svg_text != NULL)
        {
          /* SVG text does not wrap: one <text> per line, at its baseline. */
          cairo_translate (draw->cr, centred ? width / 2 : 0, 0);
          append_svg_text (draw, part, size, flags, draw->fg, centred ? 0.5 : 0,
                           (double) pango_layout_iter_get_baseline (iter) / PANGO_SCALE);
        }
      cairo_restore (draw->cr);
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);

  if (draw->svg_text == NULL)
    {
      cairo_save (draw->cr);
      cairo_move_to (draw->cr, x, y);
      pango_cairo_update_layout (draw->cr, layout);
      pl_draw_set_rgb (draw, draw->fg);
      pango_cairo_show_layout (draw->cr, layout);
      cairo_restore (draw->cr);
    }
}

/* The title set to stand within MAX_WIDTH: on one line at 1.2 × the text
 * size, or smaller down to the text size; else wrapped at the text size
 * (a word wider than the room shrinks further, not below the smallest
 * text). A panel's title is at the size its multiples set, wrapped if need
 * be. Lines centred in a layout MAX_WIDTH wide; its size in SIZE. */
static PangoLayout *
title_layout (PlDraw *draw,
              double  max_width,
              double *size)
{
  PlFigure *self = draw->figure;
  double full = self->font_size * 1.2, body = self->font_size, w;
  PangoLayout *layout;
  PangoRectangle logical;

  /* Small multiples give their panels' titles one size. */
  if (self->title_size > 0)
    full = body = self->title_size;
  /* Axis titles shrunk to fit pull the title down with them. */
  if (isfinite (draw->axis_title_min))
    {
      full = MIN (full, 0.999 * PL_FIGURE_MAX_TITLE_RATIO * draw->axis_title_min);
      body = MIN (body, full);
    }
  max_width = MAX (max_width, 1);
  *size = pl_draw_fit_size (draw, self->title, full, PL_TEXT_BOLD, max_width);
  pl_draw_text_size (draw, self->title, *size, PL_TEXT_BOLD, &w, NULL);
  if (*size < body || w > max_width)
    *size = body;
  for (guint i = 0;; i++)
    {
      layout = make_layout (draw, self->title, *size, PL_TEXT_BOLD);
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
      pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
      pango_layout_get_extents (layout, NULL, &logical);
      if ((double) logical.width / PANGO_SCALE <= max_width + 0.01 || *size <= pl_draw_shrink_floor (body) || i == 2)
        return layout;
      *size = MAX (pl_draw_shrink_floor (body), *size * max_width / ((double) logical.width / PANGO_SCALE) * 0.999);
      g_object_unref (layout);
    }
}

double
pl_draw_title_height (PlDraw *draw,
                      double  max_width)
{
  PlFigure *self = draw->figure;
  g_autoptr(PangoLayout) layout = NULL;
  PangoRectangle logical;
  double size;

  if (self->title == NULL || self->title[0] == '\0')
    return 0;
  layout = title_layout (draw, max_width, &size);
  pango_layout_get_extents (layout, NULL, &logical);
  return (double) logical.height / PANGO_SCALE;
}

double
pl_draw_title_gap (double tick_h)
{
  /* Room for the top tick label, which centres on the plot's edge. */
  return MAX (TITLE_GAP, tick_h / 2);
}

double
pl_draw_top_room (PlDraw *draw,
                  double  max_width,
                  double  tick_h)
{
  double title_h = pl_draw_title_height (draw, max_width);

  return TITLE_GAP + (title_h > 0 ? title_h + pl_draw_title_gap (tick_h) : tick_h / 2);
}

void
pl_draw_title (PlDraw *draw,
               double  center_x,
               double  bottom_y,
               double  min_x,
               double  max_x)
{
  draw->has_title = TRUE;
  draw->title_at[0] = center_x;
  draw->title_at[1] = bottom_y;
  draw->title_at[2] = min_x;
  draw->title_at[3] = max_x;
  cairo_get_matrix (draw->cr, &draw->title_matrix);
}

void
pl_draw_pending_title (PlDraw *draw)
{
  PlFigure *self = draw->figure;
  g_autoptr(PangoLayout) layout = NULL;
  PangoRectangle logical;
  double size, x, w, h, center_x = draw->title_at[0], bottom_y = draw->title_at[1];
  double min_x = draw->title_at[2], max_x = draw->title_at[3];

  if (!draw->has_title || self->title == NULL || self->title[0] == '\0')
    return;
  draw->has_title = FALSE;
  cairo_save (draw->cr);
  cairo_set_matrix (draw->cr, &draw->title_matrix);
  layout = title_layout (draw, max_x - min_x, &size);
  pango_layout_get_extents (layout, NULL, &logical);
  x = (double) logical.x / PANGO_SCALE;
  w = (double) logical.width / PANGO_SCALE;
  h = (double) logical.height / PANGO_SCALE;
  /* Over the plot when it fits there, else slid sideways to stay on the page. */
  center_x = CLAMP (center_x, min_x + w / 2, MAX (min_x + w / 2, max_x - w / 2));
  show_lines (draw, layout, self->title, size, PL_TEXT_BOLD, PL_LAYOUT_TITLE, center_x - x - w / 2,
              bottom_y - h - (double) logical.y / PANGO_SCALE, TRUE);
  cairo_restore (draw->cr);
}

double
pl_draw_paragraph (PlDraw     *draw,
                   const char *text,
                   double      size,
                   double      x,
                   double      y,
                   double      width,
                   gboolean    draw_it)
{
  g_autoptr(PangoLayout) layout = make_layout (draw, text, size, 0);
  PangoRectangle logical;

  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
  pango_layout_get_extents (layout, NULL, &logical);
  if (draw_it)
    show_lines (draw, layout, text, size, 0, PL_LAYOUT_CAPTION, x, y, FALSE);
  return (double) logical.height / PANGO_SCALE;
}
