/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-paper.h"
#include "pl-probes.h"
#include "pl-random.h"
#include "pl-test-util.h"

/* The paper's protocol against PE-Study's own code: fixtures/paper-probes.h5 was made by
 * fixtures/make-paper-probes.py, which runs absolute.py's and relative.py's lines with scikit-learn
 * 1.2.1 after np.random.seed (seed), on the tables it reads with h5py. Poslens's generator is numpy's
 * legacy MT19937 (pl-random), so the same seed draws the same permutation and pairs, and every fold's
 * error agrees. */

#define FOLD_TOL  1e-6
#define MEAN_TOL  1e-9
#define N_SEEDS   20
#define N_FOLDS   5

typedef struct
{
  const char *group;     /* in paper-probes.h5 */
  const char *model;     /* demo checkpoint, or NULL for the sinusoid fixture */
  gsize       rows;      /* the paper's rows of that table */
  gboolean    own_runs;  /* the reference holds 100 runs of the paper's literal code */
} PaperTable;

static const PaperTable tables[] = {
  { "mini-gpt2", "mini-gpt2", 512, TRUE },
  { "mini-bert", "mini-bert", 512, FALSE },
  { "mini-roberta", "mini-roberta", 514, FALSE },   /* padding rows 0 and 1 included */
  { "sinusoid", NULL, 512, TRUE },
};

static char *
reference_path (void)
{
  return pl_test_fixture ("paper-probes.h5", NULL);
}

static double *
read_reference (const char *group,
                const char *name,
                gsize      *n)
{
  g_autofree char *path = reference_path ();
  g_autofree char *dataset = group[0] ? g_strdup_printf ("/%s/%s", group, name) : g_strdup_printf ("/%s", name);

  return pl_test_read_h5_doubles (path, dataset, n);
}

static double
read_scalar (const char *group,
             const char *name)
{
  g_autofree char *path = reference_path ();
  g_autofree char *dataset = g_strdup_printf ("/%s/%s", group, name);

  return pl_test_read_h5_scalar (path, dataset);
}

/* The table as the paper's protocol takes it from the model. */
static PlMatrix *
paper_table (const PaperTable *t)
{
  g_autofree char *path = t->model ? pl_test_demo (t->model, NULL)
                                   : pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, t->model ? NULL : "/position_embeddings", NULL, &error);
  PlMatrix *table;

  g_assert_no_error (error);
  table = pl_model_read_paper_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (table->rows, ==, t->rows);
  return table;
}

/* np.random.seed (0); np.random.permutation (512), and the first 512 of
 * np.random.permutation (512**2) as relative.py draws its pairs. */
static void
test_numpy_draws (void)
{
  g_autofree char *path = reference_path ();
  g_autoptr(PlMatrix) want_perm = pl_test_read_h5 (path, "/draws/permutation_512");
  g_autoptr(PlMatrix) want_pairs = pl_test_read_h5 (path, "/draws/pairs_512");
  g_autofree guint32 *perm = g_new (guint32, 512);
  g_autofree guint32 *pairs = g_new (guint32, 512 * 512);
  PlRandom rand;

  pl_random_init (&rand, 0);
  pl_random_permutation (&rand, perm, 512);
  for (guint i = 0; i < 512; i++)
    g_assert_cmpuint (perm[i], ==, (guint32) want_perm->data[i]);

  pl_random_init (&rand, 0);
  pl_random_permutation (&rand, pairs, 512 * 512);
  for (guint i = 0; i < 512; i++)
    g_assert_cmpuint (pairs[i], ==, (guint32) want_pairs->data[i]);
}

/* Poslens's 20 seeds against the reference's own 100 (seeds 1000 …
 * 1099): the means differ by no more than Welch's t at 99.9 % allows, and
 * the variances' ratio lies within the F distribution's 99.9 % range. */
static void
check_spread (const char   *group,
              const char   *probe,
              const double *ours,
              guint         n)
{
  g_autofree char *name = g_strdup_printf ("own_%s", probe);
  gsize n_theirs;
  g_autofree double *theirs = read_reference (group, name, &n_theirs);
  double mean_t = read_scalar ("bounds", "mean_t");
  double low = read_scalar ("bounds", "variance_ratio_low");
  double high = read_scalar ("bounds", "variance_ratio_high");
  PlProbeSpread a, b;
  double se;

  pl_probe_spread (ours, n, &a);
  pl_probe_spread (theirs, n_theirs, &b);
  g_test_message ("%s %s: Poslens %.5f sd %.5f (%u seeds), reference %.5f sd %.5f (%u seeds)",
                  group, probe, a.mean, a.sd, a.n, b.mean, b.sd, b.n);
  if (b.sd == 0)
    {
      /* The sinusoid's absolute probe is exact in every draw. */
      g_assert_cmpfloat (a.sd, ==, 0);
      g_assert_cmpfloat_with_epsilon (a.mean, b.mean, 1e-12);
      return;
    }
  se = sqrt (a.sd * a.sd / a.n + b.sd * b.sd / b.n);
  g_assert_cmpfloat (fabs (a.mean - b.mean), <=, mean_t * se);
  g_assert_cmpfloat (a.sd * a.sd / (b.sd * b.sd), >=, low);
  g_assert_cmpfloat (a.sd * a.sd / (b.sd * b.sd), <=, high);
}

/* Every fold of every seed 0 … 19, both probes, and Table 1's cells: the
 * mean over the seeds and the half-width of its 95 % interval; where the
 * reference has them, the spread of those runs against the paper's own. */
static void
check_paper_folds (gconstpointer data)
{
  const PaperTable *t = data;
  g_autoptr(PlMatrix) table = paper_table (t);
  gsize n_abs, n_rel;
  g_autofree double *want_abs = read_reference (t->group, "absolute_folds", &n_abs);
  g_autofree double *want_rel = read_reference (t->group, "relative_folds", &n_rel);
  g_autofree PlProbeResult *runs = g_new (PlProbeResult, N_SEEDS);
  g_autoptr(GError) error = NULL;
  PlProbeOptions options;
  PlProbeSummary summary;
  double worst_abs = 0, worst_rel = 0;

  g_assert_cmpuint (n_abs, ==, N_SEEDS * N_FOLDS);
  g_assert_cmpuint (n_rel, ==, N_SEEDS * N_FOLDS);

  pl_probe_options_init (&options);
  g_assert_cmpint (options.protocol, ==, PL_PROBE_PAPER);
  pl_probe_repeat (table, &options, N_SEEDS, runs, NULL, &error);
  g_assert_no_error (error);

  for (guint s = 0; s < N_SEEDS; s++)
    {
      g_assert_cmpuint (runs[s].seed, ==, s);
      g_assert_cmpuint (runs[s].n_pairs, ==, 512);
      g_assert_cmpuint (runs[s].relative_rows, ==, 512);
      for (guint k = 0; k < N_FOLDS; k++)
        {
          worst_abs = MAX (worst_abs, fabs (runs[s].absolute_folds[k] - want_abs[s * N_FOLDS + k]));
          worst_rel = MAX (worst_rel, fabs (runs[s].relative_folds[k] - want_rel[s * N_FOLDS + k]));
        }
    }
  g_test_message ("%s: largest fold difference from scikit-learn: absolute %.3g, relative %.3g",
                  t->group, worst_abs, worst_rel);
  g_assert_cmpfloat (worst_abs, <=, FOLD_TOL);
  g_assert_cmpfloat (worst_rel, <=, FOLD_TOL);

  pl_probe_summarise (runs, N_SEEDS, &summary);
  g_assert_cmpfloat_with_epsilon (summary.absolute.mean, read_scalar (t->group, "absolute_mean"),
                                  MEAN_TOL * MAX (1, summary.absolute.mean));
  g_assert_cmpfloat_with_epsilon (summary.relative.mean, read_scalar (t->group, "relative_mean"), MEAN_TOL);
  g_assert_cmpfloat_with_epsilon (summary.absolute.half_width, read_scalar (t->group, "absolute_ci95"),
                                  MEAN_TOL * MAX (1, summary.absolute.half_width));
  g_assert_cmpfloat_with_epsilon (summary.relative.half_width, read_scalar (t->group, "relative_ci95"),
                                  MEAN_TOL);

  if (t->own_runs)
    {
      double absolute[N_SEEDS], relative[N_SEEDS];

      for (guint s = 0; s < N_SEEDS; s++)
        {
          absolute[s] = runs[s].absolute_mae;
          relative[s] = runs[s].relative_error;
        }
      check_spread (t->group, "absolute", absolute, N_SEEDS);
      check_spread (t->group, "relative", relative, N_SEEDS);
    }
}

/* One seed alone is the same run as that seed among repeats. */
static void
test_seed_reproduces (void)
{
  g_autoptr(PlMatrix) table = paper_table (&tables[0]);
  PlProbeResult runs[3], one;
  PlProbeOptions options;

  pl_probe_options_init (&options);
  options.seed = 7;
  g_assert_true (pl_probe_repeat (table, &options, 3, runs, NULL, NULL));
  options.seed = 8;
  g_assert_true (pl_probe_run (table, &options, &one, NULL, NULL));
  g_assert_cmpmem (runs[1].absolute_folds, sizeof one.absolute_folds, one.absolute_folds, sizeof one.absolute_folds);
  g_assert_cmpmem (runs[1].relative_folds, sizeof one.relative_folds, one.relative_folds, sizeof one.relative_folds);
  g_assert_cmpfloat (runs[0].relative_error, !=, runs[1].relative_error);
}

static void
test_student_t (void)
{
  gsize n, n_df;
  g_autofree double *dfs = read_reference ("", "t975_df", &n_df);
  g_autofree double *want = read_reference ("", "t975", &n);

  g_assert_cmpuint (n, ==, n_df);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat (fabs (pl_student_t_975 ((guint) dfs[i]) - want[i]), <=, 1e-7 * want[i]);
}

/* Mean, interval and spread in closed form: 1, 2, 3, 4 have mean 2.5 and
 * standard deviation √(5/3); t(0.975, 3) = 3.182446305284263. */
static void
test_spread_closed_form (void)
{
  const double values[] = { 1, 2, 3, 4 };
  PlProbeSpread spread;

  pl_probe_spread (values, 4, &spread);
  g_assert_cmpuint (spread.n, ==, 4);
  g_assert_cmpfloat_with_epsilon (spread.mean, 2.5, 1e-15);
  g_assert_cmpfloat_with_epsilon (spread.sd, sqrt (5.0 / 3.0), 1e-15);
  g_assert_cmpfloat_with_epsilon (spread.half_width, 3.182446305284263 * sqrt (5.0 / 3.0) / 2, 1e-12);
  g_assert_cmpfloat (spread.min, ==, 1);
  g_assert_cmpfloat (spread.max, ==, 4);
  pl_probe_spread (values, 1, &spread);
  g_assert_cmpfloat (spread.half_width, ==, 0);
  g_assert_cmpfloat (spread.mean, ==, 1);
}

/* Which rows, in words: RoBERTa's padding rows are named, GPT-2's cut is. */
static void
test_paper_rows (void)
{
  g_autofree char *roberta_path = pl_test_demo ("mini-roberta", NULL);
  g_autoptr(PlModel) roberta = pl_model_open (roberta_path, NULL, NULL, NULL);
  g_autoptr(PlMatrix) table = pl_model_read_paper_positions (roberta, NULL);
  g_autoptr(PlMatrix) positions = pl_model_read_positions (roberta, NULL);
  g_autofree char *note = pl_model_describe_paper_rows (roberta);

  /* Rows 2 … 513 are the real positions 0 … 511; rows 0 and 1 come first. */
  g_assert_cmpuint (table->rows, ==, 514);
  g_assert_cmpmem (pl_matrix_row (table, 2), 512 * 256 * sizeof (float),
                   positions->data, 512 * 256 * sizeof (float));
  g_assert_nonnull (strstr (note, "514"));
  g_assert_nonnull (strstr (note, "rows 0–1"));
  g_assert_nonnull (strstr (note, "relative probe: rows 0–511"));
}

/* Table 1 of "Reproduce the Paper": each model's cells are the mean and
 * interval of the reference's runs (seeds 0-2), each run the mean of its
 * five folds; Figure 1 has a panel per model. */
static void
test_paper_table1 (void)
{
  const guint models_used[] = { 0, 2 };
  PlModel *models[G_N_ELEMENTS (models_used)];
  g_autoptr(PlPaper) paper = NULL;
  g_autoptr(GError) error = NULL;
  PlPaperOptions options;

  for (guint m = 0; m < G_N_ELEMENTS (models_used); m++)
    {
      g_autofree char *path = pl_test_demo (tables[models_used[m]].model, NULL);

      models[m] = pl_model_open (path, NULL, NULL, &error);
      g_assert_no_error (error);
    }
  pl_paper_options_init (&options);
  g_assert_cmpuint (options.n_repeats, ==, PL_PROBE_DEFAULT_REPEATS);
  options.n_repeats = 3;
  paper = pl_paper_compute (models, G_N_ELEMENTS (models), &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_figure_get_n_panels (pl_paper_get_figure1 (paper)), ==, G_N_ELEMENTS (models));

  for (guint m = 0; m < G_N_ELEMENTS (models_used); m++)
    {
      const PlProbeSummary *got = pl_paper_get_summary (paper, m);
      const char *group = tables[models_used[m]].group;
      gsize n_abs, n_rel;
      g_autofree double *abs_folds = read_reference (group, "absolute_folds", &n_abs);
      g_autofree double *rel_folds = read_reference (group, "relative_folds", &n_rel);
      double abs_runs[3] = { 0 }, rel_runs[3] = { 0 };
      PlProbeSpread want_abs, want_rel;

      for (guint r = 0; r < 3; r++)
        for (guint k = 0; k < N_FOLDS; k++)
          {
            abs_runs[r] += abs_folds[r * N_FOLDS + k] / N_FOLDS;
            rel_runs[r] += rel_folds[r * N_FOLDS + k] / N_FOLDS;
          }
      pl_probe_spread (abs_runs, 3, &want_abs);
      pl_probe_spread (rel_runs, 3, &want_rel);
      g_assert_cmpuint (got->absolute.n, ==, 3);
      g_assert_cmpfloat_with_epsilon (got->absolute.mean, want_abs.mean, FOLD_TOL * MAX (1, want_abs.mean));
      g_assert_cmpfloat_with_epsilon (got->absolute.half_width, want_abs.half_width,
                                      FOLD_TOL * MAX (1, want_abs.half_width));
      g_assert_cmpfloat_with_epsilon (got->relative.mean, want_rel.mean, FOLD_TOL);
      g_assert_cmpfloat_with_epsilon (got->relative.half_width, want_rel.half_width, FOLD_TOL);
    }
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    g_object_unref (models[m]);
}

/* A cancelled run stops with G_IO_ERROR_CANCELLED: the repeats, and the
 * paper's figures. */
static void
test_cancelled (void)
{
  g_autoptr(PlMatrix) table = paper_table (&tables[0]);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *path = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlPaper) paper = NULL;
  PlProbeResult runs[2];
  PlProbeOptions options;
  PlPaperOptions paper_options;

  g_cancellable_cancel (cancellable);
  pl_probe_options_init (&options);
  g_assert_false (pl_probe_repeat (table, &options, 2, runs, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  pl_paper_options_init (&paper_options);
  paper = pl_paper_compute (&model, 1, &paper_options, NULL, NULL, cancellable, &error);
  g_assert_null (paper);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/probes/paper/numpy-draws", test_numpy_draws);
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/probes/paper/folds/%s", tables[i].group);

      g_test_add_data_func (path, &tables[i], check_paper_folds);
    }
  g_test_add_func ("/pl/probes/paper/seed", test_seed_reproduces);
  g_test_add_func ("/pl/probes/paper/rows", test_paper_rows);
  g_test_add_func ("/pl/probes/paper/table1", test_paper_table1);
  g_test_add_func ("/pl/probes/paper/cancelled", test_cancelled);
  g_test_add_func ("/pl/probes/student-t", test_student_t);
  g_test_add_func ("/pl/probes/spread", test_spread_closed_form);
  return g_test_run ();
}
