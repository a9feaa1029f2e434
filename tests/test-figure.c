/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pl-error.h"
#include "pl-figure-private.h"   /* tick choice and labels, tested directly */
#include "pl-test-util.h"
#include "test-figure-util.h"

/* The heatmap, the axes and writing files: what every figure kind relies on. */

/* ---- heatmap ------------------------------------------------------------ */

/* The pixel at the centre of each cell has exactly the colour of its value;
 * NaN is the "no value" grey; hit tests name the cell drawn there. */
static void
test_heatmap_cell_colours (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (6, 9);
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
      surface = fig_render (figure, 500, 400);
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
            g_assert_cmphex (fig_pixel (surface, x, y), ==, pl_colormap_lookup (PL_COLORMAP_MAGMA, FALSE, value));
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
  g_autoptr(PlMatrix) m = fig_ramp (5, 5);
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
      surface = fig_render (figure, 900, 900);
      g_assert_true (pl_figure_get_colorbar_area (figure, &bar));
      g_assert_cmpfloat (bar.height / PL_COLORMAP_N_ENTRIES, >, 3);
      g_assert_cmphex (fig_pixel (surface, bar.x + bar.width / 2, bar.y + 1.5), ==,
                       pl_colormap_lookup (maps[k].id, maps[k].reversed, 1));
      g_assert_cmphex (fig_pixel (surface, bar.x + bar.width / 2, bar.y + bar.height - 1.5), ==,
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
  g_autoptr(PlMatrix) cos = fig_gpt2_cosine ();
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (cos, 0);
  cairo_surface_t *surface;
  cairo_rectangle_t plot;
  double lo, hi;

  pl_figure_get_range (figure, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (hi, 1.0, 1e-5);
  pl_figure_set_view (figure, 100, 100, 110, 110);
  surface = fig_render (figure, 400, 400);
  pl_figure_get_plot_area (figure, &plot);
  for (guint i = 0; i < 10; i++)
    {
      double c = (i + 0.5) / 10;
      g_assert_cmphex (fig_pixel (surface, plot.x + c * plot.width, plot.y + c * plot.height), ==, 0xfde725);
    }
  cairo_surface_destroy (surface);

  pl_figure_set_range (figure, 2, 3);    /* everything below the range: the first colour */
  surface = fig_render (figure, 400, 400);
  g_assert_cmphex (fig_pixel (surface, plot.x + plot.width / 2, plot.y + plot.height / 2), ==, 0x440154);
  cairo_surface_destroy (surface);
}


/* ---- axes --------------------------------------------------------------- */

/* A position-by-position matrix labels both axes at the same positions,
 * though the column labels need more room than the row labels, at any size
 * and zoom; the ticks are whole positions inside the view. */
static void
test_heatmap_square_ticks_alike (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (512, 512);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  const int sizes[][2] = { { 520, 440 }, { 300, 300 }, { 900, 500 }, { 360, 640 }, { 1200, 900 } };

  for (guint zoom = 0; zoom < 2; zoom++)
    for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
      {
        cairo_surface_t *surface;
        const double *xt, *yt;
        guint nx, ny;

        if (zoom)
          pl_figure_set_view (figure, 100, 100, 160, 160);
        surface = fig_render (figure, sizes[k][0], sizes[k][1]);
        xt = pl_figure_get_ticks (figure, TRUE, &nx);
        yt = pl_figure_get_ticks (figure, FALSE, &ny);
        g_assert_nonnull (xt);
        g_assert_nonnull (yt);
        g_assert_cmpuint (nx, >=, 2);
        g_assert_cmpuint (nx, ==, ny);
        for (guint i = 0; i < nx; i++)
          {
            g_assert_cmpfloat (xt[i], ==, yt[i]);
            g_assert_cmpfloat (xt[i], ==, floor (xt[i]));
            g_assert_cmpfloat (xt[i], >=, zoom ? 100 : 0);
            g_assert_cmpfloat (xt[i], <, zoom ? 160 : 512);
          }
        cairo_surface_destroy (surface);
      }
}

static void
test_ticks_and_labels (void)
{
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (double));
  const struct { double value, step; const char *text; } labels[] = {
    { 0.3, 0.1, "0.3" }, { -0.5, 0.25, "\xe2\x88\x92" "0.50" }, { -0.0, 0.5, "0.0" }, { 500, 100, "500" },
    { 2e6, 1e6, "2\xc3\x97" "10\xe2\x81\xb6" }, { 1e6, 1e6, "10\xe2\x81\xb6" },
    { 1e6, 5e5, "1.0\xc3\x97" "10\xe2\x81\xb6" }, { 1.5e6, 5e5, "1.5\xc3\x97" "10\xe2\x81\xb6" },
    { 1.98e-3, 2e-5, "1.98\xc3\x97" "10\xe2\x81\xbb\xc2\xb3" },
    { 1.25e-4, 2.5e-5, "1.25\xc3\x97" "10\xe2\x81\xbb\xe2\x81\xb4" },
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

  /* Neighbouring ticks never print alike: attention masses near 1/512,
   * large counts, tiny values, ordinary ones. */
  {
    const double ranges[][2] = { { 1.87e-3, 2.02e-3 }, { 1e6, 1.6e6 }, { 1.2e-5, 9.1e-5 }, { 0.1, 0.35 },
                                 { -3.3e-4, 4.1e-4 }, { 101, 104 } };

    for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
      for (guint want = 3; want <= 10; want++)
        {
          double s = pl_nice_ticks (ranges[r][0], ranges[r][1], want, FALSE, ticks);
          g_autofree char *previous = NULL;

          for (guint i = 0; i < ticks->len; i++)
            {
              char *text = pl_format_tick (g_array_index (ticks, double, i), s);

              if (previous != NULL && g_str_equal (previous, text))
                g_error ("range %g…%g, %u ticks: “%s” twice", ranges[r][0], ranges[r][1], want, text);
              g_free (previous);
              previous = text;
            }
        }
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
  surface = fig_render (a, 600, 400);
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
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  cairo_surface_t *light, *dark;
  guint bright = 0;

  pl_figure_set_title (figure, "Title");
  light = fig_render (figure, 300, 200);
  pl_figure_set_dark (figure, TRUE);
  dark = fig_render (figure, 300, 200);
  g_assert_cmphex (fig_pixel (light, 1, 1), ==, 0xffffff);
  g_assert_cmphex (fig_pixel (dark, 1, 1), ==, 0x1e1e1e);
  /* Somewhere in the title row there is light text on the dark background. */
  for (int x = 0; x < 300; x++)
    for (int y = 0; y < 30; y++)
      bright += (fig_pixel (dark, x, y) & 0xff) > 0xc0;
  g_assert_cmpuint (bright, >, 20);
  cairo_surface_destroy (light);
  cairo_surface_destroy (dark);
}

/* The strongest contrast with the background of a pixel within 2 of (x, y). */
static double
best_contrast_near (cairo_surface_t *surface,
                    double           x,
                    double           y,
                    const double     bg[3])
{
  double best = 1;

  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++)
      {
        guint32 p = fig_pixel (surface, x + dx, y + dy);
        double rgb[3];

        pl_rgb_from_hex (p, rgb);
        best = MAX (best, pl_figure_contrast (rgb, bg));
      }
  return best;
}

/* On the dark background the first positions of a trajectory, drawn in the
 * dark end of the map, still stand out 3:1 (WCAG's contrast for graphics),
 * in 2-D and in 3-D, with viridis and magma. */
static void
test_dark_first_positions (void)
{
  const PlColormapId maps[] = { PL_COLORMAP_VIRIDIS, PL_COLORMAP_MAGMA };
  const double bg[3] = { 0x1e / 255.0, 0x1e / 255.0, 0x1e / 255.0 };
  g_autoptr(PlMatrix) circle = pl_matrix_new (40, 3);

  for (guint i = 0; i < 40; i++)
    {
      pl_matrix_row (circle, i)[0] = (float) cos (2 * G_PI * i / 40);
      pl_matrix_row (circle, i)[1] = (float) sin (2 * G_PI * i / 40);
      pl_matrix_row (circle, i)[2] = 0;
    }
  for (guint k = 0; k < G_N_ELEMENTS (maps); k++)
    for (guint deep = 0; deep < 2; deep++)
      {
        g_autoptr(PlFigure) figure = deep ? pl_figure_new_trajectory_3d (circle, 0, NULL, 0, 1, 2)
                                          : pl_figure_new_trajectory (circle, 0, NULL, 0, 1);
        cairo_surface_t *surface;

        pl_figure_set_colormap (figure, maps[k]);
        pl_figure_set_dark (figure, TRUE);
        pl_figure_set_label_every (figure, 100);
        surface = fig_render (figure, 600, 500);
        for (guint i = 0; i < 6; i++)
          {
            double x0, y0, x1, y1;

            g_assert_true (pl_figure_get_point (figure, i, &x0, &y0));
            g_assert_true (pl_figure_get_point (figure, i + 1, &x1, &y1));
            g_assert_cmpfloat (best_contrast_near (surface, (x0 + x1) / 2, (y0 + y1) / 2, bg), >=, 3.0);
          }
        cairo_surface_destroy (surface);
      }
}

/* ---- export ------------------------------------------------------------- */

static void
test_export_png_size (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
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
      png = fig_load_png (path);
      g_assert_cmpint (cairo_image_surface_get_width (png), ==, (int) round (sizes[k][0] * sizes[k][2] / 72));
      g_assert_cmpint (cairo_image_surface_get_height (png), ==, (int) round (sizes[k][1] * sizes[k][2] / 72));

      /* Its resolution, in pixels per metre, lets other programs place it
       * at its size in points. */
      {
        g_autofree guint8 *bytes = NULL;
        gsize len;
        const guint8 *phys = NULL;
        guint32 ppm = (guint32) round (sizes[k][2] / 0.0254);

        g_assert_true (g_file_get_contents (path, (char **) &bytes, &len, NULL));
        for (gsize i = 0; phys == NULL && i + 13 <= len; i++)
          if (memcmp (bytes + i, "pHYs", 4) == 0)
            phys = bytes + i;
        g_assert_nonnull (phys);
        g_assert_cmpuint ((guint32) phys[4] << 24 | phys[5] << 16 | phys[6] << 8 | phys[7], ==, ppm);
        g_assert_cmpuint ((guint32) phys[8] << 24 | phys[9] << 16 | phys[10] << 8 | phys[11], ==, ppm);
        g_assert_cmpuint (phys[12], ==, 1);
      }

      /* The file holds exactly the pixels the renderer drew (the encoder is
       * lossless, read back by cairo's own PNG reader). */
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
            if (fig_pixel (direct, x, y) != fig_pixel (png, x, y))
              g_error ("fig_pixel (%d, %d): rendered #%06x, file #%06x", x, y, fig_pixel (direct, x, y), fig_pixel (png, x, y));
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
  g_autoptr(PlMatrix) cos = fig_gpt2_cosine ();
  g_autoptr(PlMatrix) small = fig_ramp (12, 12);
  g_autoptr(PlPca) pca = NULL;
  g_autofree char *dir = NULL;
  double ratio[3];

  if (!fig_have_program ("rsvg-convert") || !fig_have_program ("pdftoppm"))
    {
      g_test_skip ("rsvg-convert or pdftoppm (librsvg2-bin, poppler-utils) is not installed");
      return;
    }

  dir = pl_test_tmpdir ();
  pca = fig_gpt2_pca ();
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

      fig_run ((const char * const[]) { "rsvg-convert", "-w", "600", "-h", "480", "-o", svg_png, svg, NULL });
      fig_run ((const char * const[]) { "pdftoppm", "-r", "144", "-png", "-singlefile", pdf, pdf_base, NULL });
      a = fig_load_png (png);
      b = fig_load_png (svg_png);
      c = fig_load_png (pdf_png);

      /* Within anti-aliasing and font rasteriser differences: measured about
       * 3/255 on average with 1 % of pixels (glyph edges, image resampling) far off. */
      fig_compare_images (a, b, NULL, &mean, &bad);
      g_test_message ("SVG vs PNG: mean %.2f/255, %.2f %% of pixels off", mean, bad * 100);
      g_assert_cmpfloat (mean, <, 6);
      g_assert_cmpfloat (bad, <, 0.03);
      fig_compare_images (a, c, NULL, &mean, &bad);
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
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
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

/* Exporting renders at another size, but hit tests afterwards still answer
 * for the picture on screen. */
static void
test_export_keeps_screen_geometry (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (8, 8);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "f.png", NULL);
  cairo_surface_t *surface = fig_render (figure, 500, 400);
  cairo_rectangle_t before, after;
  guint col, row;

  pl_figure_get_plot_area (figure, &before);
  g_assert_true (pl_figure_export (figure, path, 100, 60, 300, NULL));
  pl_figure_get_plot_area (figure, &after);
  g_assert_cmpmem (&before, sizeof before, &after, sizeof after);
  g_assert_true (pl_figure_hit_cell (figure, before.x + before.width - 1, before.y + 1, &col, &row));
  g_assert_cmpuint (col, ==, 7);
  g_assert_cmpuint (row, ==, 0);
  cairo_surface_destroy (surface);
  pl_test_rmtree (dir);
}

static void
test_export_bad_extension (void)
{
  g_autoptr(PlMatrix) m = fig_ramp (4, 4);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autoptr(GError) error = NULL;

  g_assert_false (pl_figure_export (figure, "/tmp/figure.jpeg", 100, 100, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

/* Lines in dark mode stand out 3:1 from the dark background (WCAG's
 * contrast for graphics) in every colour map, either way round; the
 * contrast itself checked against WCAG's own examples. */
static void
test_dark_series_contrast (void)
{
  const double white[3] = { 1, 1, 1 }, black[3] = { 0, 0, 0 };
  const double grey[3] = { 0x76 / 255.0, 0x76 / 255.0, 0x76 / 255.0 };
  const double dark_bg[3] = { 0x1e / 255.0, 0x1e / 255.0, 0x1e / 255.0 };
  const double xs[2] = { 0, 1 };

  g_assert_cmpfloat_with_epsilon (pl_figure_contrast (white, black), 21.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pl_figure_contrast (grey, white), 4.54, 0.005);

  for (PlColormapId map = PL_COLORMAP_VIRIDIS; map <= PL_COLORMAP_CIVIDIS; map++)
    for (guint reversed = 0; reversed < 2; reversed++)
      for (guint n = 1; n <= 12; n++)
        {
          g_autoptr(PlFigure) figure = pl_figure_new_lines (xs, 2);
          double first[3], last[3];

          pl_figure_set_colormap (figure, map);
          pl_figure_set_reversed (figure, reversed);
          pl_figure_set_dark (figure, TRUE);
          for (guint i = 0; i < n; i++)
            {
              double rgb[3];

              pl_figure_series_rgb (figure, i, n, rgb);
              if (pl_figure_contrast (rgb, dark_bg) < 3.0)
                g_error ("map %d%s: line %u of %u has contrast %.2f", map, reversed ? " reversed" : "",
                         i, n, pl_figure_contrast (rgb, dark_bg));
            }
          /* Still a spread of colours, not one. */
          pl_figure_series_rgb (figure, 0, 12, first);
          pl_figure_series_rgb (figure, 11, 12, last);
          g_assert_cmpfloat (pl_figure_contrast (first, last), >, 2.0);
        }
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/figure/heatmap/cell-colours", test_heatmap_cell_colours);
  g_test_add_func ("/pl/figure/heatmap/colorbar-ends", test_heatmap_colorbar_ends);
  g_test_add_func ("/pl/figure/heatmap/gpt2-diagonal", test_heatmap_gpt2_diagonal);
  g_test_add_func ("/pl/figure/heatmap/shapes", test_heatmap_shapes);
  g_test_add_func ("/pl/figure/heatmap/square-ticks-alike", test_heatmap_square_ticks_alike);
  g_test_add_func ("/pl/figure/heatmap/dark", test_dark_mode);
  g_test_add_func ("/pl/figure/lines/dark-contrast", test_dark_series_contrast);
  g_test_add_func ("/pl/figure/trajectory/dark-first-positions", test_dark_first_positions);
  g_test_add_func ("/pl/figure/axes/ticks-and-labels", test_ticks_and_labels);
  g_test_add_func ("/pl/figure/export/png-size", test_export_png_size);
  g_test_add_func ("/pl/figure/export/vectors-match-png", test_export_vectors_match_png);
  g_test_add_func ("/pl/figure/export/failure-keeps-old-file", test_export_failure_keeps_old_file);
  g_test_add_func ("/pl/figure/export/bad-extension", test_export_bad_extension);
  g_test_add_func ("/pl/figure/export/keeps-screen-geometry", test_export_keeps_screen_geometry);

  return g_test_run ();
}
