/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starts the app as a user does and prints, as one JSON line for
 * bench-startup.py, the wall-clock time (µs since the epoch) of the frame
 * that first shows the Similarity heatmap, then quits. */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>

#include "pl-blas-core.h"
#include "pl-application.h"
#include "pl-figure-view.h"
#include "pl-renderer.h"
#include "pl-similarity-page.h"
#include "pl-window.h"

typedef struct
{
  PlApplication *app;
  GtkWidget     *view;
  gint64         started;
  gint64         first_paint;   /* the window's first frame, whatever it shows */
  guint          n_frames;      /* frames painted before the heatmap's */
} Bench;

/* After each painted frame: has the heatmap been drawn in it? */
static void
on_after_paint (GdkFrameClock *clock,
                Bench         *bench)
{
  PlFigureView *view = PL_FIGURE_VIEW (bench->view);
  struct rusage usage;

  if (bench->first_paint == 0)
    bench->first_paint = g_get_real_time ();
  if (pl_figure_view_get_figure (view) == NULL || !gtk_widget_get_mapped (bench->view) ||
      gtk_widget_get_width (bench->view) < 100)
    {
      bench->n_frames++;
      return;
    }
  /* CPU time of all threads so far: what the start costs, whatever else
   * the machine is doing. */
  getrusage (RUSAGE_SELF, &usage);
  printf ("{\"first_frame_us\": %" G_GINT64_FORMAT ", \"main_us\": %" G_GINT64_FORMAT ", "
          "\"first_paint_us\": %" G_GINT64_FORMAT ", \"frames_before\": %u, \"cpu_us\": %ld}\n",
          g_get_real_time (), bench->started, bench->first_paint, bench->n_frames,
          (long) (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000 +
          usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  fflush (stdout);
  g_signal_handlers_disconnect_by_func (clock, on_after_paint, bench);
  g_application_quit (G_APPLICATION (bench->app));
}

static void
on_window_mapped (GtkWidget *window,
                  Bench     *bench)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), bench);
}

static void
on_activate (GApplication *app,
             Bench        *bench)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));
  GtkWidget *page = pl_window_get_page (PL_WINDOW (window), "similarity");

  bench->view = GTK_WIDGET (pl_page_get_figure_view (PL_PAGE (page)));
  if (gtk_widget_get_mapped (GTK_WIDGET (window)))
    on_window_mapped (GTK_WIDGET (window), bench);
  else
    g_signal_connect (window, "map", G_CALLBACK (on_window_mapped), bench);
}

int
main (int   argc,
      char *argv[])
{
  Bench bench = { 0 };
  int status;

  pl_blas_core_choose (argv);
  /* The renderer the app itself chooses (GSK_RENDERER set by hand wins). */
  pl_renderer_choose ("/dev/dri");
  bench.started = g_get_real_time ();
  bench.app = pl_application_new ();
  /* After the application's own activate handler has made the window. */
  g_signal_connect_after (bench.app, "activate", G_CALLBACK (on_activate), &bench);
  status = g_application_run (G_APPLICATION (bench.app), argc, argv);
  g_object_unref (bench.app);
  return status;
}
