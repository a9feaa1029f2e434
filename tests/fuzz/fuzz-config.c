/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-fuzz.h"
#include "pl-model-private.h"

/* config.json beside a checkpoint whose tensors are those of a small model of
 * one family (the first byte picks it): the JSON reader, then what the model
 * takes from it (heads, epsilon, activation, special ids). */
typedef struct
{
  const char *name;
  guint       rank;
  guint64     shape[2];
} Tensor;

static const Tensor gpt2[] = {
  { "transformer.wte.weight", 2, { 64, 16 } },
  { "transformer.wpe.weight", 2, { 32, 16 } },
  { "transformer.h.0.ln_1.weight", 1, { 16 } },
  { "transformer.h.0.attn.c_attn.weight", 2, { 16, 48 } },
  { "transformer.h.0.attn.c_attn.bias", 1, { 48 } },
  { "transformer.h.0.mlp.c_fc.weight", 2, { 16, 64 } },
  { "transformer.h.1.attn.c_attn.weight", 2, { 16, 48 } },
  { "transformer.ln_f.weight", 1, { 16 } },
  { NULL },
};

static const Tensor bert[] = {
  { "bert.embeddings.word_embeddings.weight", 2, { 64, 16 } },
  { "bert.embeddings.position_embeddings.weight", 2, { 32, 16 } },
  { "bert.embeddings.token_type_embeddings.weight", 2, { 2, 16 } },
  { "bert.embeddings.LayerNorm.weight", 1, { 16 } },
  { "bert.encoder.layer.0.attention.self.query.weight", 2, { 16, 16 } },
  { "bert.encoder.layer.0.intermediate.dense.weight", 2, { 64, 16 } },
  { NULL },
};

static const Tensor roberta[] = {
  { "roberta.embeddings.word_embeddings.weight", 2, { 64, 16 } },
  { "roberta.embeddings.position_embeddings.weight", 2, { 34, 16 } },
  { "roberta.encoder.layer.0.attention.self.query.weight", 2, { 16, 16 } },
  { NULL },
};

static const Tensor distilbert[] = {
  { "distilbert.embeddings.word_embeddings.weight", 2, { 64, 16 } },
  { "distilbert.embeddings.position_embeddings.weight", 2, { 32, 16 } },
  { "distilbert.transformer.layer.0.attention.q_lin.weight", 2, { 16, 16 } },
  { NULL },
};

/* The families whose configs hold bucket counts, slopes and table sizes
 * (pl-model-relpos.c): T5's and UMT5's relative_attention_*, MPT's
 * attn_config, DeBERTa's position_buckets and pos_att_type, BART's and
 * Whisper's positions. */
static const Tensor t5[] = {
  { "shared.weight", 2, { 64, 16 } },
  { "encoder.block.0.layer.0.SelfAttention.q.weight", 2, { 16, 16 } },
  { "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", 2, { 32, 4 } },
  { "encoder.block.1.layer.0.SelfAttention.q.weight", 2, { 16, 16 } },
  { "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight", 2, { 32, 4 } },
  { "encoder.block.0.layer.1.DenseReluDense.wi.weight", 2, { 32, 16 } },
  { "decoder.block.0.layer.0.SelfAttention.q.weight", 2, { 16, 16 } },
  { "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", 2, { 32, 4 } },
  { NULL },
};

static const Tensor bloom[] = {
  { "transformer.word_embeddings.weight", 2, { 64, 16 } },
  { "transformer.h.0.self_attention.query_key_value.weight", 2, { 48, 16 } },
  { "transformer.h.0.self_attention.dense.weight", 2, { 16, 16 } },
  { "transformer.h.0.mlp.dense_h_to_4h.weight", 2, { 64, 16 } },
  { NULL },
};

static const Tensor mpt[] = {
  { "transformer.wte.weight", 2, { 64, 16 } },
  { "transformer.blocks.0.attn.Wqkv.weight", 2, { 48, 16 } },
  { "transformer.blocks.0.attn.out_proj.weight", 2, { 16, 16 } },
  { "transformer.blocks.0.ffn.up_proj.weight", 2, { 64, 16 } },
  { NULL },
};

static const Tensor deberta[] = {
  { "deberta.embeddings.word_embeddings.weight", 2, { 64, 16 } },
  { "deberta.embeddings.position_embeddings.weight", 2, { 32, 16 } },
  { "deberta.encoder.layer.0.attention.self.query_proj.weight", 2, { 16, 16 } },
  { "deberta.encoder.rel_embeddings.weight", 2, { 16, 16 } },
  { NULL },
};

static const Tensor bart[] = {
  { "model.shared.weight", 2, { 64, 16 } },
  { "model.encoder.embed_positions.weight", 2, { 34, 16 } },
  { "model.decoder.embed_positions.weight", 2, { 34, 16 } },
  { "model.encoder.layers.0.self_attn.q_proj.weight", 2, { 16, 16 } },
  { "model.decoder.layers.0.self_attn.q_proj.weight", 2, { 16, 16 } },
  { "model.encoder.conv1.weight", 2, { 16, 8 } },
  { NULL },
};

static const Tensor * const families[] = { gpt2, bert, roberta, distilbert, t5, bloom, mpt, deberta, bart };

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *weights = NULL;
  g_autofree char *config = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(GError) error = NULL;
  const Tensor *tensors;

  if (size < 1)
    return 0;
  tensors = families[data[0] % G_N_ELEMENTS (families)];
  config = pl_fuzz_write ("config.json", data + 1, size - 1);
  weights = g_build_filename (pl_fuzz_tmpdir (), "model.safetensors", NULL);
  checkpoint = pl_fuzz_checkpoint_new (weights);
  for (guint i = 0; tensors[i].name != NULL; i++)
    pl_checkpoint_add_tensor (checkpoint, tensors[i].name, tensors[i].rank, tensors[i].shape,
                              PL_DTYPE_F32, "F32");
  if (!pl_checkpoint_load_config (checkpoint, weights, &error))
    {
      g_assert (error != NULL);
      return 0;
    }
  g_assert_no_error (error);
  model = pl_model_open_checkpoint (g_object_ref (checkpoint), weights, NULL, &error);
  g_assert ((model == NULL) != (error == NULL));
  if (model != NULL)
    {
      g_autoptr(GError) config_error = NULL;
      const char *activation = pl_model_get_activation_name (model);

      if (!pl_model_require_config (model, &config_error))
        g_assert (config_error != NULL);
      /* Touch what the views print. */
      g_assert (activation == NULL || strlen (activation) < G_MAXSIZE);
      (void) pl_model_get_n_heads (model);
      (void) pl_model_get_layer_norm_eps (model);
      (void) pl_model_get_bos_id (model);
      /* Every table chosen in turn; the bias of every stack (T5's tables
       * have no bytes here and fail to read; ALiBi's slopes are computed
       * from the config alone); DeBERTa's relative rows described. */
      for (guint i = 0; i < pl_model_get_n_position_tables (model); i++)
        {
          g_autoptr(GError) select_error = NULL;
          g_autoptr(GError) bias_error = NULL;
          g_autoptr(PlPositionBias) bias = NULL;
          const PlPositionTableInfo *t = pl_model_get_position_table_info (model, i);

          if (!pl_model_select_table (model, t->tensor, &select_error))
            {
              g_assert (select_error != NULL);
              break;
            }
          if (pl_model_get_table_kind (model) == PL_TABLE_RELATIVE)
            for (guint r = 0; r < pl_model_get_position_table_rows (model) && r < 64; r++)
              g_free (pl_model_describe_relative_row (model, r));
          if (pl_model_has_position_bias (model))
            {
              bias = pl_model_compute_position_bias (model, 0, 16, &bias_error);
              g_assert ((bias == NULL) != (bias_error == NULL));
            }
        }
      if (pl_model_has_position_bias (model))
        {
          g_autoptr(GError) bias_error = NULL;
          g_autoptr(PlPositionBias) bias = pl_model_compute_position_bias (model, 0, 0, &bias_error);

          g_assert ((bias == NULL) != (bias_error == NULL));
        }
    }
  return 0;
}
