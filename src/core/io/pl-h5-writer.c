/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-hdf5.h"

#define MAX_RANK 4

struct _PlH5Writer
{
  char       *path;
  char       *tmp;
  hid_t       file;
  hid_t       link_create;   /* creates intermediate groups */
  GHashTable *datasets;      /* name -> the hid_t of a dataset open for put */
};

static void
close_dataset (gpointer data)
{
  H5Dclose ((hid_t) GPOINTER_TO_SIZE (data));
}

PlH5Writer *
pl_h5_writer_new (const char  *path,
                  GError     **error)
{
  g_autoptr(PlH5Writer) self = g_new0 (PlH5Writer, 1);

  g_return_val_if_fail (path != NULL, NULL);
  G_STATIC_ASSERT (sizeof (hid_t) <= sizeof (gsize));

  self->path = g_strdup (path);
  self->tmp = g_strdup_printf ("%s.tmp-%d-%08x", path, (int) getpid (), g_random_int ());
  self->file = -1;
  self->link_create = -1;
  self->datasets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, close_dataset);

  pl_hdf5_lock ();
  self->file = H5Fcreate (self->tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
  if (self->file < 0)
    pl_hdf5_set_error (error, PL_ERROR_FAILED, path, "cannot create the file");
  else
    {
      self->link_create = H5Pcreate (H5P_LINK_CREATE);
      H5Pset_create_intermediate_group (self->link_create, 1);
    }
  pl_hdf5_unlock ();
  return self->file < 0 ? NULL : g_steal_pointer (&self);
}

static hid_t
create_locked (PlH5Writer     *self,
               const char     *name,
               hid_t           type,
               guint           rank,
               const guint64  *dims,
               GError        **error)
{
  hsize_t hdims[MAX_RANK];
  hid_t space, dataset;

  g_return_val_if_fail (rank >= 1 && rank <= MAX_RANK, -1);
  if (g_hash_table_contains (self->datasets, name))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: the dataset %s is written twice", self->path, name);
      return -1;
    }
  for (guint i = 0; i < rank; i++)
    hdims[i] = dims[i];
  space = H5Screate_simple ((int) rank, hdims, NULL);
  dataset = H5Dcreate2 (self->file, name, type, space, self->link_create, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose (space);
  if (dataset < 0)
    pl_hdf5_set_error (error, PL_ERROR_FAILED, self->path, "cannot create the dataset %s", name);
  return dataset;
}

gboolean
pl_h5_writer_add (PlH5Writer     *self,
                  const char     *name,
                  guint           rank,
                  const guint64  *dims,
                  GError        **error)
{
  hid_t dataset;

  g_return_val_if_fail (self != NULL && name != NULL && dims != NULL, FALSE);

  pl_hdf5_lock ();
  dataset = create_locked (self, name, H5T_IEEE_F32LE, rank, dims, error);
  if (dataset >= 0)
    g_hash_table_insert (self->datasets, g_strdup (name), GSIZE_TO_POINTER ((gsize) dataset));
  pl_hdf5_unlock ();
  return dataset >= 0;
}

gboolean
pl_h5_writer_put (PlH5Writer   *self,
                  const char   *name,
                  guint64       k,
                  const float  *values,
                  GError      **error)
{
  gpointer found;
  hid_t dataset, space, memory;
  hsize_t dims[MAX_RANK], start[MAX_RANK] = { 0, }, count[MAX_RANK];
  int rank;
  gboolean ok;

  g_return_val_if_fail (self != NULL && name != NULL && values != NULL, FALSE);
  if (!g_hash_table_lookup_extended (self->datasets, name, NULL, &found))
    g_return_val_if_reached (FALSE);
  dataset = (hid_t) GPOINTER_TO_SIZE (found);

  pl_hdf5_lock ();
  space = H5Dget_space (dataset);
  rank = H5Sget_simple_extent_ndims (space);
  H5Sget_simple_extent_dims (space, dims, NULL);
  g_assert (rank >= 1 && rank <= MAX_RANK && k < dims[0]);
  start[0] = k;
  count[0] = 1;
  for (int i = 1; i < rank; i++)
    count[i] = dims[i];
  memory = H5Screate_simple (rank, count, NULL);
  ok = H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
       H5Dwrite (dataset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, values) >= 0;
  if (!ok)
    pl_hdf5_set_error (error, PL_ERROR_FAILED, self->path, "cannot write entry %" G_GUINT64_FORMAT " of %s",
                       k, name);
  H5Sclose (memory);
  H5Sclose (space);
  pl_hdf5_unlock ();
  return ok;
}

static gboolean
write_whole (PlH5Writer     *self,
             const char     *name,
             hid_t           file_type,
             hid_t           memory_type,
             guint           rank,
             const guint64  *dims,
             const void     *values,
             GError        **error)
{
  hid_t dataset;
  gboolean ok;

  pl_hdf5_lock ();
  dataset = create_locked (self, name, file_type, rank, dims, error);
  ok = dataset >= 0;
  if (ok && H5Dwrite (dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_FAILED, self->path, "cannot write the dataset %s", name);
      ok = FALSE;
    }
  if (dataset >= 0)
    H5Dclose (dataset);
  pl_hdf5_unlock ();
  return ok;
}

gboolean
pl_h5_writer_write (PlH5Writer     *self,
                    const char     *name,
                    guint           rank,
                    const guint64  *dims,
                    const float    *values,
                    GError        **error)
{
  g_return_val_if_fail (self != NULL && name != NULL && dims != NULL && values != NULL, FALSE);

  return write_whole (self, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rank, dims, values, error);
}

gboolean
pl_h5_writer_write_ints (PlH5Writer  *self,
                         const char  *name,
                         const int   *values,
                         gsize        n,
                         GError     **error)
{
  guint64 dims[1] = { n };

  g_return_val_if_fail (self != NULL && name != NULL && values != NULL, FALSE);

  return write_whole (self, name, H5T_STD_I64LE, H5T_NATIVE_INT, 1, dims, values, error);
}

gboolean
pl_h5_writer_write_int_array (PlH5Writer     *self,
                              const char     *name,
                              guint           rank,
                              const guint64  *dims,
                              const int      *values,
                              GError        **error)
{
  g_return_val_if_fail (self != NULL && name != NULL && dims != NULL && values != NULL, FALSE);

  return write_whole (self, name, H5T_STD_I64LE, H5T_NATIVE_INT, rank, dims, values, error);
}

/* A variable-length UTF-8 string type; close it with H5Tclose. */
static hid_t
string_type (void)
{
  hid_t type = H5Tcopy (H5T_C_S1);

  H5Tset_size (type, H5T_VARIABLE);
  H5Tset_cset (type, H5T_CSET_UTF8);
  return type;
}

gboolean
pl_h5_writer_write_strings (PlH5Writer          *self,
                            const char          *name,
                            guint                rank,
                            const guint64       *dims,
                            const char * const  *values,
                            GError             **error)
{
  hid_t type;
  gboolean ok;

  g_return_val_if_fail (self != NULL && name != NULL && dims != NULL && values != NULL, FALSE);

  pl_hdf5_lock ();
  type = string_type ();
  ok = write_whole (self, name, type, type, rank, dims, values, error);
  H5Tclose (type);
  pl_hdf5_unlock ();
  return ok;
}

static gboolean
set_attribute (PlH5Writer   *self,
               const char   *object,
               const char   *attribute,
               hid_t         file_type,
               hid_t         memory_type,
               const void   *value,
               GError      **error)
{
  hid_t space, attr;
  gboolean ok;

  pl_hdf5_lock ();
  space = H5Screate (H5S_SCALAR);
  attr = H5Acreate_by_name (self->file, object, attribute, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = attr >= 0 && H5Awrite (attr, memory_type, value) >= 0;
  if (!ok)
    pl_hdf5_set_error (error, PL_ERROR_FAILED, self->path, "cannot write the attribute %s of %s",
                       attribute, object);
  if (attr >= 0)
    H5Aclose (attr);
  H5Sclose (space);
  pl_hdf5_unlock ();
  return ok;
}

gboolean
pl_h5_writer_set_string (PlH5Writer   *self,
                         const char   *object,
                         const char   *attribute,
                         const char   *value,
                         GError      **error)
{
  hid_t type;
  gboolean ok;

  g_return_val_if_fail (self != NULL && object != NULL && attribute != NULL && value != NULL, FALSE);

  pl_hdf5_lock ();
  type = string_type ();
  ok = set_attribute (self, object, attribute, type, type, &value, error);
  H5Tclose (type);
  pl_hdf5_unlock ();
  return ok;
}

gboolean
pl_h5_writer_set_int (PlH5Writer   *self,
                      const char   *object,
                      const char   *attribute,
                      gint64        value,
                      GError      **error)
{
  g_return_val_if_fail (self != NULL && object != NULL && attribute != NULL, FALSE);

  return set_attribute (self, object, attribute, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, error);
}

static gboolean
close_file (PlH5Writer  *self,
            GError     **error)
{
  gboolean ok = TRUE;

  pl_hdf5_lock ();
  /* closes the datasets, which must go before the file */
  g_hash_table_remove_all (self->datasets);
  if (self->link_create >= 0)
    H5Pclose (self->link_create);
  self->link_create = -1;
  if (self->file >= 0 && H5Fclose (self->file) < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_FAILED, self->path, "cannot finish writing the file");
      ok = FALSE;
    }
  self->file = -1;
  pl_hdf5_unlock ();
  return ok;
}

gboolean
pl_h5_writer_finish (PlH5Writer  *self,
                     GError     **error)
{
  g_return_val_if_fail (self != NULL && self->file >= 0, FALSE);

  if (!close_file (self, error))
    return FALSE;
  if (g_rename (self->tmp, self->path) != 0)
    {
      int saved = errno;

      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: cannot move the finished file into place: %s",
                   self->path, g_strerror (saved));
      return FALSE;
    }
  g_clear_pointer (&self->tmp, g_free);
  return TRUE;
}

void
pl_h5_writer_free (PlH5Writer *self)
{
  if (self == NULL)
    return;
  close_file (self, NULL);
  if (self->tmp != NULL)
    g_unlink (self->tmp);
  g_hash_table_unref (self->datasets);
  g_free (self->tmp);
  g_free (self->path);
  g_free (self);
}
