/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* Averages of attentions that match Hugging Face's within 1e-4. The mean
 * distance weighs each probability by up to T − 1 = 127 positions. */
#define PROFILE_TOL  1e-4
#define DISTANCE_TOL 2e-3

/* Offset profile, mean distance and first-token mass of both reference probes,
 * computed here in double from Hugging Face's attentions, against Poslens'
 * own forward pass on the same ids. */
static void
test_against_reference (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);
  g_autofree char *file = pl_test_fixture (fx->name, "reference.h5", NULL);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(PlMatrix) text = pl_test_read_h5 (file, "/hf/text/attentions");
  g_autoptr(PlMatrix) rnd = pl_test_read_h5 (file, "/hf/random/attentions");
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(GError) error = NULL;
  guint nl = fx->config.n_layers, nh = fx->config.n_heads, tt;
  gsize width;

  g_ptr_array_add (sequences, pl_test_reference_ids (file, "/hf", "text"));
  g_ptr_array_add (sequences, pl_test_reference_ids (file, "/hf", "random"));
  tt = ((GArray *) sequences->pdata[0])->len;
  width = 2 * tt - 1;

  stats = pl_attention_stats_compute_for_ids (t, sequences, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats->n_tokens, ==, tt);
  g_assert_cmpuint (stats->offset_profile->rows, ==, nl * nh);
  g_assert_cmpuint (stats->offset_profile->cols, ==, width);

  for (guint row = 0; row < nl * nh; row++)
    {
      g_autofree double *profile = g_new0 (double, width);
      double distance = 0, first = 0, sum = 0;

      for (guint s = 0; s < 2; s++)
        {
          const PlMatrix *ref = s == 0 ? text : rnd;

          for (guint i = 0; i < tt; i++)
            {
              const float *a = pl_matrix_row (ref, (gsize) row * tt + i);

              for (guint j = 0; j < tt; j++)
                {
                  profile[(int) j - (int) i + (int) tt - 1] += a[j] / (2.0 * tt);
                  distance += a[j] * fabs ((double) j - i) / (2.0 * tt);
                }
              first += a[0] / (2.0 * tt);
            }
        }
      for (gsize o = 0; o < width; o++)
        {
          double got = pl_matrix_get (stats->offset_profile, row, o);

          g_assert_cmpfloat (fabs (got - profile[o]), <, PROFILE_TOL);
          sum += got;
          /* a causal model never looks ahead */
          if (fx->config.causal && o > tt - 1)
            g_assert_cmpfloat (got, ==, 0);
        }
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
      g_assert_cmpfloat (fabs (stats->mean_distance->data[row] - distance), <, DISTANCE_TOL);
      g_assert_cmpfloat (fabs (stats->first_token->data[row] - first), <, PROFILE_TOL);
    }
}

/* Random inputs: every profile sums to 1, the same seed gives the same
 * numbers, and one profile can be read alone. */
static void
test_random_profiles (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[2]);
  g_autoptr(PlAttentionStats) a = NULL;
  g_autoptr(PlAttentionStats) b = NULL;
  g_autoptr(PlMatrix) one = NULL;
  g_autoptr(GError) error = NULL;

  a = pl_attention_stats_compute (t, 3, 48, 11, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  b = pl_attention_stats_compute (t, 3, 48, 11, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->n_sequences, ==, 3);
  g_assert_cmpfloat (pl_test_max_abs_diff (a->offset_profile, b->offset_profile), ==, 0);
  for (gsize r = 0; r < a->offset_profile->rows; r++)
    {
      double sum = 0;

      for (gsize o = 0; o < a->offset_profile->cols; o++)
        sum += pl_matrix_get (a->offset_profile, r, o);
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
      g_assert_cmpfloat (a->mean_distance->data[r], >=, 0);
      g_assert_cmpfloat (a->mean_distance->data[r], <=, 47);
    }
  one = pl_attention_stats_get_profile (a, 2, 3);
  g_assert_cmpuint (one->cols, ==, 95);
  g_assert_cmpmem (one->data, 95 * sizeof (float), pl_matrix_row (a->offset_profile, 2 * 4 + 3), 95 * sizeof (float));

  g_assert_null (pl_attention_stats_compute (t, 0, 48, 11, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (pl_attention_stats_compute (t, 1, 600, 11, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

/* The statistics of the first layers alone (what a view shows of a large
 * model first) are the whole computation's first layers, number for
 * number, and stop there: a pass's layer 2 is never run (a cancelled run
 * past it would fail). */
static void
stop_past (double   fraction,
           gpointer user_data)
{
  /* 4 layers a pass: past its first two means further than asked */
  if (fmod (fraction * 3, 1.0) > 0.5 + 1e-9)
    g_cancellable_cancel (user_data);
}

static void
test_first_layers (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[2]);
  g_autoptr(PlAttentionStats) all = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (pl_transformer_get_config (t)->n_layers, ==, 4);
  all = pl_attention_stats_compute (t, 3, 40, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint n = 1; n <= 4; n++)
    {
      g_autoptr(PlAttentionStats) first = pl_attention_stats_compute_first (t, n, 3, 40, 7, n == 2 ? cancellable : NULL,
                                                                            n == 2 ? stop_past : NULL, cancellable,
                                                                            &error);
      gsize rows = (gsize) n * all->n_heads;

      g_assert_no_error (error);
      g_assert_cmpuint (first->n_layers, ==, n);
      g_assert_cmpuint (first->offset_profile->rows, ==, rows);
      g_assert_cmpmem (first->offset_profile->data, rows * first->offset_profile->cols * sizeof (float),
                       all->offset_profile->data, rows * all->offset_profile->cols * sizeof (float));
      g_assert_cmpmem (first->mean_distance->data, rows * sizeof (float), all->mean_distance->data, rows * sizeof (float));
      g_assert_cmpmem (first->first_token->data, rows * sizeof (float), all->first_token->data, rows * sizeof (float));
    }
}

static void
cancel_half_way (double   fraction,
                 gpointer user_data)
{
  if (fraction >= 0.5)
    g_cancellable_cancel (user_data);
}

static void
test_cancel (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_assert_null (pl_attention_stats_compute (t, 4, 32, 1, cancellable, cancel_half_way, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_cancellable_reset (cancellable);
  g_assert_null (pl_attention_positional_components (t, 4, 4, 32, 1, cancellable, cancel_half_way,
                                                     cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* A tiny model where the position-only term has a closed form: hidden 4,
 * positions [a, b, a, b] normalise to ±[1, −1, 1, −1] (sign of a − b), so
 * with Wq = I and Wk = diag (1, 1, −1, −1) head 0 scores ±2/√2 and head 1
 * the opposite. */
static const float tiny_positions[3][4] = {
  { 1, 0, 1, 0 },
  { 0, 1, 0, 1 },
  { 2, -1, 2, -1 },
};

static PlMatrix *
tiny_weight (PlWeight   weight,
             int        layer,
             gpointer   user_data,
             GError   **error)
{
  PlMatrix *m;

  switch (weight)
    {
    case PL_WEIGHT_POSITION_EMBEDDING:
      return pl_matrix_new_from (3, 4, &tiny_positions[0][0]);
    case PL_WEIGHT_TOKEN_TYPE_EMBEDDING:
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "no token types");
      return NULL;
    case PL_WEIGHT_TOKEN_EMBEDDING:
      return pl_matrix_new (5, 4);
    case PL_WEIGHT_Q_WEIGHT:
    case PL_WEIGHT_K_WEIGHT:
    case PL_WEIGHT_V_WEIGHT:
    case PL_WEIGHT_ATTN_OUT_WEIGHT:
      m = pl_matrix_new (4, 4);
      for (guint i = 0; i < 4; i++)
        m->data[i * 4 + i] = (weight == PL_WEIGHT_K_WEIGHT && i >= 2) ? -1 : 1;
      return m;
    case PL_WEIGHT_FFN_IN_WEIGHT:
      return pl_matrix_new (4, 2);
    case PL_WEIGHT_FFN_OUT_WEIGHT:
      return pl_matrix_new (2, 4);
    case PL_WEIGHT_FFN_IN_BIAS:
      return pl_matrix_new (1, 2);
    case PL_WEIGHT_EMBED_LN_WEIGHT:
    case PL_WEIGHT_LN1_WEIGHT:
    case PL_WEIGHT_LN2_WEIGHT:
    case PL_WEIGHT_FINAL_LN_WEIGHT:
      m = pl_matrix_new (1, 4);
      for (guint i = 0; i < 4; i++)
        m->data[i] = 1;
      return m;
    default:
      return pl_matrix_new (1, 4);   /* biases: zero */
    }
}

static void
test_position_only_closed_form (void)
{
  const gboolean causal_cases[] = { FALSE, TRUE };
  double s = sqrt (2.0);   /* |score| = (1 + 1) / √2 */
  int sign[3] = { 1, -1, 1 };

  for (guint c = 0; c < G_N_ELEMENTS (causal_cases); c++)
    {
      gboolean causal = causal_cases[c];
      PlTransformerConfig config = {
        .family = causal ? PL_FAMILY_GPT2 : PL_FAMILY_BERT,
        .hidden_size = 4, .n_layers = 1, .n_heads = 2, .ffn_size = 2, .vocab_size = 5,
        .n_positions = 3, .activation = PL_ACTIVATION_GELU, .pre_ln = causal, .causal = causal,
        .bos_id = -1, .eos_id = -1, .pad_id = -1,
      };
      g_autoptr(GError) error = NULL;
      g_autoptr(PlTransformer) t = pl_transformer_new_full (&config, tiny_weight, NULL, NULL, &error);
      g_autoptr(PlMatrix) p = NULL;

      g_assert_no_error (error);
      p = pl_attention_position_only (t, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (p->rows, ==, 2 * 3);
      g_assert_cmpuint (p->cols, ==, 3);
      for (guint head = 0; head < 2; head++)
        for (guint i = 0; i < 3; i++)
          {
            guint n = causal ? i + 1 : 3;
            double z = 0, sum = 0;

            for (guint j = 0; j < n; j++)
              z += exp ((head == 0 ? 1 : -1) * sign[i] * sign[j] * s);
            for (guint j = 0; j < 3; j++)
              {
                double expect = j < n ? exp ((head == 0 ? 1 : -1) * sign[i] * sign[j] * s) / z : 0;
                double got = pl_matrix_get (p, head * 3 + i, j);

                g_assert_cmpfloat_with_epsilon (got, expect, 1e-6);
                sum += got;
              }
            g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-6);
          }
    }
}

/* On the fixtures: probabilities, rows summing to 1 (over j ≤ i for GPT-2).
 * The arithmetic itself is checked by the closed form above. */
static void
test_position_only_fixtures (gconstpointer data)
{
  const PlTestFixture *fx = data;
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) p = pl_attention_position_only (t, 64, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (p->rows, ==, 4 * 64);
  pl_test_check_rows (p, 64, fx->config.causal);
}

/* Layer 0 of GPT-2 is linear in its inputs: the mean embedding output at
 * position i is wpe[i] plus the mean of the token rows drawn there. */
static void
test_positional_component_layer0 (void)
{
  const PlTestFixture *fx = &pl_test_fixtures[0];
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (fx);
  g_autofree char *file = pl_test_demo (fx->name, "tf_model.h5", NULL);
  g_autoptr(PlMatrix) wte = pl_test_read_h5 (file, "/transformer/tfgp_t2lm_head_model/transformer/wte/weight:0");
  g_autoptr(PlMatrix) wpe = pl_test_read_h5 (file, "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0");
  g_autoptr(GPtrArray) tables = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 5, len = 40;
  double worst = 0;

  tables = pl_attention_positional_components (t, 4, n, len, 100, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tables->len, ==, 5);
  for (guint i = 0; i < len; i++)
    for (guint j = 0; j < 256; j++)
      {
        double expect = pl_matrix_get (wpe, i, j);

        for (guint s = 0; s < n; s++)
          {
            g_autoptr(GArray) ids = pl_transformer_random_ids (t, len, 100 + s);
            expect += pl_matrix_get (wte, g_array_index (ids, int, i), j) / n;
          }
        worst = MAX (worst, fabs (pl_matrix_get (g_ptr_array_index (tables, 0), i, j) - expect));
      }
  g_assert_cmpfloat (worst, <, 1e-5);
}

/* The last layer's component is the average of the forward pass's own hidden
 * states, and asking for a lower layer gives the same lower tables. */
static void
test_positional_component_mean (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[1]);
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) two = NULL;
  g_autoptr(PlMatrix) mean = pl_matrix_new (24, 256);
  g_autoptr(GError) error = NULL;

  all = pl_attention_positional_components (t, 4, 3, 24, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  two = pl_attention_positional_components (t, 2, 3, 24, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (two->len, ==, 3);
  g_assert_cmpfloat (pl_test_max_abs_diff (g_ptr_array_index (two, 2), g_ptr_array_index (all, 2)), ==, 0);

  for (guint s = 0; s < 3; s++)
    {
      g_autoptr(GArray) ids = pl_transformer_random_ids (t, 24, 7 + s);
      g_autoptr(PlForwardResult) r = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                                             PL_FORWARD_HIDDEN_STATES,
                                                             NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      for (gsize i = 0; i < 24 * 256; i++)
        mean->data[i] += r->hidden_states[4]->data[i] / 3;
    }
  g_assert_cmpfloat (pl_test_max_abs_diff (mean, g_ptr_array_index (all, 4)), <, 1e-5);

  g_assert_null (pl_attention_positional_components (t, 5, 3, 24, 7, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

/* Through PlModel, as similarity / PCA / probe --layer L use it: the same
 * table as the transformer's own components. */
static void
test_positional_component_model (void)
{
  g_autofree char *dir = pl_test_demo ("mini-bert", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(PlMatrix) table = NULL;

  g_assert_no_error (error);
  table = pl_attention_positional_component (model, 2, 3, 24, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (table->rows, ==, 24);
  g_assert_cmpuint (table->cols, ==, 256);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  all = pl_attention_positional_components (t, 4, 3, 24, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (table, g_ptr_array_index (all, 2)), ==, 0);

  g_assert_null (pl_attention_positional_component (model, 9, 3, 24, 7, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}

/* poslens-cli attention writes the library's numbers: one profile for
 * --layer/--head (both count from 1, as in the window), the tables, the
 * position-only term. */
static void
test_cli (void)
{
  g_autofree char *dir = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (tmp, "attention.h5", NULL);
  g_autofree char *csv = g_build_filename (tmp, "attention.csv", NULL);
  g_autofree char *csv_distance = g_build_filename (tmp, "attention-mean_distance.csv", NULL);
  g_autofree char *png = g_build_filename (tmp, "attention.png", NULL);
  g_autofree char *png_bytes = NULL;
  const char *args[] = { "attention", dir, "--layer", "2", "--head", "2", "--sequences", "2",
                         "--length", "32", "--seed", "5", "--out", out, NULL };
  const char *args_csv[] = { "attention", dir, "--sequences", "1", "--length", "16", "--out", csv, NULL };
  const char *args_png[] = { "attention", dir, "--layer", "1", "--sequences", "1", "--length", "16",
                             "--out", png, NULL };
  const char *bad_layer[] = { "attention", dir, "--layer", "5", "--out", out, NULL };
  const char *head_zero[] = { "attention", dir, "--head", "0", "--sequences", "1", "--length", "16", "--out", out, NULL };
  const char *head_past[] = { "attention", dir, "--head", "5", "--sequences", "1", "--length", "16", "--out", out, NULL };
  const char *head_last[] = { "attention", dir, "--layer", "1", "--head", "4", "--sequences", "1", "--length", "16",
                              "--out", out, NULL };
  const char *bad_ext[] = { "attention", dir, "--out", "attention.png.txt", NULL };
  const char *bad_path[] = { "attention", "/nonexistent", "--out", out, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) t = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(PlMatrix) expect = NULL;

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set (run through meson test)");
      return;
    }
  g_assert_cmpint (pl_test_run_cli (args), ==, 0);
  model = pl_model_open (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  t = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  stats = pl_attention_stats_compute (t, 2, 32, 5, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  expect = pl_attention_stats_get_profile (stats, 1, 1);
  {
    g_autoptr(PlMatrix) profile = pl_test_read_h5 (out, "/offset_profile");
    g_autoptr(PlMatrix) offsets = pl_test_read_h5 (out, "/offsets");
    g_autoptr(PlMatrix) distance = pl_test_read_h5 (out, "/mean_distance");
    g_autoptr(PlMatrix) position_only = pl_test_read_h5 (out, "/position_only");

    g_assert_cmpfloat (pl_test_max_abs_diff (profile, expect), <, 1e-6);
    g_assert_cmpfloat (pl_test_max_abs_diff (distance, stats->mean_distance), <, 1e-6);
    g_assert_cmpuint (offsets->cols, ==, 63);
    g_assert_cmpfloat (offsets->data[0], ==, -31);
    g_assert_cmpfloat (offsets->data[62], ==, 31);
    g_assert_cmpuint (position_only->rows, ==, 32);
    pl_test_check_rows (position_only, 32, TRUE);
  }
  g_assert_cmpint (pl_test_run_cli (args_csv), ==, 0);
  g_assert_true (g_file_test (csv, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (csv_distance, G_FILE_TEST_IS_REGULAR));
  /* a figure by extension */
  g_assert_cmpint (pl_test_run_cli (args_png), ==, 0);
  g_assert_true (g_file_get_contents (png, &png_bytes, NULL, NULL));
  g_assert_cmpmem (png_bytes, 4, "\x89PNG", 4);
  g_assert_cmpint (pl_test_run_cli (bad_layer), ==, 1);
  /* mini-gpt2 has heads 1 to 4. */
  g_assert_cmpint (pl_test_run_cli (head_zero), ==, 1);
  g_assert_cmpint (pl_test_run_cli (head_past), ==, 1);
  g_assert_cmpint (pl_test_run_cli (head_last), ==, 0);
  g_assert_cmpint (pl_test_run_cli (bad_ext), ==, 1);
  g_assert_cmpint (pl_test_run_cli (bad_path), ==, 2);
  pl_test_rmtree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < PL_TEST_N_FIXTURES; i++)
    {
      g_autofree char *ref = g_strdup_printf ("/pl/attention-stats/reference/%s", pl_test_fixtures[i].name);
      g_autofree char *pos = g_strdup_printf ("/pl/attention-stats/position-only/%s", pl_test_fixtures[i].name);

      g_test_add_data_func (ref, &pl_test_fixtures[i], test_against_reference);
      g_test_add_data_func (pos, &pl_test_fixtures[i], test_position_only_fixtures);
    }
  g_test_add_func ("/pl/attention-stats/random-profiles", test_random_profiles);
  g_test_add_func ("/pl/attention-stats/positional-component/model", test_positional_component_model);
  g_test_add_func ("/pl/attention-stats/cli", test_cli);
  g_test_add_func ("/pl/attention-stats/cancel", test_cancel);
  g_test_add_func ("/pl/attention-stats/first-layers", test_first_layers);
  g_test_add_func ("/pl/attention-stats/position-only/closed-form", test_position_only_closed_form);
  g_test_add_func ("/pl/attention-stats/positional-component/layer0", test_positional_component_layer0);
  g_test_add_func ("/pl/attention-stats/positional-component/mean", test_positional_component_mean);

  return g_test_run ();
}
