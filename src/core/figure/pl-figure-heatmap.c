/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "pl-figure-private.h"

/* The heatmap: a coloured image with one pixel per cell, cached until the
 * data, the colour map or the range change, drawn scaled without smoothing
 * so cells stay sharp at any zoom and in any export. */

#define GAP          6.0
#define BAR_WIDTH   10.0
#define BAR_GAP     12.0
#define TICK_LENGTH  3.5
#define TICK_GAP     2.5

void
pl_figure_heatmap_clear (PlFigure *self)
{
  g_clear_pointer (&self->image, cairo_surface_destroy);
}

void
pl_figure_heatmap_auto_range (PlFigure *self,
                              double   *lo,
                              double   *hi)
{
  double a = self->data_min, b = self->data_max;

  if (self->colormap == PL_COLORMAP_DIVERGING && isfinite (a))
    {
      /* Signed values: zero sits at the white centre of the map. */
      double m = MAX (fabs (a), fabs (b));
      a = -m;
      b = m;
    }
  if (!isnan (self->vmin))
    a = self->vmin;
  if (!isnan (self->vmax))
    b = self->vmax;
  if (!isfinite (a))
    a = 0;
  if (!isfinite (b))
    b = 1;
  if (b <= a && isnan (self->vmin) && isnan (self->vmax))
    {
      /* One value everywhere: a scale around it, so the bar still reads. */
      double d = a != 0 ? fabs (a) * 0.5 : 0.5;
      a -= d;
      b += d;
    }
  *lo = a;
  *hi = b;
}

static cairo_surface_t *
ensure_image (PlFigure *self,
              double    lo,
              double    hi)
{
  guint32 lut[PL_COLORMAP_N_ENTRIES];
  cairo_surface_t *image;
  guint8 *data;
  int stride;
  double scale;

  if (self->image != NULL &&
      self->image_colormap == self->colormap &&
      self->image_reversed == self->reversed &&
      self->image_lo == lo && self->image_hi == hi)
    return self->image;

  g_clear_pointer (&self->image, cairo_surface_destroy);
  if (self->values == NULL || self->values->rows == 0 || self->values->cols == 0)
    return NULL;

  image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) self->values->cols, (int) self->values->rows);
  /* Larger than cairo can draw: nothing (pl_figure_check_size says so before). */
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return NULL;
    }

  pl_colormap_fill_argb (self->colormap, self->reversed, lut);
  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  stride = cairo_image_surface_get_stride (image);
  /* Entry floor ((v − lo) / (hi − lo) × 256), as pl_colormap_lookup picks it. */
  scale = hi > lo ? PL_COLORMAP_N_ENTRIES / (hi - lo) : 0;

  for (gsize i = 0; i < self->values->rows; i++)
    {
      const float *row = pl_matrix_row (self->values, i);
      guint32 *out = (guint32 *) (gpointer) (data + i * (gsize) stride);

      for (gsize j = 0; j < self->values->cols; j++)
        {
          double v = row[j];
          double k;

          if (isnan (v))
            {
              out[j] = 0xff000000u | PL_COLORMAP_NO_VALUE;
              continue;
            }
          k = scale > 0 ? (v - lo) * scale : PL_COLORMAP_N_ENTRIES / 2;
          if (!(k > 0))
            k = 0;
          else if (k > PL_COLORMAP_N_ENTRIES - 1)
            k = PL_COLORMAP_N_ENTRIES - 1;
          out[j] = lut[(guint) k];
        }
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
widest_label (PlDraw  *draw,
              double   size,
              GArray  *ticks,
              double   step)
{
  double widest = 0;

  for (guint i = 0; i < ticks->len; i++)
    {
      g_autofree char *label = pl_format_tick (g_array_index (ticks, double, i), step);
      double w;

      pl_draw_text_size (draw, label, size, 0, &w, NULL);
      widest = MAX (widest, w);
    }

  return widest;
}

/* Long cell names are cut to this many characters. */
#define LABEL_MAX_CHARS 14

/* A cell name as drawn: blanks and control characters made visible, since a
 * token that is only a space or a newline must still show, and long names
 * shortened. */
static char *
display_label (const char *label)
{
  g_autofree char *valid = g_utf8_make_valid (label, -1);
  g_autofree char *trimmed = g_strstrip (g_strdup (valid));
  GString *out = g_string_new (NULL);
  guint n = 0;

  if (trimmed[0] == '\0')
    {
      /* Only blanks: one symbol for each. */
      for (const char *p = valid; *p != '\0' && n < LABEL_MAX_CHARS; p = g_utf8_next_char (p), n++)
        g_string_append (out, *p == '\n' || *p == '\r' ? "↵" : *p == '\t' ? "⇥" : "␣");
      if (out->len == 0)
        g_string_append (out, "∅");
      return g_string_free (out, FALSE);
    }
  for (const char *p = trimmed; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (n == LABEL_MAX_CHARS - 1 && *g_utf8_next_char (p) != '\0')
        {
          g_string_append (out, "…");
          break;
        }
      if (c == '\n' || c == '\r')
        g_string_append (out, "↵");
      else if (c == '\t')
        g_string_append (out, "⇥");
      else if (g_unichar_iscntrl (c))
        g_string_append (out, "·");
      else
        g_string_append_unichar (out, c);
      n++;
    }
  return g_string_free (out, FALSE);
}

/* The cells [*FIRST, *LAST] whose centres lie in the view [V0, V1), of N. */
static gboolean
visible_cells (double  v0,
               double  v1,
               gsize   n,
               guint  *first,
               guint  *last)
{
  double a = MAX (ceil (v0 - 0.5), 0);
  double b = MIN (ceil (v1 - 0.5) - 1, (double) n - 1);

  if (n == 0 || b < a)
    return FALSE;
  *first = (guint) a;
  *last = (guint) b;
  return TRUE;
}

static double
widest_named (PlDraw  *draw,
              double   size,
              char   **shown,
              double   v0,
              double   v1,
              gsize    n)
{
  double widest = 0;
  guint first, last;

  if (!visible_cells (v0, v1, n, &first, &last))
    return 0;
  for (guint i = first; i <= last; i++)
    {
      double w;

      pl_draw_text_size (draw, shown[i], size, 0, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest;
}

/* Names shrink down to this share of the tick size to fit one per cell. */
#define MIN_LABEL_SCALE 0.7

/* Every cell's name when the cells are at least MIN_LABEL_SCALE of a line
 * high (the names shrunk to fit), else every k-th, k the smallest step that
 * keeps the names a line apart: columns' names rotated to read upwards under
 * the plot, rows' names level on its left. Records where each one went. */
static void
draw_named_ticks (PlFigure                *self,
                  PlDraw                  *draw,
                  const cairo_rectangle_t *plot,
                  char                   **shown,
                  double                   size,
                  double                   text_h)
{
  cairo_t *cr = draw->cr;
  double cw = plot->width / (self->view_x1 - self->view_x0);
  double ch = plot->height / (self->view_y1 - self->view_y0);
  gsize n_cols = MIN (self->values->cols, self->n_tick_labels);
  gsize n_rows = MIN (self->values->rows, self->n_tick_labels);
  /* A line box already holds the font's leading: a little more keeps names apart. */
  double pitch = text_h * 1.05;
  /* Every name, in a smaller font if need be, rather than every k-th. */
  double x_size = cw >= pitch * MIN_LABEL_SCALE ? size * MIN (cw / pitch, 1) : size;
  double y_size = ch >= pitch * MIN_LABEL_SCALE ? size * MIN (ch / pitch, 1) : size;
  guint kx = (guint) MAX (1, ceil (pitch * x_size / size / cw - 1e-9));
  guint ky = (guint) MAX (1, ceil (pitch * y_size / size / ch - 1e-9));
  guint first, last;

  if (self->label_boxes == NULL)
    self->label_boxes = g_array_new (FALSE, FALSE, sizeof (PlLabelBox));
  g_array_set_size (self->label_boxes, 0);

  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  if (visible_cells (self->view_x0, self->view_x1, n_cols, &first, &last))
    for (guint c = first; c <= last; c++)
      {
        double x = plot->x + (c + 0.5 - self->view_x0) * cw;
        double y = plot->y + plot->height + TICK_LENGTH + TICK_GAP;
        PlLabelBox box = { 0, c, { 0, 0, 0, 0 } };
        double w, h;

        if (c % kx != 0)
          continue;
        pl_draw_set_rgb (draw, draw->axis);
        cairo_move_to (cr, x, plot->y + plot->height);
        cairo_line_to (cr, x, plot->y + plot->height + TICK_LENGTH);
        cairo_stroke (cr);
        pl_draw_text (draw, shown[c], x_size, 0, draw->fg, x, y, 1, 0.5, -G_PI / 2);
        pl_draw_text_size (draw, shown[c], x_size, 0, &w, &h);
        box.box = (cairo_rectangle_t) { x - h / 2, y, h, w };
        g_array_append_val (self->label_boxes, box);
      }
  if (visible_cells (self->view_y0, self->view_y1, n_rows, &first, &last))
    for (guint r = first; r <= last; r++)
      {
        double x = plot->x - TICK_LENGTH - TICK_GAP;
        double y = plot->y + (r + 0.5 - self->view_y0) * ch;
        PlLabelBox box = { 1, r, { 0, 0, 0, 0 } };
        double w, h;

        if (r % ky != 0)
          continue;
        pl_draw_set_rgb (draw, draw->axis);
        cairo_move_to (cr, plot->x, y);
        cairo_line_to (cr, plot->x - TICK_LENGTH, y);
        cairo_stroke (cr);
        pl_draw_text (draw, shown[r], y_size, 0, draw->fg, x, y, 1, 0.5, 0);
        pl_draw_text_size (draw, shown[r], y_size, 0, &w, &h);
        box.box = (cairo_rectangle_t) { x - w, y - h / 2, w, h };
        g_array_append_val (self->label_boxes, box);
      }
  cairo_restore (cr);
}

static void
draw_grid (PlFigure                *self,
           PlDraw                  *draw,
           const cairo_rectangle_t *plot,
           double                   cell)
{
  cairo_t *cr = draw->cr;
  double vw = self->view_x1 - self->view_x0;
  double vh = self->view_y1 - self->view_y0;

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);
  cairo_set_line_width (cr, MIN (1.0, cell / 12));
  cairo_set_source_rgba (cr, draw->bg[0], draw->bg[1], draw->bg[2], 0.55);
  for (double c = ceil (self->view_x0); c <= floor (self->view_x1); c++)
    {
      double x = plot->x + (c - self->view_x0) / vw * plot->width;
      cairo_move_to (cr, x, plot->y);
      cairo_line_to (cr, x, plot->y + plot->height);
    }
  for (double r = ceil (self->view_y0); r <= floor (self->view_y1); r++)
    {
      double y = plot->y + (r - self->view_y0) / vh * plot->height;
      cairo_move_to (cr, plot->x, y);
      cairo_line_to (cr, plot->x + plot->width, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* Position 0 of a table numbered from below 0 (a relative table's zero
 * bucket): a dotted line through the middle of its column and of its row. */
static void
draw_zero (PlFigure                *self,
           PlDraw                  *draw,
           const cairo_rectangle_t *plot)
{
  cairo_t *cr = draw->cr;
  double zero = -self->first_position + 0.5;
  double vw = self->view_x1 - self->view_x0, vh = self->view_y1 - self->view_y0;
  static const double dash[] = { 1.5, 2.5 };

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);
  cairo_set_line_width (cr, 1);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  pl_draw_set_rgb (draw, draw->fg);
  if (zero < self->values->cols)
    {
      double x = plot->x + (zero - self->view_x0) / vw * plot->width;

      cairo_move_to (cr, x, plot->y);
      cairo_line_to (cr, x, plot->y + plot->height);
    }
  if (!self->own_first_row && zero < self->values->rows)
    {
      double y = plot->y + (zero - self->view_y0) / vh * plot->height;

      cairo_move_to (cr, plot->x, y);
      cairo_line_to (cr, plot->x + plot->width, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* What row 0 is numbered: its own number (heads from 1), or the position. */
static double
first_row (PlFigure *self)
{
  return self->own_first_row ? (double) self->first_row : (double) self->first_position;
}

/* Ticks at round positions; position p is the centre of cell p − first. */
static void
draw_numeric_ticks (PlFigure                *self,
                    PlDraw                  *draw,
                    const cairo_rectangle_t *plot,
                    double                   tick_size,
                    double                   tick_h)
{
  cairo_t *cr = draw->cr;
  g_autoptr(GArray) xticks = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) yticks = g_array_new (FALSE, FALSE, sizeof (double));
  double first = self->first_position, first_y = first_row (self);
  double vw = self->view_x1 - self->view_x0;
  double vh = self->view_y1 - self->view_y0;
  double pw = plot->width, ph = plot->height;
  double xstep, ystep, xw;

  ystep = pl_nice_ticks (first_y + self->view_y0 - 0.5, first_y + self->view_y1 - 0.5,
                         (guint) CLAMP (ph / (tick_h * 2.5), 2, 12), TRUE, yticks);
  pl_nice_ticks (first + self->view_x0 - 0.5, first + self->view_x1 - 0.5, 12, TRUE, xticks);
  xw = widest_label (draw, tick_size, xticks, 1);
  xstep = pl_nice_ticks (first + self->view_x0 - 0.5, first + self->view_x1 - 0.5,
                         (guint) CLAMP (pw / (xw + tick_h * 2.5), 2, 12), TRUE, xticks);
  /* Position against position: both axes count alike, at the coarser step. */
  if (self->values->rows == self->values->cols && xstep != ystep)
    {
      xstep = ystep = MAX (xstep, ystep);
      pl_ticks_at_step (first + self->view_x0 - 0.5, first + self->view_x1 - 0.5, xstep, xticks);
      pl_ticks_at_step (first_y + self->view_y0 - 0.5, first_y + self->view_y1 - 0.5, ystep, yticks);
    }
  pl_figure_record_ticks (self, 0, xticks);
  pl_figure_record_ticks (self, 1, yticks);

  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  pl_draw_set_rgb (draw, draw->axis);
  for (guint i = 0; i < xticks->len; i++)
    {
      double p = g_array_index (xticks, double, i);
      double x = plot->x + (p - first + 0.5 - self->view_x0) / vw * pw;
      g_autofree char *label = pl_format_tick (p, xstep);

      cairo_move_to (cr, x, plot->y + ph);
      cairo_line_to (cr, x, plot->y + ph + TICK_LENGTH);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, x, plot->y + ph + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
    }
  for (guint i = 0; i < yticks->len; i++)
    {
      double p = g_array_index (yticks, double, i);
      double y = plot->y + (p - first_y + 0.5 - self->view_y0) / vh * ph;
      g_autofree char *label = pl_format_tick (p, ystep);

      cairo_move_to (cr, plot->x, y);
      cairo_line_to (cr, plot->x - TICK_LENGTH, y);
      cairo_stroke (cr);
      pl_draw_text (draw, label, tick_size, 0, draw->fg, plot->x - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
    }
  cairo_restore (cr);
}

void
pl_figure_heatmap_render (PlFigure                *self,
                          PlDraw                  *draw,
                          const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  double tick_size = pl_figure_tick_size (self);
  const char *x_label = self->x_label ? self->x_label : "Position";
  const char *y_label = self->y_label ? self->y_label : "Position";
  g_autoptr(GArray) yticks = g_array_new (FALSE, FALSE, sizeof (double));
  double lo, hi, vw, vh, tick_h, label_h;
  double left, right, bottom, top, aw, ah, s, pw, ph, ox, oy, bar_w = 0, ystep, label_left;
  cairo_rectangle_t plot, bar;
  cairo_surface_t *image;
  g_auto(GStrv) shown = NULL;
  double named_w = 0;

  pl_figure_heatmap_auto_range (self, &lo, &hi);
  if (!self->has_view && self->values != NULL)
    {
      self->view_x0 = 0;
      self->view_y0 = 0;
      self->view_x1 = self->values->cols;
      self->view_y1 = self->values->rows;
    }
  vw = self->view_x1 - self->view_x0;
  vh = self->view_y1 - self->view_y0;

  pl_draw_text_size (draw, "0", tick_size, 0, NULL, &tick_h);
  pl_draw_text_size (draw, "Position", self->font_size, 0, NULL, &label_h);

  /* Reserve the margins from the labels the ticks will need at about this
   * size, then fit square cells in what is left. */
  if (self->tick_labels != NULL && self->values != NULL)
    {
      /* Named cells: room for the longest name in view on each axis, but
       * never so much that the plot vanishes. */
      shown = g_new0 (char *, self->n_tick_labels + 1);
      for (gsize i = 0; i < self->n_tick_labels; i++)
        shown[i] = display_label (self->tick_labels[i]);
      named_w = MIN (widest_named (draw, tick_size, shown, self->view_x0, self->view_x1,
                                   MIN (self->values->cols, self->n_tick_labels)),
                     area->height * 0.35);
      left = GAP + label_h + GAP + TICK_LENGTH + TICK_GAP +
             MIN (widest_named (draw, tick_size, shown, self->view_y0, self->view_y1,
                                MIN (self->values->rows, self->n_tick_labels)),
                  area->width * 0.3);
      bottom = TICK_LENGTH + TICK_GAP + named_w + GAP + label_h + GAP;
    }
  else
    {
      ystep = pl_nice_ticks (first_row (self) + self->view_y0 - 0.5, first_row (self) + self->view_y1 - 0.5,
                             (guint) CLAMP (area->height / (tick_h * 3), 2, 12), TRUE, yticks);
      left = GAP + label_h + GAP + widest_label (draw, tick_size, yticks, ystep) + TICK_LENGTH + TICK_GAP;
      bottom = TICK_LENGTH + TICK_GAP + tick_h + GAP + label_h + GAP;
    }
  top = pl_draw_top_room (draw, area->width - 2 * GAP, tick_h);
  if (self->panel_bar == PL_PANEL_BAR_NONE)
    right = GAP;    /* the multiples draw one bar for all */
  else
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - top - bottom, 10) };
      bar_w = pl_draw_colorbar (draw, &probe, lo, hi, TRUE);
      right = BAR_GAP + bar_w + GAP;
    }
  if (shown == NULL)
    {
      /* Half the last column's number may stand past the plot's edge. */
      g_autoptr(GArray) xticks = g_array_new (FALSE, FALSE, sizeof (double));
      double first = self->first_position;
      double xstep = pl_nice_ticks (first + self->view_x0 - 0.5, first + self->view_x1 - 0.5,
                                    (guint) CLAMP (area->width / (tick_h * 4), 2, 12), TRUE, xticks);

      right = MAX (right, widest_label (draw, tick_size, xticks, xstep) / 2 + 1);
    }
  /* What the labels need, and what small multiples ask of every panel. */
  {
    double margins[4] = { left, top, right, bottom };

    pl_figure_take_margins (self, margins);
    label_left = left;
    left = margins[0];
    top = margins[1];
    right = margins[2];
    bottom = margins[3];
  }

  aw = MAX (area->width - left - right, 1);
  ah = MAX (area->height - top - bottom, 1);
  /* Square cells, as a position-by-position matrix should have, unless the
   * matrix is so far from square (heads × positions) that it would be a sliver. */
  if (vw / vh <= 3 && vh / vw <= 3)
    {
      s = MIN (aw / vw, ah / vh);
      pw = vw * s;
      ph = vh * s;
    }
  else
    {
      pw = aw;
      ph = ah;
      s = MIN (aw / vw, ah / vh);
    }
  ox = area->x + left + (aw - pw) / 2;
  oy = area->y + top + (ah - ph) / 2;
  plot = (cairo_rectangle_t) { ox, oy, pw, ph };
  self->plot_area = plot;
  self->slack_x = aw - pw;
  self->slack_y = ah - ph;

  /* The cells. */
  image = ensure_image (self, lo, hi);
  if (image != NULL)
    {
      cairo_pattern_t *pattern;

      cairo_save (cr);
      cairo_rectangle (cr, plot.x, plot.y, plot.width, plot.height);
      cairo_clip (cr);
      cairo_translate (cr, plot.x, plot.y);
      cairo_scale (cr, pw / vw, ph / vh);
      cairo_translate (cr, -self->view_x0, -self->view_y0);
      cairo_set_source_surface (cr, image, 0, 0);
      pattern = cairo_get_source (cr);
      cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
      cairo_pattern_set_extend (pattern, CAIRO_EXTEND_NONE);
      cairo_paint (cr);
      cairo_restore (cr);

      if (self->grid && s >= 6)
        draw_grid (self, draw, &plot, s);
    }
  if (self->first_position < 0)
    draw_zero (self, draw, &plot);
  pl_draw_frame (draw, &plot);

  if (shown != NULL)
    draw_named_ticks (self, draw, &plot, shown, tick_size, tick_h);
  else
    {
      g_clear_pointer (&self->label_boxes, g_array_unref);
      draw_numeric_ticks (self, draw, &plot, tick_size, tick_h);
    }

  /* Axis titles and the figure title hug the plot, wherever it was centred. */
  pl_draw_text (draw, x_label, pl_draw_fit_size (draw, x_label, self->font_size, 0, area->width - 2 * GAP),
                PL_TEXT_AXIS_TITLE, draw->fg, plot.x + pw / 2,
                plot.y + ph + TICK_LENGTH + TICK_GAP + (shown != NULL ? named_w : tick_h) + GAP, 0.5, 0, 0);
  pl_draw_text (draw, y_label, pl_draw_fit_size (draw, y_label, self->font_size, 0, ph + 2 * GAP),
                PL_TEXT_AXIS_TITLE, draw->fg, plot.x - label_left + GAP, plot.y + ph / 2, 0.5, 0, -G_PI / 2);
  pl_draw_title (draw, plot.x + pw / 2, plot.y - pl_draw_title_gap (tick_h), area->x + GAP,
                 area->x + area->width - GAP);

  if (self->panel_bar == PL_PANEL_BAR_OWN)
    {
      bar = (cairo_rectangle_t) { plot.x + pw + BAR_GAP, plot.y, BAR_WIDTH, ph };
      pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
      self->colorbar_area = bar;
      self->has_colorbar = TRUE;
    }
}

PlFigure *
pl_figure_new_rotary_norms (PlMatrix   *norms,
                            const char *model_name,
                            guint       layer,
                            gboolean    keys)
{
  PlFigure *figure = pl_figure_new_heatmap (norms, 0);
  /* Translators: figure title: model — layer N, queries or keys */
  g_autofree char *title = g_strdup_printf (keys ? _("%s — layer %u: key norm by rotary plane")
                                                 : _("%s — layer %u: query norm by rotary plane"),
                                            model_name, layer);

  /* Heads count from 1, as everywhere; planes are the frequencies' index i
   * of θ_i = base^(−2i/d), from 0. */
  pl_figure_set_first_row (figure, 1);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Rotary plane (fastest first)"), keys ? _("Key head") : _("Head"));
  pl_figure_set_value_label (figure, _("Mean norm"));
  return figure;
}
