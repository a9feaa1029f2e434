/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-model.h"
#include "pl-transformer.h"
#include "pl-test-util.h"
#include "pl-test-transformer.h"
#include "pl-test-writers.h"

/* Other families through PlModel, from the fixtures' own weights renamed to
 * another family's PyTorch layout (linear weights [out, in]) in a
 * safetensors file: the outputs must still match Hugging Face's references
 * of the fixture. */
typedef struct
{
  GPtrArray *names;
  GPtrArray *matrices;
  GArray    *tensors;
} Renamed;

static void
renamed_add (Renamed    *r,
             char       *name,
             PlMatrix   *m,
             gboolean    linear)
{
  PlTestTensor t = { NULL, "F32", 2, { m->rows, m->cols }, NULL };

  if (linear)
    {
      PlMatrix *tr = pl_matrix_new (m->cols, m->rows);

      for (gsize i = 0; i < m->rows; i++)
        for (gsize j = 0; j < m->cols; j++)
          tr->data[j * m->rows + i] = m->data[i * m->cols + j];
      pl_matrix_unref (m);
      m = tr;
      t.shape[0] = m->rows;
      t.shape[1] = m->cols;
    }
  else if (m->rows == 1 || m->cols == 1)
    {
      t.rank = 1;
      t.shape[0] = m->rows * m->cols;
      t.shape[1] = 0;
    }
  g_ptr_array_add (r->names, name);
  g_ptr_array_add (r->matrices, m);
  t.name = name;
  t.data = m->data;
  g_array_append_val (r->tensors, t);
}

static PlMatrix *
fixture_tensor (const PlTestFixture *fx,
                const char          *leaf)
{
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autofree char *path = g_strdup_printf ("%s/%s", fx->prefix, leaf);

  return pl_test_read_h5 (file, path);
}

/* Writes FX's weights as PREFIX.embeddings… / PREFIX.encoder.layer.N… (BERT's
 * names), or DistilBERT's names when DISTIL, with CONFIG, into a new folder. */
static char *
write_renamed (const PlTestFixture *fx,
               const char          *prefix,
               gboolean             distil,
               const char          *config)
{
  static const struct { const char *tf; const char *bert; const char *distil; gboolean linear; } map[] = {
    { "attention/self/query/kernel:0", "attention.self.query.weight", "attention.q_lin.weight", TRUE },
    { "attention/self/query/bias:0", "attention.self.query.bias", "attention.q_lin.bias", FALSE },
    { "attention/self/key/kernel:0", "attention.self.key.weight", "attention.k_lin.weight", TRUE },
    { "attention/self/key/bias:0", "attention.self.key.bias", "attention.k_lin.bias", FALSE },
    { "attention/self/value/kernel:0", "attention.self.value.weight", "attention.v_lin.weight", TRUE },
    { "attention/self/value/bias:0", "attention.self.value.bias", "attention.v_lin.bias", FALSE },
    { "attention/output/dense/kernel:0", "attention.output.dense.weight", "attention.out_lin.weight", TRUE },
    { "attention/output/dense/bias:0", "attention.output.dense.bias", "attention.out_lin.bias", FALSE },
    { "attention/output/LayerNorm/gamma:0", "attention.output.LayerNorm.weight", "sa_layer_norm.weight", FALSE },
    { "attention/output/LayerNorm/beta:0", "attention.output.LayerNorm.bias", "sa_layer_norm.bias", FALSE },
    { "intermediate/dense/kernel:0", "intermediate.dense.weight", "ffn.lin1.weight", TRUE },
    { "intermediate/dense/bias:0", "intermediate.dense.bias", "ffn.lin1.bias", FALSE },
    { "output/dense/kernel:0", "output.dense.weight", "ffn.lin2.weight", TRUE },
    { "output/dense/bias:0", "output.dense.bias", "ffn.lin2.bias", FALSE },
    { "output/LayerNorm/gamma:0", "output.LayerNorm.weight", "output_layer_norm.weight", FALSE },
    { "output/LayerNorm/beta:0", "output.LayerNorm.bias", "output_layer_norm.bias", FALSE },
  };
  char *dir = pl_test_tmpdir ();
  g_autofree char *st = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  Renamed r = {
    g_ptr_array_new_with_free_func (g_free),
    g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref),
    g_array_new (FALSE, TRUE, sizeof (PlTestTensor)),
  };
  PlMatrix *pos = fixture_tensor (fx, "embeddings/position_embeddings/embeddings:0");
  g_autoptr(PlMatrix) type = fixture_tensor (fx, "embeddings/token_type_embeddings/embeddings:0");

  if (distil)
    {
      /* DistilBERT has no token types: fold type 0 into the positions */
      for (gsize i = 0; i < pos->rows; i++)
        for (gsize j = 0; j < pos->cols; j++)
          pl_matrix_row (pos, i)[j] += type->data[j];
    }
  else
    renamed_add (&r, g_strdup_printf ("%s.embeddings.token_type_embeddings.weight", prefix),
                 pl_matrix_ref (type), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.word_embeddings.weight", prefix),
               fixture_tensor (fx, "embeddings/word_embeddings/weight:0"), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.position_embeddings.weight", prefix), pos, FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.LayerNorm.weight", prefix),
               fixture_tensor (fx, "embeddings/LayerNorm/gamma:0"), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.LayerNorm.bias", prefix),
               fixture_tensor (fx, "embeddings/LayerNorm/beta:0"), FALSE);
  for (guint l = 0; l < fx->config.n_layers; l++)
    for (guint i = 0; i < G_N_ELEMENTS (map); i++)
      {
        g_autofree char *leaf = g_strdup_printf ("encoder/layer_._%u/%s", l, map[i].tf);

        renamed_add (&r, distil ? g_strdup_printf ("%s.transformer.layer.%u.%s", prefix, l, map[i].distil)
                                : g_strdup_printf ("%s.encoder.layer.%u.%s", prefix, l, map[i].bert),
                     fixture_tensor (fx, leaf), map[i].linear);
      }
  pl_test_write_safetensors (st, (PlTestTensor *) r.tensors->data, r.tensors->len);
  pl_test_write_text (config_path, config);
  g_array_unref (r.tensors);
  g_ptr_array_unref (r.matrices);
  g_ptr_array_unref (r.names);
  return dir;
}

typedef struct
{
  const char *path;
  guint       fixture;
  const char *prefix;
  gboolean    distil;
  PlFamily    family;
  const char *config;
} RenamedCase;

static const RenamedCase renamed_cases[] = {
  { "/pl/transformer/model/distilbert", 1, "distilbert", TRUE, PL_FAMILY_DISTILBERT,
    "{\"model_type\": \"distilbert\", \"dim\": 256, \"n_layers\": 4, \"n_heads\": 4, \"hidden_dim\": 1024, "
    "\"activation\": \"gelu\", \"vocab_size\": 260, \"max_position_embeddings\": 512, \"pad_token_id\": 0}" },
  { "/pl/transformer/model/electra", 1, "electra", FALSE, PL_FAMILY_ELECTRA,
    "{\"model_type\": \"electra\", \"hidden_size\": 256, \"embedding_size\": 256, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 4, \"intermediate_size\": 1024, \"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-12, "
    "\"vocab_size\": 260, \"max_position_embeddings\": 512, \"type_vocab_size\": 2, \"pad_token_id\": 0}" },
  { "/pl/transformer/model/xlm-roberta", 2, "roberta", FALSE, PL_FAMILY_XLM_ROBERTA,
    "{\"model_type\": \"xlm-roberta\", \"hidden_size\": 256, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 4, \"intermediate_size\": 1024, \"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-12, "
    "\"vocab_size\": 260, \"max_position_embeddings\": 514, \"type_vocab_size\": 1, \"pad_token_id\": 1, "
    "\"bos_token_id\": 0, \"eos_token_id\": 2}" },
};

static void
test_renamed (gconstpointer data)
{
  const RenamedCase *rc = data;
  const PlTestFixture *fx = &pl_test_fixtures[rc->fixture];
  g_autofree char *dir = write_renamed (fx, rc->prefix, rc->distil, rc->config);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, rc->family);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_transformer_get_config (t)->first_position, ==, fx->config.first_position);
  if (rc->distil)
    g_assert_null (pl_transformer_get_token_type (t));
  pl_test_transformer_check_reference (t, fx->name);
  pl_test_rmtree (dir);
}
int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (renamed_cases); i++)
    g_test_add_data_func (renamed_cases[i].path, &renamed_cases[i], test_renamed);

  return g_test_run ();
}
