/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
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

static void
legacy_view_free (gpointer data)
{
  PlPytorchLegacyView *view = data;

  g_free (view->root);
  g_free (view);
}

static gboolean
open_shard (PlCheckpointPytorch  *self,
            const char           *path,
            GError              **error)
{
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  PlPytorchShard shard = { -1, NULL, 0 };
  g_autoptr(GHashTable) views_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, legacy_view_free);
  PlPytorchLoad load = { self, self->shards->len, path, FALSE, by_key, views_by_key, NULL };
  GStatBuf st;
  guint8 head[4] = { 0 };

  if ((shard.fd = pl_input_file_open (path, &st, error)) < 0)
    return FALSE;
  shard.path = g_strdup (path);
  shard.size = st.st_size;
  g_array_append_val (self->shards, shard);
  pl_checkpoint_add_file_bytes (PL_CHECKPOINT (self), shard.size);
  if (shard.size >= sizeof head &&
      !pl_checkpoint_read_exact (shard.fd, head, sizeof head, 0, path, error))
    return FALSE;
  if (memcmp (head, "PK\x03\x04", 4) == 0)
    return pl_checkpoint_pytorch_open_zip (&load, error);
  load.legacy = TRUE;
  return pl_checkpoint_pytorch_open_legacy (&load, error);
}

/* Where a row of a view starts in its storage, for sorting rows by it. */
typedef struct
{
  guint64 base;
  guint64 row;
} RowStart;

static int
compare_row_starts (gconstpointer a,
                    gconstpointer b)
{
  const RowStart *x = a, *y = b;

  return x->base < y->base ? -1 : x->base > y->base;
}

/* The columns c of a row starting at BASE, stepping by STEP, whose element
 * BASE + c * STEP lies in [A, B): FALSE when there are none. */
static gboolean
columns_in (guint64  base,
            guint64  step,
            guint64  cols,
            guint64  a,
            guint64  b,
            guint64 *c_first,
            guint64 *c_last)
{
  if (base >= b || base + (cols - 1) * step < a)
    return FALSE;
  if (step == 0)
    {
      *c_first = 0;
      *c_last = cols - 1;
      return TRUE;
    }
  *c_first = base >= a ? 0 : (a - base + step - 1) / step;
  *c_last = MIN (cols - 1, (b - 1 - base) / step);
  return *c_first <= *c_last;
}

/* Any view: the storage elements [LO, HI] the rows touch are taken a slab
 * of SLAB_BYTES at a time; in each slab, only the rows that reach into it
 * (found among the rows sorted by their start) are visited, and only the
 * elements they need read. Work: the elements copied, plus a visit per row
 * and slab it spans. */
static gboolean
gather_rows (const PlPytorchShard  *shard,
             guint64                storage_offset,
             PlDType                dtype,
             gsize                  elem,
             const guint64         *base,
             guint64                n,
             guint64                cols,
             guint64                step,
             guint64                lo,
             guint64                hi,
             float                 *out,
             GError               **error)
{
  g_autofree RowStart *starts = g_new (RowStart, n);
  g_autofree guint8 *slab = g_malloc (MIN (SLAB_BYTES, (hi - lo + 1) * elem));
  guint64 slab_elems = SLAB_BYTES / elem;
  guint64 span = (cols - 1) * step;

  for (guint64 r = 0; r < n; r++)
    {
      starts[r].base = base[r];
      starts[r].row = r;
    }
  qsort (starts, n, sizeof *starts, compare_row_starts);

  for (guint64 a = lo; a <= hi; a += slab_elems)
    {
      guint64 b = MIN (hi + 1, a + slab_elems);   /* the slab covers [a, b) */
      guint64 reach = a > span ? a - span : 0;     /* rows starting before this end before a */
      guint64 need_lo = G_MAXUINT64, need_hi = 0;
      guint64 first = 0, count = n;
      guint64 c_first, c_last;

      /* The first row that starts at REACH or later. */
      while (count > 0)
        {
          guint64 half = count / 2;

          if (starts[first + half].base < reach)
            {
              first += half + 1;
              count -= half + 1;
            }
          else
            count = half;
        }
      for (guint64 i = first; i < n && starts[i].base < b; i++)
        if (columns_in (starts[i].base, step, cols, a, b, &c_first, &c_last))
          {
            need_lo = MIN (need_lo, starts[i].base + c_first * step);
            need_hi = MAX (need_hi, starts[i].base + c_last * step);
          }
      if (need_lo > need_hi)
        continue;
      if (!pl_checkpoint_read_exact (shard->fd, slab, (need_hi - need_lo + 1) * elem, storage_offset + need_lo * elem,
                                     shard->path, error))
        return FALSE;
      for (guint64 i = first; i < n && starts[i].base < b; i++)
        {
          float *dst = out + starts[i].row * cols;
          guint64 start = starts[i].base;

          if (!columns_in (start, step, cols, a, b, &c_first, &c_last))
            continue;
          if (step == 1)
            pl_checkpoint_convert_le (dtype, slab + (start + c_first - need_lo) * elem, dst + c_first,
                                      c_last - c_first + 1);
          else if (step == 0)
            {
              /* An expanded row: one stored element, converted once. */
              pl_checkpoint_convert_le (dtype, slab + (start - need_lo) * elem, dst + c_first, 1);
              for (guint64 c = c_first + 1; c <= c_last; c++)
                dst[c] = dst[c_first];
            }
          else
            for (guint64 c = c_first; c <= c_last; c++)
              pl_checkpoint_convert_le (dtype, slab + (start + c * step - need_lo) * elem, dst + c, 1);
        }
    }
  return TRUE;
}

/* Rows [FIRST, FIRST + N) of a view, as float32. Each row of the matrix
 * view starts at its own element of the storage (BASE) and steps by the
 * last dimension's stride. A contiguous block, what nearly every state dict
 * holds, is one read; any other view is gathered. */
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

  if (!gather_rows (shard, storage->offset, entry->info.dtype, elem, base, n, cols, step, lo, hi, matrix->data, error))
    return NULL;
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
  offset = storage->offset + view->offset * entry->elem_size;
  return pl_checkpoint_read_stored_at (shard->fd, shard->path, info, offset, error);
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
