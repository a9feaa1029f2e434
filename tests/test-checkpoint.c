/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-safetensors-header.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

#define GPT2_WPE "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0"
#define BERT_POS "/bert/tf_bert_for_masked_lm/bert/embeddings/position_embeddings/embeddings:0"
#define ROBERTA_POS "/roberta/tf_roberta_for_masked_lm/roberta/embeddings/position_embeddings/embeddings:0"

/* The demo checkpoints through PlModel: family, sizes from config.json, and
 * the real-position rows equal to the raw dataset's rows bit for bit (the
 * reference is read with the plain HDF5 API, not with PlCheckpoint). */
typedef struct
{
  const char  *folder;
  PlFamily     family;
  const char  *family_name;
  const char  *dataset;
  guint        table_rows;
  guint        first;
  double       eps;
  PlActivation activation;
  gboolean     pre_ln;
  gboolean     causal;
} DemoCase;

static const DemoCase demo_cases[] = {
  { "mini-gpt2", PL_FAMILY_GPT2, "gpt2", GPT2_WPE, 512, 0, 1e-5, PL_ACTIVATION_GELU_TANH, TRUE, TRUE },
  { "mini-bert", PL_FAMILY_BERT, "bert", BERT_POS, 512, 0, 1e-12, PL_ACTIVATION_GELU, FALSE, FALSE },
  { "mini-roberta", PL_FAMILY_ROBERTA, "roberta", ROBERTA_POS, 514, 2, 1e-12, PL_ACTIVATION_GELU, FALSE, FALSE },
};

static void
test_demo (gconstpointer data)
{
  const DemoCase *c = data;
  g_autofree char *dir = pl_test_demo (c->folder, NULL);
  g_autofree char *file = pl_test_demo (c->folder, "tf_model.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlMatrix) raw = NULL;
  g_autoptr(PlMatrix) expect = NULL;
  g_autoptr(PlMatrix) positions = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (model);
  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_cmpstr (pl_model_get_family_name (model), ==, c->family_name);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (model)), ==, "hdf5-tf");
  g_assert_cmpstr (pl_model_get_name (model), ==, c->folder);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 256);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 4);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 4);
  g_assert_cmpuint (pl_model_get_ffn_size (model), ==, 1024);
  g_assert_cmpuint (pl_model_get_vocab_size (model), ==, 260);
  g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, c->eps);
  g_assert_cmpint (pl_model_get_activation (model), ==, c->activation);
  g_assert_cmpint (pl_model_get_pre_ln (model), ==, c->pre_ln);
  g_assert_cmpint (pl_model_get_causal (model), ==, c->causal);
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, c->dataset);
  g_assert_cmpuint (pl_model_get_position_table_rows (model), ==, c->table_rows);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, c->first);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 512);
  g_assert_true (pl_model_require_config (model, &error));
  g_assert_no_error (error);

  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  raw = pl_test_read_h5 (file, c->dataset);
  expect = pl_matrix_slice_rows (raw, c->first, 512);
  g_assert_cmpuint (positions->rows, ==, 512);
  g_assert_cmpuint (positions->cols, ==, 256);
  g_assert_cmpmem (positions->data, 512 * 256 * sizeof (float), expect->data, 512 * 256 * sizeof (float));
}

/* RoBERTa's padding row is all zeros and must not be among the positions. */
static void
test_roberta_padding_row (void)
{
  g_autofree char *file = pl_test_demo ("mini-roberta", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) raw = pl_test_read_h5 (file, ROBERTA_POS);
  gboolean zero = TRUE;

  for (gsize j = 0; j < raw->cols; j++)
    zero = zero && pl_matrix_get (raw, 1, j) == 0.0f;
  g_assert_true (zero);
}

/* The checkpoint lists every dataset, and reads any row range. */
static void
test_checkpoint_rows (void)
{
  g_autofree char *file = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) ckpt = pl_checkpoint_open (file, &error);
  g_autoptr(PlMatrix) raw = pl_test_read_h5 (file, BERT_POS);
  g_autoptr(PlMatrix) some = NULL;
  const PlTensorInfo *info;

  g_assert_no_error (error);
  /* 5 embedding tensors, 16 per layer, 5 in the MLM head (h5ls -r counts 74). */
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (ckpt), ==, 5 + 4 * 16 + 5);
  info = pl_checkpoint_find_tensor (ckpt, BERT_POS + 1);
  g_assert_nonnull (info);
  g_assert_cmpuint (info->rank, ==, 2);
  g_assert_cmpuint (info->shape[0], ==, 512);
  g_assert_cmpuint (info->shape[1], ==, 256);
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_F32);
  g_assert_nonnull (pl_checkpoint_get_config (ckpt));

  some = pl_checkpoint_read_rows (ckpt, BERT_POS, 100, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (some->data, 7 * 256 * sizeof (float), pl_matrix_row (raw, 100), 7 * 256 * sizeof (float));

  g_assert_null (pl_checkpoint_read_rows (ckpt, BERT_POS, 510, 3, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (pl_checkpoint_read (ckpt, "/no/such/dataset", &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "tf_model.h5"));
}

/* Any 2-D dataset of any HDF5 file, as a plain table. */
static void
test_plain_table (void)
{
  g_autofree char *file = pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (file, "/position_embeddings", NULL, &error);
  g_autoptr(PlMatrix) raw = pl_test_read_h5 (file, "/position_embeddings");
  g_autoptr(PlMatrix) positions = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_TABLE);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, 0);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 0);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (positions, raw), ==, 0.0);

  g_assert_false (pl_model_require_config (model, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
}

/* Naming a model's own position table keeps its real-position rows (RoBERTa:
 * 2..513, not the zero padding row); naming another 2-D tensor makes a plain
 * table of all its rows. */
static void
test_dataset_choice (void)
{
  g_autofree char *dir = pl_test_demo ("mini-roberta", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) own = pl_model_open (dir, ROBERTA_POS, NULL, &error);
  g_autoptr(PlModel) other = NULL;
  g_autoptr(PlMatrix) positions = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (own), ==, PL_FAMILY_ROBERTA);
  g_assert_cmpuint (pl_model_get_first_position (own), ==, 2);
  positions = pl_model_read_positions (own, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, 512);

  other = pl_model_open (dir, "/roberta/tf_roberta_for_masked_lm/roberta/embeddings/word_embeddings/weight:0", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (other), ==, PL_FAMILY_TABLE);
  g_assert_cmpuint (pl_model_get_first_position (other), ==, 0);
  g_assert_cmpuint (pl_model_get_n_positions (other), ==, 260);
  g_assert_cmpuint (pl_model_get_n_layers (other), ==, 0);
}

/* builtin: specs become analytic models whose table is the encoding's. */
static void
test_builtin (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:sinusoidal:64x32", NULL, NULL, &error);
  g_autoptr(PlMatrix) positions = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_ANALYTIC);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 64);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 32);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  /* PE[p, 2k] = sin(p / 10000^(2k/32)), PE[p, 2k+1] = cos(...) */
  for (guint p = 0; p < 64; p += 7)
    for (guint k = 0; k < 16; k++)
      {
        double angle = p / pow (10000.0, 2.0 * k / 32);

        g_assert_cmpfloat_with_epsilon (pl_matrix_get (positions, p, 2 * k), sin (angle), 1e-5);
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (positions, p, 2 * k + 1), cos (angle), 1e-5);
      }

  g_clear_object (&model);
  model = pl_model_open ("builtin:nonsense", NULL, NULL, &error);
  g_assert_null (model);
  g_assert_nonnull (error);
}

/* poslens-cli info --json on a demo checkpoint: the fields others rely on. */
static void
test_cli_info_json (void)
{
  g_autofree char *dir = pl_test_demo ("mini-roberta", NULL);
  const char *cli = g_getenv ("POSLENS_CLI");
  const char *argv[] = { cli, "info", dir, "--json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *table;
  int status;

  if (cli == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set");
      return;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (err, ==, "");
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "hdf5-tf");
  g_assert_cmpstr (json_object_get_string_member (root, "family"), ==, "roberta");
  g_assert_cmpint (json_object_get_int_member (root, "layers"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "heads"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "hidden"), ==, 256);
  g_assert_cmpfloat (json_object_get_double_member (root, "layer_norm_eps"), ==, 1e-12);
  g_assert_cmpstr (json_object_get_string_member (root, "activation"), ==, "gelu");
  g_assert_false (json_object_get_boolean_member (root, "causal"));
  g_assert_cmpint (json_object_get_int_member (root, "tensor_count"), ==, 74);
  table = json_object_get_object_member (root, "position_table");
  g_assert_cmpstr (json_object_get_string_member (table, "name"), ==, ROBERTA_POS);
  g_assert_cmpint (json_object_get_int_member (table, "rows"), ==, 514);
  g_assert_cmpint (json_object_get_int_member (table, "cols"), ==, 256);
  g_assert_cmpint (json_object_get_int_member (table, "first_position"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (table, "dtype"), ==, "float32");
}

/* Models opened and read on several threads at once (as the app's workers
 * do) give exactly what one thread reads. The readers serialise HDF5 on the
 * global lock; this machine's libhdf5 happens to be built thread-safe too
 * (H5_HAVE_THREADSAFE), so this checks our own state, not HDF5's. */
static gpointer
open_and_read (gpointer data)
{
  const char *folder = data;
  g_autofree char *dir = pl_test_demo (folder, NULL);
  PlMatrix *last = NULL;

  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
      PlCheckpoint *ckpt;
      PlMatrix *positions;

      g_assert_no_error (error);
      ckpt = pl_model_get_checkpoint (model);
      /* Many small reads, so the threads' HDF5 calls interleave. */
      for (guint r = 0; r < 150; r++)
        {
          g_autoptr(PlMatrix) rows = pl_checkpoint_read_rows (ckpt, pl_model_get_position_table_name (model),
                                                              (r * 37) % 500, 4, &error);

          g_assert_no_error (error);
          g_assert_cmpuint (rows->rows, ==, 4);
        }
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      g_clear_pointer (&last, pl_matrix_unref);
      last = positions;
    }
  return last;
}

static void
test_threads (void)
{
  static const char * const folders[] = { "mini-gpt2", "mini-bert", "mini-roberta", "mini-gpt2" };
  GThread *threads[G_N_ELEMENTS (folders)];

  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    threads[i] = g_thread_new ("reader", open_and_read, (gpointer) folders[i]);
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autoptr(PlMatrix) got = g_thread_join (threads[i]);
      g_autofree char *file = pl_test_demo (folders[i], "tf_model.h5", NULL);
      const char *dataset = g_str_equal (folders[i], "mini-gpt2") ? GPT2_WPE
                            : g_str_equal (folders[i], "mini-bert") ? BERT_POS : ROBERTA_POS;
      guint first = g_str_equal (folders[i], "mini-roberta") ? 2 : 0;
      g_autoptr(PlMatrix) raw = pl_test_read_h5 (file, dataset);
      g_autoptr(PlMatrix) expect = pl_matrix_slice_rows (raw, first, 512);

      g_assert_cmpfloat (pl_test_max_abs_diff (got, expect), ==, 0.0);
    }
}

/* Tensors of rank 3 read whole as [d0 × d1, d2]; HDF5 row ranges of them are
 * refused, safetensors ones (contiguous) are served. */
static void
test_rank3 (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *h5 = g_build_filename (tmp, "cube.h5", NULL);
  g_autofree char *st = g_build_filename (tmp, "cube.safetensors", NULL);
  g_autofree float *v = pl_test_exact_values (6, 5);
  g_autoptr(PlMatrix) expect = pl_matrix_new_from (6, 5, v);
  g_autoptr(PlMatrix) expect_rows = pl_matrix_slice_rows (expect, 2, 3);
  const PlTestTensor tensor = { "cube", "F32", 3, { 2, 3, 5 }, v };
  guint64 dims[3] = { 2, 3, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) a = NULL;
  g_autoptr(PlCheckpoint) b = NULL;
  g_autoptr(PlMatrix) ma = NULL;
  g_autoptr(PlMatrix) mb = NULL;
  g_autoptr(PlMatrix) rows = NULL;
  hid_t file = H5Fcreate (h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

  pl_test_h5_put (file, "/cube", 3, dims, v);
  H5Fclose (file);
  pl_test_write_safetensors (st, &tensor, 1);

  a = pl_checkpoint_open (h5, &error);
  g_assert_no_error (error);
  b = pl_checkpoint_open (st, &error);
  g_assert_no_error (error);
  ma = pl_checkpoint_read (a, "/cube", &error);
  g_assert_no_error (error);
  mb = pl_checkpoint_read (b, "cube", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (ma, expect), ==, 0.0);
  g_assert_cmpfloat (pl_test_max_abs_diff (mb, expect), ==, 0.0);
  rows = pl_checkpoint_read_rows (b, "cube", 2, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (rows, expect_rows), ==, 0.0);
  g_assert_null (pl_checkpoint_read_rows (a, "/cube", 2, 3, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  g_clear_object (&a);
  g_clear_object (&b);

  /* A folder with one weight file of any name opens as that file. */
  {
    g_autofree char *dir = g_build_filename (tmp, "one", NULL);
    g_autofree char *inside = g_build_filename (dir, "weights.safetensors", NULL);
    g_autoptr(PlCheckpoint) c = NULL;

    g_mkdir (dir, 0700);
    pl_test_write_safetensors (inside, &tensor, 1);
    c = pl_checkpoint_open (dir, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (pl_checkpoint_get_path (c), ==, inside);
  }
  pl_test_rmtree (tmp);
}

/* Safetensors headers as writers lay them out are scanned without a JSON
 * tree; anything else (escapes, other members, exponents, a nested value)
 * goes to json-glib. Either way the listing is the one written here. */
typedef struct
{
  const char *name;
  const char *dtype;
  guint       rank;
  guint64     shape[3];
  guint64     begin, end;
} HeaderTensor;

static const HeaderTensor header_tensors[] = {
  { "transformer.wpe.weight", "F32", 2, { 4, 2 }, 0, 32 },
  { "transformer.h.0.ln_1.bias", "BF16", 1, { 2 }, 32, 36 },
  { "a name with spaces, “quotes” and ünïcode", "F16", 3, { 1, 2, 1 }, 36, 40 },
  { "scalar", "F64", 0, { 0 }, 40, 48 },
  { "empty", "F32", 2, { 0, 4 }, 48, 48 },
};

static void
test_safetensors_header_layouts (void)
{
  static const struct
  {
    const char *header;
    gboolean    scanned;
  } layouts[] = {
    /* As safetensors' Python writer: metadata first, ", " and ": ". */
    { "{\"__metadata__\": {\"format\": \"pt\"}, "
      "\"transformer.wpe.weight\": {\"dtype\": \"F32\", \"shape\": [4, 2], \"data_offsets\": [0, 32]}, "
      "\"transformer.h.0.ln_1.bias\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [32, 36]}, "
      "\"a name with spaces, “quotes” and ünïcode\": {\"dtype\": \"F16\", \"shape\": [1, 2, 1], \"data_offsets\": [36, 40]}, "
      "\"scalar\": {\"dtype\": \"F64\", \"shape\": [], \"data_offsets\": [40, 48]}, "
      "\"empty\": {\"dtype\": \"F32\", \"shape\": [0, 4], \"data_offsets\": [48, 48]}}        ", TRUE },
    /* As the Rust one: no spaces, members in another order, metadata last. */
    { "{\"transformer.wpe.weight\":{\"shape\":[4,2],\"dtype\":\"F32\",\"data_offsets\":[0,32]},"
      "\"transformer.h.0.ln_1.bias\":{\"data_offsets\":[32,36],\"shape\":[2],\"dtype\":\"BF16\"},"
      "\"a name with spaces, “quotes” and ünïcode\":{\"dtype\":\"F16\",\"data_offsets\":[36,40],\"shape\":[1,2,1]},"
      "\"scalar\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[40,48]},"
      "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[48,48]},\"__metadata__\":{}}", TRUE },
    /* Indented, tabs and CRLF. */
    { "{\r\n\t\"transformer.wpe.weight\" : { \"dtype\" : \"F32\" , \"shape\" : [ 4 , 2 ] , \"data_offsets\" : [ 0 , 32 ] } ,\n"
      "\t\"transformer.h.0.ln_1.bias\" : {\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[32,36]},\n"
      "\t\"a name with spaces, “quotes” and ünïcode\":{\"dtype\":\"F16\",\"shape\":[1,2,1],\"data_offsets\":[36,40]},\n"
      "\t\"scalar\":{\"dtype\":\"F64\",\"shape\":[ ],\"data_offsets\":[40,48]},\n"
      "\t\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[48,48]}\r\n}\n", TRUE },
    /* For json-glib: escapes in names, other members, a nested metadata
     * value, an exponent-free float is not plain either. */
    { "{\"transformer.wpe.\\u0077eight\":{\"dtype\":\"F32\",\"shape\":[4,2],\"data_offsets\":[0,32],\"x\":[1,{}]},"
      "\"transformer.h.0.ln_1.bias\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[32,36]},"
      "\"a name with spaces, \\u201cquotes\\u201d and \\u00fcn\\u00efcode\":{\"dtype\":\"F16\",\"shape\":[1,2,1],\"data_offsets\":[36,40]},"
      "\"scalar\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[40,48]},"
      "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[48,48]},"
      "\"__metadata__\":{\"nested\":{\"a\":[1,2]}}}", FALSE },
  };
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "layout.safetensors", NULL);

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    {
      g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (PlSafetensorsEntry));
      g_autoptr(PlCheckpoint) checkpoint = NULL;
      g_autoptr(GError) error = NULL;
      const char *header = layouts[l].header;

      g_assert_true (pl_safetensors_header_scan (header, strlen (header), entries) == layouts[l].scanned);
      g_assert_cmpuint (entries->len, ==, layouts[l].scanned ? G_N_ELEMENTS (header_tensors) : 0);
      for (guint i = 0; i < entries->len; i++)
        {
          const PlSafetensorsEntry *e = &g_array_index (entries, PlSafetensorsEntry, i);
          const HeaderTensor *t = &header_tensors[i];

          g_assert_cmpmem (e->name, e->name_len, t->name, strlen (t->name));
          g_assert_cmpmem (e->dtype, e->dtype_len, t->dtype, strlen (t->dtype));
          g_assert_cmpuint (e->rank, ==, t->rank);
          g_assert_cmpmem (e->shape, e->rank * sizeof (guint64), t->shape, t->rank * sizeof (guint64));
          g_assert_cmpuint (e->begin, ==, t->begin);
          g_assert_cmpuint (e->end, ==, t->end);
        }

      /* Opened, both ways give the listing written. */
      pl_test_write_raw_safetensors (path, strlen (header), header, 48);
      checkpoint = pl_checkpoint_open (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (pl_checkpoint_get_n_tensors (checkpoint), ==, G_N_ELEMENTS (header_tensors));
      for (guint i = 0; i < G_N_ELEMENTS (header_tensors); i++)
        {
          const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
          const HeaderTensor *t = &header_tensors[i];

          g_assert_cmpstr (info->name, ==, t->name);
          g_assert_cmpstr (info->dtype_name, ==, t->dtype);
          g_assert_cmpuint (info->rank, ==, t->rank);
          g_assert_cmpmem (info->shape, info->rank * sizeof (guint64), t->shape, t->rank * sizeof (guint64));
        }
    }

  /* What the scanner leaves to json-glib, and json-glib refuses. */
  {
    static const char * const refused[] = {
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,1.6e1]}}",
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[-2,2],\"data_offsets\":[0,16]}}",
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16,32]}}",
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2]}}",
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},}",
    };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (PlSafetensorsEntry));
        g_autoptr(PlCheckpoint) checkpoint = NULL;
        g_autoptr(GError) error = NULL;

        g_assert_false (pl_safetensors_header_scan (refused[i], strlen (refused[i]), entries));
        g_assert_cmpuint (entries->len, ==, 0);
        pl_test_write_raw_safetensors (path, strlen (refused[i]), refused[i], 32);
        checkpoint = pl_checkpoint_open (path, &error);
        g_assert_null (checkpoint);
        g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
        g_test_message ("%s", error->message);
      }
  }
  pl_test_rmtree (dir);
}

/* safetensors weights are used in place, from the file mapped read-only,
 * where their bytes allow it (aligned to their element size), and read
 * otherwise: the same values either way, and a view outlives the
 * checkpoint that made it. */
static void
test_stored_in_place (void)
{
  /* the header padded to 304 bytes, so the data starts at byte 312: BF16
   * 2 × 3 at 0, F32 1 × 2 at 12, F16 3 at 20, F32 2 at 26 (not aligned to
   * 4: read), BF16 at 34 */
  static const char header[] =
    "{\"bf16\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
    "\"f32\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[12,20]},"
    "\"f16\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[20,26]},"
    "\"f32-odd\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[26,34]},"
    "\"bf16-last\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[34,36]}}  ";
  static const struct { const char *name; gboolean view; float values[6]; } expected[] = {
    { "bf16", TRUE, { 1.0f, -2.0f, 0.5f, 3.0f, -0.25f, 8.0f } },
    { "f32", TRUE, { 1.1f, -7.3f } },
    { "f16", TRUE, { 0.5f, -1.5f, 2.0f } },
    { "f32-odd", FALSE, { 3.3f, -0.1f } },
    { "bf16-last", TRUE, { -4.0f } },
  };
  guint8 data[36];
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "in-place.safetensors", NULL);
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_stored_matrix_unref);
  g_autoptr(GError) error = NULL;
  guint64 header_len = GUINT64_TO_LE (sizeof header - 1);
  guint16 halves[3] = { GUINT16_TO_LE (0x3800), GUINT16_TO_LE (0xbe00), GUINT16_TO_LE (0x4000) };
  gsize at = 0;

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    for (guint j = 0; j < (i == 0 ? 6 : i == 2 ? 3 : i == 4 ? 1 : 2); j++)
      {
        float v = expected[i].values[j];
        guint32 bits;

        memcpy (&bits, &v, 4);
        bits = GUINT32_TO_LE (bits);
        if (i == 0 || i == 4)
          {
            guint16 b = GUINT16_TO_LE ((guint16) (GUINT32_FROM_LE (bits) >> 16));

            memcpy (data + at, &b, 2);
            at += 2;
          }
        else if (i == 2)
          {
            memcpy (data + at, &halves[j], 2);
            at += 2;
          }
        else
          {
            memcpy (data + at, &bits, 4);
            at += 4;
          }
      }
  g_assert_cmpuint (at, ==, sizeof data);
  g_assert_cmpuint ((8 + sizeof header - 1) % 8, ==, 0);
  g_byte_array_append (file, (const guint8 *) &header_len, 8);
  g_byte_array_append (file, (const guint8 *) header, sizeof header - 1);
  g_byte_array_append (file, data, sizeof data);
  g_assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));

  checkpoint = pl_checkpoint_open (path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      PlStoredMatrix *m = pl_checkpoint_read_stored (checkpoint, expected[i].name, &error);

      g_assert_no_error (error);
      g_assert_cmpint (pl_stored_matrix_is_borrowed (m), ==, expected[i].view);
      g_ptr_array_add (kept, m);
    }
  g_clear_object (&checkpoint);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      PlStoredMatrix *m = kept->pdata[i];
      float got[6];

      pl_stored_matrix_to_float (m, 0, m->rows, got);
      for (gsize j = 0; j < m->rows * m->cols; j++)
        g_assert_cmpfloat (got[j], ==, expected[i].values[j]);
    }
  pl_test_rmtree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (demo_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/checkpoint/demo/%s", demo_cases[i].folder);

      g_test_add_data_func (path, &demo_cases[i], test_demo);
    }
  g_test_add_func ("/pl/checkpoint/roberta-padding-row", test_roberta_padding_row);
  g_test_add_func ("/pl/checkpoint/rows", test_checkpoint_rows);
  g_test_add_func ("/pl/checkpoint/plain-table", test_plain_table);
  g_test_add_func ("/pl/checkpoint/dataset-choice", test_dataset_choice);
  g_test_add_func ("/pl/checkpoint/builtin", test_builtin);
  g_test_add_func ("/pl/checkpoint/cli-info-json", test_cli_info_json);
  g_test_add_func ("/pl/checkpoint/threads", test_threads);
  g_test_add_func ("/pl/checkpoint/rank3", test_rank3);
  g_test_add_func ("/pl/checkpoint/safetensors-header-layouts", test_safetensors_header_layouts);
  g_test_add_func ("/pl/checkpoint/stored-in-place", test_stored_in_place);

  return g_test_run ();
}
