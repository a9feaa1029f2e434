/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-transformer.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* The forward passes of the families whose position is a bias or a
 * relative table, against tests/fixtures/relpos/NAME/reference.h5: what
 * tests/fixtures/make-relpos.py computes in float64 torch from Hugging
 * Face's definitions on the checkpoints it wrote beside it, two inputs each
 * (one longer than T5's exact buckets reach). Every hidden state within
 * 1e-4 of the largest reference value of its layer, every attention
 * probability within 1e-5. */

#define RELPOS_HIDDEN_TOL    1e-4
#define RELPOS_ATTENTION_TOL 1e-5

typedef struct
{
  const char *fixture;
  const char *table;     /* --table, or NULL */
  const char *group;     /* where its probes are in reference.h5 */
  PlFamily    family;
} Case;

static const Case cases[] = {
  { "t5", NULL, "", PL_FAMILY_T5 },
  { "t5", "decoder", "decoder", PL_FAMILY_T5 },
  { "mt5-bin", NULL, "", PL_FAMILY_T5 },
  { "mt5-bin", "decoder", "decoder", PL_FAMILY_T5 },
  { "umt5", NULL, "", PL_FAMILY_UMT5 },
  { "umt5", "decoder", "decoder", PL_FAMILY_UMT5 },
  { "bloom", NULL, "", PL_FAMILY_BLOOM },
  { "bloom-odd", NULL, "", PL_FAMILY_BLOOM },
  { "mpt", NULL, "", PL_FAMILY_MPT },
  { "deberta-v3", NULL, "", PL_FAMILY_DEBERTA_V2 },
  { "deberta-v2", NULL, "", PL_FAMILY_DEBERTA_V2 },
};

static const char * const probes[] = { "short", "long", NULL };

static PlModel *
open_case (const Case *c)
{
  g_autofree char *dir = pl_test_fixture ("relpos", c->fixture, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);

  g_assert_no_error (error);
  if (c->table != NULL)
    g_assert_true (pl_model_select_table (model, c->table, &error));
  g_assert_no_error (error);
  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  return g_steal_pointer (&model);
}

static void
test_reference (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(PlModel) model = open_case (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTransformer) t = pl_transformer_new (model, NULL, &error);
  g_autofree char *file = pl_test_fixture ("relpos", c->fixture, "reference.h5", NULL);
  const PlTransformerConfig *config;
  double worst_hidden = 0, worst_attention = 0;

  g_assert_no_error (error);
  config = pl_transformer_get_config (t);
  for (guint p = 0; probes[p] != NULL; p++)
    {
      g_autofree char *prefix = c->group[0] ? g_strdup_printf ("%s/%s", c->group, probes[p]) : g_strdup (probes[p]);
      g_autofree char *att_name = g_strdup_printf ("%s/attentions", prefix);
      g_autofree char *hid_name = g_strdup_printf ("%s/hidden_states", prefix);
      g_autoptr(GArray) ids = pl_test_reference_ids (file, c->group, probes[p]);
      g_autoptr(PlMatrix) ref_att = pl_test_read_h5 (file, att_name);
      g_autoptr(PlMatrix) ref_hid = pl_test_read_h5 (file, hid_name);
      g_autoptr(PlForwardResult) result = NULL;
      gsize tt = ids->len;

      result = pl_transformer_forward (t, (int *) ids->data, ids->len,
                                       PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ref_att->rows, ==, (gsize) config->n_layers * config->n_heads * tt);
      g_assert_cmpuint (ref_hid->rows, ==, (gsize) (config->n_layers + 1) * tt);
      for (guint l = 0; l < config->n_layers; l++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_att, (gsize) l * config->n_heads * tt,
                                                          config->n_heads * tt);
          double diff = pl_test_max_abs_diff (result->attentions[l], ref);

          g_assert_cmpfloat (diff, <, ATTENTION_TOL);
          pl_test_check_rows (result->attentions[l], tt, config->causal);
          worst_attention = MAX (worst_attention, diff);
        }
      for (guint k = 0; k <= config->n_layers; k++)
        {
          g_autoptr(PlMatrix) ref = pl_matrix_slice_rows (ref_hid, (gsize) k * tt, tt);
          double rel = pl_test_max_abs_diff (result->hidden_states[k], ref) / pl_test_max_abs (ref);

          g_assert_cmpfloat (rel, <, HIDDEN_TOL);
          worst_hidden = MAX (worst_hidden, rel);
        }
    }
  g_test_message ("%s %s: hidden states within %.2g of each layer's largest value, attentions within %.2g",
                  c->fixture, c->table ? c->table : "default", worst_hidden, worst_attention);
}

/* The statistics the views and --stats-out read run on these passes: each
 * offset profile sums to 1, and a causal stack puts nothing on keys after
 * the query. */
static void
test_statistics (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(PlModel) model = open_case (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTransformer) t = pl_transformer_new (model, NULL, &error);
  g_autoptr(PlAttentionStats) stats = NULL;
  guint width;

  g_assert_no_error (error);
  stats = pl_attention_stats_compute (t, 2, 9, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  width = 2 * 9 - 1;
  for (guint r = 0; r < stats->offset_profile->rows; r++)
    {
      const float *row = pl_matrix_row (stats->offset_profile, r);
      double sum = 0, future = 0;

      for (guint o = 0; o < width; o++)
        {
          sum += row[o];
          if (o > 8)
            future += row[o];
        }
      g_assert_cmpfloat (fabs (sum - 1), <, 1e-5);
      if (pl_transformer_get_config (t)->causal)
        g_assert_cmpfloat (future, ==, 0);
      else
        g_assert_cmpfloat (future, >, 0);
    }
}

/* attention's numbers for models without a position table layer 0 reads:
 * a rotary model's leave the position-only term out (it failed before), a
 * T5 stack's carry its first layer's bias instead. */
static void
test_cli_attention (void)
{
  g_autofree char *tmp = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (tmp, "attention.h5", NULL);
  g_autofree char *bias_out = g_build_filename (tmp, "bias.h5", NULL);
  g_autofree char *llama = pl_test_fixture ("rope", "llama", NULL);
  g_autofree char *t5 = pl_test_fixture ("relpos", "t5", NULL);
  g_autoptr(PlMatrix) profile = NULL;
  g_autoptr(PlMatrix) bias = NULL;
  g_autoptr(PlMatrix) expected = NULL;

  g_assert_cmpint (pl_test_cli (NULL, NULL, "attention", llama, "--length", "8", "--sequences", "2", "--out", out,
                                NULL), ==, 0);
  profile = pl_test_read_h5 (out, "offset_profile");
  g_assert_cmpuint (profile->cols, ==, 15);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "attention", t5, "--table", "decoder", "--length", "12",
                                "--sequences", "2", "--out", out, NULL), ==, 0);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "position-bias", t5, "--table", "decoder", "--length", "12",
                                "--out", bias_out, NULL), ==, 0);
  bias = pl_test_read_h5 (out, "position_bias");
  expected = pl_test_read_h5 (bias_out, "bias");
  g_assert_cmpuint (bias->rows, ==, 4);
  g_assert_cmpuint (bias->cols, ==, 23);
  for (gsize i = 0; i < bias->rows * bias->cols; i++)
    g_assert_true ((isnan (bias->data[i]) && isnan (expected->data[i])) || bias->data[i] == expected->data[i]);
  pl_test_rmtree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/relpos-forward/%s-%s", cases[i].fixture,
                                               cases[i].table ? cases[i].table : "default");
      g_autofree char *stats = g_strdup_printf ("/pl/relpos-forward/statistics/%s-%s", cases[i].fixture,
                                                cases[i].table ? cases[i].table : "default");

      g_test_add_data_func (path, &cases[i], test_reference);
      g_test_add_data_func (stats, &cases[i], test_statistics);
    }
  g_test_add_func ("/pl/relpos-forward/cli-attention", test_cli_attention);
  return g_test_run ();
}
