/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Holding Page Down through the layers of a model, in the real window, for
 * bench-analyses.py (run by hand, not a test; needs a display, e.g.
 * xvfb-run):
 *   pl-bench-stepping MODEL_DIR
 * opens the model, shows the similarity of its position table, then steps
 * to the next layer every 33 ms (a keyboard's repeat rate) to the last one,
 * and prints one line: "stepping LAYERS RUNNING_AFTER_100MS SECONDS_TO_ANSWER
 * CPU_SECONDS SUPERSEDED_CPU_SECONDS", the processor time counted by the
 * executor from the first step to the last layer's answer. */
#include "config.h"

#include <adwaita.h>
#include <stdio.h>

#include "pl-blas-core.h"
#include "pl-application.h"
#include "pl-executor.h"
#include "pl-page.h"
#include "pl-test-window.h"
#include "pl-window.h"

#define REPEAT_MS 33

static gboolean
model_open (gpointer window)
{
  PlWorkspace *workspace = pl_window_get_workspace (window);

  return pl_workspace_get_model (workspace) != NULL && pl_workspace_get_n_layers (workspace) > 0;
}

static gboolean
page_ready (gpointer page)
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
  PlWorkspace *workspace;
  PlPage *page;
  double total0, cancelled0, total1, cancelled1, to_answer;
  gint64 last_press;
  guint running, n_layers;

  pl_blas_core_choose (argv);
  if (argc != 2)
    {
      fprintf (stderr, "usage: pl-bench-stepping MODEL_DIR\n");
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
  workspace = pl_window_get_workspace (window);
  page = PL_PAGE (pl_window_get_page (window, "similarity"));
  executor = pl_executor_get_default ();

  file = g_file_new_for_path (argv[1]);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (model_open, window, "the model");
  pl_window_show_view (window, "similarity");
  pl_test_wait_until (page_ready, page, "the similarity");
  n_layers = pl_workspace_get_n_layers (workspace);

  pl_executor_get_cpu_time (executor, &total0, &cancelled0);
  for (guint k = 0; k <= n_layers; k++)
    {
      gtk_widget_activate_action (GTK_WIDGET (window), "win.step-layer", "i", 1);
      pl_test_run_for (REPEAT_MS);
    }
  last_press = g_get_monotonic_time () - REPEAT_MS * 1000;
  pl_test_run_for (100 - REPEAT_MS);
  running = pl_executor_get_n_running (executor);
  pl_test_wait_until (page_ready, page, "the similarity");
  to_answer = (g_get_monotonic_time () - last_press) / 1e6;
  while (pl_executor_get_n_running (executor) > 0)
    pl_test_run_for (10);
  pl_executor_get_cpu_time (executor, &total1, &cancelled1);
  printf ("stepping %u %u %.3f %.3f %.3f\n", n_layers, running, to_answer, total1 - total0, cancelled1 - cancelled0);

  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
