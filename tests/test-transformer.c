/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-transformer.h"
#include "pl-test-util.h"
#include "pl-test-transformer.h"

/* The encoders' forward passes against Hugging Face's references: from the
 * fixtures' raw weights, through PlModel and through poslens-cli forward;
 * RoBERTa's padding positions; families and settings without a forward
 * pass refused by name. Running a pass (cancelling, progress, threads,
 * inputs) is test-transformer-run.c, the kernels test-transformer-kernels.c,
 * other families' names for the same weights test-transformer-renamed.c. */

static void
test_raw (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);

  pl_test_transformer_check_reference (t, fx->name);
}

/* The same references through PlModel: the checkpoint reader, config.json
 * and the tokenizer's special ids, as the app and the CLI use them. */
static void
test_model (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autofree char *dir = pl_test_demo (fx->name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GArray) ids = NULL;
  const PlTransformerConfig *c;

  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  c = pl_transformer_get_config (t);
  g_assert_cmpuint (c->n_heads, ==, fx->config.n_heads);
  g_assert_cmpfloat (c->layer_norm_eps, ==, fx->config.layer_norm_eps);
  g_assert_cmpint (c->activation, ==, fx->config.activation);
  g_assert_cmpuint (c->first_position, ==, fx->config.first_position);
  g_assert_cmpint (c->causal, ==, fx->config.causal);
  pl_test_transformer_check_reference (t, fx->name);

  /* Random inputs as the references were made: bytes (ids 4 … 259), with
   * [CLS]/<s> first and [SEP]/</s> last for the masked-LM models. */
  ids = pl_transformer_random_ids (t, 200, 5);
  for (guint i = 0; i < ids->len; i++)
    {
      int id = g_array_index (ids, int, i);

      if (!c->causal && i == 0)
        g_assert_cmpint (id, ==, fx->config.bos_id);
      else if (!c->causal && i + 1 == ids->len)
        g_assert_cmpint (id, ==, fx->config.eos_id);
      else
        g_assert_cmpint (id, >=, 4);
    }
}

/* Families without a forward pass are refused by name. */
static void
test_unsupported (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:sinusoidal:64x32", NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_null (pl_transformer_new (model, NULL, &error));
  g_assert_nonnull (error);
}

/* A BERT configured with relative position embeddings (distances added
 * inside attention) is refused, naming its config.json; its table still
 * opens for the table analyses. */
static void
test_relative_positions_refused (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *weights = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autofree char *config_path = pl_test_demo ("mini-bert", "config.json", NULL);
  g_autofree char *copy = g_build_filename (dir, "tf_model.h5", NULL);
  g_autofree char *copy_config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *config = NULL;
  g_autofree char *data = NULL;
  g_autofree char *edited = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(GError) error = NULL;
  gsize size;

  g_file_get_contents (weights, &data, &size, &error);
  g_assert_no_error (error);
  g_file_set_contents (copy, data, size, &error);
  g_assert_no_error (error);
  g_file_get_contents (config_path, &config, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strchr (config, '{'));
  edited = g_strdup_printf ("{\"position_embedding_type\": \"relative_key\", %s", strchr (config, '{') + 1);
  g_file_set_contents (copy_config, edited, -1, &error);
  g_assert_no_error (error);

  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_null (pl_transformer_new (model, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "config.json"));
  g_assert_nonnull (strstr (error->message, "relative_key"));
  pl_test_rmtree (dir);
}

/* poslens-cli forward writes Hugging Face's layout, streamed layer by layer,
 * within the same tolerances. */
static void
test_cli_forward (void)
{
  g_autofree char *dir = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *ref = pl_test_fixture ("mini-roberta", "reference.h5", NULL);
  g_autofree char *ids_from = g_strdup_printf ("%s:/hf/random/input_ids", ref);
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (tmp, "forward.h5", NULL);
  g_autofree char *bad = g_build_filename (tmp, "forward.txt", NULL);
  const char *args[] = { "forward", dir, "--ids-from", ids_from, "--out", out, NULL };
  const char *usage1[] = { "forward", dir, "--random", "8", "--ids", "1,2", "--out", out, NULL };
  const char *usage2[] = { "forward", dir, "--random", "8", "--out", bad, NULL };
  const char *input1[] = { "forward", dir, "--ids", "0,300,2", "--out", out, NULL };
  const char *input2[] = { "forward", dir, "--ids-from", "/nonexistent.h5:/ids", "--out", out, NULL };
  const char *random[] = { "forward", dir, "--random", "20", "--seed", "4", "--period", "5",
                           "--no-attentions", "--out", out, NULL };

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set (run through meson test)");
      return;
    }
  g_assert_cmpint (pl_test_run_cli (args), ==, 0);
  {
    g_autoptr(PlMatrix) att = pl_test_read_h5 (out, "/attentions");
    g_autoptr(PlMatrix) hid = pl_test_read_h5 (out, "/hidden_states");
    g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (ref, "/hf/random/attentions");
    g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (ref, "/hf/random/hidden_states");

    g_assert_cmpfloat (pl_test_max_abs_diff (att, ref_att), <, 1e-4);
    g_assert_cmpfloat (pl_test_max_abs_diff (hid, ref_hid), <, 1e-3);
  }
  g_assert_cmpint (pl_test_run_cli (random), ==, 0);
  {
    g_autoptr(PlMatrix) ids = pl_test_read_h5 (out, "/input_ids");
    g_autoptr(PlMatrix) hid = pl_test_read_h5 (out, "/hidden_states");

    g_assert_cmpuint (ids->cols, ==, 20);
    g_assert_cmpfloat (ids->data[0], ==, 0);     /* <s> */
    g_assert_cmpfloat (ids->data[19], ==, 2);    /* </s> */
    for (guint i = 6; i < 19; i++)
      g_assert_cmpfloat (ids->data[i], ==, ids->data[i - 5]);
    g_assert_cmpuint (hid->rows, ==, 5 * 20);
  }
  g_assert_cmpint (pl_test_run_cli (usage1), ==, 1);
  g_assert_cmpint (pl_test_run_cli (usage2), ==, 1);
  g_assert_cmpint (pl_test_run_cli (input1), ==, 2);
  g_assert_cmpint (pl_test_run_cli (input2), ==, 2);
  pl_test_rmtree (tmp);
}

/* RoBERTa numbers positions over non-padding tokens from pad + 1 and gives
 * padding the padding row (Hugging Face's create_position_ids_from_input_ids):
 * ids <s> a <pad> b </s> use rows 2 3 1 4 5. Checked on the embedding output,
 * LayerNorm(word + position + type 0) recomputed here in double. */
static void
test_roberta_padding_positions (void)
{
  const PlTestFixture *fx = &pl_test_fixtures[2];
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autofree char *prefix = g_strdup (fx->prefix);
  g_autofree char *word_path = g_strdup_printf ("%s/embeddings/word_embeddings/weight:0", prefix);
  g_autofree char *pos_path = g_strdup_printf ("%s/embeddings/position_embeddings/embeddings:0", prefix);
  g_autofree char *type_path = g_strdup_printf ("%s/embeddings/token_type_embeddings/embeddings:0", prefix);
  g_autofree char *gamma_path = g_strdup_printf ("%s/embeddings/LayerNorm/gamma:0", prefix);
  g_autofree char *beta_path = g_strdup_printf ("%s/embeddings/LayerNorm/beta:0", prefix);
  g_autoptr(PlMatrix) word = pl_test_read_h5 (file, word_path);
  g_autoptr(PlMatrix) pos = pl_test_read_h5 (file, pos_path);
  g_autoptr(PlMatrix) type = pl_test_read_h5 (file, type_path);
  g_autoptr(PlMatrix) gamma = pl_test_read_h5 (file, gamma_path);
  g_autoptr(PlMatrix) beta = pl_test_read_h5 (file, beta_path);
  const int ids[] = { 0, 10, 1, 11, 2 };
  const int rows[] = { 2, 3, 1, 4, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlForwardResult) r = pl_transformer_forward (t, ids, 5, PL_FORWARD_HIDDEN_STATES,
                                                         NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < 5; i++)
    {
      double x[256], mean = 0, var = 0;

      for (guint j = 0; j < 256; j++)
        {
          x[j] = (double) pl_matrix_get (word, ids[i], j) + pl_matrix_get (pos, rows[i], j) + type->data[j];
          mean += x[j] / 256;
        }
      for (guint j = 0; j < 256; j++)
        var += (x[j] - mean) * (x[j] - mean) / 256;
      for (guint j = 0; j < 256; j++)
        {
          double expect = (x[j] - mean) / sqrt (var + 1e-12) * gamma->data[j] + beta->data[j];
          g_assert_cmpfloat (fabs (pl_matrix_get (r->hidden_states[0], i, j) - expect), <, 1e-5);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < PL_TEST_N_FIXTURES; i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/transformer/raw-weights/%s", pl_test_fixtures[i].name);
      g_test_add_data_func (path, &pl_test_fixtures[i], test_raw);
    }
  for (guint i = 0; i < PL_TEST_N_FIXTURES; i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/transformer/model/%s", pl_test_fixtures[i].name);
      g_test_add_data_func (path, &pl_test_fixtures[i], test_model);
    }
  g_test_add_func ("/pl/transformer/unsupported", test_unsupported);
  g_test_add_func ("/pl/transformer/relative-positions-refused", test_relative_positions_refused);
  g_test_add_func ("/pl/transformer/cli/forward", test_cli_forward);
  g_test_add_func ("/pl/transformer/roberta-padding-positions", test_roberta_padding_positions);

  return g_test_run ();
}
