/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-kernel-emulation.h"
#include "pl-stored-gemm.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

const PlTestFixture pl_test_fixtures[PL_TEST_N_FIXTURES] = {
  { "mini-gpt2", "/transformer/tfgp_t2lm_head_model/transformer",
    { PL_FAMILY_GPT2, 256, 4, 4, 1024, 260, 512, 0, 1e-5, PL_ACTIVATION_GELU_TANH, TRUE, TRUE, 2, 2, -1 } },
  { "mini-bert", "/bert/tf_bert_for_masked_lm/bert",
    { PL_FAMILY_BERT, 256, 4, 4, 1024, 260, 512, 0, 1e-12, PL_ACTIVATION_GELU, FALSE, FALSE, 1, 2, 0 } },
  { "mini-roberta", "/roberta/tf_roberta_for_masked_lm/roberta",
    { PL_FAMILY_ROBERTA, 256, 4, 4, 1024, 260, 512, 2, 1e-12, PL_ACTIVATION_GELU, FALSE, FALSE, 0, 2, 1 } },
};

/* The weights read straight from tf_model.h5 with the raw HDF5 API, so the
 * forward pass is checked apart from the checkpoint reader. */
static PlMatrix *
raw_weight (PlWeight   weight,
            int        layer,
            gpointer   user_data,
            GError   **error)
{
  const PlTestFixture *fx = user_data;
  gboolean gpt2 = fx->config.family == PL_FAMILY_GPT2;
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autofree char *l = g_strdup_printf (gpt2 ? "h_._%d" : "encoder/layer_._%d", layer);
  g_autofree char *path = NULL;
  const char *leaf = NULL;
  int part = -1;   /* GPT-2's fused c_attn: which third */
  g_autoptr(PlMatrix) m = NULL;

  switch (weight)
    {
    case PL_WEIGHT_TOKEN_EMBEDDING:
      leaf = gpt2 ? "wte/weight:0" : "embeddings/word_embeddings/weight:0"; break;
    case PL_WEIGHT_POSITION_EMBEDDING:
      leaf = gpt2 ? "wpe/embeddings:0" : "embeddings/position_embeddings/embeddings:0"; break;
    case PL_WEIGHT_TOKEN_TYPE_EMBEDDING:
      leaf = "embeddings/token_type_embeddings/embeddings:0"; break;
    case PL_WEIGHT_EMBED_LN_WEIGHT: leaf = "embeddings/LayerNorm/gamma:0"; break;
    case PL_WEIGHT_EMBED_LN_BIAS: leaf = "embeddings/LayerNorm/beta:0"; break;
    case PL_WEIGHT_FINAL_LN_WEIGHT: leaf = "ln_f/gamma:0"; break;
    case PL_WEIGHT_FINAL_LN_BIAS: leaf = "ln_f/beta:0"; break;
    case PL_WEIGHT_Q_WEIGHT: case PL_WEIGHT_K_WEIGHT: case PL_WEIGHT_V_WEIGHT:
      part = (weight - PL_WEIGHT_Q_WEIGHT) / 2;
      leaf = gpt2 ? "attn/c_attn/weight:0" :
             weight == PL_WEIGHT_Q_WEIGHT ? "attention/self/query/kernel:0" :
             weight == PL_WEIGHT_K_WEIGHT ? "attention/self/key/kernel:0" : "attention/self/value/kernel:0";
      break;
    case PL_WEIGHT_Q_BIAS: case PL_WEIGHT_K_BIAS: case PL_WEIGHT_V_BIAS:
      part = (weight - PL_WEIGHT_Q_BIAS) / 2;
      leaf = gpt2 ? "attn/c_attn/bias:0" :
             weight == PL_WEIGHT_Q_BIAS ? "attention/self/query/bias:0" :
             weight == PL_WEIGHT_K_BIAS ? "attention/self/key/bias:0" : "attention/self/value/bias:0";
      break;
    case PL_WEIGHT_ATTN_OUT_WEIGHT: leaf = gpt2 ? "attn/c_proj/weight:0" : "attention/output/dense/kernel:0"; break;
    case PL_WEIGHT_ATTN_OUT_BIAS: leaf = gpt2 ? "attn/c_proj/bias:0" : "attention/output/dense/bias:0"; break;
    case PL_WEIGHT_LN1_WEIGHT: leaf = gpt2 ? "ln_1/gamma:0" : "attention/output/LayerNorm/gamma:0"; break;
    case PL_WEIGHT_LN1_BIAS: leaf = gpt2 ? "ln_1/beta:0" : "attention/output/LayerNorm/beta:0"; break;
    case PL_WEIGHT_FFN_IN_WEIGHT: leaf = gpt2 ? "mlp/c_fc/weight:0" : "intermediate/dense/kernel:0"; break;
    case PL_WEIGHT_FFN_IN_BIAS: leaf = gpt2 ? "mlp/c_fc/bias:0" : "intermediate/dense/bias:0"; break;
    case PL_WEIGHT_FFN_OUT_WEIGHT: leaf = gpt2 ? "mlp/c_proj/weight:0" : "output/dense/kernel:0"; break;
    case PL_WEIGHT_FFN_OUT_BIAS: leaf = gpt2 ? "mlp/c_proj/bias:0" : "output/dense/bias:0"; break;
    case PL_WEIGHT_LN2_WEIGHT: leaf = gpt2 ? "ln_2/gamma:0" : "output/LayerNorm/gamma:0"; break;
    case PL_WEIGHT_LN2_BIAS: leaf = gpt2 ? "ln_2/beta:0" : "output/LayerNorm/beta:0"; break;
    default:
      break;
    }
  g_assert_nonnull (leaf);
  if (layer >= 0)
    path = g_strdup_printf ("%s/%s/%s", fx->prefix, l, leaf);
  else
    path = g_strdup_printf ("%s/%s", fx->prefix, leaf);
  m = pl_test_read_h5 (file, path);
  if (m->rows > 1 && m->cols == 1)
    m->cols = m->rows, m->rows = 1;
  if (gpt2 && part >= 0)
    {
      gsize h = m->cols / 3;
      PlMatrix *third = pl_matrix_new (m->rows, h);

      for (gsize r = 0; r < m->rows; r++)
        memcpy (pl_matrix_row (third, r), pl_matrix_row (m, r) + part * h, h * sizeof (float));
      return third;
    }
  return g_steal_pointer (&m);
}

PlTransformer *
pl_test_raw_transformer (const PlTestFixture *fx)
{
  g_autoptr(GError) error = NULL;
  PlTransformer *t = pl_transformer_new_full (&fx->config, raw_weight, (gpointer) fx, NULL, &error);

  g_assert_no_error (error);
  return t;
}

GArray *
pl_test_reference_ids (const char *file,
                       const char *group,
                       const char *probe)
{
  g_autofree char *dataset = g_strdup_printf ("%s/%s/input_ids", group, probe);
  g_autoptr(PlMatrix) m = pl_test_read_h5 (file, dataset);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int));

  for (gsize i = 0; i < m->cols; i++)
    {
      int id = (int) m->data[i];
      g_array_append_val (ids, id);
    }
  return ids;
}

/* Every row sums to 1, over j ≤ i only for a causal model. */
void
pl_test_check_rows (const PlMatrix *probs,
            guint           t,
            gboolean        causal)
{
  for (gsize r = 0; r < probs->rows; r++)
    {
      const float *row = pl_matrix_row (probs, r);
      gsize i = r % t;
      double sum = 0;

      for (gsize j = 0; j < t; j++)
        {
          g_assert_cmpfloat (row[j], >=, 0);
          if (causal && j > i)
            g_assert_cmpfloat (row[j], ==, 0);
          sum += row[j];
        }
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
    }
}

void
pl_test_transformer_compare (PlTransformer      *t,
                             const char         *file,
                             const char         *group,
                             const char * const *probes,
                             const char         *label)
{
  const PlTransformerConfig *c = pl_transformer_get_config (t);
  double worst_att = 0, worst_hid = 0;

  for (guint p = 0; probes[p] != NULL; p++)
    {
      g_autofree char *att_name = g_strdup_printf ("%s/%s/attentions", group, probes[p]);
      g_autofree char *hid_name = g_strdup_printf ("%s/%s/hidden_states", group, probes[p]);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, group, probes[p]);
      g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (file, att_name);
      g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (file, hid_name);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlForwardResult) result = NULL;
      guint tt = ids->len;

      result = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                       PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                       NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ref_att->rows, ==, (gsize) c->n_layers * c->n_heads * tt);
      g_assert_cmpuint (ref_hid->rows, ==, (gsize) (c->n_layers + 1) * tt);
      g_assert_cmpuint (ref_hid->cols, ==, c->hidden_size);
      for (guint l = 0; l < c->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_att, (gsize) l * c->n_heads * tt,
                                                          (gsize) c->n_heads * tt);
          double diff = pl_test_max_abs_diff (result->attentions[l], ref);

          g_test_message ("%s %s attentions[%u]: max |Δ| %.2g", label, probes[p], l, diff);
          g_assert_cmpfloat (diff, <, ATTENTION_TOL);
          pl_test_check_rows (result->attentions[l], tt, c->causal);
          worst_att = MAX (worst_att, diff);
        }
      for (guint l = 0; l <= c->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_hid, (gsize) l * tt, tt);
          double diff = pl_test_max_abs_diff (result->hidden_states[l], ref);

          g_assert_cmpuint (result->hidden_states[l]->cols, ==, c->hidden_size);
          g_test_message ("%s %s hidden_states[%u]: max |Δ| %.2g", label, probes[p], l, diff);
          g_assert_cmpfloat (diff, <, HIDDEN_TOL);
          worst_hid = MAX (worst_hid, diff);
        }

      {
        /* Keeping the attentions changes nothing: the same hidden states,
         * float for float (the fused attention where the processor has
         * AVX-512, pl-fused-attention.c, the SGEMM blocks elsewhere). */
        g_autoptr(PlForwardResult) plain = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                                                   PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, &error);

        g_assert_no_error (error);
        for (guint l = 0; l <= c->n_layers; l++)
          g_assert_cmpfloat (pl_test_max_abs_diff (plain->hidden_states[l], result->hidden_states[l]), ==, 0);
      }
    }
  g_test_message ("%s worst: attentions %.2g, hidden states %.2g", label, worst_att, worst_hid);
}

void
pl_test_transformer_check_reference (PlTransformer *t,
                                     const char    *name)
{
  static const char * const probes[] = { "text", "random", NULL };
  g_autofree char *file = pl_test_fixture (name, "reference.h5", NULL);

  pl_test_transformer_compare (t, file, "/hf", probes, name);
}

char *
pl_test_rope_reference (const char *name,
                        const char *reference)
{
  g_autofree char *path = pl_test_fixture ("rope", name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlStoredMatrix) q = NULL;

  g_assert_no_error (error);
  q = pl_model_read_stored_weight (model, PL_WEIGHT_Q_WEIGHT, 0, &error);
  g_assert_no_error (error);
  return pl_test_fixture ("rope", reference,
                          pl_stored_gemm_rounds_activations (q) ? "reference-bf16.h5" : "reference.h5", NULL);
}

void
pl_test_print_kernels (void)
{
  g_autoptr(GString) line = g_string_new ("# kernels:");

  for (PlKernel k = 0; k < PL_N_KERNELS; k++)
    g_string_append_printf (line, "%s %s %s", k > 0 ? "," : "", pl_kernel_name (k),
                            pl_kernel_runs_natively (k) ? "native" : "emulated");
  g_print ("%s\n", line->str);
}
