/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-h5-writer.h"
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

static gboolean
write_hdf5 (const char          *path,
            const PlNamedMatrix *datasets,
            guint                n,
            GError             **error)
{
  g_autoptr(PlH5Writer) writer = pl_h5_writer_new (path, error);

  if (writer == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const PlMatrix *m = datasets[i].matrix;
      guint depth = datasets[i].depth;
      guint64 dims[3] = { m->rows, m->cols, 1 };
      guint rank = 2;

      if (datasets[i].vector)
        {
          dims[0] = m->rows * m->cols;
          rank = 1;
        }
      else if (depth > 1)
        {
          g_return_val_if_fail (m->cols % depth == 0, FALSE);
          dims[1] = m->cols / depth;
          dims[2] = depth;
          rank = 3;
        }
      if (!pl_h5_writer_write (writer, datasets[i].name, rank, dims, m->data, error))
        return FALSE;
    }
  return pl_h5_writer_finish (writer, error);
}

GPtrArray *
pl_matrix_io_read_id_rows (const char  *spec,
                           GError     **error)
{
  const char *colon = g_strrstr (spec, ":/");
  g_autofree char *file = NULL;
  hid_t f = -1, d = -1, s = -1, t = -1;
  hsize_t dims[2] = { 1, 0 };
  int rank;
  GPtrArray *rows = NULL;

  g_return_val_if_fail (spec != NULL, NULL);

  if (colon == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "“%s”: expected FILE.h5:/DATASET", spec);
      return NULL;
    }
  file = g_strndup (spec, colon - spec);

  pl_hdf5_lock ();
  if ((f = H5Fopen (file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
    pl_hdf5_set_error (error, PL_ERROR_NOT_FOUND, file, "cannot open as HDF5");
  else if ((d = H5Dopen2 (f, colon + 1, pl_hdf5_dataset_access ())) < 0)
    pl_hdf5_set_error (error, PL_ERROR_NOT_FOUND, file, "no dataset %s", colon + 1);
  else if ((t = H5Dget_type (d)) < 0 || H5Tget_class (t) != H5T_INTEGER ||
           (s = H5Dget_space (d)) < 0 ||
           (rank = H5Sget_simple_extent_ndims (s)) < 1 || rank > 2 ||
           H5Sget_simple_extent_dims (s, dims + 2 - rank, NULL) < 0 ||
           dims[0] == 0 || dims[1] == 0 || dims[0] > (1 << 24) || dims[1] > (1 << 20) ||
           dims[0] * dims[1] > (1 << 24))
    g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                 "%s: %s must hold token ids, integers in rows (at most 2²⁴ in all)", file, colon + 1);
  else
    {
      g_autofree int *all = g_new (int, dims[0] * dims[1]);

      if (H5Dread (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0)
        pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file, "cannot read %s", colon + 1);
      else
        {
          rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
          for (hsize_t r = 0; r < dims[0]; r++)
            {
              GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (int), dims[1]);

              g_array_append_vals (ids, all + r * dims[1], dims[1]);
              g_ptr_array_add (rows, ids);
            }
        }
    }
  if (s >= 0) H5Sclose (s);
  if (t >= 0) H5Tclose (t);
  if (d >= 0) H5Dclose (d);
  if (f >= 0) H5Fclose (f);
  pl_hdf5_unlock ();
  return rows;
}

GArray *
pl_matrix_io_read_ids (const char  *spec,
                       GError     **error)
{
  g_autoptr(GPtrArray) rows = NULL;

  g_return_val_if_fail (spec != NULL, NULL);

  if (!(rows = pl_matrix_io_read_id_rows (spec, error)))
    return NULL;
  if (rows->len != 1)
    {
      g_autofree char *file = g_strndup (spec, g_strrstr (spec, ":/") - spec);

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: %s must hold token ids, integers in one row", file, g_strrstr (spec, ":/") + 1);
      return NULL;
    }
  return g_array_ref (rows->pdata[0]);
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
  else if (ds->depth > 1)
    dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, 'shape': (%" G_GSIZE_FORMAT
                            ", %" G_GSIZE_FORMAT ", %u), }", m->rows, m->cols / ds->depth, ds->depth);
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
