/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-dataset-node.h"

struct _PlDatasetNode
{
  GObject     parent_instance;

  char       *name;
  char       *path;       /* NULL for groups */
  char       *summary;
  gboolean    is_table;
  char       *reason;     /* why a dataset cannot be the table, or NULL */
  GListStore *children;   /* NULL for datasets */
};

G_DEFINE_FINAL_TYPE (PlDatasetNode, pl_dataset_node, G_TYPE_OBJECT)

static PlDatasetNode *
node_new (const char *name)
{
  PlDatasetNode *self = g_object_new (PL_TYPE_DATASET_NODE, NULL);

  self->name = g_strdup (name);
  return self;
}

/* The group called NAME among PARENT's children, made when missing. */
static PlDatasetNode *
get_group (GListStore *parent,
           const char *name)
{
  g_autoptr(PlDatasetNode) group = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (parent)); i++)
    {
      g_autoptr(PlDatasetNode) node = g_list_model_get_item (G_LIST_MODEL (parent), i);

      if (node->children != NULL && g_strcmp0 (node->name, name) == 0)
        return node;
    }
  group = node_new (name);
  group->children = g_list_store_new (PL_TYPE_DATASET_NODE);
  g_list_store_append (parent, group);
  return group;
}

static void
summarise_groups (GListStore *store)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (store)); i++)
    {
      g_autoptr(PlDatasetNode) node = g_list_model_get_item (G_LIST_MODEL (store), i);
      guint n;

      if (node->children == NULL)
        continue;
      n = g_list_model_get_n_items (G_LIST_MODEL (node->children));
      node->summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u entry", "%u entries", n), n);
      summarise_groups (node->children);
    }
}

/* Why INFO cannot be chosen as the position table, or NULL when it can. */
static char *
describe_refusal (const PlTensorInfo *info)
{
  if (pl_tensor_info_is_table (info))
    return NULL;
  if (info->rank == 0)
    return g_strdup (_("A single number, not a table"));
  if (info->rank == 1)
    return g_strdup (_("One dimension: a table has rows and columns"));
  if (info->rank > 2 && !(info->rank == 3 && info->shape[0] == 1))
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u dimension: a table has two",
                                         "%u dimensions: a table has two", info->rank), info->rank);
  if (info->dtype == PL_DTYPE_OTHER)
    /* Translators: %s is the stored type, e.g. "int32" or "I64" */
    return g_strdup_printf (_("Holds %s values: a table holds floating-point numbers"),
                            info->dtype_name ? info->dtype_name : "?");
  return g_strdup (_("Empty: a table needs at least one row and one column"));
}

GListModel *
pl_dataset_node_build_tree (PlCheckpoint *checkpoint)
{
  GListStore *root = g_list_store_new (PL_TYPE_DATASET_NODE);

  g_return_val_if_fail (PL_IS_CHECKPOINT (checkpoint), NULL);

  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_auto(GStrv) parts = g_strsplit (info->name, "/", -1);
      g_autoptr(GString) shape = g_string_new (NULL);
      GListStore *parent = root;
      PlDatasetNode *leaf;
      guint n = g_strv_length (parts);
      guint last = n;

      /* Walk to the last non-empty component; the ones before it are groups. */
      while (last > 0 && parts[last - 1][0] == '\0')
        last--;
      if (last == 0)
        continue;
      for (guint p = 0; p + 1 < last; p++)
        if (parts[p][0] != '\0')
          parent = get_group (parent, parts[p])->children;

      for (guint d = 0; d < info->rank; d++)
        g_string_append_printf (shape, d == 0 ? "%" G_GUINT64_FORMAT : " × %" G_GUINT64_FORMAT, info->shape[d]);
      if (info->rank == 0)
        g_string_append (shape, _("scalar"));

      leaf = node_new (parts[last - 1]);
      leaf->path = g_strdup (info->name);
      leaf->is_table = pl_tensor_info_is_table (info);
      leaf->reason = describe_refusal (info);
      leaf->summary = g_strdup_printf ("%s %s", shape->str, info->dtype_name ? info->dtype_name : "");
      g_list_store_append (parent, leaf);
      g_object_unref (leaf);
    }
  summarise_groups (root);
  return G_LIST_MODEL (root);
}

const char *
pl_dataset_node_get_name (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), NULL);
  return self->name;
}

const char *
pl_dataset_node_get_path (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), NULL);
  return self->path;
}

const char *
pl_dataset_node_get_summary (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), NULL);
  return self->summary;
}

gboolean
pl_dataset_node_get_is_table (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), FALSE);
  return self->is_table;
}

const char *
pl_dataset_node_get_reason (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), NULL);
  return self->reason;
}

GListModel *
pl_dataset_node_get_children (PlDatasetNode *self)
{
  g_return_val_if_fail (PL_IS_DATASET_NODE (self), NULL);
  return self->children ? G_LIST_MODEL (self->children) : NULL;
}

static void
pl_dataset_node_finalize (GObject *object)
{
  PlDatasetNode *self = PL_DATASET_NODE (object);

  g_free (self->name);
  g_free (self->path);
  g_free (self->summary);
  g_free (self->reason);
  g_clear_object (&self->children);
  G_OBJECT_CLASS (pl_dataset_node_parent_class)->finalize (object);
}

static void
pl_dataset_node_class_init (PlDatasetNodeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_dataset_node_finalize;
}

static void
pl_dataset_node_init (PlDatasetNode *self)
{
}
