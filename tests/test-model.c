/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-hdf5.h"
#include "pl-model.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

#define GPT2_TF "/transformer/tfgp_t2lm_head_model/transformer/"
#define BERT_TF "/bert/tf_bert_for_masked_lm/bert/"
#define ROBERTA_TF "/roberta/tf_roberta_for_masked_lm/roberta/"

static const char * const role_names[] = {
  "token", "position", "token-type", "embed-ln-w", "embed-ln-b",
  "q-w", "q-b", "k-w", "k-b", "v-w", "v-b", "attn-out-w", "attn-out-b",
  "ln1-w", "ln1-b", "ffn-in-w", "ffn-in-b", "ffn-out-w", "ffn-out-b",
  "ln2-w", "ln2-b", "final-ln-w", "final-ln-b",
};

static gboolean
is_per_layer (PlWeight w)
{
  return w >= PL_WEIGHT_Q_WEIGHT && w <= PL_WEIGHT_LN2_BIAS;
}

static void
copy_file (const char *from,
           const char *to)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  g_file_get_contents (from, &contents, &len, &error);
  g_assert_no_error (error);
  g_file_set_contents (to, contents, len, &error);
  g_assert_no_error (error);
}

/* Every weight of model A equals model B's bit for bit, shapes included;
 * roles the family does not have fail in both. Returns how many matched. */
static guint
assert_same_weights (PlModel *a,
                     PlModel *b)
{
  guint matched = 0;

  g_assert_cmpuint (pl_model_get_n_layers (a), ==, pl_model_get_n_layers (b));
  for (int w = 0; w < (int) G_N_ELEMENTS (role_names); w++)
    for (int layer = 0; layer < (is_per_layer (w) ? (int) pl_model_get_n_layers (a) : 1); layer++)
      {
        g_autoptr(GError) ea = NULL;
        g_autoptr(GError) eb = NULL;
        g_autoptr(PlMatrix) ma = pl_model_read_weight (a, w, layer, &ea);
        g_autoptr(PlMatrix) mb = pl_model_read_weight (b, w, layer, &eb);

        if (ma == NULL || mb == NULL)
          {
            if (ma != NULL || mb != NULL)
              g_error ("%s layer %d: read from one format only (%s)", role_names[w], layer,
                       ea ? ea->message : eb->message);
            g_assert_error (ea, PL_ERROR, PL_ERROR_NOT_FOUND);
            g_assert_error (eb, PL_ERROR, PL_ERROR_NOT_FOUND);
            continue;
          }
        if (ma->rows != mb->rows || ma->cols != mb->cols)
          g_error ("%s layer %d: %zu×%zu vs %zu×%zu", role_names[w], layer,
                   ma->rows, ma->cols, mb->rows, mb->cols);
        g_assert_cmpmem (ma->data, ma->rows * ma->cols * 4, mb->data, mb->rows * mb->cols * 4);
        matched++;
      }
  return matched;
}

/* mini-gpt2's tf_model.h5 and model.safetensors hold the same weights. */
static void
test_gpt2_formats_agree (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *demo = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *config = pl_test_demo ("mini-gpt2", "config.json", NULL);
  g_autofree char *fixture = pl_test_fixture ("mini-gpt2", "model.safetensors", NULL);
  g_autofree char *st = g_build_filename (tmp, "model.safetensors", NULL);
  g_autofree char *st_config = g_build_filename (tmp, "config.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) tf = NULL;
  g_autoptr(PlModel) sf = NULL;

  copy_file (fixture, st);
  copy_file (config, st_config);
  tf = pl_model_open (demo, NULL, NULL, &error);
  g_assert_no_error (error);
  sf = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (sf)), ==, "safetensors");
  g_assert_cmpint (pl_model_get_family (sf), ==, PL_FAMILY_GPT2);
  g_assert_cmpuint (pl_model_get_n_heads (sf), ==, 4);
  /* 2 embeddings + 16 per layer × 4 + ln_f's 2. */
  g_assert_cmpuint (assert_same_weights (tf, sf), ==, 2 + 16 * 4 + 2);

  g_clear_object (&sf);
  pl_test_rmtree (tmp);
}

/* GPT-2's fused c_attn [hidden, 3 hidden] is Q | K | V by columns; Conv1D
 * weights are [in, out] already. Checked against raw HDF5 reads. */
static void
test_gpt2_roles (void)
{
  g_autofree char *demo = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *file = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (demo, NULL, NULL, &error);
  g_autoptr(PlMatrix) c_attn = pl_test_read_h5 (file, GPT2_TF "h_._2/attn/c_attn/weight:0");
  g_autoptr(PlMatrix) c_attn_b = pl_test_read_h5 (file, GPT2_TF "h_._2/attn/c_attn/bias:0");
  g_autoptr(PlMatrix) c_fc = pl_test_read_h5 (file, GPT2_TF "h_._2/mlp/c_fc/weight:0");
  g_autoptr(PlMatrix) ln_f = pl_test_read_h5 (file, GPT2_TF "ln_f/gamma:0");

  g_assert_no_error (error);
  for (guint part = 0; part < 3; part++)
    {
      g_autoptr(PlMatrix) w = pl_model_read_weight (model, PL_WEIGHT_Q_WEIGHT + 2 * part, 2, &error);
      g_autoptr(PlMatrix) b = pl_model_read_weight (model, PL_WEIGHT_Q_BIAS + 2 * part, 2, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (w->rows, ==, 256);
      g_assert_cmpuint (w->cols, ==, 256);
      g_assert_cmpuint (b->rows, ==, 1);
      g_assert_cmpuint (b->cols, ==, 256);
      for (gsize i = 0; i < 256; i++)
        for (gsize j = 0; j < 256; j++)
          g_assert_cmpfloat (pl_matrix_get (w, i, j), ==, pl_matrix_get (c_attn, i, part * 256 + j));
      for (gsize j = 0; j < 256; j++)
        g_assert_cmpfloat (b->data[j], ==, c_attn_b->data[part * 256 + j]);
    }
  {
    g_autoptr(PlMatrix) w = pl_model_read_weight (model, PL_WEIGHT_FFN_IN_WEIGHT, 2, &error);
    g_autoptr(PlMatrix) g = pl_model_read_weight (model, PL_WEIGHT_FINAL_LN_WEIGHT, -1, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (w->rows, ==, 256);
    g_assert_cmpuint (w->cols, ==, 1024);
    g_assert_cmpfloat (pl_test_max_abs_diff (w, c_fc), ==, 0.0);
    g_assert_cmpfloat (pl_test_max_abs_diff (g, ln_f), ==, 0.0);
  }

  g_assert_null (pl_model_read_weight (model, PL_WEIGHT_Q_WEIGHT, 4, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (pl_model_read_weight (model, PL_WEIGHT_TOKEN_TYPE_EMBEDDING, -1, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
}

/* A BERT-layout checkpoint in PyTorch naming: which tf_model.h5 dataset each
 * name comes from, and whether it is a Dense kernel (nn.Linear stores the
 * transpose). Written independently of the reader's own name mapping. */
typedef struct
{
  const char *pt;
  const char *tf;
  gboolean    kernel;
} NameMap;

static const NameMap bert_embeddings[] = {
  { "embeddings.word_embeddings.weight", "embeddings/word_embeddings/weight:0", FALSE },
  { "embeddings.position_embeddings.weight", "embeddings/position_embeddings/embeddings:0", FALSE },
  { "embeddings.token_type_embeddings.weight", "embeddings/token_type_embeddings/embeddings:0", FALSE },
  { "embeddings.LayerNorm.weight", "embeddings/LayerNorm/gamma:0", FALSE },
  { "embeddings.LayerNorm.bias", "embeddings/LayerNorm/beta:0", FALSE },
};

static const NameMap bert_layer[] = {
  { "attention.self.query.weight", "attention/self/query/kernel:0", TRUE },
  { "attention.self.query.bias", "attention/self/query/bias:0", FALSE },
  { "attention.self.key.weight", "attention/self/key/kernel:0", TRUE },
  { "attention.self.key.bias", "attention/self/key/bias:0", FALSE },
  { "attention.self.value.weight", "attention/self/value/kernel:0", TRUE },
  { "attention.self.value.bias", "attention/self/value/bias:0", FALSE },
  { "attention.output.dense.weight", "attention/output/dense/kernel:0", TRUE },
  { "attention.output.dense.bias", "attention/output/dense/bias:0", FALSE },
  { "attention.output.LayerNorm.weight", "attention/output/LayerNorm/gamma:0", FALSE },
  { "attention.output.LayerNorm.bias", "attention/output/LayerNorm/beta:0", FALSE },
  { "intermediate.dense.weight", "intermediate/dense/kernel:0", TRUE },
  { "intermediate.dense.bias", "intermediate/dense/bias:0", FALSE },
  { "output.dense.weight", "output/dense/kernel:0", TRUE },
  { "output.dense.bias", "output/dense/bias:0", FALSE },
  { "output.LayerNorm.weight", "output/LayerNorm/gamma:0", FALSE },
  { "output.LayerNorm.bias", "output/LayerNorm/beta:0", FALSE },
};

typedef struct
{
  GPtrArray *names;
  GPtrArray *matrices;
  GArray    *tensors;   /* PlTestTensor */
} PtTensors;

static void
pt_add (PtTensors  *pt,
        const char *file,
        const char *tf_prefix,
        const char *pt_name,
        const char *tf_name,
        gboolean    kernel,
        gboolean    vector)
{
  g_autofree char *tf_path = g_strconcat (tf_prefix, tf_name, NULL);
  PlMatrix *m = pl_test_read_h5 (file, tf_path);
  PlTestTensor t = { 0 };

  if (kernel)
    {
      PlMatrix *tr = pl_matrix_new (m->cols, m->rows);

      for (gsize i = 0; i < m->rows; i++)
        for (gsize j = 0; j < m->cols; j++)
          tr->data[j * m->rows + i] = m->data[i * m->cols + j];
      pl_matrix_unref (m);
      m = tr;
    }
  g_ptr_array_add (pt->names, g_strdup (pt_name));
  g_ptr_array_add (pt->matrices, m);
  t.name = g_ptr_array_index (pt->names, pt->names->len - 1);
  t.dtype = "F32";
  t.rank = vector ? 1 : 2;
  t.shape[0] = vector ? m->cols : m->rows;
  t.shape[1] = m->cols;
  t.data = m->data;
  g_array_append_val (pt->tensors, t);
}

/* Writes FAMILY's (bert or roberta) weights from the demo tf_model.h5 in
 * PyTorch layout, into SHARDS files (model.safetensors, or sharded with an
 * index), with the demo's config.json beside them. */
static void
write_pt_bert_like (const char *family,
                    const char *dir,
                    guint       shards)
{
  g_autofree char *folder = g_strdup_printf ("mini-%s", family);
  g_autofree char *file = pl_test_demo (folder, "tf_model.h5", NULL);
  g_autofree char *config = pl_test_demo (folder, "config.json", NULL);
  g_autofree char *config_to = g_build_filename (dir, "config.json", NULL);
  g_autofree char *tf_prefix = g_strdup_printf ("/%s/tf_%s_for_masked_lm/%s/", family, family, family);
  PtTensors pt = { g_ptr_array_new_with_free_func (g_free),
                   g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref),
                   g_array_new (FALSE, TRUE, sizeof (PlTestTensor)) };

  for (guint i = 0; i < G_N_ELEMENTS (bert_embeddings); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s.%s", family, bert_embeddings[i].pt);

      pt_add (&pt, file, tf_prefix, name, bert_embeddings[i].tf, FALSE, strstr (name, "LayerNorm") != NULL);
    }
  for (guint layer = 0; layer < 4; layer++)
    for (guint i = 0; i < G_N_ELEMENTS (bert_layer); i++)
      {
        g_autofree char *name = g_strdup_printf ("%s.encoder.layer.%u.%s", family, layer, bert_layer[i].pt);
        g_autofree char *tf = g_strdup_printf ("encoder/layer_._%u/%s", layer, bert_layer[i].tf);

        pt_add (&pt, file, tf_prefix, name, tf, bert_layer[i].kernel, !bert_layer[i].kernel);
      }

  if (shards == 1)
    {
      g_autofree char *out = g_build_filename (dir, "model.safetensors", NULL);

      pl_test_write_safetensors (out, (PlTestTensor *) pt.tensors->data, pt.tensors->len);
    }
  else
    {
      g_autoptr(GString) index = g_string_new ("{\"metadata\": {}, \"weight_map\": {");
      g_autofree char *index_path = g_build_filename (dir, "model.safetensors.index.json", NULL);
      guint per_shard = (pt.tensors->len + shards - 1) / shards;

      for (guint s = 0; s < shards; s++)
        {
          g_autofree char *shard_name = g_strdup_printf ("model-%05u-of-%05u.safetensors", s + 1, shards);
          g_autofree char *shard_path = g_build_filename (dir, shard_name, NULL);
          guint first = s * per_shard;
          guint n = MIN (per_shard, pt.tensors->len - first);

          pl_test_write_safetensors (shard_path, &g_array_index (pt.tensors, PlTestTensor, first), n);
          for (guint i = first; i < first + n; i++)
            g_string_append_printf (index, "%s\"%s\": \"%s\"", i ? ", " : "",
                                    g_array_index (pt.tensors, PlTestTensor, i).name, shard_name);
        }
      g_string_append (index, "}}");
      pl_test_write_text (index_path, index->str);
    }
  copy_file (config, config_to);

  g_array_unref (pt.tensors);
  g_ptr_array_unref (pt.matrices);
  g_ptr_array_unref (pt.names);
}

/* nn.Linear's [out, in] comes back as [in, out]: the same as the Keras
 * kernels of tf_model.h5, bit for bit. */
static void
test_bert_safetensors (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *demo = pl_test_demo ("mini-bert", NULL);
  g_autofree char *file = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) kernel = pl_test_read_h5 (file, BERT_TF "encoder/layer_._1/intermediate/dense/kernel:0");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) tf = NULL;
  g_autoptr(PlModel) sf = NULL;
  g_autoptr(PlMatrix) w = NULL;

  write_pt_bert_like ("bert", tmp, 1);
  tf = pl_model_open (demo, NULL, NULL, &error);
  g_assert_no_error (error);
  sf = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (sf), ==, PL_FAMILY_BERT);
  g_assert_cmpuint (pl_model_get_hidden_size (sf), ==, 256);
  g_assert_cmpuint (pl_model_get_ffn_size (sf), ==, 1024);
  /* 5 embeddings + 16 per layer. */
  g_assert_cmpuint (assert_same_weights (tf, sf), ==, 5 + 16 * 4);

  w = pl_model_read_weight (sf, PL_WEIGHT_FFN_IN_WEIGHT, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (w->rows, ==, 256);
  g_assert_cmpuint (w->cols, ==, 1024);
  g_assert_cmpfloat (pl_test_max_abs_diff (w, kernel), ==, 0.0);

  g_clear_object (&sf);
  pl_test_rmtree (tmp);
}

/* A sharded RoBERTa: tensors spread over three files named by the index. */
static void
test_roberta_sharded (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *demo = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *file = pl_test_demo ("mini-roberta", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) raw = pl_test_read_h5 (file, ROBERTA_TF "embeddings/position_embeddings/embeddings:0");
  g_autoptr(PlMatrix) expect = pl_matrix_slice_rows (raw, 2, 512);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) tf = NULL;
  g_autoptr(PlModel) sf = NULL;
  g_autoptr(PlMatrix) positions = NULL;

  write_pt_bert_like ("roberta", tmp, 3);
  tf = pl_model_open (demo, NULL, NULL, &error);
  g_assert_no_error (error);
  sf = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (sf)), ==, "safetensors-sharded");
  g_assert_cmpint (pl_model_get_family (sf), ==, PL_FAMILY_ROBERTA);
  g_assert_cmpuint (pl_model_get_first_position (sf), ==, 2);
  g_assert_cmpuint (pl_model_get_n_positions (sf), ==, 512);
  positions = pl_model_read_positions (sf, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (positions, expect), ==, 0.0);
  g_assert_cmpuint (assert_same_weights (tf, sf), ==, 5 + 16 * 4);

  g_clear_object (&sf);
  pl_test_rmtree (tmp);
}

/* F16, BF16 and F64 become float32 exactly; integer tensors are refused by name. */
static void
test_dtypes (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (tmp, "table.safetensors", NULL);
  g_autofree float *values = pl_test_exact_values (40, 24);
  const PlTestTensor tensors[] = {
    { "half", "F16", 2, { 40, 24 }, values },
    { "brain", "BF16", 2, { 40, 24 }, values },
    { "double", "F64", 2, { 40, 24 }, values },
    { "ids", "I64", 2, { 40, 24 }, values },
  };
  const char * const readable[] = { "half", "brain", "double" };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) ckpt = NULL;
  g_autoptr(PlMatrix) expect = pl_matrix_new_from (40, 24, values);

  pl_test_write_safetensors (path, tensors, G_N_ELEMENTS (tensors));
  ckpt = pl_checkpoint_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (ckpt), ==, 4);

  for (guint i = 0; i < G_N_ELEMENTS (readable); i++)
    {
      g_autoptr(PlMatrix) m = pl_checkpoint_read (ckpt, readable[i], &error);
      g_autoptr(PlMatrix) rows = pl_checkpoint_read_rows (ckpt, readable[i], 13, 5, &error);
      g_autoptr(PlMatrix) expect_rows = pl_matrix_slice_rows (expect, 13, 5);
      g_autoptr(PlModel) model = pl_model_open (path, readable[i], NULL, &error);
      g_autoptr(PlMatrix) positions = NULL;

      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (m, expect), ==, 0.0);
      g_assert_cmpfloat (pl_test_max_abs_diff (rows, expect_rows), ==, 0.0);
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (pl_test_max_abs_diff (positions, expect), ==, 0.0);
    }

  g_assert_null (pl_checkpoint_read (ckpt, "ids", &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "I64"));
  g_clear_error (&error);
  g_assert_null (pl_model_open (path, "ids", NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);

  g_clear_object (&ckpt);
  pl_test_rmtree (tmp);
}

/* Without config.json the position table is still usable; running the
 * model is not, and the error says what is missing. */
static void
test_missing_config (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *fixture = pl_test_fixture ("mini-gpt2", "model.safetensors", NULL);
  g_autofree char *st = g_build_filename (tmp, "model.safetensors", NULL);
  g_autofree char *config = g_build_filename (tmp, "config.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;

  copy_file (fixture, st);
  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_GPT2);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 0);
  g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, 0.0);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, 512);
  g_assert_false (pl_model_require_config (model, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "config.json"));
  g_clear_error (&error);
  g_clear_object (&model);

  /* A config without the heads names the key. */
  pl_test_write_text (config, "{\"model_type\": \"gpt2\", \"layer_norm_epsilon\": 1e-5, "
                              "\"activation_function\": \"gelu_new\"}");
  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, 1e-5);
  g_assert_false (pl_model_require_config (model, &error));
  /* GPT-2's config.json calls it n_head. */
  g_assert_nonnull (strstr (error->message, "has no n_head"));
  g_clear_error (&error);
  g_clear_object (&model);

  /* A config that is not JSON is an error naming it. */
  pl_test_write_text (config, "{\"n_head\": ");
  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_null (model);
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "config.json"));

  pl_test_rmtree (tmp);
}

/* float16 in HDF5, as h5py writes numpy's float16: an IEEE half type that
 * HDF5 converts on read. Exact values come back exactly. */
static void
test_hdf5_half (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (tmp, "half.h5", NULL);
  g_autofree float *values = pl_test_exact_values (40, 24);
  g_autoptr(PlMatrix) expect = pl_matrix_new_from (40, 24, values);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  hsize_t dims[2] = { 40, 24 };
  hid_t file, space, type, dset;
  const PlTensorInfo *info;

  file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  type = H5Tcopy (H5T_IEEE_F32LE);
  H5Tset_fields (type, 15, 10, 5, 0, 10);
  H5Tset_precision (type, 16);
  H5Tset_size (type, 2);
  H5Tset_ebias (type, 15);
  space = H5Screate_simple (2, dims, NULL);
  dset = H5Dcreate2 (file, "/position_embeddings", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
  H5Dclose (dset);
  H5Sclose (space);
  H5Tclose (type);
  H5Fclose (file);

  model = pl_model_open (path, NULL, NULL, &error);
  g_assert_no_error (error);
  info = pl_checkpoint_find_tensor (pl_model_get_checkpoint (model), "/position_embeddings");
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_F16);
  g_assert_cmpstr (info->dtype_name, ==, "float16");
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (positions, expect), ==, 0.0);
  g_clear_object (&model);
  pl_test_rmtree (tmp);
}

static gint64
bytes_read_so_far (void)
{
  g_autofree char *io = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/self/io", &io, NULL, NULL))
    return -1;
  p = strstr (io, "rchar:");
  return p ? g_ascii_strtoll (p + 6, NULL, 10) : -1;
}

/* Opening a checkpoint and reading its position table reads the table and
 * metadata, not the other 32 MB of weights (counted by the kernel, rchar). */
static void
test_reads_only_the_table (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *h5_dir = g_build_filename (tmp, "h5", NULL);
  g_autofree char *st_dir = g_build_filename (tmp, "st", NULL);
  g_autofree char *h5 = g_build_filename (h5_dir, "tf_model.h5", NULL);
  g_autofree char *st = g_build_filename (st_dir, "model.safetensors", NULL);
  g_autofree float *big = g_new0 (float, 4096 * 2048);
  g_autofree float *table = pl_test_exact_values (512, 64);
  const PlTestTensor tensors[] = {
    { "bert.embeddings.word_embeddings.weight", "F32", 2, { 4096, 2048 }, big },
    { "bert.embeddings.position_embeddings.weight", "F32", 2, { 512, 64 }, table },
  };
  guint64 big_dims[2] = { 4096, 2048 }, table_dims[2] = { 512, 64 };
  const char * const dirs[] = { h5_dir, st_dir };
  hid_t file;

  if (bytes_read_so_far () < 0)
    {
      g_test_skip ("no /proc/self/io");
      return;
    }
  g_mkdir (h5_dir, 0700);
  g_mkdir (st_dir, 0700);
  file = H5Fcreate (h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  pl_test_h5_put (file, "/bert/tf_bert_model/bert/embeddings/word_embeddings/weight:0", 2, big_dims, big);
  pl_test_h5_put (file, "/bert/tf_bert_model/bert/embeddings/position_embeddings/embeddings:0", 2, table_dims, table);
  H5Fclose (file);
  pl_test_write_safetensors (st, tensors, G_N_ELEMENTS (tensors));

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) model = NULL;
      g_autoptr(PlMatrix) positions = NULL;
      gint64 before = bytes_read_so_far ();
      gint64 used;

      model = pl_model_open (dirs[i], NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_BERT);
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      used = bytes_read_so_far () - before;
      g_test_message ("%s: read %" G_GINT64_FORMAT " bytes for a 128 KiB table in a 32 MiB file",
                      dirs[i], used);
      /* The table is 128 KiB; allow 256 KiB more for headers and metadata. */
      g_assert_cmpint (used, <, 512 * 64 * 4 + 256 * 1024);
      g_assert_cmpmem (positions->data, 512 * 64 * 4, table, 512 * 64 * 4);
    }
  pl_test_rmtree (tmp);
}

/* "mini-bert" on a command line opens the shipped demo, unless a file of
 * that name is in the current folder. */
static void
test_demo_by_name (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *old_cwd = g_get_current_dir ();
  g_autofree char *full = pl_test_demo ("mini-bert", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) by_name = NULL;
  g_autoptr(PlModel) by_path = NULL;
  g_autoptr(PlMatrix) a = NULL;
  g_autoptr(PlMatrix) b = NULL;

  g_assert_cmpint (g_chdir (tmp), ==, 0);
  by_name = pl_model_open ("mini-bert", NULL, NULL, &error);
  g_assert_no_error (error);
  by_path = pl_model_open (full, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_family_display_name (by_name), ==, "BERT");
  a = pl_model_read_positions (by_name, &error);
  g_assert_no_error (error);
  b = pl_model_read_positions (by_path, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (a, b), ==, 0.0);

  /* A file of that name here wins, and is judged as what it is. */
  g_file_set_contents ("mini-bert", "not a checkpoint", -1, &error);
  g_assert_no_error (error);
  g_clear_object (&by_name);
  by_name = pl_model_open ("mini-bert", NULL, NULL, &error);
  g_assert_null (by_name);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (pl_model_open ("mini-nothing", NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);

  g_assert_cmpint (g_chdir (old_cwd), ==, 0);
  pl_test_rmtree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/model/gpt2/formats-agree", test_gpt2_formats_agree);
  g_test_add_func ("/pl/model/gpt2/roles", test_gpt2_roles);
  g_test_add_func ("/pl/model/bert/safetensors", test_bert_safetensors);
  g_test_add_func ("/pl/model/roberta/sharded", test_roberta_sharded);
  g_test_add_func ("/pl/model/dtypes", test_dtypes);
  g_test_add_func ("/pl/model/hdf5-half", test_hdf5_half);
  g_test_add_func ("/pl/model/reads-only-the-table", test_reads_only_the_table);
  g_test_add_func ("/pl/model/missing-config", test_missing_config);
  g_test_add_func ("/pl/model/demo-by-name", test_demo_by_name);

  return g_test_run ();
}
