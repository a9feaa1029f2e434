/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-gguf.h"
#include "pl-checkpoint-private.h"
#include "pl-error.h"
#include "pl-input-file.h"

/* Converted to float32 this many rows' bytes at a time. */
#define CHUNK_BYTES ((gsize) 4 << 20)

struct _PlCheckpointGguf
{
  PlCheckpoint   parent_instance;
  int            fd;
  char          *path;
  GMappedFile   *mapped;
  PlGgufHeader  *header;
};

G_DEFINE_FINAL_TYPE (PlCheckpointGguf, pl_checkpoint_gguf, PL_TYPE_CHECKPOINT)

static void
pl_checkpoint_gguf_finalize (GObject *object)
{
  PlCheckpointGguf *self = PL_CHECKPOINT_GGUF (object);

  g_clear_pointer (&self->header, pl_gguf_header_free);
  g_clear_pointer (&self->mapped, g_mapped_file_unref);
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->path);

  G_OBJECT_CLASS (pl_checkpoint_gguf_parent_class)->finalize (object);
}

/* The tensor info of INFO: its entry keeps the index in SHARD. */
static const PlGgufTensor *
tensor_of (PlCheckpointGguf   *self,
           const PlTensorInfo *info)
{
  return pl_gguf_header_get_tensor (self->header, ((const PlTensorEntry *) info)->shard);
}

guint32
pl_checkpoint_gguf_tensor_type (PlCheckpointGguf   *self,
                                const PlTensorInfo *info)
{
  g_return_val_if_fail (PL_IS_CHECKPOINT_GGUF (self), 0);
  return tensor_of (self, info)->ggml_type;
}

const PlGgufHeader *
pl_checkpoint_gguf_get_header (PlCheckpointGguf *self)
{
  g_return_val_if_fail (PL_IS_CHECKPOINT_GGUF (self), NULL);
  return self->header;
}

/* The bytes of rows [FIRST, FIRST + N) of INFO in the mapping, checked
 * against what the file stores. */
static const guint8 *
rows_bytes (PlCheckpointGguf    *self,
            const PlTensorInfo  *info,
            guint64              first,
            guint64              n,
            PlStoredType        *type,
            GError             **error)
{
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  guint64 rows, cols, row_bytes, offset;

  pl_gguf_type_is_readable (tensor_of (self, info)->ggml_type, type, NULL);
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  row_bytes = rows > 0 ? entry->nbytes / rows : 0;
  offset = entry->offset + first * row_bytes;
  if (!pl_input_file_check_stored (self->fd, offset, n * row_bytes, self->path, info->name, error))
    return NULL;
  return (const guint8 *) g_mapped_file_get_contents (self->mapped) + offset;
}

static PlMatrix *
pl_checkpoint_gguf_read_rows (PlCheckpoint        *checkpoint,
                              const PlTensorInfo  *info,
                              guint64              first,
                              guint64              n,
                              GError             **error)
{
  PlCheckpointGguf *self = PL_CHECKPOINT_GGUF (checkpoint);
  g_autoptr(PlMatrix) matrix = NULL;
  const guint8 *bytes;
  PlStoredType type;
  guint64 rows, cols, row_bytes, step;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (!(bytes = rows_bytes (self, info, first, n, &type, error)))
    return NULL;
  if (!(matrix = pl_matrix_try_new (n, cols, error)))
    {
      g_prefix_error (error, "%s: “%s”: ", self->path, info->name);
      return NULL;
    }
  if (n == 0 || cols == 0)
    return g_steal_pointer (&matrix);
  row_bytes = ((const PlTensorEntry *) info)->nbytes / rows;
  step = MAX (CHUNK_BYTES / MAX (row_bytes, 1), 1);
  for (guint64 r = 0; r < n; r += step)
    {
      guint64 count = MIN (step, n - r);

      if (info->dtype == PL_DTYPE_F64)
        pl_checkpoint_convert_le (PL_DTYPE_F64, bytes + r * row_bytes, matrix->data + r * cols, count * cols);
      else
        pl_stored_convert (type, bytes + r * row_bytes, matrix->data + r * cols, count * cols);
    }
  return g_steal_pointer (&matrix);
}

static PlStoredMatrix *
pl_checkpoint_gguf_read_stored (PlCheckpoint        *checkpoint,
                                const PlTensorInfo  *info,
                                GError             **error)
{
  PlCheckpointGguf *self = PL_CHECKPOINT_GGUF (checkpoint);
  const guint8 *bytes;
  PlStoredType type;
  guint64 rows, cols;
  gsize nbytes = ((const PlTensorEntry *) info)->nbytes;
  PlStoredMatrix *copy;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (!(bytes = rows_bytes (self, info, 0, rows, &type, error)))
    return NULL;
  /* The mapped bytes are lent as they are, unless an element type is not
   * aligned for its loads (general.alignment below 4). */
  if (pl_stored_type_is_blocks (type) || (guintptr) bytes % pl_stored_type_size (type) == 0)
    return pl_stored_matrix_new_borrowed (type, rows, cols, bytes, g_mapped_file_ref (self->mapped),
                                          (GDestroyNotify) g_mapped_file_unref);
  if (!(copy = pl_stored_matrix_try_new (type, rows, cols, error)))
    {
      g_prefix_error (error, "%s: “%s”: ", self->path, info->name);
      return NULL;
    }
  memcpy (copy->data, bytes, nbytes);
  return copy;
}

static void
pl_checkpoint_gguf_class_init (PlCheckpointGgufClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PlCheckpointClass *checkpoint_class = PL_CHECKPOINT_CLASS (klass);

  object_class->finalize = pl_checkpoint_gguf_finalize;
  checkpoint_class->read_rows = pl_checkpoint_gguf_read_rows;
  checkpoint_class->read_stored = pl_checkpoint_gguf_read_stored;
}

static void
pl_checkpoint_gguf_init (PlCheckpointGguf *self)
{
  self->fd = -1;
}

/* Lists tensor I of the header, shape reversed, refused when Poslens does
 * not read its type. */
static gboolean
add_tensor (PlCheckpointGguf  *self,
            guint              i,
            GError           **error)
{
  const PlGgufTensor *t = pl_gguf_header_get_tensor (self->header, i);
  guint64 shape[PL_TENSOR_MAX_RANK];
  PlTensorEntry *entry;
  PlDType dtype = PL_DTYPE_OTHER;
  const char *type_name = pl_gguf_type_name (t->ggml_type);

  for (guint d = 0; d < t->rank; d++)
    shape[d] = t->dims[t->rank - 1 - d];
  pl_gguf_type_is_readable (t->ggml_type, NULL, &dtype);
  entry = pl_checkpoint_add_tensor (PL_CHECKPOINT (self), t->name, t->rank, shape, dtype, type_name);
  g_assert (entry != NULL);   /* names were checked unique */
  entry->shard = i;
  entry->offset = pl_gguf_header_get_data_offset (self->header) + t->offset;
  entry->nbytes = t->nbytes;
  if (dtype == PL_DTYPE_OTHER)
    entry->refusal = g_strdup_printf ("has the ggml type %s, which Poslens does not read (it reads %s)",
                                      type_name, pl_gguf_readable_types ());
  return TRUE;
}

PlCheckpoint *
pl_checkpoint_gguf_open (const char  *path,
                         GError     **error)
{
  g_autoptr(PlCheckpointGguf) self = g_object_new (PL_TYPE_CHECKPOINT_GGUF, NULL);
  g_autoptr(GError) local_error = NULL;
  GStatBuf st;

#if G_BYTE_ORDER == G_BIG_ENDIAN
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
               "%s: GGUF files are read on little-endian machines only", path);
  return NULL;
#endif
  self->path = g_strdup (path);
  if ((self->fd = pl_input_file_open (path, &st, error)) < 0)
    return NULL;
  if (!(self->mapped = g_mapped_file_new_from_fd (self->fd, FALSE, &local_error)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, local_error->message);
      return NULL;
    }
  if (!(self->header = pl_gguf_header_parse ((const guint8 *) g_mapped_file_get_contents (self->mapped),
                                             g_mapped_file_get_length (self->mapped), path, error)))
    return NULL;
  /* The header was read from the mapping; a sparse file's holes there read
   * as zeros, which it is refused for now. */
  if (!pl_input_file_check_stored (self->fd, 0, MIN (pl_gguf_header_get_data_offset (self->header),
                                                     (guint64) g_mapped_file_get_length (self->mapped)),
                                   path, "the GGUF header", error))
    return NULL;
  if (pl_gguf_header_get_n_tensors (self->header) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s contains no tensors (a GGUF file of a vocabulary only?)", path);
      return NULL;
    }
  for (guint i = 0; i < pl_gguf_header_get_n_tensors (self->header); i++)
    if (!add_tensor (self, i, error))
      return NULL;
  pl_checkpoint_set_path_and_format (PL_CHECKPOINT (self), path, "gguf");
  return PL_CHECKPOINT (g_steal_pointer (&self));
}
