/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-tokenizer.h"

static void
print_json (PlTokenizer *tok,
            GArray      *ids,
            GPtrArray   *tokens)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "tokenizer");
  json_builder_add_string_value (builder, pl_tokenizer_get_kind_name (tok));
  json_builder_set_member_name (builder, "source");
  json_builder_add_string_value (builder, pl_tokenizer_get_source (tok));
  json_builder_set_member_name (builder, "vocab_size");
  json_builder_add_int_value (builder, pl_tokenizer_get_vocab_size (tok));
  json_builder_set_member_name (builder, "n_tokens");
  json_builder_add_int_value (builder, ids->len);
  json_builder_set_member_name (builder, "ids");
  json_builder_begin_array (builder);
  for (guint i = 0; i < ids->len; i++)
    json_builder_add_int_value (builder, g_array_index (ids, int, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "tokens");
  json_builder_begin_array (builder);
  for (guint i = 0; i < tokens->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (tokens, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  pl_cli_print_json (builder);
}

static void
print_table (PlTokenizer *tok,
             GArray      *ids,
             GPtrArray   *tokens)
{
  g_autofree char *source = pl_escape_text (pl_tokenizer_get_source (tok), -1);

  printf ("# %s tokenizer from %s: %u tokens\n# position\tid\ttoken\n",
          pl_tokenizer_get_kind_name (tok), source, ids->len);
  /* A token is any text the tokenizer's file holds: a newline, a tab, an ESC. */
  for (guint i = 0; i < ids->len; i++)
    {
      g_autofree char *token = pl_escape_text (g_ptr_array_index (tokens, i), -1);

      printf ("%u\t%d\t%s\n", i, g_array_index (ids, int, i), token);
    }
}

/* A text to tokenise: a book is a few megabytes. */
#define MAX_TEXT_BYTES ((gsize) 256 << 20)

/* FILE's text, or standard input's for "-": refused, naming it, when it
 * is too large, is not UTF-8 or holds a NUL byte (tokenising stopped there
 * and said nothing of the rest). */
static char *
read_text_file (const char  *path,
                GError     **error)
{
  g_autofree char *contents = NULL;
  const char *name = g_strcmp0 (path, "-") == 0 ? "standard input" : path;
  const char *bad = NULL;
  const char *nul;
  gsize len = 0;

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GString) all = g_string_new (NULL);
      char buffer[65536];
      gsize n;

      while (all->len <= MAX_TEXT_BYTES && (n = fread (buffer, 1, sizeof buffer, stdin)) > 0)
        g_string_append_len (all, buffer, n);
      /* A read that failed ends the loop as the end would: say so, never
       * tokenise the part before it. */
      if (ferror (stdin))
        {
          int saved = errno;

          g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Cannot read the text from %s: %s", name,
                       g_strerror (saved));
          return NULL;
        }
      if (all->len > MAX_TEXT_BYTES)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                       "%s holds more than %" G_GSIZE_FORMAT " MiB of text", name, MAX_TEXT_BYTES >> 20);
          return NULL;
        }
      len = all->len;
      contents = g_string_free (g_steal_pointer (&all), FALSE);
    }
  else if ((contents = pl_input_file_read_all (path, MAX_TEXT_BYTES, &len, error)) == NULL)
    {
      g_prefix_error (error, "Cannot read the text file: ");
      return NULL;
    }
  if ((nul = memchr (contents, '\0', len)) != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s holds a NUL byte at offset %" G_GSIZE_FORMAT ", which text does not: it is not a text file",
                   name, (gsize) (nul - contents));
      return NULL;
    }
  if (!g_utf8_validate (contents, len, &bad))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s is not valid UTF-8 text (byte 0x%02x at offset %" G_GSIZE_FORMAT "); save it as UTF-8",
                   name, (guchar) *bad, (gsize) (bad - contents));
      return NULL;
    }
  return g_steal_pointer (&contents);
}

int
pl_cli_tokenize (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GPtrArray) tokens = NULL;
  g_autofree char *text = NULL;
  g_autofree char *file = NULL;
  gboolean json = FALSE;
  /* FILENAME, not STRING: the bytes come through unconverted, so text that
   * is not UTF-8 gets a clear error instead of an option-parsing one. */
  const GOptionEntry entries[] = {
    { "text", 't', 0, G_OPTION_ARG_FILENAME, &text, N_("The text to tokenise (UTF-8)"), N_("TEXT") },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &file, N_("Read the text from FILE (“-” for standard input)"), N_("FILE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { NULL }
  };

  context = g_option_context_new (_("PATH — the ids and tokens a model sees for a text"));
  g_option_context_set_description (context,
    _("PATH is a checkpoint folder, a checkpoint file (its tokenizer files sit beside it) "
      "or a tokenizer file: tokenizer.json, vocab.txt, vocab.json (with merges.txt)."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return pl_cli_usage ("tokenize", error->message);
  if (argc != 2)
    return pl_cli_usage ("tokenize", "expected one PATH (a checkpoint folder or file, or a tokenizer file)");
  if ((text == NULL) == (file == NULL))
    return pl_cli_usage ("tokenize", "give the text with --text TEXT or --file FILE (one of them)");

  if (file != NULL && (text = read_text_file (file, &error)) == NULL)
    return pl_cli_fail (error);
  tok = pl_tokenizer_new_for_model_dir (argv[1], &error);
  if (tok == NULL || !pl_tokenizer_encode (tok, text, &ids, &tokens, &error))
    return pl_cli_fail (error);

  if (json)
    print_json (tok, ids, tokens);
  else
    print_table (tok, ids, tokens);
  return PL_CLI_EXIT_OK;
}
