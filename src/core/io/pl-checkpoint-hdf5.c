/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-hdf5.h"
#include "pl-checkpoint-private.h"
#include "pl-error.h"
#include "pl-hdf5.h"
#include "pl-input-file.h"

/* Limits that keep a hostile file from making a listing slow. */
#define MAX_DEPTH   64
#define MAX_OBJECTS 50000
/* HDF5 inflates a whole chunk to read any of it. */
#define MAX_CHUNK_BYTES ((guint64) 1 << 30)
/* A read this small costs nothing, whatever the dataset stores. */
#define SMALL_READ_BYTES ((guint64) 1 << 20)

struct _PlCheckpointHdf5
{
  PlCheckpoint  parent_instance;
  GArray       *files;       /* hid_t, one per shard */
  GArray       *fds;         /* int, the same files, for what they store */
  GPtrArray    *file_paths;  /* char *, for messages */
  char         *link_skipped; /* the first link not followed, for messages */
};

G_DEFINE_FINAL_TYPE (PlCheckpointHdf5, pl_checkpoint_hdf5, PL_TYPE_CHECKPOINT)

typedef struct
{
  PlCheckpointHdf5 *self;
  guint             shard;
  const char       *file_path;
  GHashTable       *visited;       /* object addresses, against hard-link cycles */
  GString          *path;
  guint             depth;
  guint             n_objects;
  guint             n_links_skipped;
  char             *first_link_skipped;
  gboolean          skip_optimizer;
  GError           *error;
} Walk;

static void
describe_type (hid_t     type,
               PlDType  *dtype,
               char    **name,
               guint    *elem_size)
{
  H5T_class_t klass = H5Tget_class (type);
  gsize size = H5Tget_size (type);

  *elem_size = size;
  if (klass == H5T_FLOAT)
    {
      size_t spos, epos, esize, mpos, msize;

      H5Tget_fields (type, &spos, &epos, &esize, &mpos, &msize);
      /* Named by their bit layout: HDF5 has no predefined half types. */
      if (size == 4 && esize == 8 && msize == 23)
        *dtype = PL_DTYPE_F32;
      else if (size == 8 && esize == 11 && msize == 52)
        *dtype = PL_DTYPE_F64;
      else if (size == 2 && esize == 5 && msize == 10)
        *dtype = PL_DTYPE_F16;
      else if (size == 2 && esize == 8 && msize == 7)
        *dtype = PL_DTYPE_BF16;
      else
        *dtype = PL_DTYPE_OTHER;

      switch (*dtype)
        {
        case PL_DTYPE_F32:
          *name = g_strdup ("float32");
          break;
        case PL_DTYPE_F64:
          *name = g_strdup ("float64");
          break;
        case PL_DTYPE_F16:
          *name = g_strdup ("float16");
          break;
        case PL_DTYPE_BF16:
          *name = g_strdup ("bfloat16");
          break;
        case PL_DTYPE_OTHER:
        default:
          *name = g_strdup_printf ("float (%" G_GSIZE_FORMAT " bytes, unusual layout)", size);
          break;
        }
    }
  else if (klass == H5T_INTEGER)
    {
      *dtype = PL_DTYPE_OTHER;
      *name = g_strdup_printf ("%sint%" G_GSIZE_FORMAT,
                               H5Tget_sign (type) == H5T_SGN_NONE ? "u" : "", size * 8);
    }
  else
    {
      static const char * const names[] = {
        "integer", "float", "time", "string", "bitfield", "opaque",
        "compound", "reference", "enum", "variable-length", "array",
      };

      *dtype = PL_DTYPE_OTHER;
      *name = g_strdup (klass >= 0 && klass < (int) G_N_ELEMENTS (names) ? names[klass] : "unknown type");
    }
}

static void
add_dataset (Walk  *walk,
             hid_t  dataset)
{
  hid_t space = H5Dget_space (dataset);
  hid_t type = H5Dget_type (dataset);
  hsize_t dims[H5S_MAX_RANK] = { 0 };
  guint64 shape[PL_TENSOR_MAX_RANK] = { 0 };
  g_autofree char *dtype_name = NULL;
  PlTensorEntry *entry;
  PlDType dtype = PL_DTYPE_OTHER;
  guint elem_size = 0;
  int rank = -1;
  guint64 count = 1;
  gboolean overflow = FALSE;

  if (space >= 0)
    rank = H5Sget_simple_extent_ndims (space);
  if (rank < 0 || type < 0)
    goto out;
  H5Sget_simple_extent_dims (space, dims, NULL);
  /* A NULL dataspace holds no elements at all: listed as empty. */
  if (H5Sget_simple_extent_type (space) == H5S_NULL)
    {
      rank = 1;
      dims[0] = 0;
    }
  describe_type (type, &dtype, &dtype_name, &elem_size);
  if (rank > PL_TENSOR_MAX_RANK)
    {
      /* Listed so the user sees it, but never read. */
      g_free (dtype_name);
      dtype_name = g_strdup_printf ("%d-D array", rank);
      dtype = PL_DTYPE_OTHER;
      rank = 0;
    }
  for (int i = 0; i < rank; i++)
    {
      shape[i] = dims[i];
      if (dims[i] != 0 && count > G_MAXUINT64 / dims[i])
        overflow = TRUE;
      else
        count *= dims[i];
    }

  entry = pl_checkpoint_add_tensor (PL_CHECKPOINT (walk->self), walk->path->str, rank, shape,
                                    dtype, dtype_name);
  if (entry == NULL)
    goto out;
  entry->shard = walk->shard;
  entry->elem_size = elem_size;
  if (overflow || (elem_size > 0 && count > G_MAXUINT64 / elem_size))
    entry->refusal = g_strdup ("declares more elements than can be counted");
  else
    entry->nbytes = count * elem_size;

out:
  if (type >= 0)
    H5Tclose (type);
  if (space >= 0)
    H5Sclose (space);
}

static herr_t walk_group (hid_t group, Walk *walk);

static herr_t
visit_link (hid_t              group,
            const char        *name,
            const H5L_info_t  *info,
            void              *data)
{
  Walk *walk = data;
  gsize saved_len = walk->path->len;
  hid_t object;
  herr_t ret = 0;

  if (walk->n_objects++ >= MAX_OBJECTS)
    {
      g_set_error (&walk->error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s holds more than %d objects", walk->file_path, MAX_OBJECTS);
      return -1;
    }

  if (walk->path->len == 0 || walk->path->str[walk->path->len - 1] != '/')
    g_string_append_c (walk->path, '/');
  g_string_append (walk->path, name);

  /* Soft, external and user-defined links may point anywhere (another file,
   * a cycle): only hard links are followed. */
  if (info->type != H5L_TYPE_HARD)
    {
      if (walk->first_link_skipped == NULL)
        walk->first_link_skipped = g_strdup_printf ("%s (%s link)", walk->path->str,
                                                     info->type == H5L_TYPE_SOFT ? "soft" :
                                                     info->type == H5L_TYPE_EXTERNAL ? "external" :
                                                     "user-defined");
      walk->n_links_skipped++;
      goto out;
    }

  if (walk->depth == 0 && walk->skip_optimizer && strcmp (name, "optimizer_weights") == 0)
    goto out;

  if (g_hash_table_contains (walk->visited, &info->u.address))
    goto out;
  g_hash_table_add (walk->visited, g_memdup2 (&info->u.address, sizeof info->u.address));

  /* One open tells a group from a dataset; the link is hard, so this
   * stays inside the file. */
  object = H5Oopen (group, name, pl_hdf5_link_access ());
  if (object < 0)
    {
      pl_hdf5_set_error (&walk->error, PL_ERROR_CORRUPT, walk->file_path,
                         "cannot open object %s", walk->path->str);
      ret = -1;
      goto out;
    }

  switch (H5Iget_type (object))
    {
    case H5I_GROUP:
      if (walk->depth < MAX_DEPTH)
        {
          walk->depth++;
          ret = walk_group (object, walk);
          walk->depth--;
        }
      break;
    case H5I_DATASET:
      add_dataset (walk, object);
      break;
    default:
      break;
    }
  H5Oclose (object);

out:
  g_string_truncate (walk->path, saved_len);
  return ret;
}

static herr_t
walk_group (hid_t  group,
            Walk  *walk)
{
  hsize_t idx = 0;
  herr_t ret;

  ret = H5Literate (group, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, visit_link, walk);
  if (ret < 0 && walk->error == NULL)
    pl_hdf5_set_error (&walk->error, PL_ERROR_CORRUPT, walk->file_path,
                       "cannot list the group %s", walk->path->len ? walk->path->str : "/");
  return ret;
}

static gboolean
has_root_attribute (hid_t       file,
                    const char *name)
{
  return H5Aexists_by_name (file, "/", name, pl_hdf5_link_access ()) > 0;
}

static gboolean
has_root_group (hid_t       file,
                const char *name)
{
  return H5Lexists (file, name, pl_hdf5_link_access ()) > 0;
}

/* A scalar string or integer attribute of the root as text, or NULL when it
 * is absent, of another kind, or longer than MAX_ATTRIBUTE_BYTES. */
#define MAX_ATTRIBUTE_BYTES (16 << 20)

static char *
read_root_attribute (hid_t       file,
                     const char *name)
{
  hid_t attr, type = -1, space = -1;
  char *value = NULL;

  if (!has_root_attribute (file, name) ||
      (attr = H5Aopen_by_name (file, "/", name, H5P_DEFAULT, H5P_DEFAULT)) < 0)
    return NULL;
  if ((type = H5Aget_type (attr)) >= 0 && (space = H5Aget_space (attr)) >= 0 &&
      H5Sget_simple_extent_type (space) == H5S_SCALAR)
    {
      H5T_class_t klass = H5Tget_class (type);

      if (klass == H5T_INTEGER)
        {
          gint64 v;

          if (H5Aread (attr, H5T_NATIVE_INT64, &v) >= 0)
            value = g_strdup_printf ("%" G_GINT64_FORMAT, v);
        }
      else if (klass == H5T_STRING && H5Tis_variable_str (type) > 0)
        {
          hid_t memory = H5Tcopy (H5T_C_S1);
          char *text = NULL;

          H5Tset_size (memory, H5T_VARIABLE);
          H5Tset_cset (memory, H5Tget_cset (type));
          if (H5Aread (attr, memory, &text) >= 0 && text != NULL)
            {
              if (strlen (text) <= MAX_ATTRIBUTE_BYTES)
                value = g_strdup (text);
              H5free_memory (text);
            }
          H5Tclose (memory);
        }
      else if (klass == H5T_STRING && H5Tget_size (type) <= MAX_ATTRIBUTE_BYTES)
        {
          gsize size = H5Tget_size (type);
          hid_t memory = H5Tcopy (H5T_C_S1);
          g_autofree char *text = g_malloc0 (size + 1);

          H5Tset_size (memory, size + 1);
          if (H5Aread (attr, memory, text) >= 0)
            value = g_strdup (text);
          H5Tclose (memory);
        }
    }
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (attr);
  return value;
}

/* An activations file (README, "Activations files"): what it says about
 * itself, and its configuration, kept with the checkpoint. */
static const char * const activations_attributes[] = {
  "format", "format_version", "model_name", "writer", "causal", "hidden_size",
};

static gboolean
read_activations_attributes (PlCheckpointHdf5  *self,
                             hid_t              file,
                             const char        *path,
                             GError           **error)
{
  g_autofree char *config = NULL;
  g_autofree char *what = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (activations_attributes); i++)
    {
      g_autofree char *value = read_root_attribute (file, activations_attributes[i]);

      if (value != NULL)
        pl_checkpoint_set_attribute (PL_CHECKPOINT (self), activations_attributes[i], value);
    }
  if (!(config = read_root_attribute (file, "config")))
    return TRUE;
  what = g_strdup_printf ("%s: the attribute config", path);
  return pl_checkpoint_set_config_text (PL_CHECKPOINT (self), config, what, error);
}

static void
pl_checkpoint_hdf5_finalize (GObject *object)
{
  PlCheckpointHdf5 *self = PL_CHECKPOINT_HDF5 (object);

  if (self->files != NULL)
    {
      pl_hdf5_lock ();
      for (guint i = 0; i < self->files->len; i++)
        H5Fclose (g_array_index (self->files, hid_t, i));
      pl_hdf5_unlock ();
      g_clear_pointer (&self->files, g_array_unref);
    }
  if (self->fds != NULL)
    {
      for (guint i = 0; i < self->fds->len; i++)
        close (g_array_index (self->fds, int, i));
      g_clear_pointer (&self->fds, g_array_unref);
    }
  g_clear_pointer (&self->file_paths, g_ptr_array_unref);
  g_clear_pointer (&self->link_skipped, g_free);

  G_OBJECT_CLASS (pl_checkpoint_hdf5_parent_class)->finalize (object);
}

/* Whether DATASET holds the bytes a read of rows [FIRST, FIRST + N) takes,
 * checked before memory is taken for them. Checked when reading rather than
 * when listing: copying every dataset's creation properties made opening a
 * large checkpoint twice as slow. */
static gboolean
check_storage (PlCheckpointHdf5     *self,
               const PlTensorEntry  *entry,
               hid_t                 dataset,
               guint64               first,
               guint64               n,
               GError              **error)
{
  const PlTensorInfo *info = &entry->info;
  const char *file_path = g_ptr_array_index (self->file_paths, entry->shard);
  hid_t dcpl = H5Dget_create_plist (dataset);
  H5D_layout_t layout;
  guint64 rows, cols, needed, read_bytes, stored;
  haddr_t address;
  gboolean ok = FALSE;

  if (dcpl < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot tell how “%s” is stored", info->name);
      return FALSE;
    }
  layout = H5Pget_layout (dcpl);
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);

  if (layout == H5D_VIRTUAL || H5Pget_external_count (dcpl) > 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” %s; Poslens reads only inside the opened file", file_path, info->name,
                   layout == H5D_VIRTUAL ? "is a virtual dataset made of other files"
                                         : "keeps its data in external files");
      goto out;
    }
  if (layout == H5D_CHUNKED)
    {
      hsize_t chunk[H5S_MAX_RANK];
      int chunk_rank = H5Pget_chunk (dcpl, H5S_MAX_RANK, chunk);
      guint64 chunk_bytes = MAX (entry->elem_size, 1);

      for (int i = 0; i < chunk_rank; i++)
        chunk_bytes = chunk[i] > MAX_CHUNK_BYTES ? MAX_CHUNK_BYTES + 1
                      : MIN (chunk_bytes * chunk[i], MAX_CHUNK_BYTES + 1);
      if (chunk_bytes > MAX_CHUNK_BYTES)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                       "%s: “%s” is stored in chunks of more than 1 GiB, which would all be inflated to read a row",
                       file_path, info->name);
          goto out;
        }
    }
  /* Element counts that overflow were refused when listing. */
  if (entry->elem_size == 0 || !g_uint64_checked_mul (&needed, rows, cols) ||
      !g_uint64_checked_mul (&needed, needed, entry->elem_size) || needed == 0)
    {
      ok = TRUE;
      goto out;
    }
  read_bytes = n * cols * entry->elem_size;
  stored = H5Dget_storage_size (dataset);

  if (stored == 0 && layout != H5D_COMPACT)
    {
      /* Valid HDF5 (storage is allocated when first written), but there is
       * nothing to read: only fill values. */
      g_autofree char *size = g_format_size_full (needed, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: “%s” was never written: the file gives it a shape (%s) but no data",
                   file_path, info->name, size);
      goto out;
    }
  /* A compact or contiguous dataset holds all of its bytes in place; one
   * that holds fewer is damaged, and libhdf5 1.10 reads through a NULL
   * buffer for a compact one that holds none
   * (tests/fuzz/regressions/hdf5/compact-without-data). */
  if ((layout == H5D_COMPACT || layout == H5D_CONTIGUOUS) && stored < needed)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” is damaged: it stores %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
                   " bytes its shape needs", file_path, info->name, stored, needed);
      goto out;
    }
  /* Chunks never written read as the fill value: a few written chunks must
   * not stand for gigabytes. Compressed chunks hold less than they inflate
   * to, so only plain ones are counted. */
  if (layout == H5D_CHUNKED && H5Pget_nfilters (dcpl) == 0 && read_bytes > SMALL_READ_BYTES &&
      stored < needed / 2)
    {
      g_autofree char *declared = g_format_size_full (needed, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *held = g_format_size_full (stored, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: “%s” declares %s but stores only %s of them: most of it was never written",
                   file_path, info->name, declared, held);
      goto out;
    }
  /* Contiguous bytes in a hole of a sparse file read as zeros the disk
   * never held. */
  if (layout == H5D_CONTIGUOUS && (address = H5Dget_offset (dataset)) != HADDR_UNDEF &&
      !pl_input_file_check_stored (g_array_index (self->fds, int, entry->shard),
                                   address + first * cols * entry->elem_size, read_bytes,
                                   file_path, info->name, error))
    goto out;
  ok = TRUE;

out:
  H5Pclose (dcpl);
  return ok;
}

/* Rows [FIRST, FIRST + N) of INFO viewed as a matrix (rows counted over
 * every dimension but the last) as one hyperslab START, COUNT: FALSE when
 * they are not one box of the tensor. Dimension D holds BLOCK rows per
 * entry; the box spans whole entries of the dimensions after the highest D
 * whose entries the rows start and end on, and a run of D's entries. */
static gboolean
row_box (const PlTensorInfo *info,
         guint64             first,
         guint64             n,
         hsize_t            *start,
         hsize_t            *count)
{
  guint last = info->rank - 2;   /* the dimension of single rows */
  guint64 block = 1, rest = first;
  int top = -1;

  if (n == 0)
    return FALSE;
  /* The highest dimension whose entries the rows fill whole. */
  for (int d = last; d >= 0; d--)
    {
      if (first % block != 0 || n % block != 0 ||
          (first / block) % info->shape[d] + n / block > info->shape[d])
        break;
      top = d;
      block *= info->shape[d];
    }
  if (top < 0)
    return FALSE;
  block = 1;
  for (int d = last; d > top; d--)
    block *= info->shape[d];
  for (int d = last; d >= 0; d--)
    {
      start[d] = rest % info->shape[d];
      rest /= info->shape[d];
      count[d] = d > top ? info->shape[d] : 1;
    }
  count[top] = n / block;
  count[info->rank - 1] = info->shape[info->rank - 1];
  return TRUE;
}

static PlMatrix *
pl_checkpoint_hdf5_read_rows (PlCheckpoint        *checkpoint,
                              const PlTensorInfo  *info,
                              guint64              first,
                              guint64              n,
                              GError             **error)
{
  PlCheckpointHdf5 *self = PL_CHECKPOINT_HDF5 (checkpoint);
  const PlTensorEntry *entry = (const PlTensorEntry *) info;
  const char *file_path = g_ptr_array_index (self->file_paths, entry->shard);
  g_autoptr(PlMatrix) matrix = NULL;
  hid_t file = g_array_index (self->files, hid_t, entry->shard);
  hid_t dataset = H5I_INVALID_HID, file_space = H5I_INVALID_HID, mem_space = H5I_INVALID_HID;
  hsize_t start[PL_TENSOR_MAX_RANK] = { 0 };
  hsize_t count[PL_TENSOR_MAX_RANK] = { 0 };
  guint64 rows, cols;
  gboolean ok = FALSE;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  /* Beyond two dimensions, rows that make one box of the tensor: one row
   * (a look at the data), whole entries of leading dimensions (a layer of
   * [layers, T, hidden]), or all of them. */
  if (info->rank >= 2 && n != rows && !row_box (info, first, n, start, count))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” is %u-D; rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                   " do not make one block of it", file_path, info->name, info->rank, first, first + n - 1);
      return NULL;
    }

  pl_hdf5_lock ();

  dataset = H5Dopen2 (file, info->name, pl_hdf5_dataset_access ());
  if (dataset < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot open “%s”", info->name);
      goto out;
    }
  if (!check_storage (self, entry, dataset, first, n, error))
    goto out;
  /* Allocated only once the storage is known to be readable. */
  matrix = pl_matrix_try_new (n, cols, error);
  if (matrix == NULL)
    {
      g_prefix_error (error, "%s: “%s”: ", file_path, info->name);
      goto out;
    }
  if (n == 0 || cols == 0)
    {
      ok = TRUE;
      goto out;
    }
  file_space = H5Dget_space (dataset);
  if (file_space < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot read the shape of “%s”", info->name);
      goto out;
    }
  if (info->rank >= 2 && n != rows)
    {
      /* Only the rows asked for: a hyperslab, not the whole table. */
      if (H5Sselect_hyperslab (file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
        {
          pl_hdf5_set_error (error, PL_ERROR_FAILED, file_path, "cannot select rows of “%s”", info->name);
          goto out;
        }
    }
  {
    hsize_t mem_dims[1] = { n * cols };

    mem_space = H5Screate_simple (1, mem_dims, NULL);
  }
  if (H5Dread (dataset, H5T_NATIVE_FLOAT, mem_space, file_space, H5P_DEFAULT, matrix->data) < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot read “%s”", info->name);
      goto out;
    }
  ok = TRUE;

out:
  if (mem_space >= 0)
    H5Sclose (mem_space);
  if (file_space >= 0)
    H5Sclose (file_space);
  if (dataset >= 0)
    H5Dclose (dataset);
  H5Eclear2 (H5E_DEFAULT);
  pl_hdf5_unlock ();

  return ok ? g_steal_pointer (&matrix) : NULL;
}

static void
pl_checkpoint_hdf5_class_init (PlCheckpointHdf5Class *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PlCheckpointClass *checkpoint_class = PL_CHECKPOINT_CLASS (klass);

  object_class->finalize = pl_checkpoint_hdf5_finalize;
  checkpoint_class->read_rows = pl_checkpoint_hdf5_read_rows;
}

static void
pl_checkpoint_hdf5_init (PlCheckpointHdf5 *self)
{
  self->files = g_array_new (FALSE, FALSE, sizeof (hid_t));
  self->fds = g_array_new (FALSE, FALSE, sizeof (int));
  self->file_paths = g_ptr_array_new_with_free_func (g_free);
}

static gboolean
list_file (PlCheckpointHdf5  *self,
           guint              shard,
           const char        *file_path,
           hid_t              file,
           gboolean           keras_full,
           GError           **error)
{
  g_autoptr(GHashTable) visited = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GString) path = g_string_new ("");
  Walk walk = { 0 };
  hid_t root;
  herr_t ret;

  G_STATIC_ASSERT (sizeof (haddr_t) == sizeof (gint64));

  walk.self = self;
  walk.shard = shard;
  walk.file_path = file_path;
  walk.visited = visited;
  walk.path = path;
  walk.skip_optimizer = keras_full;

  root = H5Gopen2 (file, "/", H5P_DEFAULT);
  if (root < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot open the root group");
      return FALSE;
    }
  ret = walk_group (root, &walk);
  H5Gclose (root);
  if (self->link_skipped == NULL)
    self->link_skipped = g_steal_pointer (&walk.first_link_skipped);
  g_free (walk.first_link_skipped);
  if (ret < 0 || walk.error != NULL)
    {
      if (walk.error != NULL)
        g_propagate_error (error, walk.error);
      else
        pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file_path, "cannot list its contents");
      return FALSE;
    }
  return TRUE;
}

PlCheckpoint *
pl_checkpoint_hdf5_open (const char          *path,
                         const char * const  *shards,
                         GError             **error)
{
  g_autoptr(PlCheckpointHdf5) self = g_object_new (PL_TYPE_CHECKPOINT_HDF5, NULL);
  const char * const single[] = { path, NULL };
  const char *format = shards ? "hdf5-sharded" : "hdf5";
  gboolean ok = TRUE;

  if (shards == NULL)
    shards = single;

  pl_hdf5_lock ();
  for (guint i = 0; ok && shards[i] != NULL; i++)
    {
      hid_t file;
      gboolean keras_full = FALSE;
      GStatBuf st;
      int fd;

      /* A regular file (links followed only to one), opened before libhdf5
       * opens it by name. */
      if ((fd = pl_input_file_open (shards[i], &st, error)) < 0)
        {
          ok = FALSE;
          break;
        }
      g_array_append_val (self->fds, fd);
      pl_checkpoint_add_file_bytes (PL_CHECKPOINT (self), st.st_size);
      {
        hid_t fapl = H5Pcreate (H5P_FILE_ACCESS);

        /* Lock where the file system can, but still open checkpoints on
         * ones that cannot (NFS and friends), as h5py users expect. */
        H5Pset_file_locking (fapl, TRUE, TRUE);
        file = H5Fopen (shards[i], H5F_ACC_RDONLY, fapl);
        /* Before H5Pclose, which clears the error stack that says why. */
        if (file < 0)
          pl_hdf5_set_error (error, PL_ERROR_CORRUPT, shards[i], "cannot open as HDF5");
        H5Pclose (fapl);
      }
      if (file < 0)
        {
          ok = FALSE;
          break;
        }
      g_array_append_val (self->files, file);
      g_ptr_array_add (self->file_paths, g_strdup (shards[i]));

      if (shards == single)
        {
          if (has_root_attribute (file, "model_config") && has_root_group (file, "model_weights"))
            format = "hdf5-keras", keras_full = TRUE;
          else if (has_root_attribute (file, "layer_names"))
            format = "hdf5-tf";
          else
            {
              g_autofree char *kind = read_root_attribute (file, "format");

              if (g_strcmp0 (kind, "poslens-activations") == 0)
                {
                  format = "poslens-activations";
                  ok = read_activations_attributes (self, file, shards[i], error);
                }
            }
        }
      ok = ok && list_file (self, i, shards[i], file, keras_full, error);
    }
  H5Eclear2 (H5E_DEFAULT);
  pl_hdf5_unlock ();

  if (!ok)
    return NULL;
  if (pl_checkpoint_get_n_tensors (PL_CHECKPOINT (self)) == 0)
    {
      if (self->link_skipped != NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s contains no datasets of its own; links such as %s are not followed",
                     path, self->link_skipped);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s contains no datasets", path);
      return NULL;
    }
  pl_checkpoint_set_path_and_format (PL_CHECKPOINT (self), path, format);
  return PL_CHECKPOINT (g_steal_pointer (&self));
}
