/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-dataset-dialog.h"
#include "pl-dataset-node.h"

/* For files that hold no model Poslens knows: the user picks the dataset
 * that is the position table from a tree of the file's groups. */
struct _PlDatasetDialog
{
  AdwWindow           parent_instance;

  PlModel            *model;
  GtkSingleSelection *selection;

  GtkListView        *list_view;
  GtkButton          *open_button;
  AdwWindowTitle     *window_title;
};

G_DEFINE_FINAL_TYPE (PlDatasetDialog, pl_dataset_dialog, ADW_TYPE_WINDOW)

enum {
  CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  GListModel *children = pl_dataset_node_get_children (PL_DATASET_NODE (item));

  return children ? g_object_ref (children) : NULL;
}

/* A row: the name over why it cannot be chosen (when it cannot), its shape
 * and type on the right. */
static void
setup_row (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *names = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *reason = gtk_label_new (NULL);
  GtkWidget *summary = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (reason), 0);
  gtk_label_set_wrap (GTK_LABEL (reason), TRUE);
  gtk_widget_add_css_class (reason, "caption");
  gtk_widget_add_css_class (reason, "dim-label");
  gtk_widget_set_hexpand (names, TRUE);
  gtk_widget_set_valign (names, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (summary, "dim-label");
  gtk_widget_add_css_class (summary, "numeric");
  gtk_box_append (GTK_BOX (names), name);
  gtk_box_append (GTK_BOX (names), reason);
  gtk_box_append (GTK_BOX (box), names);
  gtk_box_append (GTK_BOX (box), summary);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), box);
  gtk_list_item_set_child (item, expander);
}

static void
bind_row (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  PlDatasetNode *node = gtk_tree_list_row_get_item (row);
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *box = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));
  GtkWidget *names = gtk_widget_get_first_child (box);
  GtkWidget *name = gtk_widget_get_first_child (names);
  GtkWidget *reason = gtk_widget_get_last_child (names);
  GtkWidget *summary = gtk_widget_get_last_child (box);
  gboolean group = pl_dataset_node_get_children (node) != NULL;
  const char *why = pl_dataset_node_get_reason (node);

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), row);
  gtk_label_set_text (GTK_LABEL (name), pl_dataset_node_get_name (node));
  gtk_label_set_text (GTK_LABEL (summary), pl_dataset_node_get_summary (node));
  /* Only 2-D tables can be chosen; the rest is shown for orientation, and
   * says why it cannot be chosen. */
  gtk_label_set_text (GTK_LABEL (reason), why ? why : "");
  gtk_widget_set_visible (reason, why != NULL);
  gtk_widget_set_sensitive (name, group || pl_dataset_node_get_is_table (node));
  gtk_list_item_set_selectable (item, !group && pl_dataset_node_get_is_table (node));
  g_object_unref (node);
}

static PlDatasetNode *
selected_table (PlDatasetDialog *self)
{
  GtkTreeListRow *row = gtk_single_selection_get_selected_item (self->selection);
  g_autoptr(PlDatasetNode) node = row ? gtk_tree_list_row_get_item (row) : NULL;

  if (node == NULL || !pl_dataset_node_get_is_table (node))
    return NULL;
  return node;   /* still held by the tree */
}

static void
on_selection_changed (PlDatasetDialog *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "dataset.choose", selected_table (self) != NULL);
}

static void
choose (PlDatasetDialog *self,
        const char      *dataset)
{
  g_signal_emit (self, signals[CHOSEN], 0, dataset);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
choose_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  PlDatasetDialog *self = PL_DATASET_DIALOG (widget);
  PlDatasetNode *node = selected_table (self);

  if (node != NULL)
    choose (self, pl_dataset_node_get_path (node));
}

static void
on_activate (PlDatasetDialog *self,
             guint            position)
{
  gtk_single_selection_set_selected (self->selection, position);
  choose_action (GTK_WIDGET (self), NULL, NULL);
}

gboolean
pl_dataset_dialog_choose (PlDatasetDialog *self,
                          const char      *dataset)
{
  const PlTensorInfo *info;

  g_return_val_if_fail (PL_IS_DATASET_DIALOG (self), FALSE);

  info = pl_checkpoint_find_tensor (pl_model_get_checkpoint (self->model), dataset);
  if (info == NULL || !pl_tensor_info_is_table (info))
    return FALSE;
  choose (self, dataset);
  return TRUE;
}

PlModel *
pl_dataset_dialog_get_model (PlDatasetDialog *self)
{
  g_return_val_if_fail (PL_IS_DATASET_DIALOG (self), NULL);
  return self->model;
}

PlDatasetDialog *
pl_dataset_dialog_new (GtkWindow *parent,
                       PlModel   *model)
{
  PlDatasetDialog *self;
  GtkTreeListModel *tree;
  GtkListItemFactory *factory;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);
  g_return_val_if_fail (pl_model_get_checkpoint (model) != NULL, NULL);

  self = g_object_new (PL_TYPE_DATASET_DIALOG, "transient-for", parent, NULL);
  self->model = g_object_ref (model);
  adw_window_title_set_subtitle (self->window_title, pl_model_get_name (model));

  tree = gtk_tree_list_model_new (pl_dataset_node_build_tree (pl_model_get_checkpoint (model)),
                                  FALSE, TRUE, create_children, NULL, NULL);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (tree));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (on_selection_changed), self);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  gtk_list_view_set_factory (self->list_view, factory);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));
  g_object_unref (factory);
  return self;
}

static void
pl_dataset_dialog_dispose (GObject *object)
{
  PlDatasetDialog *self = PL_DATASET_DIALOG (object);

  g_clear_object (&self->selection);
  g_clear_object (&self->model);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_DATASET_DIALOG);
  G_OBJECT_CLASS (pl_dataset_dialog_parent_class)->dispose (object);
}

static void
pl_dataset_dialog_class_init (PlDatasetDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = pl_dataset_dialog_dispose;

  /* PlDatasetDialog::chosen (dataset): the user picked this table. */
  signals[CHOSEN] = g_signal_new ("chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-dataset-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlDatasetDialog, list_view);
  gtk_widget_class_bind_template_child (widget_class, PlDatasetDialog, open_button);
  gtk_widget_class_bind_template_child (widget_class, PlDatasetDialog, window_title);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
  gtk_widget_class_install_action (widget_class, "dataset.choose", NULL, choose_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
pl_dataset_dialog_init (PlDatasetDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "dataset.choose", FALSE);
}
