/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-pytorch-private.h"
#include "pl-error.h"
#include "pl-input-file.h"

/* Storages are read and converted in slabs of this size. */
#define SLAB_BYTES        ((gsize) 4 << 20)

G_DEFINE_FINAL_TYPE (PlCheckpointPytorch, pl_checkpoint_pytorch, PL_TYPE_CHECKPOINT)

static void
shard_clear (gpointer data)
{
  PlPytorchShard *shard = data;

  if (shard->fd >= 0)
    close (shard->fd);
  g_free (shard->path);
}

static void
pl_checkpoint_pytorch_finalize (GObject *object)
{
  PlCheckpointPytorch *self = PL_CHECKPOINT_PYTORCH (object);

  g_clear_pointer (&self->views, g_hash_table_unref);
  g_clear_pointer (&self->storages, g_array_unref);
  g_clear_pointer (&self->shards, g_array_unref);

  G_OBJECT_CLASS (pl_checkpoint_pytorch_parent_class)->finalize (object);
}

static gboolean
open_shard (PlCheckpointPytorch  *self,
            const char           *path,
            GError              **error)
{
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  PlPytorchShard shard = { -1, NULL, 0 };
  PlPytorchLoad load = { self, self->shards->len, path, by_key };
  GStatBuf st;
  guint8 head[4] = { 0 };

  if ((shard.fd = pl_input_file_open (path, &st, error)) < 0)
    return FALSE;
  shard.path = g_strdup (path);
  shard.size = st.st_size;
  g_array_append_val (self->shards, shard);
  if (shard.size >= sizeof head &&
      !pl_checkpoint_read_exact (shard.fd, head, sizeof head, 0, path, error))
    return FALSE;
  if (memcmp (head, "PK\x03\x04", 4) == 0)
    return pl_checkpoint_pytorch_open_zip (&load, error);
  return pl_checkpoint_pytorch_open_legacy (&load, error);
}

/* Rows [FIRST, FIRST + N) of a view, as float32. Each row of the matrix
 * view starts at its own element of the storage (BASE) and steps by the
 * last dimension's stride; the storage is read once over the span the rows
 * touch, a slab at a time, and each slab's elements copied where they go.
 * A contiguous block, what nearly every state dict holds, is one read. */
static PlMatrix *
pl_checkpoint_pytorch_read_rows (PlCheckpoint        *checkpoint,
                                 const PlTensorInfo  *info,
                                 guint64              first,
                                 guint64              n,
                                 GError             **error)
{
  PlCheckpointPytorch *self = PL_CHECKPOINT_PYTORCH (checkpoint);
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  const PlPytorchView *view = g_hash_table_lookup (self->views, entry);
  const PlPytorchStorage *storage = &g_array_index (self->storages, PlPytorchStorage, view->storage);
  const PlPytorchShard *shard = &g_array_index (self->shards, PlPytorchShard, storage->shard);
  g_autoptr(PlMatrix) matrix = NULL;
  g_autofree guint64 *base = NULL;
  g_autofree guint8 *slab = NULL;
  guint64 index[PL_TENSOR_MAX_RANK] = { 0 };
  guint64 rows, cols, step, lo, hi, rest;
  gsize elem = entry->elem_size;
  gsize slab_elems = SLAB_BYTES / elem;
  gboolean contiguous;
  guint lead = info->rank > 0 ? info->rank - 1 : 0;

  /* What a sparse file declares but does not store is refused before
   * memory is taken for it. */
  if (!pl_input_file_check_stored (shard->fd, storage->offset + view->offset * elem, view->extent * elem,
                                   shard->path, info->name, error))
    return NULL;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  matrix = pl_matrix_try_new (n, cols, error);
  if (matrix == NULL)
    {
      g_prefix_error (error, "%s: “%s”: ", shard->path, info->name);
      return NULL;
    }
  if (n == 0 || cols == 0)
    return g_steal_pointer (&matrix);

  /* The storage element each requested row starts at (row FIRST's index
   * over the leading dimensions, then counting up). */
  base = g_new (guint64, n);
  rest = first;
  for (guint d = lead; d-- > 0;)
    {
      index[d] = rest % info->shape[d];
      rest /= info->shape[d];
    }
  for (guint64 r = 0; r < n; r++)
    {
      base[r] = view->offset;
      for (guint d = 0; d < lead; d++)
        base[r] += index[d] * view->stride[d];
      for (guint d = lead; d-- > 0;)
        {
          if (++index[d] < info->shape[d])
            break;
          index[d] = 0;
        }
    }
  step = info->rank > 0 ? view->stride[info->rank - 1] : 0;

  contiguous = step == 1 || cols == 1;
  lo = hi = base[0];
  for (guint64 r = 0; r < n; r++)
    {
      contiguous = contiguous && base[r] == base[0] + r * cols;
      lo = MIN (lo, base[r]);
      hi = MAX (hi, base[r]);
    }
  /* Views were checked against their storage when listed: no overflow. */
  hi += (cols - 1) * step;

  if (contiguous)
    {
      guint64 total = n * cols;
      guint64 offset = storage->offset + base[0] * elem;

      if (entry->info.dtype == PL_DTYPE_F32 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
        {
          if (!pl_checkpoint_read_exact (shard->fd, matrix->data, total * 4, offset, shard->path, error))
            return NULL;
          return g_steal_pointer (&matrix);
        }
      slab = g_malloc (MIN (SLAB_BYTES, total * elem));
      for (guint64 done = 0; done < total;)
        {
          gsize count = MIN (total - done, slab_elems);

          if (!pl_checkpoint_read_exact (shard->fd, slab, count * elem, offset + done * elem, shard->path, error))
            return NULL;
          pl_checkpoint_convert_le (entry->info.dtype, slab, matrix->data + done, count);
          done += count;
        }
      return g_steal_pointer (&matrix);
    }

  slab = g_malloc (MIN (SLAB_BYTES, (hi - lo + 1) * elem));
  for (guint64 a = lo; a <= hi; a += slab_elems)
    {
      guint64 b = MIN (hi + 1, a + slab_elems);   /* the slab holds [a, b) */

      if (!pl_checkpoint_read_exact (shard->fd, slab, (b - a) * elem, storage->offset + a * elem, shard->path, error))
        return NULL;
      for (guint64 r = 0; r < n; r++)
        {
          float *dst = matrix->data + r * cols;
          guint64 c_first, c_last;

          if (step == 0)
            {
              if (base[r] >= a && base[r] < b)
                for (guint64 c = 0; c < cols; c++)
                  pl_checkpoint_convert_le (entry->info.dtype, slab + (base[r] - a) * elem, dst + c, 1);
              continue;
            }
          /* Columns c with a <= base + c * step < b. */
          if (base[r] + (cols - 1) * step < a || base[r] >= b)
            continue;
          c_first = base[r] >= a ? 0 : (a - base[r] + step - 1) / step;
          c_last = MIN (cols - 1, (b - 1 - base[r]) / step);
          if (step == 1)
            pl_checkpoint_convert_le (entry->info.dtype, slab + (base[r] + c_first - a) * elem, dst + c_first,
                                      c_last - c_first + 1);
          else
            for (guint64 c = c_first; c <= c_last; c++)
              pl_checkpoint_convert_le (entry->info.dtype, slab + (base[r] + c * step - a) * elem, dst + c, 1);
        }
    }
  return g_steal_pointer (&matrix);
}

/* TRUE when the view is its elements in row-major order, one after the
 * other (dimensions of size 1 take any stride). */
static gboolean
is_contiguous (const PlTensorInfo  *info,
               const PlPytorchView *view)
{
  guint64 expect = 1;

  for (guint d = info->rank; d-- > 0;)
    {
      if (info->shape[d] != 1 && view->stride[d] != expect)
        return FALSE;
      expect *= info->shape[d];
    }
  return TRUE;
}

/* The whole tensor in its stored precision when its bytes lie in order in
 * the file (what state dicts hold); other views are gathered as float32. */
static PlStoredMatrix *
pl_checkpoint_pytorch_read_stored (PlCheckpoint        *checkpoint,
                                   const PlTensorInfo  *info,
                                   GError             **error)
{
  PlCheckpointPytorch *self = PL_CHECKPOINT_PYTORCH (checkpoint);
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  const PlPytorchView *view = g_hash_table_lookup (self->views, entry);
  const PlPytorchStorage *storage = &g_array_index (self->storages, PlPytorchStorage, view->storage);
  const PlPytorchShard *shard = &g_array_index (self->shards, PlPytorchShard, storage->shard);
  g_autoptr(PlStoredMatrix) stored = NULL;
  g_autoptr(PlMatrix) m = NULL;
  PlStoredType type;
  guint64 rows, cols, offset;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (!is_contiguous (info, view))
    {
      if (!(m = pl_checkpoint_pytorch_read_rows (checkpoint, info, 0, rows, error)) ||
          !(stored = pl_stored_matrix_try_new (PL_STORED_F32, rows, cols, error)))
        return NULL;
      memcpy (stored->data, m->data, rows * cols * sizeof (float));
      return g_steal_pointer (&stored);
    }
  type = info->dtype == PL_DTYPE_F32 ? PL_STORED_F32 : info->dtype == PL_DTYPE_F16 ? PL_STORED_F16 : PL_STORED_BF16;
  offset = storage->offset + view->offset * entry->elem_size;
  if (!pl_input_file_check_stored (shard->fd, offset, rows * cols * entry->elem_size, shard->path, info->name, error))
    return NULL;
  if (!(stored = pl_stored_matrix_try_new (type, rows, cols, error)))
    {
      g_prefix_error (error, "%s: “%s”: ", shard->path, info->name);
      return NULL;
    }
  if (!pl_checkpoint_read_exact (shard->fd, stored->data, rows * cols * entry->elem_size, offset, shard->path, error))
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
pl_checkpoint_pytorch_class_init (PlCheckpointPytorchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PlCheckpointClass *checkpoint_class = PL_CHECKPOINT_CLASS (klass);

  object_class->finalize = pl_checkpoint_pytorch_finalize;
  checkpoint_class->read_rows = pl_checkpoint_pytorch_read_rows;
  checkpoint_class->read_stored = pl_checkpoint_pytorch_read_stored;
}

static void
pl_checkpoint_pytorch_init (PlCheckpointPytorch *self)
{
  self->shards = g_array_new (FALSE, TRUE, sizeof (PlPytorchShard));
  g_array_set_clear_func (self->shards, shard_clear);
  self->storages = g_array_new (FALSE, TRUE, sizeof (PlPytorchStorage));
  self->views = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

PlCheckpoint *
pl_checkpoint_pytorch_open (const char          *path,
                            const char * const  *shards,
                            GError             **error)
{
  g_autoptr(PlCheckpointPytorch) self = g_object_new (PL_TYPE_CHECKPOINT_PYTORCH, NULL);
  const char * const single[] = { path, NULL };

  for (guint i = 0; (shards ? shards : single)[i] != NULL; i++)
    if (!open_shard (self, (shards ? shards : single)[i], error))
      return NULL;
  pl_checkpoint_set_path_and_format (PL_CHECKPOINT (self), path, shards ? "pytorch-sharded" : "pytorch");
  return PL_CHECKPOINT (g_steal_pointer (&self));
}
