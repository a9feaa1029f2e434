/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-pca.h"
#include "pl-pca-private.h"
#include "pl-test-util.h"

/* The fixtures' references come from float64 numpy/scikit-learn. Tables are
 * read through PlModel; the references with raw HDF5. */
#define RATIO_REL_TOL 1e-4
#define PROJ_ABS_TOL  1e-3

static void
check_fixture (gconstpointer data)
{
  const PlTestTable *f = data;
  g_autofree char *ref_path = pl_test_fixture (f->reference, NULL);
  g_autofree char *ratio_name = g_strconcat (f->group, "/pca_explained_variance_ratio", NULL);
  g_autofree char *proj_name = g_strconcat (f->group, "/pca_projection_abs", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_table (f);
  g_autoptr(PlMatrix) ratio = pl_test_read_h5 (ref_path, ratio_name);
  g_autoptr(PlMatrix) proj = pl_test_read_h5 (ref_path, proj_name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlPca) pca = pl_pca_compute (table, 16, NULL, &error);
  double max_proj = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (pca->n_components, ==, 16);
  g_assert_cmpuint (ratio->rows * ratio->cols, ==, 16);
  for (guint c = 0; c < 16; c++)
    {
      double want = ratio->data[c];
      double got = pca->explained_variance_ratio->data[c];
      if (fabs (got - want) > RATIO_REL_TOL * fabs (want))
        g_error ("%s: explained variance ratio %u is %.8g, reference %.8g", f->reference, c, got, want);
    }
  g_assert_cmpuint (proj->rows, ==, 512);
  g_assert_cmpuint (proj->cols, ==, 3);
  for (gsize i = 0; i < 512; i++)
    for (guint c = 0; c < 3; c++)
      max_proj = MAX (max_proj, fabs (fabs (pl_matrix_get (pca->projection, i, c)) - pl_matrix_get (proj, i, c)));
  g_test_message ("%s: max ||projection| - reference| = %.3g", f->reference, max_proj);
  g_assert_cmpfloat (max_proj, <, PROJ_ABS_TOL);
}

/* Unit, orthogonal loadings with a positive largest entry; projections are
 * the centred rows times the loadings; the ratios sum to at most 1. Checked
 * on both routes: covariance (rows ≥ columns) and Gram (rows < columns). */
static void
test_structure (void)
{
  const gsize shapes[][2] = { { 120, 30 }, { 30, 120 } };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      gsize n = shapes[s][0], d = shapes[s][1];
      g_autoptr(PlMatrix) x = pl_matrix_new (n, d);
      g_autoptr(PlPca) pca = NULL;
      GRand *rand = g_rand_new_with_seed (11 + s);
      double sum = 0;

      /* Rows along a few strong directions plus noise. */
      for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j < d; j++)
          x->data[i * d + j] = (float) (3 * sin (0.1 * i + j) + (j % 3) * cos (0.05 * i) +
                                        g_rand_double_range (rand, -0.1, 0.1) + 5.0);
      g_rand_free (rand);

      pca = pl_pca_compute (x, 8, NULL, NULL);
      for (guint a = 0; a < 8; a++)
        {
          const float *va = pl_matrix_row (pca->components, a);
          gsize arg = 0;

          for (gsize j = 0; j < d; j++)
            if (fabsf (va[j]) > fabsf (va[arg]))
              arg = j;
          g_assert_cmpfloat (va[arg], >, 0);
          for (guint b = 0; b < 8; b++)
            {
              const float *vb = pl_matrix_row (pca->components, b);
              double dot = 0;
              for (gsize j = 0; j < d; j++)
                dot += (double) va[j] * vb[j];
              g_assert_cmpfloat_with_epsilon (dot, a == b ? 1.0 : 0.0, 1e-5);
            }
          if (a > 0)
            g_assert_cmpfloat (pca->explained_variance_ratio->data[a], <=,
                               pca->explained_variance_ratio->data[a - 1] * (1 + 1e-6));
          sum += pca->explained_variance_ratio->data[a];
          for (gsize i = 0; i < n; i++)
            {
              double p = 0;
              for (gsize j = 0; j < d; j++)
                p += ((double) pl_matrix_get (x, i, j) - pca->mean->data[j]) * va[j];
              g_assert_cmpfloat_with_epsilon (pl_matrix_get (pca->projection, i, a), p, 1e-3);
            }
        }
      g_assert_cmpfloat (sum, <=, 1.0 + 1e-6);
    }
}

/* Rank-1 data: all variance on one component, explained exactly. */
static void
test_rank_one (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (50, 10);
  g_autoptr(PlPca) pca = NULL;

  for (gsize i = 0; i < 50; i++)
    for (gsize j = 0; j < 10; j++)
      x->data[i * 10 + j] = (float) ((double) i * (j - 2.5));
  pca = pl_pca_compute (x, 2, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio->data[0], 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio->data[1], 0.0, 1e-6);
  /* Loading ∝ (j − 2.5), largest |.| at j = 9 and positive: projections grow with i. */
  g_assert_cmpfloat (pl_matrix_get (pca->projection, 49, 0), >, pl_matrix_get (pca->projection, 0, 0));
}

/* (XcᵀXc) v in double. */
static void
apply_cov (const PlMatrix *x, const float *mean, const double *v, double *out)
{
  gsize n = x->rows, d = x->cols;

  memset (out, 0, d * sizeof (double));
  for (gsize i = 0; i < n; i++)
    {
      double t = 0;
      for (gsize j = 0; j < d; j++)
        t += ((double) x->data[i * d + j] - mean[j]) * v[j];
      for (gsize j = 0; j < d; j++)
        out[j] += t * ((double) x->data[i * d + j] - mean[j]);
    }
}

/* A table large enough for the float32 route: each component must satisfy
 * Cv = λv to float precision (checked in double), and no direction left
 * over may carry more variance than the last one found (power iteration on
 * the rest). */
static void
test_large_float_route (void)
{
  const gsize n = 2000, d = 600;
  const guint kk = 5;
  g_autoptr(PlMatrix) x = pl_matrix_new (n, d);
  g_autoptr(PlPca) pca = NULL;
  g_autofree double *v = g_new (double, d);
  g_autofree double *cv = g_new (double, d);
  GRand *rand = g_rand_new_with_seed (17);
  double lambda1 = 0, lambda_last = 0, rest = 0;

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < d; j++)
      x->data[i * d + j] = (float) (4 * sin (0.003 * i * (1 + j % 5)) + 2 * cos (0.01 * i + j) +
                                    g_rand_double_range (rand, -1, 1));
  pca = pl_pca_compute (x, kk, NULL, NULL);
  g_assert_nonnull (pca);

  for (guint c = 0; c < kk; c++)
    {
      double lambda = pca->explained_variance->data[c] * (n - 1), res = 0;

      for (gsize j = 0; j < d; j++)
        v[j] = pl_matrix_get (pca->components, c, j);
      apply_cov (x, pca->mean->data, v, cv);
      if (c == 0)
        lambda1 = lambda;
      lambda_last = lambda;
      for (gsize j = 0; j < d; j++)
        res += (cv[j] - lambda * v[j]) * (cv[j] - lambda * v[j]);
      g_assert_cmpfloat (sqrt (res) / lambda1, <, 1e-4);
    }

  /* Power iteration orthogonal to the components found. */
  for (gsize j = 0; j < d; j++)
    v[j] = g_rand_double_range (rand, -1, 1);
  g_rand_free (rand);
  for (guint it = 0; it < 60; it++)
    {
      double norm = 0;

      for (guint c = 0; c < kk; c++)
        {
          const float *comp = pl_matrix_row (pca->components, c);
          double dot = 0;
          for (gsize j = 0; j < d; j++)
            dot += v[j] * comp[j];
          for (gsize j = 0; j < d; j++)
            v[j] -= dot * comp[j];
        }
      for (gsize j = 0; j < d; j++)
        norm += v[j] * v[j];
      norm = sqrt (norm);
      for (gsize j = 0; j < d; j++)
        v[j] /= norm;
      apply_cov (x, pca->mean->data, v, cv);
      rest = 0;
      for (gsize j = 0; j < d; j++)
        rest += v[j] * cv[j];
      memcpy (v, cv, d * sizeof (double));
    }
  g_test_message ("lambda1 %.6g, lambda%u %.6g, largest left %.6g", lambda1, kk, lambda_last, rest);
  g_assert_cmpfloat (rest, <=, lambda_last * (1 + 1e-4));
}

/* Block Lanczos on the M×M cross-product of the N rows of X (a basis of
 * MAX_BASIS vectors at most) against LAPACK's dense solver in double: the
 * same top KK eigenvalues (1e-5 relative) and eigenvectors (|cos| within
 * 1e-4 of 1). */
static void
compare_lanczos (const float *x,
                 gsize        n,
                 gsize        m,
                 guint        kk,
                 gsize        max_basis)
{
  g_autofree float *c = g_new (float, m * m);
  g_autofree double *cd = g_new (double, m * m);
  g_autofree double *z = g_new (double, kk * m);
  g_autofree double *zd = g_new (double, kk * m);
  g_autofree double *w = g_new (double, kk);
  g_autofree double *wd = g_new (double, kk);
  g_autofree lapack_int *support = g_new (lapack_int, 2 * kk);
  lapack_int found = 0;

  /* Row-major upper = column-major lower, as pl_pca_compute hands it over. */
  cblas_ssyrk (CblasRowMajor, CblasUpper, CblasTrans, (blasint) m, (blasint) n,
               1.0f, x, (blasint) m, 0.0f, c, (blasint) m);
  for (gsize i = 0; i < m * m; i++)
    cd[i] = c[i];

  g_assert_true (pl_pca_lanczos_top (c, m, kk, 1e-6, max_basis, w, z, NULL));
  g_assert_cmpint (LAPACKE_dsyevr (LAPACK_COL_MAJOR, 'V', 'I', 'L', (lapack_int) m, cd, (lapack_int) m,
                                   0.0, 0.0, (lapack_int) (m - kk + 1), (lapack_int) m, 0.0,
                                   &found, wd, zd, (lapack_int) m, support), ==, 0);
  for (guint k = 0; k < kk; k++)
    {
      double dot = 0;

      g_test_message ("lambda %u: %.8g %.8g", k, w[k], wd[k]);
      g_assert_cmpfloat (fabs (w[k] - wd[k]), <=, 1e-5 * wd[kk - 1]);
      for (gsize i = 0; i < m; i++)
        dot += z[k * m + i] * zd[k * m + i];
      g_assert_cmpfloat (fabs (dot), >, 1 - 1e-4);
    }
}

/* A structured table of N rows and M columns: sines and cosines of the
 * row and column, and a little noise. */
static void
check_lanczos (gsize m,
               gsize n,
               guint kk)
{
  g_autofree float *x = g_new (float, n * m);
  GRand *rand = g_rand_new_with_seed (23);

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < m; j++)
      x[i * m + j] = (float) (3 * sin (0.002 * i * (1 + j % 7)) + cos (0.01 * i + 0.3 * j) +
                              0.2 * g_rand_double_range (rand, -1, 1));
  g_rand_free (rand);
  compare_lanczos (x, n, m, kk, 192);
}

/* Six components (blocks of seven vectors: a group of four and one of
 * three, padded) of 1400 columns, and three (one block of four) of an odd
 * 1001, whose last row pairs with itself and whose last column falls
 * outside the 8-wide kernel; both have row shares shorter than the
 * others at the end, and basis column shares cut mid-way. */
static void
test_lanczos (void)
{
  check_lanczos (1400, 600, 6);
  check_lanczos (1001, 500, 3);
}

/* Random Gaussian data, the benchmark's case at a test's size: its flat
 * Marchenko–Pastur top has gaps of a few hundredths of λmax, where Krylov
 * methods converge late. Block Lanczos must still reach the residual goal
 * within its basis and agree with LAPACK's dense solver. */
static void
test_lanczos_flat_spectrum (void)
{
  const gsize m = 768, n = 2048;
  g_autofree float *x = g_new (float, n * m);
  GRand *rand = g_rand_new_with_seed (29);

  /* Box–Muller normals. */
  for (gsize i = 0; i < n * m; i += 2)
    {
      double u1 = g_rand_double_range (rand, 1e-300, 1), u2 = g_rand_double (rand);
      double r = sqrt (-2 * log (u1));

      x[i] = (float) (r * cos (2 * G_PI * u2));
      if (i + 1 < n * m)
        x[i + 1] = (float) (r * sin (2 * G_PI * u2));
    }
  g_rand_free (rand);
  compare_lanczos (x, n, m, 3, 512);
}

static void
test_bad_input (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (10, 4);
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;

  g_assert_null (pl_pca_compute (x, 5, NULL, &e1));
  g_assert_error (e1, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_assert_null (pl_pca_compute (x, 0, NULL, &e2));
  g_assert_error (e2, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  x->data[3] = NAN;
  g_assert_null (pl_pca_compute (x, 2, NULL, &e3));
  g_assert_error (e3, PL_ERROR, PL_ERROR_BAD_VALUES);
}

static gboolean
pca_of (gpointer       data,
        GCancellable  *cancellable,
        GError       **error)
{
  g_autoptr(PlPca) pca = pl_pca_compute (data, 3, cancellable, error);

  return pca != NULL;
}

/* Cancelled before it starts, it answers nothing; cancelled while it works,
 * it stops between chunks of the cross-product or steps of the eigensolver. */
static void
test_cancel (void)
{
  g_autoptr(PlMatrix) x = pl_matrix_new (4096, 768);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (31);

  for (gsize i = 0; i < x->rows * x->cols; i++)
    x->data[i] = (float) g_rand_double_range (rand, -1, 1);
  g_rand_free (rand);

  g_cancellable_cancel (cancellable);
  g_assert_null (pl_pca_compute (x, 3, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  pl_test_assert_cancels (pca_of, x);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  pl_test_add_table_tests ("/pl/pca/fixture", check_fixture);
  g_test_add_func ("/pl/pca/structure", test_structure);
  g_test_add_func ("/pl/pca/rank-one", test_rank_one);
  g_test_add_func ("/pl/pca/large-float-route", test_large_float_route);
  g_test_add_func ("/pl/pca/lanczos", test_lanczos);
  g_test_add_func ("/pl/pca/lanczos-flat-spectrum", test_lanczos_flat_spectrum);
  g_test_add_func ("/pl/pca/bad-input", test_bad_input);
  g_test_add_func ("/pl/pca/cancel", test_cancel);
  return g_test_run ();
}
