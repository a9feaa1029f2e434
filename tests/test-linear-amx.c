/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-kernel-emulation.h"
#include "pl-linear.h"
#include "pl-linear-amx.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* The float32 linear layer on AMX tiles (pl-linear-amx.c) and its
 * emulation (pl-kernel-emulation.c) against the sum in double and against
 * the plain path. Splitting x and w into two BF16 terms each and dropping
 * x_lo·w_lo leaves at most 3·2⁻¹⁸ ≈ 1.1e-5 of Σ|x·w| per output; float32
 * summation adds about as much as SGEMM's. The tolerance, 2e-5 of Σ|x·w| +
 * |b| + |residual|, holds both; dropping any of the three products costs
 * about 2⁻⁹ ≈ 2e-3 of it. The emulation runs on every machine, and where
 * the processor has AVX-512 BF16 the kernel's own code on emulated tiles
 * gives its bits (check_on_emulated_tiles); where the
 * processor has AMX-BF16 (and POSLENS_DISABLE_SIMD is not set, as it is in
 * the -scalar run) the tiles run too, and are held to their emulation
 * within NATIVE_TOL of the same units: the emulation follows the SDM's
 * TDPBF16PS, so a kernel that computes what it should differs from it at
 * most by the order of a product's roundings inside the tile unit (about
 * 1e-7), while a wrong tile, panel or chunk is 1e-5 at least. */

#define SPLIT_TOL 2e-5
#define NATIVE_TOL 2e-6

/* pl-linear-amx.c's own code (packing, splitting, panel groups, chunks of
 * K, finishing) on tiles emulated in C, where the processor has AVX-512
 * BF16: the same bits as the emulation one number at a time. */
static void
check_on_emulated_tiles (const PlMatrix *x,
                         const PlMatrix *w,
                         const PlMatrix *b,
                         const PlMatrix *res,
                         PlActivation    activation,
                         const PlMatrix *emulated)
{
  g_autoptr(PlMatrix) on_tiles = pl_matrix_new (x->rows, w->cols);
  g_autoptr(PlLinearTiles) tiles = NULL;
  g_autoptr(GError) error = NULL;

  tiles = pl_linear_tiles_new_on_emulated_tiles (w, NULL, &error);
  g_assert_no_error (error);
  if (tiles == NULL)
    return;
  g_assert_true (pl_linear_amx_on_emulated_tiles (x, tiles, b, res, activation, on_tiles));
  g_assert_cmpmem (on_tiles->data, x->rows * w->cols * sizeof (float), emulated->data,
                   x->rows * w->cols * sizeof (float));
  g_test_message ("  the kernel's code on emulated tiles: the same bits");
}

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
      g_autoptr(PlMatrix) emulated = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
      g_autoptr(PlLinearTiles) tiles = NULL;
      g_autoptr(GError) error = NULL;
      double worst = 0, worst_plain = 0, worst_native = 0;
      gsize same = 0;

      for (gsize j = 0; j < k; j += 7)
        for (gsize c = 0; c < n; c++)
          pl_matrix_row (w, j)[c] *= (float) pow (10.0, (double) (j + c) / 7 - floor ((double) (j + c) / 7) - 0.5);
      tiles = pl_linear_tiles_new (w, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (tiles != NULL, ==, pl_kernel_runs_natively (PL_KERNEL_AMX_TILES));
      if (tiles != NULL)
        {
          g_assert_cmpuint (pl_linear_tiles_size (tiles), ==, (k + 31) / 32 * 32 * ((n + 31) / 32 * 32) * 4);
          g_assert_true (pl_linear (x, w, tiles, b, res, cases[i].activation, tuned, NULL));
        }
      pl_linear_amx_emulated (x, w, b, res, cases[i].activation, emulated);
      pl_linear_plain (x, w, b, res, cases[i].activation, plain);
      check_on_emulated_tiles (x, w, b, res, cases[i].activation, emulated);
      for (gsize r = 0; r < t; r++)
        for (gsize c = 0; c < n; c++)
          {
            double sum = b->data[c] + (res != NULL ? pl_matrix_row (res, r)[c] : 0);
            double size = fabs (b->data[c]) + (res != NULL ? fabs (pl_matrix_row (res, r)[c]) : 0);
            double scale = 1.0;
            float e = pl_matrix_row (emulated, r)[c], u = pl_matrix_row (tuned, r)[c];

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
            worst = MAX (worst, fabs (e - sum) / (scale * size));
            worst_plain = MAX (worst_plain, fabs (pl_matrix_row (plain, r)[c] - sum) / (scale * size));
            if (tiles != NULL)
              {
                worst_native = MAX (worst_native, fabs (u - e) / (scale * size));
                same += memcmp (&u, &e, sizeof u) == 0;
              }
          }
      g_test_message ("%zu × %zu × %zu: emulation %.2g, plain %.2g of Σ|x·w|", t, k, n, worst, worst_plain);
      if (tiles != NULL)
        g_test_message ("  native %.2g from the emulation, %zu of %zu the same bits", worst_native, same, t * n);
      g_assert_cmpfloat (worst, <=, SPLIT_TOL);
      g_assert_cmpfloat (worst_plain, <=, SPLIT_TOL);
      g_assert_cmpfloat (worst_native, <=, NATIVE_TOL);
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
  g_autoptr(PlMatrix) emulated = pl_matrix_new (t, n);
  g_autoptr(PlLinearTiles) tiles = NULL;

  for (gsize i = 0; i < k * n; i++)
    w->data[i] = i % 3 == 0 ? 1e-40f : i % 3 == 1 ? 1e30f : -0.5f;
  for (gsize r = 1; r < t; r++)
    for (gsize j = 0; j < k; j++)
      pl_matrix_row (x, r)[j] = (float) (j % 5) * 1e-3f;
  for (gsize c = 0; c < n; c++)
    b->data[c] = (float) c;
  pl_linear_amx_emulated (x, w, b, NULL, PL_ACTIVATION_NONE, emulated);
  check_on_emulated_tiles (x, w, b, NULL, PL_ACTIVATION_NONE, emulated);
  for (gsize c = 0; c < n; c++)
    g_assert_cmpfloat (pl_matrix_row (emulated, 0)[c], ==, (float) c);
  for (gsize i = 0; i < t * n; i++)
    g_assert_true (isfinite (emulated->data[i]));
  if (!(tiles = pl_linear_tiles_new (w, NULL, NULL)))
    {
      g_test_message ("no AMX-BF16 here, or POSLENS_DISABLE_SIMD set: the emulation alone");
      return;
    }
  g_assert_true (pl_linear (x, NULL, tiles, b, NULL, PL_ACTIVATION_NONE, out, NULL));
  for (gsize c = 0; c < n; c++)
    g_assert_cmpfloat (pl_matrix_row (out, 0)[c], ==, (float) c);
  for (gsize i = 0; i < t * n; i++)
    g_assert_true (isfinite (out->data[i]));
  /* the tiles flush what the emulation flushes */
  for (gsize r = 0; r < t; r++)
    for (gsize c = 0; c < n; c++)
      {
        double size = fabs (b->data[c]);

        for (gsize j = 0; j < k; j++)
          size += fabs ((double) pl_matrix_row (x, r)[j] * pl_matrix_row (w, j)[c]);
        g_assert_cmpfloat (fabs (pl_matrix_row (out, r)[c] - pl_matrix_row (emulated, r)[c]), <=, NATIVE_TOL * size);
      }
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
  pl_test_init (&argc, &argv);
  pl_test_print_kernels ();
  g_test_add_func ("/pl/linear-amx/products", test_products);
  g_test_add_func ("/pl/linear-amx/edges", test_edges);
  g_test_add_func ("/pl/linear-amx/fixtures", test_fixtures);
  return g_test_run ();
}
