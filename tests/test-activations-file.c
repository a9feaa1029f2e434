/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-activations-writer.h"
#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-model.h"
#include "pl-rope-profile.h"
#include "pl-test-util.h"

/* An activations file opened like a model: what `forward --stats-out`
 * computed reads back as it was computed (exactly: float32 both ways), the
 * model says it has no weights, and a file that claims the format but
 * breaks the layout is refused with a message naming the file and what is
 * wrong. */

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
  g_autoptr(PlModel) source = pl_model_open (demo, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, &error);
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

  model = pl_model_open (path, NULL, &error);
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
  /* Each layer read alone. */
  for (guint k = 0; k <= 4; k++)
    {
      g_autoptr(PlMatrix) layer = pl_attention_positional_component (model, k, 8, 0, 1, NULL, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (layer, components->pdata[k]), ==, 0);
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
  none = pl_transformer_new (model, &error);
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
 * rotary embeddings writes none. */
static void
test_rotary_round_trip (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "rotary.h5", NULL);
  g_autofree char *folder = pl_test_fixture ("rope", "gpt-neox", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) source = pl_model_open (folder, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, &error);
  g_autoptr(GPtrArray) sequences = random_inputs (transformer, 2, 12);
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

  model = pl_model_open (path, NULL, &error);
  g_assert_no_error (error);
  file = pl_model_get_activations (model);
  g_assert_cmpuint (pl_activations_file_get_n_planes (file), ==, 2);
  g_assert_cmpuint (pl_activations_file_get_n_kv_heads (file), ==, 4);
  read = pl_rope_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (read->n_layers, ==, 2);
  g_assert_cmpuint (read->n_heads, ==, 4);
  g_assert_cmpuint (read->n_planes, ==, 2);
  g_assert_cmpuint (read->n_tokens, ==, 12);
  g_assert_cmpuint (read->n_sequences, ==, 2);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->query_norm, computed->query_norm), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->key_norm, computed->key_norm), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (read->frequency, computed->frequency), ==, 0);
  pl_test_rmtree (dir);
}

typedef enum
{
  BREAK_VERSION,
  BREAK_MISSING,
  BREAK_SHAPE,
  BREAK_HIDDEN,
  BREAK_MAP,
  BREAK_CONFIG,
  BREAK_FREQUENCY,
} Break;

/* A small file of the layout (2 layers, 3 heads, 4 tokens, hidden 5) with
 * one thing broken. */
static void
write_broken (const char *path,
              Break       what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlH5Writer) w = pl_h5_writer_new (path, &error);
  float zeros[1024] = { 0 };
  int ids[8] = { 0 };
  guint64 ids_dims[2] = { 2, 4 };
  guint64 profile_dims[3] = { 2, 3, what == BREAK_SHAPE ? 6 : 7 };
  guint64 head_dims[2] = { 2, 3 };
  guint64 hidden_dims[3] = { what == BREAK_HIDDEN ? 2 : 3, 4, 5 };
  guint64 map_dims[4] = { 2, 3, 4, 3 };

  g_assert_no_error (error);
  g_assert_true (pl_h5_writer_write_int_array (w, "/inputs/input_ids", 2, ids_dims, ids, &error));
  g_assert_true (pl_h5_writer_set_string (w, "/", "format", PL_ACTIVATIONS_FORMAT, &error));
  g_assert_true (pl_h5_writer_set_int (w, "/", "format_version", what == BREAK_VERSION ? 2 : 1, &error));
  g_assert_true (pl_h5_writer_set_string (w, "/", "config", what == BREAK_CONFIG ? "{\"a\": " : "{}", &error));
  g_assert_true (pl_h5_writer_write (w, "/attention/offset_profile", 3, profile_dims, zeros, &error));
  if (what != BREAK_MISSING)
    g_assert_true (pl_h5_writer_write (w, "/attention/mean_distance", 2, head_dims, zeros, &error));
  g_assert_true (pl_h5_writer_write (w, "/attention/first_token_mass", 2, head_dims, zeros, &error));
  g_assert_true (pl_h5_writer_write (w, "/hidden/position_mean", 3, hidden_dims, zeros, &error));
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

static void
test_bad_files (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  const struct { Break what; int code; const char *needle; } cases[] = {
    { BREAK_VERSION, PL_ERROR_UNSUPPORTED, "of version 2; this Poslens reads version 1" },
    { BREAK_MISSING, PL_ERROR_CORRUPT, "an activations file without /attention/mean_distance" },
    { BREAK_SHAPE, PL_ERROR_CORRUPT, "/attention/offset_profile is [2 × 3 × 6], but the other datasets make it [2 × 3 × 7]" },
    { BREAK_HIDDEN, PL_ERROR_CORRUPT, "/hidden/position_mean is [2 × 4 × 5], but the other datasets make it [3 × 4 × 5]" },
    { BREAK_MAP, PL_ERROR_CORRUPT, "/maps/0/attentions is [2 × 3 × 4 × 3]" },
    { BREAK_CONFIG, PL_ERROR_CORRUPT, "the attribute config" },
    { BREAK_FREQUENCY, PL_ERROR_CORRUPT, "/rotary/frequency is [3], but the other datasets make it [4]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("broken-%u.h5", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = NULL;

      write_broken (path, cases[i].what);
      model = pl_model_open (path, NULL, &error);
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
  g_test_add_func ("/pl/activations-file/round-trip", test_round_trip);
  g_test_add_func ("/pl/activations-file/rotary-round-trip", test_rotary_round_trip);
  g_test_add_func ("/pl/activations-file/bad-files", test_bad_files);
  return g_test_run ();
}
