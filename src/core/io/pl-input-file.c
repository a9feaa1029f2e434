/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SEEK_DATA and SEEK_HOLE */
#define _GNU_SOURCE 1

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-input-file.h"

/* Holes up to this size are let through: a few zero blocks a copy made
 * sparse (cp --sparse) cost nothing to read. */
#define HOLE_TOLERANCE ((guint64) 1 << 20)

static const char *
kind_of (const GStatBuf *st)
{
  if (S_ISDIR (st->st_mode))
    return "a folder";
  if (S_ISFIFO (st->st_mode))
    return "a pipe";
  if (S_ISSOCK (st->st_mode))
    return "a socket";
  if (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode))
    return "a device";
  return "not a file";
}

int
pl_input_file_open (const char  *path,
                    GStatBuf    *st,
                    GError     **error)
{
  GStatBuf local;
  int fd;

  g_return_val_if_fail (path != NULL, -1);

  if (st == NULL)
    st = &local;
  /* O_NONBLOCK: opening a pipe must not wait for a writer before it is
   * refused; it changes nothing for a regular file. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0 || fstat (fd, st) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, PL_ERROR, saved == ENOENT ? PL_ERROR_NOT_FOUND : PL_ERROR_FAILED,
                   "%s: %s", path, g_strerror (saved));
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      GStatBuf link;

      if (g_lstat (path, &link) == 0 && S_ISLNK (link.st_mode))
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is a link to %s, not to a regular file; Poslens follows links only to regular files",
                     path, kind_of (st));
      else
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is %s, not a regular file", path, kind_of (st));
      close (fd);
      return -1;
    }
  return fd;
}

/* Where SEEK_DATA is not known: what the file system allocated to the whole
 * file must cover what is about to be read. */
static guint64
stored_by_blocks (int     fd,
                  guint64 length)
{
  GStatBuf st;

  if (fstat (fd, &st) != 0)
    return length;
  return MIN ((guint64) st.st_blocks * 512, length);
}

gboolean
pl_input_file_check_stored (int          fd,
                            guint64      offset,
                            guint64      length,
                            const char  *path,
                            const char  *what,
                            GError     **error)
{
  guint64 end, pos, holes = 0;
  off_t saved_offset;

  g_return_val_if_fail (path != NULL, FALSE);

  /* A small read costs nothing, whatever the file holds. */
  if (length <= HOLE_TOLERANCE)
    return TRUE;
  /* The walk below moves FD's offset; a caller reading FD next with read()
   * finds it where it left it. */
  saved_offset = lseek (fd, 0, SEEK_CUR);
  if (offset > G_MAXINT64 || length > G_MAXINT64 - offset)
    holes = length;
  else
    {
      end = offset + length;
      pos = offset;
      /* One data extent per turn: bounded by the extents in the range. */
      while (pos < end)
        {
          off_t data = lseek (fd, (off_t) pos, SEEK_DATA);
          off_t hole;

          if (data < 0 && errno != ENXIO)
            {
              holes = length - stored_by_blocks (fd, length);
              break;
            }
          if (data < 0 || (guint64) data >= end)
            {
              /* ENXIO: nothing is stored from POS to the end of the file. */
              holes += end - pos;
              break;
            }
          holes += (guint64) data - pos;
          hole = lseek (fd, data, SEEK_HOLE);
          if (hole <= data)
            break;
          pos = (guint64) hole;
        }
    }
  if (saved_offset >= 0)
    lseek (fd, saved_offset, SEEK_SET);

  if (holes <= HOLE_TOLERANCE || holes <= length / 2)
    return TRUE;
  {
    g_autofree char *declared = g_format_size_full (length, G_FORMAT_SIZE_IEC_UNITS);
    g_autofree char *stored = g_format_size_full (length - holes, G_FORMAT_SIZE_IEC_UNITS);

    if (what != NULL)
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” declares %s, but the file stores only %s of them: the rest are holes of a "
                   "sparse file, never written", path, what, declared, stored);
    else
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s declares %s, but stores only %s of them: the rest are holes of a sparse file, "
                   "never written", path, declared, stored);
  }
  return FALSE;
}

char *
pl_input_file_read_all (const char  *path,
                        gsize        max_bytes,
                        gsize       *length,
                        GError     **error)
{
  g_autofree char *contents = NULL;
  GStatBuf st;
  gsize size, alloc, got = 0;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  if ((fd = pl_input_file_open (path, &st, error)) < 0)
    return NULL;
  if ((guint64) st.st_size > max_bytes)
    {
      g_autofree char *size_text = g_format_size_full (st.st_size, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s is %s, far more than such a file holds", path, size_text);
      close (fd);
      return NULL;
    }
  size = st.st_size;
  if (!pl_input_file_check_stored (fd, 0, size, path, NULL, error))
    {
      close (fd);
      return NULL;
    }
  /* One byte more than the size, to tell a file that ends there from one
   * that goes on: a file grown meanwhile, or one of /proc, whose size says
   * 0 whatever it holds. Such a file is read to its end, within MAX_BYTES. */
  alloc = size + 1;
  contents = g_try_malloc (alloc + 1);
  if (contents == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE, "%s: out of memory to read it", path);
      close (fd);
      return NULL;
    }
  for (;;)
    {
      ssize_t n = pread (fd, contents + got, alloc - got, (off_t) got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      got += n;
      if (got == alloc)
        {
          if (got > max_bytes)
            {
              g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                           "%s holds more than %" G_GSIZE_FORMAT " bytes, far more than such a file holds",
                           path, max_bytes);
              close (fd);
              return NULL;
            }
          alloc = MIN (MAX (alloc * 2, (gsize) 4096), max_bytes + 1);
          contents = g_realloc (contents, alloc + 1);
        }
    }
  /* The size was taken once: one that shrinks meanwhile is an error, never
   * a shorter text. */
  if (got < size)
    {
      g_autofree char *want = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: only %" G_GSIZE_FORMAT " of its %s could be read; the file changed or is damaged",
                   path, got, want);
      close (fd);
      return NULL;
    }
  close (fd);
  contents[got] = '\0';
  if (length != NULL)
    *length = got;
  return g_steal_pointer (&contents);
}
