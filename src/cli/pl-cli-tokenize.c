/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-tokenizer.h"

static void
print_json (PlTokenizer *tok,
            GArray      *ids,
            GPtrArray   *tokens)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

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

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

static void
print_table (PlTokenizer *tok,
             GArray      *ids,
             GPtrArray   *tokens)
{
  printf ("# %s tokenizer from %s: %u tokens\n# position\tid\ttoken\n",
          pl_tokenizer_get_kind_name (tok), pl_tokenizer_get_source (tok), ids->len);
  for (guint i = 0; i < ids->len; i++)
    printf ("%u\t%d\t%s\n", i, g_array_index (ids, int, i), (const char *) g_ptr_array_index (tokens, i));
}

static char *
read_text_file (const char  *path,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  char *contents = NULL;

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GString) all = g_string_new (NULL);
      char buffer[65536];
      gsize n;

      while ((n = fread (buffer, 1, sizeof buffer, stdin)) > 0)
        g_string_append_len (all, buffer, n);
      return g_string_free (g_steal_pointer (&all), FALSE);
    }
  if (!g_file_get_contents (path, &contents, NULL, &local_error))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "Cannot read the text file: %s", local_error->message);
      return NULL;
    }
  return contents;
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
    {
      fprintf (stderr, "poslens-cli tokenize: %s\n", error->message);
      return PL_CLI_EXIT_USAGE;
    }
  if (argc != 2)
    {
      fprintf (stderr, "poslens-cli tokenize: expected one PATH (a checkpoint folder or file, or a tokenizer file)\n");
      return PL_CLI_EXIT_USAGE;
    }
  if ((text == NULL) == (file == NULL))
    {
      fprintf (stderr, "poslens-cli tokenize: give the text with --text TEXT or --file FILE (one of them)\n");
      return PL_CLI_EXIT_USAGE;
    }

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
