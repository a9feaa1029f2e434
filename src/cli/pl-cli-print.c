/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-error.h"

/* What poslens-cli prints besides numbers. Names, paths and messages come
 * from files and from the command line: they go through pl_escape_text
 * before they reach the terminal, so a tensor named with an ESC sequence
 * shows as \e[…, not as a colour or a cleared screen. */

int
pl_cli_fail (const GError *error)
{
  g_autofree char *line = pl_escape_text (error->message, -1);

  /* One line, whatever the library said: newlines are escaped too. */
  fprintf (stderr, "poslens-cli: %s\n", line);
  return PL_CLI_EXIT_INPUT;
}

int
pl_cli_usage (const char *command,
              const char *message)
{
  g_autofree char *line = pl_escape_text (message, -1);

  fprintf (stderr, "poslens-cli %s: %s\n", command, line);
  return PL_CLI_EXIT_USAGE;
}

void
pl_cli_warn_few_pairs (const char *command,
                       const char *model,
                       guint       n_pairs,
                       gsize       n_features)
{
  g_autofree char *message = NULL;
  g_autofree char *line = NULL;

  if (n_pairs >= n_features)
    return;
  /* Translators: a model's name, its pair count and its feature count */
  message = g_strdup_printf (_("warning: %s: %u pairs, fewer than its %u features: "
                               "the relative-order error mostly measures the sample, not the table"),
                             model, n_pairs, (guint) n_features);
  line = pl_escape_text (message, -1);
  fprintf (stderr, "poslens-cli %s: %s\n", command, line);
}

void
pl_cli_print_json (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autoptr(GString) out = NULL;
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);

  /* json-glib escapes C0 controls in strings but leaves DEL and the C1
   * controls (U+009B is a one-byte CSI to some terminals): those can only
   * stand inside strings, where \u escapes mean the same. */
  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0';)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      /* A name that is not UTF-8 (HDF5 allows any bytes) is a string too. */
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append (out, "\\ufffd");
          p++;
          continue;
        }
      if (c == 0x7f || (c >= 0x80 && c < 0xa0))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  printf ("%s\n", out->str);
}
