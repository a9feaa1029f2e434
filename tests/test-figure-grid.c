/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <hdf5.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "pl-colormap.h"
#include "pl-grid.h"
#include "pl-model.h"
#include "pl-test-util.h"
#include "test-figure-util.h"

/* The figures of a vision transformer's patch grid against what numpy
 * computed on tests/fixtures/vision (make-vision.py): every pixel of the
 * grid of grids, and of the special tokens' maps, has the colour of numpy's
 * cosine for the cell the hit test names there; every pixel of the PCA
 * colours is numpy's colour of its patch. So both the values and their
 * places are checked, and the hit test with them. */

typedef struct
{
  const char *name;
  guint       rows;
  guint       cols;
  guint       special;
} GridFixture;

static const GridFixture fixtures[] = {
  { "vit", 4, 4, 1 },
  { "vit-wide", 2, 5, 1 },
  { "deit", 3, 3, 2 },
  { "clip", 5, 5, 1 },
  { "siglip", 4, 4, 0 },
};

static int
channel_diff (guint32 a,
              guint32 b)
{
  int worst = 0;

  for (int s = 0; s < 24; s += 8)
    worst = MAX (worst, ABS ((int) ((a >> s) & 0xff) - (int) ((b >> s) & 0xff)));
  return worst;
}

/* Whether the pixel at (X, Y) and its eight neighbours hit the same cell: a
 * pixel inside a cell, away from its edges (frames, smoothing). */
static gboolean
hit_inside (PlFigure *figure,
            int       x,
            int       y,
            guint    *column,
            guint    *row)
{
  if (!pl_figure_hit_cell (figure, x + 0.5, y + 0.5, column, row))
    return FALSE;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      {
        guint c, r;

        if (!pl_figure_hit_cell (figure, x + dx + 0.5, y + dy + 0.5, &c, &r) || c != *column || r != *row)
          return FALSE;
      }
  return TRUE;
}

/* The colour the map gives V over [LO, HI], or one entry either side: the
 * figure's float32 cosine and numpy's float64 one differ by up to 1e-6,
 * which can cross from one of the 256 entries to the next. */
static gboolean
colour_matches (guint32 pixel,
                double  v,
                double  lo,
                double  hi)
{
  double t = (v - lo) / (hi - lo);

  for (int k = -1; k <= 1; k++)
    if (pixel == pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, t + k / (double) PL_COLORMAP_N_ENTRIES))
      return TRUE;
  return FALSE;
}

static void
test_patch_grid (gconstpointer data)
{
  const GridFixture *f = data;
  g_autoptr(PlModel) model = pl_test_open_vision (f->name);
  g_autoptr(PlMatrix) cosine = pl_test_vision_reference (f->name, "cosine");
  g_autoptr(PlMatrix) special_cosine = f->special > 0 ? pl_test_vision_reference (f->name, "special_cosine") : NULL;
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) special = NULL;
  g_autoptr(PlMatrix) similarity = NULL;
  g_autoptr(PlMatrix) special_similarity = NULL;
  g_autoptr(PlFigure) figure = NULL;
  g_autoptr(GError) error = NULL;
  guint n = f->rows * f->cols, n_maps = n + f->special;
  g_autofree guint *covered = g_new0 (guint, (gsize) n_maps * n);
  const char *names[] = { "CLS", "distillation", NULL };
  double lo = INFINITY, hi = -INFINITY;
  cairo_surface_t *surface;
  int width = 720, height = 520;
  gsize checked = 0;

  patches = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  if (f->special > 0)
    {
      special = pl_model_read_special_rows (model, &error);
      g_assert_no_error (error);
    }
  similarity = pl_grid_similarity (patches, special, PL_SIMILARITY_COSINE, &special_similarity, NULL, &error);
  g_assert_no_error (error);
  g_assert_true ((special_similarity != NULL) == (f->special > 0));

  figure = pl_figure_new_patch_grid (similarity, f->rows, f->cols);
  if (special_similarity != NULL)
    pl_figure_set_special_maps (figure, special_similarity, names);
  pl_figure_set_colormap (figure, PL_COLORMAP_VIRIDIS);
  surface = fig_render (figure, width, height);

  /* numpy's range over every map drawn. */
  for (gsize i = 0; i < n * n; i++)
    {
      lo = MIN (lo, cosine->data[i]);
      hi = MAX (hi, cosine->data[i]);
    }
  for (gsize i = 0; special_cosine != NULL && i < special_cosine->rows * n; i++)
    {
      lo = MIN (lo, special_cosine->data[i]);
      hi = MAX (hi, special_cosine->data[i]);
    }

  for (int y = 1; y < height - 1; y++)
    for (int x = 1; x < width - 1; x++)
      {
        guint cell, map;
        double expected;

        if (!hit_inside (figure, x, y, &cell, &map))
          continue;
        g_assert_cmpuint (map, <, n_maps);
        g_assert_cmpuint (cell, <, n);
        expected = map < n ? pl_matrix_get (cosine, map, cell) : pl_matrix_get (special_cosine, map - n, cell);
        if (!colour_matches (fig_pixel (surface, x, y), expected, lo, hi))
          g_error ("%s: map %u, cell %u at (%d, %d): 0x%06x is not the colour of %g", f->name, map, cell, x, y,
                   fig_pixel (surface, x, y), expected);
        covered[(gsize) map * n + cell]++;
        checked++;
      }
  /* Every cell of every map was found and checked. */
  for (gsize i = 0; i < (gsize) n_maps * n; i++)
    g_assert_cmpuint (covered[i], >, 0);
  g_test_message ("%s: %" G_GSIZE_FORMAT " pixels checked", f->name, checked);
  cairo_surface_destroy (surface);
}

static void
test_grid_colors (gconstpointer data)
{
  const GridFixture *f = data;
  g_autoptr(PlModel) model = pl_test_open_vision (f->name);
  g_autoptr(PlMatrix) expected = pl_test_vision_reference (f->name, "pca_rgb");
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) rgb = NULL;
  g_autoptr(PlPca) pca = NULL;
  g_autoptr(PlFigure) figure = NULL;
  g_autoptr(GError) error = NULL;
  guint n = f->rows * f->cols;
  g_autofree guint *covered = g_new0 (guint, n);
  const double ratio[3] = { 0.5, 0.25, 0.125 };
  cairo_surface_t *surface;
  int width = 500, height = 400;

  patches = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  pca = pl_pca_compute (patches, 3, NULL, &error);
  g_assert_no_error (error);
  rgb = pl_grid_pca_colors (pca);
  figure = pl_figure_new_grid_colors (rgb, f->rows, f->cols, ratio);
  surface = fig_render (figure, width, height);

  for (int y = 1; y < height - 1; y++)
    for (int x = 1; x < width - 1; x++)
      {
        guint c, r, p;
        guint32 want = 0;

        if (!hit_inside (figure, x, y, &c, &r))
          continue;
        g_assert_cmpuint (r, <, f->rows);
        g_assert_cmpuint (c, <, f->cols);
        p = r * f->cols + c;
        for (guint k = 0; k < 3; k++)
          want = want << 8 | (guint32) lround (255 * expected->data[3 * p + k]);
        /* numpy's colours within 1e-5, so the 8-bit channel within one step. */
        if (channel_diff (fig_pixel (surface, x, y), want) > 1)
          g_error ("%s: patch (%u, %u) at (%d, %d): 0x%06x, numpy 0x%06x", f->name, r, c, x, y,
                   fig_pixel (surface, x, y), want);
        covered[p]++;
      }
  for (guint p = 0; p < n; p++)
    g_assert_cmpuint (covered[p], >, 0);
  cairo_surface_destroy (surface);
}

static gboolean
dataset_shape_is (const char *file,
                  const char *name,
                  hsize_t     d0,
                  hsize_t     d1,
                  hsize_t     d2)
{
  hsize_t dims[3] = { 0, 0, 0 };
  hid_t f = H5Fopen (file, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2 (f, name, H5P_DEFAULT);
  hid_t s = H5Dget_space (d);
  int rank = H5Sget_simple_extent_ndims (s);

  if (rank == 3)
    H5Sget_simple_extent_dims (s, dims, NULL);
  H5Sclose (s);
  H5Dclose (d);
  H5Fclose (f);
  return rank == 3 && dims[0] == d0 && dims[1] == d1 && dims[2] == d2;
}

/* poslens-cli pca --grid-colors writes numpy's colours as /grid_rgb
 * [rows, cols, 3]; patch-grid writes the maps' values and a figure; both
 * refuse a table that is not a grid. */
static void
test_cli (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *h5 = g_build_filename (dir, "rgb.h5", NULL);
  g_autofree char *values = g_build_filename (dir, "grid.h5", NULL);
  g_autofree char *png = g_build_filename (dir, "grid.png", NULL);
  g_autofree char *clip = pl_test_fixture ("vision", "clip", NULL);
  g_autofree char *deit = pl_test_fixture ("vision", "deit", NULL);
  g_autofree char *gpt2 = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(PlMatrix) rgb = NULL;
  g_autoptr(PlMatrix) expected = pl_test_vision_reference ("clip", "pca_rgb");
  g_autoptr(PlMatrix) similarity = NULL;
  g_autoptr(PlMatrix) special = NULL;
  g_autoptr(PlMatrix) cosine = pl_test_vision_reference ("deit", "cosine");
  g_autoptr(PlMatrix) special_cosine = pl_test_vision_reference ("deit", "special_cosine");
  cairo_surface_t *surface;

  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", clip, "--grid-colors", "--out", h5, NULL }), ==, 0);
  g_assert_true (dataset_shape_is (h5, "/grid_rgb", 5, 5, 3));
  rgb = pl_test_read_h5 (h5, "/grid_rgb");
  g_assert_cmpfloat (pl_test_max_abs_diff (rgb, expected), <, 1e-5);

  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "patch-grid", deit, "--out", values, NULL }), ==, 0);
  similarity = pl_test_read_h5 (values, "/similarity");
  special = pl_test_read_h5 (values, "/special");
  g_assert_cmpfloat (pl_test_max_abs_diff (similarity, cosine), <, 1e-6);
  g_assert_cmpfloat (pl_test_max_abs_diff (special, special_cosine), <, 1e-6);

  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "patch-grid", deit, "--size", "400x300", "--dpi", "72",
                                                       "--out", png, NULL }), ==, 0);
  surface = fig_load_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 400);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 300);
  cairo_surface_destroy (surface);

  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "patch-grid", gpt2, "--out", png, NULL }), ==, 2);
  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", gpt2, "--grid-colors", "--out", h5, NULL }), ==, 2);
  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", clip, "--grid-colors", "--rows", "0:4",
                                                       "--out", h5, NULL }), ==, 1);
  pl_test_rmtree (dir);
}

typedef struct
{
  const char *fixture;
  const char *grid;
  const char *resample;
  const char *reference;   /* /interpolate/… in reference.h5 */
} Resize;

/* poslens-cli resize writes torch's F.interpolate of the patches (special
 * rows in front, as make-vision.py's hf_interpolate) within 16 float32
 * epsilons of the largest value, the tolerance test-vision gives the core;
 * patch-grid --resize draws the resized table's cosine, against the cosine
 * of torch's table in float64; pca --grid-colors --resize colours it as
 * numpy colours torch's table, within 1e-5. */
static void
test_cli_resize (void)
{
  static const Resize cases[] = {
    { "vit", "6x6", "size", "vit-6x6-size" },
    { "vit", "5x7", "tenth", "vit-5x7-tenth" },
    { "vit-wide", "4x10", "size", "vit-wide-4x10-size" },
    { "deit", "5x5", "tenth", "deit-5x5-tenth" },
    { "siglip", "9x5", "size", "siglip-9x5-size" },
    { "clip", "7x7", "tenth", "clip-7x7-tenth" },
  };
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "table.h5", NULL);
  g_autofree char *grid = g_build_filename (dir, "grid.h5", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = pl_test_fixture ("vision", cases[i].fixture, NULL);
      g_autoptr(PlMatrix) expected = pl_test_vision_reference ("interpolate", cases[i].reference);
      g_autoptr(PlMatrix) table = NULL;
      double largest = 0;

      g_assert_cmpint (pl_test_run_cli ((const char *[]) { "resize", path, "--grid", cases[i].grid, "--resample",
                                                           cases[i].resample, "--out", out, NULL }), ==, 0);
      table = pl_test_read_h5 (out, "/table");
      for (gsize j = 0; j < expected->rows * expected->cols; j++)
        largest = MAX (largest, fabs (expected->data[j]));
      g_assert_cmpfloat (pl_test_max_abs_diff (table, expected), <=, 16 * FLT_EPSILON * largest);
    }

  /* The grid of grids of the ViT fixture at 6 × 6. */
  {
    g_autofree char *vit = pl_test_fixture ("vision", "vit", NULL);
    g_autoptr(PlMatrix) expected = pl_test_vision_reference ("interpolate", "vit-6x6-size");
    g_autoptr(PlMatrix) similarity = NULL;
    g_autoptr(PlMatrix) special = NULL;
    gsize n = 36, d = expected->cols;
    double worst = 0;

    g_assert_cmpint (pl_test_run_cli ((const char *[]) { "patch-grid", vit, "--resize", "6x6", "--out", grid,
                                                         NULL }), ==, 0);
    similarity = pl_test_read_h5 (grid, "/similarity");
    special = pl_test_read_h5 (grid, "/special");
    g_assert_cmpuint (similarity->rows, ==, n);
    g_assert_cmpuint (similarity->cols, ==, n);
    g_assert_cmpuint (special->rows, ==, 1);
    for (gsize a = 0; a < n + 1; a++)
      for (gsize b = 0; b < n; b++)
        {
          const float *x = pl_matrix_row (expected, a == n ? 0 : 1 + a), *y = pl_matrix_row (expected, 1 + b);
          double xy = 0, xx = 0, yy = 0, got;

          for (gsize c = 0; c < d; c++)
            {
              xy += (double) x[c] * y[c];
              xx += (double) x[c] * x[c];
              yy += (double) y[c] * y[c];
            }
          got = a == n ? pl_matrix_get (special, 0, b) : pl_matrix_get (similarity, a, b);
          worst = MAX (worst, fabs (got - xy / sqrt (xx * yy)));
        }
    g_assert_cmpfloat (worst, <, 1e-5);
  }

  /* pca --grid-colors --resize: numpy's colours of torch's resized table. */
  {
    static const Resize colours[] = {
      { "vit", "6x6", "size", "vit-6x6-size" },
      { "deit", "5x5", "tenth", "deit-5x5-tenth" },
      { "siglip", "9x5", "size", "siglip-9x5-size" },
      { "clip", "7x7", "tenth", "clip-7x7-tenth" },
    };
    g_autofree char *rgb_path = g_build_filename (dir, "rgb.h5", NULL);

    for (guint i = 0; i < G_N_ELEMENTS (colours); i++)
      {
        g_autofree char *path = pl_test_fixture ("vision", colours[i].fixture, NULL);
        g_autoptr(PlMatrix) expected = pl_test_vision_reference ("interpolate_pca_rgb", colours[i].reference);
        g_autoptr(PlMatrix) rgb = NULL;
        guint new_rows, new_cols;

        g_assert_cmpint (sscanf (colours[i].grid, "%ux%u", &new_rows, &new_cols), ==, 2);
        g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", path, "--grid-colors", "--resize", colours[i].grid,
                                                             "--resample", colours[i].resample, "--out", rgb_path,
                                                             NULL }), ==, 0);
        g_assert_true (dataset_shape_is (rgb_path, "/grid_rgb", new_rows, new_cols, 3));
        rgb = pl_test_read_h5 (rgb_path, "/grid_rgb");
        g_assert_cmpfloat (pl_test_max_abs_diff (rgb, expected), <, 1e-5);
      }
    g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", "builtin:sincos2d:4x4x8", "--resize", "6x6",
                                                         "--out", rgb_path, NULL }), ==, 1);
    g_assert_cmpint (pl_test_run_cli ((const char *[]) { "pca", "builtin:sincos2d:4x4x8", "--grid-colors",
                                                         "--resize", "6x", "--out", rgb_path, NULL }), ==, 1);
  }

  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "resize", "builtin:sinusoidal:16x8", "--grid", "4x4",
                                                       "--out", out, NULL }), ==, 2);
  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "resize", "builtin:sincos2d:4x4x8", "--grid", "0x4",
                                                       "--out", out, NULL }), ==, 1);
  g_assert_cmpint (pl_test_run_cli ((const char *[]) { "resize", "builtin:sincos2d:4x4x8", "--grid", "4x4",
                                                       "--resample", "nearest", "--out", out, NULL }), ==, 1);
  pl_test_rmtree (dir);
}

/* The key says which component each colour stands for and its share of the
 * variance, in the user's language: German from the build's catalogue. */
static void
test_key_translated (void)
{
  g_autoptr(PlMatrix) rgb = pl_matrix_new (4, 3);
  const double ratio[3] = { 0.128, 0.0649, NAN };
  g_autoptr(PlFigure) figure = pl_figure_new_grid_colors (rgb, 2, 2, ratio);
  g_autofree char *po = g_test_build_filename (G_TEST_BUILT, "..", "po", NULL);
  const char *was = g_getenv ("LANGUAGE");
  g_autofree char *saved = g_strdup (was);
  char *labels[3];

  g_assert_nonnull (setlocale (LC_ALL, "C.UTF-8"));
  bindtextdomain (GETTEXT_PACKAGE, po);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_setenv ("LANGUAGE", "", TRUE);
  for (guint k = 0; k < 3; k++)
    labels[k] = pl_figure_get_key_label (figure, k);
  g_assert_cmpstr (labels[0], ==, "PC1 (12.8 %)");
  g_assert_cmpstr (labels[1], ==, "PC2 (6.5 %)");
  g_assert_cmpstr (labels[2], ==, "PC3");
  for (guint k = 0; k < 3; k++)
    g_free (labels[k]);

  g_setenv ("LANGUAGE", "de", TRUE);
  for (guint k = 0; k < 3; k++)
    labels[k] = pl_figure_get_key_label (figure, k);
  g_assert_cmpstr (labels[0], ==, "HK1 (12.8 %)");
  g_assert_cmpstr (labels[1], ==, "HK2 (6.5 %)");
  g_assert_cmpstr (labels[2], ==, "HK3");
  for (guint k = 0; k < 3; k++)
    g_free (labels[k]);

  if (saved != NULL)
    g_setenv ("LANGUAGE", saved, TRUE);
  else
    g_unsetenv ("LANGUAGE");
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *grid = g_strdup_printf ("/pl/figure-grid/patch-grid/%s", fixtures[i].name);
      g_autofree char *colors = g_strdup_printf ("/pl/figure-grid/grid-colors/%s", fixtures[i].name);

      g_test_add_data_func (grid, &fixtures[i], test_patch_grid);
      g_test_add_data_func (colors, &fixtures[i], test_grid_colors);
    }
  g_test_add_func ("/pl/figure-grid/key-translated", test_key_translated);
  g_test_add_func ("/pl/figure-grid/cli", test_cli);
  g_test_add_func ("/pl/figure-grid/cli-resize", test_cli_resize);
  return g_test_run ();
}
