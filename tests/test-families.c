/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

/* Small synthetic checkpoints of the other families, named as Hugging Face
 * names them. Each tensor is given in its canonical orientation ([in, out]
 * for linear weights, PlSeededTensor with values of its own, below) and
 * written as each format stores it. */
static void
syn_add (GPtrArray  *list,
         char       *pt,
         char       *tf,
         guint       rows,
         guint       cols,
         gboolean    linear)
{
  PlSeededTensor *syn = g_new0 (PlSeededTensor, 1);
  guint n = rows * MAX (cols, 1);

  syn->pt = pt;
  syn->tf = tf;
  syn->rows = rows;
  syn->cols = cols;
  syn->linear = linear;
  syn->values = g_new (float, n);
  /* Distinct, exactly representable, never an all-zero row. */
  for (guint i = 0; i < n; i++)
    syn->values[i] = (float) ((i * 5 + list->len * 3) % 29 + 1) / 16.0f;
  g_ptr_array_add (list, syn);
}

/* Keras layout: every dataset under ROOT (e.g. "/distilbert/tf_x/"). */
static void
write_syn_h5 (hid_t       file,
              const char *root,
              GPtrArray  *list)
{
  for (guint i = 0; i < list->len; i++)
    {
      const PlSeededTensor *syn = g_ptr_array_index (list, i);
      g_autofree char *path = g_strconcat (root, syn->tf, NULL);
      guint64 dims[2] = { syn->rows, syn->cols };

      if (syn->tf != NULL)
        pl_test_h5_put (file, path, syn->cols ? 2 : 1, dims, syn->values);
    }
}

static const PlSeededTensor *
syn_find (GPtrArray  *list,
          const char *pt_suffix)
{
  for (guint i = 0; i < list->len; i++)
    {
      const PlSeededTensor *syn = g_ptr_array_index (list, i);

      if (g_str_has_suffix (syn->pt, pt_suffix))
        return syn;
    }
  g_error ("no synthetic tensor %s", pt_suffix);
  return NULL;
}

/* Reads ROLE and checks it against the canonical values of PT_SUFFIX. */
static void
assert_role (PlModel    *model,
             GPtrArray  *list,
             PlWeight    role,
             int         layer,
             const char *pt_suffix)
{
  const PlSeededTensor *syn = syn_find (list, pt_suffix);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) m = pl_model_read_weight (model, role, layer, &error);
  gsize rows = syn->cols ? syn->rows : 1;
  gsize cols = syn->cols ? syn->cols : syn->rows;

  g_assert_no_error (error);
  g_assert_cmpuint (m->rows, ==, rows);
  g_assert_cmpuint (m->cols, ==, cols);
  g_assert_cmpmem (m->data, rows * cols * sizeof (float), syn->values, rows * cols * sizeof (float));
}

static GPtrArray *
distilbert_tensors (void)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);
  const char *tf = "tf_distil_bert_for_masked_lm/distilbert/";

  syn_add (list, g_strdup ("distilbert.embeddings.word_embeddings.weight"),
           g_strconcat (tf, "embeddings/word_embeddings/weight:0", NULL), 10, 8, FALSE);
  syn_add (list, g_strdup ("distilbert.embeddings.position_embeddings.weight"),
           g_strconcat (tf, "embeddings/position_embeddings/embeddings:0", NULL), 16, 8, FALSE);
  syn_add (list, g_strdup ("distilbert.embeddings.LayerNorm.weight"),
           g_strconcat (tf, "embeddings/LayerNorm/gamma:0", NULL), 8, 0, FALSE);
  for (guint l = 0; l < 2; l++)
    {
      static const char * const lin[] = { "attention.q_lin", "attention.k_lin", "attention.v_lin",
                                          "attention.out_lin", "ffn.lin1", "ffn.lin2" };

      for (guint i = 0; i < G_N_ELEMENTS (lin); i++)
        {
          g_autofree char *tf_name = g_strdup (lin[i]);
          guint in = i == 5 ? 12 : 8, out = i == 4 ? 12 : 8;

          g_strdelimit (tf_name, ".", '/');
          syn_add (list, g_strdup_printf ("distilbert.transformer.layer.%u.%s.weight", l, lin[i]),
                   g_strdup_printf ("%stransformer/layer_._%u/%s/kernel:0", tf, l, tf_name), in, out, TRUE);
          syn_add (list, g_strdup_printf ("distilbert.transformer.layer.%u.%s.bias", l, lin[i]),
                   g_strdup_printf ("%stransformer/layer_._%u/%s/bias:0", tf, l, tf_name), out, 0, FALSE);
        }
      syn_add (list, g_strdup_printf ("distilbert.transformer.layer.%u.sa_layer_norm.weight", l),
               g_strdup_printf ("%stransformer/layer_._%u/sa_layer_norm/gamma:0", tf, l), 8, 0, FALSE);
      syn_add (list, g_strdup_printf ("distilbert.transformer.layer.%u.output_layer_norm.weight", l),
               g_strdup_printf ("%stransformer/layer_._%u/output_layer_norm/gamma:0", tf, l), 8, 0, FALSE);
    }
  return list;
}

/* DistilBERT from safetensors and from Keras HDF5: the same weights by
 * role, [in, out], whatever the file stored. Its epsilon is fixed by its
 * code (1e-12), so config.json need not give it. */
static void
test_distilbert (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *st_dir = g_build_filename (tmp, "st", NULL);
  g_autofree char *tf_dir = g_build_filename (tmp, "tf", NULL);
  g_autofree char *st = g_build_filename (st_dir, "model.safetensors", NULL);
  g_autofree char *h5 = g_build_filename (tf_dir, "tf_model.h5", NULL);
  g_autoptr(GPtrArray) list = distilbert_tensors ();
  const char *config = "{\"model_type\": \"distilbert\", \"n_heads\": 2, \"activation\": \"gelu\", \"pad_token_id\": 0}";
  g_autoptr(GError) error = NULL;
  const char * const dirs[] = { st_dir, tf_dir };
  hid_t file;

  g_mkdir (st_dir, 0700);
  g_mkdir (tf_dir, 0700);
  pl_seeded_write_safetensors (st, list);
  file = H5Fcreate (h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  write_syn_h5 (file, "/distilbert/", list);
  H5Fclose (file);
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *config_path = g_build_filename (dirs[i], "config.json", NULL);
      g_autoptr(PlModel) model = NULL;
      g_autoptr(PlMatrix) positions = NULL;

      pl_test_write_text (config_path, config);
      model = pl_model_open (dirs[i], NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_DISTILBERT);
      g_assert_cmpuint (pl_model_get_n_layers (model), ==, 2);
      g_assert_cmpuint (pl_model_get_n_heads (model), ==, 2);
      g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 8);
      g_assert_cmpuint (pl_model_get_ffn_size (model), ==, 12);
      g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, 1e-12);
      g_assert_cmpint (pl_model_get_activation (model), ==, PL_ACTIVATION_GELU);
      g_assert_false (pl_model_get_causal (model));
      g_assert_false (pl_model_get_pre_ln (model));
      g_assert_true (pl_model_require_config (model, &error));
      g_assert_no_error (error);
      positions = pl_model_read_positions (model, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (positions->data, 16 * 8 * 4, syn_find (list, "position_embeddings.weight")->values, 16 * 8 * 4);
      assert_role (model, list, PL_WEIGHT_Q_WEIGHT, 1, "layer.1.attention.q_lin.weight");
      assert_role (model, list, PL_WEIGHT_FFN_IN_WEIGHT, 0, "layer.0.ffn.lin1.weight");
      assert_role (model, list, PL_WEIGHT_FFN_OUT_WEIGHT, 1, "layer.1.ffn.lin2.weight");
      assert_role (model, list, PL_WEIGHT_FFN_OUT_BIAS, 1, "layer.1.ffn.lin2.bias");
      assert_role (model, list, PL_WEIGHT_LN2_WEIGHT, 0, "layer.0.output_layer_norm.weight");
      assert_role (model, list, PL_WEIGHT_EMBED_LN_WEIGHT, -1, "embeddings.LayerNorm.weight");
    }
  pl_test_rmtree (tmp);
}

typedef struct
{
  const char *prefix;        /* "electra.", "roberta.", "model.decoder.", "albert." */
  const char *config;
  PlFamily    family;
  guint       table_rows;
  guint       first_position;
  guint       layers;
  guint       hidden;
  guint       table_cols;
  gboolean    causal;
  gboolean    pre_ln;
  double      eps;
  PlActivation activation;
} FamilyCase;

static const FamilyCase family_cases[] = {
  /* ELECTRA-small style: embeddings narrower than the encoder; no model_type,
   * so the name prefix tells. */
  { "electra.", "{\"num_attention_heads\": 2, \"layer_norm_eps\": 1e-12, \"hidden_act\": \"gelu\"}",
    PL_FAMILY_ELECTRA, 16, 0, 2, 8, 4, FALSE, FALSE, 1e-12, PL_ACTIVATION_GELU },
  { "roberta.", "{\"model_type\": \"xlm-roberta\", \"num_attention_heads\": 2, \"layer_norm_eps\": 1e-5, "
    "\"hidden_act\": \"gelu\", \"pad_token_id\": 1}",
    PL_FAMILY_XLM_ROBERTA, 18, 2, 2, 8, 8, FALSE, FALSE, 1e-5, PL_ACTIVATION_GELU },
  { "albert.", "{\"model_type\": \"albert\", \"num_attention_heads\": 2, \"num_hidden_layers\": 3, "
    "\"layer_norm_eps\": 1e-12, \"hidden_act\": \"gelu_new\"}",
    PL_FAMILY_ALBERT, 16, 0, 3, 8, 4, FALSE, FALSE, 1e-12, PL_ACTIVATION_GELU_TANH },
  { "model.decoder.", "{\"model_type\": \"opt\", \"num_attention_heads\": 2, \"activation_function\": \"relu\", "
    "\"do_layer_norm_before\": true}",
    PL_FAMILY_OPT, 18, 2, 2, 8, 8, TRUE, TRUE, 1e-5, PL_ACTIVATION_RELU },
};

static GPtrArray *
family_tensors (const FamilyCase *c)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);
  gboolean opt = c->family == PL_FAMILY_OPT;
  gboolean albert = c->family == PL_FAMILY_ALBERT;
  guint e = c->table_cols, h = c->hidden;
  guint stored_layers = albert ? 1 : c->layers;

  syn_add (list, g_strconcat (c->prefix, opt ? "embed_tokens.weight" : "embeddings.word_embeddings.weight", NULL),
           NULL, 10, e, FALSE);
  syn_add (list, g_strconcat (c->prefix, opt ? "embed_positions.weight" : "embeddings.position_embeddings.weight", NULL),
           NULL, c->table_rows, e, FALSE);
  if (e != h)
    syn_add (list, g_strconcat (c->prefix, albert ? "encoder.embedding_hidden_mapping_in.weight" : "embeddings_project.weight", NULL),
             NULL, e, h, TRUE);
  if (opt)
    syn_add (list, g_strconcat (c->prefix, "final_layer_norm.weight", NULL), NULL, h, 0, FALSE);
  for (guint l = 0; l < stored_layers; l++)
    {
      g_autofree char *base = albert ? g_strdup_printf ("%sencoder.albert_layer_groups.0.albert_layers.0.", c->prefix)
                               : opt ? g_strdup_printf ("%slayers.%u.", c->prefix, l)
                               : g_strdup_printf ("%sencoder.layer.%u.", c->prefix, l);
      const char *q = albert ? "attention.query" : opt ? "self_attn.q_proj" : "attention.self.query";
      const char *fc1 = albert ? "ffn" : opt ? "fc1" : "intermediate.dense";
      const char *ln2 = albert ? "full_layer_layer_norm" : opt ? "final_layer_norm" : "output.LayerNorm";

      syn_add (list, g_strconcat (base, q, ".weight", NULL), NULL, h, h, TRUE);
      syn_add (list, g_strconcat (base, q, ".bias", NULL), NULL, h, 0, FALSE);
      syn_add (list, g_strconcat (base, fc1, ".weight", NULL), NULL, h, 12, TRUE);
      syn_add (list, g_strconcat (base, ln2, ".weight", NULL), NULL, h, 0, FALSE);
    }
  return list;
}

static void
test_family (gconstpointer data)
{
  const FamilyCase *c = data;
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *st = g_build_filename (tmp, "model.safetensors", NULL);
  g_autofree char *config = g_build_filename (tmp, "config.json", NULL);
  g_autoptr(GPtrArray) list = family_tensors (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  const PlSeededTensor *table = g_ptr_array_index (list, 1);

  pl_seeded_write_safetensors (st, list);
  pl_test_write_text (config, c->config);
  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_cmpuint (pl_model_get_position_table_rows (model), ==, c->table_rows);
  g_assert_cmpuint (pl_model_get_position_table_cols (model), ==, c->table_cols);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, c->first_position);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, c->layers);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, c->hidden);
  g_assert_cmpuint (pl_model_get_ffn_size (model), ==, 12);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 2);
  g_assert_cmpint (pl_model_get_causal (model), ==, c->causal);
  g_assert_cmpint (pl_model_get_pre_ln (model), ==, c->pre_ln);
  g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, c->eps);
  g_assert_cmpint (pl_model_get_activation (model), ==, c->activation);
  g_assert_true (pl_model_require_config (model, &error));
  g_assert_no_error (error);

  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, c->table_rows - c->first_position);
  g_assert_cmpmem (positions->data, positions->rows * positions->cols * 4,
                   table->values + c->first_position * c->table_cols, positions->rows * positions->cols * 4);

  /* ALBERT shares one layer's weights across all its layers. */
  assert_role (model, list, PL_WEIGHT_Q_WEIGHT, c->layers - 1,
               c->family == PL_FAMILY_ALBERT ? "albert_layers.0.attention.query.weight"
               : c->family == PL_FAMILY_OPT ? "layers.1.self_attn.q_proj.weight"
               : "layer.1.attention.self.query.weight");
  if (c->family == PL_FAMILY_OPT)
    {
      assert_role (model, list, PL_WEIGHT_LN2_WEIGHT, 0, "layers.0.final_layer_norm.weight");
      assert_role (model, list, PL_WEIGHT_FINAL_LN_WEIGHT, -1, "decoder.final_layer_norm.weight");
    }
  pl_test_rmtree (tmp);
}

/* An architecture Poslens does not know: its tensors are listed, and a
 * table named like a position table is picked; others can be chosen. */
static void
test_unknown_architecture (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *st = g_build_filename (tmp, "model.safetensors", NULL);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlModel) other = NULL;
  g_autoptr(PlMatrix) positions = NULL;

  syn_add (list, g_strdup ("net.blocks.0.mixer.weight"), NULL, 6, 6, FALSE);
  syn_add (list, g_strdup ("net.pos_emb"), NULL, 20, 6, FALSE);
  syn_add (list, g_strdup ("net.norm.scale"), NULL, 6, 0, FALSE);
  pl_seeded_write_safetensors (st, list);

  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_TABLE);
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (pl_model_get_checkpoint (model)), ==, 3);
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, "net.pos_emb");
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (positions->data, 20 * 6 * 4, syn_find (list, "pos_emb")->values, 20 * 6 * 4);
  g_assert_null (pl_model_read_weight (model, PL_WEIGHT_Q_WEIGHT, 0, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  other = pl_model_open (st, "net.blocks.0.mixer.weight", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_model_get_n_positions (other), ==, 6);
  pl_test_rmtree (tmp);
}

/* Keras model.save(): weights under /model_weights, optimizer state beside
 * them ignored. Sharded tf_model.h5: datasets at the shards' roots. */
static void
test_keras_and_sharded_h5 (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *keras = g_build_filename (tmp, "model.h5", NULL);
  g_autofree char *shard_dir = g_build_filename (tmp, "sharded", NULL);
  g_autofree char *index = g_build_filename (shard_dir, "tf_model.h5.index.json", NULL);
  g_autofree char *config = g_build_filename (shard_dir, "config.json", NULL);
  g_autoptr(GPtrArray) list = distilbert_tensors ();
  g_autoptr(GString) map = g_string_new ("{\"metadata\": {}, \"weight_map\": {");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlModel) sharded = NULL;
  hid_t file, space, attr, type;
  const char *json = "{\"class_name\": \"Functional\"}";

  file = H5Fcreate (keras, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  write_syn_h5 (file, "/model_weights/distilbert/", list);
  write_syn_h5 (file, "/optimizer_weights/Adam/", list);
  space = H5Screate (H5S_SCALAR);
  type = H5Tcopy (H5T_C_S1);
  H5Tset_size (type, strlen (json));
  attr = H5Acreate2 (file, "model_config", type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite (attr, type, json);
  H5Aclose (attr);
  H5Tclose (type);
  H5Sclose (space);
  H5Fclose (file);

  model = pl_model_open (keras, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (model)), ==, "hdf5-keras");
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (pl_model_get_checkpoint (model)), ==, list->len);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_DISTILBERT);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 2);
  assert_role (model, list, PL_WEIGHT_V_WEIGHT, 1, "layer.1.attention.v_lin.weight");

  g_mkdir (shard_dir, 0700);
  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *name = g_strdup_printf ("tf_model-0000%u-of-00002.h5", s + 1);
      g_autofree char *path = g_build_filename (shard_dir, name, NULL);
      g_autoptr(GPtrArray) part = g_ptr_array_new ();

      for (guint i = s; i < list->len; i += 2)
        {
          const PlSeededTensor *syn = g_ptr_array_index (list, i);

          g_ptr_array_add (part, (gpointer) syn);
          g_string_append_printf (map, "%s\"%s\": \"%s\"", map->str[map->len - 1] == '{' ? "" : ", ",
                                  syn->tf, name);
        }
      file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      write_syn_h5 (file, "/", part);
      H5Fclose (file);
    }
  g_string_append (map, "}}");
  pl_test_write_text (index, map->str);
  pl_test_write_text (config, "{\"n_heads\": 2, \"activation\": \"gelu\"}");

  sharded = pl_model_open (shard_dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (sharded)), ==, "hdf5-sharded");
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (pl_model_get_checkpoint (sharded)), ==, list->len);
  g_assert_cmpint (pl_model_get_family (sharded), ==, PL_FAMILY_DISTILBERT);
  assert_role (sharded, list, PL_WEIGHT_Q_WEIGHT, 0, "layer.0.attention.q_lin.weight");
  assert_role (sharded, list, PL_WEIGHT_K_BIAS, 1, "layer.1.attention.k_lin.bias");
  {
    g_autoptr(PlMatrix) positions = pl_model_read_positions (sharded, &error);

    g_assert_no_error (error);
    g_assert_cmpmem (positions->data, 16 * 8 * 4, syn_find (list, "position_embeddings.weight")->values, 16 * 8 * 4);
  }
  pl_test_rmtree (tmp);
}

/* GPT-2 as other Keras versions name it: another model-class component and
 * the token table as "wte/embeddings:0". */
static void
test_gpt2_keras_variant (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *h5 = g_build_filename (tmp, "tf_model.h5", NULL);
  g_autofree char *config = g_build_filename (tmp, "config.json", NULL);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  const char *tf = "tfgpt2lm_head_model/transformer/";
  hid_t file;

  syn_add (list, g_strdup ("wte"), g_strconcat (tf, "wte/embeddings:0", NULL), 10, 6, FALSE);
  syn_add (list, g_strdup ("wpe"), g_strconcat (tf, "wpe/embeddings:0", NULL), 16, 6, FALSE);
  for (guint l = 0; l < 3; l++)
    {
      syn_add (list, g_strdup_printf ("c_attn.%u", l),
               g_strdup_printf ("%sh_._%u/attn/c_attn/weight:0", tf, l), 6, 18, FALSE);
      syn_add (list, g_strdup_printf ("c_attn_b.%u", l),
               g_strdup_printf ("%sh_._%u/attn/c_attn/bias:0", tf, l), 1, 18, FALSE);
      syn_add (list, g_strdup_printf ("ln_1.%u", l),
               g_strdup_printf ("%sh_._%u/ln_1/gamma:0", tf, l), 6, 0, FALSE);
    }
  file = H5Fcreate (h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  write_syn_h5 (file, "/transformer/", list);
  H5Fclose (file);
  pl_test_write_text (config, "{\"n_head\": 3, \"layer_norm_epsilon\": 1e-5, \"activation_function\": \"gelu_new\"}");

  model = pl_model_open (tmp, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_GPT2);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 3);
  g_assert_cmpuint (pl_model_get_vocab_size (model), ==, 10);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 6);
  assert_role (model, list, PL_WEIGHT_TOKEN_EMBEDDING, -1, "wte");
  /* V is the last third of c_attn's columns. */
  {
    const PlSeededTensor *c_attn = syn_find (list, "c_attn.2");
    g_autoptr(PlMatrix) v = pl_model_read_weight (model, PL_WEIGHT_V_WEIGHT, 2, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (v->rows, ==, 6);
    g_assert_cmpuint (v->cols, ==, 6);
    for (guint i = 0; i < 6; i++)
      for (guint j = 0; j < 6; j++)
        g_assert_cmpfloat (pl_matrix_get (v, i, j), ==, c_attn->values[i * 18 + 12 + j]);
  }
  pl_test_rmtree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/model/distilbert", test_distilbert);
  g_test_add_func ("/pl/model/gpt2-keras-variant", test_gpt2_keras_variant);
  g_test_add_func ("/pl/model/unknown-architecture", test_unknown_architecture);
  g_test_add_func ("/pl/model/keras-and-sharded-h5", test_keras_and_sharded_h5);
  for (guint i = 0; i < G_N_ELEMENTS (family_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/model/family/%s", family_cases[i].prefix);

      /* "/pl/model/family/model-decoder" */
      path[strlen (path) - 1] = '\0';
      g_strdelimit (path + strlen ("/pl/model/family/"), ".", '-');

      g_test_add_data_func (path, &family_cases[i], test_family);
    }

  return g_test_run ();
}
