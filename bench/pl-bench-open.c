/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opens a checkpoint with PlModel and reads its position table, reporting
 * time, peak memory and bytes read as one JSON line for bench-open.py. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pl-blas-core.h"
#include "pl-model.h"

static gint64
bytes_read (void)
{
  g_autofree char *io = NULL;
  const char *p;

  /* rchar counts every byte read(2)/pread(2) returned, cached or not. */
  if (!g_file_get_contents ("/proc/self/io", &io, NULL, NULL))
    return -1;
  p = strstr (io, "rchar:");
  return p ? g_ascii_strtoll (p + 6, NULL, 10) : -1;
}

/* Peak resident set of this process image (VmHWM), in KiB: unlike
 * ru_maxrss it does not carry the parent's peak across exec. */
static long
peak_rss_kb (void)
{
  g_autofree char *status = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  p = strstr (status, "VmHWM:");
  return p ? (long) g_ascii_strtoll (p + 6, NULL, 10) : -1;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The first open in a fresh process pays HDF5's initialisation and lazy
 * symbol binding once; the app pays that once per session, so the median of
 * the following opens is reported too. */
#define REPEATS 7

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(GArray) warm = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 t0, t1, t2, io0, io1;
  long base_rss, peak_rss;
  double checksum = 0;

  pl_blas_core_choose (argv);
  if (argc != 2)
    {
      fprintf (stderr, "usage: pl-bench-open PATH\n");
      return 1;
    }

  base_rss = peak_rss_kb ();
  io0 = bytes_read ();
  t0 = g_get_monotonic_time ();
  model = pl_model_open (argv[1], NULL, NULL, &error);
  t1 = g_get_monotonic_time ();
  if (model != NULL)
    positions = pl_model_read_positions (model, &error);
  t2 = g_get_monotonic_time ();
  io1 = bytes_read ();
  peak_rss = peak_rss_kb ();
  if (positions == NULL)
    {
      fprintf (stderr, "pl-bench-open: %s\n", error->message);
      return 2;
    }
  for (gsize i = 0; i < positions->rows * positions->cols; i++)
    checksum += positions->data[i];

  for (guint r = 0; r < REPEATS; r++)
    {
      g_autoptr(PlModel) again = NULL;
      g_autoptr(PlMatrix) rows = NULL;
      gint64 s0 = g_get_monotonic_time ();
      double dt;

      again = pl_model_open (argv[1], NULL, NULL, &error);
      g_assert_no_error (error);
      rows = pl_model_read_positions (again, &error);
      g_assert_no_error (error);
      dt = (g_get_monotonic_time () - s0) / 1e6;
      g_array_append_val (warm, dt);
    }
  g_array_sort (warm, compare_doubles);

  printf ("{\"open_s\": %.6f, \"read_s\": %.6f, \"total_s\": %.6f, \"warm_s\": %.6f, \"rows\": %" G_GSIZE_FORMAT
          ", \"cols\": %" G_GSIZE_FORMAT ", \"first\": %u, \"checksum\": %.6f, \"maxrss_kb\": %ld, "
          "\"base_rss_kb\": %ld, \"bytes_read\": %" G_GINT64_FORMAT ", \"family\": \"%s\"}\n",
          (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - t0) / 1e6, g_array_index (warm, double, REPEATS / 2),
          positions->rows, positions->cols, pl_model_get_first_position (model), checksum, peak_rss,
          base_rss, io1 - io0, pl_model_get_family_name (model));
  return 0;
}
