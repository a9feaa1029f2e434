/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pl-checkpoint-private.h"
#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-zip.h"

/* APPNOTE.TXT's records. The end of central directory record is 22 bytes
 * plus a comment of at most 65535. */
#define EOCD_SIGNATURE           0x06054b50
#define ZIP64_LOCATOR_SIGNATURE  0x07064b50
#define ZIP64_EOCD_SIGNATURE     0x06064b50
#define CENTRAL_SIGNATURE        0x02014b50
#define LOCAL_SIGNATURE          0x04034b50
#define EOCD_SIZE                22
#define ZIP64_LOCATOR_SIZE       20
#define ZIP64_EOCD_SIZE          56
#define CENTRAL_SIZE             46
#define LOCAL_SIZE               30
#define MAX_COMMENT              65535
/* A checkpoint has a few entries per tensor; a directory past these is not one. */
#define MAX_ENTRIES              ((guint64) 1 << 20)
#define MAX_DIRECTORY_BYTES      ((guint64) 256 << 20)

struct _PlZip
{
  int         fd;
  guint64     file_size;
  guint64     directory_offset;   /* of the end record(s) */
  guint64     data_end;           /* where the central directory begins */
  char       *path;
  GArray     *entries;   /* PlZipEntry */
  GHashTable *by_name;   /* name -> index + 1 */
  guint64    *ends;      /* by entry: where the next entry, or the directory, begins */
};

static guint16
le16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}

static guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

static guint64
le64 (const guint8 *p)
{
  return (guint64) le32 (p) | ((guint64) le32 (p + 4) << 32);
}

static void
entry_clear (gpointer data)
{
  PlZipEntry *entry = data;

  g_free (entry->name);
}

void
pl_zip_free (PlZip *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->entries, g_array_unref);
  g_free (self->ends);
  g_free (self->path);
  g_free (self);
}

static gboolean
corrupt (PlZip       *self,
         GError     **error,
         const char  *what)
{
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s (a damaged or truncated zip)", self->path, what);
  return FALSE;
}

/* The end of central directory record: the last one whose comment ends at
 * the end of the file, then its zip64 version when the sizes overflowed. */
static gboolean
find_directory (PlZip    *self,
                guint64  *offset,
                guint64  *size,
                guint64  *count,
                GError  **error)
{
  g_autofree guint8 *tail = NULL;
  guint64 tail_len = MIN (self->file_size, (guint64) EOCD_SIZE + MAX_COMMENT);
  guint64 tail_start = self->file_size - tail_len;
  const guint8 *eocd = NULL;
  guint64 eocd_offset = 0;

  if (self->file_size < EOCD_SIZE)
    return corrupt (self, error, "too short to hold a zip directory");
  tail = g_malloc (tail_len);
  if (!pl_checkpoint_read_exact (self->fd, tail, tail_len, tail_start, self->path, error))
    return FALSE;
  for (guint64 i = tail_len - EOCD_SIZE + 1; i-- > 0;)
    if (le32 (tail + i) == EOCD_SIGNATURE && i + EOCD_SIZE + le16 (tail + i + 20) == tail_len)
      {
        eocd = tail + i;
        eocd_offset = tail_start + i;
        break;
      }
  if (eocd == NULL)
    return corrupt (self, error, "no end of central directory record");
  if (le16 (eocd + 4) != 0 || le16 (eocd + 6) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s is a zip split over several files", self->path);
      return FALSE;
    }
  *count = le16 (eocd + 10);
  *size = le32 (eocd + 12);
  *offset = le32 (eocd + 16);
  self->directory_offset = eocd_offset;

  if (*count == 0xffff || *size == 0xffffffff || *offset == 0xffffffff)
    {
      guint8 locator[ZIP64_LOCATOR_SIZE];
      guint8 record[ZIP64_EOCD_SIZE];
      guint64 record_offset;

      if (eocd_offset < ZIP64_LOCATOR_SIZE ||
          !pl_checkpoint_read_exact (self->fd, locator, sizeof locator, eocd_offset - ZIP64_LOCATOR_SIZE,
                                     self->path, error))
        return corrupt (self, error, "no zip64 directory locator");
      if (le32 (locator) != ZIP64_LOCATOR_SIGNATURE)
        return corrupt (self, error, "no zip64 directory locator");
      record_offset = le64 (locator + 8);
      if (record_offset > eocd_offset - ZIP64_LOCATOR_SIZE ||
          eocd_offset - ZIP64_LOCATOR_SIZE - record_offset < ZIP64_EOCD_SIZE ||
          !pl_checkpoint_read_exact (self->fd, record, sizeof record, record_offset, self->path, error) ||
          le32 (record) != ZIP64_EOCD_SIGNATURE)
        return corrupt (self, error, "the zip64 directory record is missing");
      *count = le64 (record + 32);
      *size = le64 (record + 40);
      *offset = le64 (record + 48);
      self->directory_offset = record_offset;
    }
  if (*offset > self->directory_offset || *size > self->directory_offset - *offset)
    return corrupt (self, error, "the central directory lies outside the file");
  if (*size > MAX_DIRECTORY_BYTES || *count > MAX_ENTRIES)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s: the zip lists %" G_GUINT64_FORMAT " entries in %" G_GUINT64_FORMAT
                   " bytes, more than any checkpoint", self->path, *count, *size);
      return FALSE;
    }
  if (*count > *size / CENTRAL_SIZE)
    return corrupt (self, error, "the central directory is shorter than its entries");
  return TRUE;
}

/* Sizes and offset that overflowed 32 bits are in the zip64 extra field, in
 * this order, present only when their 32-bit field is all ones. */
static gboolean
read_zip64_extra (const guint8 *extra,
                  gsize         len,
                  PlZipEntry   *entry)
{
  gboolean need_size = entry->size == 0xffffffff;
  gboolean need_csize = entry->compressed_size == 0xffffffff;
  gboolean need_offset = entry->header_offset == 0xffffffff;

  while (len >= 4)
    {
      guint16 id = le16 (extra);
      guint16 field_len = le16 (extra + 2);
      const guint8 *p = extra + 4;
      gsize left = field_len;

      if ((gsize) field_len + 4 > len)
        return FALSE;
      if (id == 0x0001)
        {
          if (need_size && left >= 8)
            entry->size = le64 (p), p += 8, left -= 8, need_size = FALSE;
          if (need_csize && left >= 8)
            entry->compressed_size = le64 (p), p += 8, left -= 8, need_csize = FALSE;
          if (need_offset && left >= 8)
            entry->header_offset = le64 (p), need_offset = FALSE;
        }
      extra += 4 + field_len;
      len -= 4 + field_len;
    }
  return !need_size && !need_csize && !need_offset;
}

typedef struct
{
  guint64 offset;
  guint   index;
} Start;

static int
compare_starts (gconstpointer a,
                gconstpointer b)
{
  const Start *x = a, *y = b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Entries follow each other: one entry's header, name and bytes end before
 * the next begins, so no two names stand for one range of bytes. What each
 * may reach is kept for pl_zip_locate, which knows its header's extra field. */
static gboolean
check_layout (PlZip   *self,
              GError **error)
{
  guint n = self->entries->len;
  g_autofree Start *starts = g_new (Start, MAX (n, 1));

  self->ends = g_new (guint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      starts[i].offset = g_array_index (self->entries, PlZipEntry, i).header_offset;
      starts[i].index = i;
    }
  qsort (starts, n, sizeof *starts, compare_starts);
  for (guint k = 0; k < n; k++)
    {
      const PlZipEntry *entry = &g_array_index (self->entries, PlZipEntry, starts[k].index);
      guint64 end = k + 1 < n ? starts[k + 1].offset : self->data_end;

      self->ends[starts[k].index] = end;
      if (entry->header_offset > end || end - entry->header_offset < LOCAL_SIZE + (guint64) strlen (entry->name) ||
          end - entry->header_offset - LOCAL_SIZE - strlen (entry->name) < entry->compressed_size)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: entry %s overlaps %s (a damaged or forged zip)",
                       self->path, entry->name,
                       k + 1 < n ? g_array_index (self->entries, PlZipEntry, starts[k + 1].index).name
                                 : "the zip’s directory");
          return FALSE;
        }
    }
  return TRUE;
}

PlZip *
pl_zip_open (int          fd,
             guint64      file_size,
             const char  *path,
             GError     **error)
{
  g_autoptr(PlZip) self = g_new0 (PlZip, 1);
  g_autofree guint8 *directory = NULL;
  guint64 offset, size, count;
  gsize pos = 0;

  self->fd = fd;
  self->file_size = file_size;
  self->path = g_strdup (path);
  self->entries = g_array_new (FALSE, TRUE, sizeof (PlZipEntry));
  g_array_set_clear_func (self->entries, entry_clear);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  if (!find_directory (self, &offset, &size, &count, error))
    return NULL;
  self->data_end = offset;
  if (!pl_input_file_check_stored (fd, offset, size, path, "its zip directory", error))
    return NULL;
  directory = g_malloc (MAX (size, 1));
  if (!pl_checkpoint_read_exact (fd, directory, size, offset, path, error))
    return NULL;

  for (guint64 i = 0; i < count; i++)
    {
      PlZipEntry entry = { 0 };
      const guint8 *p = directory + pos;
      guint name_len, extra_len, comment_len;

      if (size - pos < CENTRAL_SIZE || le32 (p) != CENTRAL_SIGNATURE)
        {
          corrupt (self, error, "a central directory entry is damaged");
          return NULL;
        }
      name_len = le16 (p + 28);
      extra_len = le16 (p + 30);
      comment_len = le16 (p + 32);
      if (size - pos - CENTRAL_SIZE < (guint64) name_len + extra_len + comment_len)
        {
          corrupt (self, error, "a central directory entry runs past the directory");
          return NULL;
        }
      if (memchr (p + CENTRAL_SIZE, '\0', name_len) != NULL)
        {
          corrupt (self, error, "an entry’s name holds a NUL byte");
          return NULL;
        }
      entry.flags = le16 (p + 8);
      entry.method = le16 (p + 10);
      entry.compressed_size = le32 (p + 20);
      entry.size = le32 (p + 24);
      entry.header_offset = le32 (p + 42);
      entry.name = g_strndup ((const char *) p + CENTRAL_SIZE, name_len);
      if ((entry.size == 0xffffffff || entry.compressed_size == 0xffffffff || entry.header_offset == 0xffffffff) &&
          !read_zip64_extra (p + CENTRAL_SIZE + name_len, extra_len, &entry))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: entry %s lacks its zip64 sizes (a damaged zip)", path, entry.name);
          g_free (entry.name);
          return NULL;
        }
      pos += CENTRAL_SIZE + name_len + extra_len + comment_len;
      g_array_append_val (self->entries, entry);
    }
  /* Two entries of one name are two answers to one question: Python's
   * zipfile and torch read the last, a reader going by the first would read
   * another. torch.save never writes them. */
  for (guint i = 0; i < self->entries->len; i++)
    {
      const char *name = g_array_index (self->entries, PlZipEntry, i).name;

      if (!g_hash_table_insert (self->by_name, (gpointer) name, GUINT_TO_POINTER (i + 1)))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: entry %s appears twice in the zip’s directory",
                       path, name);
          return NULL;
        }
    }
  if (!check_layout (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

int
pl_zip_get_fd (PlZip *self)
{
  return self->fd;
}

guint
pl_zip_get_n_entries (PlZip *self)
{
  return self->entries->len;
}

const PlZipEntry *
pl_zip_get_entry (PlZip *self,
                  guint  i)
{
  g_return_val_if_fail (i < self->entries->len, NULL);
  return &g_array_index (self->entries, PlZipEntry, i);
}

const PlZipEntry *
pl_zip_find (PlZip      *self,
             const char *name)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (self->by_name, name));

  return index ? &g_array_index (self->entries, PlZipEntry, index - 1) : NULL;
}

gboolean
pl_zip_locate (PlZip             *self,
               const PlZipEntry  *entry,
               guint64           *offset,
               GError           **error)
{
  guint8 header[LOCAL_SIZE];
  guint64 data, limit;

  if (entry->flags & 0x1)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: entry %s is encrypted", self->path, entry->name);
      return FALSE;
    }
  if (entry->method != 0 || entry->compressed_size != entry->size)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: entry %s is compressed (method %u); PyTorch stores its entries uncompressed, "
                   "and Poslens reads them in place", self->path, entry->name, entry->method);
      return FALSE;
    }
  if (entry->header_offset > self->data_end || self->data_end - entry->header_offset < LOCAL_SIZE ||
      !pl_checkpoint_read_exact (self->fd, header, sizeof header, entry->header_offset, self->path, error) ||
      le32 (header) != LOCAL_SIGNATURE)
    {
      g_clear_error (error);
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the local header of entry %s is missing (a damaged zip)", self->path, entry->name);
      return FALSE;
    }
  /* Entries end before the next one, or the central directory, begins. */
  data = entry->header_offset + LOCAL_SIZE + le16 (header + 26) + le16 (header + 28);
  limit = self->ends[entry - (const PlZipEntry *) (gpointer) self->entries->data];
  if (data > limit || entry->size > limit - data)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: entry %s claims %" G_GUINT64_FORMAT " bytes, more than the file holds (truncated?)",
                   self->path, entry->name, entry->size);
      return FALSE;
    }
  *offset = data;
  return TRUE;
}
