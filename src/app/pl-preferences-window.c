/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-enum-labels.h"
#include "pl-preferences-window.h"

/* Every row writes straight to GSettings; the views follow the settings. */
struct _PlPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GSettings            *settings;

  AdwComboRow          *colormap_row;
  GtkSwitch            *reversed_switch;
  AdwComboRow          *metric_row;
  GtkSwitch            *center_switch;
  AdwComboRow          *format_row;
  GtkSpinButton        *repeats_spin;
  GtkSpinButton        *width_spin;
  GtkSpinButton        *height_spin;
  GtkSpinButton        *dpi_spin;
  GtkSwitch            *dark_switch;
};

G_DEFINE_FINAL_TYPE (PlPreferencesWindow, pl_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static const char * const formats[] = { "png", "svg", "pdf", NULL };

/* Combo rows hold an index; the settings hold the choice's name. */
static gboolean
name_to_index (GValue   *value,
               GVariant *variant,
               gpointer  names)
{
  const char *name = g_variant_get_string (variant, NULL);

  for (guint i = 0; ((const char * const *) names)[i] != NULL; i++)
    if (g_strcmp0 (((const char * const *) names)[i], name) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_name (const GValue       *value,
               const GVariantType *type,
               gpointer            names)
{
  guint i = g_value_get_uint (value);

  if (i >= g_strv_length ((char **) names))
    return NULL;
  return g_variant_new_string (((const char * const *) names)[i]);
}

static void
bind_enum (GSettings   *settings,
           const char  *key,
           AdwComboRow *row,
           GType        type)
{
  g_autoptr(AdwEnumListModel) model = adw_enum_list_model_new (type);
  g_autoptr(GtkExpression) expression = pl_enum_label_expression_new (type);

  adw_combo_row_set_expression (row, expression);
  adw_combo_row_set_model (row, G_LIST_MODEL (model));
  pl_settings_bind_enum (settings, key, row, model);
}

static void
bind_choice (GSettings          *settings,
             const char         *key,
             AdwComboRow        *row,
             const char * const *names)
{
  g_settings_bind_with_mapping (settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                name_to_index, index_to_name, (gpointer) names, NULL);
}

GtkWidget *
pl_preferences_window_new (GtkWindow *parent,
                           GSettings *settings)
{
  PlPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (PL_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       "modal", TRUE,
                       NULL);
  self->settings = g_object_ref (settings);

  bind_enum (settings, "colormap", self->colormap_row, PL_TYPE_COLORMAP_ID);
  g_settings_bind (settings, "colormap-reversed", self->reversed_switch, "active", G_SETTINGS_BIND_DEFAULT);
  bind_enum (settings, "similarity-metric", self->metric_row, PL_TYPE_SIMILARITY_METRIC);
  g_settings_bind (settings, "center", self->center_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "probe-repeats", gtk_spin_button_get_adjustment (self->repeats_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  bind_choice (settings, "export-format", self->format_row, formats);
  g_settings_bind (settings, "export-width", gtk_spin_button_get_adjustment (self->width_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "export-height", gtk_spin_button_get_adjustment (self->height_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "export-dpi", gtk_spin_button_get_adjustment (self->dpi_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "export-dark", self->dark_switch, "active", G_SETTINGS_BIND_DEFAULT);

  return GTK_WIDGET (self);
}

static void
pl_preferences_window_dispose (GObject *object)
{
  PlPreferencesWindow *self = PL_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (pl_preferences_window_parent_class)->dispose (object);
}

static void
pl_preferences_window_class_init (PlPreferencesWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = pl_preferences_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, colormap_row);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, reversed_switch);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, metric_row);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, center_switch);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, format_row);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, repeats_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, height_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, dpi_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPreferencesWindow, dark_switch);
}

static void
pl_preferences_window_init (PlPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
