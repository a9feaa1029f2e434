/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* What config.json says of the families of pl-model-relpos.c (T5, UMT5,
 * BLOOM, MPT, DeBERTa, the encoder–decoders' and CLIP's tables), each value
 * checked against the tensors and against a bound before anything uses it:
 * the first problem found names the file and the field. */

/* ---- config.json --------------------------------------------------------- */

/* What config.json says, or what is wrong with it: the first problem names
 * the file and the field. */
typedef struct
{
  JsonObject *config;
  const char *dir;
  GString    *problem;
  PlError     code;
} Config;

static void
config_fail (Config     *c,
             PlError     code,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static void
config_fail (Config     *c,
             PlError     code,
             const char *format,
             ...)
{
  va_list args;

  if (c->problem->len > 0)
    return;
  va_start (args, format);
  g_string_append_printf (c->problem, "%s/config.json: ", c->dir);
  g_string_append_vprintf (c->problem, format, args);
  va_end (args);
  c->code = code;
}

static JsonNode *
member (JsonObject *object,
        const char *key)
{
  JsonNode *node = object ? json_object_get_member (object, key) : NULL;

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

/* KEY as a whole number in 1 … MAX, or DEFAULT when absent (or null). */
static guint
config_uint (Config     *c,
             JsonObject *object,
             const char *key,
             guint       fallback,
             guint       max)
{
  JsonNode *node = member (object, key);
  gint64 v;

  if (node == NULL)
    return fallback;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is not a whole number", key);
      return fallback;
    }
  v = json_node_get_int (node);
  if (v < 1 || v > (gint64) max)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is %" G_GINT64_FORMAT "; it must be between 1 and %u", key, v, max);
      return fallback;
    }
  return (guint) v;
}

/* KEY as a number in (0, MAX], or DEFAULT when absent. */
static double
config_positive (Config     *c,
                 JsonObject *object,
                 const char *key,
                 double      fallback,
                 double      max)
{
  JsonNode *node = member (object, key);
  double v;

  if (node == NULL)
    return fallback;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is not a number", key);
      return fallback;
    }
  v = json_node_get_double (node);
  if (!(v > 0) || !(v <= max))
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is %g; it must be above 0 and at most %g", key, v, max);
      return fallback;
    }
  return v;
}

static gboolean
config_bool (Config     *c,
             JsonObject *object,
             const char *key,
             gboolean    fallback)
{
  JsonNode *node = member (object, key);

  if (node == NULL)
    return fallback;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is not true or false", key);
      return fallback;
    }
  return json_node_get_boolean (node);
}

static const char *
config_string (Config     *c,
               JsonObject *object,
               const char *key,
               const char *fallback)
{
  JsonNode *node = member (object, key);

  if (node == NULL)
    return fallback;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s is not a string", key);
      return fallback;
    }
  return json_node_get_string (node);
}


/* ---- Per family ------------------------------------------------------------ */

/* The rows and columns of tensor RELATIVE (after the stack's prefix), 0 × 0
 * when absent. */
static void
shape_of (PlModel    *self,
          const char *relative,
          guint64    *rows,
          guint64    *cols)
{
  if (!pl_model_named_shape (self, relative, FALSE, rows, cols))
    *rows = *cols = 0;
}

static void
set_sizes_from (PlModel    *self,
                const char *token,
                const char *query,
                const char *ffn_in)
{
  guint64 r, c;

  if (token != NULL && (pl_model_named_shape (self, token, FALSE, &r, &c) ||
                        pl_model_named_shape (self, token, TRUE, &r, &c)))
    {
      self->vocab = (guint) MIN (r, G_MAXUINT);
      self->embedding = (guint) MIN (c, G_MAXUINT);
    }
  shape_of (self, query, &r, &c);
  if (c > 0)
    self->hidden = (guint) MIN (c, G_MAXUINT);
  shape_of (self, ffn_in, &r, &c);
  if (r > 0)
    self->ffn = (guint) MIN (r, G_MAXUINT);
}

/* The activation of T5's feed_forward_proj: "relu", "gated-gelu" (the
 * tanh GELU, as HF maps it), "gated-silu", …: HF's act_info rules. */
static void
read_t5_activation (PlModel    *self,
                    Config     *c,
                    JsonObject *config)
{
  const char *proj = config_string (c, config, "feed_forward_proj", "relu");
  g_auto(GStrv) parts = g_strsplit (proj, "-", -1);
  guint n = g_strv_length (parts);
  const char *act = n > 0 ? parts[n - 1] : "";

  self->relpos.gated = n == 2 && g_str_equal (parts[0], "gated");
  if (n == 0 || n > 2 || (n == 2 && !self->relpos.gated))
    {
      config_fail (c, PL_ERROR_CORRUPT, "feed_forward_proj “%s” is not “ACT” or “gated-ACT”", proj);
      return;
    }
  if (g_str_equal (proj, "gated-gelu"))
    act = "gelu_new";
  g_free (self->activation_name);
  self->activation_name = g_strdup (act);
  self->activation = pl_activation_from_name (act);
  if (self->activation == PL_ACTIVATION_NONE)
    config_fail (c, PL_ERROR_UNSUPPORTED, "feed_forward_proj “%s”: the activation “%s” is not supported "
                 "(relu, gelu, gelu_new, silu are)", proj, act);
}

static void
setup_t5 (PlModel    *self,
          Config     *c,
          JsonObject *config,
          const char *stack)
{
  PlRelposSpec *r = &self->relpos;
  gboolean decoder = g_str_equal (stack, "decoder");
  g_autofree char *bias_name = g_strdup ("block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  guint64 rows, cols, q_rows, q_cols;
  char *check;

  {
    const char *ff = decoder ? "block.0.layer.2.DenseReluDense." : "block.0.layer.1.DenseReluDense.";
    g_autofree char *wi = g_strconcat (ff, "wi.weight", NULL);
    g_autofree char *wi_0 = g_strconcat (ff, "wi_0.weight", NULL);

    set_sizes_from (self, "embed_tokens.weight", "block.0.layer.0.SelfAttention.q.weight",
                    pl_model_named_shape (self, wi, FALSE, &rows, &cols) ? wi : wi_0);
    if (self->vocab == 0)
      set_sizes_from (self, "shared.weight", "block.0.layer.0.SelfAttention.q.weight",
                      pl_model_named_shape (self, wi, FALSE, &rows, &cols) ? wi : wi_0);
  }
  self->n_heads = config_uint (c, config, "num_heads", 0, PL_RELPOS_MAX_HEADS);
  r->n_buckets = config_uint (c, config, "relative_attention_num_buckets", 32, PL_RELPOS_MAX_BUCKETS);
  r->max_distance = config_uint (c, config, "relative_attention_max_distance", 128, PL_RELPOS_MAX_DISTANCE);
  r->n_encoder_layers = config_uint (c, config, "num_layers", 6, PL_RELPOS_MAX_LAYERS);
  r->n_decoder_layers = config_uint (c, config, "num_decoder_layers", r->n_encoder_layers, PL_RELPOS_MAX_LAYERS);
  r->d_kv = config_uint (c, config, "d_kv", 64, 1u << 16);
  self->eps = config_positive (c, config, "layer_norm_epsilon", 1e-6, 1);
  read_t5_activation (self, c, config);
  r->max_input = 512;
  self->has_bias = TRUE;

  if (self->n_heads == 0 && c->config != NULL)
    config_fail (c, PL_ERROR_NOT_FOUND, "has no num_heads");
  if ((check = pl_t5_buckets_check (!decoder, r->n_buckets, r->max_distance)) != NULL)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s", check);
      g_free (check);
    }
  /* The bias table must be what config.json says: [buckets, heads]. */
  shape_of (self, bias_name, &rows, &cols);
  if (rows > 0 && self->n_heads > 0 && (rows != r->n_buckets || cols != self->n_heads))
    config_fail (c, PL_ERROR_CORRUPT, "relative_attention_num_buckets %u and num_heads %u, but “%s%s” is "
                 "%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT, r->n_buckets, self->n_heads, self->prefix,
                 bias_name, rows, cols);
  shape_of (self, "block.0.layer.0.SelfAttention.q.weight", &q_rows, &q_cols);
  if (q_rows > 0 && self->n_heads > 0 && q_rows != (guint64) self->n_heads * r->d_kv)
    config_fail (c, PL_ERROR_CORRUPT, "num_heads %u × d_kv %u, but the queries of “%sblock.0” are %" G_GUINT64_FORMAT
                 " wide", self->n_heads, r->d_kv, self->prefix, q_rows);
}

static void
setup_bloom (PlModel    *self,
             Config     *c,
             JsonObject *config)
{
  static const char * const hidden_keys[] = { "hidden_size", "n_embed", NULL };
  guint64 rows, cols;

  set_sizes_from (self, "word_embeddings.weight", "h.0.self_attention.dense.weight",
                  "h.0.mlp.dense_h_to_4h.weight");
  self->n_heads = config_uint (c, config, "n_head", 0, PL_RELPOS_MAX_HEADS);
  if (self->n_heads == 0)
    self->n_heads = config_uint (c, config, "num_attention_heads", 0, PL_RELPOS_MAX_HEADS);
  if (self->n_heads == 0 && c->config != NULL)
    config_fail (c, PL_ERROR_NOT_FOUND, "has no n_head");
  self->eps = config_positive (c, config, "layer_norm_epsilon", 1e-5, 1);
  self->relpos.residual_post_ln = config_bool (c, config, "apply_residual_connection_post_layernorm", FALSE);
  self->relpos.max_input = config_uint (c, config, "seq_length", 2048, PL_RELPOS_MAX_POSITIONS);
  self->activation = PL_ACTIVATION_GELU_TANH;
  self->activation_name = g_strdup ("bloom_gelu");
  self->has_bias = TRUE;
  for (guint i = 0; hidden_keys[i] != NULL; i++)
    {
      guint v = config_uint (c, config, hidden_keys[i], 0, G_MAXINT);

      if (v > 0 && self->hidden > 0 && v != self->hidden)
        config_fail (c, PL_ERROR_CORRUPT, "%s is %u, but the weights are %u wide", hidden_keys[i], v, self->hidden);
    }
  shape_of (self, "h.0.self_attention.query_key_value.weight", &rows, &cols);
  if (rows > 0 && rows != 3 * (guint64) self->hidden)
    config_fail (c, PL_ERROR_CORRUPT, "the fused query_key_value of “%sh.0” has %" G_GUINT64_FORMAT
                 " rows, not 3 × %u", self->prefix, rows, self->hidden);
}

static void
setup_mpt (PlModel    *self,
           Config     *c,
           JsonObject *config)
{
  PlRelposSpec *r = &self->relpos;
  JsonNode *attn_node = member (config, "attn_config");
  JsonObject *attn = attn_node && JSON_NODE_HOLDS_OBJECT (attn_node) ? json_node_get_object (attn_node) : NULL;
  guint64 rows, cols;

  set_sizes_from (self, "wte.weight", "blocks.0.attn.out_proj.weight", "blocks.0.ffn.up_proj.weight");
  self->n_heads = config_uint (c, config, "n_heads", 0, PL_RELPOS_MAX_HEADS);
  if (self->n_heads == 0 && c->config != NULL)
    config_fail (c, PL_ERROR_NOT_FOUND, "has no n_heads");
  self->eps = config_positive (c, config, "layer_norm_epsilon", 1e-5, 1);
  r->max_input = config_uint (c, config, "max_seq_len", 2048, PL_RELPOS_MAX_POSITIONS);
  self->activation = PL_ACTIVATION_GELU;
  self->activation_name = g_strdup ("gelu");
  self->has_bias = TRUE;
  if (attn_node != NULL && attn == NULL)
    config_fail (c, PL_ERROR_CORRUPT, "attn_config is not an object");
  if (!config_bool (c, attn, "alibi", TRUE))
    config_fail (c, PL_ERROR_UNSUPPORTED, "attn_config.alibi is false; Hugging Face’s MptModel always adds ALiBi, "
                 "so Poslens runs MPT models with ALiBi only");
  if (config_bool (c, attn, "qk_ln", FALSE))
    config_fail (c, PL_ERROR_UNSUPPORTED, "attn_config.qk_ln is true; Hugging Face’s MptModel has no query–key "
                 "LayerNorm, and neither has Poslens");
  r->alibi_bias_max = config_positive (c, attn, "alibi_bias_max", 8, 1024);
  r->clip_qkv = config_positive (c, attn, "clip_qkv", 0, 1e30);
  r->softmax_scale = config_positive (c, attn, "softmax_scale", 0, 1e6);
  if (self->hidden > 0 && self->n_heads > 0 && r->softmax_scale == 0)
    r->softmax_scale = 1 / sqrt ((double) self->hidden / self->n_heads);
  shape_of (self, "blocks.0.attn.Wqkv.weight", &rows, &cols);
  if (rows > 0 && rows != 3 * (guint64) self->hidden)
    config_fail (c, PL_ERROR_CORRUPT, "the fused Wqkv of “%sblocks.0” has %" G_GUINT64_FORMAT " rows, not 3 × %u",
                 self->prefix, rows, self->hidden);
  if (config_uint (c, config, "d_model", self->hidden, G_MAXINT) != self->hidden)
    config_fail (c, PL_ERROR_CORRUPT, "d_model does not match the weights’ width %u", self->hidden);
}

/* pos_att_type: a list, or "p2c|c2p" as older configurations write it. */
static void
read_pos_att_type (PlModel    *self,
                   Config     *c,
                   JsonObject *config)
{
  JsonNode *node = member (config, "pos_att_type");
  g_auto(GStrv) parts = NULL;

  self->relpos.c2p = self->relpos.p2c = FALSE;
  if (node == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    parts = g_strsplit (json_node_get_string (node), "|", -1);
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = MIN (json_array_get_length (array), 16);

      parts = g_new0 (char *, n + 1);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *e = json_array_get_element (array, i);

          parts[i] = g_strdup (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
                               ? json_node_get_string (e) : "?");
        }
    }
  else
    {
      config_fail (c, PL_ERROR_CORRUPT, "pos_att_type is not a list of strings");
      return;
    }
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *kind = g_ascii_strdown (g_strstrip (parts[i]), -1);

      if (g_str_equal (kind, "c2p"))
        self->relpos.c2p = TRUE;
      else if (g_str_equal (kind, "p2c"))
        self->relpos.p2c = TRUE;
      else if (kind[0] != '\0')
        config_fail (c, PL_ERROR_UNSUPPORTED, "pos_att_type “%s”; DeBERTa-v2 knows c2p and p2c", kind);
    }
}

static void
setup_deberta (PlModel    *self,
               Config     *c,
               JsonObject *config)
{
  PlRelposSpec *r = &self->relpos;
  const char *norm_rel = config_string (c, config, "norm_rel_ebd", "none");
  guint max_positions, buckets;
  guint64 rows, cols;
  char *check;

  set_sizes_from (self, "embeddings.word_embeddings.weight", "encoder.layer.0.attention.self.query_proj.weight",
                  "encoder.layer.0.intermediate.dense.weight");
  self->n_heads = config_uint (c, config, "num_attention_heads", 0, PL_RELPOS_MAX_HEADS);
  if (self->n_heads == 0 && c->config != NULL)
    config_fail (c, PL_ERROR_NOT_FOUND, "has no num_attention_heads");
  self->eps = config_positive (c, config, "layer_norm_eps", 1e-7, 1);
  g_free (self->activation_name);
  self->activation_name = g_strdup (config_string (c, config, "hidden_act", "gelu"));
  self->activation = pl_activation_from_name (self->activation_name);
  if (self->activation == PL_ACTIVATION_NONE)
    config_fail (c, PL_ERROR_UNSUPPORTED, "hidden_act “%s” is not supported (gelu, gelu_new, relu are)",
                 self->activation_name);
  max_positions = config_uint (c, config, "max_position_embeddings", 512, PL_RELPOS_MAX_POSITIONS);
  r->max_input = max_positions;
  r->share_att_key = config_bool (c, config, "share_att_key", FALSE);
  r->position_biased_input = config_bool (c, config, "position_biased_input", TRUE);
  r->norm_rel_ebd = strstr (norm_rel, "layer_norm") != NULL;
  r->head_size = config_uint (c, config, "attention_head_size",
                              self->n_heads > 0 ? self->hidden / self->n_heads : 0, 1u << 16);
  read_pos_att_type (self, c, config);

  /* HF: position_buckets ≤ 0 means none; max_relative_positions < 1 means
   * max_position_embeddings; rel_embeddings has 2 × span rows */
  {
    JsonNode *node = member (config, "position_buckets");

    buckets = node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64 &&
              json_node_get_int (node) <= 0 ? 0 : config_uint (c, config, "position_buckets", 0, PL_RELPOS_MAX_BUCKETS);
    node = member (config, "max_relative_positions");
    r->max_relative = node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64 &&
                      json_node_get_int (node) < 1 ? max_positions
                      : config_uint (c, config, "max_relative_positions", max_positions, PL_RELPOS_MAX_POSITIONS);
  }
  r->position_buckets = buckets;
  r->span = buckets > 0 ? buckets : r->max_relative;
  if ((check = pl_deberta_buckets_check (buckets, r->max_relative)) != NULL)
    {
      config_fail (c, PL_ERROR_CORRUPT, "%s", check);
      g_free (check);
    }
  {
    JsonNode *conv = member (config, "conv_kernel_size");

    if (conv != NULL && (!JSON_NODE_HOLDS_VALUE (conv) || json_node_get_value_type (conv) != G_TYPE_INT64 ||
                         json_node_get_int (conv) != 0))
      config_fail (c, PL_ERROR_UNSUPPORTED, "conv_kernel_size is set (the convolution after the first layer of "
                   "DeBERTa-v2-xlarge); Poslens runs DeBERTa models without it");
  }
  if (!config_bool (c, config, "relative_attention", FALSE))
    config_fail (c, PL_ERROR_UNSUPPORTED, "relative_attention is false or absent; Poslens runs DeBERTa-v2 models "
                 "with their relative attention, as every released one has it");
  shape_of (self, "encoder.rel_embeddings.weight", &rows, &cols);
  if (rows == 0)
    config_fail (c, PL_ERROR_NOT_FOUND, "relative_attention is true, but “%sencoder.rel_embeddings.weight” is missing",
                 self->prefix);
  else if (rows != 2 * (guint64) r->span)
    config_fail (c, PL_ERROR_CORRUPT, "%s %u asks for %u relative rows, but “%sencoder.rel_embeddings.weight” has %"
                 G_GUINT64_FORMAT, buckets > 0 ? "position_buckets" : "max_relative_positions", r->span,
                 2 * r->span, self->prefix, rows);
  if (self->n_heads > 0 && r->head_size * self->n_heads != self->hidden)
    {
      shape_of (self, "encoder.layer.0.attention.self.query_proj.weight", &rows, &cols);
      if (rows != (guint64) r->head_size * self->n_heads)
        config_fail (c, PL_ERROR_CORRUPT, "num_attention_heads %u × attention_head_size %u, but the queries are %"
                     G_GUINT64_FORMAT " wide", self->n_heads, r->head_size, rows);
    }
}

/* BART's, mBART's and Whisper's stacks, and CLIP's text tower: sizes for
 * info and a check of their tables against config.json. */
static void
setup_table_family (PlModel    *self,
                    Config     *c,
                    JsonObject *config,
                    const char *stack)
{
  gboolean decoder = g_str_equal (stack, "decoder");
  const char *heads_key = decoder ? "decoder_attention_heads" : "encoder_attention_heads";
  const char *positions_key = "max_position_embeddings";
  guint extra = self->desc->first_position;
  guint expected;
  guint64 rows, cols;

  if (self->desc->family == PL_FAMILY_CLIP_TEXT)
    {
      set_sizes_from (self, "text_model.embeddings.token_embedding.weight",
                      "text_model.encoder.layers.0.self_attn.q_proj.weight",
                      "text_model.encoder.layers.0.mlp.fc1.weight");
      heads_key = "num_attention_heads";
      self->eps = config_positive (c, config, "layer_norm_eps", 1e-5, 1);
      self->activation_name = g_strdup (config_string (c, config, "hidden_act", "quick_gelu"));
      expected = config_uint (c, config, positions_key, 77, PL_RELPOS_MAX_POSITIONS);
    }
  else
    {
      set_sizes_from (self, "embed_tokens.weight", "layers.0.self_attn.q_proj.weight", "layers.0.fc1.weight");
      if (self->vocab == 0)
        set_sizes_from (self, "shared.weight", "layers.0.self_attn.q_proj.weight", "layers.0.fc1.weight");
      self->eps = 1e-5;
      self->activation_name = g_strdup (config_string (c, config, "activation_function", "gelu"));
      if (self->desc->family == PL_FAMILY_WHISPER)
        {
          positions_key = decoder ? "max_target_positions" : "max_source_positions";
          expected = config_uint (c, config, positions_key, decoder ? 448 : 1500, PL_RELPOS_MAX_POSITIONS);
        }
      else
        expected = config_uint (c, config, positions_key, 1024, PL_RELPOS_MAX_POSITIONS);
    }
  self->activation = pl_activation_from_name (self->activation_name);
  self->n_heads = config_uint (c, config, heads_key, 0, PL_RELPOS_MAX_HEADS);
  if (self->desc->family == PL_FAMILY_CLIP_TEXT || decoder)
    self->causal = TRUE;
  shape_of (self, self->desc->roles[PL_WEIGHT_POSITION_EMBEDDING], &rows, &cols);
  if (rows > 0 && c->config != NULL && rows != (guint64) expected + extra)
    config_fail (c, PL_ERROR_CORRUPT, "%s is %u, but “%s%s” has %" G_GUINT64_FORMAT " rows%s", positions_key,
                 expected, self->prefix, self->desc->roles[PL_WEIGHT_POSITION_EMBEDDING], rows,
                 extra > 0 ? " (positions start at row 2)" : "");
}

gboolean
pl_model_read_relpos_config (PlModel             *self,
                             const PlFamilyDesc  *desc,
                             JsonObject          *config,
                             const char          *dir,
                             GError             **error)
{
  g_autoptr(GString) problem = g_string_new (NULL);
  Config c = { config, dir, problem, 0 };

  switch (desc->family)
    {
    case PL_FAMILY_T5:
    case PL_FAMILY_UMT5:
      setup_t5 (self, &c, config, self->stack);
      break;
    case PL_FAMILY_BLOOM:
      setup_bloom (self, &c, config);
      break;
    case PL_FAMILY_MPT:
      setup_mpt (self, &c, config);
      break;
    case PL_FAMILY_DEBERTA_V2:
      setup_deberta (self, &c, config);
      break;
    default:
      setup_table_family (self, &c, config, self->stack);
      break;
    }
  if (self->embedding == 0)
    self->embedding = self->hidden;
  if (problem->len > 0)
    {
      g_set_error_literal (error, PL_ERROR, c.code, problem->str);
      return FALSE;
    }
  return TRUE;
}
