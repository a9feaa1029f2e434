/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-gguf.h"
#include "pl-checkpoint-hdf5.h"
#include "pl-checkpoint-private.h"
#include "pl-checkpoint-pytorch.h"
#include "pl-checkpoint-safetensors.h"
#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-json.h"

/* A checkpoint index naming more shards than this is not a real one. */
#define MAX_SHARDS 100000

typedef struct
{
  char        *path;
  char        *format;
  GPtrArray   *tensors;   /* PlTensorEntry */
  GHashTable  *by_name;   /* name -> PlTensorEntry */
  JsonParser  *config_parser;
  JsonObject  *config;
  GHashTable  *attributes; /* name -> value as text, or NULL */
  guint64      file_bytes; /* of every file read, or 0: the one at PATH */
} PlCheckpointPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (PlCheckpoint, pl_checkpoint, G_TYPE_OBJECT)

static void
tensor_entry_free (gpointer data)
{
  PlTensorEntry *entry = data;

  g_free (entry->info.name);
  g_free (entry->info.dtype_name);
  g_free (entry->refusal);
  g_free (entry);
}

static void
pl_checkpoint_finalize (GObject *object)
{
  PlCheckpoint *self = PL_CHECKPOINT (object);
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_clear_pointer (&priv->by_name, g_hash_table_unref);
  g_clear_pointer (&priv->tensors, g_ptr_array_unref);
  g_clear_object (&priv->config_parser);
  g_clear_pointer (&priv->attributes, g_hash_table_unref);
  g_clear_pointer (&priv->path, g_free);
  g_clear_pointer (&priv->format, g_free);

  G_OBJECT_CLASS (pl_checkpoint_parent_class)->finalize (object);
}

static void
pl_checkpoint_class_init (PlCheckpointClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pl_checkpoint_finalize;
}

static void
pl_checkpoint_init (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  priv->tensors = g_ptr_array_new_with_free_func (tensor_entry_free);
  priv->by_name = g_hash_table_new (g_str_hash, g_str_equal);
}

void
pl_tensor_info_get_matrix_shape (const PlTensorInfo *info,
                                 guint64            *rows,
                                 guint64            *cols)
{
  guint64 r = 1;

  /* Shapes were checked against the data's byte size when listed, so the
   * product cannot overflow here. */
  for (guint i = 0; i + 1 < info->rank; i++)
    r *= info->shape[i];
  *rows = r;
  *cols = info->rank >= 1 ? info->shape[info->rank - 1] : 1;
}

gboolean
pl_tensor_info_is_table (const PlTensorInfo *info)
{
  guint64 rows, cols;

  if (info->dtype == PL_DTYPE_OTHER || !(info->rank == 2 || (info->rank == 3 && info->shape[0] == 1)))
    return FALSE;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  return rows > 0 && cols > 0;
}

void
pl_checkpoint_add_file_bytes (PlCheckpoint *self,
                              guint64       bytes)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  priv->file_bytes += bytes;
}

guint64
pl_checkpoint_get_file_bytes (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  GStatBuf st;

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), 0);
  if (priv->file_bytes > 0)
    return priv->file_bytes;
  return priv->path != NULL && g_stat (priv->path, &st) == 0 ? (guint64) st.st_size : 0;
}

void
pl_checkpoint_set_path_and_format (PlCheckpoint *self,
                                   const char   *path,
                                   const char   *format)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_free (priv->path);
  priv->path = g_strdup (path);
  g_free (priv->format);
  priv->format = g_strdup (format);
}

PlTensorEntry *
pl_checkpoint_add_tensor (PlCheckpoint  *self,
                          const char    *name,
                          guint          rank,
                          const guint64 *shape,
                          PlDType        dtype,
                          const char    *dtype_name)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  PlTensorEntry *entry;

  g_assert (rank <= PL_TENSOR_MAX_RANK);

  /* The same name twice (a shard repeating a tensor) keeps the first. */
  if (g_hash_table_contains (priv->by_name, name))
    return NULL;

  entry = g_new0 (PlTensorEntry, 1);
  entry->info.name = g_strdup (name);
  entry->info.rank = rank;
  for (guint i = 0; i < rank; i++)
    entry->info.shape[i] = shape[i];
  entry->info.dtype = dtype;
  entry->info.dtype_name = g_strdup (dtype_name);
  g_ptr_array_add (priv->tensors, entry);
  g_hash_table_insert (priv->by_name, entry->info.name, entry);
  return entry;
}

gboolean
pl_checkpoint_load_config (PlCheckpoint  *self,
                           const char    *weights_file,
                           GError       **error)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  g_autofree char *dir = g_path_get_dirname (weights_file);
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  g_autoptr(JsonParser) parser = NULL;
  JsonNode *root;

  /* One that is there but not a regular file is refused when opened. A
   * file that carries its own configuration keeps it. */
  if (priv->config != NULL || !g_file_test (config_path, G_FILE_TEST_EXISTS))
    return TRUE;

  parser = pl_json_parse_file (config_path, 16 << 20, error);
  if (parser == NULL)
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is not a JSON object", config_path);
      return FALSE;
    }
  priv->config_parser = g_steal_pointer (&parser);
  priv->config = json_node_get_object (root);
  return TRUE;
}

gboolean
pl_checkpoint_set_config_text (PlCheckpoint  *self,
                               const char    *text,
                               const char    *what,
                               GError       **error)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  g_autoptr(JsonParser) parser = NULL;
  JsonNode *root;

  if (!(parser = pl_json_parse (text, strlen (text), what, error)))
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is not a JSON object", what);
      return FALSE;
    }
  g_clear_object (&priv->config_parser);
  priv->config_parser = g_steal_pointer (&parser);
  priv->config = json_node_get_object (root);
  return TRUE;
}

void
pl_checkpoint_set_attribute (PlCheckpoint  *self,
                             const char    *name,
                             const char    *value)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  if (priv->attributes == NULL)
    priv->attributes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (priv->attributes, g_strdup (name), g_strdup (value));
}

const char *
pl_checkpoint_get_attribute (PlCheckpoint *self,
                             const char   *name)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return priv->attributes != NULL ? g_hash_table_lookup (priv->attributes, name) : NULL;
}

GStrv
pl_checkpoint_read_shard_index (const char  *index_path,
                                GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *dir = g_path_get_dirname (index_path);
  JsonObjectIter iter;
  const char *tensor;
  JsonNode *node;
  JsonNode *root;
  JsonObject *map;

  parser = pl_json_parse_file (index_path, 256 << 20, error);
  if (parser == NULL)
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (json_node_get_object (root), "weight_map") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (root), "weight_map")))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s has no “weight_map” object", index_path);
      return NULL;
    }
  map = json_object_get_object_member (json_node_get_object (root), "weight_map");

  json_object_iter_init (&iter, map);
  while (json_object_iter_next (&iter, &tensor, &node))
    {
      const char *shard;
      g_autofree char *shard_path = NULL;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the shard of “%s” is not a file name", index_path, tensor);
          return NULL;
        }
      shard = json_node_get_string (node);
      if (g_hash_table_contains (seen, shard))
        continue;
      /* Shards live beside the index: a name that leads elsewhere is refused. */
      if (shard[0] == '\0' || strchr (shard, '/') != NULL || strchr (shard, '\\') != NULL ||
          strcmp (shard, ".") == 0 || strcmp (shard, "..") == 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: shard “%s” is not a plain file name in the index’s folder",
                       index_path, shard);
          return NULL;
        }
      if (g_hash_table_size (seen) >= MAX_SHARDS)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                       "%s names more than %d shards", index_path, MAX_SHARDS);
          return NULL;
        }
      shard_path = g_build_filename (dir, shard, NULL);
      /* Present but not a regular file: opening it says what it is. */
      if (!g_file_test (shard_path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                       "%s: shard %s is missing", index_path, shard_path);
          return NULL;
        }
      g_hash_table_add (seen, (gpointer) shard);
      g_strv_builder_add (builder, shard_path);
    }
  if (g_hash_table_size (seen) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s names no shards", index_path);
      return NULL;
    }
  return g_strv_builder_end (builder);
}

typedef enum
{
  SNIFF_UNKNOWN,
  SNIFF_HDF5,
  SNIFF_SAFETENSORS,
  SNIFF_PYTORCH,
  SNIFF_GGUF,
} Sniffed;

static Sniffed
sniff (const char  *path,
       GError     **error)
{
  static const guint8 hdf5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
  static const goffset hdf5_offsets[] = { 0, 512, 1024, 2048 };
  /* torch.save's magic number 0x1950a86a20f9469cfc6c, written as pickle
   * protocols 0 and 1 write a long: "L119547037146038801333356L\n". */
  static const char legacy_text_magic[9] = "L11954703";
  guint8 head[9] = { 0 };
  GStatBuf st;
  int fd;
  ssize_t got;

  if ((fd = pl_input_file_open (path, &st, error)) < 0)
    return SNIFF_UNKNOWN;
  if (st.st_size == 0)
    {
      close (fd);
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is empty", path);
      return SNIFF_UNKNOWN;
    }

  for (guint i = 0; i < G_N_ELEMENTS (hdf5_offsets); i++)
    {
      guint8 sig[8];

      if (pread (fd, sig, sizeof sig, hdf5_offsets[i]) == sizeof sig &&
          memcmp (sig, hdf5_signature, sizeof sig) == 0)
        {
          close (fd);
          return SNIFF_HDF5;
        }
    }

  got = pread (fd, head, sizeof head, 0);
  close (fd);
  /* torch.save: a zip, or before PyTorch 1.6 a pickle (its PROTO
   * instruction), unless this is a safetensors header whose length's
   * low byte happens to be 0x80. */
  if (got >= 4 && memcmp (head, "PK\x03\x04", 4) == 0)
    return SNIFF_PYTORCH;
  if (got == sizeof head && head[8] == '{')
    return SNIFF_SAFETENSORS;
  if (got >= 1 && head[0] == 0x80 && !g_str_has_suffix (path, ".safetensors"))
    return SNIFF_PYTORCH;
  /* Saved with pickle protocol 0 or 1: the magic number as a text LONG. */
  if (got == sizeof head && memcmp (head, legacy_text_magic, sizeof head) == 0)
    return SNIFF_PYTORCH;
  if (got >= 4 && memcmp (head, "GGUF", 4) == 0)
    return SNIFF_GGUF;
  if (g_str_has_suffix (path, ".safetensors"))
    return SNIFF_SAFETENSORS;
  if (g_str_has_suffix (path, ".h5") || g_str_has_suffix (path, ".hdf5") ||
      g_str_has_suffix (path, ".hdf") || g_str_has_suffix (path, ".keras"))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is not an HDF5 file (no HDF5 signature)", path);
      return SNIFF_UNKNOWN;
    }
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
               "%s is neither an HDF5, a safetensors, a PyTorch nor a GGUF file", path);
  return SNIFF_UNKNOWN;
}

static PlCheckpoint *
open_sniffed (Sniffed              kind,
              const char          *path,
              const char * const  *shards,
              GError             **error)
{
  switch (kind)
    {
    case SNIFF_HDF5:
      return pl_checkpoint_hdf5_open (path, shards, error);
    case SNIFF_SAFETENSORS:
      return pl_checkpoint_safetensors_open (path, shards, error);
    case SNIFF_PYTORCH:
      return pl_checkpoint_pytorch_open (path, shards, error);
    case SNIFF_GGUF:
      return pl_checkpoint_gguf_open (path, error);
    case SNIFF_UNKNOWN:
    default:
      return NULL;
    }
}

static PlCheckpoint *
open_sharded (const char  *index_path,
              GError     **error)
{
  static const char * const kind_names[] = { NULL, "HDF5", "safetensors", "PyTorch", "GGUF" };
  g_autofree char *base = g_path_get_basename (index_path);
  g_auto(GStrv) shards = NULL;
  Sniffed expected = SNIFF_HDF5;

  if (strstr (base, ".safetensors") != NULL)
    expected = SNIFF_SAFETENSORS;
  else if (strstr (base, ".bin") != NULL || strstr (base, ".pt") != NULL)
    expected = SNIFF_PYTORCH;
  shards = pl_checkpoint_read_shard_index (index_path, error);
  if (shards == NULL)
    return NULL;
  for (guint i = 0; shards[i] != NULL; i++)
    {
      Sniffed kind = sniff (shards[i], error);

      if (kind == SNIFF_UNKNOWN)
        return NULL;
      if (kind != expected)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: shard %s is not a %s file", index_path, shards[i], kind_names[expected]);
          return NULL;
        }
    }
  return open_sniffed (expected, index_path, (const char * const *) shards, error);
}

static PlCheckpoint *
open_file (const char  *path,
           GError     **error)
{
  if (g_str_has_suffix (path, ".index.json"))
    return open_sharded (path, error);
  return open_sniffed (sniff (path, error), path, NULL, error);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* A folder without Hugging Face's file names: its one HDF5, safetensors,
 * PyTorch (.pt, .pth) or GGUF file, if it has exactly one. NULL without error when it has none. */
static char *
single_weights_file (const char  *dir,
                     GError     **error)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (folder == NULL)
    return NULL;
  while ((name = g_dir_read_name (folder)) != NULL)
    if (g_str_has_suffix (name, ".safetensors") || g_str_has_suffix (name, ".h5") ||
        g_str_has_suffix (name, ".hdf5") || g_str_has_suffix (name, ".pt") || g_str_has_suffix (name, ".pth") ||
        g_str_has_suffix (name, ".gguf"))
      g_ptr_array_add (found, g_strdup (name));
  if (found->len == 1)
    return g_build_filename (dir, g_ptr_array_index (found, 0), NULL);
  if (found->len > 1)
    {
      g_ptr_array_sort (found, compare_names);
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s holds several weight files (%s, %s%s); open one of them",
                   dir, (char *) g_ptr_array_index (found, 0), (char *) g_ptr_array_index (found, 1),
                   found->len > 2 ? ", …" : "");
    }
  return NULL;
}

PlCheckpoint *
pl_checkpoint_open (const char  *path,
                    GError     **error)
{
  /* In a folder, the layouts Hugging Face writes, safetensors first. */
  static const char * const candidates[] = {
    "model.safetensors.index.json",
    "model.safetensors",
    "tf_model.h5.index.json",
    "tf_model.h5",
    "model.h5",
    "pytorch_model.bin.index.json",
    "pytorch_model.bin",
  };
  g_autoptr(PlCheckpoint) self = NULL;
  g_autofree char *weights = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      for (guint i = 0; i < G_N_ELEMENTS (candidates) && weights == NULL; i++)
        {
          g_autofree char *candidate = g_build_filename (path, candidates[i], NULL);

          /* A link to something other than a file is refused when opened. */
          if (g_file_test (candidate, G_FILE_TEST_EXISTS))
            weights = g_steal_pointer (&candidate);
        }
      if (weights == NULL)
        {
          g_autoptr(GError) several = NULL;

          weights = single_weights_file (path, &several);
          if (several != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&several));
              return NULL;
            }
        }
      if (weights == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                       "%s has no model.safetensors, tf_model.h5, pytorch_model.bin or a sharded index of one",
                       path);
          return NULL;
        }
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS))
    weights = g_strdup (path);
  else
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s does not exist", path);
      return NULL;
    }

  self = open_file (weights, error);
  if (self == NULL)
    return NULL;
  /* A GGUF file's metadata is its configuration: a config.json beside it
   * belongs to some other file. */
  if (!PL_IS_CHECKPOINT_GGUF (self) && !pl_checkpoint_load_config (self, weights, error))
    return NULL;
  return g_steal_pointer (&self);
}

const char *
pl_checkpoint_get_path (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  return priv->path;
}

const char *
pl_checkpoint_get_format (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  return priv->format;
}

guint
pl_checkpoint_get_n_tensors (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), 0);
  return priv->tensors->len;
}

const PlTensorInfo *
pl_checkpoint_get_tensor (PlCheckpoint *self,
                          guint         i)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (i < priv->tensors->len, NULL);
  return g_ptr_array_index (priv->tensors, i);
}

const PlTensorInfo *
pl_checkpoint_find_tensor (PlCheckpoint *self,
                           const char   *name)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  PlTensorEntry *entry;

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  entry = g_hash_table_lookup (priv->by_name, name);
  /* HDF5 paths are absolute; accept them with or without the leading slash. */
  if (entry == NULL && name[0] == '/')
    entry = g_hash_table_lookup (priv->by_name, name + 1);
  if (entry == NULL && name[0] != '/')
    {
      g_autofree char *slashed = g_strconcat ("/", name, NULL);

      entry = g_hash_table_lookup (priv->by_name, slashed);
    }
  return entry ? &entry->info : NULL;
}

JsonObject *
pl_checkpoint_get_config (PlCheckpoint *self)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  return priv->config;
}

/* The tensor NAME if it can be read at all, else NULL and why. */
static const PlTensorInfo *
readable_tensor (PlCheckpoint  *self,
                 const char    *name,
                 GError       **error)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  const PlTensorInfo *info = pl_checkpoint_find_tensor (self, name);
  const PlTensorEntry *entry;

  if (info == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s has no tensor “%s”", priv->path, name);
      return NULL;
    }
  entry = (const PlTensorEntry *) info;
  if (entry->refusal != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” %s", priv->path, info->name, entry->refusal);
      return NULL;
    }
  if (info->dtype == PL_DTYPE_OTHER)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” has dtype %s; Poslens reads F32, F16, BF16 and F64 tensors",
                   priv->path, info->name, info->dtype_name);
      return NULL;
    }
  return info;
}

PlStoredMatrix *
pl_checkpoint_read_stored (PlCheckpoint  *self,
                           const char    *name,
                           GError       **error)
{
  PlCheckpointClass *klass;
  const PlTensorInfo *info;
  g_autoptr(PlMatrix) m = NULL;
  PlStoredMatrix *stored;

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(info = readable_tensor (self, name, error)))
    return NULL;
  klass = PL_CHECKPOINT_GET_CLASS (self);
  if (klass->read_stored != NULL && (info->dtype == PL_DTYPE_F32 || info->dtype == PL_DTYPE_F16 ||
                                     info->dtype == PL_DTYPE_BF16 || info->dtype == PL_DTYPE_QUANTIZED))
    return klass->read_stored (self, info, error);
  if (!(m = pl_checkpoint_read (self, name, error)))
    return NULL;
  stored = pl_stored_matrix_try_new (PL_STORED_F32, m->rows, m->cols, error);
  if (stored != NULL && m->rows * m->cols > 0)
    memcpy (stored->data, m->data, m->rows * m->cols * sizeof (float));
  return stored;
}

PlMatrix *
pl_checkpoint_read_rows (PlCheckpoint  *self,
                         const char    *name,
                         guint64        first,
                         guint64        n,
                         GError       **error)
{
  PlCheckpointPrivate *priv = pl_checkpoint_get_instance_private (self);
  const PlTensorInfo *info;
  guint64 rows, cols;

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(info = readable_tensor (self, name, error)))
    return NULL;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (first > rows || n > rows - first)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s: rows %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " are outside “%s”, which has %"
                   G_GUINT64_FORMAT " rows",
                   priv->path, first, first + n, info->name, rows);
      return NULL;
    }

  return PL_CHECKPOINT_GET_CLASS (self)->read_rows (self, info, first, n, error);
}

PlMatrix *
pl_checkpoint_read (PlCheckpoint  *self,
                    const char    *name,
                    GError       **error)
{
  const PlTensorInfo *info;
  guint64 rows, cols;

  g_return_val_if_fail (PL_IS_CHECKPOINT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  info = pl_checkpoint_find_tensor (self, name);
  if (info == NULL)
    return pl_checkpoint_read_rows (self, name, 0, 0, error);
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  return pl_checkpoint_read_rows (self, name, 0, rows, error);
}
