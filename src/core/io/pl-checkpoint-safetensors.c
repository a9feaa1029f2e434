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
#include "pl-safetensors-header.h"

/* Real headers are a few MB at most (tens of thousands of tensors). */
#define MAX_HEADER_BYTES ((guint64) 100 << 20)
/* Converted in pieces so F16/BF16 reads need no second full-size buffer. */
#define CHUNK_BYTES      ((gsize) 4 << 20)

typedef struct
{
  int          fd;
  char        *path;
  guint64      data_start;   /* 8 + header length */
  guint64      data_size;
  GMappedFile *map;          /* the file mapped read-only, or NULL */
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
  g_clear_pointer (&shard->map, g_mapped_file_unref);
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

  return pl_checkpoint_view_stored (shard->map, shard->fd, shard->path, info, entry->offset, error);
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

static const DTypeInfo *
lookup_dtype (const char *name,
              gsize       len)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (strlen (dtypes[i].name) == len && memcmp (name, dtypes[i].name, len) == 0)
      return &dtypes[i];
  return NULL;
}

static gboolean
malformed (GError     **error,
           const char  *path,
           const char  *name)
{
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
               "%s: the header entry of tensor “%s” is malformed (needs dtype, shape and data_offsets)",
               path, name);
  return FALSE;
}

/* Checks one header entry against the file and lists it: what both ways
 * of reading the header share. */
static gboolean
add_entry (PlCheckpointSafetensors  *self,
           guint                     shard_index,
           const char               *name,
           const DTypeInfo          *dt,
           guint                     rank,
           const guint64            *shape,
           guint64                   begin,
           guint64                   end,
           GArray                   *ranges,
           GError                  **error)
{
  Shard *shard = &g_array_index (self->shards, Shard, shard_index);
  const char *path = shard->path;
  PlTensorEntry *entry;
  guint64 count = 1;
  Range range;

  for (guint i = 0; i < rank; i++)
    {
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
  if (end < begin)
    return malformed (error, path, name);
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
  return TRUE;
}

static gboolean
unknown_dtype (GError     **error,
               const char  *path,
               const char  *name,
               const char  *dtype)
{
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
               "%s: tensor “%s” has the unknown dtype “%s”", path, name, dtype);
  return FALSE;
}

/* The header as json-glib reads it: any JSON, with what is wrong said. */
static gboolean
add_json_entries (PlCheckpointSafetensors  *self,
                  guint                     shard_index,
                  const char               *header,
                  gsize                     header_len,
                  GArray                   *ranges,
                  GError                  **error)
{
  const char *path = g_array_index (self->shards, Shard, shard_index).path;
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *what = g_strdup_printf ("%s: the safetensors header", path);
  g_autoptr(GList) names = NULL;
  JsonNode *root;

  if ((parser = pl_json_parse (header, header_len, what, error)) == NULL)
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the safetensors header is not a JSON object", path);
      return FALSE;
    }

  /* In the file's order, as the scanner lists them (a name given twice
   * keeps its first place and its last value). */
  names = json_object_get_members (json_node_get_object (root));
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (json_node_get_object (root), name);
      JsonObject *obj;
      JsonNode *dtype_node;
      JsonArray *shape_array, *offsets;
      const DTypeInfo *dt;
      guint64 shape[PL_TENSOR_MAX_RANK] = { 0 };
      guint64 begin, end;
      guint rank;

      if (strcmp (name, "__metadata__") == 0)
        continue;
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return malformed (error, path, name);
      obj = json_node_get_object (node);
      dtype_node = json_object_get_member (obj, "dtype");
      if (dtype_node == NULL || !JSON_NODE_HOLDS_VALUE (dtype_node) ||
          json_node_get_value_type (dtype_node) != G_TYPE_STRING ||
          !json_object_has_member (obj, "shape") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "shape")) ||
          !json_object_has_member (obj, "data_offsets") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "data_offsets")))
        return malformed (error, path, name);

      dt = lookup_dtype (json_node_get_string (dtype_node), strlen (json_node_get_string (dtype_node)));
      if (dt == NULL)
        return unknown_dtype (error, path, name, json_node_get_string (dtype_node));

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
        if (!get_uint (json_array_get_element (shape_array, i), &shape[i]))
          return malformed (error, path, name);

      offsets = json_object_get_array_member (obj, "data_offsets");
      if (json_array_get_length (offsets) != 2 ||
          !get_uint (json_array_get_element (offsets, 0), &begin) ||
          !get_uint (json_array_get_element (offsets, 1), &end))
        return malformed (error, path, name);
      if (!add_entry (self, shard_index, name, dt, rank, shape, begin, end, ranges, error))
        return FALSE;
    }
  return TRUE;
}

/* The header as nearly every writer lays it out, scanned without building
 * a tree of it (pl-safetensors-header.c); FALSE and no error when it is
 * laid out otherwise. */
static gboolean
add_scanned_entries (PlCheckpointSafetensors  *self,
                     guint                     shard_index,
                     GArray                   *entries,
                     GArray                   *ranges,
                     GError                  **error)
{
  const char *path = g_array_index (self->shards, Shard, shard_index).path;
  g_autoptr(GString) name = g_string_new (NULL);
  g_autoptr(GString) dtype = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      const PlSafetensorsEntry *e = &g_array_index (entries, PlSafetensorsEntry, i);
      const DTypeInfo *dt = lookup_dtype (e->dtype, e->dtype_len);

      g_string_truncate (name, 0);
      g_string_append_len (name, e->name, e->name_len);
      if (dt == NULL)
        {
          g_string_truncate (dtype, 0);
          g_string_append_len (dtype, e->dtype, e->dtype_len);
          return unknown_dtype (error, path, name->str, dtype->str);
        }
      if (!add_entry (self, shard_index, name->str, dt, e->rank, e->shape, e->begin, e->end, ranges, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_header (PlCheckpointSafetensors  *self,
              guint                     shard_index,
              GError                  **error)
{
  Shard *shard = &g_array_index (self->shards, Shard, shard_index);
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (PlSafetensorsEntry));
  g_autofree char *header = NULL;
  const char *path = shard->path;
  GStatBuf st;
  guint8 len_bytes[8];
  guint64 header_len, file_size;

  if (fstat (shard->fd, &st) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  file_size = st.st_size;
  pl_checkpoint_add_file_bytes (PL_CHECKPOINT (self), file_size);
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
  if (!pl_input_file_check_stored (shard->fd, 8, header_len, path, "the safetensors header", error))
    return FALSE;
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

  shard->data_start = 8 + header_len;
  shard->data_size = file_size - shard->data_start;

  if (pl_safetensors_header_scan (header, header_len, entries))
    {
      if (!add_scanned_entries (self, shard_index, entries, ranges, error))
        return FALSE;
    }
  else if (!add_json_entries (self, shard_index, header, header_len, ranges, error))
    return FALSE;

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
      Shard shard = { -1, NULL, 0, 0, NULL };
      Shard *added;

      if ((shard.fd = pl_input_file_open (shards[i], NULL, error)) < 0)
        return NULL;
      shard.path = g_strdup (shards[i]);
      g_array_append_val (self->shards, shard);
      if (!parse_header (self, i, error))
        return NULL;
      /* Weights are used in place from the page cache (read_stored); where
       * the file cannot be mapped they are read instead. */
      added = &g_array_index (self->shards, Shard, i);
      added->map = g_mapped_file_new_from_fd (added->fd, FALSE, NULL);
    }

  if (pl_checkpoint_get_n_tensors (PL_CHECKPOINT (self)) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s contains no tensors", path);
      return NULL;
    }
  pl_checkpoint_set_path_and_format (PL_CHECKPOINT (self), path, format);
  return PL_CHECKPOINT (g_steal_pointer (&self));
}
