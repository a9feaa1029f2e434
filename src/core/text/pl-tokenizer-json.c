/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* Hugging Face's tokenizer.json, where it holds one of the models Poslens
 * runs: WordPiece behind BertNormalizer / BertPreTokenizer, or BPE or
 * Unigram (pl-tokenizer-unigram.c) behind the steps
 * pl-tokenizer-json-pipeline.c reads. Anything else is refused by name. */

static const char *
type_of (JsonNode *node)
{
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  if (!json_object_has_member (object, "type"))
    return NULL;
  return json_node_get_string (json_object_get_member (object, "type"));
}

static gboolean
get_bool (JsonObject *object,
          const char *member,
          gboolean    fallback)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fallback;
  return json_node_get_boolean (node);
}

static const char *
get_string (JsonObject *object,
            const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
unsupported (GError     **error,
             const char  *path,
             const char  *what,
             const char  *name)
{
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
               "%s uses the %s “%s”, which Poslens does not run (it runs WordPiece, BPE (byte-level or "
               "SentencePiece-style) and Unigram tokenizers)",
               path, what, name != NULL ? name : "?");
  return FALSE;
}

static gboolean
corrupt (GError     **error,
         const char  *path,
         const char  *what)
{
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s", path, what);
  return FALSE;
}

/* The helpers, for the other readers of tokenizer.json. */

const char *
pl_hf_json_type (JsonNode *node)
{
  return type_of (node);
}

gboolean
pl_hf_json_bool (JsonObject *object,
                 const char *member,
                 gboolean    fallback)
{
  return get_bool (object, member, fallback);
}

const char *
pl_hf_json_string (JsonObject *object,
                   const char *member)
{
  return get_string (object, member);
}

gboolean
pl_hf_json_unsupported (GError     **error,
                        const char  *path,
                        const char  *what,
                        const char  *name)
{
  return unsupported (error, path, what, name);
}

gboolean
pl_hf_json_corrupt (GError     **error,
                    const char  *path,
                    const char  *what)
{
  return corrupt (error, path, what);
}

/* One normalizer of BERT's: BertNormalizer, or its parts in a Sequence. */
static gboolean
read_normalizer (PlTokenizer  *self,
                 JsonNode     *node,
                 const char   *path,
                 gboolean     *nfd,
                 GError      **error)
{
  const char *type = type_of (node);
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == NULL)
    return corrupt (error, path, "the normalizer has no type");
  object = json_node_get_object (node);
  if (strcmp (type, "BertNormalizer") == 0)
    {
      JsonNode *strip = json_object_get_member (object, "strip_accents");

      self->wp.lowercase = get_bool (object, "lowercase", TRUE);
      self->wp.clean_text = get_bool (object, "clean_text", TRUE);
      self->wp.chinese_chars = get_bool (object, "handle_chinese_chars", TRUE);
      /* strip_accents null follows lowercase */
      self->wp.strip_accents = (strip == NULL || JSON_NODE_HOLDS_NULL (strip))
                               ? self->wp.lowercase : get_bool (object, "strip_accents", FALSE);
      return TRUE;
    }
  if (strcmp (type, "Lowercase") == 0)
    {
      self->wp.lowercase = TRUE;
      return TRUE;
    }
  if (strcmp (type, "NFD") == 0)
    {
      *nfd = TRUE;
      return TRUE;
    }
  if (strcmp (type, "StripAccents") == 0)
    {
      if (!*nfd)
        return unsupported (error, path, "normalizer", "StripAccents without NFD before it");
      self->wp.strip_accents = TRUE;
      return TRUE;
    }
  if (strcmp (type, "Sequence") == 0)
    {
      JsonNode *list = json_object_get_member (object, "normalizers");

      if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
        return corrupt (error, path, "a Sequence normalizer has no “normalizers” list");
      for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
        if (!read_normalizer (self, json_array_get_element (json_node_get_array (list), i), path, nfd, error))
          return FALSE;
      return TRUE;
    }
  return unsupported (error, path, "normalizer", type);
}

static gboolean
read_vocab (PlTokenizer  *self,
            JsonObject   *model,
            const char   *path,
            GError      **error)
{
  JsonNode *vocab = json_object_get_member (model, "vocab");
  JsonObjectIter iter;
  const char *token;
  JsonNode *value;

  if (vocab == NULL || !JSON_NODE_HOLDS_OBJECT (vocab))
    return corrupt (error, path, "the model has no “vocab” object of tokens and ids");
  json_object_iter_init (&iter, json_node_get_object (vocab));
  while (json_object_iter_next (&iter, &token, &value))
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_INT64)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the token “%s” has no valid id", path, token);
          return FALSE;
        }
      if (!pl_tokenizer_set_token (self, json_node_get_int (value), token, error))
        return FALSE;
    }
  if (self->vocab->len == 0)
    return corrupt (error, path, "the vocabulary is empty");
  return TRUE;
}

static gboolean
read_wordpiece (PlTokenizer  *self,
                JsonObject   *root,
                JsonObject   *model,
                const char   *path,
                GError      **error)
{
  const char *pre = type_of (json_object_get_member (root, "pre_tokenizer"));
  const char *unk = get_string (model, "unk_token");
  const char *prefix = get_string (model, "continuing_subword_prefix");
  JsonNode *max = json_object_get_member (model, "max_input_chars_per_word");
  gboolean nfd = FALSE;

  self->kind = PL_TOKENIZER_WORDPIECE;
  if (!read_normalizer (self, json_object_get_member (root, "normalizer"), path, &nfd, error))
    return FALSE;
  if (nfd && !self->wp.strip_accents)
    return unsupported (error, path, "normalizer", "NFD without StripAccents");
  if (pre == NULL || strcmp (pre, "BertPreTokenizer") != 0)
    return unsupported (error, path, "pre-tokenizer", pre != NULL ? pre : "none");
  if (!read_vocab (self, model, path, error))
    return FALSE;
  self->subword_prefix = g_strdup (prefix != NULL ? prefix : "##");
  if (max != NULL && JSON_NODE_HOLDS_VALUE (max) && json_node_get_value_type (max) == G_TYPE_INT64 &&
      json_node_get_int (max) > 0)
    self->wp.max_chars_per_word = (guint) MIN (json_node_get_int (max), G_MAXUINT);
  if (unk != NULL && (self->unk_id = pl_tokenizer_token_to_id (self, unk)) < 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the unknown token “%s” is not in the vocabulary", path, unk);
      return FALSE;
    }
  return pl_wordpiece_prepare (self, error);
}

static gboolean
read_merge (PlTokenizer  *self,
            JsonNode     *node,
            const char   *path,
            GError      **error)
{
  /* "a b" in older files, ["a", "b"] since tokenizers 0.20. */
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_auto(GStrv) parts = g_strsplit (json_node_get_string (node), " ", -1);

      if (g_strv_length (parts) == 2 && parts[0][0] != '\0' && parts[1][0] != '\0')
        return pl_bpe_add_merge (self, parts[0], parts[1], error);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) == 2)
    {
      JsonArray *pair = json_node_get_array (node);
      JsonNode *a = json_array_get_element (pair, 0);
      JsonNode *b = json_array_get_element (pair, 1);

      if (JSON_NODE_HOLDS_VALUE (a) && json_node_get_value_type (a) == G_TYPE_STRING &&
          JSON_NODE_HOLDS_VALUE (b) && json_node_get_value_type (b) == G_TYPE_STRING)
        return pl_bpe_add_merge (self, json_node_get_string (a), json_node_get_string (b), error);
    }
  return corrupt (error, path, "a merge is not two tokens (“a b” or [\"a\", \"b\"])");
}

static gboolean
read_bpe (PlTokenizer  *self,
          JsonObject   *root,
          JsonObject   *model,
          const char   *path,
          GError      **error)
{
  const char *suffix = get_string (model, "end_of_word_suffix");
  const char *prefix = get_string (model, "continuing_subword_prefix");
  JsonNode *dropout = json_object_get_member (model, "dropout");
  JsonNode *merges = json_object_get_member (model, "merges");
  JsonArray *list;

  if ((suffix != NULL && *suffix) || (prefix != NULL && *prefix))
    return unsupported (error, path, "BPE variant", "with subword affixes");
  /* Dropout skips merges at random: a model sees other ids every time. */
  if (dropout != NULL && JSON_NODE_HOLDS_VALUE (dropout) && json_node_get_value_type (dropout) == G_TYPE_DOUBLE &&
      json_node_get_double (dropout) > 0)
    return unsupported (error, path, "BPE variant", "with dropout");
  self->ignore_merges = get_bool (model, "ignore_merges", FALSE);
  self->byte_fallback = get_bool (model, "byte_fallback", FALSE);
  self->fuse_unk = get_bool (model, "fuse_unk", FALSE);
  if (!pl_tokenizer_read_bpe_pipeline (self, root, path, error))
    return FALSE;

  pl_bpe_init_byte_map (self);
  if (!read_vocab (self, model, path, error))
    return FALSE;
  if (merges == NULL || !JSON_NODE_HOLDS_ARRAY (merges))
    return corrupt (error, path, "the BPE model has no “merges” list");
  list = json_node_get_array (merges);
  self->merges = pl_bpe_merges_new (json_array_get_length (list));
  for (guint i = 0; i < json_array_get_length (list); i++)
    if (!read_merge (self, json_array_get_element (list, i), path, error))
      return FALSE;
  return pl_bpe_prepare (self, get_string (model, "unk_token"), error);
}

static gboolean
read_added_tokens (PlTokenizer  *self,
                   JsonObject   *root,
                   const char   *path,
                   GError      **error)
{
  JsonNode *node = json_object_get_member (root, "added_tokens");
  /* Hugging Face gives each added token the id its content already has,
   * else the next after the model's vocabulary (counted, not its largest
   * id), and only warns when the file said another: real files agree. A
   * content listed twice keeps the id of its first listing and the
   * properties of its last, and is special if any listing said so. */
  gint64 next_id = g_hash_table_size (self->ids);
  g_autoptr(GHashTable) last = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) reserved = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) special = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *list;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return corrupt (error, path, "“added_tokens” is not a list");
  list = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *item = json_array_get_element (list, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (item) ? json_node_get_object (item) : NULL;
      const char *content = object != NULL ? get_string (object, "content") : NULL;

      if (content == NULL)
        continue;
      g_hash_table_insert (last, (gpointer) content, GUINT_TO_POINTER (i));
      if (get_bool (object, "special", TRUE))
        g_hash_table_add (special, (gpointer) content);
    }
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *item = json_array_get_element (list, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (item) ? json_node_get_object (item) : NULL;
      const char *content = object != NULL ? get_string (object, "content") : NULL;
      JsonNode *id = object != NULL ? json_object_get_member (object, "id") : NULL;
      gint64 given;
      int known;

      if (content == NULL || id == NULL || !JSON_NODE_HOLDS_VALUE (id) ||
          json_node_get_value_type (id) != G_TYPE_INT64)
        return corrupt (error, path, "an added token has no content or id");
      /* The id must still be a 32-bit unsigned number, as Hugging Face
       * reads it. */
      given = json_node_get_int (id);
      if (given < 0 || given > G_MAXUINT32)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the added token “%s” has id %" G_GINT64_FORMAT
                       ", outside 0 to %u", path, content, given, G_MAXUINT32);
          return FALSE;
        }
      if (content[0] == '\0')
        continue;
      known = g_hash_table_contains (reserved, content)
              ? GPOINTER_TO_INT (g_hash_table_lookup (reserved, content))
              : pl_tokenizer_token_to_id (self, content);
      if (known < 0)
        known = next_id++;
      if (GPOINTER_TO_UINT (g_hash_table_lookup (last, content)) != i)
        {
          g_hash_table_insert (reserved, (gpointer) content, GINT_TO_POINTER (known));
          continue;
        }
      if (!pl_tokenizer_add_token (self, content, known,
                                   get_bool (object, "lstrip", FALSE), get_bool (object, "rstrip", FALSE),
                                   get_bool (object, "single_word", FALSE), get_bool (object, "normalized", FALSE),
                                   g_hash_table_contains (special, content), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
add_affix_id (PlTokenizer *self,
              gboolean     prefix,
              JsonNode    *node)
{
  gint64 value;
  int id;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  /* Compared before it is narrowed: 4294967299 is not id 3. */
  value = json_node_get_int (node);
  if (value < 0 || value >= self->vocab->len)
    return FALSE;
  id = (int) value;
  if (pl_tokenizer_id_to_token (self, id) == NULL)
    return FALSE;
  g_array_append_val (prefix ? self->prefix : self->suffix, id);
  g_hash_table_add (self->special_ids, GINT_TO_POINTER (id));
  return TRUE;
}

/* TemplateProcessing's "single": special tokens before the sequence are the
 * prefix, those after it the suffix. */
static gboolean
read_template (PlTokenizer  *self,
               JsonObject   *object,
               const char   *path,
               GError      **error)
{
  JsonNode *single = json_object_get_member (object, "single");
  JsonNode *specials = json_object_get_member (object, "special_tokens");
  gboolean before = TRUE;

  if (single == NULL || !JSON_NODE_HOLDS_ARRAY (single))
    return corrupt (error, path, "TemplateProcessing has no “single” template");
  for (guint i = 0; i < json_array_get_length (json_node_get_array (single)); i++)
    {
      JsonNode *piece = json_array_get_element (json_node_get_array (single), i);
      JsonObject *po = JSON_NODE_HOLDS_OBJECT (piece) ? json_node_get_object (piece) : NULL;
      JsonObject *special;
      const char *name;
      JsonNode *entry;
      JsonNode *ids;

      if (po != NULL && json_object_has_member (po, "Sequence"))
        {
          before = FALSE;
          continue;
        }
      if (po == NULL || !json_object_has_member (po, "SpecialToken") ||
          !JSON_NODE_HOLDS_OBJECT (json_object_get_member (po, "SpecialToken")))
        return corrupt (error, path, "a piece of the “single” template is neither Sequence nor SpecialToken");
      special = json_object_get_object_member (po, "SpecialToken");
      name = get_string (special, "id");
      entry = name != NULL && specials != NULL && JSON_NODE_HOLDS_OBJECT (specials)
              ? json_object_get_member (json_node_get_object (specials), name) : NULL;
      ids = entry != NULL && JSON_NODE_HOLDS_OBJECT (entry)
            ? json_object_get_member (json_node_get_object (entry), "ids") : NULL;
      if (ids == NULL || !JSON_NODE_HOLDS_ARRAY (ids))
        return corrupt (error, path, "the template names a special token that “special_tokens” does not define");
      for (guint k = 0; k < json_array_get_length (json_node_get_array (ids)); k++)
        if (!add_affix_id (self, before, json_array_get_element (json_node_get_array (ids), k)))
          return corrupt (error, path, "a special token of the template has an id outside the vocabulary");
    }
  return TRUE;
}

static gboolean
read_post_processor (PlTokenizer  *self,
                     JsonNode     *node,
                     const char   *path,
                     GError      **error)
{
  const char *type = type_of (node);
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == NULL)
    return corrupt (error, path, "the post-processor has no type");
  object = json_node_get_object (node);
  if (strcmp (type, "ByteLevel") == 0)
    return TRUE;
  if (strcmp (type, "BertProcessing") == 0 || strcmp (type, "RobertaProcessing") == 0)
    {
      /* "cls": ["[CLS]", 101], "sep": ["[SEP]", 102] */
      JsonNode *cls = json_object_get_member (object, "cls");
      JsonNode *sep = json_object_get_member (object, "sep");

      if (cls == NULL || sep == NULL || !JSON_NODE_HOLDS_ARRAY (cls) || !JSON_NODE_HOLDS_ARRAY (sep) ||
          json_array_get_length (json_node_get_array (cls)) != 2 ||
          json_array_get_length (json_node_get_array (sep)) != 2 ||
          !add_affix_id (self, TRUE, json_array_get_element (json_node_get_array (cls), 1)) ||
          !add_affix_id (self, FALSE, json_array_get_element (json_node_get_array (sep), 1)))
        return corrupt (error, path, "the post-processor's “cls” and “sep” are not [token, id] in the vocabulary");
      return TRUE;
    }
  if (strcmp (type, "TemplateProcessing") == 0)
    return read_template (self, object, path, error);
  if (strcmp (type, "Sequence") == 0)
    {
      JsonNode *list = json_object_get_member (object, "processors");

      if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
        return corrupt (error, path, "a Sequence post-processor has no “processors” list");
      for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
        if (!read_post_processor (self, json_array_get_element (json_node_get_array (list), i), path, error))
          return FALSE;
      return TRUE;
    }
  return unsupported (error, path, "post-processor", type);
}

gboolean
pl_tokenizer_load_hf_json (PlTokenizer  *self,
                           JsonObject   *root,
                           const char   *path,
                           GError      **error)
{
  JsonNode *model_node = json_object_get_member (root, "model");
  JsonObject *model;
  const char *type;

  if (model_node == NULL || !JSON_NODE_HOLDS_OBJECT (model_node))
    return corrupt (error, path, "no “model” object: this is not a Hugging Face tokenizer.json");
  model = json_node_get_object (model_node);
  {
    /* Ids name the tokens listed in the vocabulary and the added tokens. */
    JsonNode *vocab = json_object_get_member (model, "vocab");
    JsonNode *added = json_object_get_member (root, "added_tokens");

    pl_tokenizer_set_id_limit (self, (vocab != NULL && JSON_NODE_HOLDS_OBJECT (vocab)
                                      ? json_object_get_size (json_node_get_object (vocab))
                                      : vocab != NULL && JSON_NODE_HOLDS_ARRAY (vocab)
                                      ? json_array_get_length (json_node_get_array (vocab)) : 0) +
                                     (added != NULL && JSON_NODE_HOLDS_ARRAY (added)
                                      ? json_array_get_length (json_node_get_array (added)) : 0));
  }
  type = type_of (model_node);
  /* Files from before "type" was written: tell the models by their fields. */
  if (type == NULL)
    {
      JsonNode *vocab = json_object_get_member (model, "vocab");

      type = json_object_has_member (model, "merges") ? "BPE"
             : json_object_has_member (model, "continuing_subword_prefix") ? "WordPiece"
             : vocab != NULL && JSON_NODE_HOLDS_ARRAY (vocab) ? "Unigram" : "?";
    }

  if (strcmp (type, "WordPiece") == 0)
    {
      if (!read_wordpiece (self, root, model, path, error))
        return FALSE;
    }
  else if (strcmp (type, "BPE") == 0)
    {
      if (!read_bpe (self, root, model, path, error))
        return FALSE;
    }
  else if (strcmp (type, "Unigram") == 0)
    {
      if (!pl_tokenizer_read_unigram (self, root, model, path, error))
        return FALSE;
    }
  else
    return unsupported (error, path, "model", type);

  return read_added_tokens (self, root, path, error) &&
         read_post_processor (self, json_object_get_member (root, "post_processor"), path, error);
}
