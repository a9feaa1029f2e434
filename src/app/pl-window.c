/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-attention-page.h"
#include "pl-compare-page.h"
#include "pl-dataset-dialog.h"
#include "pl-export-dialog.h"
#include "pl-model-row.h"
#include "pl-page.h"
#include "pl-paths.h"
#include "pl-playground-page.h"
#include "pl-probes-page.h"
#include "pl-similarity-page.h"
#include "pl-trajectory-page.h"
#include "pl-window.h"
#include "pl-workspace.h"

struct _PlWindow
{
  AdwApplicationWindow  parent_instance;

  GListStore           *models;
  GSettings            *settings;     /* construct-only, may be NULL */
  PlWorkspace          *workspace;
  GMenu                *recent_menu;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkListBox           *model_list;
  AdwViewStack         *view_stack;
  GtkStack             *content_stack;
};

G_DEFINE_FINAL_TYPE (PlWindow, pl_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_SELECTED_MODEL,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Paths opened together load in order on one worker, so the sidebar keeps
 * the order they were given in. */
typedef struct
{
  GStrv      paths;       /* file paths or builtin: specs */
  GStrv      labels;      /* for messages */
  char      *dataset;     /* the table, for files that hold no model */
  gboolean   select;
  gboolean   remember;    /* a file the user opened: goes to the recent list */
  GPtrArray *models;      /* PlModel or NULL, per path */
  GPtrArray *errors;      /* GError or NULL, per path */
} OpenRequest;

static void
clear_object (gpointer object)
{
  g_clear_object (&object);
}

static void
clear_error (gpointer error)
{
  g_clear_error ((GError **) &error);
}

static void
open_request_free (OpenRequest *request)
{
  g_strfreev (request->paths);
  g_strfreev (request->labels);
  g_free (request->dataset);
  g_clear_pointer (&request->models, g_ptr_array_unref);
  g_clear_pointer (&request->errors, g_ptr_array_unref);
  g_free (request);
}

static void
open_models_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  OpenRequest *request = task_data;

  for (guint i = 0; request->paths[i] != NULL; i++)
    {
      GError *error = NULL;
      PlModel *model = pl_model_open (request->paths[i], request->dataset, &error);

      g_ptr_array_add (request->models, model);
      g_ptr_array_add (request->errors, error);
    }
  g_task_return_boolean (task, TRUE);
}

#define MAX_RECENT 10

static void open_paths (PlWindow           *self,
                        const char * const *paths,
                        const char * const *labels,
                        const char         *dataset,
                        gboolean            select,
                        gboolean            remember);

/* The recent list lives in GSettings, newest first, without duplicates. */
static void
remember_recent (PlWindow   *self,
                 const char *path)
{
  GSettings *settings = self->workspace ? pl_workspace_get_settings (self->workspace) : NULL;
  g_auto(GStrv) old = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) recent = NULL;
  guint n = 1;

  if (settings == NULL || g_str_has_prefix (path, "builtin:"))
    return;
  old = g_settings_get_strv (settings, "recent-files");
  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, path);
  for (guint i = 0; old[i] != NULL && n < MAX_RECENT; i++)
    if (g_strcmp0 (old[i], path) != 0)
      {
        g_strv_builder_add (builder, old[i]);
        n++;
      }
  recent = g_strv_builder_end (builder);
  g_settings_set_strv (settings, "recent-files", (const char * const *) recent);
}

static void
on_dataset_chosen (PlDatasetDialog *dialog,
                   const char      *dataset,
                   PlWindow        *self)
{
  PlModel *model = pl_dataset_dialog_get_model (dialog);
  const char *path = pl_model_get_path (model);

  open_paths (self,
              (const char * const[]) { path, NULL },
              (const char * const[]) { path, NULL },
              dataset, TRUE, FALSE);
}

static void
choose_dataset (PlWindow *self,
                PlModel  *model)
{
  PlDatasetDialog *dialog = pl_dataset_dialog_new (GTK_WINDOW (self), model);

  g_signal_connect_object (dialog, "chosen", G_CALLBACK (on_dataset_chosen), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_models_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  PlWindow *self = PL_WINDOW (object);
  OpenRequest *request = g_task_get_task_data (G_TASK (result));
  gboolean selected = FALSE;

  for (guint i = 0; i < request->models->len; i++)
    {
      PlModel *model = g_ptr_array_index (request->models, i);
      const GError *error = g_ptr_array_index (request->errors, i);

      if (model == NULL)
        {
          g_autofree char *message = NULL;

          /* The library's messages name the file; say which one when they do not. */
          if (strstr (error->message, request->labels[i]) != NULL)
            message = g_strdup (error->message);
          else
            message = g_strdup_printf (_("Could not open %s: %s"), request->labels[i], error->message);
          pl_window_show_error (self, message);
          continue;
        }

      if (request->remember)
        remember_recent (self, request->paths[i]);
      if (pl_model_get_position_table_name (model) == NULL && pl_model_get_checkpoint (model) != NULL)
        {
          /* A file of any kind: let the user say which dataset is the table. */
          choose_dataset (self, model);
          continue;
        }
      g_list_store_append (self->models, model);
      gtk_stack_set_visible_child_name (self->content_stack, "views");
      if ((request->select && !selected) || gtk_list_box_get_selected_row (self->model_list) == NULL)
        {
          pl_window_select_model (self, g_list_model_get_n_items (G_LIST_MODEL (self->models)) - 1);
          selected = TRUE;
        }
    }
}

static void
open_paths (PlWindow           *self,
            const char * const *paths,
            const char * const *labels,
            const char         *dataset,
            gboolean            select,
            gboolean            remember)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, open_models_done, NULL);
  OpenRequest *request = g_new0 (OpenRequest, 1);

  request->paths = g_strdupv ((char **) paths);
  request->labels = g_strdupv ((char **) labels);
  request->dataset = g_strdup (dataset);
  request->select = select;
  request->remember = remember;
  request->models = g_ptr_array_new_with_free_func (clear_object);
  request->errors = g_ptr_array_new_with_free_func (clear_error);
  g_task_set_task_data (task, request, (GDestroyNotify) open_request_free);
  g_task_set_source_tag (task, open_paths);
  g_task_run_in_thread (task, open_models_thread);
}

void
pl_window_open_file (PlWindow *self,
                     GFile    *file,
                     gboolean  select)
{
  g_autofree char *path = NULL;
  g_autofree char *label = NULL;

  g_return_if_fail (PL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  label = g_file_get_basename (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autofree char *message = g_strdup_printf (_("Could not open %s: only local files can be opened"), uri);
      pl_window_show_error (self, message);
      return;
    }
  open_paths (self,
              (const char * const[]) { path, NULL },
              (const char * const[]) { path, NULL },
              NULL, select, TRUE);
}

GListModel *
pl_window_get_models (PlWindow *self)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->models);
}

PlModel *
pl_window_get_selected_model (PlWindow *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);

  row = gtk_list_box_get_selected_row (self->model_list);
  if (row == NULL)
    return NULL;
  return pl_model_row_get_model (PL_MODEL_ROW (row));
}

void
pl_window_select_model (PlWindow *self,
                        guint     position)
{
  GtkListBoxRow *row;

  g_return_if_fail (PL_IS_WINDOW (self));

  row = gtk_list_box_get_row_at_index (self->model_list, position);
  if (row != NULL)
    gtk_list_box_select_row (self->model_list, row);
}

void
pl_window_show_error (PlWindow   *self,
                      const char *message)
{
  AdwToast *toast;

  g_return_if_fail (PL_IS_WINDOW (self));

  g_message ("%s", message);
  toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

gboolean
pl_window_show_view (PlWindow   *self,
                     const char *name)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), FALSE);

  if (adw_view_stack_get_child_by_name (self->view_stack, name) == NULL)
    return FALSE;
  adw_view_stack_set_visible_child_name (self->view_stack, name);
  return TRUE;
}

static void
show_view_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);
  guint index = (guint) g_variant_get_int32 (param);

  /* Alt+1 … Alt+6: the views in the order the switcher shows them. */
  if (index < g_list_model_get_n_items (G_LIST_MODEL (pages)))
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), index);
      adw_view_stack_set_visible_child (self->view_stack, adw_view_stack_page_get_child (page));
    }
}

PlWorkspace *
pl_window_get_workspace (PlWindow *self)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  return self->workspace;
}

GtkWidget *
pl_window_get_page (PlWindow   *self,
                    const char *name)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  return adw_view_stack_get_child_by_name (self->view_stack, name);
}

static GtkWidget *
create_model_row (gpointer item,
                  gpointer user_data)
{
  return GTK_WIDGET (pl_model_row_new (PL_MODEL (item)));
}

static void
on_row_selected (PlWindow      *self,
                 GtkListBoxRow *row,
                 GtkListBox    *list)
{
  PlModel *model = row ? pl_model_row_get_model (PL_MODEL_ROW (row)) : NULL;

  /* Rows go away while the window is torn down. */
  if (self->workspace == NULL)
    return;
  pl_workspace_set_model (self->workspace, model);
  if (row != NULL)
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_MODEL]);
}

static void
on_open_response (GtkNativeDialog *dialog,
                  int              response,
                  PlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      pl_window_open_file (self, file, TRUE);
    }
  g_object_unref (dialog);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) checkpoints = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open Checkpoint"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (checkpoints, _("Checkpoints (HDF5, safetensors)"));
  gtk_file_filter_add_suffix (checkpoints, "h5");
  gtk_file_filter_add_suffix (checkpoints, "hdf5");
  gtk_file_filter_add_suffix (checkpoints, "keras");
  gtk_file_filter_add_suffix (checkpoints, "safetensors");
  gtk_file_filter_add_suffix (checkpoints, "json");
  gtk_file_filter_add_mime_type (checkpoints, "application/x-hdf5");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), checkpoints);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);

  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  g_autoptr(GFile) file = g_file_new_for_path (g_variant_get_string (param, NULL));

  pl_window_open_file (PL_WINDOW (widget), file, TRUE);
}

/* The "Open Recent" menu, rebuilt when the list changes. */
static void
update_recent_menu (PlWindow *self)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  g_auto(GStrv) recent = settings ? g_settings_get_strv (settings, "recent-files") : NULL;

  g_menu_remove_all (self->recent_menu);
  for (guint i = 0; recent != NULL && recent[i] != NULL; i++)
    {
      g_autofree char *label = g_path_get_basename (recent[i]);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (recent[i]));
      g_menu_append_item (self->recent_menu, item);
    }
}

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         PlWindow      *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    pl_window_open_file (self, l->data, l == files);
  g_slist_free (files);
  return TRUE;
}

static void
load_demo_models (PlWindow *self)
{
  g_auto(GStrv) demos = pl_paths_list_demo_models ();
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) label_list = NULL;

  for (guint i = 0; demos[i] != NULL; i++)
    {
      g_autofree char *label = g_path_get_basename (demos[i]);
      g_strv_builder_add (labels, label);
    }
  label_list = g_strv_builder_end (labels);
  open_paths (self, (const char * const *) demos, (const char * const *) label_list, NULL, FALSE, FALSE);
}

/* Each view follows the window's workspace. */
static void
connect_pages (PlWindow *self)
{
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);

      if (PL_IS_PAGE (child))
        pl_page_set_workspace (PL_PAGE (child), self->workspace);
    }
}

static PlPage *
get_visible_page (PlWindow *self)
{
  GtkWidget *child = adw_view_stack_get_visible_child (self->view_stack);

  return PL_IS_PAGE (child) ? PL_PAGE (child) : NULL;
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  PlPage *page = get_visible_page (self);
  PlFigure *figure = page ? pl_page_get_figure (page) : NULL;
  g_autofree char *name = NULL;
  PlExportDialog *dialog;

  if (figure == NULL)
    {
      pl_window_show_error (self, _("There is no figure to export yet"));
      return;
    }
  name = pl_page_get_export_name (page);
  dialog = pl_export_dialog_new (GTK_WINDOW (self), figure, name, pl_workspace_get_settings (self->workspace));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
step_layer (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);

  pl_workspace_set_layer (self->workspace, pl_workspace_get_layer (self->workspace) + g_variant_get_int32 (param));
}

static void
step_head (GtkWidget  *widget,
           const char *action_name,
           GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  int head = (int) pl_workspace_get_head (self->workspace) + g_variant_get_int32 (param);

  if (head >= 0)
    pl_workspace_set_head (self->workspace, head);
}

static void
pl_window_constructed (GObject *object)
{
  PlWindow *self = PL_WINDOW (object);
  GSettings *settings = self->settings;

  G_OBJECT_CLASS (pl_window_parent_class)->constructed (object);

  self->workspace = pl_workspace_new (settings);
  pl_workspace_set_models (self->workspace, G_LIST_MODEL (self->models));
  if (settings != NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (settings, "window-width"),
                                   g_settings_get_int (settings, "window-height"));
      if (g_settings_get_boolean (settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
    }
  connect_pages (self);
  if (settings != NULL)
    g_signal_connect_object (settings, "changed::recent-files", G_CALLBACK (update_recent_menu), self,
                             G_CONNECT_SWAPPED);
  update_recent_menu (self);
  load_demo_models (self);
}

static gboolean
pl_window_close_request (GtkWindow *window)
{
  PlWindow *self = PL_WINDOW (window);
  GSettings *settings = pl_workspace_get_settings (self->workspace);

  if (settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window))
        {
          g_settings_set_int (settings, "window-width", width);
          g_settings_set_int (settings, "window-height", height);
        }
    }
  return GTK_WINDOW_CLASS (pl_window_parent_class)->close_request (window);
}

static void
pl_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  PlWindow *self = PL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SELECTED_MODEL:
      g_value_set_object (value, pl_window_get_selected_model (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  PlWindow *self = PL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_window_dispose (GObject *object)
{
  PlWindow *self = PL_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_WINDOW);
  g_clear_object (&self->models);
  g_clear_object (&self->workspace);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (pl_window_parent_class)->dispose (object);
}

static void
pl_window_class_init (PlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = pl_window_constructed;
  object_class->dispose = pl_window_dispose;
  object_class->get_property = pl_window_get_property;
  object_class->set_property = pl_window_set_property;
  GTK_WINDOW_CLASS (klass)->close_request = pl_window_close_request;

  properties[PROP_SELECTED_MODEL] =
    g_param_spec_object ("selected-model", NULL, NULL,
                         PL_TYPE_MODEL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* Given at construction, so the workspace and the window size come from it. */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL,
                         G_TYPE_SETTINGS,
                         (G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PL_TYPE_SIMILARITY_PAGE);
  g_type_ensure (PL_TYPE_TRAJECTORY_PAGE);
  g_type_ensure (PL_TYPE_ATTENTION_PAGE);
  g_type_ensure (PL_TYPE_PROBES_PAGE);
  g_type_ensure (PL_TYPE_COMPARE_PAGE);
  g_type_ensure (PL_TYPE_PLAYGROUND_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, model_list);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, recent_menu);
  gtk_widget_class_bind_template_callback (widget_class, on_row_selected);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.show-view", "i", show_view_action);
  for (int i = 0; i < 6; i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK, "win.show-view", "i", i);
  gtk_widget_class_install_action (widget_class, "win.step-layer", "i", step_layer);
  gtk_widget_class_install_action (widget_class, "win.step-head", "i", step_head);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "win.step-layer", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "win.step-layer", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_bracketright, 0, "win.step-head", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_bracketleft, 0, "win.step-head", "i", -1);
}

static void
pl_window_init (PlWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  if (DEVELOPMENT_BUILD)
    gtk_widget_add_css_class (GTK_WIDGET (self), "devel");

  self->models = g_list_store_new (PL_TYPE_MODEL);
  gtk_list_box_bind_model (self->model_list, G_LIST_MODEL (self->models),
                           create_model_row, self, NULL);

  {
    /* Checkpoints dropped on the window open like files from the file chooser. */
    GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

    g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
    gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  }
}

PlWindow *
pl_window_new (PlApplication *application)
{
  return g_object_new (PL_TYPE_WINDOW,
                       "application", application,
                       "settings", pl_application_get_settings (application),
                       NULL);
}
