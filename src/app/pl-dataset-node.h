/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-checkpoint.h"

G_BEGIN_DECLS

#define PL_TYPE_DATASET_NODE (pl_dataset_node_get_type ())

G_DECLARE_FINAL_TYPE (PlDatasetNode, pl_dataset_node, PL, DATASET_NODE, GObject)

/* The groups and datasets of a checkpoint as a tree, from its tensor names. */
GListModel    *pl_dataset_node_build_tree    (PlCheckpoint  *checkpoint);
const char    *pl_dataset_node_get_name      (PlDatasetNode *self);
/* The tensor's full name, NULL for a group. */
const char    *pl_dataset_node_get_path      (PlDatasetNode *self);
/* "512 × 768 float32", or the number of entries of a group. */
const char    *pl_dataset_node_get_summary   (PlDatasetNode *self);
/* A 2-D float dataset: something that can be a position table. */
gboolean       pl_dataset_node_get_is_table  (PlDatasetNode *self);
/* Why a dataset cannot be the table ("One dimension: a table has rows and
 * columns"), NULL for tables and groups. */
const char    *pl_dataset_node_get_reason    (PlDatasetNode *self);
GListModel    *pl_dataset_node_get_children  (PlDatasetNode *self);

G_END_DECLS
