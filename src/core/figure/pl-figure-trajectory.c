/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "pl-figure-private.h"

/* Trajectories: the path of the positions through PCA space, as a line
 * coloured by position with labelled markers, flat (two components on axes)
 * or in 3-D (three components under a rotation, with perspective). */

#define GAP         6.0
#define BAR_WIDTH  10.0
#define BAR_GAP    12.0
#define MARKER      2.6
#define CASING      0.8   /* each side of a line too dark for the background */
/* Camera distance in units of the data's radius: enough depth to read, little distortion. */
#define CAMERA      5.0

typedef struct
{
  double x, y, w, h;
} Box;

static PlFigure *
new_trajectory (PlFigureKind  kind,
                PlMatrix     *projection,
                guint         first_position,
                const double *explained_ratio,
                const guint   comp[3])
{
  PlFigure *self = pl_figure_new_kind (kind);
  guint n_comp = kind == PL_FIGURE_TRAJECTORY_3D ? 3 : 2;

  self->projection = pl_matrix_ref (projection);
  self->first_position = first_position;
  if (explained_ratio != NULL)
    self->explained = g_memdup2 (explained_ratio, projection->cols * sizeof (double));
  for (guint k = 0; k < n_comp; k++)
    self->comp[k] = comp[k];
  self->n_points = projection->rows;
  self->points = g_new (double, 2 * MAX (self->n_points, 1));
  for (gsize i = 0; i < 2 * self->n_points; i++)
    self->points[i] = NAN;
  self->auto_x_label = pl_figure_component_label (self, comp[0]);
  self->auto_y_label = pl_figure_component_label (self, comp[1]);
  self->value_label = g_strdup ("Position");
  self->integer_scale = TRUE;

  return self;
}

PlFigure *
pl_figure_new_trajectory (PlMatrix     *projection,
                          guint         first_position,
                          const double *explained_ratio,
                          guint         comp_a,
                          guint         comp_b)
{
  const guint comp[3] = { comp_a, comp_b, 0 };

  g_return_val_if_fail (projection != NULL, NULL);
  g_return_val_if_fail (comp_a < projection->cols && comp_b < projection->cols, NULL);

  return new_trajectory (PL_FIGURE_TRAJECTORY, projection, first_position, explained_ratio, comp);
}

PlFigure *
pl_figure_new_trajectory_3d (PlMatrix     *projection,
                             guint         first_position,
                             const double *explained_ratio,
                             guint         comp_a,
                             guint         comp_b,
                             guint         comp_c)
{
  const guint comp[3] = { comp_a, comp_b, comp_c };

  g_return_val_if_fail (projection != NULL, NULL);
  g_return_val_if_fail (comp_a < projection->cols && comp_b < projection->cols &&
                        comp_c < projection->cols, NULL);

  return new_trajectory (PL_FIGURE_TRAJECTORY_3D, projection, first_position, explained_ratio, comp);
}

char *
pl_figure_component_label (PlFigure *self,
                           guint     k)
{
  if (self->explained != NULL && isfinite (self->explained[k]))
    /* Translators: an axis: a principal component and its share of the variance */
    return g_strdup_printf (_("PC%u (%.1f %% of variance)"), k + 1, 100 * self->explained[k]);
  /* Translators: a principal component ("PC1") */
  return g_strdup_printf (_("PC%u"), k + 1);
}

void
pl_figure_set_rotation (PlFigure *self,
                        double    azimuth,
                        double    elevation)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->azimuth = fmod (azimuth, 360);
  self->elevation = CLAMP (elevation, -90, 90);
}

void
pl_figure_get_rotation (PlFigure *self,
                        double   *azimuth,
                        double   *elevation)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  if (azimuth)
    *azimuth = self->azimuth;
  if (elevation)
    *elevation = self->elevation;
}

void
pl_figure_set_perspective (PlFigure *self,
                           gboolean  perspective)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->perspective = !!perspective;
}

void
pl_figure_set_label_every (PlFigure *self,
                           guint     k)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->label_every = k;
}

static guint
label_every (PlFigure *self)
{
  static const guint steps[] = { 1, 2, 5 };
  gsize n = self->n_points;

  if (self->label_every > 0)
    return self->label_every;
  /* A round step giving about ten labels. */
  for (guint mag = 1; mag < 1000000; mag *= 10)
    for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
      if (n / (steps[s] * mag) <= 10)
        return steps[s] * mag;
  return 1000000;
}

static void
position_rgb (PlFigure *self,
              double    t,
              double    rgb[3])
{
  pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, t), rgb);
}

static gboolean
overlaps (GArray    *boxes,
          const Box *b)
{
  /* Labels closer than this read as one number ("500100"). */
  const double pad = 2.5;

  for (guint i = 0; i < boxes->len; i++)
    {
      const Box *o = &g_array_index (boxes, Box, i);

      if (b->x < o->x + o->w + pad && o->x < b->x + b->w + pad &&
          b->y < o->y + o->h && o->y < b->y + b->h)
        return TRUE;
    }
  return FALSE;
}

/* Labels beside their markers, in the first of four corners where they touch
 * neither another label nor the frame; left out when none is free. */
static void
draw_labels (PlFigure                *self,
             PlDraw                  *draw,
             const cairo_rectangle_t *plot,
             const guint             *which,
             guint                    n_which)
{
  static const double corners[4][2] = { { 1, -1 }, { 1, 1 }, { -1, -1 }, { -1, 1 } };
  double size = pl_figure_tick_size (self);
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (Box));

  for (guint m = 0; m < n_which; m++)
    {
      guint i = which[m];
      double px = self->points[2 * i], py = self->points[2 * i + 1];
      g_autofree char *label = pl_format_tick (self->first_position + (int) i, 1);
      double w, h;

      if (isnan (px))
        continue;
      pl_draw_text_size (draw, label, size, 0, &w, &h);
      for (guint c = 0; c < 4; c++)
        {
          double ox = px + corners[c][0] * (MARKER + 1.5);
          double oy = py + corners[c][1] * (MARKER + 0.5);
          Box b = { corners[c][0] > 0 ? ox : ox - w, corners[c][1] > 0 ? oy : oy - h, w, h };

          if (b.x < plot->x || b.y < plot->y || b.x + b.w > plot->x + plot->width ||
              b.y + b.h > plot->y + plot->height || overlaps (boxes, &b))
            continue;
          g_array_append_val (boxes, b);
          pl_draw_text (draw, label, size, PL_TEXT_HALO, draw->fg, b.x, b.y, 0, 0, 0);
          break;
        }
    }
}

static void
draw_marker (PlDraw       *draw,
             double        x,
             double        y,
             double        radius,
             const double  rgb[3])
{
  cairo_t *cr = draw->cr;

  cairo_new_sub_path (cr);
  cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
  pl_draw_set_rgb (draw, rgb);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, 0.8);
  pl_draw_set_rgb (draw, draw->fg);
  cairo_stroke (cr);
}

static GArray *
labelled_points (PlFigure *self)
{
  GArray *which = g_array_new (FALSE, FALSE, sizeof (guint));
  guint k = label_every (self);
  guint n = self->n_points;

  for (guint i = 0; i < n; i++)
    {
      /* p mod k, also for the negative positions of a relative table */
      int p = self->first_position + (int) i;
      guint r = (guint) (((p % (int) k) + (int) k) % (int) k);
      /* Where the path starts and ends matters too, unless the next (or
       * last) round label is close by. */
      gboolean end = (i == 0 && k - r > k / 3) || (i + 1 == n && n > 1 && r > k / 3);

      if (r == 0 || end)
        g_array_append_val (which, i);
    }
  /* A relative table's zero bucket is labelled first, so no other label
   * takes its place. */
  if (self->first_position < 0 && (guint) -self->first_position < n)
    for (guint m = 0; m < which->len; m++)
      if (g_array_index (which, guint, m) == (guint) -self->first_position)
        {
          guint zero = g_array_index (which, guint, m);

          g_array_remove_index (which, m);
          g_array_prepend_val (which, zero);
          break;
        }
  return which;
}

static double
colorbar_room (PlDraw                  *draw,
               const cairo_rectangle_t *area)
{
  PlFigure *self = draw->figure;
  cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - 4 * GAP, 10) };
  double lo, hi;

  if (self->panel_bar == PL_PANEL_BAR_NONE)
    return GAP;
  pl_figure_value_range (self, &lo, &hi);
  return BAR_GAP + pl_draw_colorbar (draw, &probe, lo, hi, TRUE) + GAP;
}

static void
draw_position_bar (PlDraw                  *draw,
                   const cairo_rectangle_t *plot)
{
  PlFigure *self = draw->figure;
  cairo_rectangle_t bar = { plot->x + plot->width + BAR_GAP, plot->y, BAR_WIDTH, plot->height };
  double lo, hi;

  if (self->panel_bar != PL_PANEL_BAR_OWN)
    return;
  pl_figure_value_range (self, &lo, &hi);
  pl_draw_colorbar (draw, &bar, lo, hi, FALSE);
  self->colorbar_area = bar;
  self->has_colorbar = TRUE;
}

static void
render_2d (PlFigure                *self,
           PlDraw                  *draw,
           const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  PlMatrix *p = self->projection;
  guint a = self->comp[0], b = self->comp[1];
  gsize n = p->rows;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  g_autoptr(GArray) which = labelled_points (self);
  PlAxes axes;

  for (gsize i = 0; i < n; i++)
    {
      xlo = MIN (xlo, pl_matrix_get (p, i, a));
      xhi = MAX (xhi, pl_matrix_get (p, i, a));
      ylo = MIN (ylo, pl_matrix_get (p, i, b));
      yhi = MAX (yhi, pl_matrix_get (p, i, b));
    }
  pl_pad_range (&xlo, &xhi, 0.05);
  pl_pad_range (&ylo, &yhi, 0.05);

  pl_axes_init (&axes);
  axes.x0 = xlo;
  axes.x1 = xhi;
  axes.y0 = ylo;
  axes.y1 = yhi;
  pl_axes_layout (draw, &axes, area, colorbar_room (draw, area));
  self->plot_area = axes.plot;
  pl_axes_draw_grid (draw, &axes);

  for (gsize i = 0; i < n; i++)
    {
      self->points[2 * i] = pl_axes_px (&axes, pl_matrix_get (p, i, a));
      self->points[2 * i + 1] = pl_axes_py (&axes, pl_matrix_get (p, i, b));
    }

  cairo_save (cr);
  cairo_rectangle (cr, axes.plot.x, axes.plot.y, axes.plot.width, axes.plot.height);
  cairo_clip (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  /* Casings first, all under the line, so none covers a neighbouring segment. */
  cairo_set_line_width (cr, 1.4 + 2 * CASING);
  for (gsize i = 0; i + 1 < n; i++)
    {
      double rgb[3], casing[3];

      position_rgb (self, (i + 0.5) / (n - 1), rgb);
      if (!pl_draw_casing (draw, rgb, casing))
        continue;
      pl_draw_set_rgb (draw, casing);
      cairo_move_to (cr, self->points[2 * i], self->points[2 * i + 1]);
      cairo_line_to (cr, self->points[2 * i + 2], self->points[2 * i + 3]);
      cairo_stroke (cr);
    }
  cairo_set_line_width (cr, 1.4);
  for (gsize i = 0; i + 1 < n; i++)
    {
      double rgb[3];

      position_rgb (self, (i + 0.5) / (n - 1), rgb);
      pl_draw_set_rgb (draw, rgb);
      cairo_move_to (cr, self->points[2 * i], self->points[2 * i + 1]);
      cairo_line_to (cr, self->points[2 * i + 2], self->points[2 * i + 3]);
      cairo_stroke (cr);
    }
  for (guint m = 0; m < which->len; m++)
    {
      guint i = g_array_index (which, guint, m);
      double rgb[3];

      position_rgb (self, n > 1 ? (double) i / (n - 1) : 0.5, rgb);
      draw_marker (draw, self->points[2 * i], self->points[2 * i + 1], MARKER, rgb);
    }
  cairo_restore (cr);

  draw_labels (self, draw, &axes.plot, (const guint *) (gpointer) which->data, which->len);
  pl_axes_draw (draw, &axes);
  draw_position_bar (draw, &axes.plot);
  pl_axes_clear (&axes);
}

/* ---- 3-D ------------------------------------------------------------------ */

typedef struct
{
  double cx, cy, cz;      /* data centre */
  double radius;          /* the farthest point from the centre */
  double ca, sa, ce, se;  /* rotation */
  double scale;           /* data units to page units at the centre's depth */
  double ox, oy;          /* page centre */
  gboolean perspective;
} View;

/* Rotate (about the vertical by azimuth, then tilt by elevation) and
 * project; DEPTH is towards the viewer, in units of the radius. */
static void
project (const View *v,
         double      x,
         double      y,
         double      z,
         double     *sx,
         double     *sy,
         double     *depth)
{
  double x1, z1, y2, z2, f = 1;

  x -= v->cx;
  y -= v->cy;
  z -= v->cz;
  x1 = x * v->ca + z * v->sa;
  z1 = -x * v->sa + z * v->ca;
  y2 = y * v->ce - z1 * v->se;
  z2 = y * v->se + z1 * v->ce;
  if (v->perspective)
    f = CAMERA * v->radius / (CAMERA * v->radius - z2);
  *sx = v->ox + v->scale * f * x1;
  *sy = v->oy - v->scale * f * y2;
  if (depth)
    *depth = v->radius > 0 ? z2 / v->radius : 0;
}

typedef struct
{
  double depth;
  guint  index;
} Item;

static int
by_depth (gconstpointer a,
          gconstpointer b)
{
  const Item *x = a, *y = b;

  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* Far things fade towards the background: the strongest depth cue on paper. */
static void
fade (PlDraw       *draw,
      const double  rgb[3],
      double        depth,
      double        out[3])
{
  double k = 0.6 * CLAMP ((1 - depth) / 2, 0, 1);

  for (guint c = 0; c < 3; c++)
    out[c] = rgb[c] * (1 - k) + draw->bg[c] * k;
}

static void
draw_box (PlDraw     *draw,
          const View *v,
          const double lo[3],
          const double hi[3])
{
  cairo_t *cr = draw->cr;

  cairo_save (cr);
  cairo_set_line_width (cr, 0.6);
  pl_draw_set_rgb (draw, draw->muted);
  /* The twelve edges: pairs of corners differing in one coordinate. */
  for (guint c = 0; c < 8; c++)
    for (guint bit = 1; bit < 8; bit <<= 1)
      if (!(c & bit))
        {
          guint d = c | bit;
          double x0, y0, x1, y1;

          project (v, c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2], &x0, &y0, NULL);
          project (v, d & 1 ? hi[0] : lo[0], d & 2 ? hi[1] : lo[1], d & 4 ? hi[2] : lo[2], &x1, &y1, NULL);
          cairo_move_to (cr, x0, y0);
          cairo_line_to (cr, x1, y1);
        }
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_triad (PlFigure                *self,
            PlDraw                  *draw,
            const View              *view,
            const cairo_rectangle_t *plot)
{
  cairo_t *cr = draw->cr;
  double size = pl_figure_tick_size (self);
  double len = 18, ox = plot->x + 30, oy = plot->y + plot->height - 30;
  View unit = *view;
  Item items[3];

  /* The same rotation, without perspective, on unit axes. */
  unit.cx = unit.cy = unit.cz = 0;
  unit.radius = 1;
  unit.scale = len;
  unit.ox = ox;
  unit.oy = oy;
  unit.perspective = FALSE;
  for (guint k = 0; k < 3; k++)
    {
      double sx, sy;

      project (&unit, k == 0, k == 1, k == 2, &sx, &sy, &items[k].depth);
      items[k].index = k;
    }
  qsort (items, 3, sizeof (Item), by_depth);

  cairo_save (cr);
  cairo_set_line_width (cr, 1.1);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint m = 0; m < 3; m++)
    {
      guint k = items[m].index;
      double sx, sy, rgb[3], dx, dy, norm;
      g_autofree char *label = g_strdup_printf (_("PC%u"), self->comp[k] + 1);

      project (&unit, k == 0, k == 1, k == 2, &sx, &sy, NULL);
      fade (draw, draw->axis, items[m].depth, rgb);
      pl_draw_set_rgb (draw, rgb);
      cairo_move_to (cr, ox, oy);
      cairo_line_to (cr, sx, sy);
      cairo_stroke (cr);
      /* The label just past the tip, or beside the origin when the axis points at us. */
      dx = sx - ox;
      dy = sy - oy;
      norm = hypot (dx, dy);
      if (norm < 4)
        dx = 1, dy = 1, norm = M_SQRT2;
      pl_draw_text (draw, label, size, 0, rgb,
                    sx + dx / norm * 3, sy + dy / norm * 3,
                    dx > norm * 0.3 ? 0 : dx < -norm * 0.3 ? 1 : 0.5,
                    dy > norm * 0.3 ? 0 : dy < -norm * 0.3 ? 1 : 0.5, 0);
    }
  cairo_restore (cr);
}

static void
render_3d (PlFigure                *self,
           PlDraw                  *draw,
           const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  PlMatrix *p = self->projection;
  gsize n = p->rows;
  double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
  double top, right, tick_h;
  g_autoptr(GArray) which = labelled_points (self);
  g_autoptr(GArray) items = g_array_sized_new (FALSE, FALSE, sizeof (Item), n);
  g_autofree double *depth = g_new (double, MAX (n, 1));
  g_autofree char *caption = NULL;
  g_autofree gboolean *is_labelled = g_new0 (gboolean, MAX (n, 1));
  cairo_rectangle_t plot;
  View v;

  for (gsize i = 0; i < n; i++)
    for (guint k = 0; k < 3; k++)
      {
        lo[k] = MIN (lo[k], pl_matrix_get (p, i, self->comp[k]));
        hi[k] = MAX (hi[k], pl_matrix_get (p, i, self->comp[k]));
      }

  pl_draw_text_size (draw, "0", pl_figure_tick_size (self), 0, NULL, &tick_h);
  top = pl_draw_top_room (draw, area->width - 2 * GAP, tick_h);
  right = colorbar_room (draw, area);
  {
    double margins[4] = { GAP, top, right, GAP + tick_h + GAP };

    pl_figure_take_margins (self, margins);
    plot = (cairo_rectangle_t) { area->x + margins[0], area->y + margins[1],
                                 MAX (area->width - margins[0] - margins[2], 1),
                                 MAX (area->height - margins[1] - margins[3], 1) };
  }
  self->plot_area = plot;

  v.cx = (lo[0] + hi[0]) / 2;
  v.cy = (lo[1] + hi[1]) / 2;
  v.cz = (lo[2] + hi[2]) / 2;
  v.radius = 0;
  for (gsize i = 0; i < n; i++)
    v.radius = MAX (v.radius, hypot (hypot (pl_matrix_get (p, i, self->comp[0]) - v.cx,
                                            pl_matrix_get (p, i, self->comp[1]) - v.cy),
                                     pl_matrix_get (p, i, self->comp[2]) - v.cz));
  if (!(v.radius > 0))
    v.radius = 1;
  v.ca = cos (self->azimuth * G_PI / 180);
  v.sa = sin (self->azimuth * G_PI / 180);
  v.ce = cos (self->elevation * G_PI / 180);
  v.se = sin (self->elevation * G_PI / 180);
  v.perspective = self->perspective;
  /* Every point fits at any rotation, so turning never rescales; with
   * perspective the nearest point is drawn largest. The bounding box's
   * corners reach farther and are clipped to the plot. */
  v.scale = MIN (plot.width, plot.height) / 2 / v.radius * 0.96;
  if (v.perspective)
    v.scale *= (CAMERA - 1) / CAMERA;
  v.ox = plot.x + plot.width / 2;
  v.oy = plot.y + plot.height / 2;

  cairo_save (cr);
  cairo_rectangle (cr, plot.x, plot.y, plot.width, plot.height);
  cairo_clip (cr);
  draw_box (draw, &v, lo, hi);
  cairo_restore (cr);

  for (gsize i = 0; i < n; i++)
    project (&v, pl_matrix_get (p, i, self->comp[0]), pl_matrix_get (p, i, self->comp[1]),
             pl_matrix_get (p, i, self->comp[2]), &self->points[2 * i], &self->points[2 * i + 1], &depth[i]);
  for (guint m = 0; m < which->len; m++)
    is_labelled[g_array_index (which, guint, m)] = TRUE;

  /* Painter's order: segments (by their midpoint) and markers, far to near. */
  for (gsize i = 0; i < n; i++)
    {
      Item it = { i + 1 < n ? (depth[i] + depth[i + 1]) / 2 : depth[i], (guint) i };
      g_array_append_val (items, it);
    }
  g_array_sort (items, by_depth);

  cairo_save (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint m = 0; m < items->len; m++)
    {
      const Item *it = &g_array_index (items, Item, m);
      guint i = it->index;
      double near = v.perspective ? CAMERA / (CAMERA - it->depth) : 1;
      double rgb[3], faded[3];

      if (i + 1 < n)
        {
          double casing[3];

          position_rgb (self, (i + 0.5) / (n - 1), rgb);
          /* Cased by its own colour; far away, the casing fades half as
           * much as the line, so the depth still shows but the line does too. */
          if (pl_draw_casing (draw, rgb, casing))
            {
              fade (draw, casing, (it->depth + 1) / 2, faded);
              pl_draw_set_rgb (draw, faded);
              cairo_set_line_width (cr, (1.4 + 2 * CASING) * near);
              cairo_move_to (cr, self->points[2 * i], self->points[2 * i + 1]);
              cairo_line_to (cr, self->points[2 * i + 2], self->points[2 * i + 3]);
              cairo_stroke (cr);
            }
          fade (draw, rgb, it->depth, faded);
          pl_draw_set_rgb (draw, faded);
          cairo_set_line_width (cr, 1.4 * near);
          cairo_move_to (cr, self->points[2 * i], self->points[2 * i + 1]);
          cairo_line_to (cr, self->points[2 * i + 2], self->points[2 * i + 3]);
          cairo_stroke (cr);
        }
      if (is_labelled[i])
        {
          double mnear = v.perspective ? CAMERA / (CAMERA - depth[i]) : 1;

          position_rgb (self, n > 1 ? (double) i / (n - 1) : 0.5, rgb);
          fade (draw, rgb, depth[i], faded);
          draw_marker (draw, self->points[2 * i], self->points[2 * i + 1], MARKER * mnear, faded);
        }
    }
  cairo_restore (cr);

  draw_labels (self, draw, &plot, (const guint *) (gpointer) which->data, which->len);
  draw_triad (self, draw, &v, &plot);

  caption = g_strdup_printf ("azimuth %.0f°, elevation %.0f°", self->azimuth, self->elevation);
  pl_draw_text (draw, caption, pl_figure_tick_size (self), 0, draw->axis,
                plot.x + plot.width, plot.y + plot.height + GAP, 1, 0, 0);
  pl_draw_title (draw, plot.x + plot.width / 2, plot.y - pl_draw_title_gap (tick_h), area->x + GAP,
                 area->x + area->width - GAP);
  draw_position_bar (draw, &plot);
}

void
pl_figure_trajectory_render (PlFigure                *self,
                             PlDraw                  *draw,
                             const cairo_rectangle_t *area)
{
  if (self->kind == PL_FIGURE_TRAJECTORY_3D)
    render_3d (self, draw, area);
  else
    render_2d (self, draw, area);
}
