/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Times the table analyses on a float32 .npy for bench-analyses.py (run by
 * hand, not a test): loading is outside the clock, each run is timed alone
 * and the best of REPEAT is printed, in seconds, as "OP SECONDS CPU_SECONDS"
 * (the process's CPU time over that run, all BLAS threads included). With
 * --blas it prints which OpenBLAS kernel and how many threads run. */
#include "config.h"

#include <stdio.h>
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl-pca.h"
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

static void
run_once (const char     *op,
          const PlMatrix *x)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (op, "cosine"))
    {
      g_autoptr(PlMatrix) s = pl_similarity_compute (x, PL_SIMILARITY_COSINE, FALSE, &error);
    }
  else if (g_str_equal (op, "ssyrk"))
    {
      /* The bare kernel both sides run for cosine (X @ X.T of the normalised
       * rows in numpy), into a fresh result as theirs: no normalising, no
       * mirroring, no clamping. It bounds any cosine built on it. */
      g_autoptr(PlMatrix) g = pl_matrix_new (x->rows, x->rows);

      cblas_ssyrk (CblasRowMajor, CblasUpper, CblasNoTrans, (blasint) x->rows, (blasint) x->cols,
                   1.0f, x->data, (blasint) x->cols, 0.0f, g->data, (blasint) x->rows);
    }
  else if (g_str_equal (op, "pca3"))
    {
      g_autoptr(PlPca) p = pl_pca_compute (x, 3, &error);
    }
  else if (g_str_equal (op, "probe-absolute"))
    {
      PlProbeOptions options;
      double mae;

      pl_probe_options_init (&options);
      if (pl_probe_absolute (x, &options, &mae, &error))
        fprintf (stderr, "absolute MAE %.6f\n", mae);
    }
  else
    g_error ("unknown operation %s (cosine, ssyrk, pca3, probe-absolute)", op);
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

  if (argc == 2 && g_str_equal (argv[1], "--blas"))
    {
      printf ("%s, %s, %d threads\n", openblas_get_corename (), g_strstrip (g_strdup (openblas_get_config ())),
              openblas_get_num_threads ());
      return 0;
    }
  if (argc != 4)
    {
      fprintf (stderr, "usage: pl-bench-analyses cosine|ssyrk|pca3|probe-absolute FILE.npy REPEAT\n");
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
