/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-probes.h"
#include "pl-probes-private.h"
#include "pl-test-util.h"

/* fixtures/probes-sklearn.h5 was made by fixtures/make-probes-sklearn.py with Debian's /usr/bin/python3 and
 * scikit-learn 1.2.1 (numpy default_rng(20201), float32 data):
 *  - /tall (60×6) and /wide (20×40): x, 0/1 labels y = [x0+x1+x2 + 0.8·noise > 0],
 *    and coef, intercept of LogisticRegression(C=1, solver="newton-cholesky",
 *    tol=1e-14) fitted on x as float64 (gradient at the answer below 1e-14);
 *  - /ols_wide: a 40×60 x and the mean over 5 interleaved folds (fold k = rows
 *    i % 5 == k) of |round(prediction) − i|, the prediction from numpy's SVD
 *    pseudo-inverse of the centred training rows (minimum-norm least squares).
 *    LinearRegression gives 17.625 there instead of 17.575: LAPACK gelsd keeps
 *    the ~1e-16 singular value that centring leaves and drifts off the
 *    minimum-norm answer; on the fixture tables the two agree exactly. */

#define MAE_TOL       1e-6
#define COEF_TOL      1e-5

static void
check_absolute_fixture (gconstpointer data)
{
  const PlTestTable *f = data;
  g_autofree char *ref_path = pl_test_fixture (f->reference, NULL);
  g_autofree char *name = g_strconcat (f->group, "/position_regression_mae_interleaved", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_table (f);
  g_autoptr(GError) error = NULL;
  PlProbeOptions options;
  double want = pl_test_read_h5_scalar (ref_path, name);
  double mae = -1;

  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  pl_probe_absolute (table, &options, &mae, NULL, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s: MAE %.10g, reference %.10g", f->reference, mae, want);
  g_assert_cmpfloat_with_epsilon (mae, want, MAE_TOL);
}

/* More dimensions than rows: only the minimum-norm solution matches. */
static void
test_absolute_wide (void)
{
  g_autofree char *path = pl_test_fixture ("probes-sklearn.h5", NULL);
  g_autoptr(PlMatrix) x = pl_test_read_h5 (path, "/ols_wide/x");
  double want = pl_test_read_h5_scalar (path, "/ols_wide/mae_interleaved");
  PlProbeOptions options;
  double mae = -1;

  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  g_assert_true (pl_probe_absolute (x, &options, &mae, NULL, NULL, NULL));
  g_assert_cmpfloat_with_epsilon (mae, want, MAE_TOL);
}

static void
check_logistic (const char *group)
{
  g_autofree char *path = pl_test_fixture ("probes-sklearn.h5", NULL);
  g_autofree char *xn = g_strdup_printf ("/%s/x", group);
  g_autofree char *yn = g_strdup_printf ("/%s/y", group);
  g_autofree char *cn = g_strdup_printf ("/%s/coef", group);
  g_autofree char *bn = g_strdup_printf ("/%s/intercept", group);
  g_autoptr(PlMatrix) x = pl_test_read_h5 (path, xn);
  g_autoptr(PlMatrix) y = pl_test_read_h5 (path, yn);
  g_autoptr(PlMatrix) coef = pl_test_read_h5 (path, cn);
  g_autoptr(PlMatrix) intercept = pl_test_read_h5 (path, bn);
  g_autofree double *xd = g_new (double, x->rows * x->cols);
  g_autofree guint8 *labels = g_new (guint8, x->rows);
  g_autofree double *w = g_new (double, x->cols);
  g_autoptr(GError) error = NULL;
  double b;

  for (gsize i = 0; i < x->rows * x->cols; i++)
    xd[i] = x->data[i];
  for (gsize i = 0; i < x->rows; i++)
    labels[i] = y->data[i] > 0.5f;
  pl_logistic_fit (xd, labels, x->rows, x->cols, 1.0, w, &b, &error);
  g_assert_no_error (error);
  for (gsize j = 0; j < x->cols; j++)
    g_assert_cmpfloat_with_epsilon (w[j], coef->data[j], COEF_TOL);
  g_assert_cmpfloat_with_epsilon (b, intercept->data[0], COEF_TOL);
}

/* Fewer features than samples (Newton on the (p+1)² Hessian) ... */
static void
test_logistic_tall (void)
{
  check_logistic ("tall");
}

/* ... and more (through the n×n system by Woodbury). */
static void
test_logistic_wide (void)
{
  check_logistic ("wide");
}

/* The pairs' Newton steps (through the table's rows) against the explicit
 * fit on the materialised features [p_i ; p_j]: the same optimum. Pairs
 * repeat, and a row can be first and second of the same pair. */
static void
test_logistic_pairs (void)
{
  const gsize rows = 40, d = 6, n = 300;
  g_autofree double *table = g_new (double, rows * d);
  g_autofree double *x = g_new (double, n * 2 * d);
  g_autofree guint32 *pi = g_new (guint32, n);
  g_autofree guint32 *pj = g_new (guint32, n);
  g_autofree guint8 *y = g_new (guint8, n);
  g_autofree double *w_pairs = g_new (double, 2 * d);
  g_autofree double *w_plain = g_new (double, 2 * d);
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (11);
  double b_pairs, b_plain;

  for (gsize i = 0; i < rows * d; i++)
    table[i] = g_rand_double_range (rand, -1, 1) + (i % d == 0 ? 0.05 * (i / d) : 0);
  for (gsize s = 0; s < n; s++)
    {
      pi[s] = g_rand_int_range (rand, 0, rows);
      pj[s] = s % 17 == 0 ? pi[s] : (guint32) g_rand_int_range (rand, 0, rows);
      y[s] = pj[s] > pi[s];
      memcpy (x + s * 2 * d, table + pi[s] * d, d * sizeof (double));
      memcpy (x + s * 2 * d + d, table + pj[s] * d, d * sizeof (double));
    }
  g_rand_free (rand);

  pl_logistic_fit_pairs (table, rows, d, pi, pj, y, n, 1.0, w_pairs, &b_pairs, &error);
  g_assert_no_error (error);
  pl_logistic_fit (x, y, n, 2 * d, 1.0, w_plain, &b_plain, &error);
  g_assert_no_error (error);
  for (gsize j = 0; j < 2 * d; j++)
    g_assert_cmpfloat_with_epsilon (w_pairs[j], w_plain[j], 1e-10);
  g_assert_cmpfloat_with_epsilon (b_pairs, b_plain, 1e-10);
}

/* The sinusoidal table orders positions almost perfectly; a random table
 * carries no order, so the probe is at chance. */
static void
test_relative_sinusoid_and_random (void)
{
  g_autofree char *path = pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (path, "/position_embeddings");
  g_autoptr(PlMatrix) noise = pl_matrix_new (512, 128);
  g_autoptr(GError) error = NULL;
  PlProbeOptions options;
  double err_sin = -1, err_rand = -1, again = -1;
  GRand *rand = g_rand_new_with_seed (5);

  for (gsize i = 0; i < noise->rows * noise->cols; i++)
    noise->data[i] = (float) g_rand_double_range (rand, -1, 1);
  g_rand_free (rand);

  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  options.n_pairs = 512;
  pl_probe_relative (table, &options, &err_sin, NULL, NULL, &error);
  g_assert_no_error (error);
  pl_probe_relative (noise, &options, &err_rand, NULL, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("relative-order error: sinusoid %.4f, random %.4f", err_sin, err_rand);
  g_assert_cmpfloat (err_sin, <, 0.1);
  g_assert_cmpfloat (err_rand, >, 0.4);
  g_assert_cmpfloat (err_rand, <, 0.6);

  /* Same seed, same answer. */
  g_assert_true (pl_probe_relative (table, &options, &again, NULL, NULL, NULL));
  g_assert_cmpfloat (again, ==, err_sin);
}

static void
test_shuffled_folds (void)
{
  g_autofree char *path = pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (path, "/position_embeddings");
  g_autoptr(PlMatrix) part = pl_matrix_slice_rows (table, 0, 200);
  g_autoptr(GError) error = NULL;
  PlProbeOptions options;
  PlProbeResult a, b;

  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_SHUFFLED;
  options.seed = 42;
  options.n_pairs = 300;
  pl_probe_run (part, &options, &a, NULL, &error);
  g_assert_no_error (error);
  pl_probe_run (part, &options, &b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a.rows, ==, 200);
  g_assert_cmpuint (a.n_pairs, ==, 300);
  /* Interpolating a smooth table from random 80% of its rows is exact too. */
  g_assert_cmpfloat (a.absolute_mae, ==, 0.0);
  g_assert_cmpfloat (a.absolute_mae, ==, b.absolute_mae);
  g_assert_cmpfloat (a.relative_error, ==, b.relative_error);
  g_assert_cmpfloat (a.relative_error, <, 0.1);
}

static void
test_bad_input (void)
{
  g_autoptr(PlMatrix) tiny = pl_matrix_new (6, 3);
  g_autoptr(PlMatrix) x = pl_matrix_new (50, 3);
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;
  PlProbeOptions options;
  g_autoptr(GError) e4 = NULL;
  PlProbeProtocol protocol;
  double v;

  pl_probe_options_init (&options);
  g_assert_false (pl_probe_absolute (tiny, &options, &v, NULL, NULL, &e1));
  g_assert_error (e1, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  options.n_pairs = 3;
  g_assert_false (pl_probe_relative (x, &options, &v, NULL, NULL, &e2));
  g_assert_error (e2, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  /* The paper's pairs are distinct ordered pairs of the rows: at most 50². */
  options.n_pairs = 2501;
  g_assert_false (pl_probe_relative (x, &options, &v, NULL, NULL, &e4));
  g_assert_error (e4, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  options.n_pairs = 512;
  x->data[7] = INFINITY;
  g_assert_false (pl_probe_absolute (x, &options, &v, NULL, NULL, &e3));
  g_assert_error (e3, PL_ERROR, PL_ERROR_BAD_VALUES);

  g_assert_true (pl_probe_protocol_from_string ("shuffled", &protocol));
  g_assert_cmpint (protocol, ==, PL_PROBE_SHUFFLED);
  g_assert_true (pl_probe_protocol_from_string ("paper", &protocol));
  g_assert_cmpint (protocol, ==, PL_PROBE_PAPER);
  g_assert_false (pl_probe_protocol_from_string ("random", &protocol));
}

/* A cancelled probe answers nothing. */
static void
test_cancel (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (64, 8);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  PlProbeOptions options;
  double v;

  for (gsize i = 0; i < x->rows * x->cols; i++)
    x->data[i] = (float) sin (0.1 * i);
  pl_probe_options_init (&options);
  g_cancellable_cancel (cancellable);
  g_assert_false (pl_probe_absolute (x, &options, &v, NULL, cancellable, &e1));
  g_assert_error (e1, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (pl_probe_relative (x, &options, &v, NULL, cancellable, &e2));
  g_assert_error (e2, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* The probes of a grid against scikit-learn (fixtures/grid-probes.h5, made
 * by make-grid-probes.py), interleaved folds: the row and column MAE (every
 * prediction at least 0.0015 from a rounding boundary there) to 1e-9, the
 * error rates of the orders (every decision at least 0.0095 from 0) to
 * 1e-12, and the pairs every ordered pair of two patches of one line. */
static void
test_grid (void)
{
  static const char *tables[] = { "sincos2d-6x6x16", "clip-5x5", "random-6x4x40" };
  g_autofree char *path = pl_test_fixture ("grid-probes.h5", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *xn = g_strdup_printf ("/%s/x", tables[i]);
      g_autofree char *gn = g_strdup_printf ("/%s/grid", tables[i]);
      g_autoptr(PlMatrix) x = pl_test_read_h5 (path, xn);
      g_autoptr(PlMatrix) grid = pl_test_read_h5 (path, gn);
      g_autoptr(GError) error = NULL;
      guint rows = (guint) grid->data[0], cols = (guint) grid->data[1];
      const char *names[] = { "row_mae", "column_mae", "along_rows_error", "along_columns_error" };
      PlGridProbeResult result;
      PlProbeOptions options;
      double got[4];

      pl_probe_options_init (&options);
      options.protocol = PL_PROBE_INTERLEAVED;
      g_assert_true (pl_probe_grid (x, rows, cols, &options, &result, NULL, &error));
      g_assert_no_error (error);
      got[0] = result.row_mae;
      got[1] = result.column_mae;
      got[2] = result.along_rows_error;
      got[3] = result.along_columns_error;
      for (guint k = 0; k < 4; k++)
        {
          g_autofree char *name = g_strdup_printf ("/%s/%s", tables[i], names[k]);
          double want = pl_test_read_h5_scalar (path, name);

          g_test_message ("%s %s: %.6f, scikit-learn %.6f", tables[i], names[k], got[k], want);
          g_assert_cmpfloat (fabs (got[k] - want), <=, k < 2 ? 1e-9 : 1e-12);
        }
      g_assert_cmpuint (result.row_pairs, ==, rows * cols * (cols - 1));
      g_assert_cmpuint (result.column_pairs, ==, rows * cols * (rows - 1));
    }

  /* A grid one patch wide has no order along its rows; a wrong grid is refused. */
  {
    g_autoptr(PlMatrix) x = pl_test_read_h5 (path, "/random-6x4x40/x");
    g_autoptr(GError) error = NULL;
    PlGridProbeResult result;
    PlProbeOptions options;

    pl_probe_options_init (&options);
    options.protocol = PL_PROBE_INTERLEAVED;
    g_assert_true (pl_probe_grid (x, 24, 1, &options, &result, NULL, &error));
    g_assert_true (isnan (result.along_rows_error));
    g_assert_cmpuint (result.row_pairs, ==, 0);
    g_assert_cmpfloat (result.column_mae, ==, 0);
    g_assert_false (isnan (result.along_columns_error));
    g_assert_false (pl_probe_grid (x, 5, 5, &options, &result, NULL, &error));
    g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  }
}

/* The absolute probe's chance level: the rounded middle position predicted
 * for every one of N positions, against the sum written out. */
static void
test_chance (void)
{
  const gsize sizes[] = { 1, 2, 3, 64, 65, 512, 513 };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      gsize n = sizes[k];
      double middle = round ((n - 1) / 2.0), total = 0;

      for (gsize i = 0; i < n; i++)
        total += fabs ((double) i - middle);
      g_assert_cmpfloat_with_epsilon (pl_probe_chance_mae (n), total / n, 1e-12);
    }
  /* mini-vit's 65 rows: 16.25, beside its 34.8. */
  g_assert_cmpfloat_with_epsilon (pl_probe_chance_mae (65), 1056.0 / 65, 1e-12);
}

static void
note_progress (double   fraction,
               gpointer data)
{
  g_array_append_val ((GArray *) data, fraction);
}

/* Interleaved folds draw nothing at random: repeats run the absolute probe
 * once and give every run its number, while the relative probe's pairs are
 * drawn anew with each seed, as separate runs give them. Progress after
 * every run, ending at 1. */
static void
test_deterministic_once (void)
{
  g_autoptr(PlMatrix) table = pl_matrix_new (48, 12);
  g_autoptr(GArray) progress = g_array_new (FALSE, FALSE, sizeof (double));
  PlProbeResult runs[4], one;
  PlProbeOptions options;

  for (gsize i = 0; i < table->rows * table->cols; i++)
    table->data[i] = (float) sin (0.37 * i) + 0.01f * (float) (i % 7);
  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  options.seed = 3;
  options.n_pairs = 200;
  g_assert_false (pl_probe_absolute_is_random (PL_PROBE_INTERLEAVED));
  g_assert_true (pl_probe_absolute_is_random (PL_PROBE_PAPER));
  g_assert_true (pl_probe_absolute_is_random (PL_PROBE_SHUFFLED));
  g_assert_true (pl_probe_repeat_full (table, &options, 4, runs, note_progress, progress, NULL, NULL));
  g_assert_cmpuint (progress->len, ==, 4);
  for (guint r = 0; r < 4; r++)
    {
      PlProbeOptions seeded = options;

      seeded.seed = options.seed + r;
      g_assert_true (pl_probe_run (table, &seeded, &one, NULL, NULL));
      g_assert_cmpfloat (runs[r].absolute_mae, ==, one.absolute_mae);
      g_assert_cmpfloat (runs[r].relative_error, ==, one.relative_error);
      g_assert_cmpuint (runs[r].seed, ==, seeded.seed);
      g_assert_cmpfloat (g_array_index (progress, double, r), ==, (r + 1) / 4.0);
    }
  /* Summarised, the absolute probe is one run with no interval; the
   * relative probe's four draws keep theirs. */
  {
    PlProbeSummary summary;

    pl_probe_summarise_repeats (runs, 4, &options, &summary);
    g_assert_cmpuint (summary.absolute.n, ==, 1);
    g_assert_cmpfloat (summary.absolute.mean, ==, runs[0].absolute_mae);
    g_assert_cmpfloat (summary.absolute.half_width, ==, 0);
    g_assert_cmpuint (summary.relative.n, ==, 4);
  }
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  pl_test_add_table_tests ("/pl/probes/absolute", check_absolute_fixture);
  g_test_add_func ("/pl/probes/absolute/wide", test_absolute_wide);
  g_test_add_func ("/pl/probes/logistic/tall", test_logistic_tall);
  g_test_add_func ("/pl/probes/logistic/wide", test_logistic_wide);
  g_test_add_func ("/pl/probes/logistic/pairs", test_logistic_pairs);
  g_test_add_func ("/pl/probes/relative/sinusoid-and-random", test_relative_sinusoid_and_random);
  g_test_add_func ("/pl/probes/shuffled-folds", test_shuffled_folds);
  g_test_add_func ("/pl/probes/bad-input", test_bad_input);
  g_test_add_func ("/pl/probes/grid", test_grid);
  g_test_add_func ("/pl/probes/cancel", test_cancel);
  g_test_add_func ("/pl/probes/chance", test_chance);
  g_test_add_func ("/pl/probes/deterministic-once", test_deterministic_once);
  return g_test_run ();
}
