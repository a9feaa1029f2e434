/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"

/* Real config.json files of published models (tests/fixtures/configs, where
 * each comes from is in its README), each beside a few tensors named as the
 * model's code names them: a model_type Poslens knows opens as that family
 * with the sizes and rotary settings Hugging Face's config class reads from
 * it; any other is refused by its name, whatever its tensors resemble. */

typedef enum
{
  LAYOUT_LLAMA,      /* model.embed_tokens, model.layers.N.self_attn.q_proj */
  LAYOUT_GPT2,       /* wte, wpe, h.N.attn.c_attn */
  LAYOUT_BERT,       /* bert.embeddings.*, bert.encoder.layer.N.attention.self.query */
  LAYOUT_EXAONE,     /* transformer.wte, transformer.h.N.attn.attention.q_proj */
  LAYOUT_OPENAI_GPT, /* tokens_embed, positions_embed, h.N.attn.c_attn */
  LAYOUT_T5,         /* shared, encoder.block.N.layer.0.SelfAttention.q */
} Layout;

typedef struct
{
  const char   *file;
  Layout        layout;
  guint         hidden;
  guint         layers;
  guint         positions;   /* a learned table's rows (GPT-2, BERT, GPT) */
  int           family;      /* -1: refused by model_type */
  const char   *model_type;
  /* a rotary decoder's, as HF's config class reads them */
  guint         heads;
  guint         kv_heads;
  guint         head_dim;
  double        theta;
  PlRopeScaling scaling;
  guint         max_positions;
  guint         gemma2_window; /* Gemma 2's sliding window, in its even layers */
} RealConfig;

static const RealConfig configs[] = {
  { "Llama-2-7b-hf", LAYOUT_LLAMA, 4096, 32, 0, PL_FAMILY_LLAMA, "llama",
    32, 32, 128, 10000, PL_ROPE_SCALING_NONE, 4096 },
  { "Meta-Llama-3-8B", LAYOUT_LLAMA, 4096, 32, 0, PL_FAMILY_LLAMA, "llama",
    32, 8, 128, 500000, PL_ROPE_SCALING_NONE, 8192 },
  { "Llama-3.1-8B", LAYOUT_LLAMA, 4096, 32, 0, PL_FAMILY_LLAMA, "llama",
    32, 8, 128, 500000, PL_ROPE_SCALING_LLAMA3, 131072 },
  { "Llama-3.2-3B", LAYOUT_LLAMA, 3072, 28, 0, PL_FAMILY_LLAMA, "llama",
    24, 8, 128, 500000, PL_ROPE_SCALING_LLAMA3, 131072 },
  { "Yi-1.5-6B", LAYOUT_LLAMA, 4096, 32, 0, PL_FAMILY_LLAMA, "llama",
    32, 4, 128, 5000000, PL_ROPE_SCALING_NONE, 4096 },
  { "deepseek-llm-7b-base", LAYOUT_LLAMA, 4096, 30, 0, PL_FAMILY_LLAMA, "llama",
    32, 32, 128, 10000, PL_ROPE_SCALING_NONE, 4096 },
  { "Qwen2-7B", LAYOUT_LLAMA, 3584, 28, 0, PL_FAMILY_QWEN2, "qwen2",
    28, 4, 128, 1000000, PL_ROPE_SCALING_NONE, 131072 },
  { "Qwen2.5-3B", LAYOUT_LLAMA, 2048, 36, 0, PL_FAMILY_QWEN2, "qwen2",
    16, 2, 128, 1000000, PL_ROPE_SCALING_NONE, 32768 },
  { "Qwen2.5-14B", LAYOUT_LLAMA, 5120, 48, 0, PL_FAMILY_QWEN2, "qwen2",
    40, 8, 128, 1000000, PL_ROPE_SCALING_NONE, 131072 },
  /* the window (4096) in layers 0, 2, 4, …; scores × 256^−½, capped at 50 */
  { "gemma-2-2b", LAYOUT_LLAMA, 2304, 26, 0, PL_FAMILY_GEMMA2, "gemma2",
    8, 4, 256, 10000, PL_ROPE_SCALING_NONE, 8192, 4096 },
  { "gemma-2-9b", LAYOUT_LLAMA, 3584, 42, 0, PL_FAMILY_GEMMA2, "gemma2",
    16, 8, 256, 10000, PL_ROPE_SCALING_NONE, 8192, 4096 },
  /* heads × head_dim is not the hidden size: 32 × 128 on 2560 */
  { "Qwen3-4B", LAYOUT_LLAMA, 2560, 36, 0, PL_FAMILY_QWEN3, "qwen3",
    32, 8, 128, 1000000, PL_ROPE_SCALING_NONE, 40960 },
  { "Qwen3-8B", LAYOUT_LLAMA, 4096, 36, 0, PL_FAMILY_QWEN3, "qwen3",
    32, 8, 128, 1000000, PL_ROPE_SCALING_NONE, 40960 },
  { "Qwen3-32B", LAYOUT_LLAMA, 5120, 64, 0, PL_FAMILY_QWEN3, "qwen3",
    64, 8, 128, 1000000, PL_ROPE_SCALING_NONE, 40960 },
  /* 128 experts, 8 a token, renormalised, 768 wide, in every layer */
  { "Qwen3-30B-A3B", LAYOUT_LLAMA, 2048, 48, 0, PL_FAMILY_QWEN3_MOE, "qwen3_moe",
    32, 4, 128, 1000000, PL_ROPE_SCALING_NONE, 40960 },
  { "EXAONE-3.0-7.8B-Instruct", LAYOUT_EXAONE, 4096, 32, 0, -1, "exaone" },
  { "gpt2", LAYOUT_GPT2, 768, 12, 1024, PL_FAMILY_GPT2, "gpt2" },
  { "bert-base-uncased", LAYOUT_BERT, 768, 12, 512, PL_FAMILY_BERT, "bert" },
  { "openai-gpt", LAYOUT_OPENAI_GPT, 768, 12, 512, -1, "openai-gpt" },
  /* T5 learns a bias over buckets of the offset (pl-model-relpos.c) */
  { "t5-small", LAYOUT_T5, 512, 6, 0, PL_FAMILY_T5, "t5", 8 },
};

/* One tensor of ROWS × COLS small exact values (BF16 keeps them). */
static void
add_tensor (GArray     *tensors,
            GPtrArray  *owned,
            const char *name,
            guint       rows,
            guint       cols)
{
  PlTestTensor t = { 0 };
  float *data = pl_test_exact_values (rows, MAX (cols, 1));

  g_ptr_array_add (owned, data);
  g_ptr_array_add (owned, g_strdup (name));
  t.name = g_ptr_array_index (owned, owned->len - 1);
  t.dtype = "BF16";
  t.rank = cols ? 2 : 1;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.data = data;
  g_array_append_val (tensors, t);
}

/* A folder with the real config.json and the tensors Poslens looks at to
 * recognise the layout (the token embedding at the real width, 2 tokens;
 * each layer's query projection, 1 × 1 where its shape says nothing). */
static char *
write_model (const RealConfig *c)
{
  g_autofree char *fixture = g_strconcat (c->file, ".json", NULL);
  g_autofree char *source = pl_test_fixture ("configs", fixture, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GArray) tensors = g_array_new (FALSE, TRUE, sizeof (PlTestTensor));
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  char *dir = pl_test_tmpdir ();
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);

  g_assert_true (g_file_get_contents (source, &text, NULL, NULL));
  pl_test_write_text (config, text);
  switch (c->layout)
    {
    case LAYOUT_LLAMA:
      add_tensor (tensors, owned, "model.embed_tokens.weight", 2, c->hidden);
      break;
    case LAYOUT_GPT2:
      add_tensor (tensors, owned, "wte.weight", 2, c->hidden);
      add_tensor (tensors, owned, "wpe.weight", c->positions, c->hidden);
      break;
    case LAYOUT_BERT:
      add_tensor (tensors, owned, "bert.embeddings.word_embeddings.weight", 2, c->hidden);
      add_tensor (tensors, owned, "bert.embeddings.position_embeddings.weight", c->positions, c->hidden);
      break;
    case LAYOUT_EXAONE:
      add_tensor (tensors, owned, "transformer.wte.weight", 2, c->hidden);
      break;
    case LAYOUT_OPENAI_GPT:
      add_tensor (tensors, owned, "tokens_embed.weight", 2, c->hidden);
      add_tensor (tensors, owned, "positions_embed.weight", c->positions, c->hidden);
      break;
    case LAYOUT_T5:
      add_tensor (tensors, owned, "shared.weight", 2, c->hidden);
      break;
    default:
      g_assert_not_reached ();
    }
  for (guint l = 0; l < c->layers; l++)
    {
      g_autofree char *name = NULL;

      switch (c->layout)
        {
        case LAYOUT_LLAMA:
          name = g_strdup_printf ("model.layers.%u.self_attn.q_proj.weight", l);
          add_tensor (tensors, owned, name, 1, 1);
          break;
        case LAYOUT_GPT2:
        case LAYOUT_OPENAI_GPT:
          /* Conv1D [in, out]: the input is the hidden size */
          name = g_strdup_printf ("h.%u.attn.c_attn.weight", l);
          add_tensor (tensors, owned, name, c->hidden, 3);
          break;
        case LAYOUT_BERT:
          name = g_strdup_printf ("bert.encoder.layer.%u.attention.self.query.weight", l);
          add_tensor (tensors, owned, name, 1, c->hidden);
          break;
        case LAYOUT_EXAONE:
          name = g_strdup_printf ("transformer.h.%u.attn.attention.q_proj.weight", l);
          add_tensor (tensors, owned, name, 1, 1);
          break;
        case LAYOUT_T5:
          /* block 0's queries heads × d_kv by d_model, as T5's config is
           * checked against them, and its bias table */
          name = g_strdup_printf ("encoder.block.%u.layer.0.SelfAttention.q.weight", l);
          add_tensor (tensors, owned, name, l == 0 ? c->heads * 64 : 1, l == 0 ? c->hidden : 1);
          if (l == 0)
            add_tensor (tensors, owned, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                        32, c->heads);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  pl_test_write_safetensors (weights, (PlTestTensor *) tensors->data, tensors->len);
  return dir;
}

static void
test_real_config (gconstpointer data)
{
  const RealConfig *c = data;
  g_autofree char *dir = write_model (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  if (c->family < 0)
    {
      g_autofree char *named = g_strdup_printf ("model_type “%s”", c->model_type);
      g_autofree char *config = g_build_filename (dir, "config.json", NULL);
      g_autoptr(PlModel) table = NULL;
      g_autofree char *err = NULL;

      g_assert_null (model);
      g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
      g_assert_nonnull (strstr (error->message, named));
      g_assert_nonnull (strstr (error->message, config));
      /* check, which the window runs first, says so and fails */
      g_assert_cmpint (pl_test_cli (NULL, &err, "check", dir, NULL), ==, 2);
      g_assert_nonnull (strstr (err, named));
      /* a tensor named on purpose is still a plain table */
      g_clear_error (&error);
      table = pl_model_open (dir, c->layout == LAYOUT_EXAONE ? "transformer.wte.weight"
                                : c->layout == LAYOUT_T5 ? "shared.weight"
                                : c->layout == LAYOUT_OPENAI_GPT ? "positions_embed.weight"
                                : "model.embed_tokens.weight", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pl_model_get_family (table), ==, PL_FAMILY_TABLE);
      g_assert_cmpuint (pl_model_get_hidden_size (table), ==, c->hidden);
      pl_test_rmtree (dir);
      return;
    }

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_cmpstr (pl_model_get_family_name (model), ==, c->model_type);
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, c->layers);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, c->hidden);
  if (c->positions > 0)
    {
      g_assert_cmpuint (pl_model_get_n_positions (model), ==, c->positions);
    }
  else if (c->layout == LAYOUT_T5)
    {
      g_assert_cmpuint (pl_model_get_n_heads (model), ==, c->heads);
      g_assert_true (pl_model_has_position_bias (model));
      g_assert_cmpuint (pl_model_get_n_position_tables (model), ==, 1);
      g_assert_cmpstr (pl_model_get_stack (model), ==, "encoder");
    }
  else
    {
      const PlRotaryDecoderSpec *d = pl_model_get_rotary_decoder (model);

      g_assert_nonnull (d);
      g_assert_true (pl_model_require_config (model, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (pl_model_get_n_heads (model), ==, c->heads);
      g_assert_cmpuint (d->n_kv_heads, ==, c->kv_heads);
      g_assert_cmpuint (d->head_dim, ==, c->head_dim);
      g_assert_cmpuint (d->rope.dim, ==, c->head_dim);
      g_assert_cmpfloat (d->rope.theta, ==, c->theta);
      g_assert_cmpint (d->rope.scaling, ==, c->scaling);
      g_assert_cmpuint (pl_model_get_n_positions (model), ==, c->max_positions);
      g_assert_cmpint (d->qk_norm, ==, c->family == PL_FAMILY_QWEN3 || c->family == PL_FAMILY_QWEN3_MOE);
      if (c->family == PL_FAMILY_QWEN3_MOE)
        {
          g_assert_cmpuint (d->n_experts, ==, 128);
          g_assert_cmpuint (d->n_experts_per_token, ==, 8);
          g_assert_cmpuint (d->expert_ffn, ==, 768);
          g_assert_true (d->norm_topk);
          g_assert_nonnull (d->layer_experts);
          for (guint l = 0; l < c->layers; l++)
            g_assert_true (d->layer_experts[l]);
          /* the dense feed-forward's width, which no layer uses */
          g_assert_cmpuint (pl_model_get_ffn_size (model), ==, 6144);
        }
      else
        g_assert_null (d->layer_experts);
      g_assert_cmpint (d->post_norms, ==, c->family == PL_FAMILY_GEMMA2);
      if (c->family == PL_FAMILY_GEMMA2)
        {
          g_assert_nonnull (d->layer_windows);
          for (guint l = 0; l < c->layers; l++)
            g_assert_cmpuint (d->layer_windows[l], ==, l % 2 == 0 ? c->gemma2_window : 0);
          g_assert_cmpfloat (d->attention_scale, ==, 1.0 / 16);
          g_assert_cmpfloat (d->attention_softcap, ==, 50);
        }
      else
        {
          /* Qwen2's and Qwen3's sliding_window is off unless use_sliding_window */
          g_assert_null (d->layer_windows);
          g_assert_cmpfloat_with_epsilon (d->attention_scale, 1.0 / sqrt (c->head_dim), 1e-15);
          g_assert_cmpfloat (d->attention_softcap, ==, 0);
        }
    }
  pl_test_rmtree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);
  for (guint i = 0; i < G_N_ELEMENTS (configs); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/model-types/%s", configs[i].file);

      g_test_add_data_func (path, &configs[i], test_real_config);
    }
  return g_test_run ();
}
