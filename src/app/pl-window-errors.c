/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-window-private.h"

/* Files that could not be opened, told in one dialog: a row per file with
 * what went wrong, the whole messages under Details; failures that arrive
 * while it is open join it. */

/* What went wrong, for the dialog's body: the message without the file's
 * path in front (the heading names the file). A bracket behind that quotes
 * another library's own message ("(<data>:1:1: Parse error: …)") is left to
 * the details; one in plain words is the diagnosis ("(truncated or not
 * safetensors)", "(a damaged zip)") and stays. */
static char *
summarize_error (const char *message,
                 const char *path)
{
  const char *s = message;
  g_autofree char *summary = NULL;
  char *detail;

  if (path != NULL && g_str_has_prefix (s, path))
    {
      g_autofree char *name = g_path_get_basename (path);

      summary = g_strconcat (name, s + strlen (path), NULL);
    }
  else
    summary = g_strdup (s);
  if ((detail = strstr (summary, " (")) != NULL && detail > summary && strchr (detail, ':') != NULL)
    *detail = '\0';
  return g_steal_pointer (&summary);
}

static void
on_error_dialog_response (AdwMessageDialog *dialog,
                          const char       *response,
                          PlWindow         *self)
{
  if (g_strcmp0 (response, "copy") == 0)
    {
      gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (dialog)), self->load_errors->str);
      /* Copying leaves the dialog open. */
      g_signal_stop_emission_by_name (dialog, "response");
      return;
    }
  g_string_truncate (self->load_errors, 0);
  self->n_load_errors = 0;
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The list of failures in the error dialog, above its details. */
static GtkListBox *
error_list (PlWindow *self)
{
  GtkWidget *box = adw_message_dialog_get_extra_child (self->error_dialog);

  return GTK_LIST_BOX (gtk_widget_get_first_child (box));
}

static GtkLabel *
error_details (PlWindow *self)
{
  GtkWidget *box = adw_message_dialog_get_extra_child (self->error_dialog);
  GtkWidget *expander = gtk_widget_get_last_child (box);

  return GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (expander)));
}

static void
create_error_dialog (PlWindow *self)
{
  GtkWidget *box, *list, *expander, *details;

  self->error_dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), NULL, NULL));
  g_object_add_weak_pointer (G_OBJECT (self->error_dialog), (gpointer *) &self->error_dialog);
  adw_message_dialog_add_responses (self->error_dialog,
                                    "copy", _("_Copy Details"),
                                    "close", _("_Close"),
                                    NULL);
  adw_message_dialog_set_default_response (self->error_dialog, "close");
  adw_message_dialog_set_close_response (self->error_dialog, "close");
  g_signal_connect_object (self->error_dialog, "response", G_CALLBACK (on_error_dialog_response), self, 0);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  /* Several files: one row each, its name over what went wrong. */
  list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_widget_set_visible (list, FALSE);
  gtk_box_append (GTK_BOX (box), list);
  details = gtk_label_new (NULL);
  gtk_label_set_selectable (GTK_LABEL (details), TRUE);
  gtk_label_set_wrap (GTK_LABEL (details), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (details), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (details), 0);
  gtk_widget_add_css_class (details, "monospace");
  expander = gtk_expander_new_with_mnemonic (_("_Details"));
  gtk_expander_set_child (GTK_EXPANDER (expander), details);
  gtk_box_append (GTK_BOX (box), expander);
  adw_message_dialog_set_extra_child (self->error_dialog, box);
  g_string_truncate (self->load_errors, 0);
  self->n_load_errors = 0;
}

static void
add_error_row (PlWindow   *self,
               const char *name,
               const char *summary)
{
  GtkWidget *row = adw_action_row_new ();
  gsize name_length = strlen (name);

  /* The row's title names the file: "NAME: " need not start its message. */
  if (g_str_has_prefix (summary, name) && g_str_has_prefix (summary + name_length, ": "))
    summary += name_length + 2;
  /* A name or a message holding "<" or "&" shows as written. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), summary);
  gtk_list_box_append (error_list (self), row);
}

/* Files that could not be opened, in one dialog: the heading names the
 * file, the body says what happened in plain words, and the full messages
 * are selectable under Details. Failures while it is open join it, each in
 * a row of its own under the heading "Could Not Open N Files", so nothing
 * waits behind an older message. */
void
pl_window_show_load_error (PlWindow     *self,
                           const char   *label,
                           const GError *error)
{
  g_autofree char *name = g_path_get_basename (label);
  g_autofree char *summary = summarize_error (error->message, label);
  g_autofree char *heading = NULL;
  g_autofree char *message = NULL;

  g_return_if_fail (PL_IS_WINDOW (self));

  /* The library's messages name the file; say which one when they do not. */
  if (strstr (error->message, label) != NULL)
    message = g_strdup (error->message);
  else
    message = g_strdup_printf (_("Could not open %s: %s"), label, error->message);
  g_message ("%s", message);
  if (self->error_dialog == NULL)
    create_error_dialog (self);

  if (self->load_errors->len > 0)
    g_string_append (self->load_errors, "\n\n");
  g_string_append (self->load_errors, message);
  self->n_load_errors++;
  add_error_row (self, name, summary);

  if (self->n_load_errors == 1)
    {
      /* Translators: heading of the dialog about a file that did not open */
      heading = g_strdup_printf (_("Could Not Open “%s”"), name);
      adw_message_dialog_set_body (self->error_dialog, summary);
    }
  else
    {
      /* Translators: heading of the dialog about files that did not open */
      heading = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Could Not Open %u File", "Could Not Open %u Files",
                                              self->n_load_errors), self->n_load_errors);
      adw_message_dialog_set_body (self->error_dialog, "");
      gtk_widget_set_visible (GTK_WIDGET (error_list (self)), TRUE);
    }
  adw_message_dialog_set_heading (self->error_dialog, heading);
  gtk_label_set_text (error_details (self), self->load_errors->str);
  gtk_window_present (GTK_WINDOW (self->error_dialog));
}
