/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How soon the Attention view of a large model shows its first layer, in the
 * real window (run by hand, not a test; needs a display, e.g. xvfb-run):
 *   pl-bench-attention MODEL_DIR
 * opens the model, waits for its row, then shows the Attention view and
 * prints one line: "attention LAYERS SECONDS_OPEN SECONDS_FIRST_LAYER
 * SECONDS_ALL_LAYERS CPU_FIRST_LAYER CPU_ALL": the wall time from asking to
 * open the file to the model's row, from showing the view to the first
 * layer's offsets on screen, and to every layer's statistics, and the
 * processor time the executor counted from showing the view to the first
 * layer's answer and to the last. On a machine shared with other work the
 * wall times stretch; CPU_FIRST_LAYER over the threads is the time a quiet
 * machine would take. */
#include "config.h"

#include <adwaita.h>
#include <stdio.h>

#include "pl-blas-core.h"
#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-executor.h"
#include "pl-page.h"
#include "pl-test-window.h"
#include "pl-window.h"

static gboolean
model_open (gpointer window)
{
  PlWorkspace *workspace = pl_window_get_workspace (window);

  return pl_workspace_get_model (workspace) != NULL && pl_workspace_get_n_layers (workspace) > 0;
}

static gboolean
first_layer_shown (gpointer page)
{
  return pl_page_get_figure (page) != NULL;
}

static gboolean
page_idle (gpointer page)
{
  return !pl_page_get_busy (page) && pl_page_get_figure (page) != NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PlApplication) app = NULL;
  g_autoptr(GFile) file = NULL;
  PlExecutor *executor;
  PlWindow *window;
  PlPage *page;
  double total0, cancelled0, total1, cancelled1, first_total, first_cancelled, open_s, first_s, all_s;
  gint64 start;

  pl_blas_core_choose (argv);
  if (argc != 2)
    {
      fprintf (stderr, "usage: pl-bench-attention MODEL_DIR\n");
      return 1;
    }
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gtk_init ();
  adw_init ();
  app = pl_application_new ();
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 2;
  g_application_activate (G_APPLICATION (app));
  window = PL_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  page = PL_PAGE (pl_window_get_page (window, "attention"));
  executor = pl_executor_get_default ();

  file = g_file_new_for_path (argv[1]);
  start = g_get_monotonic_time ();
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (model_open, window, "the model");
  open_s = (g_get_monotonic_time () - start) / 1e6;
  /* the views on screen so far are done with the model before timing */
  while (pl_executor_get_n_running (executor) > 0)
    pl_test_run_for (10);

  pl_executor_get_cpu_time (executor, &total0, &cancelled0);
  start = g_get_monotonic_time ();
  pl_window_show_view (window, "attention");
  pl_test_wait_until (first_layer_shown, page, "the first layer");
  first_s = (g_get_monotonic_time () - start) / 1e6;
  pl_executor_get_cpu_time (executor, &first_total, &first_cancelled);
  pl_test_wait_until (page_idle, page, "every layer");
  all_s = (g_get_monotonic_time () - start) / 1e6;
  while (pl_executor_get_n_running (executor) > 0)
    pl_test_run_for (10);
  pl_executor_get_cpu_time (executor, &total1, &cancelled1);
  printf ("attention %u %.3f %.3f %.3f %.3f %.3f\n", pl_workspace_get_n_layers (pl_window_get_workspace (window)),
          open_s, first_s, all_s, first_total - total0, total1 - total0);

  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
