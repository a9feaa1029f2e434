/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

/* T5, UMT5, BLOOM, MPT, DeBERTa-v2/v3, BART, mBART, Whisper and CLIP's text
 * tower recognised from the checkpoints tests/fixtures/make-relpos.py wrote
 * as Hugging Face saves them (safetensors, a PyTorch zip, a Keras HDF5):
 * their tables, which one the views open on, choosing another, and config
 * values refused by name before anything is computed from them. */

typedef struct
{
  const char  *stack;
  const char  *kind;
  guint        rows;
  guint        cols;
  guint        first_position;
} Table;

typedef struct
{
  const char  *fixture;
  PlFamily     family;
  const char  *stack;          /* the stack it opens on */
  const char  *table_suffix;   /* of the table the views open on, or NULL */
  guint        n_layers;
  guint        n_heads;
  gboolean     causal;
  gboolean     bias;
  Table        tables[5];
} Case;

static const Case cases[] = {
  { "t5", PL_FAMILY_T5, "encoder", NULL, 2, 4, FALSE, TRUE,
    { { "encoder", "bias", 32, 4, 0 }, { "decoder", "bias", 32, 4, 0 } } },
  { "mt5-bin", PL_FAMILY_T5, "encoder", NULL, 2, 4, FALSE, TRUE,
    { { "encoder", "bias", 16, 4, 0 }, { "decoder", "bias", 16, 4, 0 } } },
  { "umt5", PL_FAMILY_UMT5, "encoder", NULL, 2, 4, FALSE, TRUE,
    { { "encoder", "bias", 32, 4, 0 }, { "encoder", "bias", 32, 4, 0 }, { "decoder", "bias", 32, 4, 0 },
      { "decoder", "bias", 32, 4, 0 } } },
  { "bloom", PL_FAMILY_BLOOM, "decoder", NULL, 2, 4, TRUE, TRUE, { { NULL } } },
  { "bloom-odd", PL_FAMILY_BLOOM, "decoder", NULL, 2, 6, TRUE, TRUE, { { NULL } } },
  { "mpt", PL_FAMILY_MPT, "decoder", NULL, 2, 6, TRUE, TRUE, { { NULL } } },
  { "deberta-v3", PL_FAMILY_DEBERTA_V2, "encoder", "encoder.rel_embeddings.weight", 2, 4, FALSE, FALSE,
    { { "encoder", "relative", 16, 32, 0 } } },
  { "deberta-v2", PL_FAMILY_DEBERTA_V2, "encoder", "encoder.rel_embeddings.weight", 2, 4, FALSE, FALSE,
    { { "encoder", "relative", 24, 32, 0 }, { "encoder", "absolute", 30, 24, 0 } } },
  { "bart-tf", PL_FAMILY_BART, "encoder", "encoder/embed_positions/embeddings:0", 1, 2, FALSE, FALSE,
    { { "encoder", "absolute", 26, 16, 2 }, { "decoder", "absolute", 26, 16, 2 } } },
  { "mbart", PL_FAMILY_MBART, "encoder", "encoder.embed_positions.weight", 1, 2, FALSE, FALSE,
    { { "encoder", "absolute", 22, 16, 2 }, { "decoder", "absolute", 22, 16, 2 } } },
  /* the encoder's table holds sinusoids it never trains: the views open on the decoder's */
  { "whisper", PL_FAMILY_WHISPER, "decoder", "decoder.embed_positions.weight", 1, 2, TRUE, FALSE,
    { { "encoder", "sinusoidal", 30, 16, 0 }, { "decoder", "absolute", 20, 16, 0 } } },
  { "clip-text", PL_FAMILY_CLIP_TEXT, "text", "text_model.embeddings.position_embedding.weight", 1, 2, TRUE,
    FALSE, { { "text", "absolute", 77, 16, 0 } } },
};

static PlModel *
open_fixture (const char *name,
              const char *table)
{
  g_autofree char *dir = pl_test_fixture ("relpos", name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_no_error (error);
  if (table != NULL)
    {
      g_assert_true (pl_model_select_table (model, table, &error));
      g_assert_no_error (error);
    }
  return g_steal_pointer (&model);
}

static void
test_family (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(PlModel) model = open_fixture (c->fixture, NULL);
  guint n = 0;

  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_cmpstr (pl_model_get_stack (model), ==, c->stack);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, c->n_layers);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, c->n_heads);
  g_assert_cmpint (pl_model_get_causal (model), ==, c->causal);
  g_assert_cmpint (pl_model_has_position_bias (model), ==, c->bias);
  if (c->table_suffix != NULL)
    g_assert_true (g_str_has_suffix (pl_model_get_position_table_name (model), c->table_suffix));
  else
    g_assert_null (pl_model_get_position_table_name (model));

  while (n < G_N_ELEMENTS (c->tables) && c->tables[n].stack != NULL)
    n++;
  g_assert_cmpuint (pl_model_get_n_position_tables (model), ==, n);
  for (guint i = 0; i < n; i++)
    {
      const PlPositionTableInfo *t = pl_model_get_position_table_info (model, i);

      g_assert_cmpstr (t->stack, ==, c->tables[i].stack);
      g_assert_cmpstr (pl_table_kind_name (t->kind), ==, c->tables[i].kind);
      g_assert_cmpuint (t->rows, ==, c->tables[i].rows);
      g_assert_cmpuint (t->cols, ==, c->tables[i].cols);
      g_assert_cmpuint (t->first_position, ==, c->tables[i].first_position);
      g_assert_cmpuint (t->n_positions, ==, t->kind == PL_TABLE_BIAS ? 0 : t->rows - t->first_position);
      if (c->family == PL_FAMILY_UMT5)
        g_assert_cmpuint (t->layer, ==, i % 2 + 1);
    }
}

/* BART-style stacks: each its own table, rows from 2, its own sizes; the
 * rows read are the stored ones from row 2 on. */
static void
test_choose_stack (void)
{
  g_autoptr(PlModel) model = open_fixture ("mbart", "decoder");
  g_autoptr(PlModel) whole = open_fixture ("mbart", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(PlMatrix) stored = NULL;
  g_autofree char *file = pl_test_fixture ("relpos", "mbart", "model.safetensors", NULL);

  g_assert_cmpstr (pl_model_get_stack (model), ==, "decoder");
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, "model.decoder.embed_positions.weight");
  g_assert_true (pl_model_get_causal (model));
  g_assert_false (pl_model_get_causal (whole));
  g_assert_cmpuint (pl_model_get_first_position (model), ==, 2);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 20);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  stored = pl_checkpoint_read_rows (pl_model_get_checkpoint (model), "model.decoder.embed_positions.weight", 2, 20,
                                    &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (positions, stored), ==, 0);

  /* and back */
  g_assert_true (pl_model_select_table (model, "encoder", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, "model.encoder.embed_positions.weight");
  g_assert_false (pl_model_get_causal (model));

  /* BART's stacks differ in their layers and heads */
  {
    g_autoptr(PlModel) bart = open_fixture ("bart-tf", "decoder");

    g_assert_cmpuint (pl_model_get_n_layers (bart), ==, 2);
    g_assert_cmpuint (pl_model_get_n_heads (bart), ==, 4);
    g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (bart)), ==, "hdf5-tf");
  }
}

/* T5 has no table the views open on; its stacks differ in their layers and
 * whether they are causal. */
static void
test_t5_stacks (void)
{
  g_autoptr(PlModel) model = open_fixture ("t5", "decoder");
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 3);
  g_assert_true (pl_model_get_causal (model));
  g_assert_null (pl_model_get_position_table_name (model));
  g_assert_null (pl_model_read_positions (model, &error));
  g_assert_nonnull (strstr (error->message, "position-bias"));
}

/* DeBERTa's relative table, rows labelled by the bucket of i − j they
 * stand for; its absolute table when the embeddings add one. */
static void
test_deberta_tables (void)
{
  g_autoptr(PlModel) v3 = open_fixture ("deberta-v3", NULL);
  g_autoptr(PlModel) v2 = open_fixture ("deberta-v2", "absolute");
  g_autoptr(GError) error = NULL;
  /* position_buckets 8, max_relative_positions 40: exact to ±4, then log
   * buckets to 39; the end rows also gather every offset past them */
  static const char * const v3_rows[] = {
    "bucket −8: no offset within 40 tokens", "bucket −7: i − j from −39 to −19", "bucket −6: i − j from −18 to −9",
    "bucket −5: i − j from −8 to −5", "bucket −4: i − j = −4", "bucket −3: i − j = −3", "bucket −2: i − j = −2",
    "bucket −1: i − j = −1", "bucket 0: i = j, the query itself", "bucket +1: i − j = +1",
    "bucket +2: i − j = +2", "bucket +3: i − j = +3", "bucket +4: i − j = +4",
    "bucket +5: i − j from +5 to +8", "bucket +6: i − j from +9 to +18", "bucket +7: i − j from +19 to +39",
  };

  g_assert_cmpint (pl_model_get_table_kind (v3), ==, PL_TABLE_RELATIVE);
  g_assert_cmpuint (pl_model_get_relative_zero_row (v3), ==, 8);
  for (guint r = 0; r < 16; r++)
    {
      g_autofree char *label = pl_model_describe_relative_row (v3, r);

      g_assert_cmpint (pl_model_get_relative_bucket (v3, r), ==, (int) r - 8);
      g_assert_cmpstr (label, ==, v3_rows[r]);
    }
  g_assert_cmpint (pl_model_get_table_kind (v2), ==, PL_TABLE_ABSOLUTE);
  g_assert_cmpstr (pl_model_get_position_table_name (v2), ==, "deberta.embeddings.position_embeddings.weight");
  g_assert_cmpuint (pl_model_get_n_positions (v2), ==, 30);
  g_assert_false (pl_model_select_table (v3, "absolute", &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
}

/* A whole CLIP model: the vision tower's table first (as before), the text
 * tower's beside it, each with its own sizes. */
static void
test_clip_towers (void)
{
  g_autoptr(PlModel) model = pl_test_open_vision ("clip");
  g_autoptr(GError) error = NULL;
  guint rows, cols;

  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_CLIP_VISION);
  g_assert_cmpuint (pl_model_get_n_position_tables (model), ==, 2);
  g_assert_cmpstr (pl_model_get_position_table_info (model, 0)->stack, ==, "vision");
  g_assert_cmpstr (pl_model_get_position_table_info (model, 1)->stack, ==, "text");
  g_assert_true (pl_model_select_table (model, "text", &error));
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_CLIP_TEXT);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 12);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 8);
  g_assert_false (pl_model_get_grid (model, &rows, &cols));
  g_assert_true (pl_model_get_causal (model));
  g_assert_true (pl_model_select_table (model, "vision", &error));
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_CLIP_VISION);
  g_assert_true (pl_model_get_grid (model, &rows, &cols));
}

/* --dataset naming one of the tables keeps what is known of its rows. */
static void
test_dataset_names_table (void)
{
  g_autofree char *dir = pl_test_fixture ("relpos", "mbart", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, "model.decoder.embed_positions.weight", NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_MBART);
  g_assert_cmpstr (pl_model_get_stack (model), ==, "decoder");
  g_assert_cmpuint (pl_model_get_first_position (model), ==, 2);
}

static void
test_no_such_table (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) gpt2 = pl_model_open ("mini-gpt2", NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (pl_model_get_n_position_tables (gpt2), ==, 1);
  g_assert_true (pl_model_select_table (gpt2, "decoder", &error));
  g_assert_false (pl_model_select_table (gpt2, "encoder", &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no encoder table; it has: decoder"));
}

/* ---- config.json refused by field ------------------------------------------ */

/* A copy of fixture NAME whose config.json has KEY set to VALUE (JSON text;
 * NULL removes it) inside SECTION (NULL: the top level). */
static char *
patched_fixture (const char *name,
                 const char *section,
                 const char *key,
                 const char *value)
{
  g_autofree char *src = pl_test_fixture ("relpos", name, NULL);
  char *dir = pl_test_tmpdir ();
  g_autoptr(GDir) entries = g_dir_open (src, 0, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *src_config = g_build_filename (src, "config.json", NULL);
  g_autoptr(GError) error = NULL;
  JsonObject *config;
  const char *entry;

  while ((entry = g_dir_read_name (entries)) != NULL)
    {
      g_autofree char *from = g_build_filename (src, entry, NULL);
      g_autofree char *to = g_build_filename (dir, entry, NULL);

      if (!g_str_equal (entry, "config.json"))
        g_assert_cmpint (symlink (from, to), ==, 0);
    }
  g_assert_true (json_parser_load_from_file (parser, src_config, &error));
  config = json_node_get_object (json_parser_get_root (parser));
  if (section != NULL)
    config = json_object_get_object_member (config, section);
  if (value == NULL)
    json_object_remove_member (config, key);
  else
    {
      g_autoptr(JsonParser) v = json_parser_new ();

      g_assert_true (json_parser_load_from_data (v, value, -1, &error));
      json_object_set_member (config, key, json_node_copy (json_parser_get_root (v)));
    }
  json_generator_set_root (generator, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (generator, config_path, &error));
  return dir;
}

typedef struct
{
  const char *fixture;
  const char *section;
  const char *key;
  const char *value;
  const char *message;    /* what the refusal says after "config.json: " */
} Refusal;

static const Refusal refusals[] = {
  { "t5", NULL, "relative_attention_num_buckets", "0", "relative_attention_num_buckets is 0" },
  { "t5", NULL, "relative_attention_num_buckets", "-32", "relative_attention_num_buckets is -32" },
  { "t5", NULL, "relative_attention_num_buckets", "2", "relative_attention_num_buckets is 2" },
  { "t5", NULL, "relative_attention_num_buckets", "16", "relative_attention_num_buckets 16 and num_heads 4, but" },
  { "t5", NULL, "relative_attention_num_buckets", "1e9", "relative_attention_num_buckets is not a whole number" },
  { "t5", NULL, "relative_attention_num_buckets", "99999999999", "relative_attention_num_buckets is 99999999999" },
  { "t5", NULL, "relative_attention_max_distance", "8", "relative_attention_max_distance is 8" },
  { "t5", NULL, "num_heads", "8", "relative_attention_num_buckets 32 and num_heads 8, but" },
  { "t5", NULL, "num_heads", "\"4\"", "num_heads is not a whole number" },
  { "t5", NULL, "d_kv", "8", "num_heads 4 × d_kv 8" },
  { "t5", NULL, "feed_forward_proj", "\"fancy-gated-gelu\"", "feed_forward_proj “fancy-gated-gelu”" },
  { "bloom", NULL, "n_head", "0", "n_head is 0" },
  { "bloom", NULL, "n_head", "100000", "n_head is 100000" },
  { "bloom", NULL, "hidden_size", "48", "hidden_size is 48, but the weights are 32 wide" },
  { "mpt", "attn_config", "alibi_bias_max", "0", "alibi_bias_max is 0" },
  { "mpt", "attn_config", "alibi_bias_max", "-8", "alibi_bias_max is -8" },
  { "mpt", "attn_config", "alibi_bias_max", "1e300", "alibi_bias_max is 1e+300" },
  { "mpt", "attn_config", "alibi_bias_max", "\"8\"", "alibi_bias_max is not a number" },
  { "mpt", "attn_config", "alibi", "false", "attn_config.alibi is false" },
  { "mpt", "attn_config", "qk_ln", "true", "attn_config.qk_ln is true" },
  { "mpt", NULL, "max_seq_len", "0", "max_seq_len is 0" },
  { "mpt", NULL, "attn_config", "[8]", "attn_config is not an object" },
  { "deberta-v3", NULL, "position_buckets", "2", "position_buckets is 2" },
  { "deberta-v3", NULL, "position_buckets", "16", "position_buckets 16 asks for 32 relative rows" },
  { "deberta-v3", NULL, "max_position_embeddings", "5", "max_relative_positions is 5" },
  { "deberta-v3", NULL, "pos_att_type", "[\"p2p\"]", "pos_att_type “p2p”" },
  { "deberta-v3", NULL, "pos_att_type", "3", "pos_att_type is not a list of strings" },
  { "deberta-v3", NULL, "conv_kernel_size", "3", "conv_kernel_size is set" },
  { "deberta-v3", NULL, "relative_attention", "false", "relative_attention is false" },
  { "deberta-v2", NULL, "max_relative_positions", "16", "max_relative_positions 16 asks for 32 relative rows" },
  { "mbart", NULL, "max_position_embeddings", "40", "max_position_embeddings is 40, but" },
  { "whisper", NULL, "max_target_positions", "448", "max_target_positions is 448, but" },
  { "clip-text", NULL, "max_position_embeddings", "64", "max_position_embeddings is 64, but" },
};

static void
test_refusal (gconstpointer data)
{
  const Refusal *r = data;
  g_autofree char *dir = patched_fixture (r->fixture, r->section, r->key, r->value);
  g_autofree char *expected = g_strdup_printf ("%s/config.json: ", dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  /* the decoder's table of an encoder–decoder is checked when it is chosen */
  if (model != NULL && (g_str_equal (r->key, "max_target_positions")))
    g_assert_false (pl_model_select_table (model, "decoder", &error));
  else
    g_assert_null (model);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, expected));
  g_assert_nonnull (strstr (error->message, r->message));
  pl_test_rmtree (dir);
}

/* ---- real config.json files -------------------------------------------------- */

/* One BF16 tensor NAME of ROWS × COLS small exact values into TENSORS. */
static void
add_tensor (GArray     *tensors,
            GPtrArray  *owned,
            const char *name,
            guint       rows,
            guint       cols)
{
  PlTestTensor t = { 0 };
  float *data = pl_test_exact_values (rows, cols);

  g_ptr_array_add (owned, data);
  g_ptr_array_add (owned, g_strdup (name));
  t.name = g_ptr_array_index (owned, owned->len - 1);
  t.dtype = "BF16";
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.data = data;
  g_array_append_val (tensors, t);
}

/* A folder with tests/fixtures/configs/NAME.json as its config.json and
 * TENSORS as model.safetensors. */
static char *
write_real (const char *name,
            GArray     *tensors)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);
  g_autofree char *source = pl_test_fixture ("configs", file, NULL);
  g_autofree char *text = NULL;
  char *dir = pl_test_tmpdir ();
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);

  g_assert_true (g_file_get_contents (source, &text, NULL, NULL));
  pl_test_write_text (config, text);
  pl_test_write_safetensors (weights, (PlTestTensor *) tensors->data, tensors->len);
  return dir;
}

/* The published configurations of deberta-v3-base, bart-base and
 * bloom-560m (tests/fixtures/configs/README.md) beside the tensors their
 * recognition reads, at their real shapes: what Hugging Face's config
 * classes read from them. */
static void
test_real_deberta (void)
{
  g_autoptr(GArray) tensors = g_array_new (FALSE, TRUE, sizeof (PlTestTensor));
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *first = NULL;
  g_autofree char *last = NULL;
  g_autofree char *past = NULL;

  add_tensor (tensors, owned, "deberta.embeddings.word_embeddings.weight", 2, 768);
  add_tensor (tensors, owned, "deberta.encoder.layer.0.attention.self.query_proj.weight", 768, 768);
  add_tensor (tensors, owned, "deberta.encoder.rel_embeddings.weight", 512, 768);
  dir = write_real ("deberta-v3-base", tensors);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_DEBERTA_V2);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 12);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 768);
  /* position_buckets 256, max_relative_positions −1: max_position_embeddings 512 */
  g_assert_cmpuint (pl_model_get_n_position_tables (model), ==, 1);
  g_assert_cmpint (pl_model_get_table_kind (model), ==, PL_TABLE_RELATIVE);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 512);
  g_assert_cmpuint (pl_model_get_relative_zero_row (model), ==, 256);
  first = pl_model_describe_relative_row (model, 1);
  last = pl_model_describe_relative_row (model, 511);
  past = pl_model_describe_relative_row (model, 384);
  /* exact to ±128 and a little past (the log buckets start one offset each),
   * the last reaching offset 511 (ranges from torch's make_log_bucket_position) */
  g_assert_cmpstr (first, ==, "bucket −255: i − j from −511 to −506");
  g_assert_cmpstr (last, ==, "bucket +255: i − j from +506 to +511");
  g_assert_cmpstr (past, ==, "bucket +128: i − j = +128");
  pl_test_rmtree (dir);
}

static void
test_real_bart (void)
{
  g_autoptr(GArray) tensors = g_array_new (FALSE, TRUE, sizeof (PlTestTensor));
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autofree char *dir = NULL;

  add_tensor (tensors, owned, "shared.weight", 2, 768);
  add_tensor (tensors, owned, "encoder.embed_positions.weight", 1026, 768);
  add_tensor (tensors, owned, "decoder.embed_positions.weight", 1026, 768);
  for (guint l = 0; l < 6; l++)
    for (guint s = 0; s < 2; s++)
      {
        g_autofree char *name = g_strdup_printf ("%s.layers.%u.self_attn.q_proj.weight", s ? "decoder" : "encoder", l);

        add_tensor (tensors, owned, name, 1, 768);
      }
  dir = write_real ("bart-base", tensors);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_BART);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 6);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 12);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, 2);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 1024);
  g_assert_true (pl_model_select_table (model, "decoder", &error));
  g_assert_true (pl_model_get_causal (model));
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 1024);
  pl_test_rmtree (dir);
}

static void
test_real_bloom (void)
{
  g_autoptr(GArray) tensors = g_array_new (FALSE, TRUE, sizeof (PlTestTensor));
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlPositionBias) bias = NULL;
  g_autofree char *dir = NULL;

  add_tensor (tensors, owned, "transformer.word_embeddings.weight", 2, 1024);
  for (guint l = 0; l < 24; l++)
    {
      g_autofree char *qkv = g_strdup_printf ("transformer.h.%u.self_attention.query_key_value.weight", l);

      add_tensor (tensors, owned, qkv, 3072, l == 0 ? 1024 : 1);
    }
  add_tensor (tensors, owned, "transformer.h.0.self_attention.dense.weight", 1024, 1024);
  dir = write_real ("bloom-560m", tensors);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_BLOOM);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 24);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 16);
  bias = pl_model_compute_position_bias (model, 0, 0, &error);
  g_assert_no_error (error);
  /* 16 heads: slopes 2^(−0.5 k), the first −0.707 per token */
  g_assert_cmpfloat (fabs (pl_matrix_row (bias->bias, 0)[bias->length - 2] + (float) M_SQRT1_2), <, 1e-7);
  /* 2^−8 but for float32's rounding of the base 2^−0.5, raised to the 16th */
  g_assert_cmpfloat (fabs (bias->slopes[15] - 1 / 256.0) * 256, <, 1e-6);
  pl_test_rmtree (dir);
}

/* ---- poslens-cli ------------------------------------------------------------ */

static JsonObject *
info_json (JsonParser  *parser,
           const char  *fixture,
           const char  *table)
{
  g_autofree char *dir = pl_test_fixture ("relpos", fixture, NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;

  if (table != NULL)
    g_assert_cmpint (pl_test_cli (&out, NULL, "info", dir, "--json", "--table", table, NULL), ==, 0);
  else
    g_assert_cmpint (pl_test_cli (&out, NULL, "info", dir, "--json", NULL), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_cli_info (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *info = info_json (parser, "bart-tf", "decoder");
  JsonArray *tables = json_object_get_array_member (info, "position_tables");
  JsonObject *table = json_object_get_object_member (info, "position_table");
  JsonObject *second = json_array_get_object_element (tables, 1);

  g_assert_cmpuint (json_array_get_length (tables), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (second, "stack"), ==, "decoder");
  g_assert_cmpstr (json_object_get_string_member (second, "kind"), ==, "absolute");
  g_assert_cmpint (json_object_get_int_member (second, "rows"), ==, 26);
  g_assert_cmpint (json_object_get_int_member (second, "first_position"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (second, "n_positions"), ==, 24);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (second, "tensor"),
                                   "decoder/embed_positions/embeddings:0"));
  g_assert_cmpstr (json_object_get_string_member (table, "name"), ==,
                   json_object_get_string_member (second, "tensor"));
  g_assert_cmpstr (json_object_get_string_member (info, "stack"), ==, "decoder");

  info = info_json (parser, "t5", NULL);
  g_assert_true (json_object_get_null_member (info, "position_table"));
  tables = json_object_get_array_member (info, "position_tables");
  g_assert_cmpuint (json_array_get_length (tables), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tables, 0), "kind"), ==, "bias");
  table = json_object_get_object_member (info, "position_bias");
  g_assert_cmpstr (json_object_get_string_member (table, "kind"), ==, "t5");
  g_assert_cmpint (json_object_get_int_member (table, "buckets"), ==, 32);
  g_assert_cmpint (json_object_get_int_member (table, "max_distance"), ==, 20);
}

/* position-bias as numbers: /bias the reference, /buckets T5's; refused for
 * models without a bias, and a layer that does not exist, by name. */
static void
test_cli_position_bias (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (tmp, "bias.h5", NULL);
  g_autofree char *figure = g_build_filename (tmp, "bias.svg", NULL);
  g_autofree char *t5 = pl_test_fixture ("relpos", "t5", NULL);
  g_autofree char *umt5 = pl_test_fixture ("relpos", "umt5", NULL);
  g_autofree char *deberta = pl_test_fixture ("relpos", "deberta-v3", NULL);
  g_autofree char *reference = pl_test_fixture ("relpos", "t5", "reference.h5", NULL);
  g_autofree char *err = NULL;
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (reference, "position_bias/decoder");
  g_autoptr(PlMatrix) bias = NULL;
  g_autoptr(PlMatrix) buckets = NULL;
  g_autoptr(PlMatrix) offsets = NULL;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "position-bias", t5, "--table", "decoder", "--length", "24",
                                "--out", out, NULL), ==, 0);
  bias = pl_test_read_h5 (out, "bias");
  buckets = pl_test_read_h5 (out, "buckets");
  offsets = pl_test_read_h5 (out, "offsets");
  g_assert_cmpuint (bias->rows, ==, 4);
  g_assert_cmpuint (bias->cols, ==, 47);
  for (guint i = 0; i < bias->rows * bias->cols; i++)
    g_assert_true ((isnan (bias->data[i]) && isnan (ref->data[i])) || bias->data[i] == ref->data[i]);
  g_assert_cmpfloat (offsets->data[0], ==, -23);
  g_assert_cmpfloat (buckets->data[23], ==, 0);     /* offset 0 */
  g_assert_cmpfloat (buckets->data[46], ==, -1);    /* hidden by the causal mask */

  g_assert_cmpint (pl_test_cli (NULL, &err, "position-bias", deberta, "--out", out, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "add no bias to attention scores"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (pl_test_cli (NULL, &err, "position-bias", umt5, "--layer", "3", "--out", out, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "--layer 3: the encoder has layers 1 to 2"));
  g_clear_pointer (&err, g_free);

  /* heads count from 1, as everywhere: the fixture's 4 heads are 1 … 4 */
  g_assert_cmpint (pl_test_cli (NULL, NULL, "position-bias", t5, "--heads", "1,4", "--out", figure, NULL), ==, 0);
  g_assert_true (g_file_test (figure, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (pl_test_cli (NULL, &err, "position-bias", t5, "--heads", "0,2", "--out", figure, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "expected heads 1 to 4 (heads count from 1)"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (pl_test_cli (NULL, &err, "position-bias", t5, "--heads", "5", "--out", figure, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "expected heads 1 to 4"));
  pl_test_rmtree (tmp);
}

/* DeBERTa's relative table has buckets of an offset for rows, not
 * positions: the probes and the paper say so, naming the file and tensor,
 * while a layer's hidden states (one per token position) are probed. */
static void
test_probes_refuse_relative (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *deberta = pl_test_fixture ("relpos", "deberta-v3", NULL);
  g_autofree char *gpt2 = pl_test_fixture ("mini-gpt2", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (deberta, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_false (pl_model_require_probe_table (model, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "deberta-v3: “deberta.encoder.rel_embeddings.weight” is a table of "
                                            "relative positions: its rows are buckets −8 … 7"));
  g_clear_error (&error);
  g_assert_null (pl_model_read_paper_positions (model, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  for (guint i = 0; i < 2; i++)
    {
      g_assert_cmpint (pl_test_cli (NULL, &err, "probe", deberta, "--protocol", i == 0 ? "paper" : "interleaved",
                                    NULL), !=, 0);
      g_assert_nonnull (strstr (err, "do not apply"));
      g_clear_pointer (&err, g_free);
    }
  g_assert_cmpint (pl_test_cli (NULL, &err, "paper", gpt2, deberta, "--out", tmp, NULL), !=, 0);
  g_assert_nonnull (strstr (err, "is a table of relative positions"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", deberta, "--layer", "1", "--protocol", "interleaved", "--repeats", "1", NULL), ==, 0);
  pl_test_rmtree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/relpos/family/%s", cases[i].fixture);

      g_test_add_data_func (path, &cases[i], test_family);
    }
  g_test_add_func ("/pl/relpos/choose-stack", test_choose_stack);
  g_test_add_func ("/pl/relpos/t5-stacks", test_t5_stacks);
  g_test_add_func ("/pl/relpos/deberta-tables", test_deberta_tables);
  g_test_add_func ("/pl/relpos/clip-towers", test_clip_towers);
  g_test_add_func ("/pl/relpos/dataset-names-table", test_dataset_names_table);
  g_test_add_func ("/pl/relpos/no-such-table", test_no_such_table);
  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/relpos/refusal/%u-%s-%s", i, refusals[i].fixture,
                                               refusals[i].key);

      g_test_add_data_func (path, &refusals[i], test_refusal);
    }
  g_test_add_func ("/pl/relpos/real/deberta-v3-base", test_real_deberta);
  g_test_add_func ("/pl/relpos/real/bart-base", test_real_bart);
  g_test_add_func ("/pl/relpos/real/bloom-560m", test_real_bloom);
  g_test_add_func ("/pl/relpos/cli-info", test_cli_info);
  g_test_add_func ("/pl/relpos/cli-position-bias", test_cli_position_bias);
  g_test_add_func ("/pl/relpos/probes-refuse-relative", test_probes_refuse_relative);
  return g_test_run ();
}
