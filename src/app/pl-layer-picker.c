/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-layer-picker.h"

/* "Position table", "Embedding output", "Layer 1" … for the workspace's
 * model, kept in step with the workspace's layer both ways. Hidden for
 * models without a forward pass, where only the table exists. */
struct _PlLayerPicker
{
  GtkWidget      parent_instance;

  PlWorkspace   *workspace;
  GtkDropDown   *dropdown;
  GtkStringList *names;
  gboolean       updating;
};

G_DEFINE_FINAL_TYPE (PlLayerPicker, pl_layer_picker, GTK_TYPE_WIDGET)

static void
sync_from_workspace (PlLayerPicker *self)
{
  guint n_layers = pl_workspace_get_n_layers (self->workspace);
  guint wanted = n_layers + 2;

  self->updating = TRUE;
  if (g_list_model_get_n_items (G_LIST_MODEL (self->names)) != wanted)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) strings = NULL;

      for (int layer = PL_LAYER_TABLE; layer <= (int) n_layers; layer++)
        {
          g_autofree char *name = pl_workspace_describe_layer (self->workspace, layer);
          g_strv_builder_add (builder, name);
        }
      strings = g_strv_builder_end (builder);
      gtk_string_list_splice (self->names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->names)),
                              (const char * const *) strings);
    }
  gtk_drop_down_set_selected (self->dropdown, pl_workspace_get_layer (self->workspace) + 1);
  gtk_widget_set_visible (GTK_WIDGET (self), n_layers > 0);
  self->updating = FALSE;
}

static void
on_selected (PlLayerPicker *self)
{
  guint selected = gtk_drop_down_get_selected (self->dropdown);

  if (self->updating || self->workspace == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  pl_workspace_set_layer (self->workspace, (int) selected - 1);
}

void
pl_layer_picker_set_workspace (PlLayerPicker *self,
                               PlWorkspace   *workspace)
{
  g_return_if_fail (PL_IS_LAYER_PICKER (self));

  if (self->workspace != NULL)
    g_signal_handlers_disconnect_by_data (self->workspace, self);
  if (!g_set_object (&self->workspace, workspace))
    return;
  g_signal_connect_object (workspace, "notify::model", G_CALLBACK (sync_from_workspace), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "notify::layer", G_CALLBACK (sync_from_workspace), self, G_CONNECT_SWAPPED);
  sync_from_workspace (self);
}

static void
pl_layer_picker_dispose (GObject *object)
{
  PlLayerPicker *self = PL_LAYER_PICKER (object);

  if (self->dropdown != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->dropdown));
      self->dropdown = NULL;
    }
  g_clear_object (&self->workspace);
  G_OBJECT_CLASS (pl_layer_picker_parent_class)->dispose (object);
}

static void
pl_layer_picker_class_init (PlLayerPickerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pl_layer_picker_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static void
pl_layer_picker_init (PlLayerPicker *self)
{
  self->names = gtk_string_list_new (NULL);
  self->dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (self->names), NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dropdown),
                               _("Where the positions are read: the table itself, or the mean hidden state at each "
                                 "position after a layer (Ctrl+Page Up / Ctrl+Page Down)"));
  gtk_widget_set_parent (GTK_WIDGET (self->dropdown), GTK_WIDGET (self));
  g_signal_connect_swapped (self->dropdown, "notify::selected", G_CALLBACK (on_selected), self);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}
