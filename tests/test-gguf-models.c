/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-rope-profile.h"
#include "pl-similarity.h"
#include "pl-stored-gemm.h"
#include "pl-transformer.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* Models from GGUF files that tests/fixtures/make-gguf.py wrote from the
 * rotary fixtures as llama.cpp's convert_hf_to_gguf.py writes them (its
 * names, metadata keys, permuted Llama rows, reordered GPT-NeoX rows,
 * Gemma's 1 + w norms, Llama 3's rope_freqs): the hidden states and
 * attentions of the Hugging Face folder they came from (rope/NAME/
 * reference.h5) within the rotary tests' bounds, 1e-4 of each layer's
 * largest value and 1e-5; where the conversion changed what the model
 * computes (a window llama.cpp drops, a rotary base or Gemma 2's score scale
 * it does not write) or
 * quantised the weights, the same forward pass on the weights as the file
 * holds them (gguf/NAME.h5), and the quantised ones within the error
 * quantisation makes of the folder's hidden states.
 *
 * Where quantised weights are multiplied with BF16 dot products (AVX-512
 * BF16; pl_stored_gemm_rounds_activations), each linear layer's inputs and
 * unpacked weights are rounded to BF16 (2⁻⁹ of each value), so each product
 * moves by up to 2⁻⁸ of Σ|x·w|, a few times 2⁻⁸ of its own size on these
 * small random layers: there the bounds are 2e-2 of the largest hidden
 * value and 2e-2 of a probability (seen: 8.4e-3 and 8.1e-3). The -scalar
 * run holds the same files to the bounds above on the plain path. */

#define GGUF_HIDDEN_TOL    1e-4
#define GGUF_ATTENTION_TOL 1e-5
#define GGUF_ROUNDED_TOL   2e-2

typedef struct
{
  const char *file;        /* tests/fixtures/gguf/FILE */
  const char *reference;   /* under tests/fixtures */
  PlFamily    family;
  gboolean    quantised;   /* its reference has the unquantised model's hidden states too */
  const char *types;       /* the type its decoder weights keep, or NULL */
} Case;

static const Case cases[] = {
  { "llama-f32.gguf", "rope/llama/reference.h5", PL_FAMILY_LLAMA, FALSE, NULL },
  { "llama-q8_0.gguf", "gguf/llama-q8_0.h5", PL_FAMILY_LLAMA, TRUE, "Q8_0" },
  { "llama-llama3-f32.gguf", "rope/llama-llama3/reference.h5", PL_FAMILY_LLAMA, FALSE, NULL },
  { "llama-yarn-f32.gguf", "rope/llama-yarn/reference.h5", PL_FAMILY_LLAMA, FALSE, NULL },
  { "mistral-f32.gguf", "gguf/mistral-f32.h5", PL_FAMILY_LLAMA, FALSE, NULL },
  { "qwen2-f32.gguf", "gguf/qwen2-f32.h5", PL_FAMILY_QWEN2, FALSE, NULL },
  { "gemma-f32.gguf", "rope/gemma/reference.h5", PL_FAMILY_GEMMA, FALSE, NULL },
  { "phi3-f32.gguf", "rope/phi3/reference.h5", PL_FAMILY_PHI3, FALSE, NULL },
  { "gpt-neox-f32.gguf", "gguf/gpt-neox-f32.h5", PL_FAMILY_GPT_NEOX, FALSE, NULL },
  { "qwen3-f32.gguf", "rope/qwen3/reference.h5", PL_FAMILY_QWEN3, FALSE, NULL },
  { "gemma2-f32.gguf", "gguf/gemma2-f32.h5", PL_FAMILY_GEMMA2, FALSE, NULL },
  { "llama-256-q4_k_m.gguf", "gguf/llama-256-q4_k_m.h5", PL_FAMILY_LLAMA, TRUE, "Q4_K" },
  /* the same model quantised by llama.cpp itself (make-gguf.py --llama-cpp) */
  { "llama-256-q4_k_m-llamacpp.gguf", "gguf/llama-256-q4_k_m-llamacpp.h5", PL_FAMILY_LLAMA, TRUE, "Q4_K" },
  { "gpt2-f32.gguf", "gguf/gpt2-f32.h5", PL_FAMILY_GPT2, FALSE, NULL },
  { "gpt2-q8_0.gguf", "gguf/gpt2-q8_0.h5", PL_FAMILY_GPT2, TRUE, NULL },
};

static const char * const probes[] = { "short", "long", NULL };

static PlModel *
open_case (const Case *c)
{
  g_autofree char *path = pl_test_fixture ("gguf", c->file, NULL);
  g_autoptr(GError) error = NULL;
  PlModel *model = pl_model_open (path, NULL, NULL, &error);

  g_assert_no_error (error);
  return model;
}

static void
test_forward (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(PlModel) model = open_case (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autofree char *file = pl_test_fixture (c->reference, NULL);
  const PlTransformerConfig *config;
  g_autoptr(PlStoredMatrix) q = NULL;
  double hidden_tol = GGUF_HIDDEN_TOL, attention_tol = GGUF_ATTENTION_TOL;

  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_cmpstr (pl_checkpoint_get_format (pl_model_get_checkpoint (model)), ==, "gguf");
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  config = pl_transformer_get_config (t);
  /* the rotary decoders' weights go through pl_stored_gemm, GPT-2's not */
  if (c->family != PL_FAMILY_GPT2)
    {
      q = pl_model_read_stored_weight (model, PL_WEIGHT_Q_WEIGHT, 0, &error);
      g_assert_no_error (error);
      if (pl_stored_gemm_rounds_activations (q))
        hidden_tol = attention_tol = GGUF_ROUNDED_TOL;
    }
  for (guint p = 0; probes[p] != NULL; p++)
    {
      g_autofree char *att_name = g_strdup_printf ("%s/attentions", probes[p]);
      g_autofree char *hid_name = g_strdup_printf ("%s/hidden_states", probes[p]);
      g_autofree char *exact_name = g_strdup_printf ("%s/exact_hidden_states", probes[p]);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, "", probes[p]);
      g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (file, att_name);
      g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (file, hid_name);
      g_autoptr(PlMatrix) exact = c->quantised ? pl_test_read_h5 (file, exact_name) : NULL;
      g_autoptr(PlForwardResult) result = NULL;
      gsize tt = ids->len;
      double worst = 0, off_exact = 0, quantised = 0;

      result = pl_transformer_forward (t, (int *) ids->data, tt, PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                       NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ref_hid->rows, ==, (gsize) (config->n_layers + 1) * tt);
      for (guint l = 0; l < config->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_att, (gsize) l * config->n_heads * tt,
                                                          config->n_heads * tt);

          g_assert_cmpfloat (pl_test_max_abs_diff (result->attentions[l], ref), <, attention_tol);
        }
      for (guint k = 0; k <= config->n_layers; k++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_hid, (gsize) k * tt, tt);
          double rel = pl_test_max_abs_diff (result->hidden_states[k], ref) / pl_test_max_abs (ref);

          g_assert_cmpfloat (rel, <, hidden_tol);
          worst = MAX (worst, rel);
          if (exact != NULL)
            {
              g_autoptr(PlMatrix) e = pl_matrix_slice_rows (exact, (gsize) k * tt, tt);

              /* as far from the unquantised model as quantisation takes the reference, no farther */
              off_exact = MAX (off_exact, pl_test_max_abs_diff (result->hidden_states[k], e));
              quantised = MAX (quantised, pl_test_max_abs_diff (ref, e));
              g_assert_cmpfloat (pl_test_max_abs_diff (result->hidden_states[k], e), <=,
                                 pl_test_max_abs_diff (ref, e) + hidden_tol * pl_test_max_abs (ref));
            }
        }
      g_test_message ("%s %s: hidden states within %.2g of the largest", c->file, probes[p], worst);
      if (exact != NULL)
        g_test_message ("  %g from the unquantised model's, which quantisation moves by %g", off_exact, quantised);
    }
}

/* Every matrix of a quantised file keeps its blocks when read as stored:
 * the types the file gives, not float32; the feed-forward's are lent from
 * the mapped file, not copied (the query and key rows, put back in Hugging
 * Face's order, are a copy of the same blocks). */
static void
test_stored_types (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(PlModel) model = open_case (c);
  g_autoptr(GError) error = NULL;
  static const PlWeight weights[] = { PL_WEIGHT_Q_WEIGHT, PL_WEIGHT_K_WEIGHT, PL_WEIGHT_FFN_GATE_WEIGHT };

  for (guint i = 0; i < G_N_ELEMENTS (weights); i++)
    {
      g_autoptr(PlStoredMatrix) w = pl_model_read_stored_weight (model, weights[i], 0, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (pl_stored_type_name (w->type), ==, c->types);
      if (weights[i] == PL_WEIGHT_FFN_GATE_WEIGHT)
        g_assert_true (pl_stored_matrix_is_borrowed (w));
    }
}

/* Llama's per-plane query and key norms (the Rotary view) from the GGUF
 * equal those of the folder: the rows' permutation is undone before the
 * planes are taken. */
static void
test_profile (void)
{
  g_autoptr(PlModel) model = open_case (&cases[0]);
  g_autofree char *file = pl_test_fixture ("rope", "llama", "reference.h5", NULL);
  g_autoptr(PlTransformer) t = pl_transformer_new (model, NULL, NULL);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(PlMatrix) ref_query = pl_test_read_h5 (file, "long/rope_query_norm");
  g_autoptr(PlMatrix) ref_key = pl_test_read_h5 (file, "long/rope_key_norm");
  g_autoptr(PlRopeProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (sequences, pl_test_reference_ids (file, "", "long"));
  profile = pl_rope_profile_compute_for_ids (t, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->query_norm, ref_query), <, 1e-5 * pl_test_max_abs (ref_query));
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->key_norm, ref_key), <, 1e-5 * pl_test_max_abs (ref_key));
}

/* GPT-2's position_embd.weight is its learned table: the table views read
 * it (the positional cosine of every pair against numpy's, F32 stored). */
static void
test_gpt2_table (void)
{
  g_autofree char *path = pl_test_fixture ("gguf", "gpt2-q8_0.gguf", NULL);
  g_autofree char *reference = pl_test_fixture ("gguf", "gpt2-q8_0.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlMatrix) expect = pl_test_read_h5 (reference, "position_table/cosine");

  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, "position_embd.weight");
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 48);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 4);
  g_assert_true (pl_model_has_forward (model));
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  cosine = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (cosine, expect), <, 1e-6);
}

/* What the metadata says: sizes, heads, rotary base and dims, norms. */
static void
test_metadata (void)
{
  g_autofree char *phi3 = pl_test_fixture ("gguf", "phi3-f32.gguf", NULL);
  g_autofree char *llama3 = pl_test_fixture ("gguf", "llama-llama3-f32.gguf", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (phi3, NULL, NULL, &error);
  const PlRotaryDecoderSpec *d;

  g_assert_no_error (error);
  d = pl_model_get_rotary_decoder (model);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 32);
  g_assert_cmpuint (pl_model_get_n_heads (model), ==, 4);
  g_assert_cmpuint (d->n_kv_heads, ==, 2);
  g_assert_cmpuint (d->head_dim, ==, 8);
  g_assert_cmpuint (d->rope.dim, ==, 6);
  g_assert_cmpfloat (d->rope.theta, ==, 10000);
  g_assert_nonnull (d->layer_windows);
  g_assert_cmpuint (d->layer_windows[1], ==, 5);
  g_assert_cmpfloat (fabs (pl_model_get_layer_norm_eps (model) - 1e-5), <, 1e-12);
  g_clear_object (&model);

  model = pl_model_open (llama3, NULL, NULL, &error);
  g_assert_no_error (error);
  d = pl_model_get_rotary_decoder (model);
  g_assert_cmpint (d->rope.scaling, ==, PL_ROPE_SCALING_FACTORS);
  g_assert_cmpuint (d->rope.dim, ==, 12);
  g_assert_cmpfloat (d->rope.freq_factors[5], ==, 8.0f);
  g_assert_cmpfloat (d->rope.freq_factors[0], >, 1.0f);
  g_assert_cmpfloat (d->rope.freq_factors[0], <, 8.0f);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/gguf-models/forward/%s", cases[i].file);

      g_test_add_data_func (name, &cases[i], test_forward);
      if (cases[i].types != NULL)
        {
          g_autofree char *stored = g_strdup_printf ("/pl/gguf-models/stored/%s", cases[i].file);

          g_test_add_data_func (stored, &cases[i], test_stored_types);
        }
    }
  g_test_add_func ("/pl/gguf-models/rope-profile", test_profile);
  g_test_add_func ("/pl/gguf-models/gpt2-table", test_gpt2_table);
  g_test_add_func ("/pl/gguf-models/metadata", test_metadata);
  return g_test_run ();
}
