/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* The other ways models learn position: T5's (and UMT5's) learned bias over
 * buckets of the offset, ALiBi's slopes (BLOOM, MPT), DeBERTa-v2/v3's table
 * of relative positions; and the learned absolute tables of encoder–decoders
 * (BART, mBART, Whisper) and of CLIP's text tower. Each family's names, how
 * config.json describes it (with Hugging Face's defaults), and what its
 * values must be before anything is computed from them. */

#define WEIGHT_AND_BIAS(role, name) \
  [PL_WEIGHT_##role##_WEIGHT] = name ".weight", [PL_WEIGHT_##role##_BIAS] = name ".bias"

/* T5's blocks as T5Stack names them, relative to a stack's prefix
 * ("encoder.", "decoder."); FF is the feed-forward's sublayer (1 in the
 * encoder, 2 in the decoder, after the cross-attention). */
#define T5_ROLES(ff) \
  [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_tokens.weight", \
  [PL_WEIGHT_Q_WEIGHT] = "layer.0.SelfAttention.q.weight", \
  [PL_WEIGHT_K_WEIGHT] = "layer.0.SelfAttention.k.weight", \
  [PL_WEIGHT_V_WEIGHT] = "layer.0.SelfAttention.v.weight", \
  [PL_WEIGHT_ATTN_OUT_WEIGHT] = "layer.0.SelfAttention.o.weight", \
  [PL_WEIGHT_LN1_WEIGHT] = "layer.0.layer_norm.weight", \
  [PL_WEIGHT_FFN_IN_WEIGHT] = "layer." ff ".DenseReluDense.wi.weight", \
  [PL_WEIGHT_FFN_OUT_WEIGHT] = "layer." ff ".DenseReluDense.wo.weight", \
  [PL_WEIGHT_LN2_WEIGHT] = "layer." ff ".layer_norm.weight", \
  [PL_WEIGHT_FINAL_LN_WEIGHT] = "final_layer_norm.weight"

/* BART's, mBART's and Whisper's layers, relative to a stack's prefix. */
#define BART_ROLES \
  [PL_WEIGHT_TOKEN_EMBEDDING] = "embed_tokens.weight", \
  [PL_WEIGHT_POSITION_EMBEDDING] = "embed_positions.weight", \
  WEIGHT_AND_BIAS (EMBED_LN, "layernorm_embedding"), \
  WEIGHT_AND_BIAS (Q, "self_attn.q_proj"), \
  WEIGHT_AND_BIAS (K, "self_attn.k_proj"), \
  WEIGHT_AND_BIAS (V, "self_attn.v_proj"), \
  WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.out_proj"), \
  WEIGHT_AND_BIAS (LN1, "self_attn_layer_norm"), \
  WEIGHT_AND_BIAS (FFN_IN, "fc1"), \
  WEIGHT_AND_BIAS (FFN_OUT, "fc2"), \
  WEIGHT_AND_BIAS (LN2, "final_layer_norm")

/* The decoder stacks' descriptions differ from the encoders' in their
 * feed-forward names (T5) and in being causal; both share the family. */
static const PlFamilyDesc relpos_families[] = {
  { .family = PL_FAMILY_T5, .name = "t5", .display_name = "T5",
    .layer_list = "block.", .roles = { T5_ROLES ("1") }, .pre_ln = TRUE, .norm = PL_NORM_RMS, .has_forward = TRUE },
  { .family = PL_FAMILY_UMT5, .name = "umt5", .display_name = "UMT5",
    .layer_list = "block.", .roles = { T5_ROLES ("1") }, .pre_ln = TRUE, .norm = PL_NORM_RMS, .has_forward = TRUE },
  { .family = PL_FAMILY_BLOOM, .name = "bloom", .display_name = "BLOOM",
    .layer_list = "h.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "word_embeddings.weight",
      WEIGHT_AND_BIAS (EMBED_LN, "word_embeddings_layernorm"),
      WEIGHT_AND_BIAS (Q, "self_attention.query_key_value"),
      WEIGHT_AND_BIAS (K, "self_attention.query_key_value"),
      WEIGHT_AND_BIAS (V, "self_attention.query_key_value"),
      WEIGHT_AND_BIAS (ATTN_OUT, "self_attention.dense"),
      WEIGHT_AND_BIAS (LN1, "input_layernorm"),
      WEIGHT_AND_BIAS (FFN_IN, "mlp.dense_h_to_4h"),
      WEIGHT_AND_BIAS (FFN_OUT, "mlp.dense_4h_to_h"),
      WEIGHT_AND_BIAS (LN2, "post_attention_layernorm"),
      WEIGHT_AND_BIAS (FINAL_LN, "ln_f"),
    },
    .causal = TRUE, .pre_ln = TRUE, .norm = PL_NORM_LAYER, .has_forward = TRUE },
  { .family = PL_FAMILY_MPT, .name = "mpt", .display_name = "MPT",
    .layer_list = "blocks.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "wte.weight",
      [PL_WEIGHT_Q_WEIGHT] = "attn.Wqkv.weight",
      [PL_WEIGHT_K_WEIGHT] = "attn.Wqkv.weight",
      [PL_WEIGHT_V_WEIGHT] = "attn.Wqkv.weight",
      [PL_WEIGHT_ATTN_OUT_WEIGHT] = "attn.out_proj.weight",
      [PL_WEIGHT_LN1_WEIGHT] = "norm_1.weight",
      [PL_WEIGHT_FFN_IN_WEIGHT] = "ffn.up_proj.weight",
      [PL_WEIGHT_FFN_OUT_WEIGHT] = "ffn.down_proj.weight",
      [PL_WEIGHT_LN2_WEIGHT] = "norm_2.weight",
      [PL_WEIGHT_FINAL_LN_WEIGHT] = "norm_f.weight",
    },
    .causal = TRUE, .pre_ln = TRUE, .norm = PL_NORM_LAYER, .has_forward = TRUE },
  { .family = PL_FAMILY_DEBERTA_V2, .name = "deberta-v2", .display_name = "DeBERTa-v2",
    .layer_list = "encoder.layer.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "embeddings.word_embeddings.weight",
      [PL_WEIGHT_POSITION_EMBEDDING] = "embeddings.position_embeddings.weight",
      [PL_WEIGHT_TOKEN_TYPE_EMBEDDING] = "embeddings.token_type_embeddings.weight",
      WEIGHT_AND_BIAS (EMBED_LN, "embeddings.LayerNorm"),
      WEIGHT_AND_BIAS (Q, "attention.self.query_proj"),
      WEIGHT_AND_BIAS (K, "attention.self.key_proj"),
      WEIGHT_AND_BIAS (V, "attention.self.value_proj"),
      WEIGHT_AND_BIAS (ATTN_OUT, "attention.output.dense"),
      WEIGHT_AND_BIAS (LN1, "attention.output.LayerNorm"),
      WEIGHT_AND_BIAS (FFN_IN, "intermediate.dense"),
      WEIGHT_AND_BIAS (FFN_OUT, "output.dense"),
      WEIGHT_AND_BIAS (LN2, "output.LayerNorm"),
      [PL_WEIGHT_EMBED_PROJECT_WEIGHT] = "embeddings.embed_proj.weight",
    },
    .norm = PL_NORM_LAYER, .has_forward = TRUE },
  { .family = PL_FAMILY_BART, .name = "bart", .display_name = "BART",
    .layer_list = "layers.", .roles = { BART_ROLES }, .first_position = 2 },
  { .family = PL_FAMILY_MBART, .name = "mbart", .display_name = "mBART",
    .layer_list = "layers.", .roles = { BART_ROLES, WEIGHT_AND_BIAS (FINAL_LN, "layer_norm") },
    .pre_ln = TRUE, .first_position = 2 },
  { .family = PL_FAMILY_WHISPER, .name = "whisper", .display_name = "Whisper",
    .layer_list = "layers.", .roles = { BART_ROLES, WEIGHT_AND_BIAS (FINAL_LN, "layer_norm") },
    .pre_ln = TRUE },
  /* As CLIPTextModel saves it, and inside a whole CLIP model (its keys
   * under text_config there) */
  { .family = PL_FAMILY_CLIP_TEXT, .name = "clip_text_model", .display_name = "CLIP (text)",
    .position_suffix = "text_model.embeddings.position_embedding.weight",
    .layer_list = "text_model.encoder.layers.",
    .roles = {
      [PL_WEIGHT_TOKEN_EMBEDDING] = "text_model.embeddings.token_embedding.weight",
      [PL_WEIGHT_POSITION_EMBEDDING] = "text_model.embeddings.position_embedding.weight",
      WEIGHT_AND_BIAS (Q, "self_attn.q_proj"),
      WEIGHT_AND_BIAS (K, "self_attn.k_proj"),
      WEIGHT_AND_BIAS (V, "self_attn.v_proj"),
      WEIGHT_AND_BIAS (ATTN_OUT, "self_attn.out_proj"),
      WEIGHT_AND_BIAS (LN1, "layer_norm1"),
      WEIGHT_AND_BIAS (FFN_IN, "mlp.fc1"),
      WEIGHT_AND_BIAS (FFN_OUT, "mlp.fc2"),
      WEIGHT_AND_BIAS (LN2, "layer_norm2"),
      WEIGHT_AND_BIAS (FINAL_LN, "text_model.final_layer_norm"),
    },
    .causal = TRUE, .pre_ln = TRUE, .config_section = "text_config", .alias = "clip" },
};

static const PlFamilyDesc t5_decoder = {
  .family = PL_FAMILY_T5, .name = "t5", .display_name = "T5",
  .layer_list = "block.", .roles = { T5_ROLES ("2") }, .causal = TRUE, .pre_ln = TRUE, .norm = PL_NORM_RMS,
  .has_forward = TRUE,
};

static const PlFamilyDesc umt5_decoder = {
  .family = PL_FAMILY_UMT5, .name = "umt5", .display_name = "UMT5",
  .layer_list = "block.", .roles = { T5_ROLES ("2") }, .causal = TRUE, .pre_ln = TRUE, .norm = PL_NORM_RMS,
  .has_forward = TRUE,
};

const PlFamilyDesc *
pl_family_relpos_desc (PlFamily family)
{
  for (guint i = 0; i < G_N_ELEMENTS (relpos_families); i++)
    if (relpos_families[i].family == family)
      return &relpos_families[i];
  return NULL;
}

static const char * const model_types[] = {
  "t5", "mt5", "umt5", "bloom", "mpt", "deberta-v2", "bart", "mbart", "whisper", "clip_text_model",
};

gboolean
pl_family_relpos_knows_model_type (const char *model_type)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_types); i++)
    if (g_str_equal (model_type, model_types[i]))
      return TRUE;
  /* HF's DebertaV2Config says "deberta-v2"; some copies spell it so */
  return g_str_equal (model_type, "deberta_v2");
}

void
pl_family_relpos_list_model_types (GString *names)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_types); i++)
    g_string_append_printf (names, ", %s", model_types[i]);
}

void
pl_family_relpos_list_forward (GString *names)
{
  for (guint i = 0; i < G_N_ELEMENTS (relpos_families); i++)
    if (relpos_families[i].has_forward)
      g_string_append_printf (names, ", %s", relpos_families[i].display_name);
}

static gboolean
is_t5 (const PlFamilyDesc *desc)
{
  return desc->family == PL_FAMILY_T5 || desc->family == PL_FAMILY_UMT5;
}

static gboolean
is_seq2seq (const PlFamilyDesc *desc)
{
  return desc->family == PL_FAMILY_BART || desc->family == PL_FAMILY_MBART || desc->family == PL_FAMILY_WHISPER;
}

static gboolean
has_name (GHashTable *normalized,
          const char *prefix,
          const char *relative)
{
  g_autofree char *name = g_strconcat (prefix, relative, NULL);

  return g_hash_table_contains (normalized, name);
}

/* The prefix before SUFFIX (the shortest), when also PREFIX + ALSO exists
 * (NULL: no second tensor needed). */
static char *
find_with (GHashTable *normalized,
           const char *suffix,
           const char *also)
{
  g_autofree char *prefix = NULL;

  if (!pl_family_find_suffix (normalized, suffix, &prefix))
    return NULL;
  if (also != NULL && !has_name (normalized, prefix, also))
    return NULL;
  return g_steal_pointer (&prefix);
}

static gboolean
type_is (const char *model_type,
         const char *a,
         const char *b)
{
  return model_type != NULL && (g_str_equal (model_type, a) || (b != NULL && g_str_equal (model_type, b)));
}

gboolean
pl_family_recognise_relpos (PlCheckpoint        *checkpoint,
                            GHashTable          *normalized,
                            const PlFamilyDesc **desc,
                            char               **prefix)
{
  const char *model_type = pl_family_config_model_type (checkpoint);
  gboolean untyped = model_type == NULL;
  char *found;

  /* T5, mT5 and ByT5 say "t5" or "mt5"; UMT5 has a bias in every layer */
  if ((untyped || type_is (model_type, "t5", "mt5") || type_is (model_type, "umt5", NULL)) &&
      ((found = find_with (normalized, "encoder.block.0.layer.0.SelfAttention.q.weight", NULL)) != NULL ||
       (found = find_with (normalized, "decoder.block.0.layer.0.SelfAttention.q.weight", NULL)) != NULL))
    {
      gboolean umt5 = type_is (model_type, "umt5", NULL) ||
                      (untyped && (has_name (normalized, found, "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight") ||
                                   has_name (normalized, found, "decoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight")));

      *desc = pl_family_relpos_desc (umt5 ? PL_FAMILY_UMT5 : PL_FAMILY_T5);
      *prefix = found;
      return TRUE;
    }
  if ((untyped || type_is (model_type, "bloom", NULL)) &&
      (found = find_with (normalized, "h.0.self_attention.query_key_value.weight", "word_embeddings.weight")) != NULL)
    {
      *desc = pl_family_relpos_desc (PL_FAMILY_BLOOM);
      *prefix = found;
      return TRUE;
    }
  if ((untyped || type_is (model_type, "mpt", NULL)) &&
      (found = find_with (normalized, "blocks.0.attn.Wqkv.weight", "wte.weight")) != NULL)
    {
      *desc = pl_family_relpos_desc (PL_FAMILY_MPT);
      *prefix = found;
      return TRUE;
    }
  if ((untyped || type_is (model_type, "deberta-v2", "deberta_v2")) &&
      (found = find_with (normalized, "encoder.layer.0.attention.self.query_proj.weight",
                          "embeddings.word_embeddings.weight")) != NULL)
    {
      *desc = pl_family_relpos_desc (PL_FAMILY_DEBERTA_V2);
      *prefix = found;
      return TRUE;
    }
  /* An encoder–decoder's two tables; named by model_type, or without one
   * by what only Whisper (its audio convolutions) and mBART (a LayerNorm
   * after each stack) have. */
  if (untyped || type_is (model_type, "bart", NULL) || type_is (model_type, "mbart", NULL) ||
      type_is (model_type, "whisper", NULL))
    {
      found = find_with (normalized, "encoder.embed_positions.weight", "decoder.embed_positions.weight");
      if (found == NULL && !untyped)
        found = find_with (normalized, "encoder.embed_positions.weight", NULL);
      if (found == NULL && !untyped)
        found = find_with (normalized, "decoder.embed_positions.weight", NULL);
      if (found != NULL)
        {
          PlFamily family = PL_FAMILY_BART;

          if (type_is (model_type, "whisper", NULL) || (untyped && has_name (normalized, found, "encoder.conv1.weight")))
            family = PL_FAMILY_WHISPER;
          else if (type_is (model_type, "mbart", NULL) ||
                   (untyped && has_name (normalized, found, "encoder.layer_norm.weight")))
            family = PL_FAMILY_MBART;
          *desc = pl_family_relpos_desc (family);
          *prefix = found;
          return TRUE;
        }
    }
  if ((untyped || type_is (model_type, "clip_text_model", "clip")) &&
      (found = find_with (normalized, "text_model.embeddings.position_embedding.weight", NULL)) != NULL)
    {
      *desc = pl_family_relpos_desc (PL_FAMILY_CLIP_TEXT);
      *prefix = found;
      return TRUE;
    }
  return FALSE;
}

/* ---- Reading tensors by name ------------------------------------------- */

static const PlNormalizedName *
lookup (PlModel    *self,
        const char *relative,
        gboolean    shared)
{
  g_autofree char *name = g_strconcat (shared ? self->base_prefix : self->prefix, relative, NULL);

  return self->normalized ? g_hash_table_lookup (self->normalized, name) : NULL;
}

gboolean
pl_model_named_shape (PlModel    *self,
                      const char *relative,
                      gboolean    shared,
                      guint64    *rows,
                      guint64    *cols)
{
  const PlNormalizedName *stored;
  const PlTensorInfo *info;

  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (!(stored = lookup (self, relative, shared)) ||
      !(info = pl_checkpoint_find_tensor (self->checkpoint, stored->stored)))
    return FALSE;
  pl_tensor_info_get_matrix_shape (info, rows, cols);
  if (stored->kernel && info->rank == 2)
    {
      guint64 t = *rows;

      *rows = *cols;
      *cols = t;
    }
  return TRUE;
}

PlMatrix *
pl_model_read_named (PlModel     *self,
                     const char  *relative,
                     gboolean     shared,
                     gboolean     optional,
                     GError     **error)
{
  const PlNormalizedName *stored;
  g_autoptr(PlMatrix) m = NULL;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);

  if (!(stored = lookup (self, relative, shared)))
    {
      if (!optional)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s: this %s checkpoint has no “%s%s”",
                     pl_checkpoint_get_path (self->checkpoint), self->desc->display_name,
                     shared ? self->base_prefix : self->prefix, relative);
      return NULL;
    }
  if (!(m = pl_checkpoint_read (self->checkpoint, stored->stored, error)))
    return NULL;
  if (stored->kernel && m->rows > 1)
    {
      PlMatrix *t = pl_matrix_new (m->cols, m->rows);

      for (gsize i = 0; i < m->rows; i++)
        for (gsize j = 0; j < m->cols; j++)
          t->data[j * m->rows + i] = m->data[i * m->cols + j];
      pl_matrix_unref (m);
      return t;
    }
  return g_steal_pointer (&m);
}

PlStoredMatrix *
pl_model_read_named_stored (PlModel     *self,
                            const char  *relative,
                            gboolean     shared,
                            gboolean     optional,
                            GError     **error)
{
  const PlNormalizedName *stored;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);

  if (!(stored = lookup (self, relative, shared)) || stored->kernel)
    {
      g_autoptr(PlMatrix) m = pl_model_read_named (self, relative, shared, optional, error);

      return m ? pl_stored_matrix_new_from_matrix (m) : NULL;
    }
  return pl_checkpoint_read_stored (self->checkpoint, stored->stored, error);
}

const PlRelposSpec *
pl_model_get_relpos (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->has_relpos ? &self->relpos : NULL;
}

/* Every layer's bias table of a T5 stack is listed (one, in layer 0, for
 * T5; one per layer for UMT5). */
static void
list_t5_tables (PlModel            *self,
                const PlFamilyDesc *desc,
                const char         *stack,
                const char         *prefix,
                const char         *base)
{
  for (guint l = 0; l < PL_RELPOS_MAX_LAYERS; l++)
    {
      g_autofree char *name = g_strdup_printf ("%sblock.%u.layer.0.SelfAttention.relative_attention_bias.weight",
                                               prefix, l);
      const PlNormalizedName *stored = g_hash_table_lookup (self->normalized, name);
      const PlTensorInfo *info = stored ? pl_checkpoint_find_tensor (self->checkpoint, stored->stored) : NULL;
      guint64 rows, cols;

      if (info == NULL)
        {
          if (l > 0)
            break;
          continue;
        }
      pl_tensor_info_get_matrix_shape (info, &rows, &cols);
      pl_model_add_table (self, stack, info->name, rows, cols, 0, PL_TABLE_BIAS,
                          desc->family == PL_FAMILY_UMT5 ? l + 1 : 0, desc, base);
      if (desc->family != PL_FAMILY_UMT5)
        break;
    }
}

/* ---- Opening ------------------------------------------------------------- */

static const PlFamilyDesc *
stack_desc (const PlFamilyDesc *desc,
            const char         *stack)
{
  if (stack == NULL || !g_str_equal (stack, "decoder"))
    return desc;
  if (desc->family == PL_FAMILY_T5)
    return &t5_decoder;
  if (desc->family == PL_FAMILY_UMT5)
    return &umt5_decoder;
  return desc;
}

/* The stacks' own prefix after the model's: T5's, BART's and Whisper's are
 * "encoder." and "decoder."; the others have one stack named after what it
 * is and no prefix of its own. */
static const char *
stack_path (const PlFamilyDesc *desc,
            const char         *stack)
{
  if (is_t5 (desc) || is_seq2seq (desc))
    return g_str_equal (stack, "decoder") ? "decoder." : "encoder.";
  return "";
}

static const char *
only_stack (const PlFamilyDesc *desc)
{
  if (desc->family == PL_FAMILY_CLIP_TEXT)
    return "text";
  if (desc->family == PL_FAMILY_BLOOM || desc->family == PL_FAMILY_MPT)
    return "decoder";
  return "encoder";
}

gboolean
pl_model_setup_relpos (PlModel             *self,
                       const PlFamilyDesc  *desc,
                       const char          *base,
                       const char          *stack,
                       GError             **error)
{
  g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));
  JsonObject *config;

  self->desc = stack_desc (desc, stack);
  self->has_relpos = TRUE;
  memset (&self->relpos, 0, sizeof self->relpos);
  if (self->base_prefix != base)
    {
      g_free (self->base_prefix);
      self->base_prefix = g_strdup (base);
    }
  g_free (self->prefix);
  self->prefix = g_strconcat (base, stack_path (desc, stack), NULL);
  self->stack = g_str_equal (stack, "decoder") ? "decoder" : g_str_equal (stack, "text") ? "text" : "encoder";
  self->causal = self->desc->causal;
  self->pre_ln = self->desc->pre_ln;
  self->first_position = self->desc->first_position;
  self->n_layers = pl_model_count_layers (self);
  config = pl_model_get_family_config (self);
  if (!pl_model_read_relpos_config (self, desc, config, dir, error))
    return FALSE;
  if (config == NULL)
    {
      self->config_problem_code = PL_ERROR_NOT_FOUND;
      self->config_problem = g_strdup_printf ("no config.json beside %s: the number of attention heads and what "
                                              "the %s layers compute cannot be read from the weights; put the "
                                              "model’s config.json in %s", pl_checkpoint_get_path (self->checkpoint),
                                              desc->display_name, dir);
    }
  return TRUE;
}

/* Every table of the model, in the order info lists them: the default one
 * first. */
static void
list_tables (PlModel            *self,
             const PlFamilyDesc *desc,
             const char         *base)
{
  static const char * const stacks[] = { "encoder", "decoder" };

  if (is_t5 (desc))
    {
      for (guint s = 0; s < G_N_ELEMENTS (stacks); s++)
        {
          g_autofree char *prefix = g_strconcat (base, stack_path (desc, stacks[s]), NULL);

          list_t5_tables (self, stack_desc (desc, stacks[s]), stacks[s], prefix, base);
        }
      return;
    }
  if (desc->family == PL_FAMILY_DEBERTA_V2)
    {
      const char *names[] = { "encoder.rel_embeddings.weight", "embeddings.position_embeddings.weight" };
      const PlTableKind kinds[] = { PL_TABLE_RELATIVE, PL_TABLE_ABSOLUTE };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *name = g_strconcat (base, names[i], NULL);
          const PlNormalizedName *stored = g_hash_table_lookup (self->normalized, name);
          const PlTensorInfo *info = stored ? pl_checkpoint_find_tensor (self->checkpoint, stored->stored) : NULL;
          guint64 rows, cols;

          /* an absolute table only when the embeddings add it */
          if (info == NULL || !pl_tensor_info_is_table (info) ||
              (kinds[i] == PL_TABLE_ABSOLUTE && !self->relpos.position_biased_input))
            continue;
          pl_tensor_info_get_matrix_shape (info, &rows, &cols);
          pl_model_add_table (self, "encoder", info->name, rows, cols, 0, kinds[i], 0, desc, base);
        }
      return;
    }
  if (is_seq2seq (desc) || desc->family == PL_FAMILY_CLIP_TEXT)
    {
      guint n_stacks = desc->family == PL_FAMILY_CLIP_TEXT ? 1 : 2;

      for (guint s = 0; s < n_stacks; s++)
        {
          const char *stack = desc->family == PL_FAMILY_CLIP_TEXT ? "text" : stacks[s];
          g_autofree char *name = g_strconcat (base, stack_path (desc, stack),
                                               desc->roles[PL_WEIGHT_POSITION_EMBEDDING], NULL);
          const PlNormalizedName *stored = g_hash_table_lookup (self->normalized, name);
          const PlTensorInfo *info = stored ? pl_checkpoint_find_tensor (self->checkpoint, stored->stored) : NULL;
          guint64 rows, cols;
          PlTableKind kind = PL_TABLE_ABSOLUTE;

          if (info == NULL || !pl_tensor_info_is_table (info))
            continue;
          pl_tensor_info_get_matrix_shape (info, &rows, &cols);
          /* Whisper's encoder keeps sinusoids it never trains */
          if (desc->family == PL_FAMILY_WHISPER && g_str_equal (stack, "encoder"))
            kind = PL_TABLE_SINUSOIDAL;
          pl_model_add_table (self, stack, info->name, rows, cols, desc->first_position, kind, 0, desc, base);
        }
    }
}

/* The table the views open on: the first learned one (Whisper's decoder's,
 * DeBERTa's relative table), none for the bias families. */
static const PlModelTable *
default_table (PlModel *self)
{
  for (guint i = 0; self->tables != NULL && i < self->tables->len; i++)
    {
      const PlModelTable *t = &g_array_index (self->tables, PlModelTable, i);

      if (t->info.kind == PL_TABLE_ABSOLUTE || t->info.kind == PL_TABLE_RELATIVE)
        return t;
    }
  return NULL;
}

PlModel *
pl_model_open_relpos (PlModel             *self,
                      const PlFamilyDesc  *desc,
                      const char          *prefix,
                      const char          *dataset,
                      GError             **error)
{
  g_autoptr(PlModel) owned = self;
  g_autofree char *base = g_strdup (prefix);
  const PlModelTable *first;
  const char *stack = only_stack (desc);

  /* a T5 or BART checkpoint of the decoder alone opens on its decoder */
  if (is_t5 (desc) || is_seq2seq (desc))
    {
      g_autofree char *encoder = g_strconcat (base, "encoder.", NULL);
      gboolean has_encoder = FALSE;
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->normalized);
      while (!has_encoder && g_hash_table_iter_next (&iter, &key, NULL))
        has_encoder = g_str_has_prefix (key, encoder);
      stack = has_encoder ? "encoder" : "decoder";
    }
  if (!pl_model_setup_relpos (self, desc, base, stack, error))
    return NULL;
  list_tables (self, desc, base);

  if (dataset != NULL)
    {
      const PlTensorInfo *info = pl_checkpoint_find_tensor (self->checkpoint, dataset);

      if (info == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                       "%s has no dataset “%s” (links to other files or objects are not followed)",
                       pl_checkpoint_get_path (self->checkpoint), dataset);
          return NULL;
        }
      for (guint i = 0; i < self->tables->len; i++)
        if (g_str_equal (g_array_index (self->tables, PlModelTable, i).tensor, info->name))
          return pl_model_select_table (self, info->name, error) ? g_steal_pointer (&owned) : NULL;
      pl_model_clear_setup (self);
      return pl_model_open_plain_table (g_steal_pointer (&owned), info, error);
    }
  first = default_table (self);
  if (first != NULL && !pl_model_select_table (self, first->tensor, error))
    return NULL;
  return g_steal_pointer (&owned);
}

void
pl_model_add_text_tower (PlModel *self)
{
  const PlFamilyDesc *text = pl_family_relpos_desc (PL_FAMILY_CLIP_TEXT);
  g_autofree char *name = g_strconcat (self->prefix, text->position_suffix, NULL);
  const PlNormalizedName *stored = g_hash_table_lookup (self->normalized, name);
  const PlTensorInfo *info = stored ? pl_checkpoint_find_tensor (self->checkpoint, stored->stored) : NULL;
  guint64 rows, cols;

  if (info == NULL || !pl_tensor_info_is_table (info))
    return;
  /* the vision table first, as the views open on it */
  if (self->tables == NULL || self->tables->len == 0)
    pl_model_finish_tables (self);
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  pl_model_add_table (self, "text", info->name, rows, cols, 0, PL_TABLE_ABSOLUTE, 0, text, self->prefix);
}
