/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-paper.h"
#include "pl-window-private.h"

/* "Reproduce the Paper": Figure 1 and Table 1 for the models in the sidebar
 * that have a 1-D position table (a dialog names the others), written as PDF
 * and PNG into a folder the user picks, computed on the workspace's workers
 * (the job's key is new each time: it writes files). */

typedef struct
{
  GPtrArray *models;       /* PlModel */
  char      *folder;
  guint      repeats;
} PaperJob;

static void
paper_job_free (PaperJob *job)
{
  g_clear_pointer (&job->models, g_ptr_array_unref);
  g_free (job->folder);
  g_free (job);
}

static void
report_progress (double   fraction,
                 gpointer user_data)
{
  pl_analysis_job_set_progress (user_data, fraction);
}

/* On a worker: the analyses, the figures and the files; the answer is the folder. */
static gboolean
run_paper (PlAnalysisJob  *job,
           gpointer        data,
           GValue         *result,
           GError        **error)
{
  PaperJob *input = data;
  g_autoptr(PlPaper) paper = NULL;
  PlPaperOptions options;

  pl_paper_options_init (&options);
  options.n_repeats = input->repeats;
  if (!(paper = pl_paper_compute ((PlModel **) input->models->pdata, input->models->len, &options,
                                  report_progress, job, pl_analysis_job_get_cancellable (job), error)) ||
      !pl_paper_write (paper, input->folder, error))
    return FALSE;
  g_value_init (result, G_TYPE_STRING);
  g_value_set_string (result, input->folder);
  return TRUE;
}

/* The window the paper is made for, held weakly: closing the window
 * cancels the paper rather than waiting for it. */
static GWeakRef *
weak_window_new (PlWindow *window)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, window);
  return ref;
}

static void
weak_window_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

static void
on_progress (double   fraction,
             gpointer user_data)
{
  g_autoptr(PlWindow) self = g_weak_ref_get (user_data);
  g_autofree char *title = NULL;

  if (self == NULL || self->paper_toast == NULL)
    return;
  /* Translators: progress of "Reproduce the Paper", e.g. "Reproducing the paper… 40 %" */
  title = g_strdup_printf (_("Reproducing the paper… %.0f %%"), 100 * fraction);
  adw_toast_set_title (self->paper_toast, title);
}

static void
paper_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(PlWindow) self = g_weak_ref_get (user_data);
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);
  g_autofree char *message = NULL;
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  weak_window_free (user_data);
  if (self == NULL)
    return;
  g_clear_object (&self->paper_cancellable);
  if (self->paper_toast != NULL)
    adw_toast_dismiss (self->paper_toast);
  g_clear_object (&self->paper_toast);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reproduce-paper", TRUE);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (answer == NULL)
    {
      /* Translators: %s says why */
      message = g_strdup_printf (_("Could not reproduce the paper: %s"), error->message);
      pl_window_show_error (self, message);
      return;
    }
  g_free (self->paper_folder);
  self->paper_folder = g_value_dup_string (answer);
  /* Translators: %s is a folder */
  message = g_strdup_printf (_("Figure 1 and Table 1 are in %s"), self->paper_folder);
  /* A toast's title is markup: a folder holding "&" or "<" would show empty. */
  escaped = g_markup_escape_text (message, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 10);
  adw_toast_set_button_label (toast, _("Open _Folder"));
  adw_toast_set_action_name (toast, "win.open-paper-folder");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The sidebar's models whose 1-D position table the paper reads; why each
 * other one is left out, a line each, in LEFT_OUT when given. */
static GPtrArray *
paper_models (PlWindow *self,
              GString  *left_out)
{
  GListModel *models = G_LIST_MODEL (self->models);
  GPtrArray *taken = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);
      g_autoptr(GError) error = NULL;

      if (pl_model_require_paper_table (model, &error))
        g_ptr_array_add (taken, g_steal_pointer (&model));
      else if (left_out != NULL)
        {
          /* The reason after the file's path, under the model's name. */
          const char *path = pl_model_get_path (model), *reason = error->message;

          if (g_str_has_prefix (reason, path) && g_str_has_prefix (reason + strlen (path), ": "))
            reason += strlen (path) + 2;
          g_string_append_printf (left_out, "\n\n%s — %s", pl_model_get_name (model), reason);
        }
    }
  return taken;
}

static void
start (PlWindow *self,
       GFile    *folder)
{
  GSettings *settings = pl_workspace_get_settings (self->workspace);
  PaperJob *job = g_new0 (PaperJob, 1);
  g_autofree char *key = NULL;
  GWeakRef *weak;
  static guint serial;

  job->models = paper_models (self, NULL);
  job->folder = g_file_get_path (folder);
  if (job->models->len == 0)
    {
      pl_window_show_error (self, _("None of the models in the sidebar has a position table the paper can read"));
      paper_job_free (job);
      return;
    }
  job->repeats = settings ? (guint) g_settings_get_int (settings, "probe-repeats") : PL_PROBE_DEFAULT_REPEATS;
  if (job->folder == NULL)
    {
      pl_window_show_error (self, _("Choose a folder on this computer for the paper’s figures"));
      paper_job_free (job);
      return;
    }

  key = g_strdup_printf ("paper/%u", ++serial);
  self->paper_cancellable = g_cancellable_new ();
  self->paper_toast = adw_toast_new (_("Reproducing the paper…"));
  adw_toast_set_timeout (self->paper_toast, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, g_object_ref (self->paper_toast));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reproduce-paper", FALSE);
  weak = weak_window_new (self);
  pl_analysis_cache_run_async (pl_workspace_get_cache (self->workspace), key, run_paper,
                               job, (GDestroyNotify) paper_job_free, on_progress, weak,
                               self->paper_cancellable, paper_done, weak);
}

static void
on_folder_response (GtkNativeDialog *dialog,
                    int              response,
                    PlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      start (self, folder);
    }
  g_object_unref (dialog);
}

static void
choose_folder (PlWindow *self)
{
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Folder for Figure 1 and Table 1"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Save Here"), _("_Cancel"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_folder_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_left_out_response (AdwMessageDialog *dialog,
                      const char       *response,
                      PlWindow         *self)
{
  self->paper_dialog = NULL;
  if (g_strcmp0 (response, "continue") == 0)
    choose_folder (self);
}

/* Says which models the paper leaves out and why; with others to make it
 * for, the user goes on to the folder or stops here. */
static void
show_left_out (PlWindow   *self,
               guint       n_taken,
               const char *reasons)
{
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  body = g_strconcat (_("These models are left out of the paper’s Figure 1 and Table 1:"), reasons, NULL);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                       n_taken > 0 ? _("Some Models Are Left Out")
                                                                   : _("No Model for the Paper"),
                                                       body));
  if (n_taken > 0)
    {
      adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "continue", _("_Choose Folder…"), NULL);
      adw_message_dialog_set_response_appearance (dialog, "continue", ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_default_response (dialog, "continue");
      adw_message_dialog_set_close_response (dialog, "cancel");
    }
  else
    {
      adw_message_dialog_add_response (dialog, "close", _("_Close"));
      adw_message_dialog_set_close_response (dialog, "close");
    }
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_left_out_response), self, 0);
  self->paper_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

void
pl_window_reproduce_paper_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  g_autoptr(GString) left_out = g_string_new (NULL);
  g_autoptr(GPtrArray) taken = NULL;

  if (self->paper_cancellable != NULL || self->paper_dialog != NULL)
    return;
  if (g_list_model_get_n_items (G_LIST_MODEL (self->models)) == 0)
    {
      pl_window_show_error (self, _("Open a model first: the paper’s figures are made for the models in the sidebar"));
      return;
    }
  taken = paper_models (self, left_out);
  if (left_out->len > 0)
    show_left_out (self, taken->len, left_out->str);
  else
    choose_folder (self);
}

void
pl_window_reproduce_paper_in (PlWindow   *self,
                              const char *folder)
{
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (PL_IS_WINDOW (self));
  g_return_if_fail (folder != NULL);

  if (self->paper_cancellable != NULL)
    return;
  file = g_file_new_for_path (folder);
  start (self, file);
}

gboolean
pl_window_get_paper_busy (PlWindow *self)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), FALSE);
  return self->paper_cancellable != NULL;
}

void
pl_window_open_paper_folder_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;

  if (self->paper_folder == NULL)
    return;
  file = g_file_new_for_path (self->paper_folder);
  uri = g_file_get_uri (file);
  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}
