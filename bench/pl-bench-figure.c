/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "pl-figure.h"

/* Timing driver for bench-figure.py (run by hand, not a test): a 1024 × 1024
 * heatmap is coloured once, then redrawn at new zoom windows from its cached
 * image, the way the window redraws while the user zooms and pans. */

static int
compare (const void *a,
         const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int    argc,
      char **argv)
{
  const gsize n = 1024;
  const int width = argc > 1 ? atoi (argv[1]) : 1200;
  const int height = argc > 2 ? atoi (argv[2]) : 1000;
  const guint frames = 200;
  g_autoptr(PlMatrix) values = pl_matrix_new (n, n);
  g_autoptr(PlFigure) figure = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  GRand *rand = g_rand_new_with_seed (1);
  g_autofree double *ms = g_new (double, frames);
  double first, sum = 0;
  gint64 t0;

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      values->data[i * n + j] = (float) (cos ((double) ((long) i - (long) j) / 40.0) * exp (-fabs ((double) i - j) / 300.0));

  figure = pl_figure_new_heatmap (values, 0);
  pl_figure_set_title (figure, "1024 × 1024");

  /* First frame: colours the image (the cache), then draws. */
  t0 = g_get_monotonic_time ();
  pl_figure_render (figure, cr, width, height);
  cairo_surface_flush (surface);
  first = (g_get_monotonic_time () - t0) / 1000.0;

  for (guint f = 0; f < frames; f++)
    {
      double span = g_rand_double_range (rand, 8, n);
      double x0 = g_rand_double_range (rand, 0, n - span);
      double y0 = g_rand_double_range (rand, 0, n - span);

      pl_figure_set_view (figure, x0, y0, x0 + span, y0 + span);
      t0 = g_get_monotonic_time ();
      pl_figure_render (figure, cr, width, height);
      cairo_surface_flush (surface);
      ms[f] = (g_get_monotonic_time () - t0) / 1000.0;
      sum += ms[f];
    }
  qsort (ms, frames, sizeof (double), compare);

  printf ("{\"size\": [%d, %d], \"first_ms\": %.3f, \"frames\": %u, \"mean_ms\": %.3f, "
          "\"median_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f}\n",
          width, height, first, frames, sum / frames, ms[frames / 2], ms[frames * 95 / 100], ms[frames - 1]);

  g_rand_free (rand);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return 0;
}
