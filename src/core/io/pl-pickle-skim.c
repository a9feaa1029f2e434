/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-pickle.h"

/* Where a pickle in a file ends, found by stepping over its instructions
 * and their arguments without building anything: a legacy PyTorch file's
 * pickles are read exactly, each once, however long. */

/* A text argument (protocol 0's numbers, names, strings) longer than this
 * is not one a state dict writes. */
#define MAX_LINE     ((gsize) 1 << 20)
/* The window starts small (a legacy file's first pickles are tens of
 * bytes) and doubles with each refill, up to WINDOW_BYTES. */
#define FIRST_WINDOW ((gsize) 4 << 10)
#define WINDOW_BYTES ((gsize) 1 << 20)
#define SHORT_REST   ((guint64) 1 << 20)

typedef enum
{
  ARG_NONE,
  ARG_FIXED,     /* N bytes */
  ARG_LENGTH,    /* an N-byte little-endian length, then that many bytes */
  ARG_LINES,     /* N lines ending in '\n' */
  ARG_UNKNOWN,
} ArgKind;

static ArgKind
argument_of (guint8  op,
             guint  *n)
{
  switch (op)
    {
    case '(': case '.': case '0': case '1': case '2': case 'N': case ')': case ']': case '}': case 'a':
    case 'b': case 'd': case 'e': case 'l': case 'o': case 's': case 't': case 'u': case 'R': case 'Q':
    case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89: case 0x8f: case 0x90: case 0x91:
    case 0x92: case 0x93: case 0x94: case 0x97: case 0x98:
      *n = 0;
      return ARG_NONE;
    case 'K': case 'h': case 'q': case 0x80: case 0x82:
      *n = 1;
      return ARG_FIXED;
    case 'M': case 0x83:
      *n = 2;
      return ARG_FIXED;
    case 'J': case 'j': case 'r': case 0x84:
      *n = 4;
      return ARG_FIXED;
    case 'G': case 0x95:
      *n = 8;
      return ARG_FIXED;
    case 'U': case 'C': case 0x8c: case 0x8a:
      *n = 1;
      return ARG_LENGTH;
    case 'T': case 'B': case 'X': case 0x8b:
      *n = 4;
      return ARG_LENGTH;
    case 0x8d: case 0x8e: case 0x96:
      *n = 8;
      return ARG_LENGTH;
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g': case 'P':
      *n = 1;
      return ARG_LINES;
    case 'c': case 'i':
      *n = 2;
      return ARG_LINES;
    default:
      return ARG_UNKNOWN;
    }
}

/* Bytes [start, start + len) of the file, as much of them as it holds. */
typedef struct
{
  int      fd;
  guint64  size;
  guint8  *buf;
  gsize    capacity;
  guint64  start;
  gsize    len;
} Window;

static gboolean
fill (Window      *w,
      guint64      from,
      gsize        want,
      const char  *path,
      GError     **error)
{
  if (want > w->capacity)
    {
      w->capacity = want;
      w->buf = g_realloc (w->buf, want);
    }
  w->start = from;
  w->len = 0;
  want = (gsize) MIN ((guint64) want, w->size - MIN (from, w->size));
  while (w->len < want)
    {
      ssize_t got = pread (w->fd, w->buf + w->len, want - w->len, (off_t) (from + w->len));

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;

          g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
          return FALSE;
        }
      if (got == 0)
        break;
      w->len += got;
    }
  return TRUE;
}

/* N bytes at POS in the window, read in when they are not: NULL at the
 * file's end. */
static const guint8 *
bytes_at (Window      *w,
          guint64      pos,
          gsize        n,
          const char  *path,
          GError     **error,
          gboolean    *failed)
{
  *failed = FALSE;
  if (pos < w->start || pos + n > w->start + w->len)
    {
      if (!fill (w, pos, w->capacity == 0 ? FIRST_WINDOW : MIN (w->capacity * 2, WINDOW_BYTES), path, error))
        {
          *failed = TRUE;
          return NULL;
        }
      if (n > w->len)
        return NULL;
    }
  return w->buf + (pos - w->start);
}

gboolean
pl_pickle_find_end (int          fd,
                    guint64      size,
                    guint64      offset,
                    guint64      max_len,
                    const char  *path,
                    guint64     *end,
                    GError     **error)
{
  Window w = { fd, size, NULL, 0, 0, 0 };
  guint64 pos = offset;
  gboolean ok = FALSE;
  gboolean failed = FALSE;

  g_return_val_if_fail (path != NULL && end != NULL, FALSE);

  for (;;)
    {
      const guint8 *p;
      guint8 op;
      guint n;

      if (pos - offset > max_len)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                       "%s: a pickle runs past %" G_GUINT64_FORMAT " MB, more than any state dict’s",
                       path, max_len >> 20);
          break;
        }
      if ((p = bytes_at (&w, pos, 1, path, error, &failed)) == NULL)
        goto ended;
      op = *p;
      pos++;
      switch (argument_of (op, &n))
        {
        case ARG_NONE:
          if (op == '.')
            {
              *end = pos;
              ok = TRUE;
              goto out;
            }
          break;
        case ARG_FIXED:
          pos += n;
          break;
        case ARG_LENGTH:
          {
            guint64 len = 0;

            if ((p = bytes_at (&w, pos, n, path, error, &failed)) == NULL)
              goto ended;
            for (guint i = 0; i < n; i++)
              len |= (guint64) p[i] << (8 * i);
            if (len > size)
              goto ended;
            pos += n + len;
          }
          break;
        case ARG_LINES:
          for (guint line = 0; line < n; line++)
            {
              const guint8 *nl = NULL;

              /* In the window, or a window from the line's start, grown until
               * the line's end is in it. */
              if (pos >= w.start && pos < w.start + w.len)
                nl = memchr (w.buf + (pos - w.start), '\n', w.len - (pos - w.start));
              if (nl != NULL)
                {
                  pos = w.start + (nl - w.buf) + 1;
                  continue;
                }
              for (gsize want = MAX (w.capacity, FIRST_WINDOW); nl == NULL; want *= 2)
                {
                  if (want > MAX (MAX_LINE * 2, WINDOW_BYTES))
                    {
                      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                                   "%s: a pickle holds a text line longer than 1 MiB, which no state dict writes", path);
                      goto out;
                    }
                  if (!fill (&w, pos, want, path, error))
                    goto out;
                  nl = memchr (w.buf, '\n', w.len);
                  if (nl == NULL && w.len < want)
                    goto ended;
                }
              pos += (nl - w.buf) + 1;
            }
          break;
        case ARG_UNKNOWN:
        default:
          /* The reader names it: the pickle is read up to it. */
          *end = pos;
          ok = TRUE;
          goto out;
        }
    }
  goto out;

ended:
  /* The file ends inside the pickle. A short rest is read whole for the
   * reader to say what is wrong where; a long one is not. */
  if (!failed && size - MIN (offset, size) <= SHORT_REST)
    {
      *end = size;
      ok = TRUE;
    }
  else if (!failed)
    g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the data ends inside the pickle (truncated?)", path);
out:
  g_free (w.buf);
  return ok;
}
