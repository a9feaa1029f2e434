/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
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
  g_clear_pointer (&self->caption, g_free);
  g_clear_pointer (&self->x_label, g_free);
  g_clear_pointer (&self->y_label, g_free);
  g_clear_pointer (&self->value_label, g_free);
  g_clear_pointer (&self->auto_x_label, g_free);
  g_clear_pointer (&self->auto_y_label, g_free);
  g_clear_pointer (&self->projection, pl_matrix_unref);
  g_clear_pointer (&self->explained, g_free);
  g_clear_pointer (&self->points, g_free);
  g_clear_pointer (&self->xs, g_free);
  g_clear_pointer (&self->series, g_ptr_array_unref);
  g_clear_pointer (&self->ys, g_free);
  g_clear_pointer (&self->point_values, g_free);
  g_clear_pointer (&self->categories, g_strfreev);
  g_clear_pointer (&self->columns, g_strfreev);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->panels, g_ptr_array_unref);
  g_clear_pointer (&self->panel_areas, g_array_unref);
  g_clear_pointer (&self->font_family, g_free);
  g_clear_pointer (&self->values, pl_matrix_unref);
  g_clear_pointer (&self->image, cairo_surface_destroy);
  g_clear_pointer (&self->special_image, cairo_surface_destroy);
  g_clear_pointer (&self->special_values, pl_matrix_unref);
  g_clear_pointer (&self->special_names, g_strfreev);
  g_clear_pointer (&self->bar_image, cairo_surface_destroy);
  g_clear_pointer (&self->tick_labels, g_strfreev);
  g_clear_pointer (&self->label_boxes, g_array_unref);
  g_clear_pointer (&self->ticks[0], g_array_unref);
  g_clear_pointer (&self->ticks[1], g_array_unref);
  g_clear_pointer (&self->layout, g_array_unref);
  g_clear_pointer (&self->bias_buckets, g_free);
  g_clear_pointer (&self->grid_cache, pl_grid_cache_free);

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
  self->perspective = TRUE;
  self->shared_lo = NAN;
  self->shared_hi = NAN;
}

PlFigure *
pl_figure_new_kind (PlFigureKind kind)
{
  PlFigure *self = g_object_new (PL_TYPE_FIGURE, NULL);

  self->kind = kind;
  return self;
}

gboolean
pl_finite_range (const double *values,
                 gsize         n,
                 double       *lo,
                 double       *hi)
{
  double a = INFINITY, b = -INFINITY;

  for (gsize i = 0; values != NULL && i < n; i++)
    if (isfinite (values[i]))
      {
        a = MIN (a, values[i]);
        b = MAX (b, values[i]);
      }
  *lo = a;
  *hi = b;
  return isfinite (a);
}

const char *
pl_figure_x_label (PlFigure *self)
{
  return self->x_label != NULL ? self->x_label : self->auto_x_label;
}

const char *
pl_figure_y_label (PlFigure *self)
{
  return self->y_label != NULL ? self->y_label : self->auto_y_label;
}

static void
scan_matrix (const PlMatrix *m,
             double         *lo,
             double         *hi)
{
  gsize n = m->rows * m->cols;

  for (gsize i = 0; i < n; i++)
    {
      float v = m->data[i];

      if (isfinite (v))
        {
          *lo = MIN (*lo, v);
          *hi = MAX (*hi, v);
        }
    }
}

void
pl_figure_scan_extremes (PlFigure *self)
{
  double lo = INFINITY, hi = -INFINITY;

  scan_matrix (self->values, &lo, &hi);
  if (self->special_values != NULL)
    scan_matrix (self->special_values, &lo, &hi);
  self->data_min = isfinite (lo) ? lo : NAN;
  self->data_max = isfinite (hi) ? hi : NAN;
}

PlFigure *
pl_figure_new_heatmap (PlMatrix *values,
                       guint     first_position)
{
  PlFigure *self;

  g_return_val_if_fail (values != NULL, NULL);

  self = pl_figure_new_kind (PL_FIGURE_HEATMAP);
  self->auto_x_label = g_strdup ("Position");
  self->auto_y_label = g_strdup ("Position");
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
  pl_figure_scan_extremes (self);
  pl_figure_heatmap_clear (self);
}

void
pl_figure_set_first_position (PlFigure *self,
                              int       first)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  self->first_position = first;
  pl_figure_heatmap_clear (self);
}

void
pl_figure_set_first_row (PlFigure *self,
                         guint     first_row)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  self->first_row = first_row;
  self->own_first_row = TRUE;
}

/* cairo's image surfaces: at most this many pixels a side */
#define MAX_IMAGE_SIDE 32767

static gboolean
check_image (guint64      width,
             guint64      height,
             const char  *what,
             GError     **error)
{
  if (width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE)
    return TRUE;
  g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
               "%s would be %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " pixels, one a cell, and cairo draws at "
               "most %d a side: show fewer positions", what, width, height, MAX_IMAGE_SIDE);
  return FALSE;
}

gboolean
pl_figure_check_size (PlFigure  *self,
                      GError   **error)
{
  guint64 width, height, special_width, special_height;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  switch ((int) self->kind)
    {
    case PL_FIGURE_HEATMAP:
    case PL_FIGURE_POSITION_BIAS:
      return self->values == NULL || check_image (self->values->cols, self->values->rows, "the heatmap", error);
    case PL_FIGURE_PATCH_GRID:
      pl_figure_patch_grid_image_size (self, &width, &height, &special_width, &special_height);
      return check_image (width, height, "the grid of maps", error) &&
             check_image (special_width, special_height, "the special tokens' maps", error);
    case PL_FIGURE_GRID_COLORS:
      return check_image (self->grid_cols, self->grid_rows, "the grid of colours", error);
    case PL_FIGURE_MULTIPLES:
      for (guint i = 0; i < self->panels->len; i++)
        if (!pl_figure_check_size (g_ptr_array_index (self->panels, i), error))
          return FALSE;
      return TRUE;
    default:
      return TRUE;
    }
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
  /* Small multiples zoom and pan as one. */
  for (guint i = 0; self->panels != NULL && i < self->panels->len; i++)
    pl_figure_set_view (g_ptr_array_index (self->panels, i), x0, y0, x1, y1);
}

void
pl_figure_set_tick_labels (PlFigure           *self,
                           const char * const *labels,
                           gsize               n)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (labels != NULL || n == 0);

  g_clear_pointer (&self->tick_labels, g_strfreev);
  self->n_tick_labels = 0;
  if (labels == NULL || n == 0)
    return;
  self->tick_labels = g_new0 (char *, n + 1);
  for (gsize i = 0; i < n; i++)
    self->tick_labels[i] = g_strdup (labels[i] != NULL ? labels[i] : "");
  self->n_tick_labels = n;
}

gboolean
pl_figure_get_tick_label_box (PlFigure          *self,
                              gboolean           x_axis,
                              guint              index,
                              cairo_rectangle_t *box)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->label_boxes == NULL)
    return FALSE;
  for (guint i = 0; i < self->label_boxes->len; i++)
    {
      const PlLabelBox *b = &g_array_index (self->label_boxes, PlLabelBox, i);

      if (b->axis == (x_axis ? 0u : 1u) && b->index == index)
        {
          if (box != NULL)
            *box = b->box;
          return TRUE;
        }
    }
  return FALSE;
}

void
pl_figure_reset_view (PlFigure *self)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->has_view = FALSE;
  for (guint i = 0; self->panels != NULL && i < self->panels->len; i++)
    pl_figure_reset_view (g_ptr_array_index (self->panels, i));
}

void
pl_figure_set_title (PlFigure   *self,
                     const char *title)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  g_free (self->title);
  self->title = g_strdup (title);
}

const char *
pl_figure_get_title (PlFigure *self)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);

  return self->title;
}

void
pl_figure_set_caption (PlFigure   *self,
                       const char *caption)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  g_free (self->caption);
  self->caption = caption != NULL && caption[0] != '\0' ? g_strdup (caption) : NULL;
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

const char *
pl_figure_get_value_label (PlFigure *self)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);

  return self->value_label;
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

  if (self->kind == PL_FIGURE_HEATMAP || self->kind == PL_FIGURE_PATCH_GRID)
    pl_figure_heatmap_auto_range (self, &lo, &hi);
  else
    pl_figure_value_range (self, &lo, &hi);
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

double
pl_figure_caption_room (PlFigure *self,
                        PlDraw   *draw,
                        double    width,
                        double   *text_height)
{
  double size = self->font_size * 0.85, margin = self->font_size;
  double h;

  if (self->caption == NULL)
    return 0;
  h = pl_draw_paragraph (draw, self->caption, size, 0, 0, MAX (width - 2 * margin, 1), FALSE);
  if (text_height)
    *text_height = h;
  return h + margin;
}

void
pl_figure_take_margins (PlFigure *self,
                        double    margins[4])
{
  for (guint k = 0; k < 4; k++)
    {
      self->margins[k] = margins[k];
      margins[k] = MAX (margins[k], self->margin_floor[k]);
    }
}

/* One frame of SELF in WIDTH × HEIGHT of CR's user space, its layout
 * recorded into LAYOUT (NULL: not recorded) as panel PANEL, TO_FIGURE
 * taking device units to the recorded figure's. */
static void
render_frame (PlFigure             *self,
              cairo_t              *cr,
              double                width,
              double                height,
              GString              *svg_text,
              GArray               *layout,
              const cairo_matrix_t *to_figure,
              int                   panel)
{
  PlDraw draw;
  cairo_rectangle_t area = { 0, 0, width, height };

  pl_draw_init (&draw, self, cr, svg_text);
  draw.width = width;
  draw.height = height;
  draw.layout = layout;
  draw.to_figure = *to_figure;
  draw.panel = panel;

  cairo_save (cr);
  pl_draw_set_rgb (&draw, draw.bg);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  if (self->caption != NULL)
    {
      /* The caption under everything, as wide as the page less its margins. */
      double size = self->font_size * 0.85, margin = self->font_size, h = 0;
      double room = pl_figure_caption_room (self, &draw, width, &h);

      pl_draw_paragraph (&draw, self->caption, size, margin, height - margin / 2 - h,
                         MAX (width - 2 * margin, 1), TRUE);
      area.height = MAX (height - room, 1);
    }

  self->has_colorbar = FALSE;
  pl_figure_record_ticks (self, 0, NULL);
  pl_figure_record_ticks (self, 1, NULL);
  switch (self->kind)
    {
    case PL_FIGURE_HEATMAP:
      pl_figure_heatmap_render (self, &draw, &area);
      break;
    case PL_FIGURE_TRAJECTORY:
    case PL_FIGURE_TRAJECTORY_3D:
      pl_figure_trajectory_render (self, &draw, &area);
      break;
    case PL_FIGURE_LINES:
      pl_figure_lines_render (self, &draw, &area);
      break;
    case PL_FIGURE_SCATTER:
      pl_figure_scatter_render (self, &draw, &area);
      break;
    case PL_FIGURE_BARS:
      pl_figure_bars_render (self, &draw, &area);
      break;
    case PL_FIGURE_TABLE:
      pl_figure_table_render (self, &draw, &area);
      break;
    case PL_FIGURE_MULTIPLES:
      pl_figure_multiples_render (self, &draw, &area);
      break;
    case PL_FIGURE_PATCH_GRID:
      pl_figure_patch_grid_render (self, &draw, &area);
      break;
    case PL_FIGURE_GRID_COLORS:
      pl_figure_grid_colors_render (self, &draw, &area);
      break;
    case PL_FIGURE_POSITION_BIAS:
      pl_figure_bias_render (self, &draw, &area);
      break;
    default:
      g_assert_not_reached ();
    }
  /* The multiples' plot spans their panels, whose own plots are recorded. */
  if (self->kind != PL_FIGURE_MULTIPLES && self->plot_area.width > 0 && self->plot_area.height > 0)
    pl_layout_add_area (&draw, PL_LAYOUT_PLOT, self->kind, &self->plot_area);
  /* The title last, sized against the axis titles drawn (the panels', for small multiples). */
  for (guint i = 0; self->kind == PL_FIGURE_MULTIPLES && i < self->panels->len; i++)
    draw.axis_title_min = MIN (draw.axis_title_min,
                               ((PlFigure *) g_ptr_array_index (self->panels, i))->axis_title_min);
  pl_draw_pending_title (&draw);
  self->axis_title_min = draw.axis_title_min;
  cairo_restore (cr);

  pl_draw_clear (&draw);
  self->rendered = TRUE;
}

/* Shared by pl_figure_render and the exporters (which pass an SVG text sink). */
void
pl_figure_render_full (PlFigure *self,
                       cairo_t  *cr,
                       double    width,
                       double    height,
                       GString  *svg_text)
{
  cairo_matrix_t to_figure;

  if (self->layout == NULL)
    self->layout = pl_layout_new ();
  pl_layout_clear (self->layout);
  self->layout_width = width;
  self->layout_height = height;
  cairo_get_matrix (cr, &to_figure);
  if (cairo_matrix_invert (&to_figure) != CAIRO_STATUS_SUCCESS)
    cairo_matrix_init_identity (&to_figure);
  render_frame (self, cr, width, height, svg_text, self->layout, &to_figure, -1);
}

void
pl_figure_render_panel (PlFigure                *self,
                        PlDraw                  *parent,
                        int                      index,
                        const cairo_rectangle_t *r)
{
  int saved = parent->panel;

  parent->panel = index;
  pl_layout_add_area (parent, PL_LAYOUT_PANEL, self->kind, r);
  parent->panel = saved;
  cairo_save (parent->cr);
  cairo_translate (parent->cr, r->x, r->y);
  render_frame (self, parent->cr, r->width, r->height, parent->svg_text, parent->layout, &parent->to_figure, index);
  cairo_restore (parent->cr);
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
pl_figure_render_detached (PlFigure *self,
                           cairo_t  *cr,
                           double    width,
                           double    height)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (cr != NULL);

  pl_figure_save_render_state (self);
  pl_figure_render_full (self, cr, width, height, NULL);
  pl_figure_restore_render_state (self);
}

void
pl_figure_get_plot_area (PlFigure          *self,
                         cairo_rectangle_t *area)
{
  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (area != NULL);

  *area = self->plot_area;
}

void
pl_figure_record_ticks (PlFigure *self,
                        guint     axis,
                        GArray   *ticks)
{
  g_assert (axis < 2);
  g_clear_pointer (&self->ticks[axis], g_array_unref);
  if (ticks != NULL)
    self->ticks[axis] = g_array_copy (ticks);
}

const double *
pl_figure_get_ticks (PlFigure *self,
                     gboolean  x_axis,
                     guint    *n)
{
  GArray *ticks;

  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);

  ticks = self->ticks[x_axis ? 0 : 1];
  if (n != NULL)
    *n = ticks != NULL ? ticks->len : 0;
  return ticks != NULL ? (const double *) (gpointer) ticks->data : NULL;
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

  if (self->kind == PL_FIGURE_MULTIPLES)
    {
      double px, py;
      int i = pl_figure_get_panel_at (self, x, y, &px, &py);

      return i >= 0 && pl_figure_hit_cell (g_ptr_array_index (self->panels, i), px, py, column, row);
    }
  if (self->kind == PL_FIGURE_PATCH_GRID)
    return pl_figure_patch_grid_hit (self, x, y, column ? column : &(guint) { 0 }, row ? row : &(guint) { 0 });
  if (self->kind == PL_FIGURE_GRID_COLORS)
    return pl_figure_grid_colors_hit (self, x, y, column ? column : &(guint) { 0 }, row ? row : &(guint) { 0 });
  if (self->kind == PL_FIGURE_POSITION_BIAS)
    return pl_figure_bias_hit (self, x, y, column ? column : &(guint) { 0 }, row ? row : &(guint) { 0 });
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

void
pl_figure_value_range (PlFigure *self,
                       double   *lo,
                       double   *hi)
{
  double a = 0, b = 1;

  switch (self->kind)
    {
    case PL_FIGURE_HEATMAP:
    case PL_FIGURE_PATCH_GRID:
    case PL_FIGURE_POSITION_BIAS:
      pl_figure_heatmap_auto_range (self, &a, &b);
      return;
    case PL_FIGURE_TRAJECTORY:
    case PL_FIGURE_TRAJECTORY_3D:
      /* Colour is position. */
      a = self->first_position;
      b = self->first_position + (double) MAX (self->n_points, 2) - 1;
      break;
    case PL_FIGURE_SCATTER:
      if (!pl_finite_range (self->point_values, self->n_xs, &a, &b))
        a = 0, b = 1;
      break;
    case PL_FIGURE_TABLE:
      a = INFINITY, b = -INFINITY;
      for (guint i = 0; self->rows != NULL && i < self->rows->len; i++)
        {
          PlTableRow *row = g_ptr_array_index (self->rows, i);
          double r0, r1;

          if (pl_finite_range (row->values, g_strv_length (self->columns), &r0, &r1))
            {
              a = MIN (a, r0);
              b = MAX (b, r1);
            }
        }
      if (!isfinite (a))
        a = 0, b = 1;
      break;
    case PL_FIGURE_MULTIPLES:
      a = self->shared_lo;
      b = self->shared_hi;
      if (!isfinite (a) || !isfinite (b))
        a = 0, b = 1;
      break;
    case PL_FIGURE_LINES:
    case PL_FIGURE_BARS:
    default:
      break;
    }
  if (self->colormap == PL_COLORMAP_DIVERGING && self->kind != PL_FIGURE_TRAJECTORY &&
      self->kind != PL_FIGURE_TRAJECTORY_3D)
    {
      double m = MAX (fabs (a), fabs (b));
      a = -m;
      b = m;
    }
  if (!isnan (self->vmin))
    a = self->vmin;
  if (!isnan (self->vmax))
    b = self->vmax;
  *lo = a;
  *hi = b;
}

gboolean
pl_figure_get_point (PlFigure *self,
                     guint     index,
                     double   *x,
                     double   *y)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (!self->rendered || self->points == NULL || index >= self->n_points ||
      isnan (self->points[2 * index]))
    return FALSE;
  if (x)
    *x = self->points[2 * index];
  if (y)
    *y = self->points[2 * index + 1];
  return TRUE;
}

int
pl_figure_hit_point (PlFigure *self,
                     double    x,
                     double    y,
                     double    radius)
{
  double best = radius * radius;
  int found = -1;

  g_return_val_if_fail (PL_IS_FIGURE (self), -1);

  if (!self->rendered || self->points == NULL)
    return -1;
  for (gsize i = 0; i < self->n_points; i++)
    {
      double dx = self->points[2 * i] - x, dy = self->points[2 * i + 1] - y;

      /* Ties go to the later point, drawn on top. */
      if (!isnan (dx) && dx * dx + dy * dy <= best)
        {
          best = dx * dx + dy * dy;
          found = (int) i;
        }
    }
  return found;
}

typedef struct _PlRenderState
{
  gboolean           rendered;
  cairo_rectangle_t  plot_area;
  cairo_rectangle_t  colorbar_area;
  gboolean           has_colorbar;
  double            *points;
  GArray            *panel_areas;
  GArray            *label_boxes;
  GArray            *ticks[2];
  GArray            *layout;
  double             layout_width;
  double             layout_height;
} PlRenderState;

void
pl_figure_save_render_state (PlFigure *self)
{
  PlRenderState *state = g_new0 (PlRenderState, 1);

  g_assert (self->saved == NULL);
  state->rendered = self->rendered;
  state->plot_area = self->plot_area;
  state->colorbar_area = self->colorbar_area;
  state->has_colorbar = self->has_colorbar;
  if (self->points != NULL)
    state->points = g_memdup2 (self->points, 2 * MAX (self->n_points, 1) * sizeof (double));
  if (self->panel_areas != NULL)
    state->panel_areas = g_array_copy (self->panel_areas);
  if (self->label_boxes != NULL)
    state->label_boxes = g_array_copy (self->label_boxes);
  for (guint axis = 0; axis < 2; axis++)
    if (self->ticks[axis] != NULL)
      state->ticks[axis] = g_array_copy (self->ticks[axis]);
  /* The screen's layout is kept whole; the export records a new one. */
  state->layout = g_steal_pointer (&self->layout);
  state->layout_width = self->layout_width;
  state->layout_height = self->layout_height;
  self->saved = state;
  for (guint i = 0; self->panels != NULL && i < self->panels->len; i++)
    pl_figure_save_render_state (g_ptr_array_index (self->panels, i));
}

void
pl_figure_restore_render_state (PlFigure *self)
{
  PlRenderState *state = g_steal_pointer (&self->saved);

  g_assert (state != NULL);
  self->rendered = state->rendered;
  self->plot_area = state->plot_area;
  self->colorbar_area = state->colorbar_area;
  self->has_colorbar = state->has_colorbar;
  if (state->points != NULL)
    {
      memcpy (self->points, state->points, 2 * MAX (self->n_points, 1) * sizeof (double));
      g_free (state->points);
    }
  if (state->panel_areas != NULL)
    {
      g_array_unref (self->panel_areas);
      self->panel_areas = state->panel_areas;
    }
  g_clear_pointer (&self->label_boxes, g_array_unref);
  self->label_boxes = state->label_boxes;
  for (guint axis = 0; axis < 2; axis++)
    {
      g_clear_pointer (&self->ticks[axis], g_array_unref);
      self->ticks[axis] = state->ticks[axis];
    }
  g_clear_pointer (&self->layout, g_array_unref);
  self->layout = state->layout;
  self->layout_width = state->layout_width;
  self->layout_height = state->layout_height;
  g_free (state);
  for (guint i = 0; self->panels != NULL && i < self->panels->len; i++)
    pl_figure_restore_render_state (g_ptr_array_index (self->panels, i));
}
