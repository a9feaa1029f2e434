/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "pl-model-private.h"

/* A module's two tensors, NAME.weight and NAME.bias, in the roles ROLE_WEIGHT
 * and ROLE_BIAS. */
#define WEIGHT_AND_BIAS(role, name) \
  [PL_WEIGHT_##role##_WEIGHT] = name ".weight", [PL_WEIGHT_##role##_BIAS] = name ".bias"

#define BERT_LIKE_ROLES(attn, out, ln1, inter, output, ln2)        \
  [PL_WEIGHT_TOKEN_EMBEDDING] = "embeddings.word_embeddings.weight", \
  [PL_WEIGHT_POSITION_EMBEDDING] = "embeddings.position_embeddings.weight", \
  [PL_WEIGHT_TOKEN_TYPE_EMBEDDING] = "embeddings.token_type_embeddings.weight", \
  WEIGHT_AND_BIAS (EMBED_LN, "embeddings.LayerNorm"), \
  WEIGHT_AND_BIAS (Q, attn "query"), \
  WEIGHT_AND_BIAS (K, attn "key"), \
  WEIGHT_AND_BIAS (V, attn "value"), \
  WEIGHT_AND_BIAS (ATTN_OUT, out), \
  WEIGHT_AND_BIAS (LN1, ln1), \
  WEIGHT_AND_BIAS (FFN_IN, inter), \
  WEIGHT_AND_BIAS (FFN_OUT, output), \
  WEIGHT_AND_BIAS (LN2, ln2)

#define BERT_ROLES BERT_LIKE_ROLES ("attention.self.", "attention.output.dense", \
                                    "attention.output.LayerNorm", "intermediate.dense", \
                                    "output.dense", "output.LayerNorm")

/* Llama's names, which Mistral, Qwen2 and Gemma share (LlamaForCausalLM
 * saves them under "model."); Phi-3 fuses Q, K, V and gate, up. */
#define LLAMA_COMMON_ROLES \
  [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_tokens.weight", \
  WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.o_proj"), \
  [PL_WEIGHT_LN1_WEIGHT] = "input_layernorm.weight", \
  [PL_WEIGHT_LN2_WEIGHT] = "post_attention_layernorm.weight", \
  WEIGHT_AND_BIAS (FFN_OUT, "mlp.down_proj"), \
  [PL_WEIGHT_FINAL_LN_WEIGHT] = "norm.weight"

#define LLAMA_ROLES \
  LLAMA_COMMON_ROLES, \
  WEIGHT_AND_BIAS (Q, "self_attn.q_proj"), \
  WEIGHT_AND_BIAS (K, "self_attn.k_proj"), \
  WEIGHT_AND_BIAS (V, "self_attn.v_proj"), \
  WEIGHT_AND_BIAS (FFN_GATE, "mlp.gate_proj"), \
  WEIGHT_AND_BIAS (FFN_IN, "mlp.up_proj")

#define LLAMA_LIKE .layer_list = "layers.", .rotary = TRUE, .causal = TRUE, .pre_ln = TRUE, .gated_mlp = TRUE, \
                   .has_forward = TRUE

/* Order matters: more specific layouts before the ones they resemble. */
static const PlFamilyDesc families[] = {
  {
    .family = PL_FAMILY_GPT2, .name = "gpt2", .display_name = "GPT-2",
    .position_suffix = "wpe.weight", .layer_list = "h.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "wte.weight",
      [PL_WEIGHT_POSITION_EMBEDDING] = "wpe.weight",
      WEIGHT_AND_BIAS (Q, "attn.c_attn"),
      WEIGHT_AND_BIAS (K, "attn.c_attn"),
      WEIGHT_AND_BIAS (V, "attn.c_attn"),
      WEIGHT_AND_BIAS (ATTN_OUT, "attn.c_proj"),
      WEIGHT_AND_BIAS (LN1, "ln_1"),
      WEIGHT_AND_BIAS (FFN_IN, "mlp.c_fc"),
      WEIGHT_AND_BIAS (FFN_OUT, "mlp.c_proj"),
      WEIGHT_AND_BIAS (LN2, "ln_2"),
      WEIGHT_AND_BIAS (FINAL_LN, "ln_f"),
    },
    .conv1d = TRUE, .fused_qkv = TRUE, .causal = TRUE, .pre_ln = TRUE, .has_forward = TRUE,
  },
  {
    .family = PL_FAMILY_OPT, .name = "opt", .display_name = "OPT",
    .position_suffix = "embed_positions.weight", .layer_list = "layers.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_tokens.weight",
      [PL_WEIGHT_POSITION_EMBEDDING] = "embed_positions.weight",
      WEIGHT_AND_BIAS (Q, "self_attn.q_proj"),
      WEIGHT_AND_BIAS (K, "self_attn.k_proj"),
      WEIGHT_AND_BIAS (V, "self_attn.v_proj"),
      WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.out_proj"),
      WEIGHT_AND_BIAS (LN1, "self_attn_layer_norm"),
      WEIGHT_AND_BIAS (FFN_IN, "fc1"),
      WEIGHT_AND_BIAS (FFN_OUT, "fc2"),
      WEIGHT_AND_BIAS (LN2, "final_layer_norm"),
      WEIGHT_AND_BIAS (FINAL_LN, "final_layer_norm"),
    },
    /* OPTLearnedPositionalEmbedding adds 2 to every position id; its
     * LayerNorms are nn.LayerNorm with the default epsilon. */
    .causal = TRUE, .pre_ln = TRUE, .first_position = 2, .fixed_eps = 1e-5, .has_forward = TRUE,
  },
  {
    .family = PL_FAMILY_DISTILBERT, .name = "distilbert", .display_name = "DistilBERT",
    .position_suffix = "embeddings.position_embeddings.weight", .layer_list = "transformer.layer.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "embeddings.word_embeddings.weight",
      [PL_WEIGHT_POSITION_EMBEDDING] = "embeddings.position_embeddings.weight",
      WEIGHT_AND_BIAS (EMBED_LN, "embeddings.LayerNorm"),
      WEIGHT_AND_BIAS (Q, "attention.q_lin"),
      WEIGHT_AND_BIAS (K, "attention.k_lin"),
      WEIGHT_AND_BIAS (V, "attention.v_lin"),
      WEIGHT_AND_BIAS (ATTN_OUT, "attention.out_lin"),
      WEIGHT_AND_BIAS (LN1, "sa_layer_norm"),
      WEIGHT_AND_BIAS (FFN_IN, "ffn.lin1"),
      WEIGHT_AND_BIAS (FFN_OUT, "ffn.lin2"),
      WEIGHT_AND_BIAS (LN2, "output_layer_norm"),
    },
    /* DistilBERT's LayerNorms are built with eps=1e-12 in its code. */
    .fixed_eps = 1e-12, .has_forward = TRUE,
  },
  {
    .family = PL_FAMILY_ALBERT, .name = "albert", .display_name = "ALBERT",
    .position_suffix = "embeddings.position_embeddings.weight",
    .layer_list = "encoder.albert_layer_groups.0.albert_layers.0.",
    .roles = {
      BERT_LIKE_ROLES ("attention.", "attention.dense", "attention.LayerNorm",
                       "ffn", "ffn_output", "full_layer_layer_norm"),
      /* AlbertTransformer maps the embeddings to the hidden size with this
       * Linear always, even when the two sizes agree. */
      WEIGHT_AND_BIAS (EMBED_PROJECT, "encoder.embedding_hidden_mapping_in"),
    },
    .shared_layers = TRUE, .has_forward = TRUE,
  },
  { .family = PL_FAMILY_ROBERTA, .name = "roberta", .display_name = "RoBERTa",
    .position_suffix = "embeddings.position_embeddings.weight", .layer_list = "encoder.layer.",
    .roles = { BERT_ROLES }, .first_position = 2, .has_forward = TRUE },
  { .family = PL_FAMILY_XLM_ROBERTA, .name = "xlm-roberta", .display_name = "XLM-RoBERTa",
    .position_suffix = "embeddings.position_embeddings.weight", .layer_list = "encoder.layer.",
    .roles = { BERT_ROLES }, .first_position = 2, .has_forward = TRUE },
  /* ELECTRA-small embeds in fewer dimensions than it computes in: HF's
   * ElectraModel has embeddings_project (PyTorch "electra.embeddings_project.
   * weight" [hidden, embedding]; TF ".../electra/embeddings_project/kernel:0"
   * [embedding, hidden]) only when embedding_size != hidden_size. */
  { .family = PL_FAMILY_ELECTRA, .name = "electra", .display_name = "ELECTRA",
    .position_suffix = "embeddings.position_embeddings.weight", .layer_list = "encoder.layer.",
    .roles = { BERT_ROLES,
               [PL_WEIGHT_EMBED_PROJECT_WEIGHT] = "embeddings_project.weight",
               [PL_WEIGHT_EMBED_PROJECT_BIAS] = "embeddings_project.bias" },
    .has_forward = TRUE },
  { .family = PL_FAMILY_BERT, .name = "bert", .display_name = "BERT",
    .position_suffix = "embeddings.position_embeddings.weight", .layer_list = "encoder.layer.",
    .roles = { BERT_ROLES }, .has_forward = TRUE },
  /* The rotary decoders, named as config.json's model_type names them. */
  { .family = PL_FAMILY_LLAMA, .name = "llama", .display_name = "Llama",
    .roles = { LLAMA_ROLES }, LLAMA_LIKE, .norm = PL_NORM_RMS },
  { .family = PL_FAMILY_MISTRAL, .name = "mistral", .display_name = "Mistral",
    .roles = { LLAMA_ROLES }, LLAMA_LIKE, .norm = PL_NORM_RMS },
  { .family = PL_FAMILY_QWEN2, .name = "qwen2", .display_name = "Qwen2",
    .roles = { LLAMA_ROLES }, LLAMA_LIKE, .norm = PL_NORM_RMS },
  { .family = PL_FAMILY_GEMMA, .name = "gemma", .display_name = "Gemma",
    .roles = { LLAMA_ROLES }, LLAMA_LIKE, .norm = PL_NORM_RMS_PLUS_ONE, .scale_embeddings = TRUE },
  { .family = PL_FAMILY_PHI3, .name = "phi3", .display_name = "Phi-3",
    .roles = {
      LLAMA_COMMON_ROLES,
      [PL_WEIGHT_Q_WEIGHT] = "self_attn.qkv_proj.weight",
      [PL_WEIGHT_K_WEIGHT] = "self_attn.qkv_proj.weight",
      [PL_WEIGHT_V_WEIGHT] = "self_attn.qkv_proj.weight",
      [PL_WEIGHT_FFN_GATE_WEIGHT] = "mlp.gate_up_proj.weight",
      [PL_WEIGHT_FFN_IN_WEIGHT] = "mlp.gate_up_proj.weight",
    },
    LLAMA_LIKE, .norm = PL_NORM_RMS, .fused_qkv_rows = TRUE, .fused_gate_up = TRUE },
  { .family = PL_FAMILY_GPT_NEOX, .name = "gpt_neox", .display_name = "GPT-NeoX",
    .layer_list = "layers.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_in.weight",
      WEIGHT_AND_BIAS (Q, "attention.query_key_value"),
      WEIGHT_AND_BIAS (K, "attention.query_key_value"),
      WEIGHT_AND_BIAS (V, "attention.query_key_value"),
      WEIGHT_AND_BIAS (ATTN_OUT, "attention.dense"),
      WEIGHT_AND_BIAS (LN1, "input_layernorm"),
      WEIGHT_AND_BIAS (LN2, "post_attention_layernorm"),
      WEIGHT_AND_BIAS (FFN_IN, "mlp.dense_h_to_4h"),
      WEIGHT_AND_BIAS (FFN_OUT, "mlp.dense_4h_to_h"),
      WEIGHT_AND_BIAS (FINAL_LN, "final_layer_norm"),
    },
    .rotary = TRUE, .causal = TRUE, .pre_ln = TRUE, .has_forward = TRUE, .norm = PL_NORM_LAYER,
    .fused_qkv_heads = TRUE },
  /* Qwen 3: Llama's names and each head's query and key RMSNormed before
   * the rotation. */
  { .family = PL_FAMILY_QWEN3, .name = "qwen3", .display_name = "Qwen3",
    .roles = { LLAMA_ROLES,
               [PL_WEIGHT_Q_NORM_WEIGHT] = "self_attn.q_norm.weight",
               [PL_WEIGHT_K_NORM_WEIGHT] = "self_attn.k_norm.weight" },
    LLAMA_LIKE, .norm = PL_NORM_RMS, .qk_norm = TRUE },
  /* Gemma 2: Gemma's, with a norm after the attention and after the
   * feed-forward; its post_attention_layernorm is that first one, and
   * pre_feedforward_layernorm the norm before the feed-forward. */
  { .family = PL_FAMILY_GEMMA2, .name = "gemma2", .display_name = "Gemma 2",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_tokens.weight",
      WEIGHT_AND_BIAS (Q, "self_attn.q_proj"),
      WEIGHT_AND_BIAS (K, "self_attn.k_proj"),
      WEIGHT_AND_BIAS (V, "self_attn.v_proj"),
      WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.o_proj"),
      [PL_WEIGHT_LN1_WEIGHT] = "input_layernorm.weight",
      [PL_WEIGHT_POST_ATTN_LN_WEIGHT] = "post_attention_layernorm.weight",
      [PL_WEIGHT_LN2_WEIGHT] = "pre_feedforward_layernorm.weight",
      [PL_WEIGHT_POST_FFN_LN_WEIGHT] = "post_feedforward_layernorm.weight",
      WEIGHT_AND_BIAS (FFN_GATE, "mlp.gate_proj"),
      WEIGHT_AND_BIAS (FFN_IN, "mlp.up_proj"),
      WEIGHT_AND_BIAS (FFN_OUT, "mlp.down_proj"),
      [PL_WEIGHT_FINAL_LN_WEIGHT] = "norm.weight",
    },
    LLAMA_LIKE, .norm = PL_NORM_RMS_PLUS_ONE, .scale_embeddings = TRUE, .post_norms = TRUE },
  /* Qwen3-MoE: Qwen3's attention; the feed-forward of most layers a router
   * (mlp.gate) over experts mlp.experts.E.{gate,up,down}_proj, of the
   * others (mlp_only_layers, decoder_sparse_step) Llama's. */
  { .family = PL_FAMILY_QWEN3_MOE, .name = "qwen3_moe", .display_name = "Qwen3-MoE",
    .roles = { LLAMA_ROLES,
               [PL_WEIGHT_Q_NORM_WEIGHT] = "self_attn.q_norm.weight",
               [PL_WEIGHT_K_NORM_WEIGHT] = "self_attn.k_norm.weight",
               [PL_WEIGHT_ROUTER_WEIGHT] = "mlp.gate.weight",
               [PL_WEIGHT_EXPERT_GATE_WEIGHT] = "gate_proj.weight",
               [PL_WEIGHT_EXPERT_UP_WEIGHT] = "up_proj.weight",
               [PL_WEIGHT_EXPERT_DOWN_WEIGHT] = "down_proj.weight" },
    .expert_list = "mlp.experts.", LLAMA_LIKE, .norm = PL_NORM_RMS, .qk_norm = TRUE },
};

/* Vision transformers' encoder layers, named as BERT's are after an extra
 * "attention." (no token embeddings, a final LayerNorm): enough to count
 * layers and read sizes; there is no forward pass. */
#define VIT_LAYER_ROLES(ln1, ln2, ffn_in, ffn_out) \
  BERT_LIKE_ROLES ("attention.attention.", "attention.output.dense", ln1, ffn_in, ffn_out, ln2), \
  WEIGHT_AND_BIAS (FINAL_LN, "layernorm")

/* CLIP's and SigLIP's vision towers, as CLIPModel, SiglipModel and their
 * vision models alone save them: every name under "vision_model.". */
#define CLIP_VISION_ROLES \
  WEIGHT_AND_BIAS (Q, "self_attn.q_proj"), \
  WEIGHT_AND_BIAS (K, "self_attn.k_proj"), \
  WEIGHT_AND_BIAS (V, "self_attn.v_proj"), \
  WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.out_proj"), \
  WEIGHT_AND_BIAS (LN1, "layer_norm1"), \
  WEIGHT_AND_BIAS (FFN_IN, "mlp.fc1"), \
  WEIGHT_AND_BIAS (FFN_OUT, "mlp.fc2"), \
  WEIGHT_AND_BIAS (LN2, "layer_norm2"), \
  WEIGHT_AND_BIAS (FINAL_LN, "vision_model.post_layernorm")

/* The tables of Hugging Face's vision models. ViT, DeiT and DINOv2 keep
 * theirs as an nn.Parameter [1, specials + patches, width] (named under
 * "vit.", "deit.", "dinov2." in the task models, under nothing in the base
 * models saved alone), CLIP and SigLIP as an nn.Embedding [specials +
 * patches, width]. Among families sharing a table's name, the first whose
 * marker is present (in this order) is taken when config.json's model_type
 * does not say. */
static const PlFamilyDesc vision_families[] = {
  { .family = PL_FAMILY_DEIT, .name = "deit", .display_name = "DeiT",
    .position_suffix = "embeddings.position_embeddings", .layer_list = "encoder.layer.",
    .roles = { VIT_LAYER_ROLES ("layernorm_before", "layernorm_after", "intermediate.dense", "output.dense") },
    .patch_grid = TRUE, .pre_ln = TRUE, .first_position = 2, .special_names = { "CLS", "distillation" },
    .marker = "embeddings.distillation_token" },
  { .family = PL_FAMILY_DINOV2, .name = "dinov2", .display_name = "DINOv2",
    .position_suffix = "embeddings.position_embeddings", .layer_list = "encoder.layer.",
    .roles = { VIT_LAYER_ROLES ("norm1", "norm2", "mlp.fc1", "mlp.fc2") },
    .patch_grid = TRUE, .pre_ln = TRUE, .first_position = 1, .special_names = { "CLS" },
    .marker = "encoder.layer.0.layer_scale1.lambda1" },
  { .family = PL_FAMILY_VIT, .name = "vit", .display_name = "ViT",
    .position_suffix = "embeddings.position_embeddings", .layer_list = "encoder.layer.",
    .roles = { VIT_LAYER_ROLES ("layernorm_before", "layernorm_after", "intermediate.dense", "output.dense") },
    .patch_grid = TRUE, .pre_ln = TRUE, .first_position = 1, .special_names = { "CLS" },
    .marker = "embeddings.cls_token" },
  { .family = PL_FAMILY_CLIP_VISION, .name = "clip", .display_name = "CLIP (vision)",
    .position_suffix = "vision_model.embeddings.position_embedding.weight",
    .layer_list = "vision_model.encoder.layers.", .roles = { CLIP_VISION_ROLES },
    .patch_grid = TRUE, .pre_ln = TRUE, .first_position = 1, .special_names = { "CLS" },
    .config_section = "vision_config", .alias = "clip_vision_model",
    .marker = "vision_model.embeddings.class_embedding" },
  /* No class token: every row is a patch. */
  { .family = PL_FAMILY_SIGLIP_VISION, .name = "siglip", .display_name = "SigLIP (vision)",
    .position_suffix = "vision_model.embeddings.position_embedding.weight",
    .layer_list = "vision_model.encoder.layers.", .roles = { CLIP_VISION_ROLES },
    .patch_grid = TRUE, .pre_ln = TRUE, .config_section = "vision_config", .alias = "siglip_vision_model" },
};

static const PlFamilyDesc table_desc = {
  .family = PL_FAMILY_TABLE, .name = "table", .display_name = N_("Table"),
};

static const PlFamilyDesc analytic_desc = {
  .family = PL_FAMILY_ANALYTIC, .name = "analytic", .display_name = N_("Analytic"),
};

const PlFamilyDesc *
pl_family_desc (PlFamily family)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (families[i].family == family)
      return &families[i];
  for (guint i = 0; i < G_N_ELEMENTS (vision_families); i++)
    if (vision_families[i].family == family)
      return &vision_families[i];
  if (pl_family_relpos_desc (family) != NULL)
    return pl_family_relpos_desc (family);
  return family == PL_FAMILY_ANALYTIC ? &analytic_desc : &table_desc;
}

const PlFamilyDesc *
pl_family_vision_descs (guint *n)
{
  *n = G_N_ELEMENTS (vision_families);
  return vision_families;
}

const char *
pl_family_get_name (PlFamily family)
{
  return pl_family_desc (family)->name;
}

gboolean
pl_family_has_forward (PlFamily family)
{
  return pl_family_desc (family)->has_forward;
}

char *
pl_family_list_forward (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (families[i].has_forward)
      g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", families[i].display_name);
  pl_family_relpos_list_forward (names);
  return g_string_free (names, FALSE);
}

static gboolean
is_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

char *
pl_model_normalize_name (const char *name,
                         gboolean   *kernel)
{
  GString *flat = g_string_new (NULL);
  g_auto(GStrv) parts = NULL;
  GString *out = g_string_new (NULL);
  char *colon;
  guint n;

  *kernel = FALSE;
  while (*name == '/')
    name++;
  /* Keras list items: "layer_._3" is PyTorch's "layer.3". */
  for (const char *p = name; *p; p++)
    {
      if (p[0] == '_' && p[1] == '.' && p[2] == '_' && g_ascii_isdigit (p[3]))
        {
          g_string_append_c (flat, '.');
          p += 2;
          continue;
        }
      g_string_append_c (flat, *p == '/' ? '.' : *p);
    }
  /* TensorFlow's ":0" variable suffix. */
  colon = strrchr (flat->str, ':');
  if (colon != NULL && is_digits (colon + 1))
    g_string_truncate (flat, colon - flat->str);
  parts = g_strsplit (flat->str, ".", -1);
  g_string_free (flat, TRUE);
  n = g_strv_length (parts);

  for (guint i = 0; i < n; i++)
    {
      const char *part = parts[i];

      if (part[0] == '\0')
        continue;
      if (out->len > 0)
        g_string_append_c (out, '.');
      if (i == n - 1)
        {
          if (strcmp (part, "kernel") == 0)
            {
              *kernel = TRUE;
              part = "weight";
            }
          else if (strcmp (part, "gamma") == 0 || strcmp (part, "embeddings") == 0)
            part = "weight";
          else if (strcmp (part, "beta") == 0)
            part = "bias";
        }
      g_string_append (out, part);
    }
  return g_string_free (out, FALSE);
}

/* model_type values that name a family under another spelling (the
 * families' own names and their towers' aliases are known too). */
static const char * const model_type_aliases[] = { "xlm_roberta", "camembert" };

gboolean
pl_family_knows_model_type (const char *model_type)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_str_equal (model_type, families[i].name))
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (vision_families); i++)
    if (g_str_equal (model_type, vision_families[i].name) ||
        (vision_families[i].alias != NULL && g_str_equal (model_type, vision_families[i].alias)))
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (model_type_aliases); i++)
    if (g_str_equal (model_type, model_type_aliases[i]))
      return TRUE;
  return pl_family_relpos_knows_model_type (model_type);
}

char *
pl_family_list_model_types (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", families[i].name);
  for (guint i = 0; i < G_N_ELEMENTS (vision_families); i++)
    g_string_append_printf (names, ", %s", vision_families[i].name);
  pl_family_relpos_list_model_types (names);
  return g_string_free (names, FALSE);
}

const char *
pl_family_config_model_type (PlCheckpoint *checkpoint)
{
  JsonObject *config = pl_checkpoint_get_config (checkpoint);

  if (config == NULL || !json_object_has_member (config, "model_type"))
    return NULL;
  return json_object_get_string_member_with_default (config, "model_type", NULL);
}

static gboolean
has_tensor (GHashTable *normalized,
            const char *prefix,
            const char *middle,
            const char *role)
{
  g_autofree char *name = g_strconcat (prefix, middle ? middle : "", role, NULL);

  return g_hash_table_contains (normalized, name);
}

/* BERT-shaped embeddings are shared by five families: the layer layout tells
 * DistilBERT and ALBERT apart, then config.json's model_type or the prefix's
 * last component (HF's base_model_prefix) names the rest. */
static const PlFamilyDesc *
pick_bert_like (PlCheckpoint *checkpoint,
                GHashTable   *normalized,
                const char   *prefix)
{
  const char *model_type = pl_family_config_model_type (checkpoint);
  g_autofree char *trimmed = g_strdup (prefix);
  const char *last;
  char *dot;

  if (has_tensor (normalized, prefix, "transformer.layer.0.", "attention.q_lin.weight"))
    return pl_family_desc (PL_FAMILY_DISTILBERT);
  if (has_tensor (normalized, prefix, "encoder.albert_layer_groups.0.albert_layers.0.", "attention.query.weight"))
    return pl_family_desc (PL_FAMILY_ALBERT);

  if (model_type != NULL)
    {
      if (g_str_equal (model_type, "xlm-roberta") || g_str_equal (model_type, "xlm_roberta"))
        return pl_family_desc (PL_FAMILY_XLM_ROBERTA);
      if (g_str_equal (model_type, "roberta") || g_str_equal (model_type, "camembert"))
        return pl_family_desc (PL_FAMILY_ROBERTA);
      if (g_str_equal (model_type, "electra"))
        return pl_family_desc (PL_FAMILY_ELECTRA);
      if (g_str_equal (model_type, "bert"))
        return pl_family_desc (PL_FAMILY_BERT);
    }

  if (g_str_has_suffix (trimmed, "."))
    trimmed[strlen (trimmed) - 1] = '\0';
  dot = strrchr (trimmed, '.');
  last = dot ? dot + 1 : trimmed;
  if (g_str_equal (last, "roberta"))
    return pl_family_desc (PL_FAMILY_ROBERTA);
  if (g_str_equal (last, "electra"))
    return pl_family_desc (PL_FAMILY_ELECTRA);
  return pl_family_desc (PL_FAMILY_BERT);
}

gboolean
pl_family_recognise (PlCheckpoint        *checkpoint,
                     GHashTable          *normalized,
                     const PlFamilyDesc **desc,
                     char               **prefix,
                     const PlTensorInfo **table)
{
  /* The first family (in the table's order) whose position table appears;
   * among several candidates, the shortest name (the model's own, not a
   * head's copy). */
  static const PlFamily probe_order[] = { PL_FAMILY_GPT2, PL_FAMILY_OPT, PL_FAMILY_BERT };

  for (guint f = 0; f < G_N_ELEMENTS (probe_order); f++)
    {
      const PlFamilyDesc *probe = pl_family_desc (probe_order[f]);
      GHashTableIter iter;
      gpointer key, value;
      const char *best = NULL;
      const PlNormalizedName *best_value = NULL;

      g_hash_table_iter_init (&iter, normalized);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const char *norm = key;
          gsize len = strlen (norm), suffix_len = strlen (probe->position_suffix);

          if (len < suffix_len || strcmp (norm + len - suffix_len, probe->position_suffix) != 0)
            continue;
          if (len > suffix_len && norm[len - suffix_len - 1] != '.')
            continue;
          if (best == NULL || len < strlen (best) || (len == strlen (best) && strcmp (norm, best) < 0))
            best = norm, best_value = value;
        }
      if (best != NULL)
        {
          const PlTensorInfo *info = pl_checkpoint_find_tensor (checkpoint, best_value->stored);
          g_autofree char *found_prefix = g_strndup (best, strlen (best) - strlen (probe->position_suffix));

          if (info == NULL || !pl_tensor_info_is_table (info))
            continue;
          if (probe->family == PL_FAMILY_BERT)
            probe = pick_bert_like (checkpoint, normalized, found_prefix);
          *desc = probe;
          *prefix = g_steal_pointer (&found_prefix);
          *table = info;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
pl_family_find_suffix (GHashTable  *normalized,
             const char  *suffix,
             char       **prefix)
{
  GHashTableIter iter;
  gpointer key;
  const char *best = NULL;
  gsize suffix_len = strlen (suffix);

  g_hash_table_iter_init (&iter, normalized);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *norm = key;
      gsize len = strlen (norm);

      if (len < suffix_len || strcmp (norm + len - suffix_len, suffix) != 0 ||
          (len > suffix_len && norm[len - suffix_len - 1] != '.'))
        continue;
      if (best == NULL || len < strlen (best) || (len == strlen (best) && strcmp (norm, best) < 0))
        best = norm;
    }
  if (best == NULL)
    return FALSE;
  *prefix = g_strndup (best, strlen (best) - suffix_len);
  return TRUE;
}

gboolean
pl_family_recognise_rotary (PlCheckpoint        *checkpoint,
                            GHashTable          *normalized,
                            const PlFamilyDesc **desc,
                            char               **prefix)
{
  const char *model_type = pl_family_config_model_type (checkpoint);

  /* Mistral, Qwen2 and Gemma save Llama's names: config.json's model_type
   * tells them apart, and without one the layout is taken as Llama's. A
   * model_type of another architecture (Qwen3, Mixtral, Gemma 2, …) is not
   * run as the one whose names it shares. */
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    {
      const PlFamilyDesc *d = &families[i];
      g_autofree char *query = NULL;
      g_autofree char *found = NULL;

      if (!d->rotary || (model_type != NULL && !g_str_equal (model_type, d->name)))
        continue;
      query = g_strconcat (d->layer_list, "0.", d->roles[PL_WEIGHT_Q_WEIGHT], NULL);
      if (!pl_family_find_suffix (normalized, query, &found) ||
          !has_tensor (normalized, found, NULL, d->roles[PL_WEIGHT_TOKEN_EMBEDDING]))
        continue;
      *desc = d;
      *prefix = g_steal_pointer (&found);
      return TRUE;
    }
  return FALSE;
}

gboolean
pl_weight_is_per_layer (PlWeight weight)
{
  return (weight >= PL_WEIGHT_Q_WEIGHT && weight <= PL_WEIGHT_LN2_BIAS) ||
         (weight >= PL_WEIGHT_FFN_GATE_WEIGHT && weight <= PL_WEIGHT_EXPERT_DOWN_WEIGHT);
}

PlActivation
pl_activation_from_name (const char *name)
{
  if (name == NULL)
    return PL_ACTIVATION_NONE;
  if (g_str_equal (name, "gelu"))
    return PL_ACTIVATION_GELU;
  if (g_str_equal (name, "gelu_new") || g_str_equal (name, "gelu_pytorch_tanh") ||
      g_str_equal (name, "gelu_fast"))
    return PL_ACTIVATION_GELU_TANH;
  if (g_str_equal (name, "relu"))
    return PL_ACTIVATION_RELU;
  if (g_str_equal (name, "silu") || g_str_equal (name, "swish"))
    return PL_ACTIVATION_SILU;
  return PL_ACTIVATION_NONE;
}
