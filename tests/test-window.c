/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-application.h"
#include "pl-similarity-page.h"
#include "pl-window.h"

/* The real application in a real window (under Xvfb in CI): the demo models
 * load, and the heatmap is drawn and changes with the selected model. */

static PlApplication *app;

static gboolean
timed_out (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Turns the main loop until CHECK holds, failing after 60 s. */
static void
wait_until (gboolean (*check) (PlWindow *), PlWindow *window, const char *what)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (60, timed_out, &expired);

  while (!check (window) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (expired)
    g_error ("timed out waiting for %s", what);
  g_source_remove (id);
}

static gboolean
demos_loaded (PlWindow *window)
{
  /* Three demo checkpoints and the sinusoid. */
  return g_list_model_get_n_items (pl_window_get_models (window)) == 4;
}

static gboolean
heatmap_ready (PlWindow *window)
{
  PlSimilarityPage *page = PL_SIMILARITY_PAGE (pl_window_get_similarity_page (window));
  GtkWidget *view = pl_similarity_page_get_figure_view (page);

  return !pl_similarity_page_get_busy (page) &&
         pl_similarity_page_get_figure (page) != NULL &&
         gtk_widget_get_mapped (view) &&
         gtk_widget_get_width (view) > 100;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

/* Lets the window draw a few frames, so what it shows is what was asked for. */
static void
wait_frames (GtkWidget *widget, guint n)
{
  guint frames = 0;
  guint id = gtk_widget_add_tick_callback (widget, count_frame, &frames, NULL);

  gtk_widget_queue_draw (widget);
  while (frames < n)
    g_main_context_iteration (NULL, TRUE);
  gtk_widget_remove_tick_callback (widget, id);
}

/* Renders the figure widget through the window's own renderer. */
static GBytes *
render_view (PlWindow *window, int *width, int *height)
{
  PlSimilarityPage *page = PL_SIMILARITY_PAGE (pl_window_get_similarity_page (window));
  GtkWidget *view = pl_similarity_page_get_figure_view (page);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (view);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (view));
  guchar *pixels;

  wait_frames (view, 3);
  *width = gtk_widget_get_width (view);
  *height = gtk_widget_get_height (view);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), *width, *height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  pixels = g_malloc (*width * *height * 4);
  gdk_texture_download (texture, pixels, *width * 4);
  return g_bytes_new_take (pixels, *width * *height * 4);
}

static guint
count_colours (GBytes *image)
{
  gsize size;
  const guint32 *px = g_bytes_get_data (image, &size);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (gsize i = 0; i < size / 4; i += 7)
    g_hash_table_add (seen, GUINT_TO_POINTER (px[i]));
  return g_hash_table_size (seen);
}

static double
fraction_changed (GBytes *a, GBytes *b)
{
  gsize n, m, changed = 0;
  const guint32 *pa = g_bytes_get_data (a, &n);
  const guint32 *pb = g_bytes_get_data (b, &m);

  g_assert_cmpuint (n, ==, m);
  for (gsize i = 0; i < n / 4; i++)
    changed += pa[i] != pb[i];
  return (double) changed / (n / 4);
}

static void
test_heatmap_drawn (void)
{
  PlWindow *window;
  g_autoptr(GBytes) first = NULL;
  g_autoptr(GBytes) second = NULL;
  int w1, h1, w2, h2;

  g_application_activate (G_APPLICATION (app));
  window = PL_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);

  wait_until (demos_loaded, window, "the demo models");
  wait_until (heatmap_ready, window, "the first heatmap");
  first = render_view (window, &w1, &h1);
  /* A colour-mapped heatmap has many colours; a blank or flat widget has a handful. */
  g_assert_cmpuint (count_colours (first), >, 200);

  pl_window_select_model (window, 1);
  {
    g_autoptr(PlModel) bert = g_list_model_get_item (pl_window_get_models (window), 1);
    g_assert_true (pl_workspace_get_model (pl_window_get_workspace (window)) == bert);
  }
  wait_until (heatmap_ready, window, "the second heatmap");
  second = render_view (window, &w2, &h2);
  g_assert_cmpint (w1, ==, w2);
  g_assert_cmpint (h1, ==, h2);
  g_assert_cmpuint (count_colours (second), >, 200);
  /* GPT-2's and BERT's tables differ everywhere but on the diagonal. */
  g_assert_cmpfloat (fraction_changed (first, second), >, 0.3);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  int status;

  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = pl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/pl/window/heatmap-drawn", test_heatmap_drawn);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
