/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pl-checkpoint-private.h"
#include "pl-error.h"
#include "pl-input-file.h"

/* The bytes of the readers that find tensors at byte offsets of a file
 * (safetensors, PyTorch): exact reads, and little-endian values to floats. */

gboolean
pl_checkpoint_read_exact (int          fd,
                          void        *buf,
                          gsize        len,
                          guint64      offset,
                          const char  *path,
                          GError     **error)
{
  guint8 *p = buf;

  while (len > 0)
    {
      ssize_t got = pread (fd, p, MIN (len, (gsize) G_MAXSSIZE), (off_t) offset);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          g_set_error (error, PL_ERROR, got == 0 ? PL_ERROR_CORRUPT : PL_ERROR_FAILED,
                       "%s: %s at byte %" G_GUINT64_FORMAT, path,
                       got == 0 ? "unexpected end of file" : g_strerror (errno), offset);
          return FALSE;
        }
      p += got;
      len -= got;
      offset += got;
    }
  return TRUE;
}

void
pl_checkpoint_convert_le (PlDType       dtype,
                          const guint8 *src,
                          float        *dst,
                          gsize         n)
{
  switch (dtype)
    {
    case PL_DTYPE_F32:
      for (gsize i = 0; i < n; i++)
        {
          guint32 bits;
          memcpy (&bits, src + 4 * i, 4);
          bits = GUINT32_FROM_LE (bits);
          memcpy (dst + i, &bits, 4);
        }
      break;
    case PL_DTYPE_F16:
    case PL_DTYPE_BF16:
      {
        PlStoredType type = dtype == PL_DTYPE_F16 ? PL_STORED_F16 : PL_STORED_BF16;

        if (G_BYTE_ORDER == G_LITTLE_ENDIAN)
          pl_stored_convert (type, src, dst, n);
        else
          for (gsize i = 0; i < n; i++)
            {
              guint16 h = (guint16) (src[2 * i] | (src[2 * i + 1] << 8));

              pl_stored_convert (type, &h, dst + i, 1);
            }
      }
      break;
    case PL_DTYPE_F64:
      for (gsize i = 0; i < n; i++)
        {
          guint64 bits;
          double value;
          memcpy (&bits, src + 8 * i, 8);
          bits = GUINT64_FROM_LE (bits);
          memcpy (&value, &bits, 8);
          dst[i] = (float) value;
        }
      break;
    case PL_DTYPE_OTHER:
    default:
      g_assert_not_reached ();
    }
}

PlStoredMatrix *
pl_checkpoint_read_stored_at (int                  fd,
                              const char          *path,
                              const PlTensorInfo  *info,
                              guint64              offset,
                              GError             **error)
{
  g_autoptr(PlStoredMatrix) stored = NULL;
  gsize elem_size = info->dtype == PL_DTYPE_F32 ? 4 : 2;
  PlStoredType type;
  guint64 rows, cols;

  g_assert (info->dtype == PL_DTYPE_F32 || info->dtype == PL_DTYPE_F16 || info->dtype == PL_DTYPE_BF16);
  type = info->dtype == PL_DTYPE_F32 ? PL_STORED_F32 : info->dtype == PL_DTYPE_F16 ? PL_STORED_F16 : PL_STORED_BF16;
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  /* What the file stores of the bytes is checked before memory is taken. */
  if (!pl_input_file_check_stored (fd, offset, rows * cols * elem_size, path, info->name, error))
    return NULL;
  if (!(stored = pl_stored_matrix_try_new (type, rows, cols, error)))
    {
      g_prefix_error (error, "%s: “%s”: ", path, info->name);
      return NULL;
    }
  if (!pl_checkpoint_read_exact (fd, stored->data, rows * cols * elem_size, offset, path, error))
    return NULL;
#if G_BYTE_ORDER == G_BIG_ENDIAN
  if (elem_size == 4)
    for (guint64 i = 0; i < rows * cols; i++)
      ((guint32 *) stored->data)[i] = GUINT32_FROM_LE (((guint32 *) stored->data)[i]);
  else
    for (guint64 i = 0; i < rows * cols; i++)
      ((guint16 *) stored->data)[i] = GUINT16_FROM_LE (((guint16 *) stored->data)[i]);
#endif
  return g_steal_pointer (&stored);
}

PlStoredMatrix *
pl_checkpoint_view_stored (GMappedFile         *map,
                           int                  fd,
                           const char          *path,
                           const PlTensorInfo  *info,
                           guint64              offset,
                           GError             **error)
{
  gsize elem_size = info->dtype == PL_DTYPE_F32 ? 4 : 2;
  guint64 rows, cols, bytes;
  PlStoredType type;

  g_assert (info->dtype == PL_DTYPE_F32 || info->dtype == PL_DTYPE_F16 || info->dtype == PL_DTYPE_BF16);
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  bytes = rows * cols * elem_size;
  if (map == NULL || G_BYTE_ORDER != G_LITTLE_ENDIAN || bytes == 0 || offset % elem_size != 0 ||
      offset > g_mapped_file_get_length (map) || bytes > g_mapped_file_get_length (map) - offset)
    return pl_checkpoint_read_stored_at (fd, path, info, offset, error);
  /* holes read as zeros the file never stored: refused as a read refuses them */
  if (!pl_input_file_check_stored (fd, offset, bytes, path, info->name, error))
    return NULL;
  type = info->dtype == PL_DTYPE_F32 ? PL_STORED_F32 : info->dtype == PL_DTYPE_F16 ? PL_STORED_F16 : PL_STORED_BF16;
  return pl_stored_matrix_new_borrowed (type, rows, cols, (const guint8 *) g_mapped_file_get_contents (map) + offset,
                                    g_mapped_file_ref (map), (GDestroyNotify) g_mapped_file_unref);
}
