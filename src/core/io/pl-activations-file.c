/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-activations-file.h"
#include "pl-error.h"

/* An activations file read through its PlCheckpoint, so every rule of the
 * HDF5 reader holds (links, sparse files, damaged layouts, bounded reads),
 * and checked here against the layout: a file that says it is one but
 * lacks what the views need is refused when opened, not when a view asks. */

struct _PlActivationsFile
{
  GObject       parent_instance;

  PlCheckpoint *checkpoint;
  guint         n_layers;
  guint         n_heads;
  guint         n_tokens;
  guint         n_sequences;
  guint         hidden;
  gboolean      causal;
  guint         n_planes;
  guint         n_kv_heads;
  guint         n_maps;
  guint         format_version;
  /* The positional components as T coordinates a row, not hidden ones. */
  gboolean      compact;
};

G_DEFINE_FINAL_TYPE (PlActivationsFile, pl_activations_file, G_TYPE_OBJECT)

/* Maps past this many are not looked for. */
#define MAX_MAPS 1024

static void
pl_activations_file_finalize (GObject *object)
{
  PlActivationsFile *self = PL_ACTIVATIONS_FILE (object);

  g_clear_object (&self->checkpoint);
  G_OBJECT_CLASS (pl_activations_file_parent_class)->finalize (object);
}

static void
pl_activations_file_class_init (PlActivationsFileClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_activations_file_finalize;
}

static void
pl_activations_file_init (PlActivationsFile *self)
{
}

static const char *
path_of (PlActivationsFile *self)
{
  return pl_checkpoint_get_path (self->checkpoint);
}

/* NAME as a float32 tensor of RANK dimensions, or an error naming the file. */
static const PlTensorInfo *
require (PlActivationsFile  *self,
         const char         *name,
         guint               rank,
         GError            **error)
{
  const PlTensorInfo *info = pl_checkpoint_find_tensor (self->checkpoint, name);

  if (info == NULL)
    g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is an activations file without %s",
                 path_of (self), name);
  else if (info->rank != rank || info->dtype != PL_DTYPE_F32)
    g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s must be a %u-D float32 dataset, not %u-D %s",
                 path_of (self), name, rank, info->rank, info->dtype_name);
  else
    {
      for (guint d = 0; d < rank; d++)
        if (info->shape[d] == 0 || info->shape[d] > G_MAXINT32)
          {
            g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s has a dimension of %" G_GUINT64_FORMAT,
                         path_of (self), name, info->shape[d]);
            return NULL;
          }
      return info;
    }
  return NULL;
}

/* INFO's shape is EXPECTED (RANK values), else an error saying both. */
static gboolean
check_shape (PlActivationsFile   *self,
             const PlTensorInfo  *info,
             const guint64       *expected,
             GError             **error)
{
  g_autoptr(GString) want = g_string_new (NULL);
  g_autoptr(GString) got = g_string_new (NULL);
  gboolean same = TRUE;

  for (guint d = 0; d < info->rank; d++)
    {
      same = same && info->shape[d] == expected[d];
      g_string_append_printf (want, "%s%" G_GUINT64_FORMAT, d ? " × " : "", expected[d]);
      g_string_append_printf (got, "%s%" G_GUINT64_FORMAT, d ? " × " : "", info->shape[d]);
    }
  if (!same)
    g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                 "%s: %s is [%s], but the other datasets make it [%s]", path_of (self), info->name,
                 got->str, want->str);
  return same;
}

static gboolean
check_version (PlActivationsFile  *self,
               GError            **error)
{
  const char *version = pl_checkpoint_get_attribute (self->checkpoint, "format_version");
  gint64 v;

  if (version == NULL || !g_ascii_string_to_signed (version, 10, 1, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is an activations file without a format_version",
                   path_of (self));
      return FALSE;
    }
  if (v > PL_ACTIVATIONS_FORMAT_VERSION)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s is an activations file of version %" G_GINT64_FORMAT "; this Poslens reads versions up to %d",
                   path_of (self), v, PL_ACTIVATIONS_FORMAT_VERSION);
      return FALSE;
    }
  self->format_version = (guint) v;
  return TRUE;
}

/* The positional components: /hidden/position_mean [L + 1, T, hidden], or
 * from version 2 /hidden/position_coordinates [L + 1, T, T] with the root's
 * hidden_size above T. */
static gboolean
check_hidden (PlActivationsFile  *self,
              GError            **error)
{
  const char *stated = pl_checkpoint_get_attribute (self->checkpoint, "hidden_size");
  gboolean has_mean = pl_checkpoint_find_tensor (self->checkpoint, "/hidden/position_mean") != NULL;
  const PlTensorInfo *info;
  guint64 expected[3] = { (guint64) self->n_layers + 1, self->n_tokens, 0 };
  gint64 hidden = 0;

  self->compact = self->format_version >= 2 && !has_mean &&
                  pl_checkpoint_find_tensor (self->checkpoint, "/hidden/position_coordinates") != NULL;
  if (has_mean && self->format_version >= 2 &&
      pl_checkpoint_find_tensor (self->checkpoint, "/hidden/position_coordinates") != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s holds both /hidden/position_mean and /hidden/position_coordinates; a file has one",
                   path_of (self));
      return FALSE;
    }
  if (stated != NULL &&
      !g_ascii_string_to_signed (stated, 10, 1, PL_ACTIVATIONS_MAX_HIDDEN, &hidden, NULL))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the attribute hidden_size is “%s”, not a size from 1 to %d", path_of (self), stated,
                   PL_ACTIVATIONS_MAX_HIDDEN);
      return FALSE;
    }

  if (!self->compact)
    {
      if (!(info = require (self, "/hidden/position_mean", 3, error)))
        return FALSE;
      expected[2] = info->shape[2];
      if (!check_shape (self, info, expected, error))
        return FALSE;
      if (stated != NULL && (guint64) hidden != info->shape[2])
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the attribute hidden_size is %" G_GINT64_FORMAT ", but /hidden/position_mean's rows "
                       "are %" G_GUINT64_FORMAT " wide", path_of (self), hidden, info->shape[2]);
          return FALSE;
        }
      self->hidden = (guint) info->shape[2];
      return TRUE;
    }

  if (!(info = require (self, "/hidden/position_coordinates", 3, error)))
    return FALSE;
  expected[2] = self->n_tokens;
  if (!check_shape (self, info, expected, error))
    return FALSE;
  if (stated == NULL || hidden <= (gint64) self->n_tokens)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: /hidden/position_coordinates needs the attribute hidden_size, above the %u positions "
                   "the coordinates span", path_of (self), self->n_tokens);
      return FALSE;
    }
  self->hidden = (guint) hidden;
  return TRUE;
}

static gboolean
check_rotary (PlActivationsFile  *self,
              GError            **error)
{
  const PlTensorInfo *q, *k, *frequency;
  guint64 expected[3];

  if (pl_checkpoint_find_tensor (self->checkpoint, "/rotary/query_norm") == NULL &&
      pl_checkpoint_find_tensor (self->checkpoint, "/rotary/key_norm") == NULL)
    return TRUE;
  if (!(q = require (self, "/rotary/query_norm", 3, error)) ||
      !(k = require (self, "/rotary/key_norm", 3, error)) ||
      !(frequency = require (self, "/rotary/frequency", 1, error)))
    return FALSE;
  expected[0] = self->n_layers;
  expected[1] = self->n_heads;
  expected[2] = q->shape[2];
  if (!check_shape (self, q, expected, error))
    return FALSE;
  expected[1] = k->shape[1];
  if (!check_shape (self, k, expected, error))
    return FALSE;
  expected[0] = q->shape[2];
  if (!check_shape (self, frequency, expected, error))
    return FALSE;
  self->n_planes = (guint) q->shape[2];
  self->n_kv_heads = (guint) k->shape[1];
  return TRUE;
}

static gboolean
check_maps (PlActivationsFile  *self,
            GError            **error)
{
  for (guint m = 0; m < MAX_MAPS; m++)
    {
      g_autofree char *name = g_strdup_printf ("/maps/%u/attentions", m);
      const PlTensorInfo *info;
      guint64 expected[4];

      if (pl_checkpoint_find_tensor (self->checkpoint, name) == NULL)
        break;
      if (!(info = require (self, name, 4, error)))
        return FALSE;
      expected[0] = self->n_layers;
      expected[1] = self->n_heads;
      expected[2] = expected[3] = info->shape[2];
      if (!check_shape (self, info, expected, error))
        return FALSE;
      self->n_maps = m + 1;
    }
  return TRUE;
}

PlActivationsFile *
pl_activations_file_new (PlCheckpoint  *checkpoint,
                         GError       **error)
{
  g_autoptr(PlActivationsFile) self = NULL;
  const PlTensorInfo *profile, *distance, *first, *ids;
  guint64 expected[3];

  g_return_val_if_fail (PL_IS_CHECKPOINT (checkpoint), NULL);

  self = g_object_new (PL_TYPE_ACTIVATIONS_FILE, NULL);
  self->checkpoint = g_object_ref (checkpoint);
  if (g_strcmp0 (pl_checkpoint_get_format (checkpoint), PL_ACTIVATIONS_FORMAT) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s is not an activations file (format %s)",
                   path_of (self), pl_checkpoint_get_format (checkpoint));
      return NULL;
    }
  if (!check_version (self, error) ||
      !(profile = require (self, "/attention/offset_profile", 3, error)) ||
      !(distance = require (self, "/attention/mean_distance", 2, error)) ||
      !(first = require (self, "/attention/first_token_mass", 2, error)))
    return NULL;

  ids = pl_checkpoint_find_tensor (checkpoint, "/inputs/input_ids");
  if (ids == NULL || ids->rank != 2 || ids->shape[0] == 0 || ids->shape[1] == 0 ||
      ids->shape[0] > G_MAXINT32 || ids->shape[1] > G_MAXINT32)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: /inputs/input_ids must be [inputs, tokens]",
                   path_of (self));
      return NULL;
    }
  self->n_sequences = (guint) ids->shape[0];
  self->n_tokens = (guint) ids->shape[1];
  self->n_layers = (guint) profile->shape[0];
  self->n_heads = (guint) profile->shape[1];

  expected[0] = self->n_layers;
  expected[1] = self->n_heads;
  expected[2] = 2 * (guint64) self->n_tokens - 1;
  if (!check_shape (self, profile, expected, error) ||
      !check_shape (self, distance, expected, error) ||
      !check_shape (self, first, expected, error))
    return NULL;
  if (!check_hidden (self, error) ||
      !check_rotary (self, error) ||
      !check_maps (self, error))
    return NULL;
  self->causal = g_strcmp0 (pl_checkpoint_get_attribute (checkpoint, "causal"), "1") == 0;
  return g_steal_pointer (&self);
}

PlCheckpoint *
pl_activations_file_get_checkpoint (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return self->checkpoint;
}

const char *
pl_activations_file_get_model_name (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return pl_checkpoint_get_attribute (self->checkpoint, "model_name");
}

const char *
pl_activations_file_get_writer (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return pl_checkpoint_get_attribute (self->checkpoint, "writer");
}

guint
pl_activations_file_get_n_layers (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_layers;
}

guint
pl_activations_file_get_n_heads (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_heads;
}

guint
pl_activations_file_get_n_tokens (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_tokens;
}

guint
pl_activations_file_get_n_sequences (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_sequences;
}

guint
pl_activations_file_get_hidden_size (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->hidden;
}

gboolean
pl_activations_file_get_causal (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), FALSE);
  return self->causal;
}

guint
pl_activations_file_get_n_planes (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_planes;
}

guint
pl_activations_file_get_n_kv_heads (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_kv_heads;
}

gboolean
pl_activations_file_get_compact (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), FALSE);
  return self->compact;
}

guint
pl_activations_file_get_format_version (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->format_version;
}

guint
pl_activations_file_get_n_maps (PlActivationsFile *self)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), 0);
  return self->n_maps;
}

PlMatrix *
pl_activations_file_read_offset_profile (PlActivationsFile  *self,
                                         GError            **error)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return pl_checkpoint_read (self->checkpoint, "/attention/offset_profile", error);
}

PlMatrix *
pl_activations_file_read_mean_distance (PlActivationsFile  *self,
                                        GError            **error)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return pl_checkpoint_read (self->checkpoint, "/attention/mean_distance", error);
}

PlMatrix *
pl_activations_file_read_first_token (PlActivationsFile  *self,
                                      GError            **error)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  return pl_checkpoint_read (self->checkpoint, "/attention/first_token_mass", error);
}

PlMatrix *
pl_activations_file_read_position_mean (PlActivationsFile  *self,
                                        guint               k,
                                        GError            **error)
{
  g_autoptr(PlMatrix) coordinates = NULL;
  PlMatrix *rows;

  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);

  if (k > self->n_layers)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s: layer %u does not exist: the file has layers 0 (embeddings) to %u",
                   path_of (self), k, self->n_layers);
      return NULL;
    }
  if (!self->compact)
    return pl_checkpoint_read_rows (self->checkpoint, "/hidden/position_mean", (guint64) k * self->n_tokens,
                                    self->n_tokens, error);

  /* [coordinates, 0]: the rows in an orthonormal basis of R^hidden whose
   * first T vectors span them, as wide as the rows themselves so that what
   * depends on the width (the probes' default pair count) reads the same. */
  coordinates = pl_checkpoint_read_rows (self->checkpoint, "/hidden/position_coordinates",
                                         (guint64) k * self->n_tokens, self->n_tokens, error);
  if (coordinates == NULL || !(rows = pl_matrix_try_new (self->n_tokens, self->hidden, error)))
    return NULL;
  for (guint i = 0; i < self->n_tokens; i++)
    memcpy (pl_matrix_row (rows, i), pl_matrix_row (coordinates, i), self->n_tokens * sizeof (float));
  return rows;
}

static gboolean
check_has_rotary (PlActivationsFile  *self,
                  GError            **error)
{
  if (self->n_planes == 0)
    g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s holds no rotary norms (not a rotary model)",
                 path_of (self));
  return self->n_planes > 0;
}

PlMatrix *
pl_activations_file_read_plane_norms (PlActivationsFile  *self,
                                      gboolean            keys,
                                      GError            **error)
{
  guint heads;

  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);

  if (!check_has_rotary (self, error))
    return NULL;
  heads = keys ? self->n_kv_heads : self->n_heads;
  return pl_checkpoint_read_rows (self->checkpoint, keys ? "/rotary/key_norm" : "/rotary/query_norm", 0,
                                  (guint64) self->n_layers * heads, error);
}

PlMatrix *
pl_activations_file_read_frequency (PlActivationsFile  *self,
                                    GError            **error)
{
  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);

  if (!check_has_rotary (self, error))
    return NULL;
  return pl_checkpoint_read_rows (self->checkpoint, "/rotary/frequency", 0, 1, error);
}

PlMatrix *
pl_activations_file_read_map (PlActivationsFile  *self,
                              guint               m,
                              guint               layer,
                              guint               head,
                              GError            **error)
{
  g_autofree char *name = NULL;
  const PlTensorInfo *info;
  guint64 t;

  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (self), NULL);
  g_return_val_if_fail (m < self->n_maps && layer < self->n_layers && head < self->n_heads, NULL);

  name = g_strdup_printf ("/maps/%u/attentions", m);
  info = pl_checkpoint_find_tensor (self->checkpoint, name);
  t = info->shape[2];
  return pl_checkpoint_read_rows (self->checkpoint, name, ((guint64) layer * self->n_heads + head) * t, t, error);
}
