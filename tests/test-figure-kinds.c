/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "test-figure-util.h"

/* The other figure kinds: trajectories in 2-D and 3-D, lines, bars, the
 * probe table and small multiples. */

static double *
normalised_points (PlFigure *figure,
                   gsize     n)
{
  double *xy = g_new (double, 2 * n);
  double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };

  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (pl_figure_get_point (figure, i, &xy[2 * i], &xy[2 * i + 1]));
      for (guint k = 0; k < 2; k++)
        {
          lo[k] = MIN (lo[k], xy[2 * i + k]);
          hi[k] = MAX (hi[k], xy[2 * i + k]);
        }
    }
  for (gsize i = 0; i < 2 * n; i++)
    xy[i] = (xy[i] - lo[i % 2]) / (hi[i % 2] - lo[i % 2]);
  return xy;
}

static double
max_diff (const double *a,
          const double *b,
          gsize         n)
{
  double worst = 0;

  for (gsize i = 0; i < n; i++)
    worst = MAX (worst, fabs (a[i] - b[i]));
  return worst;
}

/* At azimuth 0 and elevation 0 the 3-D view looks down PC3 and shows exactly
 * the 2-D view of PC1 (right) and PC2 (up). Perspective enlarges near points,
 * so the exact check is on the parallel projection; with perspective the
 * picture stays within the depth's few percent; turning it moves points. */
static void
test_trajectory_3d_at_rest_is_2d (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  gsize n = pca->projection->rows;
  const double *ratio = NULL;
  g_autoptr(PlFigure) flat = pl_figure_new_trajectory (pca->projection, 0, ratio, 0, 1);
  g_autoptr(PlFigure) deep = pl_figure_new_trajectory_3d (pca->projection, 0, ratio, 0, 1, 2);
  g_autofree double *a = NULL;
  g_autofree double *b = NULL;
  g_autofree double *c = NULL;
  g_autofree double *d = NULL;
  cairo_surface_t *surface;
  double x0, y0, x1, y1;

  surface = fig_render (flat, 500, 400);
  cairo_surface_destroy (surface);
  a = normalised_points (flat, n);

  pl_figure_set_perspective (deep, FALSE);
  pl_figure_set_rotation (deep, 0, 0);
  surface = fig_render (deep, 500, 400);
  cairo_surface_destroy (surface);
  b = normalised_points (deep, n);
  g_assert_cmpfloat (max_diff (a, b, 2 * n), <, 1e-9);

  /* Orientation, not only shape: PC1 grows to the right and PC2 upwards in both. */
  for (guint k = 0; k < 2; k++)
    {
      PlFigure *f = k == 0 ? flat : deep;
      gsize i_max = 0, j_max = 0;

      for (gsize i = 1; i < n; i++)
        {
          if (pl_matrix_get (pca->projection, i, 0) > pl_matrix_get (pca->projection, i_max, 0))
            i_max = i;
          if (pl_matrix_get (pca->projection, i, 1) > pl_matrix_get (pca->projection, j_max, 1))
            j_max = i;
        }
      g_assert_true (pl_figure_get_point (f, i_max, &x0, NULL));
      for (gsize i = 0; i < n; i++)
        {
          g_assert_true (pl_figure_get_point (f, i, &x1, &y1));
          g_assert_cmpfloat (x1, <=, x0 + 1e-9);
        }
      g_assert_true (pl_figure_get_point (f, j_max, NULL, &y0));
      for (gsize i = 0; i < n; i++)
        {
          g_assert_true (pl_figure_get_point (f, i, NULL, &y1));
          g_assert_cmpfloat (y1, >=, y0 - 1e-9);
        }
    }

  pl_figure_set_perspective (deep, TRUE);
  surface = fig_render (deep, 500, 400);
  cairo_surface_destroy (surface);
  c = normalised_points (deep, n);
  g_assert_cmpfloat (max_diff (a, c, 2 * n), <, 0.15);
  g_assert_cmpfloat (max_diff (a, c, 2 * n), >, 1e-4);

  pl_figure_set_rotation (deep, 90, 0);
  surface = fig_render (deep, 500, 400);
  cairo_surface_destroy (surface);
  d = normalised_points (deep, n);
  g_assert_cmpfloat (max_diff (a, d, 2 * n), >, 0.2);
}

/* The line is coloured by position: position 0's marker has the map's first
 * colour, the last labelled one its colour; hit tests find the points. */
static void
test_trajectory_markers (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  double ratio[3];
  g_autoptr(PlFigure) figure = NULL;
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  gsize n = pca->projection->rows;
  double x, y;

  for (guint k = 0; k < 3; k++)
    ratio[k] = pca->explained_variance_ratio->data[k];
  figure = pl_figure_new_trajectory (pca->projection, 0, ratio, 0, 1);
  pl_figure_set_label_every (figure, 100);
  pl_figure_set_colormap (figure, PL_COLORMAP_CIVIDIS);
  surface = fig_render (figure, 600, 450);
  pl_figure_get_plot_area (figure, &plot);

  for (guint i = 0; i < n; i += 100)
    {
      g_assert_true (pl_figure_get_point (figure, i, &x, &y));
      g_assert_cmpfloat (x, >=, plot.x);
      g_assert_cmpfloat (x, <=, plot.x + plot.width);
      g_assert_cmphex (fig_pixel (surface, x, y), ==,
                       pl_colormap_lookup (PL_COLORMAP_CIVIDIS, FALSE, (double) i / (n - 1)));
      g_assert_cmpint (pl_figure_hit_point (figure, x + 0.5, y - 0.5, 3), ==, (int) i);
    }
  g_assert_cmpint (pl_figure_hit_point (figure, plot.x - 50, plot.y - 50, 3), ==, -1);
  g_assert_false (pl_figure_get_point (figure, n, NULL, NULL));
  cairo_surface_destroy (surface);
}

/* ---- lines, scatter, bars, table, multiples ----------------------------- */

/* Bars stand on zero with their tops at their values. */
static void
test_bars_heights (void)
{
  const double values[] = { 0.5, 0.25, 0.125, 0.0625 };
  g_autoptr(PlFigure) figure = pl_figure_new_bars (values, 4, NULL);
  cairo_surface_t *surface = fig_render (figure, 400, 300);
  cairo_rectangle_t plot;
  guint32 bar_colour;

  pl_figure_get_plot_area (figure, &plot);
  /* Axis from 0 to 0.5 plus 5 % headroom; bar i centred at i on [−0.6, 3.6]. */
  for (guint i = 0; i < 4; i++)
    {
      double x = plot.x + (i + 0.6) / 4.2 * plot.width;
      double top = plot.y + plot.height - values[i] / (0.5 * 1.05) * plot.height;
      guint32 inside = fig_pixel (surface, x, top + (plot.y + plot.height - top) / 2);
      guint32 above = fig_pixel (surface, x, top - 3);

      if (i == 0)
        bar_colour = inside;
      g_assert_cmphex (inside, ==, bar_colour);
      g_assert_cmphex (fig_pixel (surface, x, top + 1.5), ==, bar_colour);
      g_assert_cmphex (above, !=, bar_colour);
    }
  cairo_surface_destroy (surface);
}

/* Each cell of the probe table is shaded with its value's colour, over its
 * column's range (the columns measure different things). */
static void
test_table_cells (void)
{
  const char * const columns[] = { "Absolute", "Relative", NULL };
  const double row0[] = { 0.2, 0.9 }, row1[] = { 0.5, NAN }, row2[] = { 30, 0.4 };
  g_autoptr(PlFigure) figure = pl_figure_new_table (columns);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double row_h, x;

  pl_figure_add_row (figure, "model a", row0);
  pl_figure_add_row (figure, "model b", row1);
  pl_figure_add_row (figure, "model c", row2);
  surface = fig_render (figure, 400, 200);
  pl_figure_get_plot_area (figure, &plot);
  row_h = plot.height / 4;
  x = plot.x + plot.width - 4;      /* inside the last column, clear of its centred text */
  g_assert_cmphex (fig_pixel (surface, x, plot.y + row_h * 1.5), ==, pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, 1));
  g_assert_cmphex (fig_pixel (surface, x, plot.y + row_h * 2.5), ==, PL_COLORMAP_NO_VALUE);
  g_assert_cmphex (fig_pixel (surface, x, plot.y + row_h * 3.5), ==, pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, 0));
  cairo_surface_destroy (surface);
}

/* Drawn at its natural size a table fills it but for a 6-point margin, at
 * full size; twice the text makes it about twice as large; a heatmap has
 * no natural size. */
static void
test_table_natural_size (void)
{
  const char * const columns[] = { "Absolute position MAE", "Relative order error", NULL };
  const double row0[] = { 0.2, 0.9 }, row1[] = { 12.5, NAN };
  g_autoptr(PlFigure) figure = pl_figure_new_table (columns);
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (m, 0);
  double w, h, w2, h2;

  pl_figure_add_row (figure, "mini-gpt2", row0);
  pl_figure_add_row (figure, "Sinusoidal 512 × 768", row1);
  for (guint titled = 0; titled < 2; titled++)
    {
      cairo_surface_t *surface;
      cairo_rectangle_t plot;

      pl_figure_set_title (figure, titled ? "Probes of the position tables" : NULL);
      g_assert_true (pl_figure_get_natural_size (figure, &w, &h));
      surface = fig_render (figure, (int) ceil (w), (int) ceil (h));
      pl_figure_get_plot_area (figure, &plot);
      g_assert_cmpfloat_with_epsilon (plot.x, 6, 0.5);
      g_assert_cmpfloat_with_epsilon (plot.x + plot.width, w - 6, 0.5);
      g_assert_cmpfloat_with_epsilon (plot.y + plot.height, h - 6, 0.5);
      if (!titled)
        g_assert_cmpfloat_with_epsilon (plot.y, 6, 0.5);
      /* Nothing but background in the margins. */
      g_assert_cmphex (fig_pixel (surface, 2, h / 2), ==, 0xffffff);
      g_assert_cmphex (fig_pixel (surface, w - 2, h / 2), ==, 0xffffff);
      cairo_surface_destroy (surface);
    }
  pl_figure_set_font (figure, NULL, 20);
  g_assert_true (pl_figure_get_natural_size (figure, &w2, &h2));
  g_assert_cmpfloat (w2, >, 1.8 * w - 24);
  g_assert_cmpfloat (h2, >, 1.8 * h - 24);
  g_assert_false (pl_figure_get_natural_size (heatmap, NULL, NULL));
}

/* The most rows of background one after another in SURFACE. */
static int
tallest_blank_band (cairo_surface_t *surface)
{
  int width = cairo_image_surface_get_width (surface), height = cairo_image_surface_get_height (surface);
  int run = 0, tallest = 0;

  for (int y = 0; y < height; y++)
    {
      gboolean blank = TRUE;

      for (int x = 0; x < width && blank; x++)
        blank = fig_pixel (surface, x, y) == 0xffffff;
      run = blank ? run + 1 : 0;
      tallest = MAX (tallest, run);
    }
  return tallest;
}

/* A captioned table at its natural height for a width is drawn at full
 * size with its caption wrapped under it and no band of background taller
 * than a line between them (Table 1 of the paper is exported so). */
static void
test_table_natural_height (void)
{
  const char * const columns[] = { "Absolute position (MAE)", "Relative order (error rate)", NULL };
  const double row0[] = { 15.4, 0.06 }, row1[] = { 161.8, 0.38 }, row2[] = { 0, 0.06 };
  g_autoptr(PlFigure) figure = pl_figure_new_table (columns);
  g_autoptr(GString) caption = g_string_new ("The probes of Wang and Chen (2020), Table 1.");
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (m, 0);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double w, h, h_short, h_long;

  pl_figure_add_row (figure, "mini-gpt2", row0);
  pl_figure_add_row (figure, "mini-bert", row1);
  pl_figure_add_row (figure, "Sinusoidal 512 × 768", row2);
  pl_figure_set_title (figure, "Probes of the position embeddings");
  g_assert_true (pl_figure_get_natural_size (figure, &w, &h));
  for (guint i = 0; i < 12; i++)
    g_string_append (caption, " Mean ± the 95 % interval of the mean over 20 runs, seeds 0–19.");
  pl_figure_set_caption (figure, caption->str);
  g_assert_true (pl_figure_get_natural_height (figure, 460, &h_long));
  g_assert_true (pl_figure_get_natural_height (figure, 920, &h_short));
  /* The caption takes lines under the table, fewer when wider. */
  g_assert_cmpfloat (h_long, >, h + 4 * 11);
  g_assert_cmpfloat (h_short, <, h_long - 2 * 11);

  surface = fig_render (figure, 460, (int) ceil (h_long));
  pl_figure_get_plot_area (figure, &plot);
  /* At full size: the table's rows as tall as without a caption. */
  g_assert_cmpfloat_with_epsilon (plot.width, w - 12, 0.5);
  g_assert_cmpint (tallest_blank_band (surface), <=, 16);
  cairo_surface_destroy (surface);
  g_assert_false (pl_figure_get_natural_height (heatmap, 460, &h));
}

/* The tallest run of COLOUR ending on the row BOTTOM of PLOT, going up. */
static double
run_above (cairo_surface_t         *surface,
           const cairo_rectangle_t *plot,
           double                   bottom,
           guint32                  colour)
{
  double tallest = 0;

  for (double x = plot->x + 0.5; x < plot->x + plot->width; x++)
    {
      double y = bottom;

      while (y >= 1 && fig_pixel (surface, x, y) == colour)
        y--;
      tallest = MAX (tallest, bottom - y);
    }
  return tallest;
}

/* A table with breaks stays in one block where it fits at full size; in a
 * phone-wide space its columns wrap into blocks one above the other, so
 * its rows are drawn taller than the one-block table shrunk to that width
 * (the height of the last row's cells at the bottom of the table). */
static void
test_table_wraps (void)
{
  const char * const columns[] = { "Absolute position MAE", "Relative order error", "Row MAE", "Column MAE",
                                   "Order along rows", "Order along columns", NULL };
  const double low[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 }, high[] = { 0.9, 0.9, 0.9, 0.9, 0.9, 0.9 };
  const guint breaks[] = { 2, 4 };
  guint32 top = pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, 1);
  g_autoptr(PlFigure) figure = pl_figure_new_table (columns);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double w, h, shrunk_row, wrapped_row;

  pl_figure_add_row (figure, "mini-gpt2", low);
  pl_figure_add_row (figure, "deit", high);
  g_assert_true (pl_figure_get_natural_size (figure, &w, &h));

  /* Without breaks, 360 wide: one block, its headers on two lines, shrunk
   * less than one with headers on one line would be. */
  surface = fig_render (figure, 360, 600);
  pl_figure_get_plot_area (figure, &plot);
  shrunk_row = run_above (surface, &plot, plot.y + plot.height - 2, top);
  g_assert_cmpfloat (plot.height / plot.width, >, 1.2 * (h - 12) / (w - 12));
  g_assert_cmpfloat (pl_figure_get_min_text_size (figure, NULL), >, 1.2 * 10 * (360 - 12) / (w - 12));
  g_assert_cmpfloat (pl_figure_get_min_text_size (figure, NULL), <, 10);
  cairo_surface_destroy (surface);

  pl_figure_set_table_breaks (figure, breaks, G_N_ELEMENTS (breaks));
  surface = fig_render (figure, (int) ceil (w) + 40, (int) ceil (h) + 40);
  pl_figure_get_plot_area (figure, &plot);
  g_assert_cmpfloat_with_epsilon (plot.width, w - 12, 0.5);
  g_assert_cmpfloat_with_epsilon (plot.height, h - 12, 0.5);
  cairo_surface_destroy (surface);

  surface = fig_render (figure, 360, 600);
  pl_figure_get_plot_area (figure, &plot);
  wrapped_row = run_above (surface, &plot, plot.y + plot.height - 2, top);
  g_test_message ("row height %.1f one block, %.1f wrapped", shrunk_row, wrapped_row);
  g_assert_cmpfloat (plot.height / plot.width, >, 2 * (h - 12) / (w - 12));
  g_assert_cmpfloat (wrapped_row, >, 1.15 * shrunk_row);
  cairo_surface_destroy (surface);
}

/* Lines: a constant series is a horizontal line at its value. */
static void
test_lines_positions (void)
{
  const double x[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                       21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
                       41, 42, 43, 44, 45, 46, 47, 48, 49 };
  double low[50], high[50];
  g_autoptr(PlFigure) figure = pl_figure_new_lines (x, 50);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  guint32 bg, a, b;

  for (guint i = 0; i < 50; i++)
    {
      low[i] = 1;
      high[i] = 3;
    }
  pl_figure_add_series (figure, "low", low);
  pl_figure_add_series (figure, "high", high);
  surface = fig_render (figure, 500, 300);
  pl_figure_get_plot_area (figure, &plot);
  /* y from 1 to 3 padded by 5 %: 1 sits at 1/22 of the height above the bottom. */
  {
    double xm = plot.x + plot.width * 0.37;
    double y_low = plot.y + plot.height * (1 - 1.0 / 22);
    double y_high = plot.y + plot.height * (1.0 / 22);

    bg = fig_pixel (surface, xm, plot.y + plot.height / 3 + 2.5);
    a = fig_pixel (surface, xm, y_low);
    b = fig_pixel (surface, xm, y_high);
    g_assert_cmphex (a, !=, bg);
    g_assert_cmphex (b, !=, bg);
    g_assert_cmphex (a, !=, b);
    g_assert_cmphex (fig_pixel (surface, xm, y_low - 4), !=, a);
  }
  cairo_surface_destroy (surface);
}

/* Heads of four layers spread around their layer's number: the layer axis
 * is ticked at whole layers only, at every size, and the ticks sit where the
 * layers' values fall. */
static void
test_scatter_integer_axis (void)
{
  double x[16], y[16];
  g_autoptr(PlFigure) figure = NULL;

  for (guint i = 0; i < 16; i++)
    {
      x[i] = i / 4 + 1 + 0.3 * ((i % 4 + 0.5) / 4 - 0.5);
      y[i] = 60 + 5 * i;
    }
  figure = pl_figure_new_scatter (x, y, 16);
  pl_figure_set_x_integers (figure, TRUE);
  for (int width = 200; width <= 1400; width += 300)
    {
      cairo_surface_t *surface = fig_render (figure, width, 400);
      guint n;
      const double *ticks = pl_figure_get_ticks (figure, TRUE, &n);

      g_assert_cmpuint (n, >=, 2);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpfloat (ticks[i], ==, floor (ticks[i]));
          g_assert_cmpfloat (ticks[i], >=, 1);
          g_assert_cmpfloat (ticks[i], <=, 4);
        }
      if (width >= 500)
        g_assert_cmpuint (n, ==, 4);
      /* The y axis keeps its round values. */
      ticks = pl_figure_get_ticks (figure, FALSE, &n);
      g_assert_cmpuint (n, >=, 2);
      cairo_surface_destroy (surface);
    }
}

static double
pixel_luminance (guint32 argb)
{
  return (0.2126 * ((argb >> 16) & 0xff) + 0.7152 * ((argb >> 8) & 0xff) + 0.0722 * (argb & 0xff)) / 255;
}

/* The darkest (or lightest) pixel of the 3 × 3 around (x, y). */
static double
extreme_luminance (cairo_surface_t *surface,
                   double           x,
                   double           y,
                   gboolean         darkest)
{
  double best = darkest ? 1 : 0;

  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      {
        double l = pixel_luminance (fig_pixel (surface, x + dx, y + dy));

        best = darkest ? MIN (best, l) : MAX (best, l);
      }
  return best;
}

/* A picked point of a scatter (Distances' head) is ringed in the text's
 * colour, on light and dark backgrounds; the others are not. */
static void
test_scatter_highlight (void)
{
  double x[16], y[16];
  g_autoptr(PlFigure) figure = NULL;

  for (guint i = 0; i < 16; i++)
    {
      x[i] = i;
      y[i] = (i * 7) % 16;
    }
  figure = pl_figure_new_scatter (x, y, 16);
  pl_figure_set_highlight_series (figure, 5);
  for (int dark = 0; dark < 2; dark++)
    {
      cairo_surface_t *surface;
      double px, py, qx, qy;

      pl_figure_set_dark (figure, dark);
      surface = fig_render (figure, 700, 500);
      g_assert_true (pl_figure_get_point (figure, 5, &px, &py));
      g_assert_true (pl_figure_get_point (figure, 9, &qx, &qy));
      for (int side = -1; side <= 1; side += 2)
        {
          /* Above and below the picked point, 6.5 units out: the ring. */
          double ring = extreme_luminance (surface, px, py + side * 6.5, !dark);
          double none = extreme_luminance (surface, qx, qy + side * 6.5, !dark);

          g_test_message ("dark %d: ring %.2f, another point %.2f", dark, ring, none);
          if (dark)
            {
              g_assert_cmpfloat (ring, >, 0.7);
              g_assert_cmpfloat (none, <, 0.4);
            }
          else
            {
              g_assert_cmpfloat (ring, <, 0.3);
              g_assert_cmpfloat (none, >, 0.7);
            }
        }
      cairo_surface_destroy (surface);
    }
}

/* Small multiples share one colour scale: equal values, equal colours,
 * whichever panel they are in. */
static void
test_multiples_shared_scale (void)
{
  g_autoptr(PlMatrix) a = pl_matrix_new (4, 4);
  g_autoptr(PlMatrix) b = pl_matrix_new (4, 4);
  g_autoptr(PlFigure) pa = NULL;
  g_autoptr(PlFigure) pb = NULL;
  g_autoptr(PlFigure) figure = NULL;
  PlFigure *panels[2];
  cairo_surface_t *surface;
  double lo, hi;

  for (guint i = 0; i < 16; i++)
    {
      a->data[i] = (float) (i % 2);          /* 0 … 1 */
      b->data[i] = (float) (i % 3);          /* 0 … 2 */
    }
  pa = panels[0] = pl_figure_new_heatmap (a, 0);
  pb = panels[1] = pl_figure_new_heatmap (b, 0);
  figure = pl_figure_new_multiples (panels, 2, 0);
  surface = fig_render (figure, 600, 300);
  pl_figure_get_range (figure, &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 2);
  g_assert_cmpuint (pl_figure_get_n_panels (figure), ==, 2);
  g_assert_true (pl_figure_get_colorbar_area (figure, NULL));
  g_assert_false (pl_figure_get_colorbar_area (pa, NULL));

  for (guint k = 0; k < 2; k++)
    {
      PlFigure *panel = pl_figure_get_panel (figure, k);
      PlMatrix *m = k == 0 ? a : b;
      cairo_rectangle_t cell, plot;

      g_assert_true (pl_figure_get_panel_area (figure, k, &cell));
      pl_figure_get_plot_area (panel, &plot);
      for (guint i = 0; i < 4; i++)
        for (guint j = 0; j < 4; j++)
          {
            double x = cell.x + plot.x + (j + 0.5) / 4 * plot.width;
            double y = cell.y + plot.y + (i + 0.5) / 4 * plot.height;
            guint col, row;

            g_assert_cmphex (fig_pixel (surface, x, y), ==,
                             pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, pl_matrix_get (m, i, j) / 2));
            g_assert_true (pl_figure_hit_cell (figure, x, y, &col, &row));
            g_assert_cmpuint (col, ==, j);
            g_assert_cmpuint (row, ==, i);
          }
    }
  cairo_surface_destroy (surface);
}

/* The centre pixel of cell (I, J) of panel K of FIGURE, drawn in SURFACE. */
static guint32
panel_cell_pixel (cairo_surface_t *surface,
                  PlFigure        *figure,
                  guint            k,
                  guint            n,
                  guint            i,
                  guint            j)
{
  cairo_rectangle_t cell, plot;

  g_assert_true (pl_figure_get_panel_area (figure, k, &cell));
  pl_figure_get_plot_area (pl_figure_get_panel (figure, k), &plot);
  return fig_pixel (surface, cell.x + plot.x + (j + 0.5) / n * plot.width,
                    cell.y + plot.y + (i + 0.5) / n * plot.height);
}

/* Two similarities on one scale and their difference on its own: the
 * difference keeps its diverging map, its range and its bar; the shared
 * bar stands beside the second panel, and the two shared plots are alike. */
static void
test_multiples_own_scale (void)
{
  g_autoptr(PlMatrix) a = pl_matrix_new (4, 4);
  g_autoptr(PlMatrix) b = pl_matrix_new (4, 4);
  g_autoptr(PlMatrix) d = pl_matrix_new (4, 4);
  PlFigure *panels[3];
  g_autoptr(PlFigure) figure = NULL;
  cairo_surface_t *surface;
  cairo_rectangle_t pa, pb;
  double lo, hi;

  for (guint i = 0; i < 16; i++)
    {
      a->data[i] = (float) (i % 2);            /* 0 … 1 */
      b->data[i] = (float) (i % 3);            /* 0 … 2 */
      d->data[i] = a->data[i] - b->data[i];    /* −2 … 1 */
    }
  panels[0] = pl_figure_new_heatmap (a, 0);
  panels[1] = pl_figure_new_heatmap (b, 0);
  panels[2] = pl_figure_new_heatmap (d, 0);
  pl_figure_set_colormap (panels[2], PL_COLORMAP_DIVERGING);
  pl_figure_set_own_scale (panels[2], TRUE);
  figure = pl_figure_new_multiples (panels, 3, 3);
  for (guint k = 0; k < 3; k++)
    g_object_unref (panels[k]);
  pl_figure_set_value_label (figure, "Cosine similarity");
  surface = fig_render (figure, 1200, 400);

  g_assert_false (pl_figure_get_colorbar_area (figure, NULL));
  g_assert_false (pl_figure_get_colorbar_area (pl_figure_get_panel (figure, 0), NULL));
  g_assert_true (pl_figure_get_colorbar_area (pl_figure_get_panel (figure, 1), NULL));
  g_assert_true (pl_figure_get_colorbar_area (pl_figure_get_panel (figure, 2), NULL));
  pl_figure_get_plot_area (pl_figure_get_panel (figure, 0), &pa);
  pl_figure_get_plot_area (pl_figure_get_panel (figure, 1), &pb);
  g_assert_cmpfloat_with_epsilon (pa.width, pb.width, 0.01);
  g_assert_cmpfloat_with_epsilon (pa.height, pb.height, 0.01);
  for (guint i = 0; i < 4; i++)
    for (guint j = 0; j < 4; j++)
      {
        g_assert_cmphex (panel_cell_pixel (surface, figure, 0, 4, i, j), ==,
                         pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, pl_matrix_get (a, i, j) / 2));
        g_assert_cmphex (panel_cell_pixel (surface, figure, 1, 4, i, j), ==,
                         pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, pl_matrix_get (b, i, j) / 2));
        /* Diverging, symmetric about 0: −2 … 2. */
        g_assert_cmphex (panel_cell_pixel (surface, figure, 2, 4, i, j), ==,
                         pl_colormap_lookup (PL_COLORMAP_DIVERGING, FALSE, (pl_matrix_get (d, i, j) + 2) / 4));
      }
  pl_figure_get_range (pl_figure_get_panel (figure, 2), &lo, &hi);
  g_assert_cmpfloat (lo, ==, -2);
  g_assert_cmpfloat (hi, ==, 2);
  cairo_surface_destroy (surface);
}

/* The smallest side of the heatmap plots of FIGURE drawn at W × H. */
static double
smallest_plot (PlFigure *figure,
               int       w,
               int       h)
{
  cairo_surface_t *surface = fig_render (figure, w, h);
  double side = INFINITY;

  for (guint k = 0; k < pl_figure_get_n_panels (figure); k++)
    {
      cairo_rectangle_t plot;

      pl_figure_get_plot_area (pl_figure_get_panel (figure, k), &plot);
      side = MIN (side, MIN (plot.width, plot.height));
    }
  cairo_surface_destroy (surface);
  return side;
}

/* Three square heatmaps fill the space they are given: in a row when it is
 * wide, stacked when it is narrow, two and one in between; whichever grid
 * gives the plots the most room, within a pixel. Zooming zooms all three. */
static void
test_multiples_fill_space (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (64, 64);
  const int sizes[][2] = { { 1400, 480 }, { 1000, 700 }, { 360, 1000 }, { 700, 700 } };
  PlFigure *panels[3];
  g_autoptr(PlFigure) figure = NULL;

  for (guint k = 0; k < 3; k++)
    panels[k] = pl_figure_new_heatmap (m, 0);
  pl_figure_set_own_scale (panels[2], TRUE);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      double best = 0, chosen;

      for (guint columns = 1; columns <= 3; columns++)
        {
          g_autoptr(PlFigure) fixed = pl_figure_new_multiples (panels, 3, columns);

          best = MAX (best, smallest_plot (fixed, sizes[s][0], sizes[s][1]));
        }
      g_clear_object (&figure);
      figure = pl_figure_new_multiples (panels, 3, 0);
      chosen = smallest_plot (figure, sizes[s][0], sizes[s][1]);
      g_test_message ("%d × %d: %.0f of the best %.0f", sizes[s][0], sizes[s][1], chosen, best);
      g_assert_cmpfloat (chosen, >=, best - 1);
      /* Most of the narrower side goes to the plots. */
      g_assert_cmpfloat (chosen, >=, 0.3 * MIN (sizes[s][0], sizes[s][1]));
    }

  /* One zoom for all: the centre of every plot is the same cell. */
  {
    cairo_surface_t *surface;

    pl_figure_set_view (figure, 10, 20, 18, 28);
    surface = fig_render (figure, 1000, 700);
    for (guint k = 0; k < 3; k++)
      {
        cairo_rectangle_t cell, plot;
        guint column, row;

        g_assert_true (pl_figure_get_panel_area (figure, k, &cell));
        pl_figure_get_plot_area (pl_figure_get_panel (figure, k), &plot);
        g_assert_true (pl_figure_hit_cell (figure, cell.x + plot.x + plot.width * 0.55,
                                           cell.y + plot.y + plot.height * 0.55, &column, &row));
        g_assert_cmpuint (column, ==, 14);
        g_assert_cmpuint (row, ==, 24);
      }
    cairo_surface_destroy (surface);
  }
  for (guint k = 0; k < 3; k++)
    g_object_unref (panels[k]);
}

/* Small multiples start each render from the last one's grid (the window
 * draws one again and again while the user zooms): drawn after a zoom, at
 * another size, with a title, at another text size, the grid is the one a
 * new figure of as many columns gets in that state, its plots still the
 * same size. (The number of columns is chosen once for a text size, so a
 * zoom does not rearrange the panels.) */
static void
test_multiples_redrawn (void)
{
  g_autoptr(PlMatrix) a = fig_ramp (512, 512);
  g_autoptr(PlMatrix) b = fig_ramp (1024, 1024);
  PlFigure *panels[3];
  g_autoptr(PlFigure) figure = NULL;
  struct { int w, h; double zoom; const char *title; double font; } steps[] = {
    { 1000, 600, 0, NULL, 10 }, { 1000, 600, 100, NULL, 10 }, { 500, 900, 100, NULL, 10 },
    { 500, 900, 100, "A title long enough to wrap on a narrow page, or nearly", 10 }, { 500, 900, 100, NULL, 16 },
    { 1000, 600, 0, NULL, 10 },
  };

  panels[0] = pl_figure_new_heatmap (a, 0);
  panels[1] = pl_figure_new_heatmap (b, 0);
  panels[2] = pl_figure_new_heatmap (a, 0);
  pl_figure_set_title (panels[1], "A panel with a long title");
  pl_figure_set_own_scale (panels[2], TRUE);
  figure = pl_figure_new_multiples (panels, 3, 0);
  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autoptr(PlFigure) fresh = NULL;
      g_autoptr(GError) error = NULL;
      cairo_surface_t *surface;
      cairo_rectangle_t first, next;
      guint columns = 0;

      pl_figure_set_title (figure, steps[s].title);
      pl_figure_set_font (figure, NULL, steps[s].font);
      if (steps[s].zoom > 0)
        pl_figure_set_view (figure, steps[s].zoom, steps[s].zoom, 3 * steps[s].zoom, 3 * steps[s].zoom);
      else
        pl_figure_reset_view (figure);
      surface = fig_render (figure, steps[s].w, steps[s].h);
      cairo_surface_destroy (surface);
      g_assert_true (pl_figure_get_panel_area (figure, 0, &first));
      for (guint i = 0; i < 3 && pl_figure_get_panel_area (figure, i, &next) && next.y == first.y; i++)
        columns++;
      fresh = pl_figure_new_multiples (panels, 3, columns);
      pl_figure_set_title (fresh, steps[s].title);
      pl_figure_set_font (fresh, NULL, steps[s].font);
      if (steps[s].zoom > 0)
        pl_figure_set_view (fresh, steps[s].zoom, steps[s].zoom, 3 * steps[s].zoom, 3 * steps[s].zoom);
      else
        pl_figure_reset_view (fresh);
      if (!pl_figure_check_layout (figure, PL_FIGURE_MIN_TEXT_PT, &error))
        g_error ("step %u: %s", s, error->message);
      {
        cairo_rectangle_t again[3], anew[3];

        for (guint i = 0; i < 3; i++)
          {
            cairo_rectangle_t cell, plot;

            g_assert_true (pl_figure_get_panel_area (figure, i, &cell));
            pl_figure_get_plot_area (panels[i], &plot);
            again[i] = (cairo_rectangle_t) { cell.x + plot.x, cell.y + plot.y, plot.width, plot.height };
          }
        surface = fig_render (fresh, steps[s].w, steps[s].h);
        cairo_surface_destroy (surface);
        for (guint i = 0; i < 3; i++)
          {
            cairo_rectangle_t cell, plot;

            g_assert_true (pl_figure_get_panel_area (fresh, i, &cell));
            pl_figure_get_plot_area (panels[i], &plot);
            anew[i] = (cairo_rectangle_t) { cell.x + plot.x, cell.y + plot.y, plot.width, plot.height };
            g_assert_cmpfloat_with_epsilon (again[i].x, anew[i].x, 0.5);
            g_assert_cmpfloat_with_epsilon (again[i].y, anew[i].y, 0.5);
            g_assert_cmpfloat_with_epsilon (again[i].width, anew[i].width, 0.5);
            g_assert_cmpfloat_with_epsilon (again[i].height, anew[i].height, 0.5);
          }
      }
    }
  for (guint i = 0; i < 3; i++)
    g_object_unref (panels[i]);
}

/* A trajectory and its explained variance, as the export dialog puts them
 * together: two panels whose plots are the same size, side by side on a
 * wide page and one above the other on a narrow one, as the window's pair
 * shows them. */
static void
test_multiples_pair (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  PlFigure *panels[2];
  g_autoptr(PlFigure) figure = NULL;
  const double ratio[] = { 0.5, 0.3, 0.2 };
  const int sizes[][2] = { { 800, 400 }, { 300, 600 } };

  panels[0] = pl_figure_new_trajectory (pca->projection, 0, NULL, 0, 1);
  panels[1] = pl_figure_new_bars (ratio, 3, NULL);
  pl_figure_set_own_scale (panels[0], TRUE);
  figure = pl_figure_new_multiples (panels, 2, 0);
  g_object_unref (panels[0]);
  g_object_unref (panels[1]);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      cairo_surface_t *surface = fig_render (figure, sizes[s][0], sizes[s][1]);
      cairo_rectangle_t a, b, plot_a, plot_b;

      g_assert_true (pl_figure_get_panel_area (figure, 0, &a));
      g_assert_true (pl_figure_get_panel_area (figure, 1, &b));
      pl_figure_get_plot_area (pl_figure_get_panel (figure, 0), &plot_a);
      pl_figure_get_plot_area (pl_figure_get_panel (figure, 1), &plot_b);
      g_assert_cmpfloat_with_epsilon (plot_a.width, plot_b.width, 0.01);
      g_assert_cmpfloat_with_epsilon (plot_a.height, plot_b.height, 0.01);
      /* Most of the page's shorter side goes to the plots. */
      g_assert_cmpfloat (plot_a.width, >, 0.5 * MIN (sizes[s][0], sizes[s][1]));
      if (s == 0)
        {
          g_assert_cmpfloat_with_epsilon (b.x, a.x + a.width, 0.01);
          g_assert_cmpfloat_with_epsilon (b.y, a.y, 0.01);
        }
      else
        {
          g_assert_cmpfloat_with_epsilon (b.y, a.y + a.height, 0.01);
          g_assert_cmpfloat_with_epsilon (b.x, a.x, 0.01);
        }
      /* The trajectory keeps its position bar. */
      g_assert_true (pl_figure_get_colorbar_area (pl_figure_get_panel (figure, 0), NULL));
      cairo_surface_destroy (surface);
    }
}

/* Every kind draws without cairo errors to each format (light and dark). */
static void
test_every_kind_exports (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  g_autofree char *dir = pl_test_tmpdir ();
  const double xs[] = { 0, 1, 2, 3 }, ys[] = { 3, 1, 4, 1 };
  const char * const columns[] = { "R²", NULL };
  g_autoptr(GPtrArray) figures = g_ptr_array_new_with_free_func (g_object_unref);
  const char * const exts[] = { "png", "svg", "pdf" };

  g_ptr_array_add (figures, pl_figure_new_trajectory (pca->projection, 0, NULL, 0, 1));
  g_ptr_array_add (figures, pl_figure_new_trajectory_3d (pca->projection, 0, NULL, 0, 1, 2));
  g_ptr_array_add (figures, pl_figure_new_lines (xs, 4));
  pl_figure_add_series (g_ptr_array_index (figures, 2), "a", ys);
  g_ptr_array_add (figures, pl_figure_new_scatter (xs, ys, 4));
  g_ptr_array_add (figures, pl_figure_new_bars (ys, 4, NULL));
  g_ptr_array_add (figures, pl_figure_new_table (columns));
  pl_figure_add_row (g_ptr_array_index (figures, 5), "a", ys);
  g_ptr_array_add (figures, pl_figure_new_multiples ((PlFigure **) figures->pdata, 2, 2));

  for (guint f = 0; f < figures->len; f++)
    for (guint e = 0; e < G_N_ELEMENTS (exts); e++)
      {
        PlFigure *figure = g_ptr_array_index (figures, f);
        g_autofree char *name = g_strdup_printf ("kind-%u.%s", f, exts[e]);
        g_autofree char *path = g_build_filename (dir, name, NULL);
        g_autoptr(GError) error = NULL;

        pl_figure_set_title (figure, "A title");
        pl_figure_set_dark (figure, e == 1);
        g_assert_true (pl_figure_export (figure, path, 300, 200, 72, &error));
        g_assert_no_error (error);
        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      }
  pl_test_rmtree (dir);
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/figure/trajectory/3d-at-rest-is-2d", test_trajectory_3d_at_rest_is_2d);
  g_test_add_func ("/pl/figure/trajectory/markers", test_trajectory_markers);
  g_test_add_func ("/pl/figure/lines/positions", test_lines_positions);
  g_test_add_func ("/pl/figure/scatter/integer-axis", test_scatter_integer_axis);
  g_test_add_func ("/pl/figure/scatter/highlight", test_scatter_highlight);
  g_test_add_func ("/pl/figure/bars/heights", test_bars_heights);
  g_test_add_func ("/pl/figure/table/cells", test_table_cells);
  g_test_add_func ("/pl/figure/table/wraps", test_table_wraps);
  g_test_add_func ("/pl/figure/table/natural-size", test_table_natural_size);
  g_test_add_func ("/pl/figure/table/natural-height", test_table_natural_height);
  g_test_add_func ("/pl/figure/multiples/shared-scale", test_multiples_shared_scale);
  g_test_add_func ("/pl/figure/multiples/own-scale", test_multiples_own_scale);
  g_test_add_func ("/pl/figure/multiples/fill-space", test_multiples_fill_space);
  g_test_add_func ("/pl/figure/multiples/pair", test_multiples_pair);
  g_test_add_func ("/pl/figure/multiples/redrawn", test_multiples_redrawn);
  g_test_add_func ("/pl/figure/export/every-kind", test_every_kind_exports);

  return g_test_run ();
}
