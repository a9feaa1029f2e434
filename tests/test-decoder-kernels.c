/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-attention-heads.h"
#include "pl-fused-attention.h"
#include "pl-kernel-emulation.h"
#include "pl-stored-gemm.h"
#include "pl-stored-gemm-private.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"

/* The kernels the decoders' layers run: the GEMM on weights kept as stored
 * (F32, F16, BF16) against the product in double, its tuned paths against
 * the plain one, and the attention against its definition in double.
 *
 * Where BF16 weights are multiplied with AVX-512 BF16 dot products, the
 * activations are rounded to BF16 first (to nearest; BF16 keeps 8 bits):
 * each x moves by at most 2⁻⁸ |x|, so each result by at most 2⁻⁸ Σ|x·w|
 * plus float32's summation error (below 2⁻²³ K Σ|x·w| for these K): the
 * bound the tests hold it to against double, in units of Σ|x·w|. */

#define BF16_BOUND (1.0 / 256 + 2.5e-4)

/* The stored-precision GEMM against float64 sums, for each precision. */
static void
test_stored_gemm (void)
{
  static const PlStoredType types[] = { PL_STORED_F32, PL_STORED_F16, PL_STORED_BF16 };
  gsize t = 37, k = 70, n = 53;

  for (guint ti = 0; ti < G_N_ELEMENTS (types); ti++)
    {
      g_autoptr(PlStoredMatrix) w = pl_stored_matrix_try_new (types[ti], n, k, NULL);
      g_autoptr(PlMatrix) wf = pl_matrix_new (n, k);
      g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
      g_autoptr(PlMatrix) bias = pl_matrix_new (1, n);
      g_autoptr(PlMatrix) res = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) out = pl_matrix_new (t, n);

      for (gsize i = 0; i < n * k; i++)
        {
          /* a value every precision holds exactly: (i mod 61 − 30) / 32 */
          float v = (float) ((int) (i % 61) - 30) / 32.0f;
          guint32 bits;

          memcpy (&bits, &v, 4);
          if (types[ti] == PL_STORED_F32)
            ((float *) w->data)[i] = v;
          else if (types[ti] == PL_STORED_BF16)
            ((guint16 *) w->data)[i] = bits >> 16;
          else
            ((guint16 *) w->data)[i] = (guint16) (v == 0 ? 0 : ((bits >> 16) & 0x8000) |
                                                  ((((bits >> 23) & 0xff) - 112) << 10) | ((bits >> 13) & 0x3ff));
          wf->data[i] = v;
        }
      for (gsize i = 0; i < t * k; i++)
        x->data[i] = (float) sin (0.37 * i);
      for (gsize j = 0; j < n; j++)
        bias->data[j] = 0.01f * j;
      for (gsize i = 0; i < t * n; i++)
        res->data[i] = (float) cos (0.11 * i);
      pl_stored_gemm (x, w, bias, res, out);
      for (gsize r = 0; r < t; r++)
        for (gsize c = 0; c < n; c++)
          {
            double sum = bias->data[c] + res->data[r * n + c], size = 0;

            for (gsize i = 0; i < k; i++)
              {
                sum += (double) x->data[r * k + i] * wf->data[c * k + i];
                size += fabs ((double) x->data[r * k + i] * wf->data[c * k + i]);
              }
            g_assert_cmpfloat (fabs (out->data[r * n + c] - sum), <,
                               1e-4 + (pl_stored_gemm_rounds_activations (w) ? BF16_BOUND * size : 0));
          }
    }
}

static float
noise (gsize i)
{
  return (float) sin (0.731 * i + 0.2 * (i % 7)) * (1.0f + (float) (i % 5) / 4.0f);
}

/* |x|·|w| summed for OUT's element R, C: the scale of its rounding. */
static double
product_size (const PlMatrix *x,
              const PlMatrix *wf,
              gsize           r,
              gsize           c)
{
  double size = 0;

  for (gsize i = 0; i < x->cols; i++)
    size += fabs ((double) pl_matrix_get (x, r, i) * pl_matrix_get (wf, c, i));
  return size;
}

/* Shapes [T, N, K] no kernel block divides: rows of X and of W, and K,
 * past a whole number of tiles and of 32-element steps; and one of many
 * panels (grouped, several 32-row blocks of activations). */
static const gsize gemm_shapes[][3] = { { 45, 70, 96 }, { 33, 50, 64 }, { 3, 17, 40 }, { 64, 64, 2048 },
                                        { 100, 1000, 72 }, { 1, 1, 1 }, { 2, 9, 31 }, { 4, 7, 33 },
                                        { 7, 24, 2053 } };

/* The tuned GEMM (AMX tiles for BF16 weights where the processor has them,
 * else AVX-512 BF16 dot products) against the plain one and against
 * double, on shapes no kernel block divides (rows of X and of W, and K, past
 * a whole number of tiles and of 32-element steps) and one of many panels
 * (grouped, several 32-row blocks of activations); with a bias. */
static void
test_tuned_gemm (void)
{
  for (guint s = 0; s < G_N_ELEMENTS (gemm_shapes); s++)
    {
      gsize t = gemm_shapes[s][0], n = gemm_shapes[s][1], k = gemm_shapes[s][2];
      g_autoptr(PlStoredMatrix) w = pl_stored_matrix_try_new (PL_STORED_BF16, n, k, NULL);
      g_autoptr(PlStoredMatrix) tiles = NULL;
      g_autoptr(PlMatrix) wf = NULL;
      g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
      g_autoptr(PlMatrix) bias = pl_matrix_new (1, n);
      g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
      double worst = 0, scale = 0, worst_exact = 0, worst_plain = 0;

      for (gsize i = 0; i < n * k; i++)
        {
          float v = 0.05f * noise (i + 3);
          guint32 bits;

          memcpy (&bits, &v, 4);
          ((guint16 *) w->data)[i] = bits >> 16;
        }
      wf = pl_stored_matrix_to_matrix (w, NULL);
      for (gsize i = 0; i < t * k; i++)
        x->data[i] = noise (7 * i + 1);
      for (gsize j = 0; j < n; j++)
        bias->data[j] = noise (j);
      /* W in tile order, packed as the model's loading packs it */
      tiles = pl_stored_gemm_prepare (w, NULL, NULL);
      if (pl_cpu_has_amx_bf16 ())
        {
          g_autoptr(PlMatrix) unpacked = pl_stored_matrix_to_matrix (tiles, NULL);
          g_autoptr(PlMatrix) plain_tiles = pl_matrix_new (t, n);

          g_assert_cmpint (tiles->type, ==, PL_STORED_BF16_TILES);
          g_assert_true (pl_stored_matrix_all_finite (tiles));
          /* the tiles hold W's numbers, each where it belongs */
          g_assert_cmpmem (unpacked->data, n * k * sizeof (float), wf->data, n * k * sizeof (float));
          pl_stored_gemm_plain (x, tiles, bias, NULL, plain_tiles);
          pl_stored_gemm_plain (x, w, bias, NULL, plain);
          g_assert_cmpfloat (pl_test_max_abs_diff (plain_tiles, plain), ==, 0);
        }
      pl_stored_gemm (x, tiles, bias, NULL, tuned);
      pl_stored_gemm_plain (x, w, bias, NULL, plain);
      worst = pl_test_max_abs_diff (tuned, plain);
      scale = pl_test_max_abs (plain);
      for (gsize r = 0; r < t; r++)
        for (gsize c = 0; c < n; c++)
          {
            double exact = bias->data[c], size = product_size (x, wf, r, c);

            for (gsize i = 0; i < k; i++)
              exact += (double) pl_matrix_get (x, r, i) * pl_matrix_get (wf, c, i);
            worst_exact = MAX (worst_exact, fabs (pl_matrix_get (tuned, r, c) - exact) / size);
            worst_plain = MAX (worst_plain, fabs (pl_matrix_get (tuned, r, c) - pl_matrix_get (plain, r, c)) / size);
          }
      g_test_message ("%" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT ": tuned − plain %.2g of %.2g; "
                      "in units of Σ|x·w|: %.2g from double, %.2g from plain", t, n, k, worst, scale, worst_exact,
                      worst_plain);
      if (pl_stored_gemm_rounds_activations (tiles))
        {
          g_assert_cmpfloat (worst_exact, <, BF16_BOUND);
          g_assert_cmpfloat (worst_plain, <, BF16_BOUND);
        }
      else
        g_assert_cmpfloat (worst, <, 2e-6 * scale);
    }
}

/* Where a kernel runs natively, its outputs against its emulation's, in
 * units of Σ|x·w|: the emulation follows the SDM's definition of the BF16
 * products, so a native kernel that computes what it should gives the same
 * bits (every output on AMD's AVX-512 BF16), and the tolerance leaves room
 * only for a processor that orders a product's roundings otherwise (about
 * 1e-7 of Σ|x·w| at these K). A wrong tile, step or rounding of X is 1e-5
 * at least. */
#define NATIVE_TOL 2e-6

/* Largest |A − B| in units of the element's Σ|x·w| (+ TINY), and how many
 * elements are the same bits. */
static double
off_in_sizes (const PlMatrix *a,
              const PlMatrix *b,
              const PlMatrix *x,
              const PlMatrix *wf,
              double          tiny,
              gsize          *same)
{
  double worst = 0;

  *same = 0;
  for (gsize r = 0; r < a->rows; r++)
    for (gsize c = 0; c < a->cols; c++)
      {
        float u = pl_matrix_get (a, r, c), v = pl_matrix_get (b, r, c);

        *same += memcmp (&u, &v, sizeof u) == 0;
        worst = MAX (worst, fabs ((double) u - v) / (product_size (x, wf, r, c) + tiny));
      }
  return worst;
}

/* A BF16 weight of noise, or of numbers at BF16's edges: denormals (read as
 * zero by the products), and products under float32's normal range
 * (flushed to zero). */
static PlStoredMatrix *
bf16_weight (gsize    n,
             gsize    k,
             gboolean edges)
{
  static const guint16 special[] = { 0x0001, 0x8003, 0x1f80, 0x9f00, 0x3f80, 0xbf81, 0x0000, 0x4120 };
  PlStoredMatrix *w = pl_stored_matrix_try_new (PL_STORED_BF16, n, k, NULL);

  for (gsize i = 0; i < n * k; i++)
    {
      float v = 0.05f * noise (i + 3);
      guint32 bits;

      memcpy (&bits, &v, 4);
      ((guint16 *) w->data)[i] = edges && i % 3 == 0 ? special[i / 3 % G_N_ELEMENTS (special)] : bits >> 16;
    }
  return w;
}

/* Activations of noise, or with denormals, ties of BF16's rounding (even
 * and odd), tiny numbers and numbers BF16 rounds up to a new exponent. */
static PlMatrix *
activations (gsize    t,
             gsize    k,
             gboolean edges)
{
  static const guint32 special[] = { 0x00000003, 0x80400000, 0x3f808000, 0x3f818000, 0x1f000001,
                                     0x3fffffff, 0xbf7fff80, 0x00800000 };
  PlMatrix *x = pl_matrix_new (t, k);

  for (gsize i = 0; i < t * k; i++)
    {
      x->data[i] = noise (7 * i + 1);
      if (edges && i % 2 == 0)
        memcpy (&x->data[i], &special[i / 2 % G_N_ELEMENTS (special)], 4);
    }
  return x;
}

/* Each tuned GEMM's emulation (pl-kernel-emulation.c) on every machine:
 * against the plain path and double within the kernel's own bound (BF16
 * dot products: BF16_BOUND; AMX's three-term split: 2e-6 of the largest
 * output, as test_tuned_gemm holds the kernel), with a bias and a
 * residual; W in AMX tile order for the tiles, packed as the model's
 * loading packs it; where the processor has AVX-512 BF16, the AMX
 * kernel's own code on emulated tiles (pl-amx-emulated-tiles.c) gives the
 * emulation's bits. Where the processor runs the kernel: the kernel
 * against its emulation within NATIVE_TOL, and inputs at BF16's edges as
 * well. */
static void
test_emulated_gemm (void)
{
  static const PlKernel kernels[] = { PL_KERNEL_BF16_DOT, PL_KERNEL_AMX_TILES };

  for (guint ki = 0; ki < G_N_ELEMENTS (kernels); ki++)
    for (guint s = 0; s <= G_N_ELEMENTS (gemm_shapes); s++)
      {
        PlKernel kernel = kernels[ki];
        gboolean edges = s == G_N_ELEMENTS (gemm_shapes), native = pl_kernel_runs_natively (kernel);
        gsize t = edges ? 9 : gemm_shapes[s][0], n = edges ? 19 : gemm_shapes[s][1];
        gsize k = edges ? 77 : gemm_shapes[s][2];
        g_autoptr(PlStoredMatrix) w = bf16_weight (n, k, edges);
        g_autoptr(PlStoredMatrix) packed = NULL;
        g_autoptr(PlMatrix) wf = pl_stored_matrix_to_matrix (w, NULL);
        g_autoptr(PlMatrix) x = activations (t, k, edges);
        g_autoptr(PlMatrix) bias = pl_matrix_new (1, n);
        g_autoptr(PlMatrix) res = pl_matrix_new (t, n);
        g_autoptr(PlMatrix) emulated = pl_matrix_new (t, n);
        g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
        double off_plain, off_exact = 0, off_native = 0;
        gsize same = 0, same_native = 0;

        for (gsize j = 0; j < n; j++)
          bias->data[j] = noise (j);
        for (gsize i = 0; i < t * n; i++)
          res->data[i] = 0.5f * noise (3 * i + 2);
        packed = kernel == PL_KERNEL_AMX_TILES ? pl_stored_matrix_to_tiles (w, NULL, NULL) : pl_stored_matrix_ref (w);
        pl_stored_gemm_emulated (x, packed, bias, res, kernel, emulated);
        pl_stored_gemm_plain (x, w, bias, res, plain);
        off_plain = off_in_sizes (emulated, plain, x, wf, 1e-30, &same);
        for (gsize r = 0; r < t; r++)
          for (gsize c = 0; c < n; c++)
            {
              double exact = bias->data[c] + pl_matrix_get (res, r, c);

              for (gsize i = 0; i < k; i++)
                exact += (double) pl_matrix_get (x, r, i) * pl_matrix_get (wf, c, i);
              off_exact = MAX (off_exact, fabs (pl_matrix_get (emulated, r, c) - exact) /
                                          (product_size (x, wf, r, c) + 1e-30));
            }
        if (kernel == PL_KERNEL_AMX_TILES)
          {
            /* the kernel's own code on emulated tiles: its blocking gives
             * the emulation's bits */
            g_autoptr(PlMatrix) on_tiles = pl_matrix_new (t, n);
            g_autoptr(PlMatrix) alone = pl_matrix_new (t, n);

            pl_stored_gemm_emulated (x, packed, NULL, NULL, kernel, alone);
            if (pl_stored_gemm_amx_on_emulated_tiles (x, packed, on_tiles->data, n))
              {
                g_assert_cmpmem (on_tiles->data, t * n * sizeof (float), alone->data, t * n * sizeof (float));
                g_test_message ("  the kernel's code on emulated tiles: the same bits");
              }
          }
        if (native)
          {
            g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);

            pl_stored_gemm (x, packed, bias, res, tuned);
            off_native = off_in_sizes (tuned, emulated, x, wf, 1e-30, &same_native);
          }
        g_test_message ("%s%s %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT ", in units of Σ|x·w|: "
                        "emulation %.2g from plain, %.2g from double; %s", pl_kernel_name (kernel),
                        edges ? " edges" : "", t, n, k, off_plain, off_exact,
                        native ? "native" : "not native here");
        if (native)
          g_test_message ("  native %.2g from the emulation, %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " the same bits",
                          off_native, same_native, t * n);
        g_assert_cmpfloat (off_native, <=, NATIVE_TOL);
        if (edges)
          continue;
        if (kernel == PL_KERNEL_BF16_DOT)
          {
            g_assert_cmpfloat (off_plain, <, BF16_BOUND);
            g_assert_cmpfloat (off_exact, <, BF16_BOUND);
          }
        else
          g_assert_cmpfloat (pl_test_max_abs_diff (emulated, plain), <, 2e-6 * pl_test_max_abs (plain));
      }
}

/* A half float of V (a normal number in half's range), as a block keeps it */
static guint16
half_of (float v)
{
  guint32 bits;

  memcpy (&bits, &v, 4);
  return (guint16) (((bits >> 16) & 0x8000) | ((((bits >> 23) & 0xff) - 112) << 10) | ((bits >> 13) & 0x3ff));
}

/* BF16 of V, rounded to nearest, ties to even (V finite) */
static guint16
bf16_of (float v)
{
  guint32 bits;

  memcpy (&bits, &v, 4);
  return (guint16) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/* Block-quantised weights (ggml's Q8_0, Q4_K and Q6_K, which the tuned path
 * unpacks with AVX-512, and Q4_0 and Q5_K, which it unpacks through
 * pl_stored_blocks_to_float) on the tuned path against the plain one and
 * against double: the unpacked rows are the plain path's float32 rounded to
 * BF16, bit for bit, the products within the BF16 bound, and the same as
 * the emulated BF16 dot products on those rows (which every machine runs
 * against the plain path). Shapes past
 * whole tiles, with W's rows in several blocks a piece. The blocks' bytes
 * are pseudo-random, their scales (halves) between 2⁻⁹ and 2⁻⁶. */
static void
test_quantised_gemm (void)
{
  static const PlStoredType types[] = { PL_STORED_Q8_0, PL_STORED_Q4_K, PL_STORED_Q6_K, PL_STORED_Q4_0,
                                        PL_STORED_Q5_K };
  static const gsize shapes[][3] = { { 45, 70, 256 }, { 3, 17, 512 }, { 100, 300, 2048 }, { 1, 1, 256 } };

  for (guint ti = 0; ti < G_N_ELEMENTS (types); ti++)
    for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
      {
        PlStoredType type = types[ti];
        gsize t = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        gsize block_bytes = pl_stored_type_block_bytes (type), n_blocks = n * k / pl_stored_type_block_elements (type);
        g_autoptr(PlStoredMatrix) w = pl_stored_matrix_try_new (type, n, k, NULL);
        g_autoptr(PlMatrix) wf = NULL;
        g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
        g_autoptr(PlMatrix) tuned = pl_matrix_new (t, n);
        g_autoptr(PlMatrix) plain = pl_matrix_new (t, n);
        g_autoptr(PlMatrix) emulated = pl_matrix_new (t, n);
        g_autoptr(PlStoredMatrix) rounded = pl_stored_matrix_try_new (PL_STORED_BF16, n, k, NULL);
        double worst_exact = 0, worst_plain = 0;
        guint32 state = 12345 + ti;
        gsize same_plain;

        for (gsize i = 0; i < n_blocks * block_bytes; i++)
          {
            state = state * 1664525u + 1013904223u;
            w->data[i] = (guint8) (state >> 24);
          }
        for (gsize b = 0; b < n_blocks; b++)
          {
            guint8 *block = w->data + b * block_bytes;
            guint16 d = GUINT16_TO_LE (half_of (ldexpf (1.0f + (b % 7) / 7.0f, -9 + (int) (b % 4))));
            guint16 m = GUINT16_TO_LE (half_of (ldexpf (1.0f + (b % 5) / 5.0f, -10)));

            if (type == PL_STORED_Q6_K)
              memcpy (block + 208, &d, 2);
            else
              memcpy (block, &d, 2);
            if (type == PL_STORED_Q4_K || type == PL_STORED_Q5_K)
              memcpy (block + 2, &m, 2);
          }
        g_assert_true (pl_stored_matrix_all_finite (w));
        wf = pl_stored_matrix_to_matrix (w, NULL);
        for (gsize i = 0; i < t * k; i++)
          x->data[i] = noise (3 * i + 5);
        /* the tuned path's arithmetic on every machine: W made float32 as
         * the plain path makes it, rounded to BF16, on the emulated BF16 dot
         * products */
        for (gsize i = 0; i < n * k; i++)
          ((guint16 *) rounded->data)[i] = bf16_of (wf->data[i]);
        pl_stored_gemm_emulated (x, rounded, NULL, NULL, PL_KERNEL_BF16_DOT, emulated);
        if (pl_kernel_runs_natively (PL_KERNEL_BF16_DOT))
          {
            g_autofree guint16 *unpacked = g_new (guint16, n * k);
            g_autofree float *floats = g_new (float, k);

            /* the tuned path takes these weights, and unpacks them exactly */
            g_assert_true (pl_stored_gemm_rounds_activations (w));
            pl_stored_blocks_to_bf16 (w, 0, n, unpacked, floats);
            g_assert_cmpmem (unpacked, n * k * sizeof (guint16), rounded->data, n * k * sizeof (guint16));
          }
        pl_stored_gemm (x, w, NULL, NULL, tuned);
        pl_stored_gemm_plain (x, w, NULL, NULL, plain);
        if (pl_kernel_runs_natively (PL_KERNEL_BF16_DOT))
          {
            gsize same;

            g_assert_cmpfloat (off_in_sizes (tuned, emulated, x, wf, 1e-30, &same), <=, NATIVE_TOL);
          }
        g_assert_cmpfloat (off_in_sizes (emulated, plain, x, wf, 1e-30, &same_plain), <, BF16_BOUND);
        for (gsize r = 0; r < t; r++)
          for (gsize c = 0; c < n; c++)
            {
              double exact = 0, size = product_size (x, wf, r, c);

              for (gsize i = 0; i < k; i++)
                exact += (double) pl_matrix_get (x, r, i) * pl_matrix_get (wf, c, i);
              worst_exact = MAX (worst_exact, fabs (pl_matrix_get (tuned, r, c) - exact) / size);
              worst_plain = MAX (worst_plain, fabs (pl_matrix_get (tuned, r, c) - pl_matrix_get (plain, r, c)) / size);
            }
        g_test_message ("%s %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT ": in units of Σ|x·w|, "
                        "%.2g from double, %.2g from plain", pl_stored_type_name (type), t, n, k, worst_exact,
                        worst_plain);
        if (pl_stored_gemm_rounds_activations (w))
          {
            g_assert_cmpfloat (worst_exact, <, BF16_BOUND);
            g_assert_cmpfloat (worst_plain, <, BF16_BOUND);
          }
        else
          {
            g_assert_cmpfloat (worst_exact, <, 1e-6);
            g_assert_cmpfloat (worst_plain, ==, 0);
          }
      }
}

/* A product into some of OUT's columns fills those and leaves the others
 * as they were, on both paths, and gives what the whole product gives. */
static void
test_gemm_columns (void)
{
  gsize t = 11, k = 45, n = 13, cols = 30, first = 9;
  g_autoptr(PlStoredMatrix) w = pl_stored_matrix_try_new (PL_STORED_BF16, n, k, NULL);
  g_autoptr(PlMatrix) x = pl_matrix_new (t, k);
  g_autoptr(PlMatrix) bias = pl_matrix_new (1, n);

  for (gsize i = 0; i < n * k; i++)
    {
      float v = 0.1f * noise (i + 11);
      guint32 bits;

      memcpy (&bits, &v, 4);
      ((guint16 *) w->data)[i] = bits >> 16;
    }
  for (gsize i = 0; i < t * k; i++)
    x->data[i] = noise (5 * i + 2);
  for (gsize j = 0; j < n; j++)
    bias->data[j] = noise (j + 40);
  for (guint plain = 0; plain < 2; plain++)
    {
      g_autoptr(PlMatrix) whole = pl_matrix_new (t, n);
      g_autoptr(PlMatrix) out = pl_matrix_new (t, cols);

      for (gsize i = 0; i < t * cols; i++)
        out->data[i] = -7.5f;
      if (plain)
        {
          pl_stored_gemm_plain (x, w, bias, NULL, whole);
          pl_stored_gemm_columns_plain (x, w, bias->data, out, first);
        }
      else
        {
          pl_stored_gemm (x, w, bias, NULL, whole);
          pl_stored_gemm_columns (x, w, bias->data, out, first);
        }
      for (gsize r = 0; r < t; r++)
        for (gsize c = 0; c < cols; c++)
          if (c >= first && c < first + n)
            g_assert_cmpfloat (pl_matrix_get (out, r, c), ==, pl_matrix_get (whole, r, c - first));
          else
            g_assert_cmpfloat (pl_matrix_get (out, r, c), ==, -7.5f);
    }
}

/* Attention as the definition says, in double: head H's probabilities
 * into P [T, T] and its context into CTX's columns. */
static void
naive_attention (const PlAttentionHeads *job,
                 gsize                     h,
                 double                   *p,
                 double                   *ctx)
{
  gsize t = job->n_tokens, hd = job->head_dim, g = h / (job->n_heads / job->n_kv_heads);
  gsize q_cols = (gsize) job->n_heads * hd, kv_cols = (gsize) job->n_kv_heads * hd;

  for (gsize i = 0; i < t; i++)
    {
      gsize first = job->window > 0 && i + 1 > job->window ? i + 1 - job->window : 0;
      gsize end = job->bidirectional ? t : i + 1;
      double m = -G_MAXDOUBLE, sum = 0;

      for (gsize j = 0; j < t; j++)
        {
          double s = 0;

          for (gsize d = 0; d < hd; d++)
            s += (double) job->qkv[i * job->stride + h * hd + d] * job->qkv[j * job->stride + q_cols + g * hd + d];
          p[i * t + j] = s * job->scale;
          if (j >= first && j < end)
            m = MAX (m, p[i * t + j]);
        }
      for (gsize j = 0; j < t; j++)
        {
          p[i * t + j] = j >= first && j < end ? exp (p[i * t + j] - m) : 0;
          sum += p[i * t + j];
        }
      for (gsize j = 0; j < t; j++)
        p[i * t + j] /= sum;
      for (gsize d = 0; d < hd; d++)
        {
          double c = 0;

          for (gsize j = 0; j < t; j++)
            c += p[i * t + j] * job->qkv[j * job->stride + q_cols + kv_cols + g * hd + d];
          ctx[i * q_cols + h * hd + d] = c;
        }
    }
}

/* The attention (heads over threads, blocks of 64 queries) against the
 * definition: grouped heads, a head size that is not a multiple of 16, more
 * tokens than one block holds and a ragged last block, with and without a
 * window, causal and bidirectional (the last case, as encoders attend),
 * probabilities kept and not kept. */
static void
test_attention (void)
{
  static const guint windows[] = { 0, 7, 1, 0 };
  gsize t = 150, nh = 6, kv = 2, hd = 20, cols = (nh + 2 * kv) * hd;
  g_autofree float *qkv = g_new (float, t * cols);
  g_autofree double *p = g_new (double, t * t);
  g_autofree double *want = g_new (double, t * nh * hd);

  for (gsize i = 0; i < t * cols; i++)
    qkv[i] = 1.5f * noise (i);
  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    {
      g_autoptr(PlMatrix) probs = pl_matrix_new (nh * t, t);
      g_autoptr(PlMatrix) ctx_a = pl_matrix_new (t, nh * hd);
      g_autoptr(PlMatrix) ctx_b = pl_matrix_new (t, nh * hd);
      PlAttentionHeads job = { qkv, cols, t, nh, kv, hd, windows[w], 0.125f, probs, ctx_a->data };
      g_autoptr(GError) error = NULL;
      double worst_p = 0, worst_ctx = 0, largest = 0;

      job.bidirectional = w + 1 == G_N_ELEMENTS (windows);
      g_assert_true (pl_attention_heads (&job, NULL, &error));
      job.probs = NULL;
      job.ctx = ctx_b->data;
      g_assert_true (pl_attention_heads (&job, NULL, &error));
      g_assert_no_error (error);
      for (gsize h = 0; h < nh; h++)
        {
          naive_attention (&job, h, p, want);
          for (gsize i = 0; i < t * t; i++)
            worst_p = MAX (worst_p, fabs (pl_matrix_row (probs, h * t)[i] - p[i]));
        }
      for (gsize i = 0; i < t * nh * hd; i++)
        {
          worst_ctx = MAX (worst_ctx, fabs (ctx_a->data[i] - want[i]));
          largest = MAX (largest, fabs (want[i]));
        }
      g_test_message ("window %u%s: probabilities within %.2g, context within %.2g of %.2g",
                      windows[w], job.bidirectional ? ", bidirectional" : "", worst_p, worst_ctx, largest);
      g_assert_cmpfloat (worst_p, <, 1e-6);
      g_assert_cmpfloat (worst_ctx, <, 1e-5 * largest);
      /* not keeping the probabilities changes nothing (this head size has
       * no fused path) */
      g_assert_false (pl_fused_attention_usable (&job));
      g_assert_cmpfloat (pl_test_max_abs_diff (ctx_a, ctx_b), ==, 0);
      pl_test_check_rows (probs, t, !job.bidirectional);
    }
}

/* The fused attention's emulation (pl-fused-attention-emulated.c) against
 * the definition in double and against the plain path (OpenBLAS's SGEMMs)
 * on every machine, and where the processor runs the fused kernel, the
 * kernel against its emulation: the same bits (both are IEEE float32
 * operations in one order), with and without the probabilities kept.
 * Head sizes of one to four vectors, a ragged last block of queries and of
 * keys, windows, causal and bidirectional, grouped heads. The context is a
 * weighted mean of values: within 1e-5 of the largest value, as the plain
 * path is in test_attention, of the definition's and of the plain path's;
 * the probabilities within 1e-5 (scores of several units: the plain path's
 * are 6e-6 off here too), and keeping them changes no context. */
static void
test_fused_attention (void)
{
  static const struct { gsize t, heads, kv, hd; guint window; gboolean bidirectional; } cases[] = {
    { 150, 4, 4, 64, 0, TRUE },
    { 150, 4, 4, 64, 0, FALSE },
    { 77, 6, 2, 16, 0, FALSE },
    { 77, 6, 2, 48, 9, FALSE },
    { 40, 2, 1, 32, 1, FALSE },
    { 3, 2, 2, 16, 0, TRUE },
  };
  PlAttentionHeads probe = { .probs = NULL, .head_dim = 64 };
  gboolean native = pl_fused_attention_usable (&probe);

  g_assert_cmpint (native, ==, pl_kernel_runs_natively (PL_KERNEL_FUSED_ATTENTION));
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      gsize t = cases[c].t, nh = cases[c].heads, kv = cases[c].kv, hd = cases[c].hd;
      gsize cols = (nh + 2 * kv) * hd;
      g_autofree float *qkv = g_new (float, t * cols);
      g_autofree double *p = g_new (double, t * t);
      g_autofree double *want = g_new (double, t * nh * hd);
      g_autoptr(PlMatrix) probs = pl_matrix_new (nh * t, t);
      g_autoptr(PlMatrix) plain_probs = pl_matrix_new (nh * t, t);
      g_autoptr(PlMatrix) emulated = pl_matrix_new (t, nh * hd);
      g_autoptr(PlMatrix) plain = pl_matrix_new (t, nh * hd);
      PlAttentionHeads job = { qkv, cols, t, nh, kv, hd, cases[c].window, 1.0f / sqrtf (hd), probs,
                                 emulated->data, cases[c].bidirectional };
      g_autoptr(GError) error = NULL;
      double off_want = 0, off_plain = 0, plain_want = 0, off_p = 0, plain_p = 0, largest = 0;

      /* scores of a few units, so that the softmax is far from uniform */
      for (gsize i = 0; i < t * cols; i++)
        qkv[i] = 2.5f * noise (3 * i + c);
      /* the kept matrices start dirty: every entry is written */
      for (gsize i = 0; i < nh * t * t; i++)
        probs->data[i] = -1;
      pl_fused_attention_emulated (&job);
      if (native)
        {
          g_autoptr(PlMatrix) fused = pl_matrix_new (t, nh * hd);
          g_autoptr(PlMatrix) kept = pl_matrix_new (t, nh * hd);
          g_autoptr(PlMatrix) fused_probs = pl_matrix_new (nh * t, t);

          for (gsize i = 0; i < nh * t * t; i++)
            fused_probs->data[i] = -1;
          g_assert_true (pl_fused_attention_usable (&job));
          job.probs = NULL;
          job.ctx = fused->data;
          g_assert_true (pl_attention_heads (&job, NULL, &error));
          job.probs = fused_probs;
          job.ctx = kept->data;
          g_assert_true (pl_attention_heads (&job, NULL, &error));
          g_assert_no_error (error);
          g_assert_cmpmem (fused->data, t * nh * hd * sizeof (float), emulated->data, t * nh * hd * sizeof (float));
          g_assert_cmpmem (kept->data, t * nh * hd * sizeof (float), emulated->data, t * nh * hd * sizeof (float));
          g_assert_cmpmem (fused_probs->data, nh * t * t * sizeof (float), probs->data, nh * t * t * sizeof (float));
        }
      pl_fused_attention_force_plain (TRUE);
      g_assert_false (pl_fused_attention_usable (&job));
      job.probs = plain_probs;
      job.ctx = plain->data;
      g_assert_true (pl_attention_heads (&job, NULL, &error));
      pl_fused_attention_force_plain (FALSE);
      g_assert_no_error (error);
      for (gsize h = 0; h < nh; h++)
        {
          naive_attention (&job, h, p, want);
          for (gsize i = 0; i < t * t; i++)
            {
              off_p = MAX (off_p, fabs (pl_matrix_row (probs, h * t)[i] - p[i]));
              plain_p = MAX (plain_p, fabs (pl_matrix_row (plain_probs, h * t)[i] - p[i]));
            }
        }
      for (gsize i = 0; i < t * nh * hd; i++)
        {
          off_want = MAX (off_want, fabs (emulated->data[i] - want[i]));
          off_plain = MAX (off_plain, fabs (emulated->data[i] - plain->data[i]));
          plain_want = MAX (plain_want, fabs (plain->data[i] - want[i]));
          largest = MAX (largest, fabs (want[i]));
        }
      g_test_message ("T %" G_GSIZE_FORMAT ", head size %" G_GSIZE_FORMAT ", window %u%s: emulation within %.2g "
                      "of the definition, %.2g of the plain path (plain within %.2g of the definition), largest "
                      "%.2g; probabilities within %.2g (plain %.2g); %s", t, hd, cases[c].window,
                      cases[c].bidirectional ? ", bidirectional" : "", off_want, off_plain, plain_want, largest, off_p,
                      plain_p, native ? "native: the same bits" : "not native here");
      g_assert_cmpfloat (off_want, <, 1e-5 * largest);
      g_assert_cmpfloat (off_plain, <, 1e-5 * largest);
      g_assert_cmpfloat (off_p, <, 1e-5);
      pl_test_check_rows (probs, t, !job.bidirectional);
    }
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);
  pl_test_print_kernels ();

  g_test_add_func ("/pl/rope/stored-gemm", test_stored_gemm);
  g_test_add_func ("/pl/rope/tuned-gemm", test_tuned_gemm);
  g_test_add_func ("/pl/rope/emulated-gemm", test_emulated_gemm);
  g_test_add_func ("/pl/rope/quantised-gemm", test_quantised_gemm);
  g_test_add_func ("/pl/rope/gemm-columns", test_gemm_columns);
  g_test_add_func ("/pl/rope/attention", test_attention);
  g_test_add_func ("/pl/rope/fused-attention", test_fused_attention);
  return g_test_run ();
}
