/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "pl-attention-page.h"
#include "pl-attention-stats.h"
#include "pl-figure-private.h"
#include "pl-figure-view.h"
#include "pl-page.h"
#include "pl-playground-page.h"
#include "pl-rotary-page.h"
#include "pl-test-window.h"
#include "pl-version.h"
#include "pl-window-private.h"

/* The window's small things: the About window, removing a model and taking
 * it back, the model selected at a restart. */

static PlApplication *app;
static PlWindow *window;

static gboolean
about_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_ABOUT_WINDOW (toplevel) && gtk_widget_get_mapped (GTK_WIDGET (toplevel)))
        {
          *(AdwAboutWindow **) data = ADW_ABOUT_WINDOW (toplevel);
          return TRUE;
        }
    }
  return FALSE;
}

/* About names the version it runs (in a build from git, with its commit),
 * the website and where to report an issue. */
static void
test_about (void)
{
  AdwAboutWindow *about = NULL;
  const char *version;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  pl_test_wait_until (about_shown, &about, "the About window");
  version = adw_about_window_get_version (about);
  g_test_message ("About: version %s, website %s, issues %s", version, adw_about_window_get_website (about),
                  adw_about_window_get_issue_url (about));
  g_assert_cmpstr (version, ==, pl_version ());
  g_assert_true (g_str_has_prefix (version, PACKAGE_VERSION));
  /* Built from a git checkout, as here: "0.2.0+" and the commit. */
  if (g_file_test (g_test_get_filename (G_TEST_DIST, "..", ".git", NULL), G_FILE_TEST_EXISTS))
    {
      g_assert_cmpuint (strlen (version), ==, strlen (PACKAGE_VERSION) + 1 + 7);
      g_assert_cmpint (version[strlen (PACKAGE_VERSION)], ==, '+');
    }
  g_assert_true (g_str_has_prefix (adw_about_window_get_website (about), "https://"));
  g_assert_true (g_str_has_prefix (adw_about_window_get_issue_url (about), adw_about_window_get_website (about)));
  g_assert_nonnull (strstr (adw_about_window_get_debug_info (about), version));
  gtk_window_destroy (GTK_WINDOW (about));
}

static PlModel *
model_at (guint i)
{
  g_autoptr(PlModel) model = g_list_model_get_item (pl_window_get_models (window), i);

  return model;
}

static gboolean
removed_demo (const char *name)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_auto(GStrv) removed = g_settings_get_strv (settings, "removed-demos");

  return g_strv_contains ((const char * const *) removed, name);
}

/* The toast's Undo button, as the user finds it. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_BUTTON (child) && gtk_widget_get_mapped (child) &&
          g_strcmp0 (gtk_button_get_label (GTK_BUTTON (child)), label) == 0)
        return child;
      if ((found = find_button (child, label)) != NULL)
        return found;
    }
  return NULL;
}

static gboolean
button_shown (gpointer data)
{
  return find_button (GTK_WIDGET (window), data) != NULL;
}

static gboolean
toast_gone (gpointer data)
{
  return window->remove_toast == NULL;
}

/* Delete takes the selected model out and offers Undo in a toast, which
 * puts it back in its row, selected, and keeps a demo at start; a second
 * Delete while the toast shows offers the newest model back. */
static void
test_delete_undo (void)
{
  GListModel *models = pl_window_get_models (window);
  guint n = g_list_model_get_n_items (models);
  PlModel *model = model_at (1);
  g_autofree char *name = g_strdup (pl_model_get_name (model));

  g_object_ref (model);
  pl_window_select_model (window, 1);
  pl_test_activate (window, "win.remove-model", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (models), ==, n - 1);
  g_assert_true (model_at (1) != model);
  g_assert_true (removed_demo (name));
  g_assert_nonnull (window->remove_toast);
  g_assert_nonnull (strstr (adw_toast_get_title (window->remove_toast), name));
  g_assert_cmpstr (adw_toast_get_action_name (window->remove_toast), ==, "win.undo-remove");

  pl_test_activate (window, "win.undo-remove", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (models), ==, n);
  g_assert_true (model_at (1) == model);
  g_assert_true (pl_window_get_selected_model (window) == model);
  g_assert_false (removed_demo (name));
  /* Nothing more to undo. */
  pl_test_activate (window, "win.undo-remove", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (models), ==, n);

  /* Two Deletes, then the toast's own button: the second model is back. */
  {
    PlModel *second = model_at (2);
    g_autofree char *second_name = g_strdup (pl_model_get_name (second));

    pl_window_select_model (window, 1);
    pl_test_activate (window, "win.remove-model", NULL);
    g_assert_true (pl_window_get_selected_model (window) == second);
    pl_test_activate (window, "win.remove-model", NULL);
    g_assert_cmpuint (g_list_model_get_n_items (models), ==, n - 2);
    g_assert_nonnull (strstr (adw_toast_get_title (window->remove_toast), second_name));
    pl_test_wait_until (button_shown, (gpointer) "_Undo", "the Undo button");
    g_signal_emit_by_name (find_button (GTK_WIDGET (window), "_Undo"), "clicked");
    pl_test_wait_until (toast_gone, NULL, "the toast to go");
    g_assert_cmpuint (g_list_model_get_n_items (models), ==, n - 1);
    g_assert_cmpstr (pl_model_get_name (model_at (1)), ==, second_name);
    g_assert_true (removed_demo (name));
    pl_test_wait_frames (GTK_WIDGET (window), 4);
  }
  /* The first one comes back from the menu, for the tests after this one. */
  pl_test_activate (window, "win.restore-demos", NULL);
  while (g_list_model_get_n_items (models) < n)
    g_main_context_iteration (NULL, TRUE);
  g_object_unref (model);
}

static gboolean
first_selection_made (gpointer data)
{
  return *(char **) data != NULL;
}

static void
note_first_model (PlWorkspace *workspace,
                  GParamSpec  *pspec,
                  char       **first)
{
  PlModel *model = pl_workspace_get_model (workspace);

  if (*first == NULL && model != NULL)
    *first = g_strdup (pl_model_get_path (model));
}

/* A new window, as at a restart: the path of the first model it selects. */
static char *
start_window (void)
{
  char *first = NULL;

  window = pl_window_new (app);
  g_signal_connect (pl_window_get_workspace (window), "notify::model", G_CALLBACK (note_first_model), &first);
  gtk_window_present (GTK_WINDOW (window));
  pl_test_wait_until (first_selection_made, &first, "a model selected");
  g_signal_handlers_disconnect_by_func (pl_window_get_workspace (window), note_first_model, &first);
  return first;
}

/* A restart selects the model selected when the window closed, as the
 * first selection (not the first model, then that one); a model that is
 * gone leaves the first selected. */
static void
test_restart_selection (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_autofree char *path = NULL;
  g_autofree char *first = NULL;
  g_autofree char *fallback = NULL;

  pl_window_select_model (window, 2);
  path = g_strdup (pl_model_get_path (pl_window_get_selected_model (window)));
  gtk_window_close (GTK_WINDOW (window));
  first = start_window ();
  g_assert_cmpstr (first, ==, path);
  while (g_list_model_get_n_items (pl_window_get_models (window)) < PL_TEST_N_DEMOS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (pl_model_get_path (pl_window_get_selected_model (window)), ==, path);

  /* The model selected last time has gone since. */
  gtk_window_close (GTK_WINDOW (window));
  g_settings_set_string (settings, "selected-model", "/nonexistent/model.safetensors");
  fallback = start_window ();
  g_assert_cmpstr (fallback, ==, pl_model_get_path (model_at (0)));
}

static void
collect_figure_views (GtkWidget *widget,
                      GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (PL_IS_FIGURE_VIEW (child))
      g_ptr_array_add (found, child);
    else
      collect_figure_views (child, found);
}

/* TEXT, a title or a colour bar's label, starts as a sentence does: with a
 * capital, a digit or a model's name (which may be lower case). */
static void
assert_capital (const char *text,
                const char *model_name,
                const char *what)
{
  gunichar first;

  if (text == NULL || (model_name != NULL && g_str_has_prefix (text, model_name)))
    return;
  first = g_utf8_get_char (text);
  if (g_unichar_islower (first))
    g_error ("%s “%s” starts in lower case", what, text);
}

static gboolean
playground_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_playground_page_get_matrix (page) != NULL;
}

static gboolean
shows_status (gpointer page)
{
  return g_strcmp0 (pl_page_get_shown (page), "status") == 0;
}

static gboolean
attention_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_attention_page_get_stats (page) != NULL &&
         pl_page_get_figure (page) != NULL;
}

static GtkWidget *
find_actionable (GtkWidget  *widget,
                 const char *action)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_ACTIONABLE (child) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (child)), action) == 0)
        return child;
      if ((found = find_actionable (child, action)) != NULL)
        return found;
    }
  return NULL;
}

/* One capitalisation for titles and colour-bar labels (the Playground's
 * every kind); the Patches view without a grid ends its sentences and points
 * to New Analytic Encoding…, not to a command-line name; Distances reads
 * "Layer 3, head 4" as every view does. */
/* Attention's Distances on screen, ringing point INDEX. */
static gboolean
distances_highlight (gpointer index)
{
  PlPage *attention = PL_PAGE (pl_test_page (window, "attention"));
  PlFigure *figure = pl_page_get_figure (attention);

  return !pl_page_get_busy (attention) && figure != NULL && pl_figure_get_kind (figure) == PL_FIGURE_SCATTER &&
         figure->highlight_series == GPOINTER_TO_INT (index);
}

static void
test_wording (void)
{
  PlPlaygroundPage *playground = PL_PLAYGROUND_PAGE (pl_test_page (window, "playground"));
  GtkWidget *patches = pl_test_page (window, "patches");
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  const PlPlaygroundKind kinds[] = { PL_PLAYGROUND_SINUSOIDAL, PL_PLAYGROUND_ROPE, PL_PLAYGROUND_ALIBI,
                                     PL_PLAYGROUND_SINCOS2D };
  AdwStatusPage *status;
  const char *description;
  g_autofree char *readout = NULL;
  PlFigure *figure;
  double x, y;

  pl_window_show_view (window, "playground");
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GPtrArray) views = g_ptr_array_new ();

      pl_playground_page_set_kind (playground, kinds[k]);
      pl_test_wait_until (playground_ready, playground, "the Playground");
      collect_figure_views (GTK_WIDGET (playground), views);
      for (guint i = 0; i < views->len; i++)
        {
          PlFigure *shown = pl_figure_view_get_figure (views->pdata[i]);

          if (shown == NULL)
            continue;
          assert_capital (pl_figure_get_title (shown), NULL, "a Playground title");
          assert_capital (pl_figure_get_value_label (shown), NULL, "a Playground colour bar");
        }
    }
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_SINUSOIDAL);

  pl_window_select_model (window, 0);
  pl_window_show_view (window, "patches");
  pl_test_wait_until (shows_status, patches, "the Patches view's message");
  status = pl_page_get_status (PL_PAGE (patches));
  description = adw_status_page_get_description (status);
  g_test_message ("Patches: %s", description);
  g_assert_true (g_str_has_suffix (description, "."));
  g_assert_null (strstr (description, "builtin:"));
  g_assert_nonnull (strstr (description, "New Analytic Encoding…"));
  g_assert_nonnull (find_actionable (GTK_WIDGET (status), "win.new-encoding"));

  pl_window_show_view (window, "attention");
  pl_attention_page_show (attention, "distances");
  pl_test_wait_until (attention_ready, attention, "the attention distances");
  figure = pl_page_get_figure (PL_PAGE (attention));
  pl_test_wait_frames (GTK_WIDGET (window), 3);
  /* Point 5: layer 2, head 2 of mini-gpt2's four heads a layer. */
  g_assert_true (pl_figure_get_point (figure, 5, &x, &y));
  {
    g_autoptr(GPtrArray) views = g_ptr_array_new ();

    collect_figure_views (GTK_WIDGET (attention), views);
    for (guint i = 0; i < views->len && readout == NULL; i++)
      if (pl_figure_view_get_figure (views->pdata[i]) == figure)
        readout = pl_figure_view_describe_at (views->pdata[i], x, y);
  }
  g_test_message ("Distances: %s", readout);
  g_assert_nonnull (readout);
  g_assert_true (g_str_has_prefix (readout, "Layer 2, head 2: "));

  /* The head picked is marked among all: layer 3, head 2 is point 9; a
   * click on point 5 picks layer 2, head 2. */
  pl_workspace_set_layer (pl_window_get_workspace (window), 3);
  pl_workspace_set_head (pl_window_get_workspace (window), 1);
  pl_test_wait_until (distances_highlight, GINT_TO_POINTER (9), "the ring on layer 3, head 2");
  figure = pl_page_get_figure (PL_PAGE (attention));
  pl_test_wait_frames (GTK_WIDGET (window), 3);
  g_assert_true (pl_figure_get_point (figure, 5, &x, &y));
  {
    g_autoptr(GPtrArray) views = g_ptr_array_new ();

    collect_figure_views (GTK_WIDGET (attention), views);
    for (guint i = 0; i < views->len; i++)
      if (pl_figure_view_get_figure (views->pdata[i]) == figure)
        g_assert_true (pl_figure_view_activate_at (views->pdata[i], x, y));
  }
  pl_test_wait_until (distances_highlight, GINT_TO_POINTER (5), "the ring on layer 2, head 2");
  pl_attention_page_show (attention, "offsets");
}

/* The controls of PAGE's toolbar shown now that are of TYPE. */
static guint
count_shown_controls (GtkWidget *page,
                      GType      type)
{
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (page)));
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        n++;
      /* A linked group of buttons, as one. */
      else if (GTK_IS_BOX (child) && gtk_widget_get_first_child (child) != NULL &&
               G_TYPE_CHECK_INSTANCE_TYPE (gtk_widget_get_first_child (child), type))
        n++;
    }
  return n;
}

static GtkLabel *
find_label (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found;

      if (GTK_IS_LABEL (child))
        return GTK_LABEL (child);
      if ((found = find_label (child)) != NULL)
        return found;
    }
  return NULL;
}

/* The text behind PAGE's ⓘ. */
static const char *
info_text (GtkWidget *page)
{
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (page)));

  for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_MENU_BUTTON (child) &&
        g_strcmp0 (gtk_menu_button_get_icon_name (GTK_MENU_BUTTON (child)), "help-about-symbolic") == 0)
      return gtk_label_get_text (find_label (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (child)))));
  g_assert_not_reached ();
}

static gboolean
attention_has_stats (gpointer page)
{
  return !pl_page_get_busy (page) && pl_attention_page_get_stats (page) != NULL;
}

/* Controls that cannot act are hidden: Rotary's layer and Keys for a model
 * without rotary embeddings, Attention's views for a model with no
 * attention; with attention, its ⓘ says what the statistics averaged over
 * (8 random inputs of mini-gpt2's 512 tokens), not a fixed 256. */
static void
test_dead_controls (void)
{
  GtkWidget *rotary = pl_test_page (window, "rotary");
  GtkWidget *attention = pl_test_page (window, "attention");
  PlAttentionStats *stats;
  g_autofree char *here = NULL;

  pl_window_select_model (window, 0);
  pl_window_show_view (window, "rotary");
  pl_test_wait_until (shows_status, rotary, "the Rotary view's message");
  g_assert_cmpuint (count_shown_controls (rotary, GTK_TYPE_DROP_DOWN), ==, 0);
  g_assert_cmpuint (count_shown_controls (rotary, GTK_TYPE_TOGGLE_BUTTON), ==, 0);

  pl_window_select_model (window, 3);
  g_assert_cmpstr (pl_model_get_name (pl_window_get_selected_model (window)), ==, "Sinusoidal 512 × 768");
  pl_window_show_view (window, "attention");
  pl_test_wait_until (shows_status, attention, "the Attention view's message");
  g_assert_cmpstr (adw_status_page_get_title (pl_page_get_status (PL_PAGE (attention))), ==, "No Attention to Show");
  g_assert_cmpuint (count_shown_controls (attention, GTK_TYPE_TOGGLE_BUTTON), ==, 0);
  g_assert_cmpuint (count_shown_controls (attention, GTK_TYPE_DROP_DOWN), ==, 0);

  pl_window_select_model (window, 0);
  pl_test_wait_until (attention_has_stats, attention, "mini-gpt2's attention");
  g_assert_cmpuint (count_shown_controls (attention, GTK_TYPE_TOGGLE_BUTTON), ==, 1);
  stats = pl_attention_page_get_stats (PL_ATTENTION_PAGE (attention));
  here = g_strdup_printf ("Here: Offsets and Distances average over %u random inputs of %u tokens.",
                          stats->n_sequences, stats->n_tokens);
  g_test_message ("%s", info_text (attention));
  g_assert_cmpuint (stats->n_tokens, ==, 512);
  g_assert_true (g_str_has_suffix (info_text (attention), here));
  g_assert_null (strstr (info_text (attention), "256"));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-details/about", test_about);
  g_test_add_func ("/pl/window-details/delete-undo", test_delete_undo);
  g_test_add_func ("/pl/window-details/restart-selection", test_restart_selection);
  g_test_add_func ("/pl/window-details/wording", test_wording);
  g_test_add_func ("/pl/window-details/dead-controls", test_dead_controls);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
