/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-json.h"
#include "pl-ollama-store.h"
#include "pl-tokenizer-private.h"

/* The files that sit beside real checkpoints, and finding them. */

#define BYTE_TOKENIZER_CLASS "PoslensByteTokenizer"

/* The largest tokenizer files are tens of megabytes. */
#define MAX_TOKENIZER_FILE_BYTES ((gsize) 512 << 20)

static char *
read_text (const char  *path,
           gsize       *len,
           GError     **error)
{
  char *contents = pl_input_file_read_all (path, MAX_TOKENIZER_FILE_BYTES, len, error);

  if (contents == NULL)
    return NULL;
  if (!g_utf8_validate (contents, *len, NULL))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is not UTF-8 text, so it is not a tokenizer file", path);
      g_free (contents);
      return NULL;
    }
  return contents;
}

/* Splits CONTENTS into lines without their end (\n or \r\n); a last empty
 * line (the file's final newline) is dropped. */
static char **
split_lines (char *contents)
{
  char **lines = g_strsplit (contents, "\n", -1);
  guint n = g_strv_length (lines);

  if (n > 0 && lines[n - 1][0] == '\0')
    {
      g_free (lines[n - 1]);
      lines[n - 1] = NULL;
    }
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gsize l = strlen (lines[i]);

      if (l > 0 && lines[i][l - 1] == '\r')
        lines[i][l - 1] = '\0';
    }
  return lines;
}

gboolean
pl_tokenizer_load_vocab_txt (PlTokenizer  *self,
                             const char   *path,
                             GError      **error)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len;
  guint n;

  if ((contents = read_text (path, &len, error)) == NULL)
    return FALSE;
  lines = split_lines (contents);
  n = g_strv_length (lines);
  if (n == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "The vocabulary %s is empty", path);
      return FALSE;
    }
  pl_tokenizer_set_id_limit (self, n);
  g_ptr_array_set_size (self->vocab, n);
  for (guint i = 0; i < n; i++)
    {
      char *line = lines[i];
      char *end = line + strlen (line);

      /* Hugging Face trims trailing whitespace of each line. */
      while (end > line)
        {
          char *before = g_utf8_find_prev_char (line, end);

          if (!pl_unichar_is_white_space (g_utf8_get_char (before)))
            break;
          end = before;
        }
      *end = '\0';
      /* One line per id: within the limit. */
      pl_tokenizer_set_token (self, i, line, NULL);
    }
  return TRUE;
}

JsonNode *
pl_tokenizer_read_json (const char  *path,
                        GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *contents = NULL;
  JsonNode *root;
  gsize len;

  if ((contents = read_text (path, &len, error)) == NULL)
    return NULL;
  /* The checkpoint's parser refuses nesting deep enough to overflow the
   * stack in json-glib's recursive descent. */
  if ((parser = pl_json_parse (contents, len, path, error)) == NULL)
    return NULL;
  root = json_parser_get_root (parser);
  /* An empty file parses to no root at all. */
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s does not hold a JSON object", path);
      return NULL;
    }
  return json_node_ref (json_parser_get_root (parser));
}

gboolean
pl_tokenizer_load_vocab_json (PlTokenizer  *self,
                              const char   *path,
                              GError      **error)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObjectIter iter;
  const char *token;
  JsonNode *value;

  if ((root = pl_tokenizer_read_json (path, error)) == NULL)
    return FALSE;
  pl_tokenizer_set_id_limit (self, json_object_get_size (json_node_get_object (root)));
  json_object_iter_init (&iter, json_node_get_object (root));
  while (json_object_iter_next (&iter, &token, &value))
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_INT64)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the token “%s” has no valid id (expected a whole number)", path, token);
          return FALSE;
        }
      if (!pl_tokenizer_set_token (self, json_node_get_int (value), token, error))
        return FALSE;
    }
  if (self->vocab->len == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "The vocabulary %s is empty", path);
      return FALSE;
    }
  return TRUE;
}

gboolean
pl_tokenizer_load_merges_txt (PlTokenizer  *self,
                              const char   *path,
                              GError      **error)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len;

  if ((contents = read_text (path, &len, error)) == NULL)
    return FALSE;
  lines = split_lines (contents);
  self->merges = pl_bpe_merges_new (g_strv_length (lines));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *space;

      if (lines[i][0] == '\0' || g_str_has_prefix (lines[i], "#version"))
        continue;
      space = strchr (lines[i], ' ');
      if (space == NULL || strchr (space + 1, ' ') != NULL || space == lines[i] || space[1] == '\0')
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s, line %u: a merge is two tokens separated by one space, not “%s”",
                       path, i + 1, lines[i]);
          return FALSE;
        }
      *space = '\0';
      if (!pl_bpe_add_merge (self, lines[i], space + 1, error))
        return FALSE;
    }
  return TRUE;
}

/* Finding the tokenizer of a checkpoint ----------------------------------- */

static JsonObject *
read_optional_json (const char  *dir,
                    const char  *name,
                    GError     **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(JsonNode) root = NULL;

  /* One that is there but not a regular file is refused when opened. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  if ((root = pl_tokenizer_read_json (path, error)) == NULL)
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

static gboolean
member_is (JsonObject *object,
           const char *member,
           GType       type)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

static const char *
member_string (JsonObject *object,
               const char *member)
{
  return member_is (object, member, G_TYPE_STRING) ? json_object_get_string_member (object, member) : NULL;
}

static PlTokenizer *
new_bytes_from_config (JsonObject  *config,
                       const char  *path,
                       GError     **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  const char *affix_names[2] = { member_string (config, "prefix_token"), member_string (config, "suffix_token") };
  int affix_ids[2] = { -1, -1 };
  JsonArray *specials = NULL;
  gint64 offset;
  PlTokenizer *self;

  if (!member_is (config, "byte_offset", G_TYPE_INT64) ||
      (offset = json_object_get_int_member (config, "byte_offset")) < 0 || offset > 65536)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: a byte tokenizer needs “byte_offset”, the id of byte 0 (0 to 65536)", path);
      return NULL;
    }
  if (json_object_has_member (config, "special_tokens") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (config, "special_tokens")))
    specials = json_object_get_array_member (config, "special_tokens");
  for (guint i = 0; specials != NULL && i < json_array_get_length (specials); i++)
    {
      JsonNode *node = json_array_get_element (specials, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
          i >= offset)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: “special_tokens” must list at most %u names, one per id below byte_offset",
                       path, (guint) offset);
          return NULL;
        }
      g_ptr_array_add (names, (gpointer) json_node_get_string (node));
    }
  for (guint k = 0; k < 2; k++)
    {
      if (affix_names[k] == NULL)
        continue;
      for (guint i = 0; i < names->len; i++)
        if (strcmp (affix_names[k], g_ptr_array_index (names, i)) == 0)
          affix_ids[k] = i;
      if (affix_ids[k] < 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the %s “%s” is not one of “special_tokens”",
                       path, k == 0 ? "prefix_token" : "suffix_token", affix_names[k]);
          return NULL;
        }
    }
  g_ptr_array_add (names, NULL);
  self = pl_tokenizer_new_bytes ((guint) offset, (const char * const *) names->pdata, affix_ids[0], affix_ids[1]);
  g_free (self->source);
  self->source = g_strdup (path);
  return self;
}

static PlTokenizer *
new_wordpiece_with_config (const char  *vocab,
                           JsonObject  *tok_config,
                           GError     **error)
{
  g_autoptr(PlTokenizer) self = pl_tokenizer_alloc (PL_TOKENIZER_WORDPIECE, vocab);
  PlWordPieceOptions *options = &self->wp;

  if (!pl_tokenizer_load_vocab_txt (self, vocab, error))
    return NULL;
  /* The vocabulary decides what the config does not say. */
  pl_wordpiece_default_options (self, options);
  if (member_is (tok_config, "do_lower_case", G_TYPE_BOOLEAN))
    options->lowercase = json_object_get_boolean_member (tok_config, "do_lower_case");
  /* strip_accents null (the usual) follows lower-casing, as in BertTokenizer. */
  options->strip_accents = options->lowercase;
  if (member_is (tok_config, "strip_accents", G_TYPE_BOOLEAN))
    options->strip_accents = json_object_get_boolean_member (tok_config, "strip_accents");
  if (member_is (tok_config, "tokenize_chinese_chars", G_TYPE_BOOLEAN))
    options->chinese_chars = json_object_get_boolean_member (tok_config, "tokenize_chinese_chars");
  if (!pl_tokenizer_finish_wordpiece (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* The special tokens a byte-level BPE tokenizer puts around a text:
 * RoBERTa-style "<s> … </s>", GPT-2 nothing, and GPT2Tokenizer with
 * add_bos_token (OPT) its bos_token first and nothing last. */
static void
bpe_affixes (PlTokenizer  *bpe,
             JsonObject   *tok_config,
             JsonObject   *config,
             const char  **prefix,
             const char  **suffix)
{
  const char *klass = member_string (tok_config, "tokenizer_class");
  const char *model_type = member_string (config, "model_type");

  *prefix = *suffix = NULL;
  if (member_is (tok_config, "add_bos_token", G_TYPE_BOOLEAN) &&
      json_object_get_boolean_member (tok_config, "add_bos_token"))
    {
      JsonNode *node = json_object_get_member (tok_config, "bos_token");
      JsonObject *bos = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      /* bos_token is a string or an AddedToken {"content": …}. */
      *prefix = bos ? member_string (bos, "content") : member_string (tok_config, "bos_token");
      if (*prefix == NULL && g_strcmp0 (model_type, "opt") == 0)
        *prefix = "</s>";
      return;
    }
  if (g_strcmp0 (model_type, "opt") == 0)
    {
      *prefix = "</s>";
      return;
    }
  if (klass != NULL)
    {
      if (g_str_has_prefix (klass, "GPT2"))
        return;
      if (g_str_has_prefix (klass, "Roberta") || g_str_has_prefix (klass, "Bart") ||
          g_str_has_prefix (klass, "Longformer"))
        goto wrap;
    }
  if (model_type != NULL)
    {
      if (g_str_has_prefix (model_type, "gpt"))
        return;
      if (strcmp (model_type, "roberta") == 0 || strcmp (model_type, "bart") == 0 ||
          strcmp (model_type, "longformer") == 0)
        goto wrap;
    }
  if (pl_tokenizer_token_to_id (bpe, "<s>") < 0 || pl_tokenizer_token_to_id (bpe, "</s>") < 0)
    return;
wrap:
  *prefix = "<s>";
  *suffix = "</s>";
}

static PlTokenizer *
new_bpe_with_config (const char  *vocab,
                     const char  *merges,
                     JsonObject  *tok_config,
                     JsonObject  *config,
                     GError     **error)
{
  g_autoptr(PlTokenizer) self = pl_tokenizer_new_bpe (vocab, merges, FALSE, error);
  const char *prefix, *suffix;

  if (self == NULL)
    return NULL;
  if (member_is (tok_config, "add_prefix_space", G_TYPE_BOOLEAN))
    pl_pipeline_use_byte_level (self, json_object_get_boolean_member (tok_config, "add_prefix_space"));
  bpe_affixes (self, tok_config, config, &prefix, &suffix);
  if ((prefix != NULL && !pl_tokenizer_add_affix (self, TRUE, prefix, error)) ||
      (suffix != NULL && !pl_tokenizer_add_affix (self, FALSE, suffix, error)))
    return NULL;
  return g_steal_pointer (&self);
}

PlTokenizer *
pl_tokenizer_new_from_json (const char  *tokenizer_json,
                            GError     **error)
{
  g_autoptr(PlTokenizer) self = NULL;
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (tokenizer_json != NULL, NULL);

  if ((root = pl_tokenizer_read_json (tokenizer_json, error)) == NULL)
    return NULL;
  self = pl_tokenizer_alloc (PL_TOKENIZER_WORDPIECE, tokenizer_json);
  if (!pl_tokenizer_load_hf_json (self, json_node_get_object (root), tokenizer_json, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* The partner of a vocab.json / merges.txt named like the fixtures'
 * "byte-bpe-vocab.json" and "byte-bpe-merges.txt". */
static char *
partner_file (const char *path,
              const char *suffix,
              const char *partner_suffix)
{
  g_autofree char *stem = g_strndup (path, strlen (path) - strlen (suffix));

  return g_strconcat (stem, partner_suffix, NULL);
}

static gboolean
check_vocab_size (PlTokenizer  *self,
                  JsonObject   *config,
                  const char   *dir,
                  GError      **error)
{
  gint64 vocab_size;

  if (!member_is (config, "vocab_size", G_TYPE_INT64))
    return TRUE;
  vocab_size = json_object_get_int_member (config, "vocab_size");
  if (vocab_size > 0 && self->vocab->len > vocab_size)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "The tokenizer %s has %u tokens but %s/config.json says the model has %" G_GINT64_FORMAT ": they do not belong together",
                   self->source, self->vocab->len, dir, vocab_size);
      return FALSE;
    }
  return TRUE;
}

static PlTokenizer *
new_for_dir (const char  *dir,
             const char  *file,
             GError     **error)
{
  g_autoptr(JsonObject) tok_config = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(PlTokenizer) self = NULL;
  g_autofree char *tokenizer_json = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *vocab_txt = g_build_filename (dir, "vocab.txt", NULL);
  g_autofree char *vocab_json = g_build_filename (dir, "vocab.json", NULL);
  g_autofree char *merges_txt = g_build_filename (dir, "merges.txt", NULL);
  g_autofree char *tok_config_path = g_build_filename (dir, "tokenizer_config.json", NULL);
  g_autoptr(GError) local_error = NULL;
  const char *klass;

  tok_config = read_optional_json (dir, "tokenizer_config.json", &local_error);
  if (local_error == NULL)
    config = read_optional_json (dir, "config.json", &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  klass = member_string (tok_config, "tokenizer_class");

  if (file != NULL && g_str_has_suffix (file, "tokenizer.json"))
    self = pl_tokenizer_new_from_json (file, error);
  else if (file != NULL && g_str_has_suffix (file, "vocab.txt"))
    self = new_wordpiece_with_config (file, tok_config, error);
  else if (file != NULL && (g_str_has_suffix (file, "vocab.json") || g_str_has_suffix (file, "merges.txt")))
    {
      gboolean is_vocab = g_str_has_suffix (file, "vocab.json");
      g_autofree char *partner = is_vocab ? partner_file (file, "vocab.json", "merges.txt")
                                          : partner_file (file, "merges.txt", "vocab.json");

      self = new_bpe_with_config (is_vocab ? file : partner, is_vocab ? partner : file,
                                  tok_config, config, error);
    }
  else if (klass != NULL && strcmp (klass, BYTE_TOKENIZER_CLASS) == 0)
    self = new_bytes_from_config (tok_config, tok_config_path, error);
  else if (g_file_test (tokenizer_json, G_FILE_TEST_EXISTS))
    self = pl_tokenizer_new_from_json (tokenizer_json, error);
  else if (g_file_test (vocab_txt, G_FILE_TEST_EXISTS))
    self = new_wordpiece_with_config (vocab_txt, tok_config, error);
  else if (g_file_test (vocab_json, G_FILE_TEST_EXISTS) && g_file_test (merges_txt, G_FILE_TEST_EXISTS))
    self = new_bpe_with_config (vocab_json, merges_txt, tok_config, config, error);
  else
    {
      g_autofree char *spiece = g_build_filename (dir, "spiece.model", NULL);
      g_autofree char *sp_bpe = g_build_filename (dir, "sentencepiece.bpe.model", NULL);
      g_autofree char *sp_llama = g_build_filename (dir, "tokenizer.model", NULL);

      if (g_file_test (spiece, G_FILE_TEST_EXISTS) || g_file_test (sp_bpe, G_FILE_TEST_EXISTS) ||
          g_file_test (sp_llama, G_FILE_TEST_EXISTS))
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "The tokenizer in %s is a SentencePiece model, which Poslens does not read; add its tokenizer.json, or use random or explicit ids",
                     dir);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "No tokenizer beside the model in %s (looked for tokenizer.json, vocab.txt, vocab.json with merges.txt, "
                     "and a byte tokenizer in tokenizer_config.json); text input is off, use random or explicit ids",
                     dir);
      return NULL;
    }
  if (self == NULL || !check_vocab_size (self, config, dir, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* A GGUF file carries its tokenizer (its first bytes say "GGUF"). */
static gboolean
is_gguf (const char *path)
{
  char magic[4];
  int fd = pl_input_file_open (path, NULL, NULL);
  gboolean found;

  if (fd < 0)
    return FALSE;
  found = pread (fd, magic, 4, 0) == 4 && memcmp (magic, "GGUF", 4) == 0;
  close (fd);
  return found;
}

PlTokenizer *
pl_tokenizer_new_for_model_dir (const char  *path,
                                GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (path[0] == '\0')
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "The path is empty: name a checkpoint folder or a tokenizer file");
      return NULL;
    }
  if (g_str_has_prefix (path, "builtin:"))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s is an analytic encoding with no vocabulary, so it takes no text", path);
      return NULL;
    }
  if (g_str_has_prefix (path, PL_OLLAMA_PREFIX))
    {
      g_autoptr(PlOllamaModel) found = pl_ollama_store_find (NULL, path, error);

      return found ? pl_tokenizer_new_from_gguf (found->blob, error) : NULL;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return new_for_dir (path, NULL, error);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s does not exist: give a checkpoint folder, a checkpoint file or a tokenizer file", path);
      return NULL;
    }
  if (is_gguf (path))
    return pl_tokenizer_new_from_gguf (path, error);
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  if (g_str_has_suffix (base, "tokenizer.json") || g_str_has_suffix (base, "vocab.txt") ||
      g_str_has_suffix (base, "vocab.json") || g_str_has_suffix (base, "merges.txt"))
    return new_for_dir (dir, path, error);
  /* A checkpoint file, or tokenizer_config.json: the folder tells. */
  return new_for_dir (dir, NULL, error);
}
