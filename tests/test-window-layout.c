/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-attention-text.h"
#include "pl-figure-view.h"
#include "pl-page.h"
#include "pl-patches-page.h"
#include "pl-playground-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* The figure-layout contract (pl-figure.h) on screen: the window draws its
 * figures with the renderer that exports them, so every figure of every
 * view keeps the contract at the sizes the window gives it, 1600, 900, 800
 * and 360 px wide: each figure view's last render, as the renderer laid it
 * out, at least 6.5 px text, nothing off the view or overlapping, equal
 * panels, modest titles. */

#define SENTENCE "The quick brown fox jumps over the lazy dog."

static PlApplication *app;
static PlWindow *window;

/* A window of WIDTH × 700 as the user left it last time (GTK cannot resize
 * a mapped window). */
static void
open_at (int width)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));

  g_settings_set_int (settings, "window-width", width);
  g_settings_set_int (settings, "window-height", 700);
  gtk_window_destroy (GTK_WINDOW (window));
  window = pl_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  while (g_list_model_get_n_items (pl_window_get_models (window)) < PL_TEST_N_DEMOS ||
         !gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  pl_test_wait_frames (GTK_WIDGET (window), 4);
}

static void
select_model_named (const char *name)
{
  GListModel *models = pl_window_get_models (window);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_str_equal (pl_model_get_name (model), name))
        {
          pl_window_select_model (window, i);
          return;
        }
    }
  g_assert_not_reached ();
}

static int
find_path (const char *path)
{
  GListModel *models = pl_window_get_models (window);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_strcmp0 (pl_model_get_path (model), path) == 0)
        return (int) i;
    }
  return -1;
}

static gboolean
model_listed (gpointer path)
{
  return find_path (path) >= 0;
}

static void
select_model_path (const char *path)
{
  g_assert_cmpint (find_path (path), >=, 0);
  pl_window_select_model (window, (guint) find_path (path));
}

static void
collect_figure_views (GtkWidget *widget,
                      GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (PL_IS_FIGURE_VIEW (child))
      g_ptr_array_add (found, child);
    else
      collect_figure_views (child, found);
}

/* The first descendant of WIDGET of TYPE, depth first. */
static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
page_idle (gpointer page)
{
  return !pl_page_get_busy (page);
}

/* Every figure view shown in PAGE: its figure drawn at the view's size and
 * keeping the contract there; how many were checked. */
static guint
check_figures (GtkWidget  *page,
               const char *where)
{
  g_autoptr(GPtrArray) views = g_ptr_array_new ();
  guint checked = 0;

  pl_test_wait_frames (GTK_WIDGET (window), 3);
  collect_figure_views (page, views);
  for (guint i = 0; i < views->len; i++)
    {
      GtkWidget *view = views->pdata[i];
      PlFigure *figure = pl_figure_view_get_figure (PL_FIGURE_VIEW (view));
      g_autoptr(GError) error = NULL;
      double width, height;

      if (figure == NULL || !gtk_widget_get_mapped (view) || gtk_widget_get_width (view) == 0)
        continue;
      pl_figure_get_layout (figure, NULL, &width, &height);
      g_assert_cmpfloat (width, ==, gtk_widget_get_width (view));
      g_assert_cmpfloat (height, ==, gtk_widget_get_height (view));
      if (!pl_figure_check_layout (figure, PL_FIGURE_MIN_TEXT_PT, &error))
        g_error ("%s, figure %u (%s): %s", where, i, pl_figure_get_title (figure), error->message);
      g_test_message ("%s, figure %u: %.0f × %.0f, smallest text %.1f px", where, i, width, height,
                      pl_figure_get_min_text_size (figure, NULL));
      checked++;
    }
  return checked;
}

/* VIEW shown and its answer waited for; its figures checked. */
static void
check_view (const char *view,
            const char *sub_view,
            int         width)
{
  GtkWidget *page = pl_window_get_page (window, view);
  g_autofree char *where = g_strdup_printf ("%s%s%s at %d px", view, sub_view ? " " : "", sub_view ? sub_view : "",
                                            width);

  pl_window_show_view (window, view);
  if (sub_view != NULL)
    pl_attention_page_show (PL_ATTENTION_PAGE (page), sub_view);
  pl_test_wait_until (pl_test_page_ready, page, where);
  g_assert_cmpuint (check_figures (page, where), >, 0);
}

static void
check_width (gconstpointer data)
{
  int width = GPOINTER_TO_INT (data);
  const char *views[] = { "similarity", "trajectory", "probes", "compare" };
  const char *attention[] = { "offsets", "distances", "position-only" };
  const PlPlaygroundKind kinds[] = { PL_PLAYGROUND_SINUSOIDAL, PL_PLAYGROUND_ROPE, PL_PLAYGROUND_ALIBI,
                                     PL_PLAYGROUND_SINCOS2D };
  GtkWidget *page;

  open_at (width);
  width = gtk_widget_get_width (GTK_WIDGET (window));
  select_model_named ("mini-gpt2");
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    check_view (views[i], NULL, width);
  for (guint i = 0; i < G_N_ELEMENTS (attention); i++)
    check_view ("attention", attention[i], width);

  /* A typed sentence's map. */
  {
    PlAttentionText *text;
    GtkEditable *entry;
    g_autofree char *where = g_strdup_printf ("attention text at %d px", width);

    pl_window_show_view (window, "attention");
    pl_attention_page_show (PL_ATTENTION_PAGE (pl_window_get_page (window, "attention")), "text");
    text = PL_ATTENTION_TEXT (find_descendant (pl_window_get_page (window, "attention"), PL_TYPE_ATTENTION_TEXT));
    pl_test_wait_until (page_idle, text, "the tokenizer and the weights");
    entry = pl_attention_text_get_entry (text);
    gtk_editable_set_text (entry, SENTENCE);
    g_signal_emit_by_name (entry, "activate");
    pl_test_wait_until (page_idle, text, where);
    g_assert_cmpuint (check_figures (GTK_WIDGET (text), where), >, 0);
  }

  /* The Playground's four encodings, two figures each. */
  page = pl_window_get_page (window, "playground");
  pl_window_show_view (window, "playground");
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *where = g_strdup_printf ("playground %u at %d px", kinds[k], width);

      pl_playground_page_set_kind (PL_PLAYGROUND_PAGE (page), kinds[k]);
      pl_test_wait_until (page_idle, page, where);
      g_assert_cmpuint (check_figures (page, where), ==, 2);
    }

  /* A vision transformer's patches: the grid of grids and the colours. */
  select_model_named ("mini-vit");
  page = pl_window_get_page (window, "patches");
  check_view ("patches", NULL, width);
  pl_patches_page_show (PL_PATCHES_PAGE (page), PL_PATCHES_COLOURS);
  check_view ("patches", NULL, width);

  /* A rotary model's query norms by plane (a tiny Llama). */
  {
    g_autofree char *path = pl_test_fixture ("rope", "llama", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);

    pl_window_open_file (window, file, TRUE);
    pl_test_wait_until (model_listed, path, "the Llama fixture");
    select_model_path (path);
    check_view ("rotary", NULL, width);
  }
}

/* The Playground's knobs move one by one when the kind changes; no
 * question on the way asks for more than the kind offers (from ALiBi, the
 * width moved first asked for a 2-D grid of 256 × 256 patches, a 16 GiB
 * similarity, before the length came down to 14). */
#define MAX_GRID_SIDE 48

static void
collect_spin_buttons (GtkWidget *widget,
                      GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_SPIN_BUTTON (child))
      g_ptr_array_add (found, child);
    else
      collect_spin_buttons (child, found);
}

static void
check_asked (GtkSpinButton *spin,
             gpointer       page)
{
  guint length;

  if (pl_playground_page_get_asked (page, &length, NULL) == PL_PLAYGROUND_SINCOS2D)
    g_assert_cmpuint (length, <=, MAX_GRID_SIDE);
}

static void
test_playground_bounds (void)
{
  GtkWidget *page = pl_window_get_page (window, "playground");
  g_autoptr(GPtrArray) spins = g_ptr_array_new ();
  const PlPlaygroundKind kinds[] = { PL_PLAYGROUND_ALIBI, PL_PLAYGROUND_SINCOS2D, PL_PLAYGROUND_ROPE,
                                     PL_PLAYGROUND_SINCOS2D, PL_PLAYGROUND_ALIBI, PL_PLAYGROUND_SINCOS2D };
  guint length;

  pl_window_show_view (window, "playground");
  collect_spin_buttons (page, spins);
  g_assert_cmpuint (spins->len, >=, 2);
  for (guint i = 0; i < spins->len; i++)
    g_signal_connect_after (spins->pdata[i], "value-changed", G_CALLBACK (check_asked), page);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      pl_playground_page_set_kind (PL_PLAYGROUND_PAGE (page), kinds[k]);
      check_asked (NULL, page);
      pl_test_wait_until (page_idle, page, "the Playground");
    }
  g_assert_cmpint (pl_playground_page_get_asked (PL_PLAYGROUND_PAGE (page), &length, NULL), ==,
                   PL_PLAYGROUND_SINCOS2D);
  g_assert_cmpuint (length, ==, 14);
  for (guint i = 0; i < spins->len; i++)
    g_signal_handlers_disconnect_by_func (spins->pdata[i], check_asked, page);
}

int
main (int    argc,
      char **argv)
{
  const int widths[] = { 1600, 900, 800, 360 };
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_autofree char *path = g_strdup_printf ("/window-layout/%d", widths[i]);

      g_test_add_data_func (path, GINT_TO_POINTER (widths[i]), check_width);
    }
  g_test_add_func ("/window-layout/playground-bounds", test_playground_bounds);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
