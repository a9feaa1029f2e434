/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-transformer.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

/* ELECTRA-small's embedding projection: embeddings E = 24 wide, layers
 * H = 32. The test writes the model itself, as Hugging Face's TensorFlow
 * tf_model.h5 and as PyTorch's model.safetensors, with the weights of the
 * generator in tests/fixtures/make-electra-small.py, whose float64 numpy
 * forward pass made tests/fixtures/electra-small/reference.h5. That script's
 * forward pass reproduces HF's own outputs for mini-bert within 1.2e-5. */

#define SEED      5
#define E         24
#define H         32
#define LAYERS    2
#define HEADS     4
#define FFN       64
#define VOCAB     50
#define POSITIONS 40
#define TYPES     2

#define TF_ROOT "/electra/tf_electra_for_pre_training/electra/"
#define CONFIG "{\"model_type\": \"electra\", %s\"hidden_size\": 32, " \
  "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"intermediate_size\": 64, " \
  "\"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-12, \"vocab_size\": 50, " \
  "\"max_position_embeddings\": 40, \"type_vocab_size\": 2, \"pad_token_id\": 0}"

/* PlSeededTensor numbers: the index here; layer l's are 8 + 16 l + index. */
static const PlSeededSpec globals[] = {
  { "embeddings.word_embeddings.weight", "embeddings/word_embeddings/weight:0", VOCAB, E, PL_SEEDED_EMBEDDING },
  { "embeddings.position_embeddings.weight", "embeddings/position_embeddings/embeddings:0", POSITIONS, E, PL_SEEDED_EMBEDDING },
  { "embeddings.token_type_embeddings.weight", "embeddings/token_type_embeddings/embeddings:0", TYPES, E, PL_SEEDED_EMBEDDING },
  { "embeddings.LayerNorm.weight", "embeddings/LayerNorm/gamma:0", E, 0, PL_SEEDED_GAMMA },
  { "embeddings.LayerNorm.bias", "embeddings/LayerNorm/beta:0", E, 0, PL_SEEDED_VECTOR },
  { "embeddings_project.weight", "embeddings_project/kernel:0", E, H, PL_SEEDED_LINEAR },
  { "embeddings_project.bias", "embeddings_project/bias:0", H, 0, PL_SEEDED_VECTOR },
};

static const PlSeededSpec per_layer[] = {
  { "attention.self.query.weight", "attention/self/query/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.self.query.bias", "attention/self/query/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.self.key.weight", "attention/self/key/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.self.key.bias", "attention/self/key/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.self.value.weight", "attention/self/value/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.self.value.bias", "attention/self/value/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.output.dense.weight", "attention/output/dense/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.output.dense.bias", "attention/output/dense/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.output.LayerNorm.weight", "attention/output/LayerNorm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "attention.output.LayerNorm.bias", "attention/output/LayerNorm/beta:0", H, 0, PL_SEEDED_VECTOR },
  { "intermediate.dense.weight", "intermediate/dense/kernel:0", H, FFN, PL_SEEDED_LINEAR },
  { "intermediate.dense.bias", "intermediate/dense/bias:0", FFN, 0, PL_SEEDED_VECTOR },
  { "output.dense.weight", "output/dense/kernel:0", FFN, H, PL_SEEDED_LINEAR },
  { "output.dense.bias", "output/dense/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "output.LayerNorm.weight", "output/LayerNorm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "output.LayerNorm.bias", "output/LayerNorm/beta:0", H, 0, PL_SEEDED_VECTOR },
};

static PlSeededTensor *
make_tensor (const PlSeededSpec *spec,
             guint               number,
             int                 layer)
{
  g_autofree char *pt_prefix = NULL;
  g_autofree char *tf_prefix = NULL;

  if (layer < 0)
    return pl_seeded_tensor_from_spec (SEED, number, spec, "electra.", TF_ROOT);
  pt_prefix = g_strdup_printf ("electra.encoder.layer.%d.", layer);
  tf_prefix = g_strdup_printf (TF_ROOT "encoder/layer_._%d/", layer);
  return pl_seeded_tensor_from_spec (SEED, number, spec, pt_prefix, tf_prefix);
}

/* Every tensor of the model, plus a discriminator head as real checkpoints
 * have (never read). */
static GPtrArray *
make_tensors (void)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);

  for (guint i = 0; i < G_N_ELEMENTS (globals); i++)
    g_ptr_array_add (list, make_tensor (&globals[i], i, -1));
  for (guint l = 0; l < LAYERS; l++)
    for (guint i = 0; i < G_N_ELEMENTS (per_layer); i++)
      g_ptr_array_add (list, make_tensor (&per_layer[i], 8 + 16 * l + i, l));
  pl_seeded_add_head (list, SEED, H, "discriminator_predictions.dense.weight",
                      "/discriminator_predictions/tf_electra_for_pre_training/discriminator_predictions/dense/kernel:0");
  return list;
}

/* A checkpoint folder: FORMAT "tf" or "safetensors", config.json with
 * CONFIG_E as embedding_size (0: without one, as older configs). */
static char *
write_model (GPtrArray  *list,
             const char *format,
             guint       config_e)
{
  g_autofree char *key = config_e ? g_strdup_printf ("\"embedding_size\": %u, ", config_e) : g_strdup ("");
  g_autofree char *config = g_strdup_printf (CONFIG, key);

  return pl_seeded_write_model (list, format, config);
}

static char *
reference (void)
{
  return pl_test_fixture ("electra-small", "reference.h5", NULL);
}

static PlModel *
open_model (const char *dir)
{
  g_autoptr(GError) error = NULL;
  PlModel *model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_ELECTRA);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, H);
  g_assert_cmpuint (pl_model_get_embedding_size (model), ==, E);
  g_assert_cmpuint (pl_model_get_position_table_cols (model), ==, E);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, LAYERS);
  return model;
}

typedef struct
{
  const char *path;
  const char *format;
  guint       config_e;
} ForwardCase;

static const ForwardCase forward_cases[] = {
  { "/pl/embed-project/forward/tf", "tf", E },
  { "/pl/embed-project/forward/safetensors", "safetensors", E },
  /* the tensors' shapes alone say E != H */
  { "/pl/embed-project/forward/no-embedding-size", "safetensors", 0 },
};

static void
test_forward (gconstpointer data)
{
  const ForwardCase *fc = data;
  static const char * const probes[] = { "short", "long", NULL };
  g_autoptr(GPtrArray) list = make_tensors ();
  g_autofree char *dir = write_model (list, fc->format, fc->config_e);
  g_autofree char *file = reference ();
  g_autoptr(PlModel) model = open_model (dir);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GError) error = NULL;

  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_transformer_get_config (t)->embedding_size, ==, E);
  g_assert_cmpuint (pl_transformer_get_config (t)->hidden_size, ==, H);
  g_assert_cmpuint (pl_transformer_get_config (t)->n_layers, ==, LAYERS);
  g_assert_cmpuint (pl_transformer_get_config (t)->n_heads, ==, HEADS);
  g_assert_false (pl_transformer_get_config (t)->causal);
  /* hidden_states[0] included: the projected embeddings, H wide */
  pl_test_transformer_compare (t, file, "", probes, fc->format);
  pl_test_rmtree (dir);
}

/* Both layouts give the projection as [E, H] with the generator's values:
 * the safetensors [H, E] transposed, the Keras kernel as stored. The
 * position table the analyses see stays the E-wide position_embeddings. */
static void
test_weights (void)
{
  g_autoptr(GPtrArray) list = make_tensors ();
  const PlSeededTensor *proj = pl_seeded_find (list, "electra.embeddings_project.weight");
  const PlSeededTensor *bias = pl_seeded_find (list, "electra.embeddings_project.bias");
  g_autofree char *file = reference ();
  g_autoptr(PlMatrix) ref_positions = pl_test_read_h5 (file, "/position_embeddings");
  const char *formats[] = { "tf", "safetensors" };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *dir = write_model (list, formats[f], E);
      g_autoptr(PlModel) model = open_model (dir);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlMatrix) w = pl_model_read_weight (model, PL_WEIGHT_EMBED_PROJECT_WEIGHT, -1, &error);
      g_autoptr(PlMatrix) b = NULL;
      g_autoptr(PlMatrix) positions = NULL;
      g_autoptr(PlTransformer) t = NULL;
      g_autoptr(PlMatrix) rows = NULL;

      g_assert_no_error (error);
      g_assert_cmpuint (w->rows, ==, E);
      g_assert_cmpuint (w->cols, ==, H);
      g_assert_cmpmem (w->data, E * H * 4, proj->values, E * H * 4);
      b = pl_model_read_weight (model, PL_WEIGHT_EMBED_PROJECT_BIAS, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (b->data, H * 4, bias->values, H * 4);

      /* the generator here and the script's agree bit for bit */
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (positions->rows, ==, POSITIONS);
      g_assert_cmpuint (positions->cols, ==, E);
      g_assert_cmpfloat (pl_test_max_abs_diff (positions, ref_positions), ==, 0);

      t = pl_transformer_new (model, NULL, &error);
      g_assert_no_error (error);
      rows = pl_transformer_get_positions (t, 10, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (rows->cols, ==, E);
      g_assert_cmpuint (pl_transformer_get_token_type (t)->cols, ==, E);
      pl_test_rmtree (dir);
    }
}

/* Layer 0's position-only term goes through the projection, as the
 * script's proj(LN(P + type 0)). */
static void
test_position_only (void)
{
  g_autoptr(GPtrArray) list = make_tensors ();
  g_autofree char *dir = write_model (list, "safetensors", E);
  g_autofree char *file = reference ();
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, "/position_only");
  g_autoptr(PlModel) model = open_model (dir);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(PlMatrix) term = NULL;
  g_autoptr(GError) error = NULL;
  double diff;

  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  term = pl_attention_position_only (t, 20, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (term->rows, ==, HEADS * 20);
  diff = pl_test_max_abs_diff (term, ref);
  g_test_message ("position-only term: max |Δ| %.2g", diff);
  g_assert_cmpfloat (diff, <, ATTENTION_TOL);
  pl_test_check_rows (term, 20, FALSE);
  pl_test_rmtree (dir);
}

/* The layer-0 positional component (what --layer 0 shows) is the mean of
 * the projected embeddings, H wide: checked against hidden_states[0] of the
 * same random inputs, which test_forward checks against the script. */
static void
test_layer_components (void)
{
  g_autoptr(GPtrArray) list = make_tensors ();
  g_autofree char *dir = write_model (list, "tf", E);
  g_autoptr(PlModel) model = open_model (dir);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GPtrArray) tables = NULL;
  g_autoptr(PlMatrix) layer0 = NULL;
  g_autoptr(PlMatrix) mean = pl_matrix_new (16, H);
  g_autoptr(GError) error = NULL;

  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  tables = pl_attention_positional_components (t, LAYERS, 3, 16, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tables->len, ==, LAYERS + 1);
  for (guint k = 0; k <= LAYERS; k++)
    {
      g_assert_cmpuint (((PlMatrix *) tables->pdata[k])->rows, ==, 16);
      g_assert_cmpuint (((PlMatrix *) tables->pdata[k])->cols, ==, H);
    }
  for (guint s = 0; s < 3; s++)
    {
      g_autoptr(GArray) ids = pl_transformer_random_ids (t, 16, 7 + s);
      g_autoptr(PlForwardResult) r = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                                             PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, &error);

      g_assert_no_error (error);
      for (gsize i = 0; i < 16 * H; i++)
        mean->data[i] += r->hidden_states[0]->data[i] / 3.0f;
    }
  g_assert_cmpfloat (pl_test_max_abs_diff (tables->pdata[0], mean), <, 1e-5);

  layer0 = pl_attention_positional_component (model, 0, 2, 0, 1, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (layer0->rows, ==, POSITIONS);
  g_assert_cmpuint (layer0->cols, ==, H);
  pl_test_rmtree (dir);
}

/* Inconsistent shapes fail with the file and the tensor named. */
typedef struct
{
  const char *path;
  const char *tensor;       /* PyTorch name to change, or NULL */
  int         rows, cols;   /* its new stored shape (−1: drop it) */
  guint       config_e;
  PlError     code;
  const char *named;        /* what the message must name besides the file */
} BadCase;

static const BadCase bad_cases[] = {
  { "/pl/embed-project/bad/no-projection", "electra.embeddings_project.weight", -1, 0, E,
    PL_ERROR_NOT_FOUND, "embeddings_project.weight" },
  /* [E, H] where nn.Linear stores [H, E] */
  { "/pl/embed-project/bad/projection-transposed", "electra.embeddings_project.weight", E, H, E,
    PL_ERROR_CORRUPT, "electra.embeddings_project.weight" },
  { "/pl/embed-project/bad/projection-bias", "electra.embeddings_project.bias", E, 0, E,
    PL_ERROR_CORRUPT, "electra.embeddings_project.bias" },
  { "/pl/embed-project/bad/config", NULL, 0, 0, 16, PL_ERROR_CORRUPT, "electra.embeddings.word_embeddings.weight" },
  { "/pl/embed-project/bad/type-width", "electra.embeddings.token_type_embeddings.weight", TYPES, H, E,
    PL_ERROR_CORRUPT, "electra.embeddings.token_type_embeddings.weight" },
  { "/pl/embed-project/bad/layer-norm", "electra.embeddings.LayerNorm.weight", H, 0, E,
    PL_ERROR_CORRUPT, "electra.embeddings.LayerNorm.weight" },
};

static void
test_bad (gconstpointer data)
{
  const BadCase *bc = data;
  g_autoptr(GPtrArray) list = make_tensors ();
  g_autofree char *dir = NULL;
  g_autofree char *st = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GError) error = NULL;

  if (bc->tensor != NULL)
    {
      PlSeededTensor *victim = pl_seeded_find (list, bc->tensor);

      if (bc->rows < 0)
        g_ptr_array_remove (list, victim);
      else
        {
          /* any values; written as given (not transposed) */
          victim->linear = FALSE;
          victim->rows = bc->rows;
          victim->cols = bc->cols;
          g_free (victim->values);
          victim->values = g_new0 (float, bc->rows * MAX (bc->cols, 1));
          for (int i = 0; i < bc->rows * MAX (bc->cols, 1); i++)
            victim->values[i] = 0.5f;
        }
    }
  dir = write_model (list, "safetensors", bc->config_e);
  st = g_build_filename (dir, "model.safetensors", NULL);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_null (t);
  g_assert_error (error, PL_ERROR, bc->code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, st));
  g_assert_nonnull (strstr (error->message, bc->named));
  pl_test_rmtree (dir);
}

/* poslens-cli forward and attention on the TF checkpoint. */
static void
test_cli (void)
{
  g_autoptr(GPtrArray) list = make_tensors ();
  g_autofree char *dir = NULL;
  g_autofree char *ref = reference ();
  g_autofree char *ids_from = g_strdup_printf ("%s:/long/input_ids", ref);
  g_autofree char *tmp = NULL;
  g_autofree char *out = NULL;
  g_autofree char *att_out = NULL;
  g_autofree char *sim_out = NULL;

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set (run through meson test)");
      return;
    }
  dir = write_model (list, "tf", E);
  tmp = pl_test_tmpdir ();
  out = g_build_filename (tmp, "forward.h5", NULL);
  att_out = g_build_filename (tmp, "attention.h5", NULL);
  sim_out = g_build_filename (tmp, "similarity.h5", NULL);
  {
    const char *forward[] = { "forward", dir, "--ids-from", ids_from, "--out", out, NULL };
    const char *attention[] = { "attention", dir, "--sequences", "2", "--length", "20", "--out", att_out, NULL };
    const char *similarity[] = { "similarity", dir, "--layer", "0", "--out", sim_out, NULL };

    g_assert_cmpint (pl_test_run_cli (forward), ==, 0);
    {
      g_autoptr(PlMatrix) att = pl_test_read_h5 (out, "/attentions");
      g_autoptr(PlMatrix) hid = pl_test_read_h5 (out, "/hidden_states");
      g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (ref, "/long/attentions");
      g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (ref, "/long/hidden_states");

      g_assert_cmpfloat (pl_test_max_abs_diff (att, ref_att), <, ATTENTION_TOL);
      g_assert_cmpfloat (pl_test_max_abs_diff (hid, ref_hid), <, HIDDEN_TOL);
    }
    g_assert_cmpint (pl_test_run_cli (attention), ==, 0);
    {
      g_autoptr(PlMatrix) term = pl_test_read_h5 (att_out, "/position_only");
      g_autoptr(PlMatrix) ref_term = pl_test_read_h5 (ref, "/position_only");

      g_assert_cmpfloat (pl_test_max_abs_diff (term, ref_term), <, ATTENTION_TOL);
    }
    g_assert_cmpint (pl_test_run_cli (similarity), ==, 0);
  }
  {
    /* info says both widths: the table's E and the layers' H. */
    const char *argv[] = { g_getenv ("POSLENS_CLI"), "info", dir, "--json", NULL };
    g_autofree char *json = NULL;
    g_autofree char *want_embedding = g_strdup_printf ("\"embedding\" : %u,", E);
    g_autofree char *want_hidden = g_strdup_printf ("\"hidden\" : %u,", H);
    int status;

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                                 NULL, NULL, &json, NULL, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (json, want_embedding));
    g_assert_nonnull (strstr (json, want_hidden));
  }
  pl_test_rmtree (tmp);
  pl_test_rmtree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (forward_cases); i++)
    g_test_add_data_func (forward_cases[i].path, &forward_cases[i], test_forward);
  g_test_add_func ("/pl/embed-project/weights", test_weights);
  g_test_add_func ("/pl/embed-project/position-only", test_position_only);
  g_test_add_func ("/pl/embed-project/layer-components", test_layer_components);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    g_test_add_data_func (bad_cases[i].path, &bad_cases[i], test_bad);
  g_test_add_func ("/pl/embed-project/cli", test_cli);

  return g_test_run ();
}
