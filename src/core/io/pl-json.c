/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pl-error.h"
#include "pl-input-file.h"
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
      /* json-glib says "<data>:LINE:COLUMN: Parse error: …", quoting the
       * file's bytes: where, in words, and those bytes escaped. */
      const char *detail = local_error->message;
      g_autofree char *escaped = NULL;
      guint line = 0, column = 0;
      int skip = 0;

      if (sscanf (detail, "<data>:%u:%u: %n", &line, &column, &skip) == 2 && skip > 0)
        detail += skip;
      if (g_str_has_prefix (detail, "Parse error: "))
        detail += strlen ("Parse error: ");
      escaped = pl_escape_text (detail, -1);
      if (line > 0)
        g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                     "%s is not valid JSON (line %u, column %u): %s", what, line, column, escaped);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is not valid JSON: %s", what, escaped);
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
  gsize len;

  if ((text = pl_input_file_read_all (path, max_bytes, &len, error)) == NULL)
    return NULL;
  return pl_json_parse (text, len, path, error);
}
