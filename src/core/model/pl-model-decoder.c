/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* A rotary-position decoder's config.json as Hugging Face's config classes
 * read it (LlamaConfig, MistralConfig, Qwen2Config, GemmaConfig, Phi3Config,
 * GPTNeoXConfig, Qwen3Config, Gemma2Config, Qwen3MoeConfig: their defaults for what the file leaves out), and its
 * weights in the precision they are stored. */

typedef struct
{
  PlFamily     family;
  double       eps;             /* rms_norm_eps (GPT-NeoX: layer_norm_eps) */
  const char  *activation;      /* hidden_act */
  guint        max_positions;   /* max_position_embeddings */
} Defaults;

static const Defaults defaults[] = {
  { PL_FAMILY_LLAMA, 1e-6, "silu", 2048 },
  { PL_FAMILY_MISTRAL, 1e-6, "silu", 4096 * 32 },
  { PL_FAMILY_QWEN2, 1e-6, "silu", 32768 },
  { PL_FAMILY_GEMMA, 1e-6, "gelu_pytorch_tanh", 8192 },
  { PL_FAMILY_PHI3, 1e-5, "silu", 4096 },
  { PL_FAMILY_GPT_NEOX, 1e-5, "gelu", 2048 },
  { PL_FAMILY_QWEN3, 1e-6, "silu", 32768 },
  { PL_FAMILY_GEMMA2, 1e-6, "gelu_pytorch_tanh", 8192 },
  { PL_FAMILY_QWEN3_MOE, 1e-6, "silu", 32768 },
};

/* The first problem found is the one reported. */
G_GNUC_PRINTF (3, 4) static void
problem (PlModel    *self,
         PlError     code,
         const char *format,
         ...)
{
  va_list args;

  if (self->config_problem != NULL)
    return;
  va_start (args, format);
  self->config_problem = g_strdup_vprintf (format, args);
  va_end (args);
  self->config_problem_code = code;
}

static JsonNode *
member (JsonObject *object,
        const char *key)
{
  return object != NULL ? json_object_get_member (object, key) : NULL;
}

static gboolean
is_number (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_INT64 || json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

/* KEY as a number, DEFAULT_VALUE when absent or null. */
static double
number_or (JsonObject *object,
           const char *key,
           double      default_value)
{
  JsonNode *node = member (object, key);

  return is_number (node) ? json_node_get_double (node) : default_value;
}

static gint64
int_or (JsonObject *object,
        const char *key,
        gint64      default_value)
{
  JsonNode *node = member (object, key);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  return default_value;
}

static gboolean
bool_or (JsonObject *object,
         const char *key,
         gboolean    default_value)
{
  JsonNode *node = member (object, key);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (node);
  return default_value;
}

static gboolean
is_null (JsonObject *object,
         const char *key)
{
  JsonNode *node = member (object, key);

  return node != NULL && JSON_NODE_HOLDS_NULL (node);
}

static gboolean
in_list (const char         *key,
         const char * const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (g_str_equal (key, list[i]))
      return TRUE;
  return FALSE;
}

/* rope_scaling, as modeling_rope_utils.py reads each kind. Anything it names
 * that Poslens does not compute is refused by name. */
static void
read_rope_scaling (PlModel    *self,
                   JsonObject *config,
                   const char *dir,
                   PlRopeSpec *rope)
{
  static const char * const linear_keys[] = { "rope_type", "type", "factor", NULL };
  /* HF's dynamic scaling accepts original_max_position_embeddings and does
   * not use it (it grows from max_position_embeddings); so here. */
  static const char * const dynamic_keys[] = { "rope_type", "type", "factor", "original_max_position_embeddings", NULL };
  static const char * const llama3_keys[] = { "rope_type", "type", "factor", "low_freq_factor", "high_freq_factor",
                                              "original_max_position_embeddings", NULL };
  static const char * const yarn_keys[] = { "rope_type", "type", "factor", "attention_factor", "beta_fast",
                                            "beta_slow", "original_max_position_embeddings", "mscale",
                                            "mscale_all_dim", "truncate", NULL };
  static const char * const default_keys[] = { "rope_type", "type", NULL };
  JsonNode *node = member (config, "rope_scaling");
  JsonObject *scaling;
  const char *kind = NULL;
  const char * const *allowed;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  rope->scaling = PL_ROPE_SCALING_NONE;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      problem (self, PL_ERROR_CORRUPT, "%s/config.json: rope_scaling is not an object", dir);
      return;
    }
  scaling = json_node_get_object (node);
  /* "type" is the older name of "rope_type" */
  if (json_object_has_member (scaling, "rope_type"))
    kind = json_object_get_string_member_with_default (scaling, "rope_type", NULL);
  else if (json_object_has_member (scaling, "type"))
    kind = json_object_get_string_member_with_default (scaling, "type", NULL);
  if (kind == NULL)
    {
      problem (self, PL_ERROR_CORRUPT, "%s/config.json: rope_scaling names no rope_type", dir);
      return;
    }
  /* Phi3Config renames its older "su" and "yarn" to "longrope" */
  if (self->desc->family == PL_FAMILY_PHI3 && (g_str_equal (kind, "su") || g_str_equal (kind, "yarn")))
    {
      problem (self, PL_ERROR_UNSUPPORTED,
               "%s/config.json: rope_scaling “%s” is Phi-3’s LongRoPE (“longrope”), which Poslens does not "
               "implement; it runs Phi-3 models without rope_scaling", dir, kind);
      return;
    }
  if (g_str_equal (kind, "default"))
    allowed = default_keys;
  else if (g_str_equal (kind, "linear"))
    rope->scaling = PL_ROPE_SCALING_LINEAR, allowed = linear_keys;
  else if (g_str_equal (kind, "dynamic"))
    rope->scaling = PL_ROPE_SCALING_DYNAMIC, allowed = dynamic_keys;
  else if (g_str_equal (kind, "llama3"))
    rope->scaling = PL_ROPE_SCALING_LLAMA3, allowed = llama3_keys;
  else if (g_str_equal (kind, "yarn"))
    rope->scaling = PL_ROPE_SCALING_YARN, allowed = yarn_keys;
  else
    {
      problem (self, PL_ERROR_UNSUPPORTED,
               "%s/config.json: rope_scaling “%s” is not implemented in Poslens (it runs linear, dynamic, "
               "llama3 and yarn scaling)", dir, kind);
      return;
    }

  json_object_iter_init (&iter, scaling);
  while (json_object_iter_next (&iter, &key, &value))
    if (!in_list (key, allowed))
      {
        problem (self, PL_ERROR_UNSUPPORTED,
                 "%s/config.json: rope_scaling option “%s” of “%s” is not implemented in Poslens", dir, key, kind);
        return;
      }
  if (rope->scaling == PL_ROPE_SCALING_NONE)
    return;

  rope->factor = number_or (scaling, "factor", 0);
  if (!(rope->factor > 0) || !isfinite (rope->factor))
    {
      problem (self, PL_ERROR_CORRUPT, "%s/config.json: rope_scaling “%s” needs a factor above 0", dir, kind);
      return;
    }
  if (rope->scaling == PL_ROPE_SCALING_DYNAMIC && rope->dim <= 2)
    problem (self, PL_ERROR_UNSUPPORTED,
             "%s/config.json: dynamic rope_scaling with %u rotated dims per head (it raises the base to "
             "dim / (dim − 2))", dir, rope->dim);
  else if (rope->scaling == PL_ROPE_SCALING_LLAMA3)
    {
      gint64 original = int_or (scaling, "original_max_position_embeddings", -1);

      rope->low_freq_factor = number_or (scaling, "low_freq_factor", NAN);
      rope->high_freq_factor = number_or (scaling, "high_freq_factor", NAN);
      if (original <= 0 || original > G_MAXINT || isnan (rope->low_freq_factor) || isnan (rope->high_freq_factor))
        problem (self, PL_ERROR_CORRUPT,
                 "%s/config.json: rope_scaling “llama3” needs low_freq_factor, high_freq_factor and an integer "
                 "original_max_position_embeddings", dir);
      else if (rope->low_freq_factor <= 0 || rope->high_freq_factor == rope->low_freq_factor)
        problem (self, PL_ERROR_CORRUPT,
                 "%s/config.json: rope_scaling “llama3” needs low_freq_factor above 0 and different from "
                 "high_freq_factor", dir);
      rope->original_max_positions = (guint) MAX (original, 0);
    }
  else if (rope->scaling == PL_ROPE_SCALING_YARN)
    {
      gint64 original = int_or (scaling, "original_max_position_embeddings", 0);

      /* HF: rope_scaling.get(key) or its default, so 0 and null take the default */
      rope->original_max_positions = original > 0 && original <= G_MAXINT ? (guint) original : rope->max_positions;
      rope->beta_fast = number_or (scaling, "beta_fast", 0);
      rope->beta_slow = number_or (scaling, "beta_slow", 0);
      rope->beta_fast = rope->beta_fast != 0 ? rope->beta_fast : 32;
      rope->beta_slow = rope->beta_slow != 0 ? rope->beta_slow : 1;
      rope->mscale = number_or (scaling, "mscale", 0);
      rope->mscale_all_dim = number_or (scaling, "mscale_all_dim", 0);
      rope->has_attention_factor = is_number (member (scaling, "attention_factor"));
      rope->attention_factor = number_or (scaling, "attention_factor", 0);
      /* get("truncate", True): absent is true, null is None (false) */
      rope->truncate = is_null (scaling, "truncate") ? FALSE : bool_or (scaling, "truncate", TRUE);
      if (rope->beta_fast <= 0 || rope->beta_slow <= 0 || rope->theta <= 1)
        problem (self, PL_ERROR_CORRUPT,
                 "%s/config.json: rope_scaling “yarn” needs beta_fast and beta_slow above 0 and rope_theta above 1",
                 dir);
    }
}

static void
read_rope (PlModel    *self,
           JsonObject *config,
           const char *dir)
{
  PlRotaryDecoderSpec *d = &self->decoder;
  PlRopeSpec *rope = &d->rope;
  PlFamily family = self->desc->family;
  double partial;

  /* GPTNeoXConfig keeps rotary_emb_base and rotary_pct, newer ones copy them
   * to rope_theta and partial_rotary_factor */
  if (family == PL_FAMILY_GPT_NEOX)
    {
      rope->theta = number_or (config, "rope_theta", number_or (config, "rotary_emb_base", 10000));
      partial = number_or (config, "rotary_pct", number_or (config, "partial_rotary_factor", 0.25));
    }
  else
    {
      rope->theta = number_or (config, "rope_theta", 10000);
      partial = number_or (config, "partial_rotary_factor", 1.0);
      /* Only Phi-3's attention rotates part of each head */
      if (family != PL_FAMILY_PHI3 && partial != 1.0)
        problem (self, PL_ERROR_UNSUPPORTED,
                 "%s/config.json: partial_rotary_factor %g; %s models rotate whole heads", dir, partial,
                 self->desc->display_name);
    }
  /* int(head_dim * partial_rotary_factor), as HF truncates it */
  rope->dim = partial > 0 && partial <= 1 ? (guint) (d->head_dim * partial) : 0;
  rope->max_positions = self->max_positions;
  if (!(rope->theta > 0) || !isfinite (rope->theta))
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: the rotary base (rope_theta) must be above 0", dir);
  else if (rope->dim == 0 || rope->dim % 2 != 0)
    problem (self, PL_ERROR_UNSUPPORTED,
             "%s/config.json: %g of a %u-dim head is %u rotated dims; rotary embeddings turn pairs, so it "
             "must be even and above 0", dir, partial, d->head_dim, rope->dim);
  read_rope_scaling (self, config, dir, rope);
}

/* The sliding window of each layer: Mistral's and Phi-3's in every layer,
 * Qwen2's and Qwen3's from max_window_layers on (or as layer_types says)
 * when use_sliding_window, Gemma 2's in the even layers (layer 0, 2, …; or
 * as layer_types says); HF masks key j for query i unless
 * i − window < j ≤ i. */
static void
read_windows (PlModel    *self,
              JsonObject *config,
              const char *dir)
{
  PlFamily family = self->desc->family;
  gint64 window = 0;
  gint64 first = 0;
  JsonNode *types = member (config, "layer_types");

  if (family == PL_FAMILY_MISTRAL)
    window = is_null (config, "sliding_window") ? 0 : int_or (config, "sliding_window", 4096);
  else if (family == PL_FAMILY_PHI3)
    window = int_or (config, "sliding_window", 0);
  else if ((family == PL_FAMILY_QWEN2 || family == PL_FAMILY_QWEN3) &&
           bool_or (config, "use_sliding_window", FALSE))
    {
      window = is_null (config, "sliding_window") ? 0 : int_or (config, "sliding_window", 4096);
      first = int_or (config, "max_window_layers", 28);
    }
  else if (family == PL_FAMILY_GEMMA2)
    window = is_null (config, "sliding_window") ? 0 : int_or (config, "sliding_window", 4096);
  if (window <= 0)
    return;
  window = MIN (window, G_MAXINT);
  self->layer_windows = g_new0 (guint, MAX (self->n_layers, 1));
  for (guint l = 0; l < self->n_layers; l++)
    self->layer_windows[l] = (family == PL_FAMILY_GEMMA2 ? l % 2 == 0 : l >= first) ? (guint) window : 0;
  if ((family == PL_FAMILY_QWEN2 || family == PL_FAMILY_QWEN3 || family == PL_FAMILY_GEMMA2) &&
      types != NULL && JSON_NODE_HOLDS_ARRAY (types))
    {
      JsonArray *array = json_node_get_array (types);

      if (json_array_get_length (array) != self->n_layers)
        {
          problem (self, PL_ERROR_CORRUPT, "%s/config.json: layer_types has %u entries for %u layers", dir,
                   json_array_get_length (array), self->n_layers);
          return;
        }
      for (guint l = 0; l < self->n_layers; l++)
        {
          const char *type = json_array_get_string_element (array, l);

          if (type == NULL || (!g_str_equal (type, "sliding_attention") && !g_str_equal (type, "full_attention")))
            {
              problem (self, PL_ERROR_UNSUPPORTED, "%s/config.json: layer_types[%u] is “%s”; Poslens runs "
                       "full_attention and sliding_attention layers", dir, l, type ? type : "not a string");
              return;
            }
          self->layer_windows[l] = g_str_equal (type, "sliding_attention") ? (guint) window : 0;
        }
    }
  self->decoder.layer_windows = self->layer_windows;
}

/* What the scores are scaled by and capped at: head_dim^−½ and no cap, but
 * Gemma 2's query_pre_attn_scalar^−½ and attn_logit_softcapping (HF:
 * scores / cap, tanh, × cap, before the mask). Its final_logit_softcapping
 * caps the logits, which Poslens never computes: no hidden state or
 * attention depends on it. */
static void
read_attention_scores (PlModel    *self,
                       JsonObject *config,
                       const char *dir)
{
  PlRotaryDecoderSpec *d = &self->decoder;
  double scalar;

  d->attention_scale = d->head_dim > 0 ? 1.0 / sqrt ((double) d->head_dim) : 0;
  d->attention_softcap = 0;
  if (self->desc->family != PL_FAMILY_GEMMA2)
    return;
  scalar = number_or (config, "query_pre_attn_scalar", 256);
  if (!(scalar > 0) || !isfinite (scalar))
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: query_pre_attn_scalar must be above 0", dir);
  else
    d->attention_scale = 1.0 / sqrt (scalar);
  d->attention_softcap = is_null (config, "attn_logit_softcapping")
                           ? 0 : number_or (config, "attn_logit_softcapping", 50.0);
  if (!(d->attention_softcap >= 0) || !isfinite (d->attention_softcap))
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: attn_logit_softcapping must be a number above 0 or null",
             dir);
  if (bool_or (config, "use_bidirectional_attention", FALSE))
    problem (self, PL_ERROR_UNSUPPORTED,
             "%s/config.json: use_bidirectional_attention (every token sees every other) is not implemented in "
             "Poslens, which runs Gemma 2 causally", dir);
}

/* Qwen3-MoE's experts as Qwen3MoeConfig reads them: layer l's feed-forward
 * is the experts unless l is in mlp_only_layers or (l + 1) is not a
 * multiple of decoder_sparse_step (or num_experts is 0); the others are a
 * gated feed-forward of intermediate_size. */
static void
read_experts (PlModel    *self,
              JsonObject *config,
              const char *dir)
{
  PlRotaryDecoderSpec *d = &self->decoder;
  JsonNode *dense = member (config, "mlp_only_layers");
  gint64 experts = int_or (config, "num_experts", 128);
  gint64 top = int_or (config, "num_experts_per_tok", 8);
  gint64 ffn = int_or (config, "moe_intermediate_size", 768);
  gint64 step = int_or (config, "decoder_sparse_step", 1);
  gint64 dense_ffn = int_or (config, "intermediate_size", 6144);

  if (bool_or (config, "use_sliding_window", FALSE))
    {
      problem (self, PL_ERROR_UNSUPPORTED, "%s/config.json: use_sliding_window is not implemented in Poslens for "
               "Qwen3-MoE (Hugging Face's versions window its layers differently)", dir);
      return;
    }
  if (experts < 0 || experts > 65536 || top <= 0 || top > MAX (experts, 1) || ffn <= 0 || ffn > G_MAXINT ||
      step <= 0 || dense_ffn <= 0 || dense_ffn > G_MAXINT)
    {
      problem (self, PL_ERROR_CORRUPT, "%s/config.json: num_experts %" G_GINT64_FORMAT ", num_experts_per_tok %"
               G_GINT64_FORMAT ", moe_intermediate_size %" G_GINT64_FORMAT ", decoder_sparse_step %" G_GINT64_FORMAT
               " and intermediate_size %" G_GINT64_FORMAT " must be whole numbers above 0, at most 65536 experts "
               "and at most as many per token", dir, experts, top, ffn, step, dense_ffn);
      return;
    }
  if (dense != NULL && !JSON_NODE_HOLDS_NULL (dense) && !JSON_NODE_HOLDS_ARRAY (dense))
    {
      problem (self, PL_ERROR_CORRUPT, "%s/config.json: mlp_only_layers is not a list of layers", dir);
      return;
    }
  d->n_experts = (guint) experts;
  d->n_experts_per_token = (guint) top;
  d->expert_ffn = (guint) ffn;
  d->norm_topk = bool_or (config, "norm_topk_prob", FALSE);
  self->ffn = (guint) dense_ffn;
  if (experts == 0)
    return;
  self->layer_experts = g_new0 (gboolean, MAX (self->n_layers, 1));
  for (guint l = 0; l < self->n_layers; l++)
    self->layer_experts[l] = (l + 1) % step == 0;
  if (dense != NULL && JSON_NODE_HOLDS_ARRAY (dense))
    {
      JsonArray *list = json_node_get_array (dense);

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonNode *item = json_array_get_element (list, i);

          if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_INT64)
            {
              problem (self, PL_ERROR_CORRUPT, "%s/config.json: mlp_only_layers[%u] is not a layer number", dir, i);
              return;
            }
          if (json_node_get_int (item) >= 0 && json_node_get_int (item) < self->n_layers)
            self->layer_experts[json_node_get_int (item)] = FALSE;
        }
    }
  d->layer_experts = self->layer_experts;
}

void
pl_model_read_decoder_config (PlModel *self)
{
  JsonObject *config = pl_model_get_family_config (self);
  const char *path = pl_checkpoint_get_path (self->checkpoint);
  g_autofree char *dir = g_path_get_dirname (path);
  PlRotaryDecoderSpec *d = &self->decoder;
  PlFamily family = self->desc->family;
  gboolean neox = family == PL_FAMILY_GPT_NEOX;
  const Defaults *def = &defaults[0];
  const char *act;
  gint64 v, layers;

  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    if (defaults[i].family == family)
      def = &defaults[i];
  d->norm = self->desc->norm;
  d->gated_mlp = self->desc->gated_mlp;
  d->scale_embeddings = self->desc->scale_embeddings;
  d->qk_norm = self->desc->qk_norm;
  d->post_norms = self->desc->post_norms;
  self->max_positions = def->max_positions;

  if (config == NULL)
    {
      problem (self, PL_ERROR_NOT_FOUND,
               "no config.json beside %s: the number of attention heads and the rotary embedding cannot be "
               "read from the weights; put the model’s config.json in %s", path, dir);
      return;
    }

  v = int_or (config, "hidden_size", -1);
  if (v > 0 && v != self->hidden)
    problem (self, PL_ERROR_CORRUPT, "%s/config.json says hidden_size %d, but the token embedding in %s is %u wide",
             dir, (int) MIN (v, G_MAXINT), path, self->hidden);
  layers = int_or (config, "num_hidden_layers", self->n_layers);
  if (layers > self->n_layers || layers <= 0)
    problem (self, PL_ERROR_CORRUPT, "%s/config.json says num_hidden_layers %d, but %s holds %u layers",
             dir, (int) CLAMP (layers, -1, G_MAXINT), path, self->n_layers);
  else
    self->n_layers = (guint) layers;

  v = int_or (config, "num_attention_heads", -1);
  self->n_heads = v > 0 && v < 65536 ? (guint) v : 0;
  if (self->n_heads == 0)
    {
      problem (self, PL_ERROR_NOT_FOUND, "%s/config.json has no num_attention_heads", dir);
      return;
    }
  v = neox ? self->n_heads : int_or (config, "num_key_value_heads", self->n_heads);
  d->n_kv_heads = v > 0 && v <= self->n_heads ? (guint) v : 0;
  if (d->n_kv_heads == 0 || self->n_heads % d->n_kv_heads != 0)
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: %d key/value heads do not divide %u attention heads",
             dir, (int) CLAMP (v, -1, G_MAXINT), self->n_heads);

  /* GPT-NeoX's heads split the hidden size; GemmaConfig's head_dim defaults
   * to 256; the others take head_dim when given, else hidden / heads */
  if (neox)
    v = self->hidden % self->n_heads == 0 ? self->hidden / self->n_heads : 0;
  else
    v = int_or (config, "head_dim", family == PL_FAMILY_GEMMA || family == PL_FAMILY_GEMMA2 ? 256
                                    : family == PL_FAMILY_QWEN3 ? 128 : self->hidden / self->n_heads);
  d->head_dim = v > 0 && v < 65536 ? (guint) v : 0;
  if (d->head_dim == 0)
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: %u heads give no head size for the hidden size %u",
             dir, self->n_heads, self->hidden);

  self->eps = number_or (config, neox ? "layer_norm_eps" : "rms_norm_eps", def->eps);
  if (!(self->eps > 0))
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: the norm epsilon must be above 0", dir);

  /* Gemma's MLP reads hidden_act (hidden_activation is the older key);
   * Gemma 2's reads hidden_activation */
  if (family == PL_FAMILY_GEMMA2)
    act = pl_config_string (config, (const char *[]) { "hidden_activation", NULL });
  else
    act = pl_config_string (config, (const char *[]) { "hidden_act", NULL });
  if (act == NULL && family == PL_FAMILY_GEMMA)
    act = pl_config_string (config, (const char *[]) { "hidden_activation", NULL });
  if (act == NULL)
    act = def->activation;
  g_free (self->activation_name);
  self->activation_name = g_strdup (act);
  self->activation = pl_activation_from_name (act);
  if (self->activation == PL_ACTIVATION_NONE)
    problem (self, PL_ERROR_UNSUPPORTED, "%s/config.json: the activation “%s” is not supported (silu, gelu, "
             "gelu_new, gelu_pytorch_tanh and relu are)", dir, act);

  v = int_or (config, "max_position_embeddings", def->max_positions);
  if (v <= 0 || v > G_MAXINT)
    problem (self, PL_ERROR_CORRUPT, "%s/config.json: max_position_embeddings must be above 0", dir);
  else
    self->max_positions = (guint) v;

  /* Qwen2's q, k, v always have biases and its o_proj none; GPT-NeoX's
   * attention has them unless attention_bias is false and its MLP always */
  d->qkv_bias = family == PL_FAMILY_QWEN2 ? TRUE : bool_or (config, "attention_bias", neox);
  d->out_bias = family == PL_FAMILY_QWEN2 ? FALSE : bool_or (config, "attention_bias", neox);
  d->mlp_bias = neox || (family == PL_FAMILY_LLAMA && bool_or (config, "mlp_bias", FALSE));
  if (family == PL_FAMILY_MISTRAL || family == PL_FAMILY_PHI3)
    d->qkv_bias = d->out_bias = FALSE;
  d->parallel_residual = neox && bool_or (config, "use_parallel_residual", TRUE);
  read_attention_scores (self, config, dir);

  self->bos_id = CLAMP (int_or (config, "bos_token_id", -1), -1, G_MAXINT);
  self->eos_id = CLAMP (int_or (config, "eos_token_id", -1), -1, G_MAXINT);
  self->pad_id = CLAMP (int_or (config, "pad_token_id", -1), -1, G_MAXINT);

  read_windows (self, config, dir);
  if (family == PL_FAMILY_QWEN3_MOE)
    read_experts (self, config, dir);
  if (d->head_dim > 0)
    read_rope (self, config, dir);
}

const PlRotaryDecoderSpec *
pl_model_get_rotary_decoder (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->desc->rotary ? &self->decoder : NULL;
}

/* N_BLOCKS blocks of BLOCK units, STRIDE units apart from unit FIRST on; a
 * unit is a row, or an element of a 1 × n vector. */
static PlStoredMatrix *
gather (const PlStoredMatrix  *m,
        gsize                  first,
        gsize                  block,
        gsize                  stride,
        gsize                  n_blocks,
        GError               **error)
{
  gboolean vector = m->rows == 1;
  gsize unit = vector ? pl_stored_type_size (m->type) : pl_stored_type_row_bytes (m->type, m->cols);
  PlStoredMatrix *out = vector ? pl_stored_matrix_try_new (m->type, 1, n_blocks * block, error)
                               : pl_stored_matrix_try_new (m->type, n_blocks * block, m->cols, error);

  if (out == NULL)
    return NULL;
  for (gsize b = 0; b < n_blocks; b++)
    memcpy (out->data + b * block * unit, m->data + (first + b * stride) * unit, block * unit);
  return out;
}

static PlStoredMatrix *
transpose (const PlStoredMatrix  *m,
           GError               **error)
{
  gsize elem = pl_stored_type_size (m->type);
  PlStoredMatrix *t = pl_stored_matrix_try_new (m->type, m->cols, m->rows, error);

  if (t == NULL)
    return NULL;
  for (gsize i = 0; i < m->rows; i++)
    for (gsize j = 0; j < m->cols; j++)
      memcpy (t->data + (j * m->rows + i) * elem, m->data + (i * m->cols + j) * elem, elem);
  return t;
}

static gboolean
is_linear (PlWeight weight)
{
  switch (weight)
    {
    case PL_WEIGHT_Q_WEIGHT:
    case PL_WEIGHT_K_WEIGHT:
    case PL_WEIGHT_V_WEIGHT:
    case PL_WEIGHT_ATTN_OUT_WEIGHT:
    case PL_WEIGHT_FFN_GATE_WEIGHT:
    case PL_WEIGHT_FFN_IN_WEIGHT:
    case PL_WEIGHT_FFN_OUT_WEIGHT:
    case PL_WEIGHT_EMBED_PROJECT_WEIGHT:
    case PL_WEIGHT_ROUTER_WEIGHT:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Q, K or V (PART 0, 1, 2) of a fused projection, weight or bias:
 * Phi-3's qkv_proj holds the rows of all query heads, then of the key
 * heads, then of the value heads; GPT-NeoX's query_key_value holds, head by
 * head, that head's query, key and value rows (HF views its output as
 * [T, heads, 3 · head_size] and chunks the last dimension in three). */
static PlStoredMatrix *
split_qkv (PlModel              *self,
           const PlStoredMatrix *m,
           const char           *name,
           guint                 part,
           GError              **error)
{
  gsize units = m->rows == 1 ? m->cols : m->rows;
  gsize hd = self->decoder.head_dim, nh = self->n_heads, kv = self->decoder.n_kv_heads;
  gsize q = nh * hd, k = kv * hd;

  if (self->desc->fused_qkv_heads)
    {
      if (units != 3 * q)
        goto bad;
      return gather (m, part * hd, hd, 3 * hd, nh, error);
    }
  if (units != q + 2 * k)
    goto bad;
  return part == 0 ? gather (m, 0, q, 0, 1, error)
       : part == 1 ? gather (m, q, k, 0, 1, error)
                   : gather (m, q + k, k, 0, 1, error);

bad:
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
               "%s: “%s” has %" G_GSIZE_FORMAT " rows, but %" G_GSIZE_FORMAT " query and %" G_GSIZE_FORMAT
               " key/value heads of %" G_GSIZE_FORMAT " need %" G_GSIZE_FORMAT,
               pl_checkpoint_get_path (self->checkpoint), name, units, nh,
               self->desc->fused_qkv_heads ? nh : kv, hd, self->desc->fused_qkv_heads ? 3 * q : q + 2 * k);
  return NULL;
}

static PlStoredMatrix *
read_decoder_weight (PlModel   *self,
                     PlWeight   weight,
                     int        layer,
                     GError   **error)
{
  g_autoptr(PlStoredMatrix) m = NULL;
  const char *path = pl_checkpoint_get_path (self->checkpoint);
  const PlTensorInfo *info;
  gboolean kernel = FALSE;

  if (pl_weight_is_per_layer (weight) && (layer < 0 || (guint) layer >= self->n_layers))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s: layer %d does not exist (the model has %u)", path, layer, self->n_layers);
      return NULL;
    }
  if (weight >= PL_WEIGHT_EXPERT_GATE_WEIGHT && weight <= PL_WEIGHT_EXPERT_DOWN_WEIGHT)
    return pl_model_read_experts_weight (self, weight, layer, error);
  if (!(info = pl_model_find_role (self, weight, layer, &kernel)))
    {
      g_autofree char *where = pl_weight_is_per_layer (weight)
                                 ? g_strdup_printf ("%s%s%d.", self->prefix, self->desc->layer_list, layer)
                                 : g_strdup (self->prefix);

      if (self->desc->roles[weight] == NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s: %s models have no weight of this kind", path, self->desc->display_name);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s: this %s checkpoint has no “%s%s”", path,
                     self->desc->display_name, where, self->desc->roles[weight]);
      return NULL;
    }
  if (!(m = pl_checkpoint_read_stored (self->checkpoint, info->name, error)))
    return NULL;
  if (is_linear (weight) || weight == PL_WEIGHT_TOKEN_EMBEDDING)
    {
      if (info->rank != 2)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: “%s” should be a matrix but is %u-D",
                       path, info->name, info->rank);
          return NULL;
        }
      /* a Keras kernel is [in, out] */
      if (kernel && weight != PL_WEIGHT_TOKEN_EMBEDDING)
        {
          PlStoredMatrix *t = transpose (m, error);

          pl_stored_matrix_unref (m);
          if (!(m = t))
            return NULL;
        }
    }
  else if (info->rank != 1)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: “%s” should be a vector but is %u-D",
                   path, info->name, info->rank);
      return NULL;
    }

  if ((self->desc->fused_qkv_rows || self->desc->fused_qkv_heads) &&
      weight >= PL_WEIGHT_Q_WEIGHT && weight <= PL_WEIGHT_V_BIAS)
    return split_qkv (self, m, info->name, (weight - PL_WEIGHT_Q_WEIGHT) / 2, error);
  if (self->desc->fused_gate_up && (weight == PL_WEIGHT_FFN_GATE_WEIGHT || weight == PL_WEIGHT_FFN_IN_WEIGHT))
    {
      /* Phi3MLP chunks gate_up_proj's output in two: gate, then up */
      if (m->rows % 2 != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: “%s” has %" G_GSIZE_FORMAT " rows, not two halves",
                       path, info->name, m->rows);
          return NULL;
        }
      return gather (m, weight == PL_WEIGHT_FFN_GATE_WEIGHT ? 0 : m->rows / 2, m->rows / 2, 0, 1, error);
    }
  return g_steal_pointer (&m);
}

PlStoredMatrix *
pl_model_read_decoder_weight (PlModel   *self,
                              PlWeight   weight,
                              int        layer,
                              GError   **error)
{
  g_autoptr(PlStoredMatrix) m = read_decoder_weight (self, weight, layer, error);

  if (m != NULL && self->desc->ggml_rope_rows && weight >= PL_WEIGHT_Q_WEIGHT && weight <= PL_WEIGHT_K_BIAS)
    return pl_model_gguf_unpermute (self, m, error);
  return g_steal_pointer (&m);
}
