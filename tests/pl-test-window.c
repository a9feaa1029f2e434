/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-blas-core.h"
#include "pl-executor.h"
#include "pl-page.h"
#include "pl-test-window.h"

/* Long enough for one analysis on a machine shared far beyond its cores;
 * a hang still ends with the name of what never came. */
#define WAIT_SECONDS 400

static gboolean
timed_out (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
pl_test_wait_until (gboolean   (*check) (gpointer data),
                    gpointer     data,
                    const char  *what)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (WAIT_SECONDS, timed_out, &expired);

  while (!check (data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (expired)
    g_error ("timed out waiting for %s", what);
  g_source_remove (id);
}

void
pl_test_run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timed_out, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
pl_test_wait_tasks_answered (void)
{
  gboolean done = FALSE;

  /* A task ended on a worker has queued its answer on the main context at
   * the default priority: a low-priority idle added now runs after it. */
  pl_executor_wait_idle (pl_executor_get_default ());
  g_idle_add_full (G_PRIORITY_LOW, set_flag, &done, NULL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

void
pl_test_window_init (int    *argc,
                     char ***argv)
{
  pl_blas_core_choose (*argv);
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (argc, argv, NULL);
  adw_init ();
}

static gboolean
demos_listed (gpointer window)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= PL_TEST_N_DEMOS;
}

PlWindow *
pl_test_window_open (PlApplication **app)
{
  PlWindow *window;

  *app = pl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (*app), NULL, NULL));
  g_application_activate (G_APPLICATION (*app));
  window = PL_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (*app)));
  g_assert_nonnull (window);
  pl_test_wait_until (demos_listed, window, "the demo models");
  return window;
}

GtkWidget *
pl_test_page (PlWindow   *window,
              const char *name)
{
  GtkWidget *widget = pl_window_get_page (window, name);

  g_assert_nonnull (widget);
  return widget;
}

void
pl_test_activate (PlWindow   *window,
                  const char *action,
                  GVariant   *param)
{
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), action, param));
}

gboolean
pl_test_page_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_page_get_figure (page) != NULL;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

void
pl_test_wait_frames (GtkWidget *widget,
                     guint      n)
{
  guint frames = 0;
  guint id = gtk_widget_add_tick_callback (widget, count_frame, &frames, NULL);

  gtk_widget_queue_draw (widget);
  while (frames < n)
    g_main_context_iteration (NULL, TRUE);
  gtk_widget_remove_tick_callback (widget, id);
}

GBytes *
pl_test_render (GtkWidget *widget,
                int       *width,
                int       *height)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer;
  guchar *pixels;

  pl_test_wait_frames (widget, 3);
  paintable = gtk_widget_paintable_new (widget);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  *width = gtk_widget_get_width (widget);
  *height = gtk_widget_get_height (widget);
  g_assert_cmpint (*width, >, 0);
  g_assert_cmpint (*height, >, 0);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), *width, *height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return g_bytes_new_take (pixels, (gsize) *width * *height * 4);
}

guint
pl_test_count_colours (GBytes *image)
{
  gsize size;
  const guint32 *px = g_bytes_get_data (image, &size);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (gsize i = 0; i < size / 4; i += 7)
    g_hash_table_add (seen, GUINT_TO_POINTER (px[i]));
  return g_hash_table_size (seen);
}

double
pl_test_mean_luminance (GBytes *image)
{
  gsize size;
  const guchar *px = g_bytes_get_data (image, &size);
  double sum = 0;

  /* gdk_texture_download gives B, G, R, A on little-endian machines. */
  for (gsize i = 0; i < size; i += 4)
    sum += (0.0722 * px[i] + 0.7152 * px[i + 1] + 0.2126 * px[i + 2]) / 255.0;
  return sum / (size / 4);
}

gboolean
pl_test_shows_label (GtkWidget  *widget,
                     const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (pl_test_shows_label (child, text))
      return TRUE;
  return FALSE;
}
