/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "pl-encodings.h"
#include "pl-error.h"
#include "pl-grid.h"
#include "pl-model.h"
#include "pl-paths.h"
#include "pl-pca.h"
#include "pl-similarity.h"
#include "pl-test-util.h"

/* Vision transformers against tests/fixtures/vision (make-vision.py): tiny
 * checkpoints of each family with Hugging Face's names and configs, and
 * what numpy and torch compute on their tables. */

typedef struct
{
  const char *name;
  PlFamily    family;
  guint       rows;
  guint       cols;
  guint       special;
  const char *special_names[2];
} VisionFixture;

static const VisionFixture fixtures[] = {
  { "vit", PL_FAMILY_VIT, 4, 4, 1, { "CLS" } },
  { "vit-tf", PL_FAMILY_VIT, 4, 4, 1, { "CLS" } },
  { "vit-wide", PL_FAMILY_VIT, 2, 5, 1, { "CLS" } },
  { "deit", PL_FAMILY_DEIT, 3, 3, 2, { "CLS", "distillation" } },
  { "dinov2", PL_FAMILY_DINOV2, 5, 5, 1, { "CLS" } },
  { "dinov2-bare", PL_FAMILY_DINOV2, 5, 5, 1, { "CLS" } },
  { "clip", PL_FAMILY_CLIP_VISION, 5, 5, 1, { "CLS" } },
  { "siglip", PL_FAMILY_SIGLIP_VISION, 4, 4, 0, { NULL } },
};

/* The family, the grid and the special rows each checkpoint's names and
 * config give; the patches are the rows after the special ones, exactly,
 * and the special rows never among them. */
static void
test_families (gconstpointer data)
{
  const VisionFixture *f = data;
  g_autoptr(PlModel) model = pl_test_open_vision (f->name);
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) expected = pl_test_vision_reference (f->name, "patches");
  g_autoptr(GError) error = NULL;
  guint rows = 0, cols = 0;

  g_assert_cmpint (pl_model_get_family (model), ==, f->family);
  g_assert_true (pl_model_get_grid (model, &rows, &cols));
  g_assert_cmpuint (rows, ==, f->rows);
  g_assert_cmpuint (cols, ==, f->cols);
  g_assert_true (pl_model_require_grid (model, NULL, NULL, &error));
  g_assert_cmpuint (pl_model_get_n_special_rows (model), ==, f->special);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, f->special);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, f->rows * f->cols);
  for (guint i = 0; i < f->special; i++)
    g_assert_cmpstr (pl_model_get_special_row_name (model, i), ==, f->special_names[i]);

  patches = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (patches->rows, ==, f->rows * f->cols);
  g_assert_cmpfloat (pl_test_max_abs_diff (patches, expected), ==, 0.0);

  if (f->special > 0)
    {
      g_autoptr(PlMatrix) special = pl_model_read_special_rows (model, &error);
      g_autoptr(PlMatrix) expected_special = pl_test_vision_reference (f->name, "special");

      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (special, expected_special), ==, 0.0);
      /* No special row is any patch's row. */
      for (gsize s = 0; s < special->rows; s++)
        for (gsize p = 0; p < patches->rows; p++)
          g_assert_false (memcmp (pl_matrix_row (special, s), pl_matrix_row (patches, p),
                                  special->cols * sizeof (float)) == 0);
    }
  else
    {
      g_autoptr(PlMatrix) none = pl_model_read_special_rows (model, &error);

      g_assert_null (none);
      g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
    }
}

/* The grid of grids' values: patch i's small map is row i of the cosine
 * similarity of the patches, against numpy's in float64. */
static void
test_cosine (gconstpointer data)
{
  const VisionFixture *f = data;
  g_autoptr(PlModel) model = pl_test_open_vision (f->name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) patches = pl_model_read_positions (model, &error);
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlMatrix) expected = pl_test_vision_reference (f->name, "cosine");

  g_assert_no_error (error);
  cosine = pl_similarity_compute (patches, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (cosine, expected), <, 1e-6);
}

/* The first three principal components as colours, scaled to [0, 1], against
 * numpy's SVD in float64. */
static void
test_pca_colors (gconstpointer data)
{
  const VisionFixture *f = data;
  g_autoptr(PlModel) model = pl_test_open_vision (f->name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) patches = pl_model_read_positions (model, &error);
  g_autoptr(PlPca) pca = NULL;
  g_autoptr(PlMatrix) rgb = NULL;
  g_autoptr(PlMatrix) expected = pl_test_vision_reference (f->name, "pca_rgb");

  g_assert_no_error (error);
  pca = pl_pca_compute (patches, 3, NULL, &error);
  g_assert_no_error (error);
  rgb = pl_grid_pca_colors (pca);
  g_assert_cmpuint (rgb->rows, ==, f->rows * f->cols);
  g_assert_cmpuint (rgb->cols, ==, 3);
  g_assert_cmpfloat (pl_test_max_abs_diff (rgb, expected), <, 1e-5);
}

typedef struct
{
  const char *fixture;
  guint       rows;
  guint       cols;
} Interpolation;

/* As make-vision.py's INTERPOLATIONS. */
static const Interpolation interpolations[] = {
  { "vit", 6, 6 }, { "vit", 3, 3 }, { "vit", 5, 7 }, { "vit", 4, 4 }, { "vit", 1, 2 },
  { "vit-wide", 4, 10 }, { "vit-wide", 3, 3 },
  { "deit", 5, 5 }, { "dinov2", 8, 8 }, { "dinov2", 2, 2 }, { "clip", 7, 7 }, { "siglip", 6, 6 },
  { "siglip", 9, 5 },
};

static const VisionFixture *
find_fixture (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    if (g_str_equal (fixtures[i].name, name))
      return &fixtures[i];
  g_assert_not_reached ();
}

/* The table at another grid, special rows in front, against torch's
 * F.interpolate with the arguments each version of HF's code passes. */
static void
test_interpolate (void)
{
  double worst[2] = { 0, 0 };

  for (guint i = 0; i < G_N_ELEMENTS (interpolations); i++)
    for (PlGridResample r = PL_GRID_RESAMPLE_SIZE; r <= PL_GRID_RESAMPLE_TENTH; r++)
      {
        const Interpolation *c = &interpolations[i];
        const VisionFixture *f = find_fixture (c->fixture);
        g_autoptr(PlModel) model = pl_test_open_vision (f->name);
        g_autoptr(GError) error = NULL;
        g_autoptr(PlMatrix) patches = pl_model_read_positions (model, &error);
        g_autoptr(PlMatrix) resized = NULL;
        g_autoptr(PlMatrix) expected = NULL;
        g_autoptr(PlMatrix) expected_patches = NULL;
        g_autofree char *name = g_strdup_printf ("%s-%ux%u-%s", c->fixture, c->rows, c->cols,
                                                 pl_grid_resample_to_string (r));
        double diff, scale = 0;

        g_assert_no_error (error);
        resized = pl_grid_interpolate (patches, f->rows, f->cols, c->rows, c->cols, r, NULL, &error);
        g_assert_no_error (error);
        expected = pl_test_vision_reference ("interpolate", name);
        g_assert_cmpuint (expected->rows, ==, f->special + c->rows * c->cols);
        expected_patches = pl_matrix_slice_rows (expected, f->special, c->rows * c->cols);
        for (gsize k = 0; k < expected->rows * expected->cols; k++)
          scale = MAX (scale, fabs (expected->data[k]));
        diff = pl_test_max_abs_diff (resized, expected_patches);
        g_test_message ("%s: largest difference from torch %.3g (values up to %.3g)", name, diff, scale);
        /* float32 rounding in another order of operations than torch's */
        g_assert_cmpfloat (diff, <=, 16 * FLT_EPSILON * scale);
        worst[r] = MAX (worst[r], diff / scale);
        /* The grid it was trained at: the table itself. */
        if (c->rows == f->rows && c->cols == f->cols && f->rows == f->cols)
          g_assert_cmpfloat (diff, ==, 0.0);
      }
  g_test_message ("largest difference from torch relative to the largest value: size %.3g, tenth %.3g",
                  worst[0], worst[1]);
}

/* MAE's get_2d_sincos_pos_embed, as numpy computes it in float64. */
static void
test_sincos2d (void)
{
  static const struct { const char *spec, *dataset; } cases[] = {
    { "builtin:sincos2d:4x4x8", "4x4x8" },
    { "builtin:sincos2d:3x5x16:100", "3x5x16-100" },
    { "builtin:sincos2d:14x14x64", "14x14x64" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = pl_model_open (cases[i].spec, NULL, NULL, &error);
      g_autoptr(PlMatrix) table = NULL;
      g_autoptr(PlMatrix) expected = pl_test_vision_reference ("sincos2d", cases[i].dataset);
      guint rows, cols;

      g_assert_no_error (error);
      g_assert_true (pl_model_get_grid (model, &rows, &cols));
      g_assert_cmpuint (rows * cols, ==, expected->rows);
      g_assert_cmpuint (pl_model_get_n_special_rows (model), ==, 0);
      table = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (table, expected), <, 1e-6);
    }
}

static void
test_sincos2d_refusals (void)
{
  static const char * const bad[] = {
    "builtin:sincos2d:4x4x6",        /* not a multiple of 4 */
    "builtin:sincos2d:4x4",          /* no width */
    "builtin:sincos2d:0x4x8",
    "builtin:sincos2d:4x4x8:1",      /* base ≤ 1 */
    "builtin:sincos2d:5000x4x8",     /* a side past the limit */
    "builtin:sincos2d:4x4x8:10:1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = pl_model_open (bad[i], NULL, NULL, &error);

      g_assert_null (model);
      g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, bad[i]));
    }
}

/* A copy of fixture NAME in a temporary folder, with CONFIG as its
 * config.json (NULL: none). */
static char *
copy_fixture (const char *name,
              const char *weights,
              const char *config)
{
  g_autofree char *source = pl_test_fixture ("vision", name, weights, NULL);
  char *dir = pl_test_tmpdir ();
  g_autofree char *target = g_build_filename (dir, weights, NULL);
  g_autofree char *contents = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (target, contents, length, NULL));
  if (config != NULL)
    {
      g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);

      g_assert_true (g_file_set_contents (config_path, config, -1, NULL));
    }
  return dir;
}

/* A grid that config.json and the table disagree on, or that neither tells,
 * is refused by name; the 1-D views still open the table. */
static void
test_grid_problems (void)
{
  static const struct { const char *fixture, *weights, *config, *expect; } cases[] = {
    { "vit", "model.safetensors", "{\"model_type\": \"vit\", \"image_size\": 48, \"patch_size\": 8}",
      "config.json: image_size 48×48 in patches of 8×8 makes a 6 × 6 grid" },
    { "vit-wide", "model.safetensors", NULL, "are not a square number" },
    { "vit-wide", "model.safetensors", "{\"model_type\": \"vit\", \"image_size\": [16, 40]}",
      "are not a square number" },
    { "clip", "model.safetensors",
      "{\"model_type\": \"clip\", \"vision_config\": {\"image_size\": 40, \"patch_size\": 10}}",
      "makes a 4 × 4 grid, but the 26 rows" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = copy_fixture (cases[i].fixture, cases[i].weights, cases[i].config);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
      g_autoptr(PlMatrix) positions = NULL;

      g_assert_no_error (error);
      g_assert_false (pl_model_get_grid (model, NULL, NULL));
      g_assert_false (pl_model_require_grid (model, NULL, NULL, &error));
      g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].expect));
      g_assert_nonnull (strstr (error->message, dir));
      g_clear_error (&error);
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      pl_test_rmtree (dir);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PlModel) model = pl_model_open ("builtin:sinusoidal:64x16", NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_false (pl_model_require_grid (model, NULL, NULL, &error));
    g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
    g_assert_cmpuint (pl_model_get_n_special_rows (model), ==, 0);
  }
}

/* Without config.json's model_type, the marker tensors tell the families
 * apart; a model_type names the family whatever the markers say. */
static void
test_model_type (void)
{
  g_autofree char *dir = copy_fixture ("vit", "model.safetensors",
                                       "{\"model_type\": \"deit\", \"image_size\": 32, \"patch_size\": 8}");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_no_error (error);
  /* Named DeiT, so two special rows: 17 rows leave 15 patches, no 4 × 4 grid. */
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_DEIT);
  g_assert_cmpuint (pl_model_get_n_special_rows (model), ==, 2);
  g_assert_false (pl_model_get_grid (model, NULL, NULL));
  pl_test_rmtree (dir);
}

/* Ranks of X (1 … N, ties sharing the mean of theirs), as scipy.stats.rankdata. */
static const double *rank_values;

static int
compare_ranked (const void *a,
                const void *b)
{
  double x = rank_values[*(const guint *) a], y = rank_values[*(const guint *) b];

  return (x > y) - (x < y);
}

static double *
average_ranks (const double *x,
               guint         n)
{
  g_autofree guint *order = g_new (guint, n);
  double *ranks = g_new (double, n);

  for (guint i = 0; i < n; i++)
    order[i] = i;
  rank_values = x;
  qsort (order, n, sizeof (guint), compare_ranked);
  for (guint start = 0, end; start < n; start = end)
    {
      for (end = start + 1; end < n && x[order[end]] == x[order[start]]; end++)
        ;
      for (guint k = start; k < end; k++)
        ranks[order[k]] = (start + 1 + end) / 2.0;
    }
  return ranks;
}

static double
pearson (const double *a,
         const double *b,
         guint         n)
{
  double ma = 0, mb = 0, ab = 0, aa = 0, bb = 0;

  for (guint i = 0; i < n; i++)
    {
      ma += a[i] / n;
      mb += b[i] / n;
    }
  for (guint i = 0; i < n; i++)
    {
      ab += (a[i] - ma) * (b[i] - mb);
      aa += (a[i] - ma) * (a[i] - ma);
      bb += (b[i] - mb) * (b[i] - mb);
    }
  return ab / sqrt (aa * bb);
}

/* The README's measure of the demo's 2-D structure: Spearman's rho over
 * every pair of distinct patches between their distance in the grid and
 * the cosine similarity Poslens shows for them. */
static double
grid_spearman (const PlMatrix *cosine,
               guint           rows,
               guint           cols)
{
  guint n = rows * cols, n_pairs = n * (n - 1) / 2, k = 0;
  g_autofree double *distance = g_new (double, n_pairs);
  g_autofree double *similarity = g_new (double, n_pairs);
  g_autofree double *distance_ranks = NULL;
  g_autofree double *similarity_ranks = NULL;

  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++, k++)
      {
        distance[k] = hypot ((double) (i / cols) - (double) (j / cols), (double) (i % cols) - (double) (j % cols));
        similarity[k] = pl_matrix_get (cosine, i, j);
      }
  distance_ranks = average_ranks (distance, n_pairs);
  similarity_ranks = average_ranks (similarity, n_pairs);
  return pearson (distance_ranks, similarity_ranks, n_pairs);
}

/* The vision demo (data/demo/mini-vit, trained by make-mini-vit.py) is
 * listed among the demos and opens by name as a ViT on an 8 × 8 grid; its
 * grid of grids and principal colours equal numpy's on the shipped table
 * (tests/fixtures/vision/mini-vit.h5, make-mini-vit-reference.py), and the
 * README states the Spearman rho Poslens's cosines give, which equals
 * scipy's. */
static void
test_demo (void)
{
  g_autofree char *reference = pl_test_fixture ("vision", "mini-vit.h5", NULL);
  g_autofree char *readme_path = g_test_build_filename (G_TEST_DIST, "..", "README.md", NULL);
  g_autofree char *readme = NULL;
  g_autofree char *stated = NULL;
  g_auto(GStrv) demos = pl_paths_list_demo_models ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("mini-vit", NULL, NULL, &error);
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlPca) pca = NULL;
  g_autoptr(PlMatrix) rgb = NULL;
  g_autoptr(PlMatrix) expected_patches = pl_test_read_h5 (reference, "/patches");
  g_autoptr(PlMatrix) expected_cosine = pl_test_read_h5 (reference, "/cosine");
  g_autoptr(PlMatrix) expected_rgb = pl_test_read_h5 (reference, "/pca_rgb");
  double expected_rho = pl_test_read_h5_scalar (reference, "/spearman");
  guint rows = 0, cols = 0, n_demos = g_strv_length (demos);
  double rho;

  g_assert_cmpuint (n_demos, >, 0);
  g_assert_true (g_str_has_suffix (demos[n_demos - 1], G_DIR_SEPARATOR_S "mini-vit"));

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_VIT);
  g_assert_true (pl_model_get_grid (model, &rows, &cols));
  g_assert_cmpuint (rows, ==, 8);
  g_assert_cmpuint (cols, ==, 8);
  g_assert_cmpuint (pl_model_get_n_special_rows (model), ==, 1);

  patches = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (patches, expected_patches), ==, 0.0);
  cosine = pl_similarity_compute (patches, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (cosine, expected_cosine), <, 1e-6);
  pca = pl_pca_compute (patches, 3, NULL, &error);
  g_assert_no_error (error);
  rgb = pl_grid_pca_colors (pca);
  g_assert_cmpfloat (pl_test_max_abs_diff (rgb, expected_rgb), <, 1e-5);

  rho = grid_spearman (cosine, rows, cols);
  g_test_message ("Spearman rho: %.6f here, %.6f by scipy", rho, expected_rho);
  g_assert_cmpfloat (fabs (rho - expected_rho), <, 1e-6);
  g_assert_cmpfloat (rho, <, -0.5);
  g_assert_true (g_file_get_contents (readme_path, &readme, NULL, NULL));
  stated = g_strdup_printf ("ρ = −%.2f", -rho);
  g_assert_nonnull (strstr (readme, stated));
}

/* poslens-cli info --json: "grid" and "special_rows". */
static void
test_info_json (gconstpointer data)
{
  const VisionFixture *f = data;
  g_autofree char *path = pl_test_fixture ("vision", f->name, NULL);
  const char *argv[] = { g_getenv ("POSLENS_CLI"), "info", path, "--json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *grid, *names;
  int status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  grid = json_object_get_array_member (root, "grid");
  g_assert_cmpuint (json_array_get_length (grid), ==, 2);
  g_assert_cmpint (json_array_get_int_element (grid, 0), ==, f->rows);
  g_assert_cmpint (json_array_get_int_element (grid, 1), ==, f->cols);
  g_assert_cmpint (json_object_get_int_member (root, "special_rows"), ==, f->special);
  names = json_object_get_array_member (root, "special_tokens");
  g_assert_cmpuint (json_array_get_length (names), ==, f->special);
  for (guint i = 0; i < f->special; i++)
    g_assert_cmpstr (json_array_get_string_element (names, i), ==, f->special_names[i]);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *families = g_strdup_printf ("/pl/vision/families/%s", fixtures[i].name);
      g_autofree char *cosine = g_strdup_printf ("/pl/vision/cosine/%s", fixtures[i].name);
      g_autofree char *pca = g_strdup_printf ("/pl/vision/pca-colors/%s", fixtures[i].name);
      g_autofree char *info = g_strdup_printf ("/pl/vision/info-json/%s", fixtures[i].name);

      g_test_add_data_func (families, &fixtures[i], test_families);
      g_test_add_data_func (cosine, &fixtures[i], test_cosine);
      g_test_add_data_func (pca, &fixtures[i], test_pca_colors);
      g_test_add_data_func (info, &fixtures[i], test_info_json);
    }
  g_test_add_func ("/pl/vision/interpolate", test_interpolate);
  g_test_add_func ("/pl/vision/sincos2d", test_sincos2d);
  g_test_add_func ("/pl/vision/sincos2d-refusals", test_sincos2d_refusals);
  g_test_add_func ("/pl/vision/grid-problems", test_grid_problems);
  g_test_add_func ("/pl/vision/model-type", test_model_type);
  g_test_add_func ("/pl/vision/demo", test_demo);

  return g_test_run ();
}
