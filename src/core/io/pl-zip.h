/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The directory of a zip archive, as PyTorch's checkpoints need it: entry
 * names, sizes and where each stored entry's bytes begin, read with
 * positioned reads (so any thread can read entries at once) and bounded by
 * the file's size. Compressed entries are listed, to be refused by name. */

typedef struct
{
  char    *name;
  guint16  method;            /* 0: stored; anything else is compressed */
  guint16  flags;
  guint64  size;              /* uncompressed */
  guint64  compressed_size;
  guint64  header_offset;     /* of its local header */
} PlZipEntry;

typedef struct _PlZip PlZip;

/* Reads the central directory of the zip in FD (of FILE_SIZE bytes); PATH
 * names it in messages. */
PlZip            *pl_zip_open        (int               fd,
                                      guint64           file_size,
                                      const char       *path,
                                      GError          **error);
void              pl_zip_free        (PlZip            *self);
guint             pl_zip_get_n_entries (PlZip          *self);
int               pl_zip_get_fd      (PlZip            *self);
const PlZipEntry *pl_zip_get_entry   (PlZip            *self,
                                      guint             i);
const PlZipEntry *pl_zip_find        (PlZip            *self,
                                      const char       *name);
/* Where ENTRY's bytes begin in the file, from its local header; refuses
 * compressed or encrypted entries, and entries that end past the file. */
gboolean          pl_zip_locate      (PlZip            *self,
                                      const PlZipEntry *entry,
                                      guint64          *offset,
                                      GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlZip, pl_zip_free)

G_END_DECLS
