/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-linear.h"
#include "pl-model.h"
#include "pl-transformer.h"
#include "pl-transformer-kernels.h"
#include "pl-test-util.h"
#include "pl-test-transformer.h"
#include "pl-test-writers.h"

static void
test_raw (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);

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
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[1]);
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
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[0]);
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
  g_autoptr(PlTransformer) gpt2 = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(PlTransformer) roberta = pl_test_raw_transformer (&pl_test_fixtures[2]);
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
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[1]);
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

/* The vectorised kernels against libm in double, both instruction sets. */
static void
check_kernels (void)
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

  /* LayerNorm against its definition in double, with BERT's epsilon and a
   * width no block of 8 divides: rows of spread 1 around 0, of spread 0.05
   * around 30 (the variance must come out right under a mean 600 times
   * larger), and of spread 1e-4 around 1e-3. */
  {
    enum { ROWS = 3, COLS = 771 };
    static const double centre[ROWS] = { 0, 30, 1e-3 }, spread[ROWS] = { 1, 0.05, 1e-4 };
    static float in[ROWS * COLS], out[ROWS * COLS], gamma[COLS], beta[COLS];

    for (guint j = 0; j < COLS; j++)
      {
        gamma[j] = 1.0f + 0.5f * (float) sin (0.37 * j);
        beta[j] = 0.1f * (float) cos (0.91 * j);
      }
    for (guint i = 0; i < ROWS * COLS; i++)
      in[i] = (float) (centre[i / COLS] + spread[i / COLS] * (sin (1.3 * i) + (double) (i % COLS) / COLS));
    pl_kernel_layer_norm (in, out, ROWS, COLS, gamma, beta, 1e-12);
    worst = 0;
    for (guint r = 0; r < ROWS; r++)
      {
        double mean = 0, var = 0;

        for (guint j = 0; j < COLS; j++)
          mean += in[r * COLS + j];
        mean /= COLS;
        for (guint j = 0; j < COLS; j++)
          var += (in[r * COLS + j] - mean) * (in[r * COLS + j] - mean);
        var /= COLS;
        for (guint j = 0; j < COLS; j++)
          {
            double want = (in[r * COLS + j] - mean) / sqrt (var + 1e-12) * gamma[j] + beta[j];

            worst = MAX (worst, fabs (out[r * COLS + j] - want));
          }
      }
    g_test_message ("LayerNorm within %.2g of its definition", worst);
    g_assert_cmpfloat (worst, <, 1e-4);
  }

  /* Huge logits do not overflow; the masked tail is zero. */
  pl_kernel_softmax_row (row, 6, 7);
  for (guint j = 0; j < 6; j++)
    sum += row[j];
  g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (row[0], 1 / (1 + exp (-1.0)), 1e-6);
  g_assert_cmpfloat (row[6], ==, 0);
}

static void
test_kernels (void)
{
  check_kernels ();
  pl_kernel_force_generic (TRUE);
  check_kernels ();
  {
    /* and a whole forward pass on the plain loops, tanh and erf GELU */
    g_autoptr(PlTransformer) gpt2 = pl_test_raw_transformer (&pl_test_fixtures[0]);
    g_autoptr(PlTransformer) bert = pl_test_raw_transformer (&pl_test_fixtures[1]);

    pl_test_transformer_check_reference (gpt2, pl_test_fixtures[0].name);
    pl_test_transformer_check_reference (bert, pl_test_fixtures[1].name);
  }
  pl_kernel_force_generic (FALSE);
}

/* The split linear layer against the plain one (one SGEMM) and both
 * against the sum in double, with erf GELU from libm: split by columns
 * (N > T, ragged last block) and by rows (T ≥ N), with and without a
 * residual. */
static void
test_linear (void)
{
  static const struct { gsize t, k, n; gboolean residual; PlActivation activation; } cases[] = {
    { 37, 40, 300, FALSE, PL_ACTIVATION_GELU },
    { 130, 33, 1000, TRUE, PL_ACTIVATION_NONE },
    { 200, 48, 70, TRUE, PL_ACTIVATION_NONE },
    { 300, 21, 96, FALSE, PL_ACTIVATION_GELU },
    { 1, 16, 5, TRUE, PL_ACTIVATION_GELU },
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (24);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize t = cases[i].t, k = cases[i].k, n = cases[i].n;
      g_autoptr(PlMatrix) x = pl_test_random_matrix (rand, t, k, 1.0);
      g_autoptr(PlMatrix) w = pl_test_random_matrix (rand, k, n, 1.0);
      g_autoptr(PlMatrix) b = pl_test_random_matrix (rand, 1, n, 1.0);
      g_autoptr(PlMatrix) res = cases[i].residual ? pl_test_random_matrix (rand, t, n, 1.0) : NULL;
      g_autoptr(PlMatrix) split = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
      double largest = 0, off_plain = 0, off_split = 0;

      g_assert_true (pl_linear (x, w, NULL, b, res, cases[i].activation, split, NULL));
      pl_linear_plain (x, w, b, res, cases[i].activation, plain);
      for (gsize r = 0; r < t; r++)
        for (gsize j = 0; j < n; j++)
          {
            double sum = b->data[j] + (res != NULL ? pl_matrix_row (res, r)[j] : 0);

            for (gsize q = 0; q < k; q++)
              sum += (double) pl_matrix_row (x, r)[q] * pl_matrix_row (w, q)[j];
            if (cases[i].activation == PL_ACTIVATION_GELU)
              sum = 0.5 * sum * (1 + erf (sum / sqrt (2)));
            largest = MAX (largest, fabs (sum));
            off_plain = MAX (off_plain, fabs (pl_matrix_row (plain, r)[j] - sum));
            off_split = MAX (off_split, fabs (pl_matrix_row (split, r)[j] - sum));
          }
      g_assert_cmpfloat (off_plain, <=, 1e-5 * largest);
      g_assert_cmpfloat (off_split, <=, 1e-5 * largest);
      g_assert_cmpfloat (pl_test_max_abs_diff (split, plain), <=, 1e-6 * largest);
    }

  {
    /* the LayerNorm split by rows gives pl_kernel_layer_norm's numbers */
    g_autoptr(PlMatrix) x = pl_test_random_matrix (rand, 150, 24, 1.0);
    g_autoptr(PlMatrix) gamma = pl_test_random_matrix (rand, 1, 24, 1.0);
    g_autoptr(PlMatrix) beta = pl_test_random_matrix (rand, 1, 24, 1.0);
    g_autoptr(PlMatrix) whole = pl_matrix_new (150, 24);

    pl_kernel_layer_norm (x->data, whole->data, 150, 24, gamma->data, beta->data, 1e-5);
    pl_layer_norm_rows (x, x, gamma->data, beta->data, 1e-5);
    g_assert_cmpmem (x->data, 150 * 24 * sizeof (float), whole->data, 150 * 24 * sizeof (float));
  }
}

/* The same references through PlModel: the checkpoint reader, config.json
 * and the tokenizer's special ids, as the app and the CLI use them. */
static void
test_model (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autofree char *dir = pl_test_demo (fx->name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GArray) ids = NULL;
  const PlTransformerConfig *c;

  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  c = pl_transformer_get_config (t);
  g_assert_cmpuint (c->n_heads, ==, fx->config.n_heads);
  g_assert_cmpfloat (c->layer_norm_eps, ==, fx->config.layer_norm_eps);
  g_assert_cmpint (c->activation, ==, fx->config.activation);
  g_assert_cmpuint (c->first_position, ==, fx->config.first_position);
  g_assert_cmpint (c->causal, ==, fx->config.causal);
  pl_test_transformer_check_reference (t, fx->name);

  /* Random inputs as the references were made: bytes (ids 4 … 259), with
   * [CLS]/<s> first and [SEP]/</s> last for the masked-LM models. */
  ids = pl_transformer_random_ids (t, 200, 5);
  for (guint i = 0; i < ids->len; i++)
    {
      int id = g_array_index (ids, int, i);

      if (!c->causal && i == 0)
        g_assert_cmpint (id, ==, fx->config.bos_id);
      else if (!c->causal && i + 1 == ids->len)
        g_assert_cmpint (id, ==, fx->config.eos_id);
      else
        g_assert_cmpint (id, >=, 4);
    }
}

/* Families without a forward pass are refused by name. */
static void
test_unsupported (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:sinusoidal:64x32", NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_null (pl_transformer_new (model, NULL, &error));
  g_assert_nonnull (error);
}

/* A BERT configured with relative position embeddings (distances added
 * inside attention) is refused, naming its config.json; its table still
 * opens for the table analyses. */
static void
test_relative_positions_refused (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *weights = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autofree char *config_path = pl_test_demo ("mini-bert", "config.json", NULL);
  g_autofree char *copy = g_build_filename (dir, "tf_model.h5", NULL);
  g_autofree char *copy_config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *config = NULL;
  g_autofree char *data = NULL;
  g_autofree char *edited = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(GError) error = NULL;
  gsize size;

  g_file_get_contents (weights, &data, &size, &error);
  g_assert_no_error (error);
  g_file_set_contents (copy, data, size, &error);
  g_assert_no_error (error);
  g_file_get_contents (config_path, &config, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strchr (config, '{'));
  edited = g_strdup_printf ("{\"position_embedding_type\": \"relative_key\", %s", strchr (config, '{') + 1);
  g_file_set_contents (copy_config, edited, -1, &error);
  g_assert_no_error (error);

  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_null (pl_transformer_new (model, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "config.json"));
  g_assert_nonnull (strstr (error->message, "relative_key"));
  pl_test_rmtree (dir);
}

/* poslens-cli forward writes Hugging Face's layout, streamed layer by layer,
 * within the same tolerances. */
static void
test_cli_forward (void)
{
  g_autofree char *dir = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *ref = pl_test_fixture ("mini-roberta", "reference.h5", NULL);
  g_autofree char *ids_from = g_strdup_printf ("%s:/hf/random/input_ids", ref);
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (tmp, "forward.h5", NULL);
  g_autofree char *bad = g_build_filename (tmp, "forward.txt", NULL);
  const char *args[] = { "forward", dir, "--ids-from", ids_from, "--out", out, NULL };
  const char *usage1[] = { "forward", dir, "--random", "8", "--ids", "1,2", "--out", out, NULL };
  const char *usage2[] = { "forward", dir, "--random", "8", "--out", bad, NULL };
  const char *input1[] = { "forward", dir, "--ids", "0,300,2", "--out", out, NULL };
  const char *input2[] = { "forward", dir, "--ids-from", "/nonexistent.h5:/ids", "--out", out, NULL };
  const char *random[] = { "forward", dir, "--random", "20", "--seed", "4", "--period", "5",
                           "--no-attentions", "--out", out, NULL };

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set (run through meson test)");
      return;
    }
  g_assert_cmpint (pl_test_run_cli (args), ==, 0);
  {
    g_autoptr(PlMatrix) att = pl_test_read_h5 (out, "/attentions");
    g_autoptr(PlMatrix) hid = pl_test_read_h5 (out, "/hidden_states");
    g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (ref, "/hf/random/attentions");
    g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (ref, "/hf/random/hidden_states");

    g_assert_cmpfloat (pl_test_max_abs_diff (att, ref_att), <, 1e-4);
    g_assert_cmpfloat (pl_test_max_abs_diff (hid, ref_hid), <, 1e-3);
  }
  g_assert_cmpint (pl_test_run_cli (random), ==, 0);
  {
    g_autoptr(PlMatrix) ids = pl_test_read_h5 (out, "/input_ids");
    g_autoptr(PlMatrix) hid = pl_test_read_h5 (out, "/hidden_states");

    g_assert_cmpuint (ids->cols, ==, 20);
    g_assert_cmpfloat (ids->data[0], ==, 0);     /* <s> */
    g_assert_cmpfloat (ids->data[19], ==, 2);    /* </s> */
    for (guint i = 6; i < 19; i++)
      g_assert_cmpfloat (ids->data[i], ==, ids->data[i - 5]);
    g_assert_cmpuint (hid->rows, ==, 5 * 20);
  }
  g_assert_cmpint (pl_test_run_cli (usage1), ==, 1);
  g_assert_cmpint (pl_test_run_cli (usage2), ==, 1);
  g_assert_cmpint (pl_test_run_cli (input1), ==, 2);
  g_assert_cmpint (pl_test_run_cli (input2), ==, 2);
  pl_test_rmtree (tmp);
}

/* RoBERTa numbers positions over non-padding tokens from pad + 1 and gives
 * padding the padding row (Hugging Face's create_position_ids_from_input_ids):
 * ids <s> a <pad> b </s> use rows 2 3 1 4 5. Checked on the embedding output,
 * LayerNorm(word + position + type 0) recomputed here in double. */
static void
test_roberta_padding_positions (void)
{
  const PlTestFixture *fx = &pl_test_fixtures[2];
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autofree char *prefix = g_strdup (fx->prefix);
  g_autofree char *word_path = g_strdup_printf ("%s/embeddings/word_embeddings/weight:0", prefix);
  g_autofree char *pos_path = g_strdup_printf ("%s/embeddings/position_embeddings/embeddings:0", prefix);
  g_autofree char *type_path = g_strdup_printf ("%s/embeddings/token_type_embeddings/embeddings:0", prefix);
  g_autofree char *gamma_path = g_strdup_printf ("%s/embeddings/LayerNorm/gamma:0", prefix);
  g_autofree char *beta_path = g_strdup_printf ("%s/embeddings/LayerNorm/beta:0", prefix);
  g_autoptr(PlMatrix) word = pl_test_read_h5 (file, word_path);
  g_autoptr(PlMatrix) pos = pl_test_read_h5 (file, pos_path);
  g_autoptr(PlMatrix) type = pl_test_read_h5 (file, type_path);
  g_autoptr(PlMatrix) gamma = pl_test_read_h5 (file, gamma_path);
  g_autoptr(PlMatrix) beta = pl_test_read_h5 (file, beta_path);
  const int ids[] = { 0, 10, 1, 11, 2 };
  const int rows[] = { 2, 3, 1, 4, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlForwardResult) r = pl_transformer_forward (t, ids, 5, PL_FORWARD_HIDDEN_STATES,
                                                         NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < 5; i++)
    {
      double x[256], mean = 0, var = 0;

      for (guint j = 0; j < 256; j++)
        {
          x[j] = (double) pl_matrix_get (word, ids[i], j) + pl_matrix_get (pos, rows[i], j) + type->data[j];
          mean += x[j] / 256;
        }
      for (guint j = 0; j < 256; j++)
        var += (x[j] - mean) * (x[j] - mean) / 256;
      for (guint j = 0; j < 256; j++)
        {
          double expect = (x[j] - mean) / sqrt (var + 1e-12) * gamma->data[j] + beta->data[j];
          g_assert_cmpfloat (fabs (pl_matrix_get (r->hidden_states[0], i, j) - expect), <, 1e-5);
        }
    }
}

/* Other families through PlModel, from the fixtures' own weights renamed to
 * another family's PyTorch layout (linear weights [out, in]) in a
 * safetensors file: the outputs must still match Hugging Face's references
 * of the fixture. */
typedef struct
{
  GPtrArray *names;
  GPtrArray *matrices;
  GArray    *tensors;
} Renamed;

static void
renamed_add (Renamed    *r,
             char       *name,
             PlMatrix   *m,
             gboolean    linear)
{
  PlTestTensor t = { NULL, "F32", 2, { m->rows, m->cols }, NULL };

  if (linear)
    {
      PlMatrix *tr = pl_matrix_new (m->cols, m->rows);

      for (gsize i = 0; i < m->rows; i++)
        for (gsize j = 0; j < m->cols; j++)
          tr->data[j * m->rows + i] = m->data[i * m->cols + j];
      pl_matrix_unref (m);
      m = tr;
      t.shape[0] = m->rows;
      t.shape[1] = m->cols;
    }
  else if (m->rows == 1 || m->cols == 1)
    {
      t.rank = 1;
      t.shape[0] = m->rows * m->cols;
      t.shape[1] = 0;
    }
  g_ptr_array_add (r->names, name);
  g_ptr_array_add (r->matrices, m);
  t.name = name;
  t.data = m->data;
  g_array_append_val (r->tensors, t);
}

static PlMatrix *
fixture_tensor (const PlTestFixture *fx,
                const char          *leaf)
{
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autofree char *path = g_strdup_printf ("%s/%s", fx->prefix, leaf);

  return pl_test_read_h5 (file, path);
}

/* Writes FX's weights as PREFIX.embeddings… / PREFIX.encoder.layer.N… (BERT's
 * names), or DistilBERT's names when DISTIL, with CONFIG, into a new folder. */
static char *
write_renamed (const PlTestFixture *fx,
               const char          *prefix,
               gboolean             distil,
               const char          *config)
{
  static const struct { const char *tf; const char *bert; const char *distil; gboolean linear; } map[] = {
    { "attention/self/query/kernel:0", "attention.self.query.weight", "attention.q_lin.weight", TRUE },
    { "attention/self/query/bias:0", "attention.self.query.bias", "attention.q_lin.bias", FALSE },
    { "attention/self/key/kernel:0", "attention.self.key.weight", "attention.k_lin.weight", TRUE },
    { "attention/self/key/bias:0", "attention.self.key.bias", "attention.k_lin.bias", FALSE },
    { "attention/self/value/kernel:0", "attention.self.value.weight", "attention.v_lin.weight", TRUE },
    { "attention/self/value/bias:0", "attention.self.value.bias", "attention.v_lin.bias", FALSE },
    { "attention/output/dense/kernel:0", "attention.output.dense.weight", "attention.out_lin.weight", TRUE },
    { "attention/output/dense/bias:0", "attention.output.dense.bias", "attention.out_lin.bias", FALSE },
    { "attention/output/LayerNorm/gamma:0", "attention.output.LayerNorm.weight", "sa_layer_norm.weight", FALSE },
    { "attention/output/LayerNorm/beta:0", "attention.output.LayerNorm.bias", "sa_layer_norm.bias", FALSE },
    { "intermediate/dense/kernel:0", "intermediate.dense.weight", "ffn.lin1.weight", TRUE },
    { "intermediate/dense/bias:0", "intermediate.dense.bias", "ffn.lin1.bias", FALSE },
    { "output/dense/kernel:0", "output.dense.weight", "ffn.lin2.weight", TRUE },
    { "output/dense/bias:0", "output.dense.bias", "ffn.lin2.bias", FALSE },
    { "output/LayerNorm/gamma:0", "output.LayerNorm.weight", "output_layer_norm.weight", FALSE },
    { "output/LayerNorm/beta:0", "output.LayerNorm.bias", "output_layer_norm.bias", FALSE },
  };
  char *dir = pl_test_tmpdir ();
  g_autofree char *st = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  Renamed r = {
    g_ptr_array_new_with_free_func (g_free),
    g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref),
    g_array_new (FALSE, TRUE, sizeof (PlTestTensor)),
  };
  PlMatrix *pos = fixture_tensor (fx, "embeddings/position_embeddings/embeddings:0");
  g_autoptr(PlMatrix) type = fixture_tensor (fx, "embeddings/token_type_embeddings/embeddings:0");

  if (distil)
    {
      /* DistilBERT has no token types: fold type 0 into the positions */
      for (gsize i = 0; i < pos->rows; i++)
        for (gsize j = 0; j < pos->cols; j++)
          pl_matrix_row (pos, i)[j] += type->data[j];
    }
  else
    renamed_add (&r, g_strdup_printf ("%s.embeddings.token_type_embeddings.weight", prefix),
                 pl_matrix_ref (type), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.word_embeddings.weight", prefix),
               fixture_tensor (fx, "embeddings/word_embeddings/weight:0"), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.position_embeddings.weight", prefix), pos, FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.LayerNorm.weight", prefix),
               fixture_tensor (fx, "embeddings/LayerNorm/gamma:0"), FALSE);
  renamed_add (&r, g_strdup_printf ("%s.embeddings.LayerNorm.bias", prefix),
               fixture_tensor (fx, "embeddings/LayerNorm/beta:0"), FALSE);
  for (guint l = 0; l < fx->config.n_layers; l++)
    for (guint i = 0; i < G_N_ELEMENTS (map); i++)
      {
        g_autofree char *leaf = g_strdup_printf ("encoder/layer_._%u/%s", l, map[i].tf);

        renamed_add (&r, distil ? g_strdup_printf ("%s.transformer.layer.%u.%s", prefix, l, map[i].distil)
                                : g_strdup_printf ("%s.encoder.layer.%u.%s", prefix, l, map[i].bert),
                     fixture_tensor (fx, leaf), map[i].linear);
      }
  pl_test_write_safetensors (st, (PlTestTensor *) r.tensors->data, r.tensors->len);
  pl_test_write_text (config_path, config);
  g_array_unref (r.tensors);
  g_ptr_array_unref (r.matrices);
  g_ptr_array_unref (r.names);
  return dir;
}

typedef struct
{
  const char *path;
  guint       fixture;
  const char *prefix;
  gboolean    distil;
  PlFamily    family;
  const char *config;
} RenamedCase;

static const RenamedCase renamed_cases[] = {
  { "/pl/transformer/model/distilbert", 1, "distilbert", TRUE, PL_FAMILY_DISTILBERT,
    "{\"model_type\": \"distilbert\", \"dim\": 256, \"n_layers\": 4, \"n_heads\": 4, \"hidden_dim\": 1024, "
    "\"activation\": \"gelu\", \"vocab_size\": 260, \"max_position_embeddings\": 512, \"pad_token_id\": 0}" },
  { "/pl/transformer/model/electra", 1, "electra", FALSE, PL_FAMILY_ELECTRA,
    "{\"model_type\": \"electra\", \"hidden_size\": 256, \"embedding_size\": 256, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 4, \"intermediate_size\": 1024, \"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-12, "
    "\"vocab_size\": 260, \"max_position_embeddings\": 512, \"type_vocab_size\": 2, \"pad_token_id\": 0}" },
  { "/pl/transformer/model/xlm-roberta", 2, "roberta", FALSE, PL_FAMILY_XLM_ROBERTA,
    "{\"model_type\": \"xlm-roberta\", \"hidden_size\": 256, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 4, \"intermediate_size\": 1024, \"hidden_act\": \"gelu\", \"layer_norm_eps\": 1e-12, "
    "\"vocab_size\": 260, \"max_position_embeddings\": 514, \"type_vocab_size\": 1, \"pad_token_id\": 1, "
    "\"bos_token_id\": 0, \"eos_token_id\": 2}" },
};

static void
test_renamed (gconstpointer data)
{
  const RenamedCase *rc = data;
  const PlTestFixture *fx = &pl_test_fixtures[rc->fixture];
  g_autofree char *dir = write_renamed (fx, rc->prefix, rc->distil, rc->config);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, rc->family);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_transformer_get_config (t)->first_position, ==, fx->config.first_position);
  if (rc->distil)
    g_assert_null (pl_transformer_get_token_type (t));
  pl_test_transformer_check_reference (t, fx->name);
  pl_test_rmtree (dir);
}

typedef struct
{
  PlTransformer   *transformer;
  GArray          *ids;
  PlForwardResult *result;
} ThreadRun;

static gpointer
run_in_thread (gpointer data)
{
  ThreadRun *run = data;

  run->result = pl_transformer_forward (run->transformer, (int *) run->ids->data, run->ids->len,
                                        PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                        NULL, NULL, NULL, NULL);
  return NULL;
}

/* Two workers sharing one transformer (as the app's pages do) get what a
 * lone run gets. */
static void
test_threads (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(GArray) a = pl_transformer_random_ids (t, 96, 1);
  g_autoptr(GArray) b = pl_transformer_random_ids (t, 80, 2);
  ThreadRun runs[2] = { { t, a, NULL }, { t, b, NULL } };
  GThread *threads[2];

  for (guint i = 0; i < 2; i++)
    threads[i] = g_thread_new ("forward", run_in_thread, &runs[i]);
  for (guint i = 0; i < 2; i++)
    g_thread_join (threads[i]);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PlForwardResult) alone = NULL;

      g_assert_nonnull (runs[i].result);
      alone = pl_transformer_forward (t, (int *) runs[i].ids->data, runs[i].ids->len,
                                      PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                      NULL, NULL, NULL, NULL);
      for (guint l = 0; l < 4; l++)
        g_assert_cmpfloat (pl_test_max_abs_diff (alone->attentions[l], runs[i].result->attentions[l]), <, 1e-6);
      for (guint l = 0; l <= 4; l++)
        g_assert_cmpfloat (pl_test_max_abs_diff (alone->hidden_states[l], runs[i].result->hidden_states[l]), <, 1e-5);
      pl_forward_result_free (runs[i].result);
    }
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < PL_TEST_N_FIXTURES; i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/transformer/raw-weights/%s", pl_test_fixtures[i].name);
      g_test_add_data_func (path, &pl_test_fixtures[i], test_raw);
    }
  for (guint i = 0; i < PL_TEST_N_FIXTURES; i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/transformer/model/%s", pl_test_fixtures[i].name);
      g_test_add_data_func (path, &pl_test_fixtures[i], test_model);
    }
  for (guint i = 0; i < G_N_ELEMENTS (renamed_cases); i++)
    g_test_add_data_func (renamed_cases[i].path, &renamed_cases[i], test_renamed);
  g_test_add_func ("/pl/transformer/unsupported", test_unsupported);
  g_test_add_func ("/pl/transformer/cli/forward", test_cli_forward);
  g_test_add_func ("/pl/transformer/roberta-padding-positions", test_roberta_padding_positions);
  g_test_add_func ("/pl/transformer/threads", test_threads);
  g_test_add_func ("/pl/transformer/cancel", test_cancel);
  g_test_add_func ("/pl/transformer/progress-and-stop", test_progress_and_stop);
  g_test_add_func ("/pl/transformer/inputs", test_inputs);
  g_test_add_func ("/pl/transformer/relative-positions-refused", test_relative_positions_refused);
  g_test_add_func ("/pl/transformer/bad-inputs", test_bad_inputs);
  g_test_add_func ("/pl/transformer/kernels", test_kernels);
  g_test_add_func ("/pl/transformer/linear", test_linear);

  return g_test_run ();
}
