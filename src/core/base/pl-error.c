/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"

G_DEFINE_QUARK (pl-error-quark, pl_error)

char *
pl_escape_text (const char *text,
                gssize      length)
{
  GString *out;
  const char *p, *end;

  g_return_val_if_fail (text != NULL || length == 0, NULL);

  if (length < 0)
    length = strlen (text);
  out = g_string_sized_new (length);
  end = text + length;
  for (p = text; p < end;)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      switch (c)
        {
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case 0x1b:
          g_string_append (out, "\\e");
          break;
        default:
          /* C0, DEL and C1 (0x9b is a terminal's one-byte CSI). */
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
          else if (c >= 0x80 && c < 0xa0)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
          break;
        }
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
pl_error_sentence (const char *message)
{
  gunichar upper;
  char first[7] = { 0 };

  g_return_val_if_fail (message != NULL, NULL);

  if (!g_unichar_islower (g_utf8_get_char (message)))
    return g_strdup (message);
  for (const char *p = message; *p != '\0' && *p != ' '; p = g_utf8_next_char (p))
    if (!g_unichar_isalpha (g_utf8_get_char (p)))
      return g_strdup (message);
  upper = g_unichar_toupper (g_utf8_get_char (message));
  g_unichar_to_utf8 (upper, first);
  return g_strconcat (first, g_utf8_next_char (message), NULL);
}
