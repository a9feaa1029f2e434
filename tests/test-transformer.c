/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-transformer.h"
#include "pl-transformer-kernels.h"
#include "pl-test-util.h"

/* Hugging Face's fp32 forward pass, from the fixtures' reference.h5. An
 * independent numpy pass lands within 1e-5 / 2e-5. */
#define ATTENTION_TOL 1e-4
#define HIDDEN_TOL    1e-3

typedef struct
{
  const char          *name;      /* fixture folder */
  const char          *prefix;    /* tf_model.h5 path up to the model */
  PlTransformerConfig  config;    /* from the fixture's config.json */
} Fixture;

static const Fixture fixtures[] = {
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
  const Fixture *fx = user_data;
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

static PlTransformer *
raw_transformer (const Fixture *fx)
{
  g_autoptr(GError) error = NULL;
  PlTransformer *t = pl_transformer_new_full (&fx->config, raw_weight, (gpointer) fx, &error);

  g_assert_no_error (error);
  return t;
}

static GArray *
reference_ids (const char *file,
               const char *probe)
{
  g_autofree char *dataset = g_strdup_printf ("/hf/%s/input_ids", probe);
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
static void
check_rows (const PlMatrix *probs,
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

void pl_test_transformer_check_reference (PlTransformer *t, const char *name);

/* Runs both probes of NAME's reference.h5 through T and compares. */
void
pl_test_transformer_check_reference (PlTransformer *t,
                                     const char    *name)
{
  static const char *probes[] = { "text", "random" };
  g_autofree char *file = pl_test_fixture (name, "reference.h5", NULL);
  const PlTransformerConfig *c = pl_transformer_get_config (t);

  for (guint p = 0; p < G_N_ELEMENTS (probes); p++)
    {
      g_autofree char *att_name = g_strdup_printf ("/hf/%s/attentions", probes[p]);
      g_autofree char *hid_name = g_strdup_printf ("/hf/%s/hidden_states", probes[p]);
      g_autoptr(GArray) ids = reference_ids (file, probes[p]);
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
      for (guint l = 0; l < c->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_att, (gsize) l * c->n_heads * tt,
                                                          (gsize) c->n_heads * tt);
          double diff = pl_test_max_abs_diff (result->attentions[l], ref);

          g_test_message ("%s %s attentions[%u]: max |Δ| %.2g", name, probes[p], l, diff);
          g_assert_cmpfloat (diff, <, ATTENTION_TOL);
          check_rows (result->attentions[l], tt, c->causal);
        }
      for (guint l = 0; l <= c->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_hid, (gsize) l * tt, tt);
          double diff = pl_test_max_abs_diff (result->hidden_states[l], ref);

          g_test_message ("%s %s hidden_states[%u]: max |Δ| %.2g", name, probes[p], l, diff);
          g_assert_cmpfloat (diff, <, HIDDEN_TOL);
        }
    }
}

static void
test_raw (gconstpointer data)
{
  const Fixture *fx = data;
  g_autoptr(PlTransformer) t = raw_transformer (fx);

  pl_test_transformer_check_reference (t, fx->name);
}

typedef struct
{
  GCancellable *cancellable;
  guint         calls;
  PlMatrix     *kept;
} CancelState;

static void
cancel_on_progress (double   fraction,
                    gpointer user_data)
{
  CancelState *state = user_data;

  state->calls++;
  g_assert_cmpfloat (fraction, >, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  g_cancellable_cancel (state->cancellable);
}

static gboolean
keep_first_attention (guint     k,
                      PlMatrix *attention,
                      PlMatrix *hidden,
                      gpointer  user_data)
{
  CancelState *state = user_data;

  if (k == 1)
    state->kept = pl_matrix_ref (attention);
  return TRUE;
}

/* Cancelling from the progress callback stops after that layer with
 * G_IO_ERROR_CANCELLED, and the run holds no reference to what it gave. */
static void
test_cancel (void)
{
  g_autoptr(PlTransformer) t = raw_transformer (&fixtures[1]);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GArray) ids = pl_transformer_random_ids (t, 64, 3);
  g_autoptr(GError) error = NULL;
  CancelState state = { cancellable, 0, NULL };
  gboolean ok;

  ok = pl_transformer_run (t, (int *) ids->data, ids->len, TRUE, keep_first_attention, &state,
                           cancellable, cancel_on_progress, &state, &error);
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (state.calls, ==, 1);
  g_assert_nonnull (state.kept);
  g_assert_cmpint (state.kept->ref_count, ==, 1);
  pl_matrix_unref (state.kept);
  g_clear_error (&error);

  /* The convenience wrapper frees what it had collected. */
  g_assert_null (pl_transformer_forward (t, (int *) ids->data, ids->len, PL_FORWARD_ATTENTIONS,
                                         cancellable, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Progress is reported once per layer, ending at 1, and stopping early from
 * the layer callback is not an error. */
static gboolean
stop_after_two (guint     k,
                PlMatrix *attention,
                PlMatrix *hidden,
                gpointer  user_data)
{
  guint *seen = user_data;

  *seen = k;
  return k < 2;
}

static void
count_progress (double   fraction,
                gpointer user_data)
{
  double *last = user_data;

  g_assert_cmpfloat (fraction, >, *last);
  *last = fraction;
}

static void
test_progress_and_stop (void)
{
  g_autoptr(PlTransformer) t = raw_transformer (&fixtures[0]);
  g_autoptr(GArray) ids = pl_transformer_random_ids (t, 32, 5);
  g_autoptr(PlForwardResult) result = NULL;
  g_autoptr(GError) error = NULL;
  double last = 0;
  guint seen = 0;

  result = pl_transformer_forward (t, (int *) ids->data, ids->len, PL_FORWARD_HIDDEN_STATES,
                                   NULL, count_progress, &last, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (last, ==, 1.0);
  g_assert_null (result->attentions);
  for (guint k = 0; k <= 4; k++)
    g_assert_cmpuint (result->hidden_states[k]->rows, ==, 32);

  g_assert_true (pl_transformer_run (t, (int *) ids->data, ids->len, FALSE, stop_after_two, &seen,
                                     NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seen, ==, 2);
}

static void
test_inputs (void)
{
  g_autoptr(PlTransformer) gpt2 = raw_transformer (&fixtures[0]);
  g_autoptr(PlTransformer) roberta = raw_transformer (&fixtures[2]);
  g_autoptr(GArray) a = pl_transformer_random_ids (roberta, 100, 42);
  g_autoptr(GArray) b = pl_transformer_random_ids (roberta, 100, 42);
  g_autoptr(GArray) c = pl_transformer_random_ids (roberta, 100, 43);
  g_autoptr(GArray) g = pl_transformer_random_ids (gpt2, 50, 1);
  g_autoptr(GArray) rep = pl_transformer_repeated_ids (roberta, 21, 6, 9);
  g_autoptr(GArray) wrapped = NULL;
  int raw[] = { 10, 11, 12 };
  int *v;
  gboolean differ = FALSE;

  g_assert_cmpuint (a->len, ==, 100);
  g_assert_cmpmem (a->data, 100 * sizeof (int), b->data, 100 * sizeof (int));
  for (guint i = 0; i < 100; i++)
    differ |= g_array_index (a, int, i) != g_array_index (c, int, i);
  g_assert_true (differ);
  /* RoBERTa: <s> … </s>, no special token inside */
  g_assert_cmpint (g_array_index (a, int, 0), ==, 0);
  g_assert_cmpint (g_array_index (a, int, 99), ==, 2);
  for (guint i = 1; i < 99; i++)
    {
      g_assert_cmpint (g_array_index (a, int, i), >, 2);
      g_assert_cmpint (g_array_index (a, int, i), <, 260);
    }
  /* GPT-2: not wrapped, no end-of-text id */
  for (guint i = 0; i < g->len; i++)
    {
      g_assert_cmpint (g_array_index (g, int, i), !=, 2);
      g_assert_true (pl_transformer_is_regular_id (gpt2, g_array_index (g, int, i)));
    }
  /* a period of 6 between the wrappers */
  v = (int *) rep->data;
  g_assert_cmpint (v[0], ==, 0);
  g_assert_cmpint (v[20], ==, 2);
  for (guint i = 7; i < 20; i++)
    g_assert_cmpint (v[i], ==, v[i - 6]);

  wrapped = pl_transformer_wrap_ids (roberta, raw, 3);
  g_assert_cmpuint (wrapped->len, ==, 5);
  v = (int *) wrapped->data;
  g_assert_cmpint (v[0], ==, 0);
  g_assert_cmpint (v[1], ==, 10);
  g_assert_cmpint (v[4], ==, 2);
  g_array_unref (g_steal_pointer (&wrapped));
  wrapped = pl_transformer_wrap_ids (gpt2, raw, 3);
  g_assert_cmpuint (wrapped->len, ==, 3);
}

static void
test_bad_inputs (void)
{
  g_autoptr(PlTransformer) t = raw_transformer (&fixtures[1]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) long_ids = pl_transformer_random_ids (t, 513, 1);
  int bad[] = { 1, 260, 2 };

  g_assert_false (pl_transformer_run (t, bad, 3, FALSE, NULL, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (pl_transformer_run (t, (int *) long_ids->data, long_ids->len, FALSE,
                                      NULL, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

/* The vectorised kernels against libm in double. */
static void
test_kernels (void)
{
  float x[2001], y[2001], row[7] = { 1000, 999, -5, 0, 3, 1e-3f, -1e30f };
  double worst = 0, sum = 0;

  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = y[i] = -87.0f + i * (87.0f + 10.0f) / 2000;
  pl_kernel_exp (y, G_N_ELEMENTS (y));
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    worst = MAX (worst, fabs (y[i] - exp ((double) x[i])) / exp ((double) x[i]));
  g_assert_cmpfloat (worst, <, 5e-7);

  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = y[i] = -10.0f + i * 20.0f / 2000;
  pl_kernel_activate (y, G_N_ELEMENTS (y), PL_ACTIVATION_GELU);
  worst = 0;
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    worst = MAX (worst, fabs (y[i] - 0.5 * x[i] * (1 + erf (x[i] / sqrt (2)))));
  g_assert_cmpfloat (worst, <, 2e-6);
  memcpy (y, x, sizeof x);
  pl_kernel_activate (y, G_N_ELEMENTS (y), PL_ACTIVATION_GELU_TANH);
  worst = 0;
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    {
      double u = x[i];
      worst = MAX (worst, fabs (y[i] - 0.5 * u * (1 + tanh (sqrt (2 / G_PI) * (u + 0.044715 * u * u * u)))));
    }
  g_assert_cmpfloat (worst, <, 2e-6);

  /* Huge logits do not overflow; the masked tail is zero. */
  pl_kernel_softmax_row (row, 6, 7);
  for (guint j = 0; j < 6; j++)
    sum += row[j];
  g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (row[0], 1 / (1 + exp (-1.0)), 1e-6);
  g_assert_cmpfloat (row[6], ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/transformer/raw-weights/%s", fixtures[i].name);
      g_test_add_data_func (path, &fixtures[i], test_raw);
    }
  g_test_add_func ("/pl/transformer/cancel", test_cancel);
  g_test_add_func ("/pl/transformer/progress-and-stop", test_progress_and_stop);
  g_test_add_func ("/pl/transformer/inputs", test_inputs);
  g_test_add_func ("/pl/transformer/bad-inputs", test_bad_inputs);
  g_test_add_func ("/pl/transformer/kernels", test_kernels);

  return g_test_run ();
}
