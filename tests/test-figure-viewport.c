/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-figure-viewport.h"
#include "pl-test-util.h"
#include "test-figure-util.h"

/* The zoom window of the figure view, without a display: each expectation
 * is worked out by hand from the window's definition (cells [x0, x1) shown
 * across the plot area), and the figure's own hit test checks that the
 * window reaches the heatmap and its panels. */

static void
assert_window (const PlFigureViewport *vp,
               double                  x0,
               double                  y0,
               double                  x1,
               double                  y1)
{
  g_assert_cmpfloat_with_epsilon (vp->x0, x0, 1e-9);
  g_assert_cmpfloat_with_epsilon (vp->y0, y0, 1e-9);
  g_assert_cmpfloat_with_epsilon (vp->x1, x1, 1e-9);
  g_assert_cmpfloat_with_epsilon (vp->y1, y1, 1e-9);
}

static void
grid (PlFigureViewport *vp,
      guint             columns,
      guint             rows)
{
  guint cells[] = { columns, rows };

  pl_figure_viewport_set_cells (vp, cells, 1, FALSE);
}

static void
test_zoom (void)
{
  PlFigureViewport vp;

  pl_figure_viewport_init (&vp);
  grid (&vp, 100, 80);
  assert_window (&vp, 0, 0, 100, 80);

  /* Twice as close around (10, 20): the point keeps its place, a tenth
   * across and a quarter down. */
  pl_figure_viewport_zoom (&vp, 2, 10, 20);
  assert_window (&vp, 5, 10, 55, 50);
  /* Around a point outside the window: around its nearest edge. */
  pl_figure_viewport_zoom (&vp, 2, 0, 200);
  assert_window (&vp, 5, 30, 30, 50);
  /* No closer than four cells, from where 100× closer would begin. */
  pl_figure_viewport_zoom (&vp, 100, 15, 40);
  assert_window (&vp, 15 - 10 / 100.0, 40 - 10 / 100.0, 15 - 10 / 100.0 + 4, 40 - 10 / 100.0 + 4);
  /* Out past the grid: every cell, not more. */
  pl_figure_viewport_zoom (&vp, 0.001, 15, 40);
  assert_window (&vp, 0, 0, 100, 80);
  /* A factor that is not one leaves the window alone. */
  pl_figure_viewport_zoom (&vp, 0, 15, 40);
  pl_figure_viewport_zoom (&vp, -2, 15, 40);
  assert_window (&vp, 0, 0, 100, 80);

  /* A grid narrower than four cells zooms to all of it. */
  grid (&vp, 3, 2);
  pl_figure_viewport_zoom (&vp, 10, 1, 1);
  assert_window (&vp, 0, 0, 3, 2);
  pl_figure_viewport_clear (&vp);
}

static void
test_drag_and_points (void)
{
  cairo_rectangle_t area = { 10, 20, 200, 100 };
  PlFigureViewport vp;
  double cx, cy;

  pl_figure_viewport_init (&vp);
  grid (&vp, 100, 100);
  pl_figure_viewport_zoom (&vp, 2, 50, 50);
  assert_window (&vp, 25, 25, 75, 75);

  /* 50 cells over 200 by 100 pixels: a quarter cell and half a cell a pixel. */
  pl_figure_viewport_point_to_cell (&vp, -1, &area, 110, 70, &cx, &cy);
  g_assert_cmpfloat_with_epsilon (cx, 50, 1e-9);
  g_assert_cmpfloat_with_epsilon (cy, 50, 1e-9);
  pl_figure_viewport_point_to_cell (&vp, -1, &area, 10, 20, &cx, &cy);
  g_assert_cmpfloat_with_epsilon (cx, 25, 1e-9);
  g_assert_cmpfloat_with_epsilon (cy, 25, 1e-9);
  /* Unclamped past the area. */
  pl_figure_viewport_point_to_cell (&vp, -1, &area, 410, 220, &cx, &cy);
  g_assert_cmpfloat_with_epsilon (cx, 125, 1e-9);
  g_assert_cmpfloat_with_epsilon (cy, 125, 1e-9);

  /* 40 pixels right shows 10 cells further left, 10 pixels up 5 cells further down. */
  pl_figure_viewport_drag (&vp, 25, 25, 40, -10, &area);
  assert_window (&vp, 15, 30, 65, 80);
  /* From where the drag began, not from where it got to; no further than the grid. */
  pl_figure_viewport_drag (&vp, 25, 25, 400, -400, &area);
  assert_window (&vp, 0, 50, 50, 100);
  pl_figure_viewport_clear (&vp);
}

static void
test_same_cells_keep_window (void)
{
  guint two[] = { 100, 100, 100, 100 };
  guint other[] = { 100, 100, 60, 100 };
  PlFigureViewport vp;

  pl_figure_viewport_init (&vp);
  pl_figure_viewport_set_cells (&vp, two, 2, TRUE);
  pl_figure_viewport_zoom (&vp, 4, 50, 50);
  assert_window (&vp, 37.5, 37.5, 62.5, 62.5);
  /* Another layer of the same models: the zoom stays. */
  pl_figure_viewport_set_cells (&vp, two, 2, TRUE);
  assert_window (&vp, 37.5, 37.5, 62.5, 62.5);
  /* One panel fewer cells: the whole grid again. */
  pl_figure_viewport_set_cells (&vp, other, 2, TRUE);
  assert_window (&vp, 0, 0, 100, 100);
  g_assert_cmpuint (vp.columns, ==, 100);
  pl_figure_viewport_zoom (&vp, 4, 50, 50);
  /* The same largest grid as one figure (not panels of their own) is other cells. */
  pl_figure_viewport_set_cells (&vp, other, 2, FALSE);
  assert_window (&vp, 0, 0, 100, 100);
  g_assert_cmpuint (vp.panel_cells->len, ==, 0);
  g_assert_cmpuint (pl_figure_viewport_get_panel_rows (&vp, 1), ==, 100);
  /* Nothing to zoom. */
  pl_figure_viewport_set_cells (&vp, NULL, 0, FALSE);
  assert_window (&vp, 0, 0, 0, 0);
  pl_figure_viewport_zoom (&vp, 2, 0, 0);
  assert_window (&vp, 0, 0, 0, 0);
  pl_figure_viewport_clear (&vp);
}

static void
test_panel_windows (void)
{
  /* A 512-position model beside a 300-position one. */
  guint cells[] = { 512, 512, 300, 300 };
  PlFigureViewport vp;
  double x0, y0, x1, y1;

  pl_figure_viewport_init (&vp);
  pl_figure_viewport_set_cells (&vp, cells, 2, TRUE);
  g_assert_cmpuint (vp.columns, ==, 512);
  g_assert_cmpuint (pl_figure_viewport_get_panel_rows (&vp, 0), ==, 512);
  g_assert_cmpuint (pl_figure_viewport_get_panel_rows (&vp, 1), ==, 300);
  g_assert_cmpuint (pl_figure_viewport_get_panel_rows (&vp, -1), ==, 512);
  g_assert_cmpuint (pl_figure_viewport_get_panel_rows (&vp, 2), ==, 512);

  /* Everything: the smaller panel shows all of its own cells. */
  pl_figure_viewport_get_panel_window (&vp, 1, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat (x0, ==, 0);
  g_assert_cmpfloat (x1, ==, 300);
  g_assert_cmpfloat (y1, ==, 300);

  /* 4× around (450, 100): 512 / 4 = 128 wide, from 450 - 450 / 4 and 100 - 100 / 4. */
  pl_figure_viewport_zoom (&vp, 4, 450, 100);
  assert_window (&vp, 337.5, 75, 465.5, 203);
  pl_figure_viewport_get_panel_window (&vp, 0, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat_with_epsilon (x0, 337.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (y1, 203, 1e-9);
  /* The 300 panel: the same 128 cells, moved back inside its own (172–300). */
  pl_figure_viewport_get_panel_window (&vp, 1, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat_with_epsilon (x0, 172, 1e-9);
  g_assert_cmpfloat_with_epsilon (x1, 300, 1e-9);
  g_assert_cmpfloat_with_epsilon (y0, 75, 1e-9);
  g_assert_cmpfloat_with_epsilon (y1, 203, 1e-9);
  pl_figure_viewport_clear (&vp);
}

/* The window reaches the figure: its own hit test finds the cells the
 * window puts under a point. */
static void
test_apply_heatmap (void)
{
  g_autoptr(PlMatrix) values = fig_ramp (100, 100);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (values, 0);
  cairo_surface_t *surface;
  cairo_rectangle_t area;
  PlFigureViewport vp;
  double cx, cy, x, y;
  guint column, row;

  pl_figure_viewport_init (&vp);
  grid (&vp, 100, 100);
  pl_figure_viewport_zoom (&vp, 5, 50, 30);
  assert_window (&vp, 40, 24, 60, 44);
  pl_figure_viewport_apply (&vp, figure);
  surface = fig_render (figure, 600, 500);

  g_assert_cmpint (pl_figure_viewport_plot_area_at (figure, 0, 0, &area), ==, -1);
  g_assert_cmpfloat (area.width, >, 100);
  /* A quarter across and three quarters down: cell (45, 39). */
  x = area.x + 0.26 * area.width;
  y = area.y + 0.76 * area.height;
  g_assert_true (pl_figure_hit_cell (figure, x, y, &column, &row));
  g_assert_cmpuint (column, ==, 45);
  g_assert_cmpuint (row, ==, 39);
  pl_figure_viewport_point_to_cell (&vp, -1, &area, x, y, &cx, &cy);
  g_assert_cmpfloat_with_epsilon (cx, 45.2, 1e-6);
  g_assert_cmpfloat_with_epsilon (cy, 39.2, 1e-6);

  g_assert_true (pl_figure_viewport_heatmap_area (figure, 0, &area));
  g_assert_false (pl_figure_viewport_heatmap_area (figure, 1, &area));
  cairo_surface_destroy (surface);
  pl_figure_viewport_clear (&vp);
}

/* Small multiples of 60 and 30 positions and a line chart: each heatmap
 * panel shows the common window inside its own cells. */
static void
test_apply_multiples (void)
{
  g_autoptr(PlMatrix) big = fig_ramp (60, 60);
  g_autoptr(PlMatrix) small = fig_ramp (30, 30);
  double xs[] = { 0, 1, 2 }, ys[] = { 1, 2, 3 };
  PlFigure *panels[3];
  g_autoptr(PlFigure) figure = NULL;
  guint cells[] = { 60, 60, 30, 30, 0, 0 };
  cairo_rectangle_t area, panel_area;
  cairo_surface_t *surface;
  PlFigureViewport vp;
  double cx, cy, x, y, px, py;
  guint column, row;

  panels[0] = pl_figure_new_heatmap (big, 0);
  panels[1] = pl_figure_new_heatmap (small, 0);
  panels[2] = pl_figure_new_lines (xs, 3);
  pl_figure_add_series (panels[2], "line", ys);
  figure = pl_figure_new_multiples (panels, 3, 3);
  for (guint i = 0; i < 3; i++)
    g_object_unref (panels[i]);

  pl_figure_viewport_init (&vp);
  pl_figure_viewport_set_cells (&vp, cells, 3, TRUE);
  /* 3× around (45, 45): 20 cells from 45 - 45 / 3 = 30; the 30 panel shows 10–30. */
  pl_figure_viewport_zoom (&vp, 3, 45, 45);
  assert_window (&vp, 30, 30, 50, 50);
  pl_figure_viewport_apply (&vp, figure);
  surface = fig_render (figure, 1200, 400);

  g_assert_true (pl_figure_get_panel_area (figure, 1, &panel_area));
  x = panel_area.x + panel_area.width / 2;
  y = panel_area.y + panel_area.height / 2;
  g_assert_cmpint (pl_figure_viewport_plot_area_at (figure, x, y, &area), ==, 1);
  /* The panel's plot, inside the panel. */
  g_assert_cmpfloat (area.x, >=, panel_area.x);
  g_assert_cmpfloat (area.x + area.width, <=, panel_area.x + panel_area.width);
  g_assert_true (pl_figure_viewport_heatmap_area (figure, 1, &panel_area));
  g_assert_cmpfloat (panel_area.x, ==, area.x);
  g_assert_cmpfloat (panel_area.width, ==, area.width);

  /* Three quarters across the 30 panel's plot: cell 10 + 0.76 * 20 = 25.2. */
  x = area.x + 0.76 * area.width;
  y = area.y + 0.26 * area.height;
  pl_figure_viewport_point_to_cell (&vp, 1, &area, x, y, &cx, &cy);
  g_assert_cmpfloat_with_epsilon (cx, 25.2, 1e-6);
  g_assert_cmpfloat_with_epsilon (cy, 15.2, 1e-6);
  g_assert_cmpint (pl_figure_get_panel_at (figure, x, y, &px, &py), ==, 1);
  g_assert_true (pl_figure_hit_cell (pl_figure_get_panel (figure, 1), px, py, &column, &row));
  g_assert_cmpuint (column, ==, 25);
  g_assert_cmpuint (row, ==, 15);

  /* A point in no panel: the first panel's plot. */
  g_assert_cmpint (pl_figure_viewport_plot_area_at (figure, -50, -50, &area), ==, 0);
  /* The line chart holds no cells; no fourth panel. */
  g_assert_true (pl_figure_viewport_heatmap_area (figure, 2, &area));
  g_assert_cmpfloat (area.width, ==, 0);
  g_assert_false (pl_figure_viewport_heatmap_area (figure, 3, &area));
  cairo_surface_destroy (surface);
  pl_figure_viewport_clear (&vp);
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/figure-viewport/zoom", test_zoom);
  g_test_add_func ("/pl/figure-viewport/drag-and-points", test_drag_and_points);
  g_test_add_func ("/pl/figure-viewport/same-cells-keep-window", test_same_cells_keep_window);
  g_test_add_func ("/pl/figure-viewport/panel-windows", test_panel_windows);
  g_test_add_func ("/pl/figure-viewport/apply-heatmap", test_apply_heatmap);
  g_test_add_func ("/pl/figure-viewport/apply-multiples", test_apply_multiples);

  return g_test_run ();
}
