/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-linear.h"
#include "pl-transformer.h"
#include "pl-transformer-kernels.h"
#include "pl-test-util.h"
#include "pl-test-transformer.h"

/* The encoders' kernels (exp, GELU, LayerNorm, softmax) on both instruction
 * sets and the linear layer split over threads, against their definitions
 * in double. */

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

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/transformer/kernels", test_kernels);
  g_test_add_func ("/pl/transformer/linear", test_linear);

  return g_test_run ();
}
