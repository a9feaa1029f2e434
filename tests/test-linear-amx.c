/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-cpu.h"
#include "pl-linear.h"
#include "pl-linear-amx.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* The float32 linear layer on AMX tiles (pl-linear-amx.c) against the sum
 * in double and against the plain path. Splitting x and w into two BF16
 * terms each and dropping x_lo·w_lo leaves at most 3·2⁻¹⁸ ≈ 1.1e-5 of
 * Σ|x·w| per output; float32 summation adds about as much as SGEMM's. The
 * tolerance, 2e-5 of Σ|x·w| + |b| + |residual|, holds both; dropping any
 * of the three products costs about 2⁻⁹ ≈ 2e-3 of it. Where the processor
 * has no AMX, or POSLENS_DISABLE_SIMD is set (the -scalar run), there are
 * no tiles and pl_linear is the plain path. */

#define SPLIT_TOL 2e-5

/* Shapes no 32-block divides: ragged rows and columns, K short of, just
 * past and well past a multiple of 32 and past one chunk of K (768). */
static void
test_products (void)
{
  static const struct { gsize t, k, n; gboolean residual; PlActivation activation; } cases[] = {
    { 1, 1, 1, FALSE, PL_ACTIVATION_NONE },
    { 37, 40, 300, FALSE, PL_ACTIVATION_GELU },
    { 130, 33, 1000, TRUE, PL_ACTIVATION_NONE },
    { 33, 95, 17, TRUE, PL_ACTIVATION_NONE },
    { 64, 800, 64, TRUE, PL_ACTIVATION_NONE },
    { 45, 1700, 70, FALSE, PL_ACTIVATION_GELU },
    { 17, 2320, 33, TRUE, PL_ACTIVATION_NONE },
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (2024);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize t = cases[i].t, k = cases[i].k, n = cases[i].n;
      /* values over four orders of magnitude, as trained weights and activations have */
      g_autoptr(PlMatrix) x = pl_test_random_matrix (rand, t, k, 3.0);
      g_autoptr(PlMatrix) w = pl_test_random_matrix (rand, k, n, 0.05);
      g_autoptr(PlMatrix) b = pl_test_random_matrix (rand, 1, n, 1.0);
      g_autoptr(PlMatrix) res = cases[i].residual ? pl_test_random_matrix (rand, t, n, 1.0) : NULL;
      g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
      g_autoptr(PlLinearTiles) tiles = NULL;
      g_autoptr(GError) error = NULL;
      double worst = 0, worst_plain = 0;

      for (gsize j = 0; j < k; j += 7)
        for (gsize c = 0; c < n; c++)
          pl_matrix_row (w, j)[c] *= (float) pow (10.0, (double) (j + c) / 7 - floor ((double) (j + c) / 7) - 0.5);
      tiles = pl_linear_tiles_new (w, NULL, &error);
      g_assert_no_error (error);
      if (tiles == NULL)
        {
          g_assert_false (pl_cpu_has_amx_bf16 ());
          g_test_skip ("no AMX-BF16 here, or POSLENS_DISABLE_SIMD set");
          return;
        }
      g_assert_cmpuint (pl_linear_tiles_size (tiles), ==, (k + 31) / 32 * 32 * ((n + 31) / 32 * 32) * 4);
      g_assert_true (pl_linear (x, w, tiles, b, res, cases[i].activation, tuned, NULL));
      pl_linear_plain (x, w, b, res, cases[i].activation, plain);
      for (gsize r = 0; r < t; r++)
        for (gsize c = 0; c < n; c++)
          {
            double sum = b->data[c] + (res != NULL ? pl_matrix_row (res, r)[c] : 0);
            double size = fabs (b->data[c]) + (res != NULL ? fabs (pl_matrix_row (res, r)[c]) : 0);
            double scale = 1.0;

            for (gsize j = 0; j < k; j++)
              {
                double p = (double) pl_matrix_row (x, r)[j] * pl_matrix_row (w, j)[c];

                sum += p;
                size += fabs (p);
              }
            if (cases[i].activation == PL_ACTIVATION_GELU)
              {
                /* GELU's slope is within [−0.13, 1.13] */
                sum = 0.5 * sum * (1 + erf (sum / sqrt (2)));
                scale = 1.13;
              }
            worst = MAX (worst, fabs (pl_matrix_row (tuned, r)[c] - sum) / (scale * size));
            worst_plain = MAX (worst_plain, fabs (pl_matrix_row (plain, r)[c] - sum) / (scale * size));
          }
      g_test_message ("%zu × %zu × %zu: tuned %.2g, plain %.2g of Σ|x·w|", t, k, n, worst, worst_plain);
      g_assert_cmpfloat (worst, <=, SPLIT_TOL);
      g_assert_cmpfloat (worst_plain, <=, SPLIT_TOL);
    }
}

/* Zeros, subnormal weights and huge values: nothing turns into NaN, and a
 * zero row of X gives the bias exactly. */
static void
test_edges (void)
{
  gsize t = 40, k = 70, n = 50;
  g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
  g_autoptr(PlMatrix) w = pl_matrix_new (k, n);
  g_autoptr(PlMatrix) b = pl_matrix_new (1, n);
  g_autoptr(PlMatrix) out = pl_matrix_new (t, n);
  g_autoptr(PlLinearTiles) tiles = NULL;

  for (gsize i = 0; i < k * n; i++)
    w->data[i] = i % 3 == 0 ? 1e-40f : i % 3 == 1 ? 1e30f : -0.5f;
  for (gsize r = 1; r < t; r++)
    for (gsize j = 0; j < k; j++)
      pl_matrix_row (x, r)[j] = (float) (j % 5) * 1e-3f;
  for (gsize c = 0; c < n; c++)
    b->data[c] = (float) c;
  if (!(tiles = pl_linear_tiles_new (w, NULL, NULL)))
    {
      g_test_skip ("no AMX-BF16 here, or POSLENS_DISABLE_SIMD set");
      return;
    }
  g_assert_true (pl_linear (x, NULL, tiles, b, NULL, PL_ACTIVATION_NONE, out, NULL));
  for (gsize c = 0; c < n; c++)
    g_assert_cmpfloat (pl_matrix_row (out, 0)[c], ==, (float) c);
  for (gsize i = 0; i < t * n; i++)
    g_assert_true (isfinite (out->data[i]));
}

/* The fixtures' forward passes against Hugging Face's with the tolerances
 * of the other transformer tests: on the tiles here, on the plain path in
 * the -scalar run. */
static void
test_fixtures (void)
{
  for (guint f = 0; f < 2; f++)
    {
      g_autoptr(PlTransformer) transformer = pl_test_raw_transformer (&pl_test_fixtures[f]);

      pl_test_transformer_check_reference (transformer, pl_test_fixtures[f].name);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pl/linear-amx/products", test_products);
  g_test_add_func ("/pl/linear-amx/edges", test_edges);
  g_test_add_func ("/pl/linear-amx/fixtures", test_fixtures);
  return g_test_run ();
}
