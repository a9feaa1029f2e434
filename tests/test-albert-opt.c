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

/* ALBERT (one shared layer applied 3 times, embeddings E = 16 mapped to
 * H = 32) and OPT (pre-LN, causal, positions from table row 2) through the
 * forward pass. The test writes each model itself, as Hugging Face's
 * TensorFlow tf_model.h5 and as PyTorch's model.safetensors, with the
 * weights of the generator in tests/fixtures/make-albert-opt.py, whose
 * float64 numpy forward passes (written from HF's AlbertModel and OPTModel)
 * made tests/fixtures/{albert,opt}-small/reference.h5. */

#define H      32
#define HEADS  4
#define FFN    64
#define VOCAB  50

/* PlSeededTensor numbers: the index in the globals; layer l's are 8 + 16 l + index,
 * as in the script. */
static const PlSeededSpec albert_globals[] = {
  { "embeddings.word_embeddings.weight", "embeddings/word_embeddings/weight:0", VOCAB, 16, PL_SEEDED_EMBEDDING },
  { "embeddings.position_embeddings.weight", "embeddings/position_embeddings/embeddings:0", 40, 16, PL_SEEDED_EMBEDDING },
  { "embeddings.token_type_embeddings.weight", "embeddings/token_type_embeddings/embeddings:0", 2, 16, PL_SEEDED_EMBEDDING },
  { "embeddings.LayerNorm.weight", "embeddings/LayerNorm/gamma:0", 16, 0, PL_SEEDED_GAMMA },
  { "embeddings.LayerNorm.bias", "embeddings/LayerNorm/beta:0", 16, 0, PL_SEEDED_VECTOR },
  { "encoder.embedding_hidden_mapping_in.weight", "encoder/embedding_hidden_mapping_in/kernel:0", 16, H, PL_SEEDED_LINEAR },
  { "encoder.embedding_hidden_mapping_in.bias", "encoder/embedding_hidden_mapping_in/bias:0", H, 0, PL_SEEDED_VECTOR },
};

/* The same with embeddings as wide as the layers: AlbertModel maps them
 * through embedding_hidden_mapping_in all the same. */
static const PlSeededSpec albert_square_globals[] = {
  { "embeddings.word_embeddings.weight", "embeddings/word_embeddings/weight:0", VOCAB, H, PL_SEEDED_EMBEDDING },
  { "embeddings.position_embeddings.weight", "embeddings/position_embeddings/embeddings:0", 40, H, PL_SEEDED_EMBEDDING },
  { "embeddings.token_type_embeddings.weight", "embeddings/token_type_embeddings/embeddings:0", 2, H, PL_SEEDED_EMBEDDING },
  { "embeddings.LayerNorm.weight", "embeddings/LayerNorm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "embeddings.LayerNorm.bias", "embeddings/LayerNorm/beta:0", H, 0, PL_SEEDED_VECTOR },
  { "encoder.embedding_hidden_mapping_in.weight", "encoder/embedding_hidden_mapping_in/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "encoder.embedding_hidden_mapping_in.bias", "encoder/embedding_hidden_mapping_in/bias:0", H, 0, PL_SEEDED_VECTOR },
};

static const PlSeededSpec albert_layer[] = {
  { "attention.query.weight", "attention/query/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.query.bias", "attention/query/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.key.weight", "attention/key/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.key.bias", "attention/key/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.value.weight", "attention/value/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.value.bias", "attention/value/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.dense.weight", "attention/dense/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "attention.dense.bias", "attention/dense/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "attention.LayerNorm.weight", "attention/LayerNorm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "attention.LayerNorm.bias", "attention/LayerNorm/beta:0", H, 0, PL_SEEDED_VECTOR },
  { "ffn.weight", "ffn/kernel:0", H, FFN, PL_SEEDED_LINEAR },
  { "ffn.bias", "ffn/bias:0", FFN, 0, PL_SEEDED_VECTOR },
  { "ffn_output.weight", "ffn_output/kernel:0", FFN, H, PL_SEEDED_LINEAR },
  { "ffn_output.bias", "ffn_output/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "full_layer_layer_norm.weight", "full_layer_layer_norm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "full_layer_layer_norm.bias", "full_layer_layer_norm/beta:0", H, 0, PL_SEEDED_VECTOR },
};

static const PlSeededSpec opt_globals[] = {
  { "embed_tokens.weight", "embed_tokens/weight:0", VOCAB, H, PL_SEEDED_EMBEDDING },
  { "embed_positions.weight", "embed_positions/embeddings:0", 42, H, PL_SEEDED_EMBEDDING },
  { "final_layer_norm.weight", "final_layer_norm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "final_layer_norm.bias", "final_layer_norm/beta:0", H, 0, PL_SEEDED_VECTOR },
};

static const PlSeededSpec opt_layer[] = {
  { "self_attn.q_proj.weight", "self_attn/q_proj/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "self_attn.q_proj.bias", "self_attn/q_proj/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "self_attn.k_proj.weight", "self_attn/k_proj/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "self_attn.k_proj.bias", "self_attn/k_proj/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "self_attn.v_proj.weight", "self_attn/v_proj/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "self_attn.v_proj.bias", "self_attn/v_proj/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "self_attn.out_proj.weight", "self_attn/out_proj/kernel:0", H, H, PL_SEEDED_LINEAR },
  { "self_attn.out_proj.bias", "self_attn/out_proj/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "self_attn_layer_norm.weight", "self_attn_layer_norm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "self_attn_layer_norm.bias", "self_attn_layer_norm/beta:0", H, 0, PL_SEEDED_VECTOR },
  { "fc1.weight", "fc1/kernel:0", H, FFN, PL_SEEDED_LINEAR },
  { "fc1.bias", "fc1/bias:0", FFN, 0, PL_SEEDED_VECTOR },
  { "fc2.weight", "fc2/kernel:0", FFN, H, PL_SEEDED_LINEAR },
  { "fc2.bias", "fc2/bias:0", H, 0, PL_SEEDED_VECTOR },
  { "final_layer_norm.weight", "final_layer_norm/gamma:0", H, 0, PL_SEEDED_GAMMA },
  { "final_layer_norm.bias", "final_layer_norm/beta:0", H, 0, PL_SEEDED_VECTOR },
};

typedef struct
{
  const char  *name;          /* the fixture folder: tests/fixtures/NAME/reference.h5 */
  PlFamily     family;
  guint64      seed;
  const char  *pt_root;       /* PyTorch prefix of every name */
  const char  *tf_root;       /* TensorFlow path up to the model */
  const char  *pt_layer;      /* per-layer prefix, then the layer number and "." or "/" */
  const char  *tf_layer;
  gboolean     numbered;      /* FALSE: ALBERT's one shared layer, no number */
  const PlSeededSpec *globals;
  guint        n_globals;
  const PlSeededSpec *layer;
  guint        stored_layers;
  guint        layers;        /* layers the model runs */
  guint        e;             /* embedding width */
  guint        first_row;     /* table row of position 0 */
  guint        positions;     /* real positions */
  const char  *config;        /* config.json after "{" and the keys a case varies */
  const char  *config_keys;   /* what a good model has there */
  gboolean     causal;
  const char  *probes[3];     /* groups of the reference file this model is checked on */
} Family;

static const Family albert = {
  "albert-small", PL_FAMILY_ALBERT, 6, "albert.", "/albert/tf_albert_for_pre_training/albert/",
  "encoder.albert_layer_groups.0.albert_layers.0.", "encoder/albert_layer_groups_._0/albert_layers_._0/", FALSE,
  albert_globals, G_N_ELEMENTS (albert_globals), albert_layer, 1, 3, 16, 0, 40,
  "\"model_type\": \"albert\", \"embedding_size\": 16, \"hidden_size\": 32, "
  "\"num_attention_heads\": 4, \"intermediate_size\": 64, \"hidden_act\": \"gelu_new\", "
  "\"layer_norm_eps\": 1e-12, \"vocab_size\": 50, \"max_position_embeddings\": 40, "
  "\"type_vocab_size\": 2, \"pad_token_id\": 0, \"bos_token_id\": 2, \"eos_token_id\": 3}",
  "\"num_hidden_layers\": 3, \"num_hidden_groups\": 1, \"inner_group_num\": 1, ", FALSE,
  { "short", "long" },
};

static const Family albert_square = {
  "albert-small", PL_FAMILY_ALBERT, 8, "albert.", "/albert/tf_albert_for_pre_training/albert/",
  "encoder.albert_layer_groups.0.albert_layers.0.", "encoder/albert_layer_groups_._0/albert_layers_._0/", FALSE,
  albert_square_globals, G_N_ELEMENTS (albert_square_globals), albert_layer, 1, 3, H, 0, 40,
  "\"model_type\": \"albert\", \"embedding_size\": 32, \"hidden_size\": 32, "
  "\"num_attention_heads\": 4, \"intermediate_size\": 64, \"hidden_act\": \"gelu_new\", "
  "\"layer_norm_eps\": 1e-12, \"vocab_size\": 50, \"max_position_embeddings\": 40, "
  "\"type_vocab_size\": 2, \"pad_token_id\": 0, \"bos_token_id\": 2, \"eos_token_id\": 3}",
  "\"num_hidden_layers\": 3, ", FALSE,
  { "square/short" },
};

static const Family opt = {
  "opt-small", PL_FAMILY_OPT, 7, "model.decoder.", "/model/tf_opt_for_causal_lm/model/decoder/",
  "layers.", "layers.", TRUE, opt_globals, G_N_ELEMENTS (opt_globals), opt_layer, 2, 2, H, 2, 40,
  "\"model_type\": \"opt\", \"hidden_size\": 32, \"num_hidden_layers\": 2, \"ffn_dim\": 64, "
  "\"num_attention_heads\": 4, \"activation_function\": \"relu\", \"vocab_size\": 50, "
  "\"max_position_embeddings\": 40, \"pad_token_id\": 1, \"bos_token_id\": 2, \"eos_token_id\": 2}",
  "\"do_layer_norm_before\": true, \"word_embed_proj_dim\": 32, ", TRUE,
  { "short", "long" },
};

static PlSeededTensor *
make_tensor (const Family       *fam,
             const PlSeededSpec *spec,
             guint               number,
             int                 layer)
{
  g_autofree char *pt_prefix = NULL;
  g_autofree char *tf_prefix = NULL;

  if (layer < 0)
    return pl_seeded_tensor_from_spec (fam->seed, number, spec, fam->pt_root, fam->tf_root);
  pt_prefix = fam->numbered ? g_strdup_printf ("%s%s%d.", fam->pt_root, fam->pt_layer, layer)
                            : g_strconcat (fam->pt_root, fam->pt_layer, NULL);
  tf_prefix = fam->numbered ? g_strdup_printf ("%s%s%d/", fam->tf_root, fam->tf_layer, layer)
                            : g_strconcat (fam->tf_root, fam->tf_layer, NULL);
  return pl_seeded_tensor_from_spec (fam->seed, number, spec, pt_prefix, tf_prefix);
}

/* Every tensor of the model, plus a head as real checkpoints have (never read). */
static GPtrArray *
make_tensors (const Family *fam)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);

  for (guint i = 0; i < fam->n_globals; i++)
    g_ptr_array_add (list, make_tensor (fam, &fam->globals[i], i, -1));
  for (guint l = 0; l < fam->stored_layers; l++)
    for (guint i = 0; i < 16; i++)
      g_ptr_array_add (list, make_tensor (fam, &fam->layer[i], 8 + 16 * l + i, l));
  pl_seeded_add_head (list, fam->seed, H, fam->family == PL_FAMILY_OPT ? "lm_head.weight" : "predictions.dense.weight",
                      "/predictions/tf_head/predictions/dense/kernel:0");
  return list;
}

/* A checkpoint folder: FORMAT "tf" or "safetensors"; KEYS (NULL: the
 * family's good ones) go into config.json. */
static char *
write_model (const Family *fam,
             GPtrArray    *list,
             const char   *format,
             const char   *keys)
{
  g_autofree char *config = g_strconcat ("{", keys ? keys : fam->config_keys, fam->config, NULL);

  return pl_seeded_write_model (list, format, config);
}

static char *
reference (const Family *fam)
{
  return pl_test_fixture (fam->name, "reference.h5", NULL);
}

static PlModel *
open_model (const Family *fam,
            const char   *dir)
{
  g_autoptr(GError) error = NULL;
  PlModel *model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, fam->family);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, H);
  g_assert_cmpuint (pl_model_get_embedding_size (model), ==, fam->e);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, fam->layers);
  g_assert_cmpuint (pl_model_get_first_position (model), ==, fam->first_row);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, fam->positions);
  return model;
}

static PlTransformer *
open_transformer (PlModel *model)
{
  g_autoptr(GError) error = NULL;
  PlTransformer *t = pl_transformer_new (model, NULL, &error);

  g_assert_no_error (error);
  return t;
}

typedef struct
{
  const char   *path;
  const Family *fam;
  const char   *format;
} Case;

static const Case forward_cases[] = {
  { "/pl/albert-opt/albert/forward/tf", &albert, "tf" },
  { "/pl/albert-opt/albert/forward/safetensors", &albert, "safetensors" },
  { "/pl/albert-opt/albert/forward/square", &albert_square, "tf" },
  { "/pl/albert-opt/opt/forward/tf", &opt, "tf" },
  { "/pl/albert-opt/opt/forward/safetensors", &opt, "safetensors" },
};

/* Both probes against the script: every attention map and every hidden
 * state, hidden_states[0] included (ALBERT: after the mapping to H). */
static void
test_forward (gconstpointer data)
{
  const Case *fc = data;
  const Family *fam = fc->fam;
  g_autoptr(GPtrArray) list = make_tensors (fam);
  g_autofree char *dir = write_model (fam, list, fc->format, NULL);
  g_autofree char *file = reference (fam);
  g_autofree char *label = g_strdup_printf ("%s %s", fam->name, fc->format);
  g_autoptr(PlModel) model = open_model (fam, dir);
  g_autoptr(PlTransformer) t = open_transformer (model);

  g_assert_cmpuint (pl_transformer_get_config (t)->n_layers, ==, fam->layers);
  g_assert_cmpuint (pl_transformer_get_config (t)->n_heads, ==, HEADS);
  g_assert_cmpuint (pl_transformer_get_config (t)->hidden_size, ==, H);
  /* OPT: exactly zero above the diagonal, rows summing to 1 */
  g_assert_cmpint (pl_transformer_get_config (t)->causal, ==, fam->causal);
  pl_test_transformer_compare (t, file, "", fam->probes, label);
  pl_test_rmtree (dir);
}

/* The table the analyses see: ALBERT's E-wide rows from 0, OPT's from row 2
 * (of max_position_embeddings + 2), bit for bit the script's; the forward
 * pass adds the same rows. */
static void
test_positions (gconstpointer data)
{
  const Family *fam = data;
  g_autoptr(GPtrArray) list = make_tensors (fam);
  g_autofree char *dir = write_model (fam, list, "safetensors", NULL);
  g_autofree char *file = reference (fam);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (file, "/position_embeddings");
  g_autoptr(PlMatrix) expected = pl_matrix_slice_rows (table, fam->first_row, fam->positions);
  g_autoptr(PlModel) model = open_model (fam, dir);
  g_autoptr(PlTransformer) t = open_transformer (model);
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(PlMatrix) rows = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (table->rows, ==, fam->first_row + fam->positions);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->cols, ==, fam->e);
  g_assert_cmpfloat (pl_test_max_abs_diff (positions, expected), ==, 0);
  rows = pl_transformer_get_positions (t, 10, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (rows->data, 10 * fam->e * 4, expected->data, 10 * fam->e * 4);
  pl_test_rmtree (dir);
}

/* Layer 0's position-only term against the script's: ALBERT through the
 * embedding LayerNorm and the mapping to H, OPT through layer 0's
 * self_attn_layer_norm (as GPT-2's through ln_1), causal. */
static void
test_position_only (gconstpointer data)
{
  const Family *fam = data;
  g_autoptr(GPtrArray) list = make_tensors (fam);
  g_autofree char *dir = write_model (fam, list, "tf", NULL);
  g_autofree char *file = reference (fam);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, "/position_only");
  g_autoptr(PlModel) model = open_model (fam, dir);
  g_autoptr(PlTransformer) t = open_transformer (model);
  g_autoptr(PlMatrix) term = NULL;
  g_autoptr(GError) error = NULL;
  double diff;

  term = pl_attention_position_only (t, 20, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (term->rows, ==, HEADS * 20);
  diff = pl_test_max_abs_diff (term, ref);
  g_test_message ("%s position-only term: max |Δ| %.2g", fam->name, diff);
  g_assert_cmpfloat (diff, <, ATTENTION_TOL);
  pl_test_check_rows (term, 20, fam->causal);
  pl_test_rmtree (dir);
}

/* What the model reads: OPT's tokenizer puts </s> (bos_token_id 2) first and
 * nothing last; ALBERT's [CLS] (2) … [SEP] (3) around the text. */
static void
test_inputs (void)
{
  const Family *fams[] = { &albert, &opt };

  for (guint f = 0; f < G_N_ELEMENTS (fams); f++)
    {
      const Family *fam = fams[f];
      g_autoptr(GPtrArray) list = make_tensors (fam);
      g_autofree char *dir = write_model (fam, list, "safetensors", NULL);
      g_autoptr(PlModel) model = open_model (fam, dir);
      g_autoptr(PlTransformer) t = open_transformer (model);
      g_autoptr(GArray) random = pl_transformer_random_ids (t, 12, 3);
      g_autoptr(GArray) wrapped = pl_transformer_wrap_ids (t, (int[]) { 7, 8 }, 2);
      int *v = (int *) random->data;

      g_assert_cmpuint (random->len, ==, 12);
      g_assert_cmpint (v[0], ==, 2);
      if (fam->family == PL_FAMILY_OPT)
        {
          g_assert_true (pl_transformer_is_regular_id (t, v[11]));
          g_assert_cmpuint (wrapped->len, ==, 3);
          g_assert_cmpmem (wrapped->data, 12, ((int[]) { 2, 7, 8 }), 12);
        }
      else
        {
          g_assert_cmpint (v[11], ==, 3);
          g_assert_cmpuint (wrapped->len, ==, 4);
          g_assert_cmpmem (wrapped->data, 16, ((int[]) { 2, 7, 8, 3 }), 16);
        }
      for (guint i = 1; i < 11; i++)
        g_assert_true (pl_transformer_is_regular_id (t, v[i]));
      pl_test_rmtree (dir);
    }
}

/* With byte-level BPE files beside it that would wrap a text in <s> … </s>,
 * OPT's inputs still start with bos_token_id alone, as HF's OPT tokenizer
 * (add_bos_token) gives them. */
static void
test_opt_tokenizer_files (void)
{
  g_autoptr(GPtrArray) list = make_tensors (&opt);
  g_autofree char *dir = write_model (&opt, list, "safetensors", NULL);
  g_autofree char *vocab = g_build_filename (dir, "vocab.json", NULL);
  g_autofree char *merges = g_build_filename (dir, "merges.txt", NULL);
  g_autoptr(GString) json = g_string_new ("{\"<s>\": 0, \"<pad>\": 1, \"</s>\": 2, \"<unk>\": 3");
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GArray) random = NULL;
  g_autoptr(GArray) wrapped = NULL;

  for (guint i = 0; i < 26; i++)
    g_string_append_printf (json, ", \"%c\": %u", 'a' + i, 4 + i);
  g_string_append (json, "}");
  pl_test_write_text (vocab, json->str);
  pl_test_write_text (merges, "#version: 0.2\n");
  model = open_model (&opt, dir);
  t = open_transformer (model);
  wrapped = pl_transformer_wrap_ids (t, (int[]) { 7, 8 }, 2);
  g_assert_cmpuint (wrapped->len, ==, 3);
  g_assert_cmpmem (wrapped->data, 12, ((int[]) { 2, 7, 8 }), 12);
  random = pl_transformer_random_ids (t, 12, 3);
  g_assert_cmpint (g_array_index (random, int, 0), ==, 2);
  g_assert_true (pl_transformer_is_regular_id (t, g_array_index (random, int, 11)));
  pl_test_rmtree (dir);
}

/* Variants the forward pass does not cover are refused, naming the file and
 * the key; the table analyses still open them. */
typedef struct
{
  const char   *path;
  const Family *fam;
  const char   *keys;       /* config.json keys in place of the good ones */
  const char   *drop;       /* a tensor to leave out, or NULL */
  const char   *file;       /* "config.json" or the checkpoint's name the message names */
  const char   *named;
} BadCase;

static const BadCase bad_cases[] = {
  { "/pl/albert-opt/albert/bad/groups", &albert,
    "\"num_hidden_layers\": 3, \"num_hidden_groups\": 2, ", NULL, "config.json", "num_hidden_groups" },
  { "/pl/albert-opt/albert/bad/inner-groups", &albert,
    "\"num_hidden_layers\": 3, \"inner_group_num\": 2, ", NULL, "config.json", "inner_group_num" },
  { "/pl/albert-opt/albert/bad/no-layer-count", &albert, "", NULL, "config.json", "num_hidden_layers" },
  { "/pl/albert-opt/albert/bad/relative-positions", &albert,
    "\"num_hidden_layers\": 3, \"position_embedding_type\": \"relative_key\", ", NULL,
    "config.json", "relative_key" },
  { "/pl/albert-opt/albert/bad/no-mapping", &albert, NULL,
    "albert.encoder.embedding_hidden_mapping_in.weight", "model.safetensors", "embedding_hidden_mapping_in" },
  { "/pl/albert-opt/albert/bad/square-no-mapping", &albert_square, NULL,
    "albert.encoder.embedding_hidden_mapping_in.weight", "model.safetensors", "embedding_hidden_mapping_in" },
  { "/pl/albert-opt/opt/bad/post-ln", &opt, "\"do_layer_norm_before\": false, ", NULL,
    "config.json", "do_layer_norm_before" },
  { "/pl/albert-opt/opt/bad/project-in", &opt, "\"do_layer_norm_before\": true, \"word_embed_proj_dim\": 16, ",
    NULL, "config.json", "word_embed_proj_dim" },
  { "/pl/albert-opt/opt/bad/no-final-norm", &opt, NULL, "model.decoder.final_layer_norm.weight",
    "model.safetensors", "final_layer_norm.weight" },
};

static void
test_bad (gconstpointer data)
{
  const BadCase *bc = data;
  g_autoptr(GPtrArray) list = make_tensors (bc->fam);
  g_autofree char *dir = NULL;
  g_autofree char *named_file = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(GError) error = NULL;

  if (bc->drop != NULL)
    g_ptr_array_remove (list, pl_seeded_find (list, bc->drop));
  dir = write_model (bc->fam, list, "safetensors", bc->keys);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_null (t);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  named_file = g_build_filename (dir, bc->file, NULL);
  g_assert_nonnull (strstr (error->message, named_file));
  g_assert_nonnull (strstr (error->message, bc->named));
  pl_test_rmtree (dir);
}

/* poslens-cli forward on the long probe and attention's position-only term,
 * on the TF checkpoint. */
static void
test_cli (gconstpointer data)
{
  const Family *fam = data;
  g_autoptr(GPtrArray) list = make_tensors (fam);
  g_autofree char *dir = NULL;
  g_autofree char *ref = reference (fam);
  g_autofree char *ids_from = g_strdup_printf ("%s:/long/input_ids", ref);
  g_autofree char *tmp = NULL;
  g_autofree char *out = NULL;
  g_autofree char *att_out = NULL;

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set (run through meson test)");
      return;
    }
  dir = write_model (fam, list, "tf", NULL);
  tmp = pl_test_tmpdir ();
  out = g_build_filename (tmp, "forward.h5", NULL);
  att_out = g_build_filename (tmp, "attention.h5", NULL);
  {
    const char *forward[] = { "forward", dir, "--ids-from", ids_from, "--out", out, NULL };
    const char *attention[] = { "attention", dir, "--sequences", "2", "--length", "20", "--out", att_out, NULL };
    g_autoptr(PlMatrix) att = NULL;
    g_autoptr(PlMatrix) hid = NULL;
    g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (ref, "/long/attentions");
    g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (ref, "/long/hidden_states");
    g_autoptr(PlMatrix) term = NULL;
    g_autoptr(PlMatrix) ref_term = pl_test_read_h5 (ref, "/position_only");

    g_assert_cmpint (pl_test_run_cli (forward), ==, 0);
    att = pl_test_read_h5 (out, "/attentions");
    hid = pl_test_read_h5 (out, "/hidden_states");
    g_assert_cmpfloat (pl_test_max_abs_diff (att, ref_att), <, ATTENTION_TOL);
    g_assert_cmpfloat (pl_test_max_abs_diff (hid, ref_hid), <, HIDDEN_TOL);

    g_assert_cmpint (pl_test_run_cli (attention), ==, 0);
    term = pl_test_read_h5 (att_out, "/position_only");
    g_assert_cmpfloat (pl_test_max_abs_diff (term, ref_term), <, ATTENTION_TOL);
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
  g_test_add_data_func ("/pl/albert-opt/albert/positions", &albert, test_positions);
  g_test_add_data_func ("/pl/albert-opt/opt/positions", &opt, test_positions);
  g_test_add_data_func ("/pl/albert-opt/albert/position-only", &albert, test_position_only);
  g_test_add_data_func ("/pl/albert-opt/opt/position-only", &opt, test_position_only);
  g_test_add_func ("/pl/albert-opt/inputs", test_inputs);
  g_test_add_func ("/pl/albert-opt/opt/tokenizer-files", test_opt_tokenizer_files);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    g_test_add_data_func (bad_cases[i].path, &bad_cases[i], test_bad);
  g_test_add_data_func ("/pl/albert-opt/albert/cli", &albert, test_cli);
  g_test_add_data_func ("/pl/albert-opt/opt/cli", &opt, test_cli);

  return g_test_run ();
}
