/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-checkpoint-gguf.h"
#include "pl-error.h"
#include "pl-model-private.h"

/* A GGUF file's model, from its metadata (general.architecture and the
 * {arch}.* keys) and ggml's tensor names, written as llama.cpp's
 * convert_hf_to_gguf.py writes them. The hyperparameters become the
 * config.json Hugging Face's own GGUF loader would make of them, so the
 * model runs as the folder it was converted from: the conversion's own
 * changes are undone where they are read (Llama's attn_q and attn_k rows
 * permuted for ggml's rotary pairs, in pl_model_gguf_unpermute; GPT-NeoX's
 * query_key_value reordered into all queries, keys, values; Gemma's norms
 * stored as 1 + w; GPT-2's Conv1D weights transposed). */

#define WEIGHT_AND_BIAS(role, name) \
  [PL_WEIGHT_##role##_WEIGHT] = name ".weight", [PL_WEIGHT_##role##_BIAS] = name ".bias"

/* Llama's blocks as ggml names them; Q, K, V apart or fused in attn_qkv */
#define GGUF_DECODER_ROLES \
  [PL_WEIGHT_TOKEN_EMBEDDING] = "token_embd.weight", \
  WEIGHT_AND_BIAS (ATTN_OUT, "attn_output"), \
  [PL_WEIGHT_LN1_WEIGHT] = "attn_norm.weight", \
  [PL_WEIGHT_LN2_WEIGHT] = "ffn_norm.weight", \
  WEIGHT_AND_BIAS (FFN_OUT, "ffn_down"), \
  [PL_WEIGHT_FINAL_LN_WEIGHT] = "output_norm.weight"
#define GGUF_SPLIT_QKV \
  WEIGHT_AND_BIAS (Q, "attn_q"), WEIGHT_AND_BIAS (K, "attn_k"), WEIGHT_AND_BIAS (V, "attn_v")
#define GGUF_FUSED_QKV \
  WEIGHT_AND_BIAS (Q, "attn_qkv"), WEIGHT_AND_BIAS (K, "attn_qkv"), WEIGHT_AND_BIAS (V, "attn_qkv")
#define GGUF_GATED_MLP \
  WEIGHT_AND_BIAS (FFN_GATE, "ffn_gate"), WEIGHT_AND_BIAS (FFN_IN, "ffn_up")
#define GGUF_DECODER .layer_list = "blk.", .rotary = TRUE, .causal = TRUE, .pre_ln = TRUE, .has_forward = TRUE

typedef struct
{
  const char          *arch;          /* general.architecture */
  const char          *model_type;    /* Hugging Face's, for the configuration */
  PlFamilyDesc         split;         /* Q, K, V apart */
  PlFamilyDesc         fused;         /* one attn_qkv: every query row, then keys, values */
} GgufArch;

static const GgufArch archs[] = {
  { "llama", "llama",
    { .family = PL_FAMILY_LLAMA, .name = "llama", .display_name = "Llama",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .ggml_rope_rows = TRUE },
    { .family = PL_FAMILY_LLAMA, .name = "llama", .display_name = "Llama",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .fused_qkv_rows = TRUE, .ggml_rope_rows = TRUE } },
  { "qwen2", "qwen2",
    { .family = PL_FAMILY_QWEN2, .name = "qwen2", .display_name = "Qwen2",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE },
    { .family = PL_FAMILY_QWEN2, .name = "qwen2", .display_name = "Qwen2",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .fused_qkv_rows = TRUE } },
  /* Qwen 3: Qwen2's names, each query and key head RMSNormed first */
  { "qwen3", "qwen3",
    { .family = PL_FAMILY_QWEN3, .name = "qwen3", .display_name = "Qwen3",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, GGUF_GATED_MLP,
                 [PL_WEIGHT_Q_NORM_WEIGHT] = "attn_q_norm.weight", [PL_WEIGHT_K_NORM_WEIGHT] = "attn_k_norm.weight" },
      GGUF_DECODER, .norm = PL_NORM_RMS, .gated_mlp = TRUE, .qk_norm = TRUE },
    { .family = PL_FAMILY_QWEN3, .name = "qwen3", .display_name = "Qwen3",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, GGUF_GATED_MLP,
                 [PL_WEIGHT_Q_NORM_WEIGHT] = "attn_q_norm.weight", [PL_WEIGHT_K_NORM_WEIGHT] = "attn_k_norm.weight" },
      GGUF_DECODER, .norm = PL_NORM_RMS, .gated_mlp = TRUE, .qk_norm = TRUE, .fused_qkv_rows = TRUE } },
  /* the conversion stores Gemma's norms as 1 + w: plain RMS norms here */
  { "gemma", "gemma",
    { .family = PL_FAMILY_GEMMA, .name = "gemma", .display_name = "Gemma",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .scale_embeddings = TRUE },
    { .family = PL_FAMILY_GEMMA, .name = "gemma", .display_name = "Gemma",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, GGUF_GATED_MLP }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .scale_embeddings = TRUE, .fused_qkv_rows = TRUE } },
  /* Gemma 2: a norm after the attention (post_attention_norm) and after the
   * feed-forward (post_ffw_norm); ffn_norm is the one before it */
  { "gemma2", "gemma2",
    { .family = PL_FAMILY_GEMMA2, .name = "gemma2", .display_name = "Gemma 2",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, GGUF_GATED_MLP,
                 [PL_WEIGHT_POST_ATTN_LN_WEIGHT] = "post_attention_norm.weight",
                 [PL_WEIGHT_POST_FFN_LN_WEIGHT] = "post_ffw_norm.weight" },
      GGUF_DECODER, .norm = PL_NORM_RMS, .gated_mlp = TRUE, .scale_embeddings = TRUE, .post_norms = TRUE },
    { .family = PL_FAMILY_GEMMA2, .name = "gemma2", .display_name = "Gemma 2",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, GGUF_GATED_MLP,
                 [PL_WEIGHT_POST_ATTN_LN_WEIGHT] = "post_attention_norm.weight",
                 [PL_WEIGHT_POST_FFN_LN_WEIGHT] = "post_ffw_norm.weight" },
      GGUF_DECODER, .norm = PL_NORM_RMS, .gated_mlp = TRUE, .scale_embeddings = TRUE, .post_norms = TRUE,
      .fused_qkv_rows = TRUE } },
  /* ffn_up holds the gate's rows, then up's, as Phi-3's gate_up_proj */
  { "phi3", "phi3",
    { .family = PL_FAMILY_PHI3, .name = "phi3", .display_name = "Phi-3",
      .roles = { GGUF_DECODER_ROLES, GGUF_SPLIT_QKV, [PL_WEIGHT_FFN_GATE_WEIGHT] = "ffn_up.weight",
                 [PL_WEIGHT_FFN_IN_WEIGHT] = "ffn_up.weight" }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .fused_gate_up = TRUE },
    { .family = PL_FAMILY_PHI3, .name = "phi3", .display_name = "Phi-3",
      .roles = { GGUF_DECODER_ROLES, GGUF_FUSED_QKV, [PL_WEIGHT_FFN_GATE_WEIGHT] = "ffn_up.weight",
                 [PL_WEIGHT_FFN_IN_WEIGHT] = "ffn_up.weight" }, GGUF_DECODER,
      .norm = PL_NORM_RMS, .gated_mlp = TRUE, .fused_gate_up = TRUE, .fused_qkv_rows = TRUE } },
  /* the conversion reorders query_key_value into all queries, keys, values */
  { "gptneox", "gpt_neox",
    { .family = PL_FAMILY_GPT_NEOX },
    { .family = PL_FAMILY_GPT_NEOX, .name = "gpt_neox", .display_name = "GPT-NeoX",
      .roles = {
        [PL_WEIGHT_TOKEN_EMBEDDING] = "token_embd.weight", GGUF_FUSED_QKV,
        WEIGHT_AND_BIAS (ATTN_OUT, "attn_output"), WEIGHT_AND_BIAS (LN1, "attn_norm"),
        WEIGHT_AND_BIAS (LN2, "ffn_norm"), WEIGHT_AND_BIAS (FFN_IN, "ffn_up"),
        WEIGHT_AND_BIAS (FFN_OUT, "ffn_down"), WEIGHT_AND_BIAS (FINAL_LN, "output_norm"),
      },
      GGUF_DECODER, .norm = PL_NORM_LAYER, .fused_qkv_rows = TRUE } },
  /* a learned position table; the conversion transposed Conv1D into
   * nn.Linear's [out, in] */
  { "gpt2", "gpt2",
    { .family = PL_FAMILY_GPT2 },
    { .family = PL_FAMILY_GPT2, .name = "gpt2", .display_name = "GPT-2",
      .position_suffix = "position_embd.weight", .layer_list = "blk.",
      .roles = {
        [PL_WEIGHT_TOKEN_EMBEDDING] = "token_embd.weight",
        [PL_WEIGHT_POSITION_EMBEDDING] = "position_embd.weight",
        GGUF_FUSED_QKV, WEIGHT_AND_BIAS (ATTN_OUT, "attn_output"), WEIGHT_AND_BIAS (LN1, "attn_norm"),
        WEIGHT_AND_BIAS (FFN_IN, "ffn_up"), WEIGHT_AND_BIAS (FFN_OUT, "ffn_down"),
        WEIGHT_AND_BIAS (LN2, "ffn_norm"), WEIGHT_AND_BIAS (FINAL_LN, "output_norm"),
      },
      .fused_qkv = TRUE, .causal = TRUE, .pre_ln = TRUE, .has_forward = TRUE } },
};

static char *
known_architectures (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (archs); i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "", archs[i].arch);
  return g_string_free (names, FALSE);
}

typedef struct
{
  const PlGgufHeader *header;
  const char         *arch;
  const char         *path;
  JsonObject         *config;
  GError             *error;
} Reading;

/* "{arch}.KEY" */
static const PlGgufValue *
arch_value (Reading    *r,
            const char *key)
{
  g_autofree char *full = g_strdup_printf ("%s.%s", r->arch, key);

  return pl_gguf_header_lookup (r->header, full);
}

/* Sets r->error once: the first problem is the one reported. */
G_GNUC_PRINTF (3, 4) static void
fail (Reading    *r,
      PlError     code,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (r->error != NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  r->error = g_error_new (PL_ERROR, code, "%s: %s", r->path, message);
}

/* {arch}.KEY as a whole number above 0 (and at most MAX) into the
 * configuration as NAME; REQUIRED ones are refused when absent. */
static gint64
copy_count (Reading    *r,
            const char *key,
            const char *name,
            guint64     max,
            gboolean    required)
{
  const PlGgufValue *v = arch_value (r, key);
  guint64 n;

  if (v == NULL)
    {
      if (required)
        fail (r, PL_ERROR_NOT_FOUND, "the GGUF metadata has no %s.%s", r->arch, key);
      return -1;
    }
  if (v->type == PL_GGUF_ARRAY)
    {
      fail (r, PL_ERROR_UNSUPPORTED, "%s.%s differs from layer to layer, which Poslens does not run", r->arch, key);
      return -1;
    }
  if (!pl_gguf_value_get_uint (v, &n) || n == 0 || n > max)
    {
      fail (r, PL_ERROR_CORRUPT, "%s.%s must be a whole number from 1 to %" G_GUINT64_FORMAT, r->arch, key, max);
      return -1;
    }
  if (name != NULL)
    json_object_set_int_member (r->config, name, (gint64) n);
  return (gint64) n;
}

/* {arch}.KEY as a number above 0 into the configuration as NAME. */
static double
copy_number (Reading    *r,
             const char *key,
             const char *name,
             double      fallback)
{
  const PlGgufValue *v = arch_value (r, key);
  double x = fallback;

  if (v != NULL && (!pl_gguf_value_get_double (v, &x) || !(x > 0) || !isfinite (x)))
    {
      fail (r, PL_ERROR_CORRUPT, "%s.%s must be a number above 0", r->arch, key);
      return fallback;
    }
  if (name != NULL && (v != NULL || !isnan (fallback)))
    json_object_set_double_member (r->config, name, x);
  return x;
}

static void
copy_token_id (Reading    *r,
               const char *key,
               const char *name)
{
  guint64 id;

  if (pl_gguf_value_get_uint (pl_gguf_header_lookup (r->header, key), &id) && id < G_MAXINT)
    json_object_set_int_member (r->config, name, (gint64) id);
}

/* {arch}.rope.scaling.*: linear and YaRN as rope_scaling; the older
 * rope.scale_linear as linear. */
static void
read_rope_scaling (Reading *r)
{
  const PlGgufValue *type = arch_value (r, "rope.scaling.type");
  g_autofree char *kind = pl_gguf_value_dup_string (type);
  JsonObject *scaling;
  double factor = NAN;
  guint64 original;

  if (type != NULL && kind == NULL)
    {
      fail (r, PL_ERROR_CORRUPT, "%s.rope.scaling.type is not text", r->arch);
      return;
    }
  if (kind == NULL && arch_value (r, "rope.scale_linear") != NULL)
    {
      kind = g_strdup ("linear");
      factor = copy_number (r, "rope.scale_linear", NULL, NAN);
    }
  if (kind == NULL || g_str_equal (kind, "none"))
    return;
  if (!g_str_equal (kind, "linear") && !g_str_equal (kind, "yarn"))
    {
      fail (r, PL_ERROR_UNSUPPORTED, "%s.rope.scaling.type “%s” is not implemented in Poslens (it runs linear "
            "and yarn, and Llama 3’s rope_freqs)", r->arch, kind);
      return;
    }
  if (isnan (factor))
    factor = copy_number (r, "rope.scaling.factor", NULL, NAN);
  if (isnan (factor))
    {
      fail (r, PL_ERROR_NOT_FOUND, "rope scaling “%s” needs %s.rope.scaling.factor", kind, r->arch);
      return;
    }
  scaling = json_object_new ();
  json_object_set_string_member (scaling, "rope_type", kind);
  json_object_set_double_member (scaling, "factor", factor);
  if (g_str_equal (kind, "yarn"))
    {
      static const char * const yarn_keys[][2] = {
        { "rope.scaling.yarn_beta_fast", "beta_fast" },
        { "rope.scaling.yarn_beta_slow", "beta_slow" },
        { "rope.scaling.yarn_attn_factor", "attention_factor" },
      };

      if (pl_gguf_value_get_uint (arch_value (r, "rope.scaling.original_context_length"), &original) &&
          original > 0 && original < G_MAXINT)
        json_object_set_int_member (scaling, "original_max_position_embeddings", (gint64) original);
      for (guint i = 0; i < G_N_ELEMENTS (yarn_keys); i++)
        {
          double x;

          if (pl_gguf_value_get_double (arch_value (r, yarn_keys[i][0]), &x))
            json_object_set_double_member (scaling, yarn_keys[i][1], x);
        }
    }
  json_object_set_object_member (r->config, "rope_scaling", scaling);
}

/* Gemma 2's particulars: soft-capping, its window on every other layer, and
 * the scale of its scores, which the file does not keep: llama.cpp takes
 * query_pre_attn_scalar as the head size, and as hidden / heads for the
 * 27B model (46 layers), as Google's configurations set it. */
static void
read_gemma2 (Reading *r,
             gint64   hidden,
             gint64   heads,
             gint64   head_dim)
{
  gint64 layers = copy_count (r, "block_count", NULL, 100000, TRUE);
  gint64 window = copy_count (r, "attention.sliding_window", NULL, G_MAXINT, FALSE);
  double cap;

  json_object_set_int_member (r->config, "sliding_window", window > 0 ? window : 4096);
  json_object_set_int_member (r->config, "query_pre_attn_scalar",
                              layers == 46 && heads > 0 ? hidden / heads : head_dim);
  if (pl_gguf_value_get_double (arch_value (r, "attn_logit_softcapping"), &cap))
    json_object_set_double_member (r->config, "attn_logit_softcapping", cap);
  else
    json_object_set_null_member (r->config, "attn_logit_softcapping");
  if (pl_gguf_value_get_double (arch_value (r, "final_logit_softcapping"), &cap))
    json_object_set_double_member (r->config, "final_logit_softcapping", cap);
}

/* The rotary decoders' keys, as Hugging Face's configurations name them. */
static void
read_decoder (Reading            *r,
              const PlFamilyDesc *desc)
{
  gint64 hidden, heads, head_dim, rope_dim, window;
  double base;
  gboolean parallel;

  hidden = copy_count (r, "embedding_length", "hidden_size", 1 << 20, TRUE);
  copy_count (r, "block_count", "num_hidden_layers", 100000, TRUE);
  copy_count (r, "feed_forward_length", "intermediate_size", 1 << 24, FALSE);
  copy_count (r, "context_length", "max_position_embeddings", G_MAXINT, FALSE);
  heads = copy_count (r, "attention.head_count", "num_attention_heads", 65535, TRUE);
  copy_count (r, "attention.head_count_kv", "num_key_value_heads", 65535, FALSE);
  head_dim = copy_count (r, "attention.key_length", NULL, 65535, FALSE);
  if (head_dim < 0 && heads > 0)
    head_dim = hidden / heads;
  rope_dim = copy_count (r, "rope.dimension_count", NULL, 65535, FALSE);
  if (rope_dim < 0)
    rope_dim = head_dim;
  base = copy_number (r, "rope.freq_base", NULL, 10000.0);
  if (desc->family == PL_FAMILY_GPT_NEOX)
    {
      copy_number (r, "attention.layer_norm_epsilon", "layer_norm_eps", 1e-5);
      json_object_set_double_member (r->config, "rotary_emb_base", base);
      json_object_set_double_member (r->config, "rotary_pct", head_dim > 0 ? (double) rope_dim / head_dim : 0);
      parallel = TRUE;
      pl_gguf_value_get_bool (arch_value (r, "use_parallel_residual"), &parallel);
      json_object_set_boolean_member (r->config, "use_parallel_residual", parallel);
      json_object_set_string_member (r->config, "hidden_act", "gelu");
    }
  else
    {
      copy_number (r, "attention.layer_norm_rms_epsilon", "rms_norm_eps", NAN);
      json_object_set_double_member (r->config, "rope_theta", base);
      if (head_dim > 0)
        json_object_set_int_member (r->config, "head_dim", head_dim);
      if (desc->family == PL_FAMILY_PHI3)
        json_object_set_double_member (r->config, "partial_rotary_factor",
                                       head_dim > 0 ? (double) rope_dim / head_dim : 0);
      else if (rope_dim != head_dim)
        fail (r, PL_ERROR_UNSUPPORTED, "%s.rope.dimension_count %" G_GINT64_FORMAT " is not the head size %"
              G_GINT64_FORMAT "; %s models rotate whole heads", r->arch, rope_dim, head_dim, desc->display_name);
      json_object_set_string_member (r->config, "hidden_act",
                                     desc->family == PL_FAMILY_GEMMA || desc->family == PL_FAMILY_GEMMA2
                                       ? "gelu_pytorch_tanh" : "silu");
    }
  if (desc->family == PL_FAMILY_GEMMA2)
    read_gemma2 (r, hidden, heads, head_dim);
  /* llama.cpp leaves Phi-3's window out for now; Hugging Face applies it */
  window = copy_count (r, "attention.sliding_window", NULL, G_MAXINT, FALSE);
  if (desc->family == PL_FAMILY_PHI3)
    json_object_set_int_member (r->config, "sliding_window", MAX (window, 0));
  if (desc->family == PL_FAMILY_QWEN2 || desc->family == PL_FAMILY_QWEN3)
    json_object_set_boolean_member (r->config, "use_sliding_window", FALSE);
  read_rope_scaling (r);
}

static void
read_gpt2 (Reading *r)
{
  gint64 heads;

  copy_count (r, "embedding_length", "n_embd", 1 << 20, TRUE);
  copy_count (r, "block_count", "n_layer", 100000, TRUE);
  copy_count (r, "context_length", "n_positions", G_MAXINT, FALSE);
  copy_count (r, "feed_forward_length", "n_inner", 1 << 24, FALSE);
  heads = copy_count (r, "attention.head_count", "n_head", 65535, TRUE);
  copy_number (r, "attention.layer_norm_epsilon", "layer_norm_epsilon", 1e-5);
  json_object_set_string_member (r->config, "activation_function", "gelu_new");
  (void) heads;
}

/* Refusals of what the file says it is, before its tensors are looked at. */
static gboolean
check_whole_model (Reading *r)
{
  guint64 count;

  if (pl_gguf_value_get_uint (pl_gguf_header_lookup (r->header, "split.count"), &count) && count > 1)
    {
      guint64 no = 0;

      pl_gguf_value_get_uint (pl_gguf_header_lookup (r->header, "split.no"), &no);
      fail (r, PL_ERROR_UNSUPPORTED, "this is part %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " of a split GGUF "
            "model, which Poslens does not join; merge the parts with llama.cpp’s llama-gguf-split --merge",
            no + 1, count);
      return FALSE;
    }
  return TRUE;
}

gboolean
pl_model_gguf_recognise (PlModel             *self,
                         const PlFamilyDesc **desc,
                         const PlTensorInfo **table,
                         GError             **error)
{
  const PlGgufHeader *header = pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (self->checkpoint));
  g_autofree char *arch = pl_gguf_value_dup_string (pl_gguf_header_lookup (header, "general.architecture"));
  Reading r = { header, arch, pl_checkpoint_get_path (self->checkpoint), NULL, NULL };
  const GgufArch *a = NULL;
  gboolean fused;

  if (arch == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the GGUF metadata has no general.architecture", r.path);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (archs); i++)
    if (g_str_equal (arch, archs[i].arch))
      a = &archs[i];
  if (a == NULL)
    {
      g_autofree char *shown = pl_escape_text (arch, -1);
      g_autofree char *known = known_architectures ();

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: the GGUF architecture “%s” is one Poslens does not run (it runs %s); --dataset NAME opens "
                   "one of its tensors as a plain table", r.path, shown, known);
      return FALSE;
    }
  if (!check_whole_model (&r))
    {
      g_propagate_error (error, r.error);
      return FALSE;
    }
  /* GPT-NeoX and GPT-2 always fuse Q, K and V; the others may */
  fused = a->split.name == NULL || g_hash_table_contains (self->normalized, "blk.0.attn_qkv.weight");
  *desc = fused ? &a->fused : &a->split;
  if (pl_checkpoint_find_tensor (self->checkpoint, "rope_factors_long") != NULL ||
      pl_checkpoint_find_tensor (self->checkpoint, "rope_factors_long.weight") != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: this Phi-3 scales its rotary embedding with LongRoPE (rope_factors_long), which Poslens "
                   "does not implement", r.path);
      return FALSE;
    }

  r.config = json_object_new ();
  json_object_set_string_member (r.config, "model_type", a->model_type);
  if ((*desc)->rotary)
    read_decoder (&r, *desc);
  else
    read_gpt2 (&r);
  copy_token_id (&r, "tokenizer.ggml.bos_token_id", "bos_token_id");
  copy_token_id (&r, "tokenizer.ggml.eos_token_id", "eos_token_id");
  copy_token_id (&r, "tokenizer.ggml.padding_token_id", "pad_token_id");
  if (r.error != NULL)
    {
      json_object_unref (r.config);
      g_propagate_error (error, r.error);
      return FALSE;
    }
  g_clear_pointer (&self->own_config, json_object_unref);
  self->own_config = r.config;
  g_clear_pointer (&self->prefix, g_free);
  self->prefix = g_strdup ("");
  *table = (*desc)->position_suffix ? pl_checkpoint_find_tensor (self->checkpoint, (*desc)->position_suffix) : NULL;
  if (!(*desc)->rotary && (*table == NULL || !pl_tensor_info_is_table (*table)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: this GPT-2 has no position table %s",
                   r.path, (*desc)->position_suffix);
      return FALSE;
    }
  return TRUE;
}

void
pl_model_gguf_read_rope_factors (PlModel *self)
{
  PlRopeSpec *rope = &self->decoder.rope;
  g_autoptr(PlMatrix) factors = NULL;
  g_autoptr(GError) error = NULL;
  const PlTensorInfo *info = pl_checkpoint_find_tensor (self->checkpoint, "rope_freqs.weight");
  guint64 rows, cols;

  if (info == NULL)
    return;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (rows * cols != rope->dim / 2 || !(factors = pl_checkpoint_read (self->checkpoint, info->name, &error)))
    {
      if (self->config_problem == NULL)
        {
          self->config_problem_code = PL_ERROR_CORRUPT;
          self->config_problem = error != NULL ? g_strdup (error->message)
                                 : g_strdup_printf ("%s: rope_freqs.weight has %" G_GUINT64_FORMAT " factors for %u "
                                                    "rotary planes", pl_checkpoint_get_path (self->checkpoint),
                                                    rows * cols, rope->dim / 2);
        }
      return;
    }
  for (guint i = 0; i < rope->dim / 2; i++)
    if (!(factors->data[i] > 0) || !isfinite (factors->data[i]))
      {
        if (self->config_problem == NULL)
          {
            self->config_problem_code = PL_ERROR_BAD_VALUES;
            self->config_problem = g_strdup_printf ("%s: rope_freqs.weight holds %g, not a factor above 0",
                                                    pl_checkpoint_get_path (self->checkpoint), factors->data[i]);
          }
        return;
      }
  g_free (self->rope_factors);
  self->rope_factors = g_memdup2 (factors->data, sizeof (float) * rope->dim / 2);
  rope->scaling = PL_ROPE_SCALING_FACTORS;
  rope->freq_factors = self->rope_factors;
}

/* Row (or element) I of the permuted layout holds row P (I) of the
 * original: convert_hf_to_gguf.py's permute wrote, within each head of HD
 * rows, original row s · HD / 2 + i at 2 i + s. */
static gsize
permuted_source (gsize i,
                 gsize hd)
{
  gsize head = i / hd, j = i % hd;

  return head * hd + (j < hd / 2 ? 2 * j : 2 * (j - hd / 2) + 1);
}

PlStoredMatrix *
pl_model_gguf_unpermute (PlModel         *self,
                         PlStoredMatrix  *m,
                         GError         **error)
{
  gsize hd = self->decoder.head_dim;
  gboolean vector = m->rows == 1;
  gsize units = vector ? m->cols : m->rows;
  gsize unit = vector ? pl_stored_type_size (m->type) : pl_stored_type_row_bytes (m->type, m->cols);
  PlStoredMatrix *out;

  if (hd == 0 || hd % 2 != 0 || units % hd != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %" G_GSIZE_FORMAT " query or key rows are not heads of %"
                   G_GSIZE_FORMAT, pl_checkpoint_get_path (self->checkpoint), units, hd);
      return NULL;
    }
  if (vector && pl_stored_type_is_blocks (m->type))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: a quantised query or key bias",
                   pl_checkpoint_get_path (self->checkpoint));
      return NULL;
    }
  out = vector ? pl_stored_matrix_try_new (m->type, 1, m->cols, error)
               : pl_stored_matrix_try_new (m->type, m->rows, m->cols, error);
  if (out == NULL)
    return NULL;
  for (gsize i = 0; i < units; i++)
    memcpy (out->data + i * unit, m->data + permuted_source (i, hd) * unit, unit);
  return out;
}
