/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-application.h"
#include "pl-renderer.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window.h"

/* The real application in a real window (under Xvfb in CI): the demo models
 * load, and the heatmap is drawn and changes with the selected model. */

static PlApplication *app;

static PlSimilarityPage *
similarity_page (PlWindow *window)
{
  return PL_SIMILARITY_PAGE (pl_window_get_page (window, "similarity"));
}

static gboolean
demos_loaded (gpointer window)
{
  /* Three text checkpoints, the sinusoid and the vision transformer. */
  return g_list_model_get_n_items (pl_window_get_models (window)) == PL_TEST_N_DEMOS;
}

static gboolean
heatmap_ready (gpointer window)
{
  PlSimilarityPage *page = similarity_page (window);
  GtkWidget *view = GTK_WIDGET (pl_page_get_figure_view (PL_PAGE (page)));

  return !pl_page_get_busy ((PlPage *) page) &&
         pl_page_get_figure ((PlPage *) page) != NULL &&
         gtk_widget_get_mapped (view) &&
         gtk_widget_get_width (view) > 100;
}

/* Over the area both images cover: the window may settle a few pixels
 * differently as the toolbar's text changes. */
static double
fraction_changed (GBytes *a, int wa, int ha, GBytes *b, int wb, int hb)
{
  const guint32 *pa = g_bytes_get_data (a, NULL);
  const guint32 *pb = g_bytes_get_data (b, NULL);
  int w = MIN (wa, wb), h = MIN (ha, hb);
  gsize changed = 0;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      changed += pa[(gsize) y * wa + x] != pb[(gsize) y * wb + x];
  return (double) changed / ((gsize) w * h);
}

static void
test_heatmap_drawn (void)
{
  PlWindow *window;
  GtkWidget *view;
  g_autoptr(GBytes) first = NULL;
  g_autoptr(GBytes) second = NULL;
  g_autoptr(PlModel) bert = NULL;
  int w1, h1, w2, h2;

  g_application_activate (G_APPLICATION (app));
  window = PL_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);

  pl_test_wait_until (demos_loaded, window, "the demo models");
  /* The vision demo comes last, with its patch grid. */
  {
    g_autoptr(PlModel) vit = g_list_model_get_item (pl_window_get_models (window), PL_TEST_N_DEMOS - 1);
    guint rows = 0, cols = 0;

    g_assert_cmpstr (pl_model_get_name (vit), ==, "mini-vit");
    g_assert_true (pl_model_get_grid (vit, &rows, &cols));
    g_assert_cmpuint (rows * cols, ==, 64);
  }
  pl_test_wait_until (heatmap_ready, window, "the first heatmap");
  view = GTK_WIDGET (pl_page_get_figure_view (PL_PAGE (similarity_page (window))));
  first = pl_test_render (view, &w1, &h1);
  /* A colour-mapped heatmap has many colours; a blank or flat widget has a handful. */
  g_assert_cmpuint (pl_test_count_colours (first), >, 200);

  pl_window_select_model (window, 1);
  bert = g_list_model_get_item (pl_window_get_models (window), 1);
  g_assert_true (pl_workspace_get_model (pl_window_get_workspace (window)) == bert);
  pl_test_wait_until (heatmap_ready, window, "the second heatmap");
  second = pl_test_render (view, &w2, &h2);
  g_assert_cmpint (ABS (w1 - w2), <, 100);
  g_assert_cmpuint (pl_test_count_colours (second), >, 200);
  /* GPT-2's and BERT's tables differ everywhere but on the diagonal. */
  g_assert_cmpfloat (fraction_changed (first, w1, h1, second, w2, h2), >, 0.3);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The renderer choice: cairo when GL would be software (no render node, or
 * LIBGL_ALWAYS_SOFTWARE) on GTK before 4.14, and never over a GSK_RENDERER
 * the user set. */
static void
test_renderer_choice (void)
{
  g_autofree char *empty = pl_test_tmpdir ();
  g_autofree char *gpu = pl_test_tmpdir ();
  g_autofree char *node = g_build_filename (gpu, "renderD128", NULL);
  g_autofree char *saved = g_strdup (g_getenv ("GSK_RENDERER"));
  gboolean old_gtk = gtk_get_minor_version () < 14;

  g_assert_true (g_file_set_contents (node, "", 0, NULL));
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");

  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("GDK_DEBUG");
  g_assert_true (pl_renderer_choose (empty) == old_gtk);
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, old_gtk ? "cairo" : NULL);
  /* Cairo chosen, GDK makes no GL context either; other flags stay. */
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, old_gtk ? "gl-disable" : NULL);
  g_unsetenv ("GSK_RENDERER");
  g_setenv ("GDK_DEBUG", "interactive", TRUE);
  g_assert_true (pl_renderer_choose (empty) == old_gtk);
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, old_gtk ? "interactive,gl-disable" : "interactive");
  g_unsetenv ("GDK_DEBUG");

  g_unsetenv ("GSK_RENDERER");
  g_assert_false (pl_renderer_choose (gpu));
  g_assert_null (g_getenv ("GSK_RENDERER"));
  g_assert_null (g_getenv ("GDK_DEBUG"));

  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
  g_assert_true (pl_renderer_choose (gpu) == old_gtk);
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");

  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_false (pl_renderer_choose (empty));
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "gl");

  if (saved != NULL)
    g_setenv ("GSK_RENDERER", saved, TRUE);
  else
    g_unsetenv ("GSK_RENDERER");
  pl_test_rmtree (empty);
  pl_test_rmtree (gpu);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);

  app = pl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/pl/window/heatmap-drawn", test_heatmap_drawn);
  g_test_add_func ("/pl/window/renderer-choice", test_renderer_choice);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
