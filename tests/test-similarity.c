/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-similarity.h"
#include "pl-test-util.h"

/* The fixtures' float64 cosines, stored float32: float32 math lands within 1e-5. */
#define COSINE_TOL 1e-5

static void
test_cosine_gpt2 (void)
{
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-gpt2", "reference.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (weights, "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0");
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (reference, "/position_table/cosine");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) cos = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (cos->rows, ==, 512);
  g_assert_cmpfloat (pl_test_max_abs_diff (cos, ref), <, COSINE_TOL);
}

/* Closed form: rows of the Vaswani table have norm² = width/2, and their dot
 * product is Σ_k cos(ω_k (i − j)), so the cosine depends on the offset only. */
static void
test_cosine_sinusoid_closed_form (void)
{
  g_autofree char *path = pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (path, "/position_embeddings");
  g_autoptr(PlMatrix) sim = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  gsize half = table->cols / 2;

  for (gsize i = 0; i < table->rows; i += 17)
    for (gsize j = 0; j < table->rows; j += 13)
      {
        double expect = 0;
        for (gsize k = 0; k < half; k++)
          expect += cos ((double) ((long) i - (long) j) * pow (10000.0, -2.0 * k / table->cols));
        expect /= half;
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (sim, i, j), expect, 1e-5);
      }
}

/* Dot and Euclidean against a direct double-precision loop. */
static void
test_dot_and_l2 (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (37, 11);
  g_autoptr(PlMatrix) dot = NULL;
  g_autoptr(PlMatrix) l2 = NULL;
  GRand *rand = g_rand_new_with_seed (7);

  for (gsize i = 0; i < x->rows * x->cols; i++)
    x->data[i] = (float) g_rand_double_range (rand, -2, 2);
  g_rand_free (rand);

  dot = pl_similarity_compute (x, PL_SIMILARITY_DOT, FALSE, NULL, NULL);
  l2 = pl_similarity_compute (x, PL_SIMILARITY_L2, FALSE, NULL, NULL);
  for (gsize i = 0; i < x->rows; i++)
    for (gsize j = 0; j < x->rows; j++)
      {
        double d = 0, e = 0;
        for (gsize k = 0; k < x->cols; k++)
          {
            d += (double) pl_matrix_get (x, i, k) * pl_matrix_get (x, j, k);
            e += pow ((double) pl_matrix_get (x, i, k) - pl_matrix_get (x, j, k), 2);
          }
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (dot, i, j), d, 1e-4);
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (l2, i, j), sqrt (e), 1e-3);
      }
}

/* A zero row has no direction: its cosines are NaN, the others are untouched. */
static void
test_cosine_zero_row (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (3, 2);
  g_autoptr(PlMatrix) cos = NULL;

  x->data[0] = 1; x->data[1] = 0;
  x->data[4] = 0; x->data[5] = 2;
  cos = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  g_assert_true (isnan (pl_matrix_get (cos, 1, 1)));
  g_assert_true (isnan (pl_matrix_get (cos, 0, 1)));
  g_assert_cmpfloat (pl_matrix_get (cos, 0, 2), ==, 0.0f);
  g_assert_cmpfloat (pl_matrix_get (cos, 2, 2), ==, 1.0f);
}

/* The cosine refuses a table with zero rows, naming each position; centred,
 * or by the dot product or distance, the same table is compared. */
static void
test_check_rows (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (6, 3);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 6; i++)
    if (i != 1 && i != 4)
      x->data[i * 3 + i % 3] = 1.0f + i;
  g_assert_false (pl_similarity_check_rows (x, 10, PL_SIMILARITY_COSINE, FALSE, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_BAD_VALUES);
  g_assert_nonnull (strstr (error->message, "positions 11 and 14 are all zeros"));
  g_clear_error (&error);
  g_assert_true (pl_similarity_check_rows (x, 0, PL_SIMILARITY_COSINE, TRUE, &error));
  g_assert_true (pl_similarity_check_rows (x, 0, PL_SIMILARITY_DOT, FALSE, &error));
  g_assert_true (pl_similarity_check_rows (x, 0, PL_SIMILARITY_L2, FALSE, &error));
  g_assert_no_error (error);

  x->data[1 * 3 + 0] = 1e-30f;
  x->data[4 * 3 + 2] = -2.0f;
  g_assert_true (pl_similarity_check_rows (x, 0, PL_SIMILARITY_COSINE, FALSE, &error));
  g_assert_no_error (error);
}

static void
test_rejects_nan (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (2, 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) cos = NULL;

  x->data[3] = NAN;
  cos = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_assert_null (cos);
  g_assert_nonnull (error);
}

/* Every demo checkpoint, read as the app reads it (mini-roberta's real rows
 * are 2..513 of its table), against its reference cosines. */
static void
check_cosine_model (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = pl_test_demo (name, NULL);
  g_autofree char *reference = pl_test_fixture (name, "reference.h5", NULL);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (reference, "/position_table/cosine");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) cos = NULL;

  g_assert_no_error (error);
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  cos = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pl_test_max_abs_diff (cos, ref), <, COSINE_TOL);
}

/* Centring: cosines of the rows minus their mean (a double loop), and the
 * Euclidean distance, which no translation changes. */
static void
test_center (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (23, 9);
  g_autoptr(PlMatrix) cos = NULL;
  g_autoptr(PlMatrix) l2 = NULL;
  g_autoptr(PlMatrix) l2c = NULL;
  double mean[9] = { 0 };
  GRand *rand = g_rand_new_with_seed (9);

  for (gsize i = 0; i < x->rows * x->cols; i++)
    x->data[i] = (float) g_rand_double_range (rand, 3, 5);
  g_rand_free (rand);
  for (gsize i = 0; i < 23; i++)
    for (gsize k = 0; k < 9; k++)
      mean[k] += pl_matrix_get (x, i, k) / 23.0;

  cos = pl_similarity_compute (x, PL_SIMILARITY_COSINE, TRUE, NULL, NULL);
  l2 = pl_similarity_compute (x, PL_SIMILARITY_L2, FALSE, NULL, NULL);
  l2c = pl_similarity_compute (x, PL_SIMILARITY_L2, TRUE, NULL, NULL);
  for (gsize i = 0; i < 23; i++)
    for (gsize j = 0; j < 23; j++)
      {
        double dot = 0, ni = 0, nj = 0;
        for (gsize k = 0; k < 9; k++)
          {
            double a = pl_matrix_get (x, i, k) - mean[k], b = pl_matrix_get (x, j, k) - mean[k];
            dot += a * b;
            ni += a * a;
            nj += b * b;
          }
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (cos, i, j), dot / sqrt (ni * nj), 1e-5);
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (l2c, i, j), pl_matrix_get (l2, i, j), 1e-3);
      }
}

/* Rows that are copies of one another, scaled by 3 or by −3: their
 * cosines are ±1 up to float rounding, which can land just past ±1 in the
 * product; no cosine leaves [−1, 1]. */
static void
test_cosine_within_one (void)
{
  const gsize n = 300, d = 768;
  g_autoptr(PlMatrix) x = pl_matrix_new (n, d);
  g_autoptr(PlMatrix) cos = NULL;
  GRand *rand = g_rand_new_with_seed (13);

  for (gsize i = 0; i < n; i += 3)
    for (gsize k = 0; k < d; k++)
      {
        float v = (float) g_rand_double_range (rand, -1, 1);

        pl_matrix_row (x, i)[k] = v;
        if (i + 1 < n)
          pl_matrix_row (x, i + 1)[k] = 3 * v;
        if (i + 2 < n)
          pl_matrix_row (x, i + 2)[k] = -3 * v;
      }
  g_rand_free (rand);
  cos = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      {
        float c = pl_matrix_get (cos, i, j);

        g_assert_cmpfloat (c, <=, 1.0f);
        g_assert_cmpfloat (c, >=, -1.0f);
        if (i / 3 == j / 3)
          g_assert_cmpfloat_with_epsilon (fabsf (c), 1.0f, 1e-6);
      }
}

/* A table large enough to be cut into pieces over two threads (1453 rows:
 * blocks of 384, the last block row 301 high, ten blocks; the diagonal
 * ones mirrored by strips of 64), every entry against a double loop, both
 * triangles alike and bitwise equal, the cosine's diagonal exactly 1. Fails
 * when a block is skipped or mirrored to the wrong place. */
static void
test_blocks_many (void)
{
  const gsize n = 1453, d = 37;
  g_autoptr(PlMatrix) x = pl_matrix_new (n, d);
  g_autoptr(PlMatrix) cos = NULL;
  g_autoptr(PlMatrix) dot = NULL;
  g_autofree double *norm = g_new0 (double, n);
  GRand *rand = g_rand_new_with_seed (11);
  double worst_cos = 0, worst_dot = 0;

  for (gsize i = 0; i < n * d; i++)
    x->data[i] = (float) g_rand_double_range (rand, -1, 1);
  g_rand_free (rand);
  cos = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  dot = pl_similarity_compute (x, PL_SIMILARITY_DOT, FALSE, NULL, NULL);

  for (gsize i = 0; i < n; i++)
    for (gsize k = 0; k < d; k++)
      norm[i] += (double) pl_matrix_get (x, i, k) * pl_matrix_get (x, i, k);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      {
        double expect = 0;

        for (gsize k = 0; k < d; k++)
          expect += (double) pl_matrix_get (x, i, k) * pl_matrix_get (x, j, k);
        worst_dot = MAX (worst_dot, fabs (pl_matrix_get (dot, i, j) - expect));
        worst_cos = MAX (worst_cos, fabs (pl_matrix_get (cos, i, j) - expect / sqrt (norm[i] * norm[j])));
        g_assert_true (pl_matrix_get (cos, i, j) == pl_matrix_get (cos, j, i));
        g_assert_true (pl_matrix_get (dot, i, j) == pl_matrix_get (dot, j, i));
      }
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat (pl_matrix_get (cos, i, i), ==, 1.0f);
  g_assert_cmpfloat (worst_cos, <, COSINE_TOL);
  g_assert_cmpfloat (worst_dot, <, 1e-4);
}

static gboolean
cosine_of (gpointer       data,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(PlMatrix) cos = pl_similarity_compute (data, PL_SIMILARITY_COSINE, TRUE, cancellable, error);

  return cos != NULL;
}

/* Cancelled before it starts, it answers nothing (every block of the
 * product looks at the cancellable, and an answer with a block left out is
 * no answer); cancelled while it works, it stops between blocks. */
static void
test_cancel (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (3072, 768);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (5);

  for (gsize i = 0; i < x->rows * x->cols; i++)
    x->data[i] = (float) g_rand_double_range (rand, -1, 1);
  g_rand_free (rand);

  g_cancellable_cancel (cancellable);
  g_assert_null (pl_similarity_compute (x, PL_SIMILARITY_DOT, FALSE, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  pl_test_assert_cancels (cosine_of, x);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/similarity/cosine-gpt2", test_cosine_gpt2);
  g_test_add_func ("/pl/similarity/cosine-sinusoid-closed-form", test_cosine_sinusoid_closed_form);
  g_test_add_func ("/pl/similarity/dot-and-l2", test_dot_and_l2);
  g_test_add_func ("/pl/similarity/cosine-zero-row", test_cosine_zero_row);
  g_test_add_func ("/pl/similarity/check-rows", test_check_rows);
  g_test_add_func ("/pl/similarity/rejects-nan", test_rejects_nan);
  g_test_add_func ("/pl/similarity/center", test_center);
  g_test_add_func ("/pl/similarity/cosine-within-one", test_cosine_within_one);
  g_test_add_func ("/pl/similarity/blocks-many", test_blocks_many);
  g_test_add_func ("/pl/similarity/cancel", test_cancel);
  g_test_add_data_func ("/pl/similarity/cosine-model/mini-gpt2", "mini-gpt2", check_cosine_model);
  g_test_add_data_func ("/pl/similarity/cosine-model/mini-bert", "mini-bert", check_cosine_model);
  g_test_add_data_func ("/pl/similarity/cosine-model/mini-roberta", "mini-roberta", check_cosine_model);
  return g_test_run ();
}
