/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

G_BEGIN_DECLS

/* The rules every reader applies to a file a user or a checkpoint names.
 *
 * Symbolic links are followed, because Hugging Face's cache is made of them
 * (snapshots/REV/model.safetensors → ../../blobs/HASH), but only to a
 * regular file: a link to a folder, a device, a pipe or a socket is refused
 * by name before a byte is read, as is such a file itself.
 *
 * A file may declare more bytes than it stores: a sparse file's holes read as
 * zeros the disk never held, so a few kilobytes can declare gigabytes. The
 * bytes a reader is about to read are checked against what the file stores
 * first, so the work and memory a file causes stay bounded by its real size. */

/* Opens PATH read-only for reading (O_CLOEXEC, never as a terminal): the
 * descriptor, or -1 with ERROR naming PATH. ST, when given, receives the
 * file's status. */
int       pl_input_file_open         (const char   *path,
                                      GStatBuf     *st,
                                      GError      **error);

/* The whole of PATH, NUL-terminated (LENGTH excludes the NUL): refused when
 * it is larger than MAX_BYTES or stores fewer bytes than it declares. */
char     *pl_input_file_read_all     (const char   *path,
                                      gsize         max_bytes,
                                      gsize        *length,
                                      GError      **error);

/* TRUE when FD stores the bytes [OFFSET, OFFSET + LENGTH) that a reader is
 * about to read; FALSE with ERROR ("PATH: WHAT declares …, but the file
 * stores only …") when most of them, and more than 1 MiB, are holes. */
gboolean  pl_input_file_check_stored (int           fd,
                                      guint64       offset,
                                      guint64       length,
                                      const char   *path,
                                      const char   *what,
                                      GError      **error);

G_END_DECLS
