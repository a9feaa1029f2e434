/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-activations-writer.h"
#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-model.h"
#include "pl-pca.h"
#include "pl-position-coordinates.h"
#include "pl-probes.h"
#include "pl-rope-profile.h"
#include "pl-similarity.h"
#include "pl-test-util.h"

/* An activations file opened like a model: what `forward --stats-out`
 * computed reads back as it was computed (exactly: float32 both ways; the
 * positional components of a model wider than its inputs are long as
 * coordinates, and read back to the same similarities, principal
 * components and probes as the rows), the model says it has no weights, and
 * a file that claims the format but breaks the layout is refused with a
 * message naming the file and what is wrong. */

/* The Gram matrix X Xᵀ in double. */
static double *
gram (const PlMatrix *x)
{
  double *g = g_new0 (double, x->rows * x->rows);

  for (gsize i = 0; i < x->rows; i++)
    for (gsize j = 0; j < x->rows; j++)
      for (gsize c = 0; c < x->cols; c++)
        g[i * x->rows + j] += (double) pl_matrix_get (x, i, c) * pl_matrix_get (x, j, c);
  return g;
}

/* max |X Xᵀ − Y Yᵀ| over max |X Xᵀ|: what the coordinates keep of the
 * rows (every dot product, and so every norm). */
static double
gram_error (const PlMatrix *x,
            const PlMatrix *y)
{
  g_autofree double *a = gram (x);
  g_autofree double *b = gram (y);
  double worst = 0, scale = 0;

  g_assert_cmpuint (x->rows, ==, y->rows);
  for (gsize n = 0; n < x->rows * x->rows; n++)
    {
      worst = MAX (worst, fabs (a[n] - b[n]));
      scale = MAX (scale, fabs (a[n]));
    }
  return worst / scale;
}

/* The analyses the views run on a layer give READ (the file's rows) what
 * they give ROWS (the forward pass's own): cosine similarity 1e-5, the first
 * three principal components' projections 1e-4 of the largest (signs
 * included) and ratios of variance 1e-5, both probes' errors 1e-9 (the same
 * predictions: they round or threshold numbers that agree to float32
 * precision), with the same pair count. */
static void
assert_same_analyses (const PlMatrix *read,
                      const PlMatrix *rows)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) sim_read = pl_similarity_compute (read, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_autoptr(PlMatrix) sim_rows = pl_similarity_compute (rows, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_autoptr(PlPca) pca_read = pl_pca_compute (read, 3, NULL, &error);
  g_autoptr(PlPca) pca_rows = pl_pca_compute (rows, 3, NULL, &error);
  PlProbeOptions options;
  PlProbeResult probe_read, probe_rows;

  g_assert_no_error (error);
  g_test_message ("cosine %.3g, projection %.3g of %.3g, ratios %.3g", pl_test_max_abs_diff (sim_read, sim_rows),
                  pl_test_max_abs_diff (pca_read->projection, pca_rows->projection),
                  pl_test_max_abs (pca_rows->projection),
                  pl_test_max_abs_diff (pca_read->explained_variance_ratio, pca_rows->explained_variance_ratio));
  g_assert_cmpfloat (pl_test_max_abs_diff (sim_read, sim_rows), <, 1e-5);
  g_assert_cmpfloat (pl_test_max_abs_diff (pca_read->projection, pca_rows->projection), <,
                     1e-4 * pl_test_max_abs (pca_rows->projection));
  g_assert_cmpfloat (pl_test_max_abs_diff (pca_read->explained_variance_ratio,
                                           pca_rows->explained_variance_ratio), <, 1e-5);
  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  g_assert_true (pl_probe_run (read, &options, &probe_read, NULL, &error));
  g_assert_true (pl_probe_run (rows, &options, &probe_rows, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("probes: absolute %.17g vs %.17g, relative %.17g vs %.17g", probe_read.absolute_mae,
                  probe_rows.absolute_mae, probe_read.relative_error, probe_rows.relative_error);
  g_assert_cmpuint (probe_read.n_pairs, ==, probe_rows.n_pairs);
  g_assert_cmpfloat (fabs (probe_read.absolute_mae - probe_rows.absolute_mae), <, 1e-9);
  g_assert_cmpfloat (fabs (probe_read.relative_error - probe_rows.relative_error), <, 1e-9);
}

static GPtrArray *
random_inputs (PlTransformer *transformer,
               guint          n,
               guint          length)
{
  GPtrArray *sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint s = 0; s < n; s++)
    g_ptr_array_add (sequences, pl_transformer_random_ids (transformer, length, 40 + s));
  return sequences;
}

static void
test_round_trip (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "stats.h5", NULL);
  g_autofree char *demo = pl_test_demo ("mini-bert", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) source = pl_model_open (demo, NULL, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, NULL, &error);
  g_autoptr(GPtrArray) sequences = random_inputs (transformer, 3, 24);
  g_autoptr(GPtrArray) maps = random_inputs (transformer, 1, 10);
  g_autoptr(PlForwardResult) forward = NULL;
  g_autoptr(GPtrArray) components = NULL;
  g_autoptr(PlAttentionStats) computed = NULL;
  g_autoptr(PlAttentionStats) read = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) none = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  PlActivationsFile *file;
  PlActivationsInputs inputs = { "mini-bert", "{\"model_type\": \"bert\", \"vocab_size\": 260}", "test",
                                 sequences, maps, NULL };

  g_assert_no_error (error);
  g_assert_true (pl_activations_write (transformer, &inputs, path, NULL, &error));
  g_assert_no_error (error);
  computed = pl_attention_stats_compute_for_ids (transformer, sequences, NULL, NULL, NULL, &error);
  components = pl_attention_positional_components_for_ids (transformer, 4, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  model = pl_model_open (path, NULL, NULL, &error);
  g_assert_no_error (error);
  file = pl_model_get_activations (model);
  g_assert_nonnull (file);
  g_assert_cmpstr (pl_model_get_name (model), ==, "mini-bert");
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 4);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 4);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 256);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 24);
  g_assert_cmpuint (pl_model_get_vocab_size (model), ==, 260);
  g_assert_false (pl_model_get_causal (model));
  g_assert_cmpuint (pl_activations_file_get_n_sequences (file), ==, 3);
  g_assert_cmpuint (pl_activations_file_get_n_maps (file), ==, 1);
  g_assert_cmpuint (pl_activations_file_get_n_planes (file), ==, 0);

  read = pl_attention_stats_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->offset_profile, computed->offset_profile), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->mean_distance, computed->mean_distance), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->first_token, computed->first_token), ==, 0);
  g_assert_cmpuint (read->n_tokens, ==, 24);
  /* Each layer read alone: 256 wide over 24 positions, kept as their 24
   * coordinates, read back as wide as they were, every dot product within
   * float32 rounding of the rows' own. */
  g_assert_true (pl_activations_file_get_compact (file));
  for (guint k = 0; k <= 4; k++)
    {
      g_autoptr(PlMatrix) layer = pl_attention_positional_component (model, k, 8, 0, 1, NULL, NULL, NULL, &error);
      PlMatrix *rows = components->pdata[k];

      g_assert_no_error (error);
      g_assert_cmpuint (layer->rows, ==, 24);
      g_assert_cmpuint (layer->cols, ==, 256);
      for (guint i = 0; i < 24; i++)
        for (guint j = 24; j < 256; j++)
          g_assert_cmpfloat (pl_matrix_get (layer, i, j), ==, 0);
      g_test_message ("layer %u: Gram %.3g", k, gram_error (layer, rows));
      g_assert_cmpfloat (gram_error (layer, rows), <, 1e-6);
      assert_same_analyses (layer, rows);
    }
  /* A head's map of the kept sentence, read alone. */
  forward = pl_transformer_forward (transformer, (int *) ((GArray *) maps->pdata[0])->data, 10,
                                    PL_FORWARD_ATTENTIONS, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint l = 0; l < 4; l++)
    for (guint h = 0; h < 4; h++)
      {
        g_autoptr(PlMatrix) map = pl_activations_file_read_map (file, 0, l, h, &error);
        g_autoptr(PlMatrix) want = pl_matrix_slice_rows (forward->attentions[l], h * 10, 10);

        g_assert_no_error (error);
        g_assert_cmpfloat (pl_test_max_abs_diff (map, want), ==, 0);
      }
  g_assert_null (pl_attention_positional_component (model, 5, 8, 0, 1, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* No weights: said, with the file's name. */
  g_assert_false (pl_model_has_forward (model));
  none = pl_transformer_new (model, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "not the model's weights"));
  g_clear_error (&error);
  positions = pl_model_read_positions (model, &error);
  g_assert_null (positions);
  g_assert_nonnull (strstr (error->message, "choose a layer"));
  pl_test_rmtree (dir);
}

/* A rotary model's file: its per-plane norms and frequencies read back as
 * pl-rope-profile computed them over the same inputs; a model without
 * rotary embeddings writes none. Its inputs are as long as it is wide (32),
 * so its positional components are kept as they are and read back exactly. */
static void
test_rotary_round_trip (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "rotary.h5", NULL);
  g_autofree char *folder = pl_test_fixture ("rope", "gpt-neox", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) source = pl_model_open (folder, NULL, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, NULL, &error);
  g_autoptr(GPtrArray) sequences = random_inputs (transformer, 2, 32);
  g_autoptr(GPtrArray) components = NULL;
  g_autoptr(PlRopeProfile) computed = NULL;
  g_autoptr(PlRopeProfile) read = NULL;
  g_autoptr(PlModel) model = NULL;
  PlActivationsFile *file;
  PlActivationsInputs inputs = { "gpt-neox", NULL, "test", sequences, NULL, NULL };

  g_assert_no_error (error);
  g_assert_true (pl_activations_write (transformer, &inputs, path, NULL, &error));
  g_assert_no_error (error);
  computed = pl_rope_profile_compute_for_ids (transformer, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  model = pl_model_open (path, NULL, NULL, &error);
  g_assert_no_error (error);
  file = pl_model_get_activations (model);
  g_assert_cmpuint (pl_activations_file_get_n_planes (file), ==, 2);
  g_assert_cmpuint (pl_activations_file_get_n_kv_heads (file), ==, 4);
  read = pl_rope_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (read->n_layers, ==, 2);
  g_assert_cmpuint (read->n_heads, ==, 4);
  g_assert_cmpuint (read->n_planes, ==, 2);
  g_assert_cmpuint (read->n_tokens, ==, 32);
  g_assert_cmpuint (read->n_sequences, ==, 2);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->query_norm, computed->query_norm), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->key_norm, computed->key_norm), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->frequency, computed->frequency), ==, 0);

  g_assert_false (pl_activations_file_get_compact (file));
  components = pl_attention_positional_components_for_ids (transformer, 2, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint k = 0; k <= 2; k++)
    {
      g_autoptr(PlMatrix) layer = pl_activations_file_read_position_mean (file, k, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (layer, components->pdata[k]), ==, 0);
    }
  pl_test_rmtree (dir);
}

/* pl_position_coordinates on 12 rows of 40 (uniform noise around an
 * offset, so every direction of their span carries weight): T coordinates a
 * row, the basis orthonormal (B Bᵀ = I within 1e-6), the coordinates give
 * the rows back (C B = X within 1e-5 of the largest entry), every row's
 * squared norm kept within 1e-6 relative, each coordinate holding at least
 * 1e-3 of the total (so a dropped or zeroed one cannot pass), and the
 * analyses of the padded coordinates are the rows' own. */
static void
test_coordinates (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (25);
  g_autoptr(PlMatrix) x = pl_matrix_new (12, 40);
  g_autoptr(PlMatrix) basis = NULL;
  g_autoptr(PlMatrix) coordinates = NULL;
  g_autoptr(PlMatrix) padded = pl_matrix_new (12, 40);
  g_autoptr(PlMatrix) back = pl_matrix_new (12, 40);
  g_autoptr(GError) error = NULL;
  double total = 0;

  for (gsize n = 0; n < 12 * 40; n++)
    x->data[n] = (float) (g_rand_double_range (rand, -1, 1) + (n % 40 < 5 ? 3.0 : 0.0));
  coordinates = pl_position_coordinates (x, &basis, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (coordinates->rows, ==, 12);
  g_assert_cmpuint (coordinates->cols, ==, 12);
  g_assert_cmpuint (basis->rows, ==, 12);
  g_assert_cmpuint (basis->cols, ==, 40);

  for (guint a = 0; a < 12; a++)
    for (guint b = 0; b < 12; b++)
      {
        double dot = 0;

        for (guint j = 0; j < 40; j++)
          dot += (double) pl_matrix_get (basis, a, j) * pl_matrix_get (basis, b, j);
        g_assert_cmpfloat (fabs (dot - (a == b)), <, 1e-6);
      }
  for (guint i = 0; i < 12; i++)
    for (guint j = 0; j < 40; j++)
      {
        double sum = 0;

        for (guint k = 0; k < 12; k++)
          sum += (double) pl_matrix_get (coordinates, i, k) * pl_matrix_get (basis, k, j);
        pl_matrix_row (back, i)[j] = (float) sum;
      }
  g_assert_cmpfloat (pl_test_max_abs_diff (back, x), <, 1e-5 * pl_test_max_abs (x));

  for (guint i = 0; i < 12; i++)
    {
      double want = 0, got = 0;

      for (guint j = 0; j < 40; j++)
        want += (double) pl_matrix_get (x, i, j) * pl_matrix_get (x, i, j);
      for (guint k = 0; k < 12; k++)
        got += (double) pl_matrix_get (coordinates, i, k) * pl_matrix_get (coordinates, i, k);
      g_assert_cmpfloat (fabs (got - want), <, 1e-6 * want);
      total += want;
    }
  for (guint k = 0; k < 12; k++)
    {
      double column = 0;

      for (guint i = 0; i < 12; i++)
        column += (double) pl_matrix_get (coordinates, i, k) * pl_matrix_get (coordinates, i, k);
      g_assert_cmpfloat (column, >, 1e-3 * total);
    }
  g_assert_cmpfloat (gram_error (coordinates, x), <, 1e-6);

  for (guint i = 0; i < 12; i++)
    memcpy (pl_matrix_row (padded, i), pl_matrix_row (coordinates, i), 12 * sizeof (float));
  assert_same_analyses (padded, x);

  /* A NaN is refused, not factored. */
  x->data[17] = NAN;
  g_assert_null (pl_position_coordinates (x, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

typedef enum
{
  BREAK_NONE,
  BREAK_VERSION,
  BREAK_MISSING,
  BREAK_SHAPE,
  BREAK_HIDDEN,
  BREAK_MAP,
  BREAK_CONFIG,
  BREAK_FREQUENCY,
  /* Version 2's positional components. */
  COMPACT,
  BREAK_BOTH,
  BREAK_NO_HIDDEN_SIZE,
  BREAK_NARROW_HIDDEN_SIZE,
  BREAK_HUGE_HIDDEN_SIZE,
  BREAK_COORDINATES_SHAPE,
  BREAK_MEAN_WIDTH,
} Break;

/* A small file of the layout (2 layers, 3 heads, 4 tokens, hidden 5;
 * version 1 with /hidden/position_mean unless WHAT is one of version 2's)
 * with one thing broken. Entry n of the hidden datasets holds n + 1. */
static void
write_broken (const char *path,
              Break       what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlH5Writer) w = pl_h5_writer_new (path, &error);
  float zeros[1024] = { 0 };
  float counting[1024];
  int ids[8] = { 0 };
  guint64 ids_dims[2] = { 2, 4 };
  guint64 profile_dims[3] = { 2, 3, what == BREAK_SHAPE ? 6 : 7 };
  guint64 head_dims[2] = { 2, 3 };
  guint64 hidden_dims[3] = { what == BREAK_HIDDEN ? 2 : 3, 4, 5 };
  guint64 coordinate_dims[3] = { 3, 4, what == BREAK_COORDINATES_SHAPE ? 5 : 4 };
  guint64 map_dims[4] = { 2, 3, 4, 3 };
  gboolean v2 = what >= COMPACT;
  gboolean coordinates = v2 && what != BREAK_MEAN_WIDTH;
  gboolean mean = !coordinates || what == BREAK_BOTH;
  gint64 hidden_size = what == BREAK_NARROW_HIDDEN_SIZE ? 4 : what == BREAK_HUGE_HIDDEN_SIZE ? 100000
                     : what == BREAK_MEAN_WIDTH ? 6 : 9;

  for (guint n = 0; n < G_N_ELEMENTS (counting); n++)
    counting[n] = (float) (n + 1);
  g_assert_no_error (error);
  g_assert_true (pl_h5_writer_write_int_array (w, "/inputs/input_ids", 2, ids_dims, ids, &error));
  g_assert_true (pl_h5_writer_set_string (w, "/", "format", PL_ACTIVATIONS_FORMAT, &error));
  g_assert_true (pl_h5_writer_set_int (w, "/", "format_version", what == BREAK_VERSION ? 3 : v2 ? 2 : 1, &error));
  g_assert_true (pl_h5_writer_set_string (w, "/", "config", what == BREAK_CONFIG ? "{\"a\": " : "{}", &error));
  if (v2 && what != BREAK_NO_HIDDEN_SIZE)
    g_assert_true (pl_h5_writer_set_int (w, "/", "hidden_size", hidden_size, &error));
  g_assert_true (pl_h5_writer_write (w, "/attention/offset_profile", 3, profile_dims, zeros, &error));
  if (what != BREAK_MISSING)
    g_assert_true (pl_h5_writer_write (w, "/attention/mean_distance", 2, head_dims, zeros, &error));
  g_assert_true (pl_h5_writer_write (w, "/attention/first_token_mass", 2, head_dims, zeros, &error));
  if (mean)
    g_assert_true (pl_h5_writer_write (w, "/hidden/position_mean", 3, hidden_dims, counting, &error));
  if (coordinates)
    g_assert_true (pl_h5_writer_write (w, "/hidden/position_coordinates", 3, coordinate_dims, counting, &error));
  if (what == BREAK_FREQUENCY)
    {
      guint64 norm_dims[3] = { 2, 3, 4 };
      guint64 frequency_dims[1] = { 3 };

      g_assert_true (pl_h5_writer_write (w, "/rotary/query_norm", 3, norm_dims, zeros, &error));
      g_assert_true (pl_h5_writer_write (w, "/rotary/key_norm", 3, norm_dims, zeros, &error));
      g_assert_true (pl_h5_writer_write (w, "/rotary/frequency", 1, frequency_dims, zeros, &error));
    }
  if (what == BREAK_MAP)
    g_assert_true (pl_h5_writer_write (w, "/maps/0/attentions", 4, map_dims, zeros, &error));
  g_assert_true (pl_h5_writer_finish (w, &error));
  g_assert_no_error (error);
}

/* Both versions open: version 1's rows (as 0.2.0 wrote them) read as they
 * are, version 2's coordinates as [coordinates, 0], hidden_size wide. */
static void
test_versions (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  const Break kinds[] = { BREAK_NONE, COMPACT };

  for (guint v = 0; v < G_N_ELEMENTS (kinds); v++)
    {
      g_autofree char *path = g_build_filename (dir, v ? "v2.h5" : "v1.h5", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = NULL;
      g_autoptr(PlMatrix) layer = NULL;
      PlActivationsFile *file;
      guint width = v ? 4 : 5;

      write_broken (path, kinds[v]);
      model = pl_model_open (path, NULL, NULL, &error);
      g_assert_no_error (error);
      file = pl_model_get_activations (model);
      g_assert_cmpuint (pl_activations_file_get_format_version (file), ==, v + 1);
      g_assert_cmpint (pl_activations_file_get_compact (file), ==, v == 1);
      g_assert_cmpuint (pl_activations_file_get_hidden_size (file), ==, v ? 9 : 5);
      g_assert_cmpuint (pl_model_get_hidden_size (model), ==, v ? 9 : 5);
      layer = pl_activations_file_read_position_mean (file, 2, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (layer->rows, ==, 4);
      g_assert_cmpuint (layer->cols, ==, v ? 9 : 5);
      for (guint i = 0; i < 4; i++)
        for (guint j = 0; j < layer->cols; j++)
          g_assert_cmpfloat (pl_matrix_get (layer, i, j), ==, j < width ? (float) ((2 * 4 + i) * width + j + 1) : 0);
    }
  pl_test_rmtree (dir);
}

static void
test_bad_files (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  const struct { Break what; int code; const char *needle; } cases[] = {
    { BREAK_VERSION, PL_ERROR_UNSUPPORTED, "of version 3; this Poslens reads versions up to 2" },
    { BREAK_MISSING, PL_ERROR_CORRUPT, "an activations file without /attention/mean_distance" },
    { BREAK_SHAPE, PL_ERROR_CORRUPT, "/attention/offset_profile is [2 × 3 × 6], but the other datasets make it [2 × 3 × 7]" },
    { BREAK_HIDDEN, PL_ERROR_CORRUPT, "/hidden/position_mean is [2 × 4 × 5], but the other datasets make it [3 × 4 × 5]" },
    { BREAK_MAP, PL_ERROR_CORRUPT, "/maps/0/attentions is [2 × 3 × 4 × 3]" },
    { BREAK_CONFIG, PL_ERROR_CORRUPT, "the attribute config" },
    { BREAK_FREQUENCY, PL_ERROR_CORRUPT, "/rotary/frequency is [3], but the other datasets make it [4]" },
    { BREAK_BOTH, PL_ERROR_CORRUPT, "holds both /hidden/position_mean and /hidden/position_coordinates" },
    { BREAK_NO_HIDDEN_SIZE, PL_ERROR_CORRUPT, "/hidden/position_coordinates needs the attribute hidden_size, above the 4 positions" },
    { BREAK_NARROW_HIDDEN_SIZE, PL_ERROR_CORRUPT, "/hidden/position_coordinates needs the attribute hidden_size, above the 4 positions" },
    { BREAK_HUGE_HIDDEN_SIZE, PL_ERROR_CORRUPT, "the attribute hidden_size is “100000”, not a size from 1 to 65536" },
    { BREAK_COORDINATES_SHAPE, PL_ERROR_CORRUPT, "/hidden/position_coordinates is [3 × 4 × 5], but the other datasets make it [3 × 4 × 4]" },
    { BREAK_MEAN_WIDTH, PL_ERROR_CORRUPT, "the attribute hidden_size is 6, but /hidden/position_mean's rows are 5 wide" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("broken-%u.h5", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = NULL;

      write_broken (path, cases[i].what);
      model = pl_model_open (path, NULL, NULL, &error);
      g_assert_null (model);
      g_assert_nonnull (error);
      if (!g_error_matches (error, PL_ERROR, cases[i].code) || strstr (error->message, cases[i].needle) == NULL ||
          strstr (error->message, path) == NULL)
        g_error ("case %u: %s", i, error->message);
    }
  pl_test_rmtree (dir);
}

int
main (int    argc,
      char **argv)
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/activations-file/coordinates", test_coordinates);
  g_test_add_func ("/pl/activations-file/round-trip", test_round_trip);
  g_test_add_func ("/pl/activations-file/rotary-round-trip", test_rotary_round_trip);
  g_test_add_func ("/pl/activations-file/versions", test_versions);
  g_test_add_func ("/pl/activations-file/bad-files", test_bad_files);
  return g_test_run ();
}
