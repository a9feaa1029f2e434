/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Times the table analyses on a float32 .npy for bench-analyses.py (run by
 * hand, not a test): loading is outside the clock, each run is timed alone
 * and the best of REPEAT is printed, in seconds, as "OP SECONDS CPU_SECONDS"
 * (the process's CPU time over that run, all BLAS threads included). With
 * --blas it prints which OpenBLAS kernel and how many threads run. The bare
 * BLAS products and the two parts of the PCA are there for the breakdown. */
#include "config.h"

#include <stdio.h>
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl-blas-core.h"
#include "pl-pca.h"
#include "pl-pca-private.h"
#include "pl-probes.h"
#include "pl-similarity.h"

/* A C-order little-endian <f4 2-D .npy, as numpy.save writes it. */
static PlMatrix *
load_npy (const char *path)
{
  g_autofree char *bytes = NULL;
  g_autofree char *header = NULL;
  gsize len, rows = 0, cols = 0;
  guint header_len;
  const char *shape;

  if (!g_file_get_contents (path, &bytes, &len, NULL) || len < 10 || memcmp (bytes, "\x93NUMPY\x01", 7) != 0)
    g_error ("%s: not a version 1 .npy file", path);
  header_len = (guint8) bytes[8] | ((guint) (guint8) bytes[9] << 8);
  header = g_strndup (bytes + 10, header_len);
  shape = strstr (header, "'shape': (");
  if (strstr (header, "'<f4'") == NULL || strstr (header, "'fortran_order': False") == NULL || shape == NULL ||
      sscanf (shape, "'shape': (%" G_GSIZE_MODIFIER "u, %" G_GSIZE_MODIFIER "u)", &rows, &cols) != 2 ||
      len != 10 + header_len + rows * cols * 4)
    g_error ("%s: expected a C-order float32 matrix", path);
  return pl_matrix_new_from (rows, cols, (const float *) (bytes + 10 + header_len));
}

/* The column means of X, in double. */
static double *
column_means (const PlMatrix *x)
{
  double *mean = g_new0 (double, x->cols);

  for (gsize i = 0; i < x->rows; i++)
    for (gsize j = 0; j < x->cols; j++)
      mean[j] += pl_matrix_get (x, i, j);
  for (gsize j = 0; j < x->cols; j++)
    mean[j] /= x->rows;
  return mean;
}

/* The PCA's covariance of X (upper triangle, row-major), made once, outside
 * the clock, for the "lanczos" operation. */
static float *
covariance_once (const PlMatrix *x)
{
  static float *s = NULL;

  if (s == NULL)
    {
      g_autofree double *mean = column_means (x);
      g_autofree double *column_ss = g_new (double, x->cols);

      s = g_new (float, x->cols * x->cols);
      pl_pca_covariance (x, mean, s, column_ss, NULL);
    }
  return s;
}

static void
run_once (const char     *op,
          const PlMatrix *x)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (op, "cosine"))
    {
      g_autoptr(PlMatrix) s = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
    }
  else if (g_str_equal (op, "ssyrk"))
    {
      /* The bare kernel both sides run for cosine (X @ X.T of the normalised
       * rows in numpy), into a fresh result as Poslens allocates it (mapped
       * in aligned huge pages, see pl-matrix.c): no normalising, no
       * mirroring, no clamping. It bounds any cosine built on it. */
      g_autoptr(PlMatrix) g = pl_matrix_new (x->rows, x->rows);

      cblas_ssyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) x->rows, (blasint) x->cols,
                   1.0f, x->data, (blasint) x->cols, 0.0f, g->data, (blasint) x->rows);
    }
  else if (g_str_equal (op, "sgemm"))
    {
      /* The same product by SGEMM, both triangles computed: its GFLOP/s
       * against SSYRK's say how well each runs on these threads. */
      g_autoptr(PlMatrix) g = pl_matrix_new (x->rows, x->rows);

      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) x->rows, (blasint) x->rows,
                   (blasint) x->cols, 1.0f, x->data, (blasint) x->cols, x->data, (blasint) x->cols,
                   0.0f, g->data, (blasint) x->rows);
    }
  else if (g_str_equal (op, "pca-covariance"))
    {
      /* The first part of "pca3": column means and the covariance. */
      g_autofree double *mean = column_means (x);
      g_autofree double *column_ss = g_new (double, x->cols);
      g_autofree float *s = g_new (float, x->cols * x->cols);

      pl_pca_covariance (x, mean, s, column_ss, NULL);
    }
  else if (g_str_equal (op, "pca-lanczos"))
    {
      /* The second part: the top three eigenpairs of that covariance. */
      float *s = covariance_once (x);
      double w[3];
      g_autofree double *z = g_new (double, x->cols * 3);

      if (!pl_pca_lanczos_top (s, x->cols, 3, 1e-6, 512, w, z, NULL))
        g_error ("Lanczos did not converge");
    }
  else if (g_str_equal (op, "pca3"))
    {
      g_autoptr(PlPca) p = pl_pca_compute (x, 3, NULL, &error);
    }
  else if (g_str_equal (op, "probe-absolute"))
    {
      PlProbeOptions options;
      double mae;

      pl_probe_options_init (&options);
      options.protocol = PL_PROBE_INTERLEAVED;
      if (pl_probe_absolute (x, &options, &mae, NULL, NULL, &error))
        fprintf (stderr, "absolute MAE %.6f\n", mae);
    }
  else
    g_error ("unknown operation %s (cosine, ssyrk, sgemm, pca3, pca-covariance, pca-lanczos, probe-absolute)", op);
  if (error != NULL)
    g_error ("%s: %s", op, error->message);
}

static double
cpu_seconds (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PlMatrix) x = NULL;
  double best = G_MAXDOUBLE, best_cpu = 0;
  int repeat;

  pl_blas_core_choose (argv);
  if (argc == 2 && g_str_equal (argv[1], "--blas"))
    {
      printf ("%s, %s, %d threads\n", openblas_get_corename (), g_strstrip (g_strdup (openblas_get_config ())),
              openblas_get_num_threads ());
      return 0;
    }
  if (argc != 4)
    {
      fprintf (stderr, "usage: pl-bench-analyses cosine|ssyrk|sgemm|pca3|pca-covariance|pca-lanczos|probe-absolute FILE.npy REPEAT\n");
      return 1;
    }
  x = load_npy (argv[2]);
  repeat = MAX (1, atoi (argv[3]));
  run_once (argv[1], x);   /* warm-up: thread pool, page faults */
  for (int r = 0; r < repeat; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double c0 = cpu_seconds (), wall;

      run_once (argv[1], x);
      wall = (g_get_monotonic_time () - t0) / 1e6;
      if (wall < best)
        {
          best = wall;
          best_cpu = cpu_seconds () - c0;
        }
    }
  printf ("%s %.6f %.6f\n", argv[1], best, best_cpu);
  return 0;
}
