/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* Vision transformers: which family a table belongs to, the grid of image
 * patches its rows stand for, and the special tokens' rows kept apart. */

gboolean
pl_family_recognise_vision (PlCheckpoint        *checkpoint,
                            GHashTable          *normalized,
                            const PlFamilyDesc **desc,
                            char               **prefix,
                            const PlTensorInfo **table)
{
  const char *model_type = pl_family_config_model_type (checkpoint);
  const PlFamilyDesc *descs, *named = NULL;
  guint n;

  descs = pl_family_vision_descs (&n);
  for (guint i = 0; i < n && model_type != NULL; i++)
    if (g_str_equal (model_type, descs[i].name) ||
        (descs[i].alias != NULL && g_str_equal (model_type, descs[i].alias)))
      named = &descs[i];

  /* config.json's model_type decides; without one (or with a family's of
   * another kind), the marker tensors. A model_type Poslens does not know
   * never gets here: pl_model_open refuses it by name. */
  for (guint i = 0; i < n; i++)
    {
      const PlFamilyDesc *d = &descs[i];
      g_autofree char *found = NULL;
      g_autofree char *name = NULL;
      const PlNormalizedName *stored;
      const PlTensorInfo *info;

      if (named != NULL && d != named)
        continue;
      if (!pl_family_find_suffix (normalized, d->position_suffix, &found))
        continue;
      if (named == NULL && d->marker != NULL)
        {
          g_autofree char *marker = g_strconcat (found, d->marker, NULL);

          if (!g_hash_table_contains (normalized, marker))
            continue;
        }
      name = g_strconcat (found, d->position_suffix, NULL);
      stored = g_hash_table_lookup (normalized, name);
      info = stored ? pl_checkpoint_find_tensor (checkpoint, stored->stored) : NULL;
      if (info == NULL || !pl_tensor_info_is_table (info))
        continue;
      *desc = d;
      *prefix = g_steal_pointer (&found);
      *table = info;
      return TRUE;
    }
  return FALSE;
}

JsonObject *
pl_model_get_family_config (PlModel *self)
{
  JsonObject *config = self->checkpoint ? pl_checkpoint_get_config (self->checkpoint) : NULL;
  JsonNode *node;

  if (self->own_config != NULL)
    return self->own_config;
  if (config == NULL || self->desc->config_section == NULL)
    return config;
  node = json_object_get_member (config, self->desc->config_section);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return json_node_get_object (node);
  return config;
}

/* config.json's KEY as one size for both sides (224) or [height, width];
 * FALSE when it is absent or not positive whole numbers. */
static gboolean
read_size_pair (JsonObject *config,
                const char *key,
                gint64     *height,
                gint64     *width)
{
  JsonNode *node = config ? json_object_get_member (config, key) : NULL;

  if (node == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *height = *width = json_node_get_int (node);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) == 2)
    {
      JsonArray *pair = json_node_get_array (node);
      JsonNode *h = json_array_get_element (pair, 0), *w = json_array_get_element (pair, 1);

      if (!JSON_NODE_HOLDS_VALUE (h) || json_node_get_value_type (h) != G_TYPE_INT64 ||
          !JSON_NODE_HOLDS_VALUE (w) || json_node_get_value_type (w) != G_TYPE_INT64)
        return FALSE;
      *height = json_node_get_int (h);
      *width = json_node_get_int (w);
    }
  else
    return FALSE;
  return *height > 0 && *width > 0 && *height <= G_MAXINT && *width <= G_MAXINT;
}

static guint64
integer_sqrt (guint64 n)
{
  guint64 s = 0;

  /* Bit by bit: exact for every 64-bit n, where a double's root is not. */
  for (int bit = 31; bit >= 0; bit--)
    {
      guint64 t = s | (G_GUINT64_CONSTANT (1) << bit);

      if (t * t <= n)
        s = t;
    }
  return s;
}

void
pl_model_read_grid (PlModel *self)
{
  JsonObject *config = pl_model_get_family_config (self);
  g_autofree char *dir = NULL;
  gint64 image_h, image_w, patch_h, patch_w;
  guint64 n, side;

  if (!self->desc->patch_grid)
    return;
  n = self->table_rows - MIN (self->first_position, self->table_rows);
  dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));

  /* The patch embedding's convolution makes image_size // patch_size patches
   * along each side, as HF's patch embeddings count them. */
  if (read_size_pair (config, "image_size", &image_h, &image_w) &&
      read_size_pair (config, "patch_size", &patch_h, &patch_w))
    {
      guint64 rows = (guint64) (image_h / patch_h), cols = (guint64) (image_w / patch_w);

      if (rows > 0 && cols > 0 && rows * cols == n)
        {
          self->grid_rows = (guint) rows;
          self->grid_cols = (guint) cols;
          return;
        }
      self->grid_problem =
        g_strdup_printf ("%s/config.json: image_size %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT
                         " in patches of %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT " makes a %" G_GUINT64_FORMAT
                         " × %" G_GUINT64_FORMAT " grid, but the %u rows of “%s” leave %" G_GUINT64_FORMAT
                         " for patches: the configuration does not belong to these weights",
                         dir, image_h, image_w, patch_h, patch_w, rows, cols,
                         self->table_rows, self->position_table, n);
      return;
    }

  /* Without the sizes, a square count is taken as a square grid, as HF's
   * interpolate_pos_encoding takes it. */
  side = integer_sqrt (n);
  if (side > 0 && side * side == n)
    {
      self->grid_rows = self->grid_cols = (guint) side;
      return;
    }
  self->grid_problem =
    g_strdup_printf ("%s: config.json does not give both image_size and patch_size, and the %" G_GUINT64_FORMAT
                     " patch rows of “%s” are not a square number, so their grid is unknown; put the "
                     "model’s config.json in %s", pl_checkpoint_get_path (self->checkpoint), n,
                     self->position_table, dir);
}

gboolean
pl_model_get_grid (PlModel *self,
                   guint   *rows,
                   guint   *cols)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (rows != NULL)
    *rows = self->grid_rows;
  if (cols != NULL)
    *cols = self->grid_cols;
  return self->grid_rows > 0;
}

gboolean
pl_model_require_grid (PlModel  *self,
                       guint    *rows,
                       guint    *cols,
                       GError  **error)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (pl_model_get_grid (self, rows, cols))
    return TRUE;
  if (self->grid_problem != NULL)
    g_set_error_literal (error, PL_ERROR, PL_ERROR_NOT_FOUND, self->grid_problem);
  else
    g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                 "%s holds positions in a line, not the patches of an image in a grid; open a vision "
                 "transformer (ViT, DeiT, DINOv2, CLIP, SigLIP) or builtin:sincos2d:ROWSxCOLSxWIDTH",
                 self->name);
  return FALSE;
}

guint
pl_model_get_n_special_rows (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);

  return self->desc->patch_grid ? self->first_position : 0;
}

const char *
pl_model_get_special_row_name (PlModel *self,
                               guint    i)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (i < pl_model_get_n_special_rows (self), NULL);

  return i < G_N_ELEMENTS (self->desc->special_names) ? self->desc->special_names[i] : NULL;
}

PlMatrix *
pl_model_read_special_rows (PlModel  *self,
                            GError  **error)
{
  guint n;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n = pl_model_get_n_special_rows (self);
  if (n == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s has no special tokens’ rows before its positions", self->name);
      return NULL;
    }
  return pl_checkpoint_read_rows (self->checkpoint, self->position_table, 0, n, error);
}
