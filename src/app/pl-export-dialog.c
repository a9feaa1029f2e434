/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-export-dialog.h"
#include "pl-view-style.h"

struct _PlExportDialog
{
  AdwWindow      parent_instance;

  PlFigure      *figure;
  char          *name;
  GSettings     *settings;
  GtkWindow     *parent;

  AdwComboRow   *format_row;
  GtkSpinButton *width_spin;
  GtkSpinButton *height_spin;
  GtkSpinButton *dpi_spin;
  AdwActionRow  *dpi_row;
  GtkSwitch     *dark_switch;
};

G_DEFINE_FINAL_TYPE (PlExportDialog, pl_export_dialog, ADW_TYPE_WINDOW)

static const char * const extensions[] = { "png", "svg", "pdf" };

static const char *
get_extension (PlExportDialog *self)
{
  return extensions[MIN (adw_combo_row_get_selected (self->format_row), G_N_ELEMENTS (extensions) - 1)];
}

gboolean
pl_export_dialog_export (PlExportDialog  *self,
                         const char      *path,
                         GError         **error)
{
  gboolean ok;

  g_return_val_if_fail (PL_IS_EXPORT_DIALOG (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* The screen may be dark; a paper figure is white unless asked otherwise,
   * with text sized for print. Afterwards the figure looks as on screen again. */
  pl_figure_set_dark (self->figure, gtk_switch_get_active (self->dark_switch));
  pl_figure_set_font (self->figure, NULL, PL_VIEW_PAPER_FONT_SIZE);
  ok = pl_figure_export (self->figure, path,
                         gtk_spin_button_get_value (self->width_spin),
                         gtk_spin_button_get_value (self->height_spin),
                         gtk_spin_button_get_value (self->dpi_spin),
                         error);
  pl_figure_set_dark (self->figure, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  pl_figure_set_font (self->figure, NULL, PL_VIEW_SCREEN_FONT_SIZE);
  return ok;
}

static void
toast (GtkWindow  *window,
       const char *message)
{
  GtkWidget *content = ADW_IS_APPLICATION_WINDOW (window)
                       ? adw_application_window_get_content (ADW_APPLICATION_WINDOW (window)) : NULL;

  if (ADW_IS_TOAST_OVERLAY (content))
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (content), adw_toast_new (message));
  else
    g_message ("%s", message);
}

static void
on_file_response (GtkNativeDialog *chooser,
                  int              response,
                  PlExportDialog  *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GError) error = NULL;

  if (response != GTK_RESPONSE_ACCEPT)
    {
      g_object_unref (chooser);
      return;
    }
  file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  g_object_unref (chooser);
  path = g_file_get_path (file);
  basename = g_file_get_basename (file);

  if (path == NULL)
    {
      toast (self->parent, _("Figures can only be exported to local files"));
    }
  else if (!pl_export_dialog_export (self, path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not export %s: %s"), basename, error->message);
      toast (self->parent, message);
    }
  else
    {
      g_autofree char *message = g_strdup_printf (_("Exported %s"), basename);
      toast (self->parent, message);
    }
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
choose_file_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PlExportDialog *self = PL_EXPORT_DIALOG (widget);
  GtkFileChooserNative *chooser;
  g_autofree char *file_name = g_strdup_printf ("%s.%s", self->name, get_extension (self));

  if (self->settings != NULL)
    {
      g_settings_set_string (self->settings, "export-format", get_extension (self));
      g_settings_set_double (self->settings, "export-width", gtk_spin_button_get_value (self->width_spin));
      g_settings_set_double (self->settings, "export-height", gtk_spin_button_get_value (self->height_spin));
      g_settings_set_double (self->settings, "export-dpi", gtk_spin_button_get_value (self->dpi_spin));
      g_settings_set_boolean (self->settings, "export-dark", gtk_switch_get_active (self->dark_switch));
    }

  chooser = gtk_file_chooser_native_new (_("Export Figure"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), file_name);
  g_signal_connect (chooser, "response", G_CALLBACK (on_file_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_format_changed (PlExportDialog *self)
{
  /* Resolution only means something for PNG. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->dpi_row), adw_combo_row_get_selected (self->format_row) == 0);
}

PlExportDialog *
pl_export_dialog_new (GtkWindow  *parent,
                      PlFigure   *figure,
                      const char *name,
                      GSettings  *settings)
{
  PlExportDialog *self;

  g_return_val_if_fail (PL_IS_FIGURE (figure), NULL);

  self = g_object_new (PL_TYPE_EXPORT_DIALOG, "transient-for", parent, NULL);
  self->parent = parent;
  self->figure = g_object_ref (figure);
  self->name = g_strdup (name ? name : "poslens-figure");
  if (settings != NULL)
    {
      g_autofree char *format = g_settings_get_string (settings, "export-format");

      self->settings = g_object_ref (settings);
      for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
        if (g_strcmp0 (format, extensions[i]) == 0)
          adw_combo_row_set_selected (self->format_row, i);
      gtk_spin_button_set_value (self->width_spin, g_settings_get_double (settings, "export-width"));
      gtk_spin_button_set_value (self->height_spin, g_settings_get_double (settings, "export-height"));
      gtk_spin_button_set_value (self->dpi_spin, g_settings_get_double (settings, "export-dpi"));
      gtk_switch_set_active (self->dark_switch, g_settings_get_boolean (settings, "export-dark"));
    }
  on_format_changed (self);
  return self;
}

static void
pl_export_dialog_dispose (GObject *object)
{
  PlExportDialog *self = PL_EXPORT_DIALOG (object);

  g_clear_object (&self->figure);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->name, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_EXPORT_DIALOG);
  G_OBJECT_CLASS (pl_export_dialog_parent_class)->dispose (object);
}

static void
pl_export_dialog_class_init (PlExportDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = pl_export_dialog_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, format_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, height_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dpi_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dpi_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dark_switch);
  gtk_widget_class_install_action (widget_class, "export.choose-file", NULL, choose_file_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
pl_export_dialog_init (PlExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->format_row, "notify::selected", G_CALLBACK (on_format_changed), self);
}
