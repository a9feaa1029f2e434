/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-colormap.h"
#include "pl-model.h"
#include "pl-figure.h"
#include "pl-similarity.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"
#include "test-figure-util.h"

/* Cosine of mini-gpt2 against the fixture's float64 cosines (1e-5), whole
 * and as a sub-range. */
static void
test_similarity (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-gpt2", "reference.h5", NULL);
  g_autofree char *out = g_build_filename (dir, "sim.h5", NULL);
  g_autofree char *part = g_build_filename (dir, "part.h5", NULL);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (reference, "/position_table/cosine");
  g_autoptr(PlMatrix) sim = NULL;
  g_autoptr(PlMatrix) sub = NULL;
  double worst = 0;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", model, "--out", out, NULL), ==, 0);
  sim = pl_test_read_h5 (out, "/similarity");
  g_assert_cmpfloat (pl_test_max_abs_diff (sim, ref), <, 1e-5);

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", model, "--rows", "100:228", "--out", part, NULL), ==, 0);
  sub = pl_test_read_h5 (part, "/similarity");
  g_assert_cmpuint (sub->rows, ==, 128);
  g_assert_cmpuint (sub->cols, ==, 128);
  for (gsize i = 0; i < 128; i++)
    for (gsize j = 0; j < 128; j++)
      worst = MAX (worst, fabs (pl_matrix_get (sub, i, j) - pl_matrix_get (ref, 100 + i, 100 + j)));
  g_assert_cmpfloat (worst, <, 1e-5);

  /* Open-ended ranges, as Python slices. */
  {
    g_autoptr(PlMatrix) head = NULL;
    g_autoptr(PlMatrix) tail = NULL;

    g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", model, "--rows", ":64", "--out", part, NULL), ==, 0);
    head = pl_test_read_h5 (part, "/similarity");
    g_assert_cmpuint (head->rows, ==, 64);
    g_assert_cmpfloat_with_epsilon (pl_matrix_get (head, 3, 60), pl_matrix_get (ref, 3, 60), 1e-5);
    g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", model, "--rows", "500:", "--out", part, NULL), ==, 0);
    tail = pl_test_read_h5 (part, "/similarity");
    g_assert_cmpuint (tail->rows, ==, 12);
    g_assert_cmpfloat_with_epsilon (pl_matrix_get (tail, 0, 11), pl_matrix_get (ref, 500, 511), 1e-5);
  }
  pl_test_rmtree (dir);
}

/* The other formats and metrics: an .npy of the Euclidean distances of a
 * builtin table (zero diagonal, symmetric) and a CSV of dot products. */
static void
test_similarity_formats (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *npy = g_build_filename (dir, "l2.npy", NULL);
  g_autofree char *csv = g_build_filename (dir, "dot.csv", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len;
  guint header;
  float d01, d10, d00;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", "builtin:sinusoidal:40x16", "--metric", "l2",
                                "--out", npy, NULL), ==, 0);
  g_assert_true (g_file_get_contents (npy, &bytes, &len, NULL));
  header = (guint8) bytes[8] | ((guint) (guint8) bytes[9] << 8);
  g_assert_cmpuint (len, ==, 10 + header + 40 * 40 * 4);
  memcpy (&d00, bytes + 10 + header, 4);
  memcpy (&d01, bytes + 10 + header + 4, 4);
  memcpy (&d10, bytes + 10 + header + 40 * 4, 4);
  g_assert_cmpfloat (d00, ==, 0);
  g_assert_cmpfloat_with_epsilon (d01, d10, 1e-6);
  /* |PE_0 − PE_1|² = 2 Σ_k (1 − cos ω_k) over the 8 frequencies of width 16. */
  {
    double expect = 0;
    for (int k = 0; k < 8; k++)
      expect += 2 * (1 - cos (pow (10000.0, -2.0 * k / 16)));
    g_assert_cmpfloat_with_epsilon (d01, sqrt (expect), 1e-5);
  }

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", "builtin:sinusoidal:40x16", "--metric", "dot",
                                "--out", csv, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 41);
  /* Each row of the table has norm² = width / 2. */
  {
    g_auto(GStrv) cells = g_strsplit (lines[5], ",", -1);
    g_assert_cmpuint (g_strv_length (cells), ==, 40);
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cells[5], NULL), 8.0, 1e-5);
  }
  pl_test_rmtree (dir);
}

/* PCA of mini-bert: ratios within 1e-4 relative, |projections| within 1e-3. */
static void
test_pca (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-bert", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-bert", "reference.h5", NULL);
  g_autofree char *out = g_build_filename (dir, "pca.h5", NULL);
  g_autoptr(PlMatrix) ref_ratio = pl_test_read_h5 (reference, "/position_table/pca_explained_variance_ratio");
  g_autoptr(PlMatrix) ref_proj = pl_test_read_h5 (reference, "/position_table/pca_projection_abs");
  g_autoptr(PlMatrix) ratio = NULL;
  g_autoptr(PlMatrix) proj = NULL;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--components", "16", "--out", out, NULL), ==, 0);
  ratio = pl_test_read_h5 (out, "/explained_variance_ratio");
  proj = pl_test_read_h5 (out, "/projection");
  g_assert_cmpuint (ratio->rows * ratio->cols, ==, 16);
  g_assert_cmpuint (proj->rows, ==, 512);
  g_assert_cmpuint (proj->cols, ==, 16);
  for (guint c = 0; c < 16; c++)
    g_assert_cmpfloat (fabs (ratio->data[c] - ref_ratio->data[c]), <=, 1e-4 * ref_ratio->data[c]);
  for (gsize i = 0; i < 512; i++)
    for (guint c = 0; c < 3; c++)
      g_assert_cmpfloat (fabs (fabs (pl_matrix_get (proj, i, c)) - pl_matrix_get (ref_proj, i, c)), <, 1e-3);
  pl_test_rmtree (dir);
}

/* ---- Figures: poslens-cli writes one when --out ends in .png, .svg or .pdf ---- */

/* The SVG and PDF of a figure draw what its PNG (WIDTH × HEIGHT pt at 144 DPI)
 * shows: both render back (rsvg-convert, pdftoppm) to within anti-aliasing and
 * font rasteriser differences of it. HEATMAP (PNG pixels, or NULL) is left
 * out of the SVG comparison: librsvg 2.54 smooths embedded images whatever
 * their image-rendering says, so there the file's own attribute is checked. */
static void
assert_vectors_match_png (const char              *png,
                          const char              *svg,
                          const char              *pdf,
                          int                      width_pt,
                          int                      height_pt,
                          const cairo_rectangle_t *heatmap)
{
  g_autofree char *dir = g_path_get_dirname (png);
  g_autofree char *svg_png = g_build_filename (dir, "svg-back.png", NULL);
  g_autofree char *pdf_base = g_build_filename (dir, "pdf-back", NULL);
  g_autofree char *pdf_png = g_build_filename (dir, "pdf-back.png", NULL);
  g_autofree char *w = g_strdup_printf ("%d", width_pt * 2);
  g_autofree char *h = g_strdup_printf ("%d", height_pt * 2);
  g_autofree char *pdf_bytes = NULL;
  cairo_surface_t *a, *b, *c;
  double mean, bad;

  g_assert_true (g_file_get_contents (pdf, &pdf_bytes, NULL, NULL));
  g_assert_true (g_str_has_prefix (pdf_bytes, "%PDF-"));
  if (!fig_have_program ("rsvg-convert") || !fig_have_program ("pdftoppm"))
    {
      g_test_message ("rsvg-convert or pdftoppm is not installed: SVG and PDF not rendered back");
      return;
    }
  fig_run ((const char * const[]) { "rsvg-convert", "-w", w, "-h", h, "-o", svg_png, svg, NULL });
  fig_run ((const char * const[]) { "pdftoppm", "-r", "144", "-png", "-singlefile", pdf, pdf_base, NULL });
  a = fig_load_png (png);
  b = fig_load_png (svg_png);
  c = fig_load_png (pdf_png);
  fig_compare_images (a, b, heatmap, &mean, &bad);
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

/* similarity to a PNG: its size is --size × --dpi / 72 pixels, and inside
 * every cell of the heatmap the pixel has the colour map's colour of that
 * cell's value, as the command wrote it to .h5 (the cell under a pixel comes
 * from the renderer's own hit test on the same layout). SVG and PDF draw the same. */
static void
test_similarity_figure (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *h5 = g_build_filename (dir, "sim.h5", NULL);
  g_autofree char *png = g_build_filename (dir, "sim.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "sim.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "sim.pdf", NULL);
  g_autofree char *odd = g_build_filename (dir, "odd.png", NULL);
  g_autofree char *svg_text = NULL;
  const char *table = "builtin:sinusoidal:16x8";
  g_autoptr(PlMatrix) values = NULL;
  g_autoptr(PlFigure) layout = NULL;
  cairo_surface_t *image, *surface;
  cairo_t *cr;
  cairo_rectangle_t area;
  guint32 lut[PL_COLORMAP_N_ENTRIES];
  gboolean seen[16 * 16] = { FALSE };
  double vmin, vmax;
  guint checked = 0;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", table, "--out", h5, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", table, "--size", "300x240", "--dpi", "144",
                                "--colormap", "magma", "--title", "Sinusoid", "--out", png, NULL), ==, 0);
  values = pl_test_read_h5 (h5, "/similarity");
  image = fig_load_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 600);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 480);

  /* The same figure laid out in-process at the PNG's scale, for its geometry. */
  layout = pl_figure_new_heatmap (values, 0);
  pl_figure_set_title (layout, "Sinusoid");
  pl_figure_set_value_label (layout, "Cosine similarity");
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 600, 480);
  cr = cairo_create (surface);
  cairo_scale (cr, 2, 2);
  pl_figure_render (layout, cr, 300, 240);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  pl_figure_get_plot_area (layout, &area);
  pl_figure_get_range (layout, &vmin, &vmax);
  g_assert_cmpfloat (vmax, >, vmin);
  pl_colormap_fill_argb (PL_COLORMAP_MAGMA, FALSE, lut);

  for (int py = (int) (2 * area.y); py < (int) (2 * (area.y + area.height)); py++)
    for (int px = (int) (2 * area.x); px < (int) (2 * (area.x + area.width)); px++)
      {
        double x = (px + 0.5) / 2, y = (py + 0.5) / 2;
        guint col, row, c2, r2;
        double t;
        guint entry;
        guint32 want;
        gboolean interior = pl_figure_hit_cell (layout, x, y, &col, &row);

        /* Only pixels well inside a cell: edges are anti-aliased. */
        for (int dy = -2; dy <= 2 && interior; dy += 4)
          for (int dx = -2; dx <= 2 && interior; dx += 4)
            interior = pl_figure_hit_cell (layout, x + dx, y + dy, &c2, &r2) && c2 == col && r2 == row;
        if (!interior)
          continue;
        t = (pl_matrix_get (values, row, col) - vmin) / (vmax - vmin);
        entry = (guint) CLAMP (floor (t * PL_COLORMAP_N_ENTRIES), 0, PL_COLORMAP_N_ENTRIES - 1);
        want = lut[entry] & 0xffffff;
        /* A value on an entry's edge may round into its neighbour. */
        if (fig_pixel (image, px, py) != want && fabs (t * PL_COLORMAP_N_ENTRIES - round (t * PL_COLORMAP_N_ENTRIES)) < 0.01)
          {
            guint other = t * PL_COLORMAP_N_ENTRIES - entry < 0.5 ? MAX (entry, 1) - 1 : MIN (entry + 1, 255);
            if (fig_pixel (image, px, py) == (lut[other] & 0xffffff))
              want = lut[other] & 0xffffff;
          }
        g_assert_cmphex (fig_pixel (image, px, py), ==, want);
        seen[row * 16 + col] = TRUE;
        checked++;
      }
  for (guint i = 0; i < 16 * 16; i++)
    g_assert_true (seen[i]);
  g_assert_cmpuint (checked, >, 16 * 16 * 50);
  cairo_surface_destroy (image);

  /* Sizes that do not divide: round (250 × 96 / 72) × round (200 × 96 / 72). */
  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", table, "--size", "250x200", "--dpi", "96",
                                "--out", odd, NULL), ==, 0);
  image = fig_load_png (odd);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 333);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 267);
  cairo_surface_destroy (image);

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", table, "--size", "300x240", "--colormap", "magma",
                                "--title", "Sinusoid", "--out", svg, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", table, "--size", "300x240", "--colormap", "magma",
                                "--title", "Sinusoid", "--out", pdf, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, ">Sinusoid</text>"));
  g_assert_nonnull (strstr (svg_text, ">Cosine similarity</text>"));
  g_assert_nonnull (strstr (svg_text, "image-rendering:pixelated"));
  {
    cairo_rectangle_t pixels = { 2 * area.x - 2, 2 * area.y - 2, 2 * area.width + 4, 2 * area.height + 4 };
    assert_vectors_match_png (png, svg, pdf, 300, 240, &pixels);
  }
  pl_test_rmtree (dir);
}

/* pca to a figure: PC1 against PC2 with the explained variance on the axes;
 * 3-D (PC1–PC3) once --azimuth or --elevation is given. */
static void
test_pca_figure (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *h5 = g_build_filename (dir, "pca.h5", NULL);
  g_autofree char *png = g_build_filename (dir, "pca.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "pca.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "pca.pdf", NULL);
  g_autofree char *deep = g_build_filename (dir, "deep.svg", NULL);
  g_autofree char *deep_png = g_build_filename (dir, "deep.png", NULL);
  g_autofree char *text = NULL;
  g_autofree char *deep_text = NULL;
  g_autofree char *pc1 = NULL;
  g_autofree char *pc2 = NULL;
  g_autoptr(PlMatrix) ratio = NULL;
  cairo_surface_t *flat_image, *deep_image;
  double mean, bad;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--out", h5, NULL), ==, 0);
  ratio = pl_test_read_h5 (h5, "/explained_variance_ratio");
  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--size", "320x240", "--dpi", "144", "--out", png,
                                NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--size", "320x240", "--out", svg, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--size", "320x240", "--out", pdf, NULL), ==, 0);
  flat_image = fig_load_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (flat_image), ==, 640);
  g_assert_cmpint (cairo_image_surface_get_height (flat_image), ==, 480);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  pc1 = g_strdup_printf (">PC1 (%.1f %% of variance)</text>", 100 * ratio->data[0]);
  pc2 = g_strdup_printf (">PC2 (%.1f %% of variance)</text>", 100 * ratio->data[1]);
  g_assert_nonnull (strstr (text, pc1));
  g_assert_nonnull (strstr (text, pc2));
  g_assert_null (strstr (text, "azimuth"));
  assert_vectors_match_png (png, svg, pdf, 320, 240, NULL);

  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--azimuth", "30", "--elevation", "20",
                                "--size", "320x240", "--out", deep, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--elevation", "20", "--size", "320x240",
                                "--dpi", "144", "--out", deep_png, NULL), ==, 0);
  g_assert_true (g_file_get_contents (deep, &deep_text, NULL, NULL));
  g_assert_nonnull (strstr (deep_text, ">azimuth 30°, elevation 20°</text>"));
  g_assert_nonnull (strstr (deep_text, ">PC3</text>"));
  deep_image = fig_load_png (deep_png);
  g_assert_cmpint (cairo_image_surface_get_width (deep_image), ==, 640);
  fig_compare_images (flat_image, deep_image, NULL, &mean, &bad);
  g_assert_cmpfloat (bad, >, 0.01);   /* another picture, not the 2-D one */
  cairo_surface_destroy (flat_image);
  cairo_surface_destroy (deep_image);

  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--azimuth", "north", "--out", deep, NULL), ==, 1);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "pca", model, "--dpi", "0", "--out", png, NULL), ==, 1);
  pl_test_rmtree (dir);
}

/* probe --out: the numbers it prints, as a one-row table named after the
 * model; --out must name a figure. */
static void
test_probe_figure (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *slashed = g_strconcat (model, "/", NULL);
  g_autofree char *svg = g_build_filename (dir, "probe.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "probe.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "probe.pdf", NULL);
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autofree char *mae = NULL;
  g_autofree char *rel = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *obj;
  cairo_surface_t *image;

  g_assert_cmpint (pl_test_cli (&out, NULL, "probe", slashed, "--repeats", "2", "--json", "--out", svg, NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  obj = json_node_get_object (json_parser_get_root (parser));
  mae = g_strdup_printf (">%.3f ± %.3f</text>", json_object_get_double_member (obj, "absolute_mae"),
                         json_object_get_double_member (json_object_get_object_member (obj, "absolute"),
                                                        "ci95_half_width"));
  rel = g_strdup_printf (">%.3f ± %.3f</text>", json_object_get_double_member (obj, "relative_error"),
                         json_object_get_double_member (json_object_get_object_member (obj, "relative"),
                                                        "ci95_half_width"));
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, ">mini-roberta</text>"));
  g_assert_nonnull (strstr (text, ">Absolute position, MAE</text>"));
  g_assert_nonnull (strstr (text, mae));
  g_assert_nonnull (strstr (text, rel));

  /* Without --size the table's own size: one row under a header, as wide
   * as its two columns' names, nothing more; with it, as asked. */
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", model, "--seed", "0", "--dpi", "144", "--out", png, NULL), ==, 0);
  image = fig_load_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (image), >, 2 * 200);
  g_assert_cmpint (cairo_image_surface_get_width (image), <, 2 * 432);
  g_assert_cmpint (cairo_image_surface_get_height (image), >, 2 * 30);
  g_assert_cmpint (cairo_image_surface_get_height (image), <, 2 * 90);
  cairo_surface_destroy (image);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", model, "--seed", "0", "--dpi", "144", "--size", "432x90",
                                "--out", png, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", model, "--seed", "0", "--size", "432x90", "--out", pdf,
                                NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", model, "--seed", "0", "--size", "432x90", "--out", svg,
                                NULL), ==, 0);
  assert_vectors_match_png (png, svg, pdf, 432, 90, NULL);

  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", model, "--out", "probe.h5", NULL), ==, 1);
  pl_test_rmtree (dir);
}

/* Usage errors exit 1, unusable input 2, each with one line on stderr. */
static void
test_errors (void)
{
  struct { int status; const char *args[6]; } cases[] = {
    { 1, { "similarity", "builtin:sinusoidal:64x16", NULL } },
    { 1, { "similarity", "builtin:sinusoidal:64x16", "--metric", "jaccard", "--out", "x.h5" } },
    { 1, { "pca", "builtin:sinusoidal:64x16", "--out", "x.txt", NULL } },
    { 1, { "pca", "builtin:sinusoidal:64x16", "--components", "17", "--out", "x.h5" } },
    { 1, { "probe", "builtin:sinusoidal:64x16", "--folds", "random", NULL } },
    { 1, { "probe", "builtin:sinusoidal:64x16", "--protocol", "random", NULL } },
    { 1, { "probe", "builtin:sinusoidal:64x16", "--repeats", "-2", NULL } },
    { 2, { "probe", "builtin:sinusoidal:64x16", "--pairs", "5000", NULL } },
    { 2, { "similarity", "/nonexistent/model.h5", "--out", "x.h5", NULL } },
    { 2, { "pca", "builtin:sinusoidal:64x16", "--rows", "50:70", "--out", "x.h5" } },
    { 2, { "probe", "builtin:alibi:64x4", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      const char **a = cases[i].args;
      int status = pl_test_cli (NULL, &err, a[0], a[1], a[2], a[3], a[4], a[5], NULL);

      g_assert_cmpint (status, ==, cases[i].status);
      g_assert_cmpuint (strlen (err), >, 0);
      g_assert_nonnull (g_str_has_prefix (err, "poslens-cli") ? err : NULL);
      g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
    }
}

/* Refusals name the file, and a similarity too large to make is refused
 * with its size before the table is read. */
static void
test_refusals_name_file (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *tall = g_build_filename (dir, "tall-table.safetensors", NULL);
  g_autofree char *small = g_build_filename (dir, "small-table.safetensors", NULL);
  g_autofree char *out = g_build_filename (dir, "out.h5", NULL);
  g_autofree float *v = pl_test_exact_values (100000, 1);
  const PlTestTensor tall_table = { "position_embeddings", "F32", 2, { 100000, 1 }, v };
  const PlTestTensor small_table = { "position_embeddings", "F32", 2, { 4, 4 }, v };
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *err3 = NULL;

  for (gsize i = 0; i < 100000; i++)
    v[i] = 1.0f + (float) (i % 7);
  pl_test_write_safetensors (tall, &tall_table, 1);
  pl_test_write_safetensors (small, &small_table, 1);

  /* 100000² floats: 37.3 GiB. */
  g_assert_cmpint (pl_test_cli (NULL, &err, "similarity", tall, "--out", out, NULL), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "tall-table.safetensors: the similarity of 100000 positions"));
  g_assert_nonnull (strstr (err, "37.3 GiB"));
  g_assert_nonnull (strstr (err, "--rows"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  /* What --rows leaves is small enough: the same file works. */
  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", tall, "--rows", "0:100", "--out", out, NULL), ==, 0);

  /* An analysis's own refusal names the file too. */
  g_assert_cmpint (pl_test_cli (NULL, &err2, "pca", small, "--components", "8", "--out", out, NULL), ==, 2);
  g_test_message ("%s", err2);
  g_assert_nonnull (strstr (err2, "small-table.safetensors: cannot take 8 components"));
  g_assert_cmpint (pl_test_cli (NULL, &err3, "probe", small, NULL), ==, 2);
  g_test_message ("%s", err3);
  g_assert_nonnull (strstr (err3, "small-table.safetensors: "));
  pl_test_rmtree (dir);
}

/* --layer L takes the layer's positional component (its own tests compare it
 * with Hugging Face's hidden states): the command's answer is the library's,
 * and a layer the model lacks is refused with exit 2. */
static void
test_layer (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *out = g_build_filename (dir, "layer.h5", NULL);
  g_autofree char *err = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, NULL);
  g_autoptr(PlMatrix) component = NULL;
  g_autoptr(PlMatrix) expected = NULL;
  g_autoptr(PlMatrix) sim = NULL;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "similarity", path, "--layer", "2", "--center", "--out", out,
                                NULL), ==, 0);
  sim = pl_test_read_h5 (out, "/similarity");
  component = pl_attention_positional_component (model, 2, 8, 0, 1, NULL, NULL, NULL, NULL);
  g_assert_nonnull (component);
  expected = pl_similarity_compute (component, PL_SIMILARITY_COSINE, TRUE, NULL, NULL);
  g_assert_cmpfloat (pl_test_max_abs_diff (sim, expected), <, 1e-6);
  /* Not the table's answer: the layer changed the positions. */
  {
    g_autoptr(PlMatrix) table = pl_model_read_positions (model, NULL);
    g_autoptr(PlMatrix) table_sim = pl_similarity_compute (table, PL_SIMILARITY_COSINE, TRUE, NULL, NULL);
    g_assert_cmpfloat (pl_test_max_abs_diff (sim, table_sim), >, 0.05);
  }

  g_assert_cmpint (pl_test_cli (NULL, &err, "pca", path, "--layer", "9", "--out", out, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--layer 9"));
  g_assert_null (strchr (g_strstrip (err), '\n'));
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/cli-analyses/similarity", test_similarity);
  g_test_add_func ("/pl/cli-analyses/similarity-formats", test_similarity_formats);
  g_test_add_func ("/pl/cli-analyses/pca", test_pca);
  g_test_add_func ("/pl/cli-analyses/errors", test_errors);
  g_test_add_func ("/pl/cli-analyses/layer", test_layer);
  g_test_add_func ("/pl/cli-analyses/refusals-name-file", test_refusals_name_file);
  g_test_add_func ("/pl/cli-analyses/similarity-figure", test_similarity_figure);
  g_test_add_func ("/pl/cli-analyses/pca-figure", test_pca_figure);
  g_test_add_func ("/pl/cli-analyses/probe-figure", test_probe_figure);
  return g_test_run ();
}
