/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "poslens-resources.h"
#include "pl-application.h"
#include "pl-blas-core.h"
#include "pl-executor.h"
#include "pl-paths.h"
#include "pl-preferences-window.h"
#include "pl-version.h"
#include "pl-window.h"

/* Where Poslens lives, as the metainfo's homepage and bugtracker say. */
#define PL_WEBSITE   "https://gitlab.gnome.org/World/poslens"
#define PL_ISSUE_URL "https://gitlab.gnome.org/World/poslens/-/issues"

struct _PlApplication
{
  AdwApplication  parent_instance;
  GSettings      *settings;
  PlExecutor     *executor;
  char           *initial_view;   /* --view */
};

G_DEFINE_FINAL_TYPE (PlApplication, pl_application, ADW_TYPE_APPLICATION)

PlApplication *
pl_application_new (void)
{
  return g_object_new (PL_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/poslens/Poslens",
                       NULL);
}

/* The installed schema, or the one compiled in the build tree, so the app
 * also runs straight from its build folder. */
static GSettings *
load_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsSchemaSource) build_source = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL &&
      (build_source = g_settings_schema_source_new_from_directory (SCHEMA_DIR_BUILD, source, FALSE, NULL)))
    schema = g_settings_schema_source_lookup (build_source, APP_ID, TRUE);
  if (schema == NULL)
    {
      g_message ("The settings schema %s is not installed: preferences will not be kept", APP_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

GSettings *
pl_application_get_settings (PlApplication *self)
{
  g_return_val_if_fail (PL_IS_APPLICATION (self), NULL);

  if (self->settings == NULL)
    self->settings = load_settings ();
  return self->settings;
}

static PlWindow *
get_window (PlApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (PL_IS_WINDOW (window))
    return PL_WINDOW (window);
  window = GTK_WINDOW (pl_window_new (self));
  if (self->initial_view != NULL)
    pl_window_show_view (PL_WINDOW (window), self->initial_view);
  return PL_WINDOW (window);
}

static void
pl_application_activate (GApplication *app)
{
  PlWindow *window = get_window (PL_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (window));
}

static void
pl_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  PlWindow *window = get_window (PL_APPLICATION (app));

  /* Opened files join the demo models, and the first becomes the selection. */
  for (int i = 0; i < n_files; i++)
    pl_window_open_file (window, files[i], i == 0);
  gtk_window_present (GTK_WINDOW (window));
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  PlApplication *self = user_data;
  const char *developers[] = { "The Poslens developers", NULL };
  g_autofree char *blas = pl_blas_core_describe ();
  g_autofree char *debug_info = NULL;
  GtkWidget *about;

  /* What a bug report about speed needs: the BLAS and its kernels. */
  debug_info = g_strdup_printf ("Poslens %s\n%s\nGTK %u.%u.%u, libadwaita %u.%u.%u\n", pl_version (), blas,
                                gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
                                adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version ());

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (GTK_APPLICATION (self)),
                        "application-name", _("Poslens"),
                        "application-icon", APP_ID,
                        "developer-name", _("The Poslens developers"),
                        "developers", developers,
                        "version", pl_version (),
                        "website", PL_WEBSITE,
                        "issue-url", PL_ISSUE_URL,
                        "comments", _("See what position embeddings in transformer language models learn: "
                                      "similarity heatmaps, PCA trajectories, probes and attention to position, "
                                      "after Wang and Chen, “What Do Position Embeddings Learn?” (EMNLP 2020)."),
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "translator-credits", _("translator-credits"),
                        "debug-info", debug_info,
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  PlApplication *self = user_data;
  GSettings *settings = pl_application_get_settings (self);
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (settings == NULL)
    {
      if (PL_IS_WINDOW (parent))
        pl_window_show_error (PL_WINDOW (parent), _("Preferences are unavailable: the settings schema is not installed"));
      return;
    }
  gtk_window_present (GTK_WINDOW (pl_preferences_window_new (parent, settings)));
}

/* Quitting closes every window as its close button does, so each saves its
 * size, state and open models before the application ends. */
static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  GList *windows = g_list_copy_deep (gtk_application_get_windows (GTK_APPLICATION (user_data)),
                                     (GCopyFunc) g_object_ref, NULL);

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free_full (windows, g_object_unref);
  g_application_quit (G_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { "about", about_action },
  { "preferences", preferences_action },
  { "quit", quit_action },
};

static void
pl_application_startup (GApplication *app)
{
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *open_accels[] = { "<Control>o", NULL };
  static const char *open_folder_accels[] = { "<Control><Shift>o", NULL };
  static const char *open_ollama_accels[] = { "<Control><Alt>o", NULL };
  static const char *close_accels[] = { "<Control>w", NULL };
  static const char *export_accels[] = { "<Control>e", NULL };
  static const char *paper_accels[] = { "<Control><Shift>p", NULL };
  static const char *preferences_accels[] = { "<Control>comma", NULL };
  PlApplication *self = PL_APPLICATION (app);

  G_APPLICATION_CLASS (pl_application_parent_class)->startup (app);

  /* The threads every question runs on, started once. */
  self->executor = g_object_ref (pl_executor_get_default ());

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-folder", open_folder_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-ollama", open_ollama_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.reproduce-paper", paper_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close", close_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.export", export_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.preferences", preferences_accels);
}

/* A window still open when the main loop ends (g_application_quit from
 * elsewhere than the quit action) is destroyed here, which stops what it
 * computes before the process exits. */
static void
pl_application_shutdown (GApplication *app)
{
  GList *windows;

  while ((windows = gtk_application_get_windows (GTK_APPLICATION (app))) != NULL)
    gtk_window_destroy (GTK_WINDOW (windows->data));
  G_APPLICATION_CLASS (pl_application_parent_class)->shutdown (app);
}

static int
pl_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  PlApplication *self = PL_APPLICATION (app);

  g_variant_dict_lookup (options, "view", "s", &self->initial_view);
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("poslens %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

static void
pl_application_dispose (GObject *object)
{
  PlApplication *self = PL_APPLICATION (object);

  g_clear_pointer (&self->initial_view, g_free);
  g_clear_object (&self->settings);
  g_clear_object (&self->executor);
  G_OBJECT_CLASS (pl_application_parent_class)->dispose (object);
}

static void
pl_application_class_init (PlApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  poslens_register_resource ();

  G_OBJECT_CLASS (klass)->dispose = pl_application_dispose;

  app_class->activate = pl_application_activate;
  app_class->open = pl_application_open;
  app_class->startup = pl_application_startup;
  app_class->shutdown = pl_application_shutdown;
  app_class->handle_local_options = pl_application_handle_local_options;
}

static const GOptionEntry options[] = {
  { "view", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Start on a view: similarity, trajectory, attention, probes, compare, playground, patches or rotary"), N_("VIEW") },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version"), NULL },
  { NULL }
};

static void
pl_application_init (PlApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[CHECKPOINT…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("See what position embeddings in transformer models learn."));
}
