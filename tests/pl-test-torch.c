/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-test-torch.h"

/* What torch.save writes before the object in the legacy format: the magic
 * number 0x1950a86a20f9469cfc6c, the protocol version 1001 and
 * {'protocol_version': 1001, 'little_endian': True, 'type_sizes': {'short':
 * 2, 'int': 4, 'long': 4}}, each a protocol 2 pickle (as Python's pickle
 * writes them). */
static const guint8 legacy_head[] =
  "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e"
  "\x80\x02\x4d\xe9\x03\x2e"
  "\x80\x02\x7d\x71\x00\x28\x58\x10\x00\x00\x00protocol_version\x71\x01\x4d\xe9\x03"
  "\x58\x0d\x00\x00\x00little_endian\x71\x02\x88"
  "\x58\x0a\x00\x00\x00type_sizes\x71\x03\x7d\x71\x04\x28"
  "\x58\x05\x00\x00\x00short\x71\x05\x4b\x02\x58\x03\x00\x00\x00int\x71\x06\x4b\x04"
  "\x58\x04\x00\x00\x00long\x71\x07\x4b\x04\x75\x75\x2e";

GByteArray *
pl_test_pickle_new (void)
{
  GByteArray *pickle = g_byte_array_new ();

  pl_test_pickle_op (pickle, 0x80);
  pl_test_pickle_op (pickle, 2);
  return pickle;
}

void
pl_test_pickle_op (GByteArray *pickle,
                   guint8      op)
{
  g_byte_array_append (pickle, &op, 1);
}

void
pl_test_pickle_ops (GByteArray *pickle,
                    guint8      op,
                    gsize       count)
{
  gsize start = pickle->len;

  g_byte_array_set_size (pickle, start + count);
  memset (pickle->data + start, op, count);
}

void
pl_test_pickle_op_u32 (GByteArray *pickle,
                       guint8      op,
                       guint32     arg)
{
  guint32 le = GUINT32_TO_LE (arg);

  pl_test_pickle_op (pickle, op);
  g_byte_array_append (pickle, (const guint8 *) &le, 4);
}

void
pl_test_pickle_string (GByteArray *pickle,
                       const char *text)
{
  pl_test_pickle_op_u32 (pickle, 'X', strlen (text));
  g_byte_array_append (pickle, (const guint8 *) text, strlen (text));
}

void
pl_test_pickle_int (GByteArray *pickle,
                    gint64      value)
{
  if (value >= G_MININT32 && value <= G_MAXINT32)
    pl_test_pickle_op_u32 (pickle, 'J', (guint32) (gint32) value);
  else
    {
      guint64 le = GUINT64_TO_LE ((guint64) value);

      pl_test_pickle_op (pickle, 0x8a);
      pl_test_pickle_op (pickle, 8);
      g_byte_array_append (pickle, (const guint8 *) &le, 8);
    }
}

void
pl_test_pickle_global (GByteArray *pickle,
                       const char *module,
                       const char *name)
{
  g_autofree char *line = g_strdup_printf ("c%s\n%s\n", module, name);

  g_byte_array_append (pickle, (const guint8 *) line, strlen (line));
}

void
pl_test_pickle_dims (GByteArray    *pickle,
                     guint          n,
                     const guint64 *dims)
{
  pl_test_pickle_op (pickle, '(');
  for (guint i = 0; i < n; i++)
    pl_test_pickle_int (pickle, (gint64) dims[i]);
  pl_test_pickle_op (pickle, 't');
}

void
pl_test_pickle_tensor_of (GByteArray    *pickle,
                          const char    *type,
                          const char    *key,
                          guint64        numel,
                          guint64        offset,
                          guint          rank,
                          const guint64 *size,
                          const guint64 *stride,
                          gboolean       legacy)
{
  pl_test_pickle_global (pickle, "torch._utils", "_rebuild_tensor_v2");
  pl_test_pickle_op (pickle, '(');
  pl_test_pickle_op (pickle, '(');
  pl_test_pickle_string (pickle, "storage");
  pl_test_pickle_global (pickle, "torch", type);
  pl_test_pickle_string (pickle, key);
  pl_test_pickle_string (pickle, "cpu");
  pl_test_pickle_int (pickle, (gint64) numel);
  if (legacy)
    pl_test_pickle_op (pickle, 'N');
  pl_test_pickle_op (pickle, 't');
  pl_test_pickle_op (pickle, 'Q');
  pl_test_pickle_int (pickle, (gint64) offset);
  pl_test_pickle_dims (pickle, rank, size);
  pl_test_pickle_dims (pickle, rank, stride);
  pl_test_pickle_op (pickle, 0x89);
  pl_test_pickle_global (pickle, "collections", "OrderedDict");
  pl_test_pickle_op (pickle, ')');
  pl_test_pickle_op (pickle, 'R');
  pl_test_pickle_op (pickle, 't');
  pl_test_pickle_op (pickle, 'R');
}

void
pl_test_pickle_tensor (GByteArray    *pickle,
                       const char    *key,
                       guint64        numel,
                       guint64        offset,
                       guint          rank,
                       const guint64 *size,
                       const guint64 *stride)
{
  pl_test_pickle_tensor_of (pickle, "FloatStorage", key, numel, offset, rank, size, stride, TRUE);
}

static guint32
crc32_of (const guint8 *data,
          gsize         len)
{
  guint32 crc = 0xffffffff;

  for (gsize i = 0; i < len; i++)
    {
      crc ^= data[i];
      for (guint k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
    }
  return ~crc;
}

static void
put_le (GByteArray *out,
        guint64     value,
        guint       width)
{
  for (guint i = 0; i < width; i++)
    {
      guint8 b = (guint8) (value >> (8 * i));

      g_byte_array_append (out, &b, 1);
    }
}

void
pl_test_write_torch_zip (const char          *path,
                         const char          *archive,
                         GByteArray          *pickle,
                         guint                n_storages,
                         const char * const  *keys,
                         GBytes * const      *data)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GByteArray) central = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  guint n = n_storages + 2;

  for (guint e = 0; e < n; e++)
    {
      g_autofree char *name = NULL;
      const guint8 *bytes;
      gsize len;
      guint32 crc;
      guint64 offset = out->len;

      if (e == 0)
        {
          name = g_strdup_printf ("%s/data.pkl", archive);
          bytes = pickle->data;
          len = pickle->len;
        }
      else if (e <= n_storages)
        {
          name = g_strdup_printf ("%s/data/%s", archive, keys[e - 1]);
          bytes = g_bytes_get_data (data[e - 1], &len);
        }
      else
        {
          name = g_strdup_printf ("%s/version", archive);
          bytes = (const guint8 *) "3\n";
          len = 2;
        }
      crc = crc32_of (bytes, len);
      put_le (out, 0x04034b50, 4);
      put_le (out, 20, 2);
      put_le (out, 0, 2);
      put_le (out, 0, 2);
      put_le (out, 0, 2);
      put_le (out, 0x21, 2);
      put_le (out, crc, 4);
      put_le (out, len, 4);
      put_le (out, len, 4);
      put_le (out, strlen (name), 2);
      put_le (out, 0, 2);
      g_byte_array_append (out, (const guint8 *) name, strlen (name));
      g_byte_array_append (out, bytes, len);

      put_le (central, 0x02014b50, 4);
      put_le (central, 20, 2);
      put_le (central, 20, 2);
      put_le (central, 0, 2);
      put_le (central, 0, 2);
      put_le (central, 0, 2);
      put_le (central, 0x21, 2);
      put_le (central, crc, 4);
      put_le (central, len, 4);
      put_le (central, len, 4);
      put_le (central, strlen (name), 2);
      put_le (central, 0, 2);
      put_le (central, 0, 2);
      put_le (central, 0, 2);
      put_le (central, 0, 2);
      put_le (central, 0, 4);
      put_le (central, offset, 4);
      g_byte_array_append (central, (const guint8 *) name, strlen (name));
    }
  {
    guint64 directory = out->len;

    g_assert_cmpuint (n, <=, 0xffff);
    g_byte_array_append (out, central->data, central->len);
    put_le (out, 0x06054b50, 4);
    put_le (out, 0, 2);
    put_le (out, 0, 2);
    put_le (out, n, 2);
    put_le (out, n, 2);
    put_le (out, central->len, 4);
    put_le (out, directory, 4);
    put_le (out, 0, 2);
  }
  g_file_set_contents_full (path, (const char *) out->data, out->len, G_FILE_SET_CONTENTS_NONE, 0644, &error);
  g_assert_no_error (error);
}

void
pl_test_write_torch_legacy (const char          *path,
                            GByteArray          *object,
                            guint                n_storages,
                            const char * const  *keys,
                            const guint64       *numels,
                            const float * const *data)
{
  g_autoptr(GByteArray) list = pl_test_pickle_new ();
  FILE *f = fopen (path, "wb");

  g_assert_nonnull (f);
  pl_test_pickle_op (list, ']');
  pl_test_pickle_op (list, '(');
  for (guint i = 0; i < n_storages; i++)
    pl_test_pickle_string (list, keys[i]);
  pl_test_pickle_op (list, 'e');
  pl_test_pickle_op (list, '.');

  g_assert_cmpuint (fwrite (legacy_head, 1, sizeof legacy_head - 1, f), ==, sizeof legacy_head - 1);
  g_assert_cmpuint (fwrite (object->data, 1, object->len, f), ==, object->len);
  g_assert_cmpuint (fwrite (list->data, 1, list->len, f), ==, list->len);
  for (guint i = 0; i < n_storages; i++)
    {
      guint64 le = GUINT64_TO_LE (numels[i]);

      g_assert_cmpuint (fwrite (&le, 8, 1, f), ==, 1);
      if (data[i] == NULL)
        g_assert_cmpint (fseeko (f, (off_t) (numels[i] * sizeof (float)), SEEK_CUR), ==, 0);
      else if (numels[i] > 0)
        g_assert_cmpuint (fwrite (data[i], sizeof (float), numels[i], f), ==, numels[i]);
    }
  g_assert_cmpint (fflush (f), ==, 0);
  g_assert_cmpint (ftruncate (fileno (f), ftello (f)), ==, 0);
  g_assert_cmpint (fclose (f), ==, 0);
}
