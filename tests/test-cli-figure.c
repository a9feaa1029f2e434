/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-figure-preset.h"
#include "pl-test-util.h"

/* The figure options of poslens-cli and the figures they write. */

static void
test_figure_paths (void)
{
  g_assert_true (pl_cli_figure_is_figure_path ("out/sim.png"));
  g_assert_true (pl_cli_figure_is_figure_path ("Sim.SVG"));
  g_assert_true (pl_cli_figure_is_figure_path ("a.pdf"));
  g_assert_false (pl_cli_figure_is_figure_path ("a.h5"));
  g_assert_false (pl_cli_figure_is_figure_path ("png"));
  g_assert_false (pl_cli_figure_is_figure_path (NULL));
}

static void
test_check_options (void)
{
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;
  const char *bad_sizes[] = { "432", "432x", "x360", "0x360", "432x-1", "432x360pt", "axb" };

  g_assert_true (pl_cli_figure_check_options (&options, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    {
      g_autoptr(GError) error = NULL;

      options.size = (char *) bad_sizes[i];
      g_assert_false (pl_cli_figure_check_options (&options, &error));
      g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "--size"));
    }
  options.size = (char *) "300.5X200";
  g_assert_true (pl_cli_figure_check_options (&options, NULL));
  options.dpi = 0;
  g_assert_false (pl_cli_figure_check_options (&options, NULL));
  options.dpi = 300;
  options.colormap = (char *) "jet";
  g_assert_false (pl_cli_figure_check_options (&options, NULL));
  options.colormap = (char *) "Inferno_r";
  g_assert_true (pl_cli_figure_check_options (&options, NULL));
}

/* --width takes the export presets by name (3.3in, 7in, slide: their text
 * sizes too, as the export dialog's) or a length; --font-size overrides the
 * text size; a width with --size, or a bad one, is refused. */
static void
test_page (void)
{
  const struct { const char *width; double font; double w, h, text; } good[] = {
    { NULL, 0, 432, 0, 10 }, { "3.3in", 0, 237.6, 0, 8 }, { "7in", 0, 504, 0, 9 }, { "slide", 0, 720, 405, 16 },
    { "Slide", 12, 720, 405, 12 }, { "300", 0, 300, 0, 10 }, { "300pt", 0, 300, 0, 10 }, { "5in", 11, 360, 0, 11 },
    { "8.5cm", 0, 8.5 / 2.54 * 72, 0, 10 }, { "25.4mm", 0, 72, 0, 10 },
  };
  const char *bad[] = { "0", "-3in", "3.3 in", "wide", "in", "3.3inch", "nan", "" };
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;
  g_autoptr(GError) error = NULL;
  double w, h, text;

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_assert_true (pl_cli_figure_page (good[i].width, good[i].font, &w, &h, &text, NULL));
      g_assert_cmpfloat_with_epsilon (w, good[i].w, 1e-9);
      g_assert_cmpfloat_with_epsilon (h, good[i].h, 1e-9);
      g_assert_cmpfloat_with_epsilon (text, good[i].text, 1e-9);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (pl_cli_figure_page (bad[i], 0, &w, &h, &text, &error));
      g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "--width"));
      g_clear_error (&error);
    }
  g_assert_false (pl_cli_figure_page ("7in", -1, &w, &h, &text, &error));
  g_assert_nonnull (strstr (error->message, "--font-size"));
  g_clear_error (&error);

  options.width = (char *) "7in";
  g_assert_true (pl_cli_figure_check_options (&options, NULL));
  options.size = (char *) "432x360";
  g_assert_false (pl_cli_figure_check_options (&options, &error));
  g_assert_nonnull (strstr (error->message, "--width"));
}

/* A figure at --width 3.3in: that wide, as tall as the figure's own at
 * that width, its text at the column's 8 pt (tick labels 6.8 pt). */
static void
test_write_width (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "sim.svg", NULL);
  g_autoptr(PlMatrix) m = pl_matrix_new (64, 64);
  g_autoptr(PlFigure) reference = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *size = NULL;
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;

  for (guint i = 0; i < 64; i++)
    m->data[i * 64 + i] = 1;
  options.width = (char *) "3.3in";
  g_assert_true (pl_cli_figure_write_similarity (m, PL_SIMILARITY_COSINE, NULL, path, &options, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  reference = pl_figure_new_heatmap (m, 0);
  pl_figure_set_value_label (reference, "Cosine similarity");
  pl_figure_set_font (reference, NULL, 8);
  size = g_strdup_printf ("width=\"237.6pt\" height=\"%gpt\"", pl_figure_get_preferred_height (reference, 237.6));
  g_assert_nonnull (strstr (text, size));
  g_assert_nonnull (strstr (text, "font-size=\"6.800\""));
  g_assert_null (strstr (text, "font-size=\"8.500\""));
  pl_test_rmtree (dir);
}

static guint
count_colour (cairo_surface_t *png,
              guint32          rgb)
{
  const guint8 *data = cairo_image_surface_get_data (png);
  int stride = cairo_image_surface_get_stride (png);
  guint n = 0;

  for (int y = 0; y < cairo_image_surface_get_height (png); y++)
    for (int x = 0; x < cairo_image_surface_get_width (png); x++)
      n += (*(const guint32 *) (gconstpointer) (data + (gsize) y * stride + 4 * x) & 0xffffff) == rgb;
  return n;
}

/* --size, --dpi and --colormap reach the file: 200 × 100 pt at 144 DPI is
 * 400 × 200 pixels, and reversed magma puts magma's light end on the zeros
 * and its dark end on the diagonal's ones. */
static void
test_write_similarity (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "sim.png", NULL);
  g_autoptr(PlMatrix) m = pl_matrix_new (6, 6);
  g_autoptr(GError) error = NULL;
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;
  cairo_surface_t *png;

  for (guint i = 0; i < 6; i++)
    m->data[i * 6 + i] = 1;
  options.size = (char *) "200x100";
  options.dpi = 144;
  options.colormap = (char *) "magma_r";
  g_assert_true (pl_cli_figure_write_similarity (m, PL_SIMILARITY_COSINE, "100:106", path, &options, &error));
  g_assert_no_error (error);

  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, 400);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==, 200);
  g_assert_cmpuint (count_colour (png, 0xfcfdbf), >, 1000);
  g_assert_cmpuint (count_colour (png, 0x000004), >, 100);
  g_assert_cmpuint (count_colour (png, 0x440154), ==, 0);     /* not viridis */
  cairo_surface_destroy (png);

  /* A bad option is reported as such. */
  options.size = (char *) "big";
  g_assert_false (pl_cli_figure_write_similarity (m, PL_SIMILARITY_COSINE, NULL, path, &options, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  pl_test_rmtree (dir);
}

/* Euclidean distances read as cosine does: a zero distance (the diagonal)
 * in the bright end of the map, large ones in the dark end; a --colormap
 * given is taken as it is. */
static void
test_write_distance (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "l2.png", NULL);
  g_autoptr(PlMatrix) m = pl_matrix_new (6, 6);
  g_autoptr(GError) error = NULL;
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;
  cairo_surface_t *png;

  for (guint i = 0; i < 6; i++)
    for (guint j = 0; j < 6; j++)
      m->data[i * 6 + j] = i == j ? 0 : 4;
  options.size = (char *) "200x100";
  g_assert_true (pl_cli_figure_write_similarity (m, PL_SIMILARITY_L2, NULL, path, &options, &error));
  g_assert_no_error (error);
  png = cairo_image_surface_create_from_png (path);
  /* Viridis' yellow on the diagonal, its purple off it. */
  g_assert_cmpuint (count_colour (png, 0xfde725), >, 30);
  g_assert_cmpuint (count_colour (png, 0x440154), >, 3 * count_colour (png, 0xfde725));
  cairo_surface_destroy (png);

  options.colormap = (char *) "viridis";
  g_assert_true (pl_cli_figure_write_similarity (m, PL_SIMILARITY_L2, NULL, path, &options, &error));
  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpuint (count_colour (png, 0xfde725), >, 3 * count_colour (png, 0x440154));
  cairo_surface_destroy (png);
  pl_test_rmtree (dir);
}

/* PCA: 2-D with the explained variance on the axes; 3-D once a rotation is asked for. */
static void
test_write_pca (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *flat = g_build_filename (dir, "flat.svg", NULL);
  g_autofree char *deep = g_build_filename (dir, "deep.svg", NULL);
  g_autofree char *flat_text = NULL;
  g_autofree char *deep_text = NULL;
  g_autoptr(PlMatrix) x = pl_matrix_new (40, 6);
  g_autoptr(PlPca) pca = NULL;
  g_autoptr(GError) error = NULL;
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;
  g_autofree char *pc1 = NULL;

  for (guint i = 0; i < 40; i++)
    for (guint j = 0; j < 6; j++)
      x->data[i * 6 + j] = (float) (sin (0.3 * i * (j + 1)) + 0.1 * j);
  pca = pl_pca_compute (x, 3, NULL, &error);
  g_assert_no_error (error);

  options.title = (char *) "Demo & <friends>";
  g_assert_true (pl_cli_figure_write_pca (pca, "7:47", flat, &options, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (flat, &flat_text, NULL, NULL));
  pc1 = g_strdup_printf (">PC1 (%.1f %% of variance)</text>", 100 * pl_matrix_get (pca->explained_variance_ratio, 0, 0));
  g_assert_nonnull (strstr (flat_text, pc1));
  g_assert_nonnull (strstr (flat_text, ">Demo &amp; &lt;friends&gt;</text>"));
  g_assert_nonnull (strstr (flat_text, ">7</text>"));        /* the first position's label */
  g_assert_null (strstr (flat_text, "azimuth"));

  options.azimuth = 30;
  g_assert_true (pl_cli_figure_write_pca (pca, NULL, deep, &options, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (deep, &deep_text, NULL, NULL));
  g_assert_nonnull (strstr (deep_text, ">azimuth 30°, elevation 0°</text>"));
  pl_test_rmtree (dir);
}

static char *
write_and_read (gboolean (*write) (gpointer data, const char *out, GError **error),
                gpointer   data)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "figure.svg", NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (write (data, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  pl_test_rmtree (dir);
  return text;
}

typedef struct
{
  PlAttentionStats *stats;
  int               layer;
  int               head;
} AttentionCase;

static gboolean
write_attention (gpointer     data,
                 const char  *out,
                 GError     **error)
{
  AttentionCase *c = data;
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;

  return pl_cli_figure_write_attention (c->stats, c->layer, c->head, out, &options, error);
}

static gboolean
write_probe (gpointer     data,
             const char  *out,
             GError     **error)
{
  PlCliFigureOptions options = PL_CLI_FIGURE_OPTIONS_INIT;

  return pl_cli_figure_write_probe (data, "mini-gpt2", out, &options, error);
}

/* Attention: a layer gives its heads' profiles by offset, no layer the mean
 * distance of every head against its layer. */
static void
test_write_attention (void)
{
  g_autoptr(PlMatrix) profile = pl_matrix_new (2 * 3, 2 * 5 - 1);
  g_autoptr(PlMatrix) distance = pl_matrix_new (2, 3);
  PlAttentionStats stats = { .n_layers = 2, .n_heads = 3, .n_tokens = 5, .n_sequences = 1,
                             .offset_profile = profile, .mean_distance = distance };
  AttentionCase cases[] = { { &stats, 2, -1 }, { &stats, 1, 2 }, { &stats, 0, -1 } };
  g_autofree char *layer = NULL;
  g_autofree char *one = NULL;
  g_autofree char *all = NULL;

  for (gsize i = 0; i < profile->rows * profile->cols; i++)
    profile->data[i] = 1.0f / profile->cols;
  for (gsize i = 0; i < 6; i++)
    distance->data[i] = (float) i;

  /* Heads named from 1, as --head and the window count them: head index 2
   * is "Head 3". */
  layer = write_and_read (write_attention, &cases[0]);
  g_assert_nonnull (strstr (layer, ">Layer 2</text>"));
  g_assert_nonnull (strstr (layer, ">Head 1</text>"));
  g_assert_nonnull (strstr (layer, ">Head 3</text>"));
  g_assert_null (strstr (layer, ">Head 0</text>"));
  g_assert_nonnull (strstr (layer, ">Offset (key − query)</text>"));

  one = write_and_read (write_attention, &cases[1]);
  g_assert_nonnull (strstr (one, ">Layer 1, head 3</text>"));
  g_assert_null (strstr (one, ">Head 1</text>"));

  all = write_and_read (write_attention, &cases[2]);
  g_assert_nonnull (strstr (all, ">Mean attention distance (positions)</text>"));
}

static void
test_write_probe (void)
{
  PlProbeSummary one = { .absolute = { .n = 1, .mean = 3.25 }, .relative = { .n = 1, .mean = 0.125 } };
  PlProbeSummary repeats = { .absolute = { .n = 20, .mean = 3.25, .half_width = 0.5 },
                             .relative = { .n = 20, .mean = 0.125, .half_width = 0.0625 } };
  g_autofree char *text = write_and_read (write_probe, &one);
  g_autofree char *spread = write_and_read (write_probe, &repeats);

  g_assert_nonnull (strstr (text, ">mini-gpt2</text>"));
  g_assert_nonnull (strstr (text, ">Absolute position, MAE</text>"));
  g_assert_nonnull (strstr (text, ">3.250</text>"));
  g_assert_nonnull (strstr (text, ">0.125</text>"));
  /* Repeats: the mean ± the half-width of its interval. */
  g_assert_nonnull (strstr (spread, ">3.250 ± 0.500</text>"));
  g_assert_nonnull (strstr (spread, ">0.125 ± 0.062</text>"));
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/cli-figure/paths", test_figure_paths);
  g_test_add_func ("/pl/cli-figure/check-options", test_check_options);
  g_test_add_func ("/pl/cli-figure/page", test_page);
  g_test_add_func ("/pl/cli-figure/width", test_write_width);
  g_test_add_func ("/pl/cli-figure/distance", test_write_distance);
  g_test_add_func ("/pl/cli-figure/similarity", test_write_similarity);
  g_test_add_func ("/pl/cli-figure/pca", test_write_pca);
  g_test_add_func ("/pl/cli-figure/attention", test_write_attention);
  g_test_add_func ("/pl/cli-figure/probe", test_write_probe);

  return g_test_run ();
}
