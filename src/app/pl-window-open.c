/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-dataset-dialog.h"
#include "pl-encoding-dialog.h"
#include "pl-executor.h"
#include "pl-model-isolated.h"
#include "pl-ollama-dialog.h"
#include "pl-ollama-store.h"
#include "pl-paths.h"
#include "pl-window-private.h"

/* Paths opened together load in order on one worker; each path has a place
 * in the order of opening, which the sidebar keeps whichever loads first. */
typedef struct
{
  guint      first_order; /* the place of paths[0] */
  GStrv      paths;       /* file paths or builtin: specs */
  GStrv      labels;      /* for messages */
  char      *dataset;     /* the table, for files that hold no model */
  gboolean   select;
  gboolean   remember;    /* a file the user opened: goes to the recent list */
  gboolean   at_start;    /* the models of the last session */
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

  for (guint i = 0; request->paths[i] != NULL && !g_cancellable_is_cancelled (cancellable); i++)
    {
      const char *path = request->paths[i];
      GError *error = NULL;
      PlModel *model;

      /* Files from elsewhere are opened by a helper process first: a
       * damaged one can then only crash the helper, never the window. */
      if (pl_paths_is_demo (path) || g_str_has_prefix (path, "builtin:"))
        model = pl_model_open (path, request->dataset, cancellable, &error);
      else
        model = pl_model_open_isolated (path, request->dataset, pl_paths_get_cli (),
                                        PL_MODEL_CHECK_TIMEOUT_SECONDS, cancellable, &error);

      g_ptr_array_add (request->models, model);
      g_ptr_array_add (request->errors, error);
    }
  g_task_return_boolean (task, TRUE);
}

#define MAX_RECENT 10


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

  pl_window_open_paths (self,
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

/* A demo's name (its folder's, or its builtin: name), or NULL for a path that is none. */
static char *
demo_name (const char *path)
{
  g_auto(GStrv) demos = pl_paths_list_demo_models ();

  return g_strv_contains ((const char * const *) demos, path) ? g_path_get_basename (path) : NULL;
}

/* Inserts MODEL where its place in the order of opening puts it. */
static guint
insert_in_order (PlWindow *self,
                 PlModel  *model,
                 guint     order)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));
  guint at = n;

  g_object_set_data (G_OBJECT (model), "pl-open-order", GUINT_TO_POINTER (order));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PlModel) other = g_list_model_get_item (G_LIST_MODEL (self->models), i);

      if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (other), "pl-open-order")) > order)
        {
          at = i;
          break;
        }
    }
  g_list_store_insert (self->models, at, model);
  return at;
}

/* Whether the sidebar lists the file at PATH (made absolute) opened with
 * the same DATASET, and at which row. */
static gboolean
find_listed (PlWindow   *self,
             const char *file_path,
             const char *dataset,
             guint      *at)
{
  GListModel *models = G_LIST_MODEL (self->models);
  g_autofree char *path = g_canonicalize_filename (file_path, NULL);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) listed = g_list_model_get_item (models, i);
      g_autofree char *listed_path = g_canonicalize_filename (pl_model_get_path (listed), NULL);

      if (g_str_equal (path, listed_path) &&
          g_strcmp0 (dataset, g_object_get_data (G_OBJECT (listed), "pl-open-dataset")) == 0)
        {
          *at = i;
          return TRUE;
        }
    }
  return FALSE;
}

static void
open_models_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PlWindow) self = g_weak_ref_get (user_data);
  OpenRequest *request = g_task_get_task_data (G_TASK (result));
  gboolean selected = FALSE;
  guint at;

  g_weak_ref_clear (user_data);
  g_free (user_data);
  /* The window closed meanwhile. */
  if (self == NULL || g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  for (guint i = 0; i < request->models->len; i++)
    {
      PlModel *model = g_ptr_array_index (request->models, i);
      const GError *error = g_ptr_array_index (request->errors, i);

      if (model == NULL)
        {
          pl_window_show_load_error (self, request->labels[i], error);
          continue;
        }

      if (request->remember)
        remember_recent (self, request->paths[i]);
      if (pl_model_get_position_table_name (model) == NULL && pl_model_get_checkpoint (model) != NULL &&
          pl_model_get_activations (model) == NULL && pl_model_get_rotary_decoder (model) == NULL &&
          !pl_model_has_position_bias (model))
        {
          /* A file of any kind: let the user say which dataset is the table
           * (a rotary model has none, nor does one whose position is a bias
           * on attention scores, T5's or ALiBi's: models all the same). */
          choose_dataset (self, model);
          continue;
        }
      /* A model opened again is the one already listed, selected. */
      if (find_listed (self, pl_model_get_path (model), request->dataset, &at))
        {
          if (request->select && !selected)
            {
              pl_window_select_model (self, at);
              selected = TRUE;
            }
          continue;
        }
      g_object_set_data_full (G_OBJECT (model), "pl-open-dataset", g_strdup (request->dataset), g_free);
      g_object_set_data_full (G_OBJECT (model), "pl-demo-name", demo_name (request->paths[i]), g_free);
      at = insert_in_order (self, model, request->first_order + i);
      gtk_stack_set_visible_child_name (self->content_stack, "views");
      /* At start the model selected last time is selected as it comes, and
       * no other before it; a file the user opens meanwhile goes first. */
      if (self->restore_selection != NULL && g_strcmp0 (pl_model_get_path (model), self->restore_selection) == 0)
        {
          g_clear_pointer (&self->restore_selection, g_free);
          pl_window_select_model (self, at);
          selected = TRUE;
        }
      else if ((request->select && !selected) ||
               (self->restore_selection == NULL && gtk_list_box_get_selected_row (self->model_list) == NULL))
        {
          g_clear_pointer (&self->restore_selection, g_free);
          pl_window_select_model (self, at);
          selected = TRUE;
        }
    }
  /* The last session's models are all here and that model was not among
   * them (deleted, or failed): the first one is selected instead. */
  if (request->at_start && --self->start_pending == 0 && self->restore_selection != NULL)
    {
      g_clear_pointer (&self->restore_selection, g_free);
      if (gtk_list_box_get_selected_row (self->model_list) == NULL)
        pl_window_select_model (self, 0);
    }
}

void
pl_window_open_paths (PlWindow           *self,
            const char * const *paths,
            const char * const *labels,
            const char         *dataset,
            gboolean            select,
            gboolean            remember)
{
  /* The window is held weakly by the callback, not by the task: closing
   * it cancels the opening (its dispose kills a helper process), and a
   * window is never disposed on the executor's thread that drops the
   * task's last reference (its dispose waits for those threads). */
  GWeakRef *window = g_new0 (GWeakRef, 1);
  g_autoptr(GTask) task = NULL;
  OpenRequest *request = g_new0 (OpenRequest, 1);

  g_weak_ref_init (window, self);
  task = g_task_new (NULL, self->open_cancellable, open_models_done, window);

  request->first_order = self->next_order;
  self->next_order += g_strv_length ((char **) paths);
  request->paths = g_strdupv ((char **) paths);
  request->labels = g_strdupv ((char **) labels);
  request->dataset = g_strdup (dataset);
  request->select = select;
  request->remember = remember;
  request->at_start = self->starting;
  self->start_pending += self->starting;
  request->models = g_ptr_array_new_with_free_func (clear_object);
  request->errors = g_ptr_array_new_with_free_func (clear_error);
  g_task_set_task_data (task, request, (GDestroyNotify) open_request_free);
  g_task_set_source_tag (task, pl_window_open_paths);
  pl_executor_run_task (pl_executor_get_default (), task, open_models_thread);
}

void
pl_window_open_file (PlWindow *self,
                     GFile    *file,
                     gboolean  select)
{
  g_autofree char *path = NULL;
  g_autofree char *label = NULL;
  guint at;

  g_return_if_fail (PL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* "builtin:sinusoidal:1024x512" on the command line is an analytic
   * encoding, "ollama:llama3.2:1b" a model of Ollama's store, not files: GIO
   * reads them as URIs of unknown schemes. */
  if (g_file_has_uri_scheme (file, "builtin") || g_file_has_uri_scheme (file, "ollama"))
    {
      g_autofree char *spec = g_file_get_uri (file);
      gboolean ollama = g_str_has_prefix (spec, PL_OLLAMA_PREFIX);

      pl_window_open_paths (self,
                            (const char * const[]) { spec, NULL },
                            (const char * const[]) { ollama ? spec + strlen (PL_OLLAMA_PREFIX) : spec, NULL },
                            NULL, select, ollama);
      return;
    }
  path = g_file_get_path (file);
  label = g_file_get_basename (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autofree char *message = g_strdup_printf (_("Could not open %s: only local files can be opened"), uri);
      pl_window_show_error (self, message);
      return;
    }
  /* A file listed already is selected at once, not read again (a file
   * named another way, through a link say, is found once it is read). */
  if (find_listed (self, path, NULL, &at))
    {
      remember_recent (self, path);
      if (select)
        pl_window_select_model (self, at);
      return;
    }
  pl_window_open_paths (self,
              (const char * const[]) { path, NULL },
              (const char * const[]) { path, NULL },
              NULL, select, TRUE);
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

void
pl_window_open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) checkpoints = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open Checkpoint"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (checkpoints, _("Checkpoints (HDF5, safetensors, PyTorch, GGUF)"));
  gtk_file_filter_add_suffix (checkpoints, "h5");
  gtk_file_filter_add_suffix (checkpoints, "hdf5");
  gtk_file_filter_add_suffix (checkpoints, "keras");
  gtk_file_filter_add_suffix (checkpoints, "safetensors");
  gtk_file_filter_add_suffix (checkpoints, "bin");
  gtk_file_filter_add_suffix (checkpoints, "pt");
  gtk_file_filter_add_suffix (checkpoints, "pth");
  gtk_file_filter_add_suffix (checkpoints, "gguf");
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
on_ollama_chosen (PlOllamaDialog *dialog,
                  const char     *name,
                  PlWindow       *self)
{
  g_autofree char *path = g_strconcat (PL_OLLAMA_PREFIX, name, NULL);
  guint at;

  if (find_listed (self, path, NULL, &at))
    {
      remember_recent (self, path);
      pl_window_select_model (self, at);
      return;
    }
  pl_window_open_paths (self, (const char * const[]) { path, NULL }, (const char * const[]) { name, NULL },
                        NULL, TRUE, TRUE);
}

/* Ollama's models by their names: its blobs have none a file chooser could
 * show. */
void
pl_window_open_ollama_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  PlOllamaDialog *dialog = pl_ollama_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "chosen", G_CALLBACK (on_ollama_chosen), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* A checkpoint folder: through the file portal this grants the whole folder,
 * so config.json and the tokenizer beside the weights are readable too. */
void
pl_window_open_folder_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Open Checkpoint Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Open"), _("_Cancel"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
pl_window_open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  const char *path = g_variant_get_string (param, NULL);
  /* an Ollama model's "ollama:NAME" is no file path */
  g_autoptr(GFile) file = g_str_has_prefix (path, PL_OLLAMA_PREFIX) ? g_file_new_for_uri (path)
                                                                     : g_file_new_for_path (path);

  pl_window_open_file (PL_WINDOW (widget), file, TRUE);
}

/* An analytic encoding by its spec ("builtin:rope:1024x64:10000"), opened
 * beside the models and selected. */
void
pl_window_open_analytic_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *param)
{
  const char *spec = g_variant_get_string (param, NULL);

  if (!g_str_has_prefix (spec, "builtin:"))
    return;
  pl_window_open_paths (PL_WINDOW (widget),
                        (const char * const[]) { spec, NULL },
                        (const char * const[]) { spec, NULL },
                        NULL, TRUE, FALSE);
}

/* The "Open Recent" menu, rebuilt when the list changes. */
void
pl_window_update_recent_menu (PlWindow *self)
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

gboolean
pl_window_on_drop (GtkDropTarget *target,
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

/* The demos the user removed, which stay out until brought back. */
static GStrv
get_removed_demos (PlWindow *self)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);

  return settings != NULL ? g_settings_get_strv (settings, "removed-demos") : g_new0 (char *, 1);
}

static void
update_restore_demos (PlWindow *self)
{
  g_auto(GStrv) removed = get_removed_demos (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.restore-demos", removed[0] != NULL);
}

/* Opens the demos whose names are (REMOVED TRUE) or are not (FALSE) in the
 * list of removed ones. */
static void
open_demos (PlWindow *self,
            gboolean  removed)
{
  g_auto(GStrv) demos = pl_paths_list_demo_models ();
  g_auto(GStrv) gone = get_removed_demos (self);
  g_autoptr(GStrvBuilder) paths = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) path_list = NULL;
  g_auto(GStrv) label_list = NULL;

  for (guint i = 0; demos[i] != NULL; i++)
    {
      g_autofree char *name = g_path_get_basename (demos[i]);

      if (g_strv_contains ((const char * const *) gone, name) != removed)
        continue;
      g_strv_builder_add (paths, demos[i]);
      g_strv_builder_add (labels, name);
    }
  path_list = g_strv_builder_end (paths);
  label_list = g_strv_builder_end (labels);
  if (path_list[0] != NULL)
    pl_window_open_paths (self, (const char * const *) path_list, (const char * const *) label_list, NULL,
                          FALSE, FALSE);
}

void
pl_window_load_demo_models (PlWindow *self)
{
  open_demos (self, FALSE);
  update_restore_demos (self);
}

/* MODEL left the sidebar: a demo stays out at the next start too. */
void
pl_window_forget_demo (PlWindow *self,
                       PlModel  *model)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  const char *name = g_object_get_data (G_OBJECT (model), "pl-demo-name");
  g_auto(GStrv) removed = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;

  if (name == NULL || settings == NULL)
    return;
  removed = g_settings_get_strv (settings, "removed-demos");
  if (g_strv_contains ((const char * const *) removed, name))
    return;
  g_strv_builder_addv (builder, (const char **) removed);
  g_strv_builder_add (builder, name);
  list = g_strv_builder_end (builder);
  g_settings_set_strv (settings, "removed-demos", (const char * const *) list);
  update_restore_demos (self);
}

/* MODEL came back (Undo): a demo opens at start again. */
void
pl_window_keep_demo (PlWindow *self,
                     PlModel  *model)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  const char *name = g_object_get_data (G_OBJECT (model), "pl-demo-name");
  g_auto(GStrv) removed = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;

  if (name == NULL || settings == NULL)
    return;
  removed = g_settings_get_strv (settings, "removed-demos");
  for (guint i = 0; removed[i] != NULL; i++)
    if (g_strcmp0 (removed[i], name) != 0)
      g_strv_builder_add (builder, removed[i]);
  list = g_strv_builder_end (builder);
  g_settings_set_strv (settings, "removed-demos", (const char * const *) list);
  update_restore_demos (self);
}

/* "Bring Back Demo Models": the removed demos open again, and at start. */
void
pl_window_restore_demos_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  GSettings *settings = pl_workspace_get_settings (self->workspace);

  if (settings == NULL)
    return;
  open_demos (self, TRUE);
  g_settings_reset (settings, "removed-demos");
  update_restore_demos (self);
}

/* The models the user opened (not the demos), with the dataset chosen for
 * each, to open again at the next start. */
void
pl_window_save_models (PlWindow *self)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  g_auto(GStrv) demos = pl_paths_list_demo_models ();
  GVariantBuilder builder;

  if (settings == NULL)
    return;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(ss)"));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->models)); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (G_LIST_MODEL (self->models), i);
      const char *path = pl_model_get_path (model);
      const char *dataset = g_object_get_data (G_OBJECT (model), "pl-open-dataset");

      if (path == NULL || pl_paths_is_demo (path) || g_strv_contains ((const char * const *) demos, path))
        continue;
      g_variant_builder_add (&builder, "(ss)", path, dataset ? dataset : "");
    }
  g_settings_set_value (settings, "open-models", g_variant_builder_end (&builder));
}

void
pl_window_restore_models (PlWindow *self)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  g_autoptr(GVariant) saved = settings ? g_settings_get_value (settings, "open-models") : NULL;
  GVariantIter iter;
  const char *path, *dataset;

  if (saved == NULL)
    return;
  g_variant_iter_init (&iter, saved);
  while (g_variant_iter_next (&iter, "(&s&s)", &path, &dataset))
    {
      g_autofree char *label = g_str_has_prefix (path, "builtin:") ? g_strdup (path) : g_path_get_basename (path);

      /* A file deleted or moved since is left out, not reported at start. */
      if (!g_str_has_prefix (path, "builtin:") && !g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      pl_window_open_paths (self, (const char * const[]) { path, NULL }, (const char * const[]) { label, NULL },
                            *dataset != '\0' ? dataset : NULL, FALSE, FALSE);
    }
}

static void
on_encoding_response (PlEncodingDialog *dialog,
                      const char       *response,
                      PlWindow         *self)
{
  g_autofree char *spec = NULL;

  if (g_strcmp0 (response, "add") != 0)
    return;
  spec = pl_encoding_dialog_get_spec (dialog);
  pl_window_open_paths (self, (const char * const[]) { spec, NULL }, (const char * const[]) { spec, NULL },
                        NULL, TRUE, FALSE);
}

/* "New Analytic Encoding…": a sinusoidal, RoPE or ALiBi table of any size. */
void
pl_window_new_encoding_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  PlEncodingDialog *dialog = pl_encoding_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_encoding_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}
