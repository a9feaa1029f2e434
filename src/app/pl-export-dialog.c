/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-enum-labels.h"
#include "pl-export-dialog.h"
#include "pl-figure-preset.h"
#include "pl-view-style.h"

/* Exports the figure on screen for a paper or a slide: a title, a typeface
 * and text size, a size from a journal's column widths or a slide's (the
 * figure's own height at a column's width), and a preview drawn by the
 * renderer that writes the file. A table (the probes) is written at its own
 * size, or its own height at a preset's width, with no blank margins. */
struct _PlExportDialog
{
  AdwWindow      parent_instance;

  PlFigure      *figure;
  PlFigure      *companion;        /* a panel that can go beside it, or NULL */
  char          *name;
  GSettings     *settings;
  GtkWindow     *parent;
  gboolean       syncing;          /* setting the size from a preset */

  GtkDrawingArea *preview;
  AdwEntryRow   *title_row;
  AdwComboRow   *font_row;
  GtkSpinButton *font_size_spin;
  AdwActionRow  *companion_row;
  GtkSwitch     *companion_switch;
  GtkSwitch     *dark_switch;
  AdwComboRow   *preset_row;
  AdwActionRow  *width_row;
  AdwActionRow  *height_row;
  GtkSpinButton *width_spin;
  GtkSpinButton *height_spin;
  AdwComboRow   *format_row;
  AdwActionRow  *dpi_row;
  GtkSpinButton *dpi_spin;
};

G_DEFINE_FINAL_TYPE (PlExportDialog, pl_export_dialog, ADW_TYPE_WINDOW)

/* By PlExportFont: pango falls back along the list; Latin Modern is
 * LaTeX's own face. */
static const char * const families[] = {
  [PL_EXPORT_FONT_SANS]  = "Cantarell, Sans",
  [PL_EXPORT_FONT_SERIF] = "Latin Modern Roman, CMU Serif, TeX Gyre Termes, Liberation Serif, DejaVu Serif, Serif",
};

/* The size rows' presets are the command line's (pl-figure-preset.h). */
G_STATIC_ASSERT (PL_EXPORT_SIZE_SLIDE - PL_EXPORT_SIZE_ONE_COLUMN + 1 == PL_FIGURE_N_PRESETS);

static const PlFigurePresetInfo *
preset_info (PlExportSize size)
{
  return size == PL_EXPORT_SIZE_CUSTOM ? NULL : pl_figure_preset_get (size - PL_EXPORT_SIZE_ONE_COLUMN);
}

/* A combo row listing the values of TYPE under their names. */
static void
set_enum (AdwComboRow *row,
          GType        type)
{
  g_autoptr(AdwEnumListModel) model = adw_enum_list_model_new (type);
  g_autoptr(GtkExpression) expression = pl_enum_label_expression_new (type);

  adw_combo_row_set_expression (row, expression);
  adw_combo_row_set_model (row, G_LIST_MODEL (model));
}

static int
get_value (AdwComboRow *row)
{
  AdwEnumListItem *item = adw_combo_row_get_selected_item (row);

  return item != NULL ? adw_enum_list_item_get_value (item) : 0;
}

static void
set_value (AdwComboRow *row,
           int          value)
{
  adw_combo_row_set_selected (row, adw_enum_list_model_find_position (ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (row)),
                                                                      value));
}

/* The nick of a row's value, as the settings hold it ("pdf", "serif"). */
static const char *
get_nick (AdwComboRow *row)
{
  AdwEnumListItem *item = adw_combo_row_get_selected_item (row);

  return item != NULL ? adw_enum_list_item_get_nick (item) : "";
}

static void
set_nick (AdwComboRow *row,
          const char  *nick)
{
  AdwEnumListModel *model = ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (row));
  g_autoptr(GEnumClass) klass = g_type_class_ref (adw_enum_list_model_get_enum_type (model));
  GEnumValue *found = g_enum_get_value_by_nick (klass, nick);

  if (found != NULL)
    set_value (row, found->value);
}

/* The figure the file will hold: the one on screen, or it with its
 * companion as two equal panels, side by side or one above the other as
 * the size suits them (as the window shows them). */
static PlFigure *
make_export_figure (PlExportDialog *self)
{
  PlFigure *panels[2] = { self->figure, self->companion };

  if (self->companion == NULL || !gtk_switch_get_active (self->companion_switch))
    return g_object_ref (self->figure);
  return pl_figure_new_multiples (panels, 2, 0);
}

/* Runs DRAW on the figure styled for the file (white unless asked, the
 * chosen title, face and text size) and puts the screen's style back. */
static gboolean
with_export_style (PlExportDialog *self,
                   gboolean      (*draw) (PlExportDialog *self,
                                          PlFigure       *figure,
                                          gpointer        data),
                   gpointer        data)
{
  g_autofree char *screen_title = g_strdup (pl_figure_get_title (self->figure));
  const char *title = gtk_editable_get_text (GTK_EDITABLE (self->title_row));
  g_autoptr(PlFigure) figure = NULL;
  gboolean ok;

  pl_figure_set_title (self->figure, title[0] != '\0' ? title : NULL);
  pl_figure_set_own_scale (self->figure, TRUE);
  figure = make_export_figure (self);
  pl_figure_set_dark (figure, gtk_switch_get_active (self->dark_switch));
  pl_figure_set_font (figure, families[get_value (self->font_row)], gtk_spin_button_get_value (self->font_size_spin));
  ok = draw (self, figure, data);

  pl_figure_set_own_scale (self->figure, FALSE);
  pl_figure_set_title (self->figure, screen_title);
  pl_figure_set_dark (self->figure, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  pl_figure_set_font (self->figure, families[PL_EXPORT_FONT_SANS], PL_VIEW_SCREEN_FONT_SIZE);
  if (self->companion != NULL)
    {
      pl_figure_set_dark (self->companion, adw_style_manager_get_dark (adw_style_manager_get_default ()));
      pl_figure_set_font (self->companion, families[PL_EXPORT_FONT_SANS], PL_VIEW_SCREEN_FONT_SIZE);
    }
  return ok;
}

typedef struct
{
  const char  *path;
  GError     **error;
} ExportTarget;

static gboolean
write_file (PlExportDialog *self,
            PlFigure       *figure,
            gpointer        data)
{
  ExportTarget *target = data;

  return pl_figure_export (figure, target->path,
                           gtk_spin_button_get_value (self->width_spin),
                           gtk_spin_button_get_value (self->height_spin),
                           gtk_spin_button_get_value (self->dpi_spin),
                           target->error);
}

gboolean
pl_export_dialog_export (PlExportDialog  *self,
                         const char      *path,
                         GError         **error)
{
  ExportTarget target = { path, error };

  g_return_val_if_fail (PL_IS_EXPORT_DIALOG (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return with_export_style (self, write_file, &target);
}

/* ---- Preview ------------------------------------------------------------ */

static gboolean
draw_scaled (PlExportDialog *self,
             PlFigure       *figure,
             gpointer        data)
{
  cairo_t *cr = data;

  pl_figure_render_detached (figure, cr, gtk_spin_button_get_value (self->width_spin),
                             gtk_spin_button_get_value (self->height_spin));
  return TRUE;
}

/* The page at the file's proportions, as large as the preview allows. */
static void
draw_preview (GtkDrawingArea *area,
              cairo_t        *cr,
              int             width,
              int             height,
              gpointer        data)
{
  PlExportDialog *self = data;
  double w = gtk_spin_button_get_value (self->width_spin);
  double h = gtk_spin_button_get_value (self->height_spin);
  double scale = MIN ((width - 2) / w, (height - 2) / h);

  cairo_translate (cr, (width - w * scale) / 2, (height - h * scale) / 2);
  cairo_save (cr);
  cairo_scale (cr, scale, scale);
  with_export_style (self, draw_scaled, cr);
  cairo_restore (cr);
  /* The edge of the page, which a white figure on a light window lacks. */
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.6);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, -0.5, -0.5, w * scale + 1, h * scale + 1);
  cairo_stroke (cr);
}

/* ---- Size ---------------------------------------------------------------- */

static gboolean
measure_figure (PlExportDialog *self,
                PlFigure       *figure,
                gpointer        data)
{
  double *size = data;

  return pl_figure_get_natural_size (figure, &size[0], &size[1]);
}

static gboolean
measure_height (PlExportDialog *self,
                PlFigure       *figure,
                gpointer        data)
{
  double *size = data;

  size[1] = pl_figure_get_preferred_height (figure, size[0]);
  return TRUE;
}

/* The size follows the figure where it is the figure's own: a preset's
 * width without a height (a column) takes the height the figure wants there
 * at the chosen text size and title; a table at a custom size is its own
 * size, and its size rows cannot be set. */
static void
fit_size (PlExportDialog *self)
{
  const PlFigurePresetInfo *info = preset_info (get_value (self->preset_row));
  gboolean syncing = self->syncing, table;
  double size[2];

  table = with_export_style (self, measure_figure, size);
  if (table)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->width_row), FALSE);
      gtk_widget_set_sensitive (GTK_WIDGET (self->height_row), FALSE);
      adw_action_row_set_subtitle (self->width_row, info != NULL ? _("The preset’s width")
                                                                 : _("The table’s own width"));
      adw_action_row_set_subtitle (self->height_row, info != NULL && info->height > 0 ? _("The preset’s height")
                                                                                       : _("The table’s own height"));
    }
  if ((info != NULL && info->height > 0) || (info == NULL && !table))
    return;
  if (info != NULL)
    {
      size[0] = info->width;
      with_export_style (self, measure_height, size);
    }
  self->syncing = TRUE;
  gtk_spin_button_set_value (self->width_spin, size[0]);
  gtk_spin_button_set_value (self->height_spin, size[1]);
  self->syncing = syncing;
}

static void
on_preset_changed (PlExportDialog *self)
{
  const PlFigurePresetInfo *info = preset_info (get_value (self->preset_row));

  if (self->syncing || info == NULL)
    return;
  self->syncing = TRUE;
  gtk_spin_button_set_value (self->font_size_spin, info->font_size);
  gtk_spin_button_set_value (self->width_spin, info->width);
  if (info->height > 0)
    gtk_spin_button_set_value (self->height_spin, info->height);
  self->syncing = FALSE;
  fit_size (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

/* A size set by hand is a custom size, unless it is a preset's. */
static void
on_size_changed (PlExportDialog *self)
{
  double w = gtk_spin_button_get_value (self->width_spin);
  PlExportSize preset = PL_EXPORT_SIZE_CUSTOM;

  if (self->syncing)
    return;
  for (PlExportSize i = PL_EXPORT_SIZE_ONE_COLUMN; i <= PL_EXPORT_SIZE_SLIDE; i++)
    if (G_APPROX_VALUE (w, preset_info (i)->width, 0.05) &&
        (preset_info (i)->height == 0 ||
         G_APPROX_VALUE (gtk_spin_button_get_value (self->height_spin), preset_info (i)->height, 0.05)))
      preset = i;
  self->syncing = TRUE;
  set_value (self->preset_row, preset);
  self->syncing = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

static void
on_look_changed (PlExportDialog *self)
{
  fit_size (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

static void
on_format_changed (PlExportDialog *self)
{
  /* Resolution only means something for PNG. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->dpi_row), get_value (self->format_row) == PL_EXPORT_FORMAT_PNG);
}

void
pl_export_dialog_set_size (PlExportDialog *self,
                           PlExportSize    size)
{
  g_return_if_fail (PL_IS_EXPORT_DIALOG (self));
  set_value (self->preset_row, size);
}

void
pl_export_dialog_set_font (PlExportDialog *self,
                           PlExportFont    font)
{
  g_return_if_fail (PL_IS_EXPORT_DIALOG (self));
  set_value (self->font_row, font);
}

void
pl_export_dialog_set_title (PlExportDialog *self,
                            const char     *title)
{
  g_return_if_fail (PL_IS_EXPORT_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->title_row), title != NULL ? title : "");
}

void
pl_export_dialog_set_companion (PlExportDialog *self,
                                PlFigure       *panel,
                                const char     *label)
{
  g_return_if_fail (PL_IS_EXPORT_DIALOG (self));
  g_return_if_fail (panel == NULL || PL_IS_FIGURE (panel));

  g_set_object (&self->companion, panel);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->companion_row), label != NULL ? label : "");
  gtk_widget_set_visible (GTK_WIDGET (self->companion_row), panel != NULL);
  gtk_switch_set_active (self->companion_switch, panel != NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

/* ---- Writing ------------------------------------------------------------ */

static void
on_launched (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error))
    g_message ("Could not open the exported figure: %s", error->message);
}

static void
open_exported (AdwToast *toast,
               GFile    *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autoptr(GdkAppLaunchContext) context = gdk_display_get_app_launch_context (gdk_display_get_default ());

  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), NULL, on_launched, NULL);
}

static void
unref_file (gpointer  file,
            GClosure *closure)
{
  g_object_unref (file);
}

AdwToast *
pl_export_dialog_new_exported_toast (GFile *file)
{
  g_autofree char *basename = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *title = NULL;
  AdwToast *toast;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  basename = g_file_get_basename (file);
  /* A toast's title is markup: a name with & or < must show as it is. */
  escaped = g_markup_escape_text (basename, -1);
  title = g_strdup_printf (_("Exported %s"), escaped);
  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Open"));
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (open_exported), g_object_ref (file),
                         unref_file, 0);
  return toast;
}

static void
toast (GtkWindow *window,
       AdwToast  *toast)
{
  GtkWidget *content = ADW_IS_APPLICATION_WINDOW (window)
                       ? adw_application_window_get_content (ADW_APPLICATION_WINDOW (window)) : NULL;

  if (ADW_IS_TOAST_OVERLAY (content))
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (content), toast);
  else
    {
      g_message ("%s", adw_toast_get_title (toast));
      g_object_unref (toast);
    }
}

static AdwToast *
new_plain_toast (const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  return adw_toast_new (escaped);
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
    toast (self->parent, new_plain_toast (_("Figures can only be exported to local files")));
  else if (!pl_export_dialog_export (self, path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not export %s: %s"), basename, error->message);
      toast (self->parent, new_plain_toast (message));
    }
  else
    toast (self->parent, pl_export_dialog_new_exported_toast (file));
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
save_choices (PlExportDialog *self)
{
  if (self->settings == NULL)
    return;
  g_settings_set_string (self->settings, "export-format", get_nick (self->format_row));
  g_settings_set_string (self->settings, "export-font", get_nick (self->font_row));
  g_settings_set_double (self->settings, "export-font-size", gtk_spin_button_get_value (self->font_size_spin));
  g_settings_set_double (self->settings, "export-dpi", gtk_spin_button_get_value (self->dpi_spin));
  g_settings_set_boolean (self->settings, "export-dark", gtk_switch_get_active (self->dark_switch));
  /* A table's size is its own, not a choice to keep. */
  if (gtk_widget_get_sensitive (GTK_WIDGET (self->width_row)))
    {
      g_settings_set_double (self->settings, "export-width", gtk_spin_button_get_value (self->width_spin));
      g_settings_set_double (self->settings, "export-height", gtk_spin_button_get_value (self->height_spin));
    }
}

static void
choose_file_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PlExportDialog *self = PL_EXPORT_DIALOG (widget);
  GtkFileChooserNative *chooser;
  g_autofree char *file_name = g_strdup_printf ("%s.%s", self->name, get_nick (self->format_row));

  save_choices (self);
  chooser = gtk_file_chooser_native_new (_("Export Figure"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), file_name);
  g_signal_connect (chooser, "response", G_CALLBACK (on_file_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
load_choices (PlExportDialog *self,
              GSettings      *settings)
{
  g_autofree char *format = g_settings_get_string (settings, "export-format");
  g_autofree char *font = g_settings_get_string (settings, "export-font");

  set_nick (self->format_row, format);
  set_nick (self->font_row, font);
  gtk_spin_button_set_value (self->font_size_spin, g_settings_get_double (settings, "export-font-size"));
  gtk_spin_button_set_value (self->width_spin, g_settings_get_double (settings, "export-width"));
  gtk_spin_button_set_value (self->height_spin, g_settings_get_double (settings, "export-height"));
  gtk_spin_button_set_value (self->dpi_spin, g_settings_get_double (settings, "export-dpi"));
  gtk_switch_set_active (self->dark_switch, g_settings_get_boolean (settings, "export-dark"));
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
  gtk_editable_set_text (GTK_EDITABLE (self->title_row),
                         pl_figure_get_title (figure) != NULL ? pl_figure_get_title (figure) : "");
  if (settings != NULL)
    {
      self->settings = g_object_ref (settings);
      load_choices (self, settings);
    }
  on_size_changed (self);
  on_format_changed (self);
  fit_size (self);
  g_signal_connect_object (self->title_row, "changed", G_CALLBACK (on_look_changed), self, G_CONNECT_SWAPPED);
  return self;
}

static void
pl_export_dialog_dispose (GObject *object)
{
  PlExportDialog *self = PL_EXPORT_DIALOG (object);

  g_clear_object (&self->figure);
  g_clear_object (&self->companion);
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
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, preview);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, title_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, font_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, font_size_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, companion_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, companion_switch);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dark_switch);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, preset_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, width_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, height_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, height_spin);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, format_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dpi_row);
  gtk_widget_class_bind_template_child (widget_class, PlExportDialog, dpi_spin);
  gtk_widget_class_install_action (widget_class, "export.choose-file", NULL, choose_file_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
pl_export_dialog_init (PlExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  set_enum (self->font_row, PL_TYPE_EXPORT_FONT);
  set_enum (self->preset_row, PL_TYPE_EXPORT_SIZE);
  set_enum (self->format_row, PL_TYPE_EXPORT_FORMAT);
  gtk_drawing_area_set_draw_func (self->preview, draw_preview, self, NULL);
  g_signal_connect_swapped (self->format_row, "notify::selected", G_CALLBACK (on_format_changed), self);
  g_signal_connect_swapped (self->preset_row, "notify::selected", G_CALLBACK (on_preset_changed), self);
  g_signal_connect_swapped (self->width_spin, "value-changed", G_CALLBACK (on_size_changed), self);
  g_signal_connect_swapped (self->height_spin, "value-changed", G_CALLBACK (on_size_changed), self);
  g_signal_connect_swapped (self->font_row, "notify::selected", G_CALLBACK (on_look_changed), self);
  g_signal_connect_swapped (self->font_size_spin, "value-changed", G_CALLBACK (on_look_changed), self);
  g_signal_connect_swapped (self->dark_switch, "notify::active", G_CALLBACK (on_look_changed), self);
  g_signal_connect_swapped (self->companion_switch, "notify::active", G_CALLBACK (on_look_changed), self);
}
