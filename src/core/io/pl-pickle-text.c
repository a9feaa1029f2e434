/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-pickle-private.h"

/* The instructions of pickle protocols 0 and 1 whose arguments are lines of
 * text: what torch.save (…, pickle_protocol=0 or 1) writes around the binary
 * ones of protocol 1, and what Python 2 wrote. Numbers are decimal, str is
 * written in raw-unicode-escape (V) or as a quoted Python 2 literal (S). */

/* The line at the reading position, without its '\n'. */
static gboolean
read_text_line (PlPickle     *self,
                const char  **line,
                gsize        *len,
                GError      **error)
{
  const guint8 *start = self->data + self->pos;
  const guint8 *nl = memchr (start, '\n', self->len - self->pos);

  if (nl == NULL)
    return pl_pickle_ran_out (self, error);
  *line = (const char *) start;
  *len = nl - start;
  self->pos += *len + 1;
  return TRUE;
}

/* A decimal integer of LEN bytes, optionally signed; a long's final 'L'
 * (Python 2's repr) is dropped. Values past 64 bits are kept as their
 * little-endian two's complement bytes, as LONG1 keeps them. */
static PlPickleValue *
parse_integer (PlPickle    *self,
               const char  *text,
               gsize        len,
               GError     **error)
{
  g_autofree char *copy = NULL;
  gboolean negative = FALSE;
  PlPickleValue *value;
  gint64 v;

  if (len > 0 && text[len - 1] == 'L')
    len--;
  copy = g_strndup (text, len);
  if (g_ascii_string_to_signed (copy, 10, G_MININT64, G_MAXINT64, &v, NULL))
    {
      if ((value = pl_pickle_new_value (self, PL_PICKLE_INT, error)) != NULL)
        value->integer = v;
      return value;
    }
  /* Wider than 64 bits: the digits into bytes, least significant first. */
  {
    const char *digits = copy;
    guint8 *bytes;
    gsize n = 1;

    if (*digits == '-' || *digits == '+')
      negative = *digits++ == '-';
    if (*digits == '\0' || strspn (digits, "0123456789") != strlen (digits) || strlen (digits) > 64)
      {
        pl_pickle_fail (self, error, "“%s” is not an integer a state dict holds", copy);
        return NULL;
      }
    if ((bytes = pl_pickle_alloc_text (self, strlen (digits) / 2 + 2, error)) == NULL)
      return NULL;
    bytes[0] = 0;
    for (const char *d = digits; *d != '\0'; d++)
      {
        guint carry = *d - '0';

        for (gsize i = 0; i < n; i++)
          {
            guint x = bytes[i] * 10 + carry;

            bytes[i] = x & 0xff;
            carry = x >> 8;
          }
        if (carry > 0)
          bytes[n++] = carry;
      }
    /* Two's complement: a sign byte when the top bit is set, then negated. */
    if (bytes[n - 1] & 0x80)
      bytes[n++] = 0;
    if (negative)
      {
        guint carry = 1;

        for (gsize i = 0; i < n; i++)
          {
            guint x = (guint8) ~bytes[i] + carry;

            bytes[i] = x & 0xff;
            carry = x >> 8;
          }
      }
    if ((value = pl_pickle_new_value (self, PL_PICKLE_BIG_INT, error)) != NULL)
      {
        value->bytes.data = (const char *) bytes;
        value->bytes.len = n;
      }
    return value;
  }
}

/* V: raw-unicode-escape. Bytes are Latin-1 characters but \uXXXX and
 * \UXXXXXXXX, which stand for the characters they name. */
static PlPickleValue *
parse_unicode (PlPickle    *self,
               const char  *text,
               gsize        len,
               GError     **error)
{
  char *out = pl_pickle_alloc_text (self, len * 2 + 1, error);
  gsize n = 0;
  PlPickleValue *value;

  if (out == NULL)
    return NULL;
  for (gsize i = 0; i < len;)
    {
      gunichar c = (guchar) text[i];
      guint digits = 0;

      if (c == '\\' && i + 1 < len && (text[i + 1] == 'u' || text[i + 1] == 'U'))
        digits = text[i + 1] == 'u' ? 4 : 8;
      if (digits > 0)
        {
          g_autofree char *hex = NULL;
          guint64 code;

          if (i + 2 + digits > len ||
              !g_ascii_string_to_unsigned ((hex = g_strndup (text + i + 2, digits)), 16, 0, 0x10ffff, &code, NULL) ||
              (code >= 0xd800 && code < 0xe000))
            {
              pl_pickle_fail (self, error, "a text holds a broken \\u escape");
              return NULL;
            }
          c = (gunichar) code;
          i += 2 + digits;
        }
      else
        i++;
      /* At most 4 bytes for the 6 or 10 of an escape, 2 for a Latin-1 byte. */
      n += g_unichar_to_utf8 (c, out + n);
    }
  if ((value = pl_pickle_new_value (self, PL_PICKLE_STRING, error)) != NULL)
    {
      value->bytes.data = out;
      value->bytes.len = n;
    }
  return value;
}

/* S: a Python 2 str, quoted with ' or " as repr writes it, escapes and all. */
static PlPickleValue *
parse_quoted (PlPickle    *self,
              const char  *text,
              gsize        len,
              GError     **error)
{
  char *out;
  gsize n = 0;
  PlPickleValue *value;

  if (len < 2 || (text[0] != '\'' && text[0] != '"') || text[len - 1] != text[0])
    {
      pl_pickle_fail (self, error, "a quoted string is not quoted");
      return NULL;
    }
  if ((out = pl_pickle_alloc_text (self, len, error)) == NULL)
    return NULL;
  for (gsize i = 1; i + 1 < len; i++)
    {
      char c = text[i];

      if (c == '\\' && i + 2 < len)
        {
          c = text[++i];
          switch (c)
            {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'a': c = '\a'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'v': c = '\v'; break;
            case '\\': case '\'': case '"': break;
            case 'x':
              if (i + 3 < len && g_ascii_isxdigit (text[i + 1]) && g_ascii_isxdigit (text[i + 2]))
                {
                  c = (char) (g_ascii_xdigit_value (text[i + 1]) * 16 + g_ascii_xdigit_value (text[i + 2]));
                  i += 2;
                  break;
                }
              G_GNUC_FALLTHROUGH;
            default:
              if (c >= '0' && c <= '7')
                {
                  guint v = c - '0';

                  for (guint k = 0; k < 2 && i + 2 < len && text[i + 1] >= '0' && text[i + 1] <= '7'; k++)
                    v = v * 8 + (text[++i] - '0');
                  c = (char) v;
                  break;
                }
              pl_pickle_fail (self, error, "a quoted string holds an escape Python does not write");
              return NULL;
            }
        }
      out[n++] = c;
    }
  if ((value = pl_pickle_new_value (self, PL_PICKLE_BYTES, error)) != NULL)
    {
      value->bytes.data = out;
      value->bytes.len = n;
    }
  return value;
}

static gboolean
parse_index (PlPickle    *self,
             const char  *text,
             gsize        len,
             guint64     *index,
             GError     **error)
{
  g_autofree char *copy = g_strndup (text, len);

  if (!g_ascii_string_to_unsigned (copy, 10, 0, G_MAXUINT32, index, NULL))
    return pl_pickle_fail (self, error, "a memo index is not a number");
  return TRUE;
}

gboolean
pl_pickle_step_text (PlPickle  *self,
                     guint8     op,
                     gboolean  *handled,
                     GError   **error)
{
  const char *line = NULL;
  gsize len = 0;
  guint64 index;

  *handled = TRUE;
  switch (op)
    {
    case 'I': /* INT; "00" and "01" are False and True */
      if (!read_text_line (self, &line, &len, error))
        return FALSE;
      if (len == 2 && line[0] == '0' && (line[1] == '0' || line[1] == '1'))
        return pl_pickle_push (self, pl_pickle_bool (line[1] == '1'), error);
      return pl_pickle_push (self, parse_integer (self, line, len, error), error);
    case 'L': /* LONG */
      return read_text_line (self, &line, &len, error) &&
             pl_pickle_push (self, parse_integer (self, line, len, error), error);
    case 'F': /* FLOAT, as repr writes it */
      {
        g_autofree char *copy = NULL;
        PlPickleValue *value;
        char *end = NULL;
        double v;

        if (!read_text_line (self, &line, &len, error))
          return FALSE;
        copy = g_strndup (line, len);
        v = g_ascii_strtod (copy, &end);
        if (len == 0 || end != copy + len)
          return pl_pickle_fail (self, error, "“%s” is not a number", copy);
        if ((value = pl_pickle_new_value (self, PL_PICKLE_FLOAT, error)) == NULL)
          return FALSE;
        value->real = v;
        return pl_pickle_push (self, value, error);
      }
    case 'V': /* UNICODE */
      return read_text_line (self, &line, &len, error) &&
             pl_pickle_push (self, parse_unicode (self, line, len, error), error);
    case 'S': /* STRING */
      return read_text_line (self, &line, &len, error) &&
             pl_pickle_push (self, parse_quoted (self, line, len, error), error);
    case 'p': /* PUT */
      return read_text_line (self, &line, &len, error) && parse_index (self, line, len, &index, error) &&
             pl_pickle_memo_put (self, index, error);
    case 'g': /* GET */
      return read_text_line (self, &line, &len, error) && parse_index (self, line, len, &index, error) &&
             pl_pickle_memo_get (self, index, error);
    case 'P': /* PERSID */
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: its storages are referred to in text, as pickle protocol 0 writes them, which PyTorch "
                   "cannot load either (pickle byte %" G_GSIZE_FORMAT "); save it again with protocol 2 or later",
                   self->what, self->pos - 1 - self->start);
      return FALSE;
    default:
      *handled = FALSE;
      return FALSE;
    }
}
