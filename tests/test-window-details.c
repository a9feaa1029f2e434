/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <string.h>

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

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-details/about", test_about);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
