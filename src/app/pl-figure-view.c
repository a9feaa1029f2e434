/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-figure-view.h"
#include "pl-figure-viewport.h"

/* Draws a PlFigure, the same renderer the exports use. Heatmaps zoom with
 * the scroll wheel or a pinch around the pointer and pan by dragging. What
 * is under the pointer (a cell, a point, a line's value, a legend entry) is
 * described in a tooltip at the pointer by the view's owner (::describe)
 * and can be clicked (::activate). */
struct _PlFigureView
{
  GtkWidget  parent_instance;

  PlFigure  *figure;
  /* The window of cells shown and each panel's share of it */
  PlFigureViewport viewport;

  /* The 3-D rotation when a drag began */
  double     drag_azimuth, drag_elevation;

  /* The window when a drag began */
  double     drag_x0, drag_y0;
  double     zoom_scale_start;
  double     pointer_x, pointer_y;

  /* Shift-drag selects a range of cells [highlight_start, highlight_end),
   * drawn over the figure as the rows and columns it covers. */
  gboolean   selecting;
  guint      highlight_start;
  guint      highlight_end;
  guint      label_offset;     /* the position number of cell 0 */

  /* The figure as last drawn, at this size and scale: frames that do not
   * change it (a progress bar, a hover, a highlight) only paint the texture. */
  GdkTexture *rendered;
  int         rendered_width;
  int         rendered_height;
  int         rendered_scale;
};

G_DEFINE_FINAL_TYPE (PlFigureView, pl_figure_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_FIGURE,
  N_PROPS
};

enum {
  DESCRIBE,
  ACTIVATE,
  SELECT,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

GtkWidget *
pl_figure_view_new (void)
{
  return g_object_new (PL_TYPE_FIGURE_VIEW, NULL);
}

PlFigure *
pl_figure_view_get_figure (PlFigureView *self)
{
  g_return_val_if_fail (PL_IS_FIGURE_VIEW (self), NULL);
  return self->figure;
}

void
pl_figure_view_invalidate (PlFigureView *self)
{
  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  g_clear_object (&self->rendered);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
apply_view (PlFigureView *self)
{
  pl_figure_viewport_apply (&self->viewport, self->figure);
  pl_figure_view_invalidate (self);
}

static void
set_figure (PlFigureView *self,
            PlFigure     *figure,
            GArray       *panel_cells)
{
  if (!g_set_object (&self->figure, figure))
    return;
  g_clear_object (&self->rendered);

  /* One grid for the whole figure is not a panel's own. */
  pl_figure_viewport_set_cells (&self->viewport, (const guint *) panel_cells->data, panel_cells->len / 2,
                                figure != NULL && pl_figure_get_kind (figure) == PL_FIGURE_MULTIPLES);
  apply_view (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIGURE]);
}

void
pl_figure_view_set_figure (PlFigureView *self,
                           PlFigure     *figure,
                           guint         grid_columns,
                           guint         grid_rows)
{
  g_autoptr(GArray) cells = g_array_new (FALSE, FALSE, sizeof (guint));

  g_return_if_fail (PL_IS_FIGURE_VIEW (self));
  g_return_if_fail (!figure || PL_IS_FIGURE (figure));

  if (grid_columns > 0 && grid_rows > 0)
    {
      /* Every panel of small multiples has the figure's grid. */
      guint n = figure != NULL && pl_figure_get_kind (figure) == PL_FIGURE_MULTIPLES ?
                pl_figure_get_n_panels (figure) : 1;

      for (guint i = 0; i < n; i++)
        {
          g_array_append_val (cells, grid_columns);
          g_array_append_val (cells, grid_rows);
        }
    }
  set_figure (self, figure, cells);
}

void
pl_figure_view_set_multiples (PlFigureView *self,
                              PlFigure     *figure,
                              const guint  *columns,
                              const guint  *rows)
{
  g_autoptr(GArray) cells = g_array_new (FALSE, FALSE, sizeof (guint));

  g_return_if_fail (PL_IS_FIGURE_VIEW (self));
  g_return_if_fail (PL_IS_FIGURE (figure) && pl_figure_get_kind (figure) == PL_FIGURE_MULTIPLES);

  for (guint i = 0; i < pl_figure_get_n_panels (figure); i++)
    {
      g_array_append_val (cells, columns[i]);
      g_array_append_val (cells, rows[i]);
    }
  set_figure (self, figure, cells);
}

void
pl_figure_view_reset_zoom (PlFigureView *self)
{
  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  pl_figure_viewport_reset (&self->viewport);
  apply_view (self);
}

/* The cell coordinate under a widget point, unclamped. */
static void
point_to_cell (PlFigureView *self,
               double        x,
               double        y,
               double       *cx,
               double       *cy)
{
  cairo_rectangle_t area;
  int panel = pl_figure_viewport_plot_area_at (self->figure, x, y, &area);

  pl_figure_viewport_point_to_cell (&self->viewport, panel, &area, x, y, cx, cy);
}

void
pl_figure_view_zoom (PlFigureView *self,
                     double        factor,
                     double        x,
                     double        y)
{
  double cx, cy;

  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  if (self->figure == NULL || self->viewport.columns == 0 || factor <= 0)
    return;

  /* Zoom around the point under the pointer, so it stays where it is. */
  point_to_cell (self, x, y, &cx, &cy);
  pl_figure_viewport_zoom (&self->viewport, factor, cx, cy);
  apply_view (self);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           PlFigureView             *self)
{
  if (self->viewport.columns == 0)
    return FALSE;
  /* Zoom around the last pointer position the motion controller saw. */
  pl_figure_view_zoom (self, pow (1.15, -dy), self->pointer_x, self->pointer_y);
  return TRUE;
}

static void
on_zoom_begin (GtkGesture       *gesture,
               GdkEventSequence *sequence,
               PlFigureView     *self)
{
  self->zoom_scale_start = 1.0;
}

static void
on_zoom_scale_changed (GtkGestureZoom *gesture,
                       double          scale,
                       PlFigureView   *self)
{
  double x, y;

  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y);
  pl_figure_view_zoom (self, scale / self->zoom_scale_start, x, y);
  self->zoom_scale_start = scale;
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               PlFigureView   *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  self->drag_x0 = self->viewport.x0;
  self->drag_y0 = self->viewport.y0;
  if (self->figure != NULL && pl_figure_get_kind (self->figure) == PL_FIGURE_TRAJECTORY_3D)
    pl_figure_get_rotation (self->figure, &self->drag_azimuth, &self->drag_elevation);
  self->selecting = (state & GDK_SHIFT_MASK) != 0 && pl_figure_view_select_drag (self, x, y, x, y);
}

gboolean
pl_figure_view_select_drag (PlFigureView *self,
                            double        start_x,
                            double        start_y,
                            double        x,
                            double        y)
{
  cairo_rectangle_t area;
  double cx, cy;
  guint column, anchor, row;
  int panel;

  g_return_val_if_fail (PL_IS_FIGURE_VIEW (self), FALSE);

  if (self->figure == NULL || self->viewport.columns == 0 ||
      !pl_figure_hit_cell (self->figure, start_x, start_y, &column, &anchor))
    return FALSE;
  /* In the panel where the drag began, wherever the pointer is now. */
  panel = pl_figure_viewport_plot_area_at (self->figure, start_x, start_y, &area);
  pl_figure_viewport_point_to_cell (&self->viewport, panel, &area, x, y, &cx, &cy);
  row = (guint) CLAMP (cy, 0, pl_figure_viewport_get_panel_rows (&self->viewport, panel) - 1);
  pl_figure_view_set_highlight (self, MIN (row, anchor), MAX (row, anchor) + 1);
  g_signal_emit (self, signals[SELECT], 0, self->highlight_start, self->highlight_end);
  return TRUE;
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                PlFigureView   *self)
{
  cairo_rectangle_t area;
  double sx, sy;

  /* A 3-D trajectory turns under the pointer: half a degree per pixel. */
  if (self->figure != NULL && pl_figure_get_kind (self->figure) == PL_FIGURE_TRAJECTORY_3D)
    {
      pl_figure_set_rotation (self->figure, self->drag_azimuth - dx * 0.5,
                              CLAMP (self->drag_elevation + dy * 0.5, -90, 90));
      pl_figure_view_invalidate (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIGURE]);
      return;
    }
  if (self->figure == NULL || self->viewport.columns == 0)
    return;
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (self->selecting)
    {
      pl_figure_view_select_drag (self, sx, sy, sx + dx, sy + dy);
      return;
    }
  pl_figure_viewport_plot_area_at (self->figure, sx, sy, &area);
  pl_figure_viewport_drag (&self->viewport, self->drag_x0, self->drag_y0, dx, dy, &area);
  apply_view (self);
}

static void
on_click_pressed (GtkGestureClick *gesture,
                  int              n_press,
                  double           x,
                  double           y,
                  PlFigureView    *self)
{
  if (n_press == 2)
    pl_figure_view_reset_zoom (self);
}

/* What is under (X, Y): a cell of a heatmap (of PANEL of small multiples,
 * else -1); a point of a trajectory or scatter (COLUMN, ROW 0); a value of
 * a line (COLUMN the x index, ROW the series) or its legend entry (COLUMN
 * G_MAXUINT). */
static gboolean
hit (PlFigureView *self,
     double        x,
     double        y,
     int          *panel,
     guint        *column,
     guint        *row)
{
  int point;

  *panel = -1;
  if (self->figure == NULL)
    return FALSE;
  switch ((int) pl_figure_get_kind (self->figure))
    {
    case PL_FIGURE_MULTIPLES:
      {
        double px, py;

        *panel = pl_figure_get_panel_at (self->figure, x, y, &px, &py);
        return *panel >= 0 && pl_figure_hit_cell (pl_figure_get_panel (self->figure, *panel), px, py, column, row);
      }
    case PL_FIGURE_HEATMAP:
    case PL_FIGURE_PATCH_GRID:
    case PL_FIGURE_GRID_COLORS:
      return pl_figure_hit_cell (self->figure, x, y, column, row);
    case PL_FIGURE_LINES:
      return pl_figure_hit_line (self->figure, x, y, 8.0, row, column);
    case PL_FIGURE_POSITION_BIAS:
      /* the map's cell (panel −1), or a curve (panel 1, ROW its index) */
      if (pl_figure_hit_cell (self->figure, x, y, column, row))
        return TRUE;
      if (!pl_figure_hit_bias_curve (self->figure, x, y, row, column))
        return FALSE;
      *panel = 1;
      return TRUE;
    case PL_FIGURE_BARS:
      if ((point = pl_figure_hit_bar (self->figure, x, y)) < 0)
        return FALSE;
      *column = point;
      *row = 0;
      return TRUE;
    default:
      if ((point = pl_figure_hit_point (self->figure, x, y, 8.0)) < 0)
        return FALSE;
      *column = point;
      *row = 0;
      return TRUE;
    }
}

char *
pl_figure_view_describe_at (PlFigureView *self,
                            double        x,
                            double        y)
{
  char *text = NULL;
  guint column, row;
  int panel;

  g_return_val_if_fail (PL_IS_FIGURE_VIEW (self), NULL);

  if (hit (self, x, y, &panel, &column, &row))
    g_signal_emit (self, signals[DESCRIBE], 0, panel, column, row, &text);
  return text;
}

gboolean
pl_figure_view_activate_at (PlFigureView *self,
                            double        x,
                            double        y)
{
  guint column, row;
  int panel;

  g_return_val_if_fail (PL_IS_FIGURE_VIEW (self), FALSE);

  if (!hit (self, x, y, &panel, &column, &row))
    return FALSE;
  g_signal_emit (self, signals[ACTIVATE], 0, panel, column, row);
  return TRUE;
}

static gboolean
pl_figure_view_query_tooltip (GtkWidget  *widget,
                              int         x,
                              int         y,
                              gboolean    keyboard,
                              GtkTooltip *tooltip)
{
  PlFigureView *self = PL_FIGURE_VIEW (widget);
  g_autofree char *text = keyboard ? NULL : pl_figure_view_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  /* Around the pointer: leaving this square moves the tooltip along. */
  gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) { x - 8, y - 8, 16, 16 });
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   PlFigureView    *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (n_press == 1 && (state & GDK_SHIFT_MASK) == 0)
    pl_figure_view_activate_at (self, x, y);
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           PlFigureView             *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

/* The selected range as bands over its rows and columns of the heatmap of
 * PANEL in AREA, clipped to the data. */
static void
draw_highlight (PlFigureView            *self,
                cairo_t                 *cr,
                int                      panel,
                const cairo_rectangle_t *plot)
{
  cairo_rectangle_t area = *plot;
  double x0, y0, x1, y1, sx, sy, a, b;

  if (area.width <= 0 || area.height <= 0)
    return;
  pl_figure_viewport_get_panel_window (&self->viewport, panel, &x0, &y0, &x1, &y1);
  sx = area.width / (x1 - x0);
  sy = area.height / (y1 - y0);

  cairo_save (cr);
  cairo_rectangle (cr, area.x, area.y, area.width, area.height);
  cairo_clip (cr);
  a = area.y + (self->highlight_start - y0) * sy;
  b = area.y + (self->highlight_end - y0) * sy;
  cairo_rectangle (cr, area.x, a, area.width, b - a);
  if (self->viewport.columns == self->viewport.rows)
    {
      double c = area.x + (self->highlight_start - x0) * sx;
      double d = area.x + (self->highlight_end - x0) * sx;

      cairo_rectangle (cr, c, area.y, d - c, area.height);
      /* The block where the selection meets itself. */
      cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.18);   /* Adwaita blue */
      cairo_fill_preserve (cr);
      cairo_new_path (cr);
      cairo_rectangle (cr, c + 0.75, a + 0.75, d - c - 1.5, b - a - 1.5);
    }
  else
    {
      cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.18);
      cairo_fill_preserve (cr);
    }
  cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.95);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static char *
selection_label (PlFigureView *self)
{
  guint first = self->highlight_start + self->label_offset;

  if (self->highlight_end - self->highlight_start == 1)
    /* Translators: the Shift-drag selection of one position */
    return g_strdup_printf (_("position %u"), first);
  /* Translators: the Shift-drag selection: positions 12–40 */
  return g_strdup_printf (_("positions %u–%u"), first, self->highlight_end - 1 + self->label_offset);
}

/* "positions a–b" in a pill at the top of the plot. */
static void
draw_selection_label (PlFigureView *self,
                      cairo_t      *cr)
{
  g_autofree char *text = selection_label (self);
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  cairo_rectangle_t area;
  int w, h;
  double x, y;

  pl_figure_viewport_heatmap_area (self->figure, 0, &area);
  pango_layout_get_pixel_size (layout, &w, &h);
  x = area.x + area.width - w - 12;
  y = area.y + 6;
  cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.95);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + h / 2.0, y + h / 2.0 + 2, h / 2.0 + 2, G_PI / 2, 3 * G_PI / 2);
  cairo_arc (cr, x + w - h / 2.0 + 8, y + h / 2.0 + 2, h / 2.0 + 2, -G_PI / 2, G_PI / 2);
  cairo_close_path (cr);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_move_to (cr, x + 4, y + 2);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* The selected positions of a trajectory, ringed. */
static void
draw_highlight_points (PlFigureView *self,
                       cairo_t      *cr)
{
  double x, y;

  cairo_save (cr);
  cairo_set_line_width (cr, 1.5);
  cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.9);
  for (guint i = self->highlight_start; i < self->highlight_end; i++)
    if (pl_figure_get_point (self->figure, i, &x, &y))
      {
        cairo_new_sub_path (cr);
        cairo_arc (cr, x, y, 4.5, 0, 2 * G_PI);
      }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
pl_figure_view_set_highlight (PlFigureView *self,
                              guint         start,
                              guint         end)
{
  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  if (self->highlight_start == start && self->highlight_end == end)
    return;
  self->highlight_start = start;
  self->highlight_end = end;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
pl_figure_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  PlFigureView *self = PL_FIGURE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  cairo_t *cr;

  if (self->figure == NULL || width <= 0 || height <= 0)
    return;

  if (self->rendered == NULL || self->rendered_width != width || self->rendered_height != height ||
      self->rendered_scale != scale)
    {
      g_autoptr(GBytes) bytes = NULL;
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);

      cr = cairo_create (surface);
      cairo_scale (cr, scale, scale);
      pl_figure_render (self->figure, cr, width, height);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      /* Cairo's ARGB32 is premultiplied B, G, R, A in memory on little-endian machines. */
      bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                          (gsize) cairo_image_surface_get_stride (surface) * height * scale,
                                          (GDestroyNotify) cairo_surface_destroy, surface);
      g_clear_object (&self->rendered);
      self->rendered = gdk_memory_texture_new (width * scale, height * scale,
                                               G_BYTE_ORDER == G_LITTLE_ENDIAN ? GDK_MEMORY_B8G8R8A8_PREMULTIPLIED
                                                                               : GDK_MEMORY_A8R8G8B8_PREMULTIPLIED,
                                               bytes, cairo_image_surface_get_stride (surface));
      self->rendered_width = width;
      self->rendered_height = height;
      self->rendered_scale = scale;
    }
  gtk_snapshot_append_texture (snapshot, self->rendered, &GRAPHENE_RECT_INIT (0, 0, width, height));

  if (self->highlight_end > self->highlight_start)
    {
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      if (self->viewport.columns > 0)
        {
          cairo_rectangle_t area;

          /* On every panel of small multiples: one selection for all. */
          for (guint i = 0; pl_figure_viewport_heatmap_area (self->figure, i, &area); i++)
            draw_highlight (self, cr, pl_figure_get_kind (self->figure) == PL_FIGURE_MULTIPLES ? (int) i : -1,
                            &area);
        }
      else
        draw_highlight_points (self, cr);
      draw_selection_label (self, cr);
      cairo_destroy (cr);
    }
}

static void
pl_figure_view_dispose (GObject *object)
{
  PlFigureView *self = PL_FIGURE_VIEW (object);

  g_clear_object (&self->figure);
  g_clear_object (&self->rendered);
  G_OBJECT_CLASS (pl_figure_view_parent_class)->dispose (object);
}

static void
pl_figure_view_finalize (GObject *object)
{
  PlFigureView *self = PL_FIGURE_VIEW (object);

  pl_figure_viewport_clear (&self->viewport);
  G_OBJECT_CLASS (pl_figure_view_parent_class)->finalize (object);
}

static void
pl_figure_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PlFigureView *self = PL_FIGURE_VIEW (object);

  switch (prop_id)
    {
    case PROP_FIGURE:
      g_value_set_object (value, self->figure);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_figure_view_class_init (PlFigureViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_figure_view_dispose;
  object_class->finalize = pl_figure_view_finalize;
  object_class->get_property = pl_figure_view_get_property;
  widget_class->snapshot = pl_figure_view_snapshot;
  widget_class->query_tooltip = pl_figure_view_query_tooltip;

  properties[PROP_FIGURE] =
    g_param_spec_object ("figure", NULL, NULL,
                         PL_TYPE_FIGURE,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* PlFigureView::describe (panel, column, row): the readout of what is
   * under the pointer (see hit ()), a newly allocated string or NULL. */
  signals[DESCRIBE] = g_signal_new ("describe",
                                    G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST,
                                    0, g_signal_accumulator_first_wins, NULL, NULL,
                                    G_TYPE_STRING, 3, G_TYPE_INT, G_TYPE_UINT, G_TYPE_UINT);
  /* PlFigureView::activate (panel, column, row): what is under a click. */
  signals[ACTIVATE] = g_signal_new ("activate",
                                    G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 3, G_TYPE_INT, G_TYPE_UINT, G_TYPE_UINT);
  /* PlFigureView::select (start, end): cells [start, end) chosen with Shift and a drag. */
  signals[SELECT] = g_signal_new ("select",
                                  G_TYPE_FROM_CLASS (klass),
                                  G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);

  gtk_widget_class_set_css_name (widget_class, "plfigureview");
}

static void
pl_figure_view_init (PlFigureView *self)
{
  GtkEventController *scroll, *motion;
  GtkGesture *drag, *click, *zoom;

  pl_figure_viewport_init (&self->viewport);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_click_pressed), self);
  g_signal_connect (click, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  zoom = gtk_gesture_zoom_new ();
  g_signal_connect (zoom, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (zoom, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (zoom));

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
}

void
pl_figure_view_set_label_offset (PlFigureView *self,
                                 guint         offset)
{
  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  self->label_offset = offset;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pl_figure_view_get_highlight (PlFigureView *self,
                              guint        *start,
                              guint        *end)
{
  g_return_if_fail (PL_IS_FIGURE_VIEW (self));

  *start = self->highlight_start;
  *end = self->highlight_end;
}
