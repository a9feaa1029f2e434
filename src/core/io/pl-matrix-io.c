/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-hdf5.h"
#include "pl-matrix-io.h"

gboolean
pl_matrix_format_from_path (const char      *path,
                            PlMatrixFormat  *format,
                            GError         **error)
{
  const char *dot;

  g_return_val_if_fail (path != NULL && format != NULL, FALSE);

  dot = strrchr (path, '.');
  if (dot != NULL && strchr (dot, G_DIR_SEPARATOR) == NULL)
    {
      if (g_ascii_strcasecmp (dot, ".h5") == 0 || g_ascii_strcasecmp (dot, ".hdf5") == 0)
        {
          *format = PL_MATRIX_FORMAT_HDF5;
          return TRUE;
        }
      if (g_ascii_strcasecmp (dot, ".csv") == 0)
        {
          *format = PL_MATRIX_FORMAT_CSV;
          return TRUE;
        }
      if (g_ascii_strcasecmp (dot, ".npy") == 0)
        {
          *format = PL_MATRIX_FORMAT_NPY;
          return TRUE;
        }
    }
  g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
               "%s: cannot tell the format from the name; end it in .h5, .csv or .npy", path);
  return FALSE;
}

char *
pl_matrix_io_dataset_path (const char          *path,
                           const PlNamedMatrix *datasets,
                           guint                index)
{
  PlMatrixFormat format = PL_MATRIX_FORMAT_HDF5;
  g_autofree char *stem = NULL;
  g_autofree char *name = NULL;
  const char *dot;

  g_return_val_if_fail (path != NULL && datasets != NULL, NULL);

  pl_matrix_format_from_path (path, &format, NULL);
  if (format == PL_MATRIX_FORMAT_HDF5 || index == 0)
    return g_strdup (path);

  dot = strrchr (path, '.');
  stem = g_strndup (path, dot - path);
  name = g_strdup (datasets[index].name + (datasets[index].name[0] == '/'));
  g_strdelimit (name, "/", '-');
  return g_strdup_printf ("%s-%s%s", stem, name, dot);
}

static void
shape_of (const PlNamedMatrix *ds,
          hsize_t             *dims,
          int                 *rank)
{
  if (ds->vector)
    {
      dims[0] = ds->matrix->rows * ds->matrix->cols;
      *rank = 1;
    }
  else
    {
      dims[0] = ds->matrix->rows;
      dims[1] = ds->matrix->cols;
      *rank = 2;
    }
}

static gboolean
write_hdf5_locked (const char          *path,
                   const char          *tmp,
                   const PlNamedMatrix *datasets,
                   guint                n,
                   GError             **error)
{
  hid_t file, lcpl;
  gboolean ok = TRUE;

  file = H5Fcreate (tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0)
    {
      pl_hdf5_set_error (error, PL_ERROR_FAILED, path, "cannot create the file");
      return FALSE;
    }
  lcpl = H5Pcreate (H5P_LINK_CREATE);
  H5Pset_create_intermediate_group (lcpl, 1);

  for (guint i = 0; ok && i < n; i++)
    {
      hsize_t dims[2];
      int rank;
      hid_t space, dset;

      shape_of (&datasets[i], dims, &rank);
      space = H5Screate_simple (rank, dims, NULL);
      dset = H5Dcreate2 (file, datasets[i].name, H5T_IEEE_F32LE, space, lcpl,
                         H5P_DEFAULT, H5P_DEFAULT);
      if (dset < 0 ||
          H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    datasets[i].matrix->data) < 0)
        {
          pl_hdf5_set_error (error, PL_ERROR_FAILED, path, "cannot write the dataset %s",
                             datasets[i].name);
          ok = FALSE;
        }
      if (dset >= 0)
        H5Dclose (dset);
      H5Sclose (space);
    }
  H5Pclose (lcpl);
  if (H5Fclose (file) < 0 && ok)
    {
      pl_hdf5_set_error (error, PL_ERROR_FAILED, path, "cannot finish writing the file");
      ok = FALSE;
    }
  return ok;
}

static gboolean
write_hdf5 (const char          *path,
            const PlNamedMatrix *datasets,
            guint                n,
            GError             **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s.tmp-%d-%08x", path, (int) getpid (), g_random_int ());
  gboolean ok;

  pl_hdf5_lock ();
  ok = write_hdf5_locked (path, tmp, datasets, n, error);
  pl_hdf5_unlock ();

  if (ok && g_rename (tmp, path) != 0)
    {
      int saved = errno;
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: cannot move the finished file into place: %s",
                   path, g_strerror (saved));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp);
  return ok;
}

static GBytes *
format_csv (const PlNamedMatrix *ds)
{
  const PlMatrix *m = ds->matrix;
  gsize rows = ds->vector ? m->rows * m->cols : m->rows;
  gsize cols = ds->vector ? 1 : m->cols;
  GString *out = g_string_sized_new (rows * cols * 14 + 1);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (gsize i = 0; i < rows; i++)
    {
      for (gsize j = 0; j < cols; j++)
        {
          if (j > 0)
            g_string_append_c (out, ',');
          /* Nine significant digits round-trip any float32. */
          g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", m->data[i * cols + j]));
        }
      g_string_append_c (out, '\n');
    }
  return g_string_free_to_bytes (out);
}

static GBytes *
format_npy (const PlNamedMatrix *ds)
{
  const PlMatrix *m = ds->matrix;
  gsize count = m->rows * m->cols;
  g_autofree char *dict = NULL;
  GByteArray *out;
  gsize header_len;
  guint16 len_le;

  if (ds->vector)
    dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, 'shape': (%" G_GSIZE_FORMAT ",), }",
                            count);
  else
    dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, 'shape': (%" G_GSIZE_FORMAT
                            ", %" G_GSIZE_FORMAT "), }", m->rows, m->cols);
  /* NPY 1.0: magic, version, little-endian u16 length, the dict padded with
   * spaces and ended by a newline so the data starts on a 64-byte boundary. */
  header_len = strlen (dict) + 1;
  header_len += (64 - (10 + header_len) % 64) % 64;

  out = g_byte_array_sized_new (10 + header_len + count * 4);
  g_byte_array_append (out, (const guint8 *) "\x93NUMPY\x01\x00", 8);
  len_le = GUINT16_TO_LE ((guint16) header_len);
  g_byte_array_append (out, (const guint8 *) &len_le, 2);
  g_byte_array_append (out, (const guint8 *) dict, strlen (dict));
  for (gsize i = strlen (dict); i < header_len - 1; i++)
    g_byte_array_append (out, (const guint8 *) " ", 1);
  g_byte_array_append (out, (const guint8 *) "\n", 1);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  g_byte_array_append (out, (const guint8 *) m->data, count * 4);
#else
  for (gsize i = 0; i < count; i++)
    {
      guint32 v;
      memcpy (&v, m->data + i, 4);
      v = GUINT32_TO_LE (v);
      g_byte_array_append (out, (const guint8 *) &v, 4);
    }
#endif
  return g_byte_array_free_to_bytes (out);
}

gboolean
pl_matrix_io_write (const char           *path,
                    const PlNamedMatrix  *datasets,
                    guint                 n_datasets,
                    GError              **error)
{
  PlMatrixFormat format;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (datasets != NULL && n_datasets > 0, FALSE);

  if (!pl_matrix_format_from_path (path, &format, error))
    return FALSE;
  if (format == PL_MATRIX_FORMAT_HDF5)
    return write_hdf5 (path, datasets, n_datasets, error);

  for (guint i = 0; i < n_datasets; i++)
    {
      g_autofree char *target = pl_matrix_io_dataset_path (path, datasets, i);
      g_autoptr(GBytes) bytes = format == PL_MATRIX_FORMAT_CSV ? format_csv (&datasets[i])
                                                               : format_npy (&datasets[i]);
      gsize size;
      const char *data = g_bytes_get_data (bytes, &size);

      /* Written beside the target and renamed over it. */
      if (!g_file_set_contents_full (target, data, size, G_FILE_SET_CONTENTS_CONSISTENT, 0666, error))
        return FALSE;
    }
  return TRUE;
}
