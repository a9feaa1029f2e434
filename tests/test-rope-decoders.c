/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>
#if defined(__x86_64__) && defined(__linux__)
# include <errno.h>
# include <stddef.h>
# include <linux/audit.h>
# include <linux/filter.h>
# include <linux/seccomp.h>
# include <sys/prctl.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif

#include "pl-cpu.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-rope.h"
#include "pl-rope-profile.h"
#include "pl-stored-gemm.h"
#include "pl-transformer.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* The rotary-position decoders against tests/fixtures/rope/NAME/reference.h5,
 * the float64 numpy forward pass tests/fixtures/make-rope-decoders.py wrote
 * from Hugging Face's modeling files, on the BF16 checkpoints it wrote
 * beside it: every hidden state within 1e-4 of the largest reference value
 * of its layer, every attention probability within 1e-5. Where BF16
 * weights are multiplied with BF16 dot products (AVX-512 BF16), against
 * reference-bf16.h5 instead, the same pass with every linear layer's input
 * rounded to BF16: within 1e-3 there, hidden states and attention alike,
 * since a value that float32 and float64 put on either side of a BF16
 * rounding boundary rounds to neighbouring BF16 numbers (2⁻⁸ apart) in the
 * two (one such element of a layer's input moves the tiny Llama's last
 * hidden states by 5e-4 of their largest, Gemma 2's capped scores an
 * attention by 1.6e-4). The references with and without the rounding are
 * 2.7e-3 to 1.4e-2 apart. */

#define ROPE_HIDDEN_TOL 1e-4
#define ROPE_ATTENTION_TOL  1e-5
#define ROPE_HIDDEN_TOL_BF16 1e-3
#define ROPE_ATTENTION_TOL_BF16 1e-3

typedef struct
{
  const char *name;        /* tests/fixtures/rope/NAME */
  const char *reference;   /* whose reference.h5 it is checked on */
  PlFamily    family;
} Fixture;

static const Fixture fixtures[] = {
  { "llama", "llama", PL_FAMILY_LLAMA },
  { "llama-linear", "llama-linear", PL_FAMILY_LLAMA },
  { "llama-dynamic", "llama-dynamic", PL_FAMILY_LLAMA },
  { "llama-llama3", "llama-llama3", PL_FAMILY_LLAMA },
  { "llama-yarn", "llama-yarn", PL_FAMILY_LLAMA },
  { "llama-yarn-mscale", "llama-yarn-mscale", PL_FAMILY_LLAMA },
  { "mistral", "mistral", PL_FAMILY_MISTRAL },
  { "qwen2", "qwen2", PL_FAMILY_QWEN2 },
  { "gemma", "gemma", PL_FAMILY_GEMMA },
  { "phi3", "phi3", PL_FAMILY_PHI3 },
  { "gpt-neox", "gpt-neox", PL_FAMILY_GPT_NEOX },
  { "gpt-neox-sequential", "gpt-neox-sequential", PL_FAMILY_GPT_NEOX },
  { "qwen3", "qwen3", PL_FAMILY_QWEN3 },
  { "gemma2", "gemma2", PL_FAMILY_GEMMA2 },
  { "qwen3-moe", "qwen3-moe", PL_FAMILY_QWEN3_MOE },
  { "qwen3-moe-step", "qwen3-moe-step", PL_FAMILY_QWEN3_MOE },
  /* the llama weights again as F32, as F16 and in two BF16 shards */
  { "llama-f32", "llama", PL_FAMILY_LLAMA },
  { "llama-f16", "llama", PL_FAMILY_LLAMA },
  { "llama-sharded", "llama", PL_FAMILY_LLAMA },
};

static const char * const probes[] = { "short", "long", NULL };

static PlModel *
open_model (const char *name)
{
  g_autofree char *path = pl_test_fixture ("rope", name, NULL);
  g_autoptr(GError) error = NULL;
  PlModel *model = pl_model_open (path, NULL, NULL, &error);

  g_assert_no_error (error);
  return model;
}

static PlTransformer *
open_transformer (const char *name)
{
  g_autoptr(PlModel) model = open_model (name);
  g_autoptr(GError) error = NULL;
  PlTransformer *t = pl_transformer_new (model, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static char *
reference_file (const char *name)
{
  return pl_test_fixture ("rope", name, "reference.h5", NULL);
}

/* Both probes of REFERENCE through T; returns the worst hidden-state error
 * (relative to the layer's largest value) and attention error seen. */
static void
compare (PlTransformer *t,
         const char    *file,
         double        *worst_hidden,
         double        *worst_attention)
{
  const PlTransformerConfig *c = pl_transformer_get_config (t);
  gboolean bf16 = g_str_has_suffix (file, "reference-bf16.h5");
  double hidden_tol = bf16 ? ROPE_HIDDEN_TOL_BF16 : ROPE_HIDDEN_TOL;
  double attention_tol = bf16 ? ROPE_ATTENTION_TOL_BF16 : ROPE_ATTENTION_TOL;

  *worst_hidden = *worst_attention = 0;
  for (guint p = 0; probes[p] != NULL; p++)
    {
      g_autofree char *att_name = g_strdup_printf ("%s/attentions", probes[p]);
      g_autofree char *hid_name = g_strdup_printf ("%s/hidden_states", probes[p]);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, "", probes[p]);
      g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (file, att_name);
      g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (file, hid_name);
      g_autoptr(PlForwardResult) result = NULL;
      g_autoptr(GError) error = NULL;
      gsize tt = ids->len;

      result = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                       PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ref_att->rows, ==, (gsize) c->n_layers * c->n_heads * tt);
      g_assert_cmpuint (ref_hid->rows, ==, (gsize) (c->n_layers + 1) * tt);
      for (guint l = 0; l < c->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_att, (gsize) l * c->n_heads * tt, c->n_heads * tt);
          double diff = pl_test_max_abs_diff (result->attentions[l], ref);

          g_assert_cmpfloat (diff, <, attention_tol);
          pl_test_check_rows (result->attentions[l], tt, TRUE);
          *worst_attention = MAX (*worst_attention, diff);
        }
      for (guint k = 0; k <= c->n_layers; k++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_hid, (gsize) k * tt, tt);
          double rel = pl_test_max_abs_diff (result->hidden_states[k], ref) / pl_test_max_abs (ref);

          g_assert_cmpfloat (rel, <, hidden_tol);
          *worst_hidden = MAX (*worst_hidden, rel);
        }
    }
}

static void
test_reference (gconstpointer data)
{
  const Fixture *fx = data;
  g_autoptr(PlModel) model = open_model (fx->name);
  g_autoptr(PlTransformer) t = open_transformer (fx->name);
  g_autofree char *file = pl_test_rope_reference (fx->name, fx->reference);
  double hidden, attention;

  g_assert_cmpint (pl_model_get_family (model), ==, fx->family);
  g_assert_nonnull (pl_model_get_rotary_decoder (model));
  compare (t, file, &hidden, &attention);
  g_test_message ("%s: against %s, hidden states within %.2g of each layer's largest value, attentions within %.2g",
                  fx->name, file, hidden, attention);
}

/* The frequencies against HF's, as the script computed them in float32
 * with torch's operations, for each probe's length. */
static void
test_frequencies (gconstpointer data)
{
  const Fixture *fx = data;
  g_autoptr(PlModel) model = open_model (fx->name);
  g_autofree char *file = reference_file (fx->reference);
  const PlRopeSpec *rope = &pl_model_get_rotary_decoder (model)->rope;

  for (guint p = 0; probes[p] != NULL; p++)
    {
      g_autofree char *name = g_strdup_printf ("%s/rope_inv_freq", probes[p]);
      g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, name);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, "", probes[p]);
      g_autofree float *inv = g_new (float, rope->dim / 2);
      float scaling;

      g_assert_cmpuint (ref->cols, ==, rope->dim / 2);
      pl_rope_inv_freq (rope, ids->len, inv, &scaling);
      for (guint i = 0; i < rope->dim / 2; i++)
        g_assert_cmpfloat (fabs (inv[i] - ref->data[i]), <=, 2.5e-7 * ref->data[i]);
    }
}

/* A query and key of one vector score by their offset alone: R(i)v · R(j)v
 * depends on j − i only (RoFormer's relative property), whatever the
 * scaling does to the frequencies. */
static void
test_relative (gconstpointer data)
{
  const Fixture *fx = data;
  g_autoptr(PlModel) model = open_model (fx->name);
  const PlRopeSpec *rope = &pl_model_get_rotary_decoder (model)->rope;
  guint half = rope->dim / 2, n = 40;
  g_autofree float *inv = g_new (float, half);
  g_autofree float *cos_t = g_new (float, n * half);
  g_autofree float *sin_t = g_new (float, n * half);
  g_autofree float *v = g_new (float, rope->dim);
  g_autofree float *a = g_new (float, rope->dim);
  g_autofree float *b = g_new (float, rope->dim);
  float scaling;
  double norm = 0;

  for (guint d = 0; d < rope->dim; d++)
    {
      v[d] = (float) sin (1.7 * d + 0.3);
      norm += v[d] * v[d];
    }
  pl_rope_inv_freq (rope, n, inv, &scaling);
  pl_rope_cos_sin (inv, half, scaling, n, cos_t, sin_t);
  for (guint offset = 0; offset < 12; offset++)
    {
      double first = 0;

      for (guint i = 0; i + offset < n; i++)
        {
          double score = 0;

          memcpy (a, v, rope->dim * sizeof (float));
          memcpy (b, v, rope->dim * sizeof (float));
          pl_rope_rotate_row (a, 1, rope->dim, half, cos_t + i * half, sin_t + i * half);
          pl_rope_rotate_row (b, 1, rope->dim, half, cos_t + (i + offset) * half, sin_t + (i + offset) * half);
          for (guint d = 0; d < rope->dim; d++)
            score += (double) a[d] * b[d];
          if (i == 0)
            first = score;
          /* float32 angles p · θ lose about p ulp: 2e-5 of |v|² at p ≤ 40 */
          g_assert_cmpfloat (fabs (score - first), <, 2e-5 * norm * scaling * scaling);
        }
    }
}

/* The rotary profile of one probe against the norms the reference script
 * took of its queries and keys, plane by plane. */
static void
test_profile (gconstpointer data)
{
  const Fixture *fx = data;
  g_autoptr(PlTransformer) t = open_transformer (fx->name);
  g_autofree char *file = pl_test_rope_reference (fx->name, fx->reference);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(PlMatrix) ref_query = pl_test_read_h5 (file, "long/rope_query_norm");
  g_autoptr(PlMatrix) ref_key = pl_test_read_h5 (file, "long/rope_key_norm");
  g_autofree char *freq_file = reference_file (fx->reference);
  g_autoptr(PlMatrix) ref_freq = pl_test_read_h5 (freq_file, "long/rope_inv_freq");
  g_autoptr(PlRopeProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  double tol = g_str_has_suffix (file, "reference-bf16.h5") ? ROPE_HIDDEN_TOL_BF16 : 1e-5;

  g_ptr_array_add (sequences, pl_test_reference_ids (file, "", "long"));
  profile = pl_rope_profile_compute_for_ids (t, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->query_norm, ref_query), <, tol * pl_test_max_abs (ref_query));
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->key_norm, ref_key), <, tol * pl_test_max_abs (ref_key));
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->frequency, ref_freq), <, 1e-6);
}

/* Mistral's window of 4 and Qwen2's of 3 from layer 1 on: query i sees keys
 * i − window < j ≤ i, every one of them with some attention, no other. */
static void
test_windows (void)
{
  static const struct { const char *name; guint layer; guint window; } cases[] = {
    { "mistral", 0, 4 }, { "mistral", 1, 4 }, { "qwen2", 0, 0 }, { "qwen2", 1, 3 }, { "phi3", 1, 5 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(PlTransformer) t = open_transformer (cases[c].name);
      g_autofree char *file = reference_file (cases[c].name);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, "", "long");
      g_autoptr(PlForwardResult) result = NULL;
      g_autoptr(GError) error = NULL;
      guint tt = ids->len, heads = pl_transformer_get_config (t)->n_heads;
      PlMatrix *att;

      result = pl_transformer_forward (t, (int *) ids->data, tt, PL_FORWARD_ATTENTIONS, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      att = result->attentions[cases[c].layer];
      for (guint h = 0; h < heads; h++)
        for (guint i = 0; i < tt; i++)
          for (guint j = 0; j < tt; j++)
            {
              float a = pl_matrix_get (att, h * tt + i, j);
              gboolean seen = j <= i && (cases[c].window == 0 || j + cases[c].window > i);

              if (seen)
                g_assert_cmpfloat (a, >, 0);
              else
                g_assert_cmpfloat (a, ==, 0);
            }
    }
}

/* F32, F16 and sharded copies of one model compute what the BF16 one does:
 * the stored values are the same numbers. The F16 copy and the F32 one, both
 * on the plain path, to the last bit, and so the two BF16 ones (one file,
 * two shards); the BF16 ones and the F32 one to the last bit on the plain
 * path too, within float32 rounding with AMX tiles (split activations,
 * pl-stored-gemm-amx.c), and not compared where BF16 dot products round the
 * activations (each is held to its own reference in test_reference). */
static void
test_copies_agree (void)
{
  static const char * const copies[] = { "llama", "llama-f16", "llama-sharded" };
  g_autofree char *file = reference_file ("llama");
  g_autoptr(GArray) ids = pl_test_reference_ids (file, "", "long");
  g_autoptr(PlTransformer) f32 = open_transformer ("llama-f32");
  g_autoptr(PlTransformer) bf16 = open_transformer ("llama");
  g_autoptr(PlForwardResult) plain = pl_transformer_forward (f32, (int *) ids->data, ids->len,
                                                             PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, NULL);
  g_autoptr(PlForwardResult) stored = pl_transformer_forward (bf16, (int *) ids->data, ids->len,
                                                              PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autoptr(PlModel) model = open_model (copies[i]);
      g_autoptr(PlTransformer) t = open_transformer (copies[i]);
      g_autoptr(PlForwardResult) got = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                                               PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, NULL);
      g_autoptr(PlStoredMatrix) q = pl_model_read_stored_weight (model, PL_WEIGHT_Q_WEIGHT, 0, NULL);
      gboolean is_bf16 = !g_str_equal (copies[i], "llama-f16");

      g_assert_cmpint (q->type, ==, is_bf16 ? PL_STORED_BF16 : PL_STORED_F16);
      for (guint k = 0; k <= plain->n_layers; k++)
        {
          double diff = pl_test_max_abs_diff (got->hidden_states[k], plain->hidden_states[k]);

          if (is_bf16)
            g_assert_cmpfloat (pl_test_max_abs_diff (got->hidden_states[k], stored->hidden_states[k]), ==, 0);
          if (!is_bf16 || (!pl_cpu_has_amx_bf16 () && !pl_stored_gemm_rounds_activations (q)))
            g_assert_cmpfloat (diff, ==, 0);
          else if (pl_cpu_has_amx_bf16 ())
            g_assert_cmpfloat (diff, <, 1e-5 * pl_test_max_abs (plain->hidden_states[k]));
        }
    }
}

/* A copy of fixture NAME in a fresh folder with config.json's text edited:
 * FROM replaced by TO. */
static char *
edited_copy (const char *name,
             const char *from,
             const char *to)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *config_path = pl_test_fixture ("rope", name, "config.json", NULL);
  g_autofree char *weights_path = pl_test_fixture ("rope", name, "model.safetensors", NULL);
  g_autofree char *config = NULL;
  g_autofree char *weights = NULL;
  g_autofree char *out_config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *out_weights = g_build_filename (dir, "model.safetensors", NULL);
  g_auto(GStrv) parts = NULL;
  g_autofree char *edited = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (config_path, &config, NULL, NULL));
  g_assert_true (g_file_get_contents (weights_path, &weights, &len, NULL));
  g_assert_nonnull (strstr (config, from));
  parts = g_strsplit (config, from, 2);
  edited = g_strjoin (to, parts[0], parts[1], NULL);
  g_assert_true (g_file_set_contents (out_config, edited, -1, NULL));
  g_assert_true (g_file_set_contents (out_weights, weights, len, NULL));
  return g_steal_pointer (&dir);
}

typedef struct
{
  const char *fixture;
  const char *from;
  const char *to;
  PlError     code;
  const char *says;      /* in the message */
} Refusal;

static const Refusal refusals[] = {
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"longrope\", \"short_factor\": [1, 1, 1, 1, 1, 1], "
    "\"long_factor\": [2, 2, 2, 2, 2, 2]}", PL_ERROR_UNSUPPORTED, "“longrope” is not implemented" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"ntk\", \"factor\": 2.0}",
    PL_ERROR_UNSUPPORTED, "“ntk” is not implemented" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 2.0, \"finetuned\": true}",
    PL_ERROR_UNSUPPORTED, "option “finetuned” of “yarn”" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0}",
    PL_ERROR_CORRUPT, "needs low_freq_factor" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"factor\": 2.0}", PL_ERROR_CORRUPT, "no rope_type" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 0}",
    PL_ERROR_CORRUPT, "factor above 0" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": 4", PL_ERROR_CORRUPT, "not an object" },
  { "llama", "\"rope_scaling\": null", "\"rope_scaling\": null, \"partial_rotary_factor\": 0.5",
    PL_ERROR_UNSUPPORTED, "partial_rotary_factor" },
  { "llama", "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3", PL_ERROR_CORRUPT, "do not divide" },
  { "llama", "\"hidden_act\": \"silu\"", "\"hidden_act\": \"tanh\"", PL_ERROR_UNSUPPORTED, "“tanh” is not supported" },
  { "llama", "\"head_dim\": 12", "\"head_dim\": 10", PL_ERROR_CORRUPT, "configuration asks for" },
  { "phi3", "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"su\", \"short_factor\": [1, 1, 1], "
    "\"long_factor\": [2, 2, 2]}", PL_ERROR_UNSUPPORTED, "LongRoPE" },
  { "gpt-neox", "\"rotary_pct\": 0.5", "\"rotary_pct\": 0.375", PL_ERROR_UNSUPPORTED, "must be even" },
  { "gemma2", "\"attn_logit_softcapping\": 5.0", "\"attn_logit_softcapping\": -5.0", PL_ERROR_CORRUPT,
    "config.json: attn_logit_softcapping must be" },
  { "gemma2", "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": 0", PL_ERROR_CORRUPT,
    "config.json: query_pre_attn_scalar must be above 0" },
  { "gemma2", "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": 24, \"use_bidirectional_attention\": true",
    PL_ERROR_UNSUPPORTED, "use_bidirectional_attention" },
  { "qwen3-moe", "\"num_experts_per_tok\": 2", "\"num_experts_per_tok\": 7", PL_ERROR_CORRUPT,
    "config.json: num_experts 6, num_experts_per_tok 7" },
  { "qwen3-moe", "\"num_experts\": 6", "\"num_experts\": 4000000000", PL_ERROR_CORRUPT, "at most 65536 experts" },
  /* more experts than the file holds: the router, read first at its stored size, says so */
  { "qwen3-moe", "\"num_experts\": 6", "\"num_experts\": 60000", PL_ERROR_CORRUPT,
    "expert router of layer 0 is 6×32 but the configuration asks for 60000×32" },
  { "qwen3-moe", "\"moe_intermediate_size\": 12", "\"moe_intermediate_size\": 13", PL_ERROR_CORRUPT,
    "configuration asks for" },
  { "qwen3-moe", "\"mlp_only_layers\": [", "\"mlp_only_layers\": [\"one\", ", PL_ERROR_CORRUPT,
    "mlp_only_layers[0] is not a layer number" },
  { "qwen3-moe", "\"use_sliding_window\": false", "\"use_sliding_window\": true", PL_ERROR_UNSUPPORTED,
    "use_sliding_window" },
};

static void
test_refusal (gconstpointer data)
{
  const Refusal *r = data;
  g_autofree char *dir = edited_copy (r->fixture, r->from, r->to);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;

  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_null (t);
  g_assert_error (error, PL_ERROR, r->code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, r->says));
  pl_test_rmtree (dir);
}

/* With Llama 2's tokenizer beside the weights, random inputs start with its
 * bos token, as a tokenised text does, and hold no other special token.
 * (The test tokenizer lists 533 tokens, config.json says so; the weights
 * embed the first 64, which random inputs draw from.) */
static void
test_inputs_start_with_bos (void)
{
  g_autofree char *dir = edited_copy ("llama", "\"vocab_size\": 64", "\"vocab_size\": 533");
  g_autofree char *tokenizer_path = pl_test_fixture ("tokenizers", "llama2", "tokenizer.json", NULL);
  g_autofree char *copy = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GArray) ids = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (tokenizer_path, &text, &len, NULL));
  g_assert_true (g_file_set_contents (copy, text, len, NULL));
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  ids = pl_transformer_random_ids (t, 20, 3);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 1);
  for (guint i = 1; i < ids->len; i++)
    g_assert_cmpint (g_array_index (ids, int, i), >, 2);
  pl_test_rmtree (dir);
}

/* ELEMENT of TENSOR in the safetensors file PATH (a BF16 tensor) set to
 * BITS, the file's header read with json-glib. */
static void
poke_bf16 (const char *path,
           const char *tensor,
           gsize       element,
           guint16     bits)
{
  g_autofree char *bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *entry;
  guint64 header_len;
  gsize len, at;

  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  memcpy (&header_len, bytes, 8);
  header_len = GUINT64_FROM_LE (header_len);
  g_assert_true (json_parser_load_from_data (parser, bytes + 8, (gssize) header_len, &error));
  entry = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), tensor);
  g_assert_cmpstr (json_object_get_string_member (entry, "dtype"), ==, "BF16");
  at = 8 + header_len + json_array_get_int_element (json_object_get_array_member (entry, "data_offsets"), 0) +
       2 * element;
  bits = GUINT16_TO_LE (bits);
  memcpy (bytes + at, &bits, 2);
  g_assert_true (g_file_set_contents (path, bytes, len, NULL));
}

static gboolean
stop_after_first_layer (guint     k,
                        PlMatrix *attention,
                        PlMatrix *hidden,
                        gpointer  user_data)
{
  return k < 1;
}

/* A layer's weights are read and checked where the layer is first used, not
 * when the model is opened: a NaN in layer 1's feed-forward keeps neither
 * the transformer from being made nor layer 0 from being computed, and the
 * first pass through layer 1 (and every one after it) says what and where it
 * is. A NaN in the token embedding counts only in the rows an input uses. */
static void
test_lazy_layers (void)
{
  g_autofree char *dir = edited_copy ("llama", "\"rope_scaling\": null", "\"rope_scaling\": null");
  g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GError) error = NULL;
  const int ids[] = { 1, 5, 9, 14 }, with_nan_row[] = { 1, 7 };

  poke_bf16 (weights, "model.layers.1.mlp.down_proj.weight", 37, 0x7fc0);
  poke_bf16 (weights, "model.embed_tokens.weight", 7 * 32 + 3, 0xff80);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_transformer_get_config ((t = pl_transformer_new (model, NULL, &error)))->n_layers, ==, 2);
  g_assert_no_error (error);
  g_assert_true (pl_transformer_run (t, ids, G_N_ELEMENTS (ids), TRUE, stop_after_first_layer, NULL,
                                     NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  for (guint again = 0; again < 2; again++)
    {
      g_assert_false (pl_transformer_run (t, ids, G_N_ELEMENTS (ids), FALSE, NULL, NULL, NULL, NULL, NULL, &error));
      g_assert_error (error, PL_ERROR, PL_ERROR_BAD_VALUES);
      g_assert_cmpstr (error->message, ==, "the feed-forward output weight of layer 1 holds NaN or infinite values");
      g_clear_error (&error);
    }
  g_assert_false (pl_transformer_run (t, with_nan_row, 2, FALSE, stop_after_first_layer, NULL, NULL, NULL, NULL,
                                      &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_BAD_VALUES);
  g_assert_cmpstr (error->message, ==, "the token embedding holds NaN or infinite values");
  pl_test_rmtree (dir);
}

/* Another architecture's model_type on Llama's names (OLMo 2 shares them,
 * with norms Llama has not) is refused by that name, not run as Llama. */
static void
test_other_model_type (void)
{
  g_autofree char *dir = edited_copy ("llama", "\"model_type\": \"llama\"", "\"model_type\": \"olmo2\"");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "model_type “olmo2”"));
  pl_test_rmtree (dir);
}

/* No table to read, and the reason says what the model does instead. */
static void
test_no_table (void)
{
  g_autoptr(PlModel) model = open_model ("gpt-neox");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_model_read_positions (model, &error);

  g_assert_null (table);
  g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "RoPE, base 100, 4 rotated dims per head"));
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 32);
}

/* A process the kernel refuses the AMX tile state (arch_prctl
 * ARCH_REQ_XCOMP_PERM answering EPERM, as under a sandbox that filters it)
 * runs the plain GEMM and still computes the reference. The refusal comes
 * from a seccomp filter in a subprocess, which detects the processor anew. */
static void
test_amx_refused (void)
{
#if defined(__x86_64__) && defined(__linux__)
  if (g_test_subprocess ())
    {
      struct sock_filter code[] = {
        BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
        BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
        BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
        BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 3),
        BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[0])),
        BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0x1023, 0, 1),
        BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      };
      struct sock_fprog program = { G_N_ELEMENTS (code), code };
      gsize t = 45, n = 70, k = 96;
      g_autoptr(PlStoredMatrix) w = pl_stored_matrix_try_new (PL_STORED_BF16, n, k, NULL);
      g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
      g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);

      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
        {
          g_test_skip ("no seccomp filter here");
          return;
        }
      g_assert_cmpint (syscall (SYS_arch_prctl, 0x1023, 18), ==, -1);
      g_assert_cmpint (errno, ==, EPERM);
      g_assert_false (pl_cpu_has_amx_bf16 ());
      for (gsize i = 0; i < n * k; i++)
        ((guint16 *) w->data)[i] = 0x3c00 | (i % 97);
      for (gsize i = 0; i < t * k; i++)
        x->data[i] = (float) sin (0.37 * i);
      pl_stored_gemm (x, w, NULL, NULL, tuned);
      pl_stored_gemm_plain (x, w, NULL, NULL, plain);
      /* no tiles: the plain path, or BF16 dot products (test-decoder-kernels) */
      if (!pl_stored_gemm_rounds_activations (w))
        g_assert_cmpfloat (pl_test_max_abs_diff (tuned, plain), ==, 0);
      test_reference (&fixtures[0]);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
#else
  g_test_skip ("AMX is an x86-64 Linux matter");
#endif
}

/* poslens-cli forward writes what the reference holds. */
static void
test_cli_forward (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "forward.h5", NULL);
  g_autofree char *model = pl_test_fixture ("rope", "gemma", NULL);
  g_autofree char *file = pl_test_rope_reference ("gemma", "gemma");
  g_autofree char *ids = g_strdup_printf ("%s:/long/input_ids", file);
  const char *args[] = { "forward", model, "--ids-from", ids, "--out", out, NULL };
  g_autoptr(PlMatrix) hidden = NULL;
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, "long/hidden_states");
  g_autoptr(PlMatrix) att = NULL;
  g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (file, "long/attentions");

  gboolean bf16 = g_str_has_suffix (file, "reference-bf16.h5");

  g_assert_cmpint (pl_test_run_cli (args), ==, 0);
  hidden = pl_test_read_h5 (out, "hidden_states");
  att = pl_test_read_h5 (out, "attentions");
  g_assert_cmpfloat (pl_test_max_abs_diff (hidden, ref), <,
                     (bf16 ? ROPE_HIDDEN_TOL_BF16 : ROPE_HIDDEN_TOL) * pl_test_max_abs (ref));
  g_assert_cmpfloat (pl_test_max_abs_diff (att, ref_att), <, bf16 ? ROPE_ATTENTION_TOL_BF16 : ROPE_ATTENTION_TOL);
  pl_test_rmtree (dir);
}

/* poslens-cli rope-profile writes the profile of its random inputs, draws
 * one layer, and refuses a model with a position table. */
static void
test_cli_rope_profile (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *h5 = g_build_filename (dir, "profile.h5", NULL);
  g_autofree char *png = g_build_filename (dir, "profile.png", NULL);
  g_autofree char *model = pl_test_fixture ("rope", "qwen2", NULL);
  g_autofree char *gpt2 = pl_test_demo ("mini-gpt2", NULL);
  const char *numbers[] = { "rope-profile", model, "--length", "12", "--sequences", "3", "--out", h5, NULL };
  const char *figure[] = { "rope-profile", model, "--length", "12", "--layer", "2", "--keys", "--out", png, NULL };
  const char *too_deep[] = { "rope-profile", model, "--layer", "3", "--out", png, NULL };
  const char *table[] = { "rope-profile", gpt2, "--out", h5, NULL };
  g_autoptr(PlTransformer) t = open_transformer ("qwen2");
  g_autoptr(PlRopeProfile) profile = pl_rope_profile_compute (t, 3, 12, 0, NULL, NULL, NULL, NULL);
  g_autoptr(PlMatrix) query = NULL;
  g_autoptr(PlMatrix) wavelength = NULL;

  g_assert_cmpint (pl_test_run_cli (numbers), ==, 0);
  query = pl_test_read_h5 (h5, "query_norm");
  wavelength = pl_test_read_h5 (h5, "wavelength");
  g_assert_cmpfloat (pl_test_max_abs_diff (query, profile->query_norm), ==, 0);
  g_assert_cmpfloat_with_epsilon (wavelength->data[1], 2 * G_PI / profile->frequency->data[1], 1e-3);
  g_assert_cmpint (pl_test_run_cli (figure), ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (pl_test_run_cli (too_deep), ==, 1);
  g_assert_cmpint (pl_test_run_cli (table), ==, 2);
  pl_test_rmtree (dir);
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *ref = g_strdup_printf ("/pl/rope/reference/%s", fixtures[i].name);
      g_autofree char *freq = g_strdup_printf ("/pl/rope/frequencies/%s", fixtures[i].name);
      g_autofree char *rel = g_strdup_printf ("/pl/rope/relative/%s", fixtures[i].name);
      g_autofree char *prof = g_strdup_printf ("/pl/rope/profile/%s", fixtures[i].name);

      g_test_add_data_func (ref, &fixtures[i], test_reference);
      if (g_str_equal (fixtures[i].name, fixtures[i].reference))
        {
          g_test_add_data_func (freq, &fixtures[i], test_frequencies);
          g_test_add_data_func (rel, &fixtures[i], test_relative);
          g_test_add_data_func (prof, &fixtures[i], test_profile);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/rope/refusal/%u", i);

      g_test_add_data_func (path, &refusals[i], test_refusal);
    }
  g_test_add_func ("/pl/rope/windows", test_windows);
  g_test_add_func ("/pl/rope/copies-agree", test_copies_agree);
  g_test_add_func ("/pl/rope/other-model-type", test_other_model_type);
  g_test_add_func ("/pl/rope/lazy-layers", test_lazy_layers);
  g_test_add_func ("/pl/rope/inputs-start-with-bos", test_inputs_start_with_bos);
  g_test_add_func ("/pl/rope/no-table", test_no_table);
  g_test_add_func ("/pl/rope/amx-refused", test_amx_refused);
  g_test_add_func ("/pl/rope/cli-forward", test_cli_forward);
  g_test_add_func ("/pl/rope/cli-rope-profile", test_cli_rope_profile);
  return g_test_run ();
}
