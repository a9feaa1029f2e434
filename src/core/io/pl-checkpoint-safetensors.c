/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-private.h"
#include "pl-checkpoint-safetensors.h"
#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-json.h"

/* Real headers are a few MB at most (tens of thousands of tensors). */
#define MAX_HEADER_BYTES ((guint64) 100 << 20)
/* Converted in pieces so F16/BF16 reads need no second full-size buffer. */
#define CHUNK_BYTES      ((gsize) 4 << 20)

typedef struct
{
  int      fd;
  char    *path;
  guint64  data_start;   /* 8 + header length */
  guint64  data_size;
} Shard;

struct _PlCheckpointSafetensors
{
  PlCheckpoint  parent_instance;
  GArray       *shards;   /* Shard */
};

G_DEFINE_FINAL_TYPE (PlCheckpointSafetensors, pl_checkpoint_safetensors, PL_TYPE_CHECKPOINT)

typedef struct
{
  const char *name;
  PlDType     dtype;
  guint       size;
} DTypeInfo;

static const DTypeInfo dtypes[] = {
  { "F32", PL_DTYPE_F32, 4 },
  { "F16", PL_DTYPE_F16, 2 },
  { "BF16", PL_DTYPE_BF16, 2 },
  { "F64", PL_DTYPE_F64, 8 },
  { "I64", PL_DTYPE_OTHER, 8 },
  { "U64", PL_DTYPE_OTHER, 8 },
  { "I32", PL_DTYPE_OTHER, 4 },
  { "U32", PL_DTYPE_OTHER, 4 },
  { "I16", PL_DTYPE_OTHER, 2 },
  { "U16", PL_DTYPE_OTHER, 2 },
  { "I8", PL_DTYPE_OTHER, 1 },
  { "U8", PL_DTYPE_OTHER, 1 },
  { "BOOL", PL_DTYPE_OTHER, 1 },
  { "F8_E4M3", PL_DTYPE_OTHER, 1 },
  { "F8_E5M2", PL_DTYPE_OTHER, 1 },
};

static void
shard_clear (gpointer data)
{
  Shard *shard = data;

  if (shard->fd >= 0)
    close (shard->fd);
  g_free (shard->path);
}

static void
pl_checkpoint_safetensors_finalize (GObject *object)
{
  PlCheckpointSafetensors *self = PL_CHECKPOINT_SAFETENSORS (object);

  g_clear_pointer (&self->shards, g_array_unref);

  G_OBJECT_CLASS (pl_checkpoint_safetensors_parent_class)->finalize (object);
}

static PlMatrix *
pl_checkpoint_safetensors_read_rows (PlCheckpoint        *checkpoint,
                                     const PlTensorInfo  *info,
                                     guint64              first,
                                     guint64              n,
                                     GError             **error)
{
  PlCheckpointSafetensors *self = PL_CHECKPOINT_SAFETENSORS (checkpoint);
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  const Shard *shard = &g_array_index (self->shards, Shard, entry->shard);
  g_autoptr(PlMatrix) matrix = NULL;
  g_autofree guint8 *chunk = NULL;
  guint64 rows, cols, offset, total;
  gsize elem = entry->elem_size;
  gsize done = 0;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  /* Bounds were checked against the file when the header was read; what it
   * stores of them is checked before memory is taken for them. */
  offset = entry->offset + first * cols * elem;
  total = n * cols;
  if (!pl_input_file_check_stored (shard->fd, offset, total * elem, shard->path, info->name, error))
    return NULL;
  matrix = pl_matrix_try_new (n, cols, error);
  if (matrix == NULL)
    {
      g_prefix_error (error, "%s: “%s”: ", shard->path, info->name);
      return NULL;
    }
  if (info->dtype == PL_DTYPE_F32 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    {
      if (!pl_checkpoint_read_exact (shard->fd, matrix->data, total * 4, offset, shard->path, error))
        return NULL;
      return g_steal_pointer (&matrix);
    }

  chunk = g_malloc (MIN (CHUNK_BYTES, MAX (total * elem, 1)));
  while (done < total)
    {
      gsize count = MIN (total - done, CHUNK_BYTES / elem);

      if (!pl_checkpoint_read_exact (shard->fd, chunk, count * elem, offset + done * elem, shard->path, error))
        return NULL;
      pl_checkpoint_convert_le (info->dtype, chunk, matrix->data + done, count);
      done += count;
    }
  return g_steal_pointer (&matrix);
}

static PlStoredMatrix *
pl_checkpoint_safetensors_read_stored (PlCheckpoint        *checkpoint,
                                       const PlTensorInfo  *info,
                                       GError             **error)
{
  PlCheckpointSafetensors *self = PL_CHECKPOINT_SAFETENSORS (checkpoint);
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  const Shard *shard = &g_array_index (self->shards, Shard, entry->shard);
  g_autoptr(PlStoredMatrix) stored = NULL;
  PlStoredType type;
  guint64 rows, cols;

  g_assert (info->dtype == PL_DTYPE_F32 || info->dtype == PL_DTYPE_F16 || info->dtype == PL_DTYPE_BF16);
  type = info->dtype == PL_DTYPE_F32 ? PL_STORED_F32 : info->dtype == PL_DTYPE_F16 ? PL_STORED_F16 : PL_STORED_BF16;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  /* What the file stores of the bytes is checked before memory is taken. */
  if (!pl_input_file_check_stored (shard->fd, entry->offset, rows * cols * entry->elem_size, shard->path,
                                   info->name, error))
    return NULL;
  if (!(stored = pl_stored_matrix_try_new (type, rows, cols, error)))
    {
      g_prefix_error (error, "%s: “%s”: ", shard->path, info->name);
      return NULL;
    }
  /* Bounds were checked against the file when the header was read. */
  if (!pl_checkpoint_read_exact (shard->fd, stored->data, rows * cols * entry->elem_size, entry->offset, shard->path, error))
    return NULL;
#if G_BYTE_ORDER == G_BIG_ENDIAN
  if (entry->elem_size == 4)
    for (guint64 i = 0; i < rows * cols; i++)
      ((guint32 *) stored->data)[i] = GUINT32_FROM_LE (((guint32 *) stored->data)[i]);
  else
    for (guint64 i = 0; i < rows * cols; i++)
      ((guint16 *) stored->data)[i] = GUINT16_FROM_LE (((guint16 *) stored->data)[i]);
#endif
  return g_steal_pointer (&stored);
}

static void
pl_checkpoint_safetensors_class_init (PlCheckpointSafetensorsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PlCheckpointClass *checkpoint_class = PL_CHECKPOINT_CLASS (klass);

  object_class->finalize = pl_checkpoint_safetensors_finalize;
  checkpoint_class->read_rows = pl_checkpoint_safetensors_read_rows;
  checkpoint_class->read_stored = pl_checkpoint_safetensors_read_stored;
}

static void
pl_checkpoint_safetensors_init (PlCheckpointSafetensors *self)
{
  self->shards = g_array_new (FALSE, TRUE, sizeof (Shard));
  g_array_set_clear_func (self->shards, shard_clear);
}

static gboolean
get_uint (JsonNode *node,
          guint64  *out)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

typedef struct
{
  guint64     begin;
  guint64     end;
  const char *name;
} Range;

static int
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const Range *ra = a, *rb = b;

  return ra->begin < rb->begin ? -1 : ra->begin > rb->begin ? 1 : 0;
}

static gboolean
parse_header (PlCheckpointSafetensors  *self,
              guint                     shard_index,
              GError                  **error)
{
  Shard *shard = &g_array_index (self->shards, Shard, shard_index);
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  g_autofree char *header = NULL;
  const char *path = shard->path;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  JsonNode *root;
  GStatBuf st;
  guint8 len_bytes[8];
  guint64 header_len, file_size;

  if (fstat (shard->fd, &st) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  file_size = st.st_size;
  if (file_size < 8)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is too short to be a safetensors file (%" G_GUINT64_FORMAT " bytes)",
                   path, file_size);
      return FALSE;
    }
  if (!pl_checkpoint_read_exact (shard->fd, len_bytes, 8, 0, path, error))
    return FALSE;
  memcpy (&header_len, len_bytes, 8);
  header_len = GUINT64_FROM_LE (header_len);
  if (header_len > file_size - 8)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the safetensors header claims %" G_GUINT64_FORMAT " bytes but the file has only %"
                   G_GUINT64_FORMAT " (truncated or not safetensors)",
                   path, header_len, file_size);
      return FALSE;
    }
  if (header_len > MAX_HEADER_BYTES)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s: the safetensors header is %" G_GUINT64_FORMAT " bytes, more than any real checkpoint’s",
                   path, header_len);
      return FALSE;
    }
  header = g_malloc (header_len + 1);
  if (!pl_checkpoint_read_exact (shard->fd, header, header_len, 8, path, error))
    return FALSE;
  header[header_len] = '\0';
  if (!g_utf8_validate (header, header_len, NULL) || strlen (header) != header_len)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the safetensors header is not UTF-8 text", path);
      return FALSE;
    }
  {
    g_autofree char *what = g_strdup_printf ("%s: the safetensors header", path);

    parser = pl_json_parse (header, header_len, what, error);
    if (parser == NULL)
      return FALSE;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the safetensors header is not a JSON object", path);
      return FALSE;
    }

  shard->data_start = 8 + header_len;
  shard->data_size = file_size - shard->data_start;

  json_object_iter_init (&iter, json_node_get_object (root));
  while (json_object_iter_next (&iter, &name, &node))
    {
      JsonObject *obj;
      JsonNode *dtype_node;
      JsonArray *shape_array, *offsets;
      const DTypeInfo *dt = NULL;
      guint64 shape[PL_TENSOR_MAX_RANK] = { 0 };
      guint64 begin, end, count = 1;
      guint rank;
      PlTensorEntry *entry;
      Range range;

      if (strcmp (name, "__metadata__") == 0)
        continue;
      if (!JSON_NODE_HOLDS_OBJECT (node))
        goto bad_entry;
      obj = json_node_get_object (node);
      dtype_node = json_object_get_member (obj, "dtype");
      if (dtype_node == NULL || !JSON_NODE_HOLDS_VALUE (dtype_node) ||
          json_node_get_value_type (dtype_node) != G_TYPE_STRING ||
          !json_object_has_member (obj, "shape") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "shape")) ||
          !json_object_has_member (obj, "data_offsets") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "data_offsets")))
        goto bad_entry;

      for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
        if (strcmp (json_node_get_string (dtype_node), dtypes[i].name) == 0)
          dt = &dtypes[i];
      if (dt == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                       "%s: tensor “%s” has the unknown dtype “%s”",
                       path, name, json_node_get_string (dtype_node));
          return FALSE;
        }

      shape_array = json_object_get_array_member (obj, "shape");
      rank = json_array_get_length (shape_array);
      if (rank > PL_TENSOR_MAX_RANK)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                       "%s: tensor “%s” has %u dimensions, more than %d",
                       path, name, rank, PL_TENSOR_MAX_RANK);
          return FALSE;
        }
      for (guint i = 0; i < rank; i++)
        {
          if (!get_uint (json_array_get_element (shape_array, i), &shape[i]))
            goto bad_entry;
          if (shape[i] != 0 && count > G_MAXUINT64 / shape[i])
            {
              g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                           "%s: the shape of tensor “%s” overflows", path, name);
              return FALSE;
            }
          count *= shape[i];
        }
      if (count > G_MAXUINT64 / dt->size)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the shape of tensor “%s” overflows", path, name);
          return FALSE;
        }

      offsets = json_object_get_array_member (obj, "data_offsets");
      if (json_array_get_length (offsets) != 2 ||
          !get_uint (json_array_get_element (offsets, 0), &begin) ||
          !get_uint (json_array_get_element (offsets, 1), &end) ||
          end < begin)
        goto bad_entry;
      if (end > shard->data_size)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensor “%s” ends at byte %" G_GUINT64_FORMAT " of the data, past the end of the file (%"
                       G_GUINT64_FORMAT " bytes of data; truncated?)",
                       path, name, end, shard->data_size);
          return FALSE;
        }
      if (end - begin != count * dt->size)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensor “%s” spans %" G_GUINT64_FORMAT " bytes but its shape and dtype %s need %"
                       G_GUINT64_FORMAT,
                       path, name, end - begin, dt->name, count * dt->size);
          return FALSE;
        }

      entry = pl_checkpoint_add_tensor (PL_CHECKPOINT (self), name, rank, shape, dt->dtype, dt->name);
      if (entry == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensor “%s” appears twice", path, name);
          return FALSE;
        }
      entry->shard = shard_index;
      entry->offset = shard->data_start + begin;
      entry->nbytes = end - begin;
      entry->elem_size = dt->size;

      range.begin = begin;
      range.end = end;
      range.name = entry->info.name;
      if (end > begin)
        g_array_append_val (ranges, range);
      continue;

    bad_entry:
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the header entry of tensor “%s” is malformed (needs dtype, shape and data_offsets)",
                   path, name);
      return FALSE;
    }

  /* Tensors must not share bytes: overlapping ranges mean a forged header. */
  g_array_sort (ranges, compare_ranges);
  for (guint i = 1; i < ranges->len; i++)
    {
      const Range *prev = &g_array_index (ranges, Range, i - 1);
      const Range *cur = &g_array_index (ranges, Range, i);

      if (cur->begin < prev->end)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensors “%s” and “%s” overlap in the file", path, prev->name, cur->name);
          return FALSE;
        }
    }
  return TRUE;
}

PlCheckpoint *
pl_checkpoint_safetensors_open (const char          *path,
                                const char * const  *shards,
                                GError             **error)
{
  g_autoptr(PlCheckpointSafetensors) self = g_object_new (PL_TYPE_CHECKPOINT_SAFETENSORS, NULL);
  const char * const single[] = { path, NULL };
  const char *format = shards ? "safetensors-sharded" : "safetensors";

  if (shards == NULL)
    shards = single;

  for (guint i = 0; shards[i] != NULL; i++)
    {
      Shard shard = { -1, NULL, 0, 0 };

      if ((shard.fd = pl_input_file_open (shards[i], NULL, error)) < 0)
        return NULL;
      shard.path = g_strdup (shards[i]);
      g_array_append_val (self->shards, shard);
      if (!parse_header (self, i, error))
        return NULL;
    }

  if (pl_checkpoint_get_n_tensors (PL_CHECKPOINT (self)) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s contains no tensors", path);
      return NULL;
    }
  pl_checkpoint_set_path_and_format (PL_CHECKPOINT (self), path, format);
  return PL_CHECKPOINT (g_steal_pointer (&self));
}
