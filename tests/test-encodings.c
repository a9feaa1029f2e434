/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-encodings.h"
#include "pl-error.h"
#include "pl-test-util.h"

static void
test_parse (void)
{
  PlEncodingSpec s;
  g_autoptr(GError) error = NULL;
  const char *bad[] = {
    "sinusoidal:512x768", "builtin:", "builtin:sinusoidal", "builtin:sinusoidal:512",
    "builtin:sinusoidal:0x768", "builtin:sinusoidal:512x", "builtin:sinusoidal:512x768:1",
    "builtin:sinusoidal:512x768:abc", "builtin:sinusoidal:512x768:10000:9", "builtin:rope:512x63",
    "builtin:alibi:512", "builtin:alibi:512x8:2", "builtin:none:", "builtin:none:-3",
    "builtin:learned:512x768", "builtin:sinusoidal:512x768x2",
  };

  g_assert_true (pl_encoding_spec_parse ("builtin:sinusoidal:512x768", &s, &error));
  g_assert_no_error (error);
  g_assert_cmpint (s.kind, ==, PL_ENCODING_SINUSOIDAL);
  g_assert_cmpuint (s.length, ==, 512);
  g_assert_cmpuint (s.width, ==, 768);
  g_assert_cmpfloat (s.base, ==, 10000.0);

  g_assert_true (pl_encoding_spec_parse ("builtin:rope:2048x128:500000", &s, NULL));
  g_assert_cmpint (s.kind, ==, PL_ENCODING_ROPE);
  g_assert_cmpuint (s.length, ==, 2048);
  g_assert_cmpuint (s.width, ==, 128);
  g_assert_cmpfloat (s.base, ==, 500000.0);

  g_assert_true (pl_encoding_spec_parse ("builtin:alibi:1024x12", &s, NULL));
  g_assert_cmpint (s.kind, ==, PL_ENCODING_ALIBI);
  g_assert_cmpuint (s.length, ==, 1024);
  g_assert_cmpuint (s.heads, ==, 12);

  g_assert_true (pl_encoding_spec_parse ("builtin:none:64", &s, NULL));
  g_assert_cmpint (s.kind, ==, PL_ENCODING_NONE);
  g_assert_cmpuint (s.length, ==, 64);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) e = NULL;

      g_assert_false (pl_encoding_spec_parse (bad[i], &s, &e));
      g_assert_error (e, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
      /* The message names what the user typed. */
      g_assert_nonnull (strstr (e->message, bad[i]));
    }
}

static void
test_describe (void)
{
  PlEncodingSpec s;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;

  pl_encoding_spec_parse ("builtin:sinusoidal:512x768", &s, NULL);
  a = pl_encoding_spec_describe (&s);
  g_assert_cmpstr (a, ==, "Sinusoidal 512 × 768");
  pl_encoding_spec_parse ("builtin:rope:128x64:500000", &s, NULL);
  b = pl_encoding_spec_describe (&s);
  g_assert_cmpstr (b, ==, "Rotary (RoPE) 128 × 64, base 500000");
  pl_encoding_spec_parse ("builtin:alibi:128x8", &s, NULL);
  c = pl_encoding_spec_describe (&s);
  g_assert_cmpstr (c, ==, "ALiBi 128 positions, 8 heads");
}

/* The fixture was written by numpy in float64 and stored float32. */
static void
test_sinusoidal_fixture (void)
{
  g_autofree char *path = pl_test_fixture ("sinusoid-512x768.h5", NULL);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (path, "/position_embeddings");
  g_autoptr(PlMatrix) pe = NULL;
  g_autoptr(GError) error = NULL;
  PlEncodingSpec s;

  g_assert_true (pl_encoding_spec_parse ("builtin:sinusoidal:512x768", &s, NULL));
  pe = pl_encoding_table (&s, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pe->rows, ==, 512);
  g_assert_cmpuint (pe->cols, ==, 768);
  g_assert_cmpfloat (pl_test_max_abs_diff (pe, ref), <, 1e-6);
}

/* PE_i · PE_j = Σ_k cos(ω_k (i − j)): a function of the offset alone, here
 * for an odd width and another base too. */
static void
test_sinusoidal_offset_only (void)
{
  const guint widths[] = { 64, 33 };

  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    {
      g_autoptr(PlMatrix) pe = pl_encoding_sinusoidal (200, widths[w], 500.0);

      for (guint i = 0; i < 200; i += 7)
        for (guint j = 0; j < 200; j += 11)
          {
            double dot = 0, expect = 0;

            for (guint c = 0; c < widths[w]; c++)
              dot += (double) pl_matrix_get (pe, i, c) * pl_matrix_get (pe, j, c);
            for (guint k = 0; k < widths[w] / 2; k++)
              expect += cos (((double) i - j) * pow (500.0, -2.0 * k / widths[w]));
            /* An odd width adds one sine column: sin(iω) sin(jω). */
            if (widths[w] % 2)
              {
                double om = pow (500.0, -2.0 * (widths[w] / 2) / widths[w]);
                expect += sin (i * om) * sin (j * om);
              }
            g_assert_cmpfloat_with_epsilon (dot, expect, 1e-4);
          }
    }
}

/* Rotate q by position i and k by position j explicitly and compare with the
 * offset form; at offset 0 the score is q·k. */
static void
test_rope_scores (void)
{
  const guint width = 16;
  const double base = 10000.0;
  float q[16], k[16];
  double theta[8];
  double qk = 0;
  g_autoptr(PlMatrix) scores = NULL;
  GRand *rand = g_rand_new_with_seed (3);

  for (guint c = 0; c < width; c++)
    {
      q[c] = (float) g_rand_double_range (rand, -1, 1);
      k[c] = (float) g_rand_double_range (rand, -1, 1);
      qk += (double) q[c] * k[c];
    }
  g_rand_free (rand);

  pl_encoding_rope_frequencies (width, base, theta);
  for (guint p = 0; p < width / 2; p++)
    g_assert_cmpfloat_with_epsilon (theta[p], pow (base, -2.0 * p / width), 1e-15);

  scores = pl_encoding_rope_scores (q, k, width, base, -40, 40);
  g_assert_cmpuint (scores->cols, ==, 81);
  g_assert_cmpfloat_with_epsilon (scores->data[40], qk, 1e-5);

  for (int i = 0; i < 20; i += 3)
    for (int j = 0; j < 20; j += 2)
      {
        double s = 0;

        for (guint p = 0; p < width / 2; p++)
          {
            double a = i * theta[p], b = j * theta[p];
            double q0 = q[2 * p] * cos (a) - q[2 * p + 1] * sin (a);
            double q1 = q[2 * p] * sin (a) + q[2 * p + 1] * cos (a);
            double k0 = k[2 * p] * cos (b) - k[2 * p + 1] * sin (b);
            double k1 = k[2 * p] * sin (b) + k[2 * p + 1] * cos (b);
            s += q0 * k0 + q1 * k1;
          }
        g_assert_cmpfloat_with_epsilon (scores->data[j - i + 40], s, 1e-5);
      }
}

/* The RoPE table's rows are R(p)(1, 0, 1, 0, …): their dot product is the
 * score of that unit query and key at offset j − i. */
static void
test_rope_table (void)
{
  PlEncodingSpec s;
  g_autoptr(PlMatrix) t = NULL;
  g_autoptr(PlMatrix) scores = NULL;
  float unit[32] = { 0 };

  for (guint c = 0; c < 32; c += 2)
    unit[c] = 1.0f;
  g_assert_true (pl_encoding_spec_parse ("builtin:rope:64x32", &s, NULL));
  t = pl_encoding_table (&s, NULL);
  scores = pl_encoding_rope_scores (unit, unit, 32, 10000.0, -63, 63);
  for (guint i = 0; i < 64; i += 5)
    for (guint j = 0; j < 64; j += 3)
      {
        double dot = 0;
        for (guint c = 0; c < 32; c++)
          dot += (double) pl_matrix_get (t, i, c) * pl_matrix_get (t, j, c);
        g_assert_cmpfloat_with_epsilon (dot, scores->data[(int) j - (int) i + 63], 1e-4);
      }
}

/* Press et al.: 8 heads give 1/2 … 1/256; 12 heads take the 8-head slopes
 * then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (every other slope of 16 heads). */
static void
test_alibi (void)
{
  double s8[8], s12[12];
  const double extra[4] = { 0.5, 1.5, 2.5, 3.5 };
  g_autoptr(PlMatrix) bias = NULL;

  pl_encoding_alibi_slopes (8, s8);
  for (guint h = 0; h < 8; h++)
    g_assert_cmpfloat_with_epsilon (s8[h], 1.0 / (1 << (h + 1)), 1e-15);
  pl_encoding_alibi_slopes (12, s12);
  for (guint h = 0; h < 8; h++)
    g_assert_cmpfloat_with_epsilon (s12[h], s8[h], 1e-15);
  for (guint h = 0; h < 4; h++)
    g_assert_cmpfloat_with_epsilon (s12[8 + h], pow (2.0, -extra[h]), 1e-15);

  bias = pl_encoding_alibi_bias (12, 100);
  g_assert_cmpuint (bias->rows, ==, 12);
  g_assert_cmpuint (bias->cols, ==, 100);
  for (guint h = 0; h < 12; h++)
    for (guint d = 0; d < 100; d++)
      g_assert_cmpfloat_with_epsilon (pl_matrix_get (bias, h, d), -s12[h] * d, 1e-5);
}

static void
test_no_table (void)
{
  PlEncodingSpec s;
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;

  pl_encoding_spec_parse ("builtin:alibi:64x4", &s, NULL);
  g_assert_null (pl_encoding_table (&s, &e1));
  g_assert_error (e1, PL_ERROR, PL_ERROR_UNSUPPORTED);
  pl_encoding_spec_parse ("builtin:none:64", &s, NULL);
  g_assert_null (pl_encoding_table (&s, &e2));
  g_assert_error (e2, PL_ERROR, PL_ERROR_UNSUPPORTED);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/encodings/parse", test_parse);
  g_test_add_func ("/pl/encodings/describe", test_describe);
  g_test_add_func ("/pl/encodings/sinusoidal-fixture", test_sinusoidal_fixture);
  g_test_add_func ("/pl/encodings/sinusoidal-offset-only", test_sinusoidal_offset_only);
  g_test_add_func ("/pl/encodings/rope-scores", test_rope_scores);
  g_test_add_func ("/pl/encodings/rope-table", test_rope_table);
  g_test_add_func ("/pl/encodings/alibi", test_alibi);
  g_test_add_func ("/pl/encodings/no-table", test_no_table);
  return g_test_run ();
}
