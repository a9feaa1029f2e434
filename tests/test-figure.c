/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pl-error.h"
#include "pl-figure.h"
#include "pl-figure-private.h"   /* tick choice and labels, tested directly */
#include "pl-pca.h"
#include "pl-similarity.h"
#include "pl-test-util.h"

#define GPT2_WPE "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0"

/* ---- helpers ------------------------------------------------------------ */

static cairo_surface_t *
render (PlFigure *figure,
        int       width,
        int       height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);

  pl_figure_render (figure, cr, width, height);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  return surface;
}

static guint32
pixel (cairo_surface_t *surface,
       double           x,
       double           y)
{
  int ix = (int) floor (x), iy = (int) floor (y);
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  g_assert_cmpint (ix, >=, 0);
  g_assert_cmpint (iy, >=, 0);
  g_assert_cmpint (ix, <, cairo_image_surface_get_width (surface));
  g_assert_cmpint (iy, <, cairo_image_surface_get_height (surface));

  return *(const guint32 *) (gconstpointer) (data + (gsize) iy * stride + (gsize) ix * 4) & 0xffffff;
}

static cairo_surface_t *
load_png (const char *path)
{
  cairo_surface_t *surface = cairo_image_surface_create_from_png (path);

  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  return surface;
}

/* Mean absolute channel difference (0–255) and the share of pixels where some
 * channel differs by more than 64. */
static void
compare_images (cairo_surface_t *a,
                cairo_surface_t *b,
                double          *mean,
                double          *bad)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  double sum = 0;
  gsize n_bad = 0;

  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 p = pixel (a, x, y), q = pixel (b, x, y);
        int worst = 0;

        for (int s = 0; s < 24; s += 8)
          {
            int d = ABS ((int) ((p >> s) & 0xff) - (int) ((q >> s) & 0xff));
            sum += d;
            worst = MAX (worst, d);
          }
        n_bad += worst > 64;
      }
  *mean = sum / (3.0 * w * h);
  *bad = (double) n_bad / ((double) w * h);
}

static PlMatrix *
gpt2_cosine (void)
{
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (weights, GPT2_WPE);
  g_autoptr(GError) error = NULL;
  PlMatrix *cos = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, &error);

  g_assert_no_error (error);
  return cos;
}

/* A small matrix with a known value in every cell and one NaN. */
static PlMatrix *
ramp (gsize rows,
      gsize cols)
{
  PlMatrix *m = pl_matrix_new (rows, cols);

  for (gsize i = 0; i < rows * cols; i++)
    m->data[i] = (float) i / (rows * cols - 1) * 2 - 0.5f;   /* −0.5 … 1.5 */
  m->data[cols + 1] = NAN;
  return m;
}

static gboolean
have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);
  return path != NULL;
}

static void
run (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* ---- heatmap ------------------------------------------------------------ */

/* The pixel at the centre of each cell has exactly the colour of its value;
 * NaN is the "no value" grey; hit tests name the cell drawn there. */
static void
test_heatmap_cell_colours (void)
{
  g_autoptr(PlMatrix) m = ramp (6, 9);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 3);
  const double views[2][4] = { { 0, 0, 9, 6 }, { 2, 1, 7.5, 4.25 } };

  pl_figure_set_colormap (figure, PL_COLORMAP_MAGMA);
  pl_figure_set_range (figure, 0, 1);
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      cairo_surface_t *surface;
      cairo_rectangle_t plot;
      const double *view = views[v];
      guint checked = 0;

      pl_figure_set_view (figure, view[0], view[1], view[2], view[3]);
      surface = render (figure, 500, 400);
      pl_figure_get_plot_area (figure, &plot);
      g_assert_cmpfloat (plot.width, >, 100);

      for (guint i = (guint) view[1]; i < 6; i++)
        for (guint j = (guint) view[0]; j < 9; j++)
          {
            double x = plot.x + (j + 0.5 - view[0]) / (view[2] - view[0]) * plot.width;
            double y = plot.y + (i + 0.5 - view[1]) / (view[3] - view[1]) * plot.height;
            double value = pl_matrix_get (m, i, j);
            guint col, row;

            if (x >= plot.x + plot.width - 1 || y >= plot.y + plot.height - 1)
              continue;
            g_assert_cmphex (pixel (surface, x, y), ==, pl_colormap_lookup (PL_COLORMAP_MAGMA, FALSE, value));
            g_assert_true (pl_figure_hit_cell (figure, x, y, &col, &row));
            g_assert_cmpuint (col, ==, j);
            g_assert_cmpuint (row, ==, i);
            checked++;
          }
      g_assert_cmpuint (checked, >=, 12);
      g_assert_false (pl_figure_hit_cell (figure, plot.x - 2, plot.y + 2, NULL, NULL));
      cairo_surface_destroy (surface);
    }
  pl_figure_reset_view (figure);
}

/* The colour bar runs from the map's first colour at the bottom to its last at the top. */
static void
test_heatmap_colorbar_ends (void)
{
  g_autoptr(PlMatrix) m = ramp (5, 5);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  const struct { PlColormapId id; gboolean reversed; } maps[] = {
    { PL_COLORMAP_VIRIDIS, FALSE }, { PL_COLORMAP_MAGMA, TRUE }, { PL_COLORMAP_DIVERGING, FALSE },
  };

  for (guint k = 0; k < G_N_ELEMENTS (maps); k++)
    {
      cairo_surface_t *surface;
      cairo_rectangle_t bar;

      pl_figure_set_colormap (figure, maps[k].id);
      pl_figure_set_reversed (figure, maps[k].reversed);
      /* Tall enough that each of the 256 bands is over 3 pixels, so the
       * pixel 1.5 px inside either end is clear of the frame and in the end band. */
      surface = render (figure, 900, 900);
      g_assert_true (pl_figure_get_colorbar_area (figure, &bar));
      g_assert_cmpfloat (bar.height / PL_COLORMAP_N_ENTRIES, >, 3);
      g_assert_cmphex (pixel (surface, bar.x + bar.width / 2, bar.y + 1.5), ==,
                       pl_colormap_lookup (maps[k].id, maps[k].reversed, 1));
      g_assert_cmphex (pixel (surface, bar.x + bar.width / 2, bar.y + bar.height - 1.5), ==,
                       pl_colormap_lookup (maps[k].id, maps[k].reversed, 0));
      cairo_surface_destroy (surface);
    }
}

/* Real data: every cosine on the diagonal is 1, the top of the automatic
 * range, so the diagonal cells carry the map's last colour; a new range
 * re-colours the cached image. */
static void
test_heatmap_gpt2_diagonal (void)
{
  g_autoptr(PlMatrix) cos = gpt2_cosine ();
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (cos, 0);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double lo, hi;

  pl_figure_get_range (figure, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (hi, 1.0, 1e-5);
  pl_figure_set_view (figure, 100, 100, 110, 110);
  surface = render (figure, 400, 400);
  pl_figure_get_plot_area (figure, &plot);
  for (guint i = 0; i < 10; i++)
    {
      double c = (i + 0.5) / 10;
      g_assert_cmphex (pixel (surface, plot.x + c * plot.width, plot.y + c * plot.height), ==, 0xfde725);
    }
  cairo_surface_destroy (surface);

  pl_figure_set_range (figure, 2, 3);    /* everything below the range: the first colour */
  surface = render (figure, 400, 400);
  g_assert_cmphex (pixel (surface, plot.x + plot.width / 2, plot.y + plot.height / 2), ==, 0x440154);
  cairo_surface_destroy (surface);
}


/* ---- trajectories ------------------------------------------------------- */

static PlPca *
gpt2_pca (void)
{
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (weights, GPT2_WPE);
  g_autoptr(GError) error = NULL;
  PlPca *pca = pl_pca_compute (table, 3, &error);

  g_assert_no_error (error);
  return pca;
}

/* Every point's place, scaled to [0, 1] over the points' own extent on each
 * axis, so views with different frames and margins can be compared. */
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
  g_autoptr(PlPca) pca = gpt2_pca ();
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

  surface = render (flat, 500, 400);
  cairo_surface_destroy (surface);
  a = normalised_points (flat, n);

  pl_figure_set_perspective (deep, FALSE);
  pl_figure_set_rotation (deep, 0, 0);
  surface = render (deep, 500, 400);
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
  surface = render (deep, 500, 400);
  cairo_surface_destroy (surface);
  c = normalised_points (deep, n);
  g_assert_cmpfloat (max_diff (a, c, 2 * n), <, 0.15);
  g_assert_cmpfloat (max_diff (a, c, 2 * n), >, 1e-4);

  pl_figure_set_rotation (deep, 90, 0);
  surface = render (deep, 500, 400);
  cairo_surface_destroy (surface);
  d = normalised_points (deep, n);
  g_assert_cmpfloat (max_diff (a, d, 2 * n), >, 0.2);
}

/* The line is coloured by position: position 0's marker has the map's first
 * colour, the last labelled one its colour; hit tests find the points. */
static void
test_trajectory_markers (void)
{
  g_autoptr(PlPca) pca = gpt2_pca ();
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
  surface = render (figure, 600, 450);
  pl_figure_get_plot_area (figure, &plot);

  for (guint i = 0; i < n; i += 100)
    {
      g_assert_true (pl_figure_get_point (figure, i, &x, &y));
      g_assert_cmpfloat (x, >=, plot.x);
      g_assert_cmpfloat (x, <=, plot.x + plot.width);
      g_assert_cmphex (pixel (surface, x, y), ==,
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
  cairo_surface_t *surface = render (figure, 400, 300);
  cairo_rectangle_t plot;
  guint32 bar_colour;

  pl_figure_get_plot_area (figure, &plot);
  /* Axis from 0 to 0.5 plus 5 % headroom; bar i centred at i on [−0.6, 3.6]. */
  for (guint i = 0; i < 4; i++)
    {
      double x = plot.x + (i + 0.6) / 4.2 * plot.width;
      double top = plot.y + plot.height - values[i] / (0.5 * 1.05) * plot.height;
      guint32 inside = pixel (surface, x, top + (plot.y + plot.height - top) / 2);
      guint32 above = pixel (surface, x, top - 3);

      if (i == 0)
        bar_colour = inside;
      g_assert_cmphex (inside, ==, bar_colour);
      g_assert_cmphex (pixel (surface, x, top + 1.5), ==, bar_colour);
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
  surface = render (figure, 400, 200);
  pl_figure_get_plot_area (figure, &plot);
  row_h = plot.height / 4;
  x = plot.x + plot.width - 4;      /* inside the last column, clear of its centred text */
  g_assert_cmphex (pixel (surface, x, plot.y + row_h * 1.5), ==, pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, 1));
  g_assert_cmphex (pixel (surface, x, plot.y + row_h * 2.5), ==, PL_COLORMAP_NO_VALUE);
  g_assert_cmphex (pixel (surface, x, plot.y + row_h * 3.5), ==, pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, 0));
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
  surface = render (figure, 500, 300);
  pl_figure_get_plot_area (figure, &plot);
  /* y from 1 to 3 padded by 5 %: 1 sits at 1/22 of the height above the bottom. */
  {
    double xm = plot.x + plot.width * 0.37;
    double y_low = plot.y + plot.height * (1 - 1.0 / 22);
    double y_high = plot.y + plot.height * (1.0 / 22);

    bg = pixel (surface, xm, plot.y + plot.height / 3 + 2.5);
    a = pixel (surface, xm, y_low);
    b = pixel (surface, xm, y_high);
    g_assert_cmphex (a, !=, bg);
    g_assert_cmphex (b, !=, bg);
    g_assert_cmphex (a, !=, b);
    g_assert_cmphex (pixel (surface, xm, y_low - 4), !=, a);
  }
  cairo_surface_destroy (surface);
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
  surface = render (figure, 600, 300);
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

            g_assert_cmphex (pixel (surface, x, y), ==,
                             pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, pl_matrix_get (m, i, j) / 2));
            g_assert_true (pl_figure_hit_cell (figure, x, y, &col, &row));
            g_assert_cmpuint (col, ==, j);
            g_assert_cmpuint (row, ==, i);
          }
    }
  cairo_surface_destroy (surface);
}

/* Every kind draws without cairo errors to each format (light and dark). */
static void
test_every_kind_exports (void)
{
  g_autoptr(PlPca) pca = gpt2_pca ();
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

/* ---- axes --------------------------------------------------------------- */

static void
test_ticks_and_labels (void)
{
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (double));
  const struct { double value, step; const char *text; } labels[] = {
    { 0.3, 0.1, "0.3" }, { -0.5, 0.25, "\xe2\x88\x92" "0.50" }, { -0.0, 0.5, "0.0" }, { 500, 100, "500" },
    { 2e6, 1e6, "2\xc3\x97" "10\xe2\x81\xb6" }, { 1e6, 5e5, "10\xe2\x81\xb6" },
    { 2e-4, 1e-4, "2\xc3\x97" "10\xe2\x81\xbb\xe2\x81\xb4" }, { 0, 1e-4, "0" },
  };
  double step;

  step = pl_nice_ticks (0, 1, 5, FALSE, ticks);
  g_assert_cmpfloat (step, ==, 0.2);
  g_assert_cmpuint (ticks->len, ==, 6);
  g_assert_cmpfloat_with_epsilon (g_array_index (ticks, double, 3), 0.6, 1e-12);

  /* Positions: whole numbers only, even when zoomed in to three cells. */
  step = pl_nice_ticks (10.5, 13.5, 10, TRUE, ticks);
  g_assert_cmpfloat (step, ==, 1);
  g_assert_cmpuint (ticks->len, ==, 3);

  /* Never fewer than two ticks on a real range. */
  pl_nice_ticks (-1.2e-4, 3.2e-4, 2, FALSE, ticks);
  g_assert_cmpuint (ticks->len, >=, 2);

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      g_autofree char *text = pl_format_tick (labels[i].value, labels[i].step);
      g_assert_cmpstr (text, ==, labels[i].text);
    }
}

/* A heads × positions matrix fills the plot instead of becoming a sliver;
 * a constant one still gets a colour scale with ticks around its value. */
static void
test_heatmap_shapes (void)
{
  g_autoptr(PlMatrix) wide = pl_matrix_new (12, 300);
  g_autoptr(PlMatrix) flat = pl_matrix_new (5, 5);
  g_autoptr(PlFigure) a = NULL;
  g_autoptr(PlFigure) b = NULL;
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double lo, hi;

  for (guint i = 0; i < 25; i++)
    flat->data[i] = 0.5f;
  a = pl_figure_new_heatmap (wide, 0);
  surface = render (a, 600, 400);
  pl_figure_get_plot_area (a, &plot);
  g_assert_cmpfloat (plot.height, >, 200);
  cairo_surface_destroy (surface);

  b = pl_figure_new_heatmap (flat, 0);
  pl_figure_get_range (b, &lo, &hi);
  g_assert_cmpfloat (lo, <, 0.5);
  g_assert_cmpfloat (hi, >, 0.5);
  g_assert_cmpfloat (0.5 - lo, ==, hi - 0.5);
}

/* Dark mode: the libadwaita dark view background and light text. */
static void
test_dark_mode (void)
{
  g_autoptr(PlMatrix) m = ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  cairo_surface_t *light, *dark;
  guint bright = 0;

  pl_figure_set_title (figure, "Title");
  light = render (figure, 300, 200);
  pl_figure_set_dark (figure, TRUE);
  dark = render (figure, 300, 200);
  g_assert_cmphex (pixel (light, 1, 1), ==, 0xffffff);
  g_assert_cmphex (pixel (dark, 1, 1), ==, 0x1e1e1e);
  /* Somewhere in the title row there is light text on the dark background. */
  for (int x = 0; x < 300; x++)
    for (int y = 0; y < 30; y++)
      bright += (pixel (dark, x, y) & 0xff) > 0xc0;
  g_assert_cmpuint (bright, >, 20);
  cairo_surface_destroy (light);
  cairo_surface_destroy (dark);
}

/* ---- export ------------------------------------------------------------- */

static void
test_export_png_size (void)
{
  g_autoptr(PlMatrix) m = ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "size.png", NULL);
  const double sizes[][3] = { { 200, 150, 72 }, { 200, 150, 144 }, { 200, 150, 300 }, { 345.5, 99, 96 } };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_autoptr(GError) error = NULL;
      cairo_surface_t *png;

      g_assert_true (pl_figure_export (figure, path, sizes[k][0], sizes[k][1], sizes[k][2], &error));
      g_assert_no_error (error);
      png = load_png (path);
      g_assert_cmpint (cairo_image_surface_get_width (png), ==, (int) round (sizes[k][0] * sizes[k][2] / 72));
      g_assert_cmpint (cairo_image_surface_get_height (png), ==, (int) round (sizes[k][1] * sizes[k][2] / 72));

      /* The file holds exactly the pixels the renderer drew (our PNG encoder
       * is lossless, read back by cairo's libpng). */
      {
        int w = cairo_image_surface_get_width (png), h = cairo_image_surface_get_height (png);
        cairo_surface_t *direct = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
        cairo_t *cr = cairo_create (direct);

        cairo_scale (cr, w / sizes[k][0], h / sizes[k][1]);
        pl_figure_render (figure, cr, sizes[k][0], sizes[k][1]);
        cairo_destroy (cr);
        cairo_surface_flush (direct);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            if (pixel (direct, x, y) != pixel (png, x, y))
              g_error ("pixel (%d, %d): rendered #%06x, file #%06x", x, y, pixel (direct, x, y), pixel (png, x, y));
        cairo_surface_destroy (direct);
      }
      cairo_surface_destroy (png);
    }
  pl_test_rmtree (dir);
}

/* SVG and PDF are valid files that draw the same picture as the PNG. */
static void
test_export_vectors_match_png (void)
{
  g_autoptr(PlMatrix) cos = gpt2_cosine ();
  g_autoptr(PlMatrix) small = ramp (12, 12);
  g_autoptr(PlPca) pca = NULL;
  g_autofree char *dir = NULL;
  double ratio[3];

  if (!have_program ("rsvg-convert") || !have_program ("pdftoppm"))
    {
      g_test_skip ("rsvg-convert or pdftoppm (librsvg2-bin, poppler-utils) is not installed");
      return;
    }

  dir = pl_test_tmpdir ();
  pca = gpt2_pca ();
  for (guint k = 0; k < 3; k++)
    ratio[k] = pca->explained_variance_ratio->data[k];
  /* A heatmap with large cells, the real one, a trajectory (halo labels),
   * small multiples (text in translated panels), the 3-D view (rotated text
   * and depth) and bars. */
  for (guint k = 0; k < 6; k++)
    {
      g_autoptr(PlFigure) figure = NULL;
      g_autofree char *png = g_build_filename (dir, "f.png", NULL);
      g_autofree char *svg = g_build_filename (dir, "f.svg", NULL);
      g_autofree char *pdf = g_build_filename (dir, "f.pdf", NULL);
      g_autofree char *svg_png = g_build_filename (dir, "f-svg.png", NULL);
      g_autofree char *pdf_base = g_build_filename (dir, "f-pdf", NULL);
      g_autofree char *pdf_png = g_build_filename (dir, "f-pdf.png", NULL);
      g_autofree char *svg_text = NULL;
      g_autoptr(GError) error = NULL;
      cairo_surface_t *a, *b, *c;
      double mean, bad;

      if (k < 2)
        figure = pl_figure_new_heatmap (k == 0 ? small : cos, 0);
      else if (k == 2)
        figure = pl_figure_new_trajectory (pca->projection, 0, ratio, 0, 1);
      else if (k == 4)
        {
          figure = pl_figure_new_trajectory_3d (pca->projection, 0, ratio, 0, 1, 2);
          pl_figure_set_rotation (figure, 40, 25);
        }
      else if (k == 5)
        {
          figure = pl_figure_new_bars (ratio, 3, NULL);
          pl_figure_set_cumulative (figure, TRUE);
          pl_figure_set_axis_labels (figure, "Component", "Ratio");
        }
      else
        {
          g_autoptr(PlFigure) left = pl_figure_new_heatmap (small, 0);
          g_autoptr(PlFigure) right = pl_figure_new_heatmap (cos, 0);
          PlFigure *panels[] = { left, right };

          pl_figure_set_title (left, "Small");
          pl_figure_set_title (right, "GPT-2");
          figure = pl_figure_new_multiples (panels, 2, 2);
        }
      pl_figure_set_title (figure, "Cosine similarity");
      pl_figure_set_value_label (figure, "cos");
      g_assert_true (pl_figure_export (figure, png, 300, 240, 144, &error));
      g_assert_true (pl_figure_export (figure, svg, 300, 240, 144, &error));
      g_assert_true (pl_figure_export (figure, pdf, 300, 240, 144, &error));
      g_assert_no_error (error);

      /* Text is text, not glyph outlines. */
      g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
      g_assert_nonnull (strstr (svg_text, ">Cosine similarity</text>"));
      if (k < 2 || k == 3)
        g_assert_nonnull (strstr (svg_text, "<image image-rendering=\"optimizeSpeed\""));

      run ((const char * const[]) { "rsvg-convert", "-w", "600", "-h", "480", "-o", svg_png, svg, NULL });
      run ((const char * const[]) { "pdftoppm", "-r", "144", "-png", "-singlefile", pdf, pdf_base, NULL });
      a = load_png (png);
      b = load_png (svg_png);
      c = load_png (pdf_png);

      /* Within anti-aliasing and font rasteriser differences: measured about
       * 3/255 on average with 1 % of pixels (glyph edges, image resampling) far off. */
      compare_images (a, b, &mean, &bad);
      g_test_message ("SVG vs PNG: mean %.2f/255, %.2f %% of pixels off", mean, bad * 100);
      g_assert_cmpfloat (mean, <, 6);
      g_assert_cmpfloat (bad, <, 0.03);
      compare_images (a, c, &mean, &bad);
      g_test_message ("PDF vs PNG: mean %.2f/255, %.2f %% of pixels off", mean, bad * 100);
      g_assert_cmpfloat (mean, <, 6);
      g_assert_cmpfloat (bad, <, 0.03);

      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
      cairo_surface_destroy (c);
    }
  pl_test_rmtree (dir);
}

static void
assert_only_file (const char *dir,
                  const char *name)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *entry;
  guint n = 0;

  while ((entry = g_dir_read_name (d)) != NULL)
    {
      g_assert_cmpstr (entry, ==, name);
      n++;
    }
  g_assert_cmpuint (n, ==, name != NULL ? 1 : 0);
}

/* A failed export reports why and neither leaves a partial file nor touches the old one. */
static void
test_export_failure_keeps_old_file (void)
{
  g_autoptr(PlMatrix) m = ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "old.png", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "f.pdf", NULL);
  g_autofree char *under_file = g_build_filename (path, "f.svg", NULL);
  g_autofree char *content = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, "precious", -1, NULL));

  g_assert_false (pl_figure_export (figure, missing, 100, 100, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-folder"));
  g_clear_error (&error);

  g_assert_false (pl_figure_export (figure, under_file, 100, 100, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Fails while drawing, after the temporary file was made. */
  g_assert_false (pl_figure_export (figure, path, 100000, 100000, 300, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  g_clear_error (&error);

  g_assert_false (pl_figure_export (figure, path, -1, 100, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (pl_figure_export (figure, path, 100, 100, 0, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "precious");
  assert_only_file (dir, "old.png");

  /* A folder without write permission (meaningless for root, who may write anyway). */
  if (geteuid () != 0)
    {
      g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
      g_assert_false (pl_figure_export (figure, path, 100, 100, 72, &error));
      g_assert_error (error, PL_ERROR, PL_ERROR_FAILED);
      g_clear_error (&error);
      g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
      g_free (content);
      g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
      g_assert_cmpstr (content, ==, "precious");
    }
  else
    g_test_message ("running as root: the read-only folder case cannot fail, not checked");

  /* And a good export replaces it. */
  g_assert_true (pl_figure_export (figure, path, 100, 100, 72, &error));
  g_assert_no_error (error);
  assert_only_file (dir, "old.png");
  g_free (content);
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_true (g_str_has_prefix (content, "\x89PNG"));
  pl_test_rmtree (dir);
}

static void
test_export_bad_extension (void)
{
  g_autoptr(PlMatrix) m = ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autoptr(GError) error = NULL;

  g_assert_false (pl_figure_export (figure, "/tmp/figure.jpeg", 100, 100, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pl/figure/heatmap/cell-colours", test_heatmap_cell_colours);
  g_test_add_func ("/pl/figure/heatmap/colorbar-ends", test_heatmap_colorbar_ends);
  g_test_add_func ("/pl/figure/heatmap/gpt2-diagonal", test_heatmap_gpt2_diagonal);
  g_test_add_func ("/pl/figure/heatmap/shapes", test_heatmap_shapes);
  g_test_add_func ("/pl/figure/heatmap/dark", test_dark_mode);
  g_test_add_func ("/pl/figure/axes/ticks-and-labels", test_ticks_and_labels);
  g_test_add_func ("/pl/figure/trajectory/3d-at-rest-is-2d", test_trajectory_3d_at_rest_is_2d);
  g_test_add_func ("/pl/figure/trajectory/markers", test_trajectory_markers);
  g_test_add_func ("/pl/figure/lines/positions", test_lines_positions);
  g_test_add_func ("/pl/figure/bars/heights", test_bars_heights);
  g_test_add_func ("/pl/figure/table/cells", test_table_cells);
  g_test_add_func ("/pl/figure/multiples/shared-scale", test_multiples_shared_scale);
  g_test_add_func ("/pl/figure/export/every-kind", test_every_kind_exports);
  g_test_add_func ("/pl/figure/export/png-size", test_export_png_size);
  g_test_add_func ("/pl/figure/export/vectors-match-png", test_export_vectors_match_png);
  g_test_add_func ("/pl/figure/export/failure-keeps-old-file", test_export_failure_keeps_old_file);
  g_test_add_func ("/pl/figure/export/bad-extension", test_export_bad_extension);

  return g_test_run ();
}
