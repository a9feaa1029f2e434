/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "pl-error.h"
#include "pl-json.h"

/* Deeper than any real config or header; json-glib recurses per level. */
#define MAX_JSON_DEPTH 64

JsonParser *
pl_json_parse (const char  *text,
               gsize        len,
               const char  *what,
               GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  gboolean in_string = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > MAX_JSON_DEPTH)
            {
              g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                           "%s nests deeper than %d levels, which no real file does", what, MAX_JSON_DEPTH);
              return NULL;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }

  if (!json_parser_load_from_data (parser, text, len, &local_error))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is not valid JSON: %s", what, local_error->message);
      return NULL;
    }
  return g_steal_pointer (&parser);
}

JsonParser *
pl_json_parse_file (const char  *path,
                    gsize        max_bytes,
                    GError     **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;
  GStatBuf st;
  gsize len;

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;

      g_set_error (error, PL_ERROR, saved == ENOENT ? PL_ERROR_NOT_FOUND : PL_ERROR_FAILED,
                   "%s: %s", path, g_strerror (saved));
      return NULL;
    }
  if ((guint64) st.st_size > max_bytes)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s is %" G_GUINT64_FORMAT " bytes, far more than such a file holds",
                   path, (guint64) st.st_size);
      return NULL;
    }
  if (!g_file_get_contents (path, &text, &len, &local_error))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s", local_error->message);
      return NULL;
    }
  return pl_json_parse (text, len, path, error);
}
