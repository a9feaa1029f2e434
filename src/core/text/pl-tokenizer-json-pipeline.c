/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* The normalizer, pre-tokenizer and decoder of a BPE or Unigram
 * tokenizer.json, read into the steps pl-tokenizer-pipeline.c and
 * pl-tokenizer-decode.c run. What today's models write is read:
 *
 *   Llama 2, TinyLlama, Phi-3   normalizer Prepend "▁" + Replace " " → "▁", no pre-tokenizer
 *   Mistral, Llama 2 (newer)    Metaspace pre-tokenizer, prepend_scheme "first"
 *   Gemma                       normalizer Replace " " → "▁", Split " " merged with the previous piece
 *   Llama 3                     Split on tiktoken's pattern, then ByteLevel without its regex
 *   Qwen2                       NFC, Split on the pattern with single digits, ByteLevel
 *   GPT-2, GPT-NeoX, SmolLM     (NFC,) (Digits,) ByteLevel with GPT-2's regex
 *   T5, mT5, Pegasus            Precompiled (+ Replace " {2,}" → " "), WhitespaceSplit + Metaspace
 *   XLM-RoBERTa, mBART          Precompiled + Replace " {2,}", Metaspace
 *   ALBERT                      Replace `` and '' → ", NFKD, StripAccents, Lowercase, Precompiled
 *   DeBERTa-v3                  Strip, Precompiled, Replace " {2,}", Metaspace
 *
 * and anything else is refused by name. */

/* The Split patterns Poslens scans for, exactly as tokenizer.json spells
 * them (GPT-2's is the ByteLevel pre-tokenizer's, Llama 3's tiktoken's
 * cl100k pattern, Qwen2's the same with \p{N} for \p{N}{1,3}). */
static const struct
{
  const char    *regex;
  PlPatternKind  kind;
} known_patterns[] = {
  { "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", PL_PATTERN_GPT2 },
  { "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", PL_PATTERN_TIKTOKEN },
  { "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", PL_PATTERN_TIKTOKEN_DIGIT },
};

static const char * const behaviors[] = {
  [PL_SPLIT_ISOLATED] = "Isolated",
  [PL_SPLIT_REMOVED] = "Removed",
  [PL_SPLIT_MERGED_WITH_PREVIOUS] = "MergedWithPrevious",
  [PL_SPLIT_MERGED_WITH_NEXT] = "MergedWithNext",
  [PL_SPLIT_CONTIGUOUS] = "Contiguous",
};

static const char * const prepend_schemes[] = {
  [PL_PREPEND_ALWAYS] = "always",
  [PL_PREPEND_FIRST] = "first",
  [PL_PREPEND_NEVER] = "never",
};

/* A list member of a Sequence; NULL with ERROR set when it is missing. */
static JsonArray *
sequence_list (JsonObject  *object,
               const char  *member,
               const char  *path,
               const char  *what,
               GError     **error)
{
  JsonNode *list = json_object_get_member (object, member);
  g_autofree char *message = NULL;

  if (list != NULL && JSON_NODE_HOLDS_ARRAY (list))
    return json_node_get_array (list);
  message = g_strdup_printf ("a Sequence %s has no “%s” list", what, member);
  pl_hf_json_corrupt (error, path, message);
  return NULL;
}

/* {"String": "…"} (the only pattern read), into *STRING; REGEX_WHAT names
 * the step when it is {"Regex": "…"}. */
static gboolean
read_string_pattern (JsonObject  *object,
                     const char  *path,
                     const char  *regex_what,
                     char       **string,
                     GError     **error)
{
  JsonNode *node = json_object_get_member (object, "pattern");
  JsonObject *pattern = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *text = pattern != NULL ? pl_hf_json_string (pattern, "String") : NULL;

  if (pattern != NULL && pl_hf_json_string (pattern, "Regex") != NULL)
    return pl_hf_json_unsupported (error, path, regex_what, pl_hf_json_string (pattern, "Regex"));
  if (text == NULL || text[0] == '\0')
    return pl_hf_json_corrupt (error, path, "a pattern is neither {\"String\": …} with some text nor {\"Regex\": …}");
  *string = g_strdup (text);
  return TRUE;
}

/* One character, as Metaspace's replacement and Strip's content are. */
static gboolean
read_char (JsonObject  *object,
           const char  *member,
           const char  *path,
           char         out[8],
           GError     **error)
{
  const char *text = pl_hf_json_string (object, member);
  g_autofree char *message = NULL;

  if (text != NULL && text[0] != '\0' && *g_utf8_next_char (text) == '\0')
    {
      g_strlcpy (out, text, 8);
      return TRUE;
    }
  message = g_strdup_printf ("“%s” is not one character", member);
  return pl_hf_json_corrupt (error, path, message);
}

static gboolean
read_enum (JsonObject         *object,
           const char         *member,
           const char * const *names,
           guint               n_names,
           int                 fallback,
           const char         *path,
           int                *out,
           GError            **error)
{
  const char *name = pl_hf_json_string (object, member);
  g_autofree char *message = NULL;

  if (name == NULL && !json_object_has_member (object, member) && fallback >= 0)
    {
      *out = fallback;
      return TRUE;
    }
  for (guint i = 0; name != NULL && i < n_names; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      {
        *out = (int) i;
        return TRUE;
      }
  message = g_strdup_printf ("“%s” is “%s”, which is none of the values Hugging Face defines",
                             member, name != NULL ? name : "?");
  return pl_hf_json_corrupt (error, path, message);
}

/* Metaspace's prepend_scheme, or the older add_prefix_space it replaces
 * (false: never; Hugging Face refuses false beside another scheme). */
static gboolean
read_prepend_scheme (JsonObject       *object,
                     const char       *path,
                     PlPrependScheme  *scheme,
                     GError          **error)
{
  int value;

  if (!read_enum (object, "prepend_scheme", prepend_schemes, G_N_ELEMENTS (prepend_schemes), PL_PREPEND_ALWAYS,
                  path, &value, error))
    return FALSE;
  if (!pl_hf_json_bool (object, "add_prefix_space", TRUE))
    {
      if (value != PL_PREPEND_NEVER && json_object_has_member (object, "prepend_scheme"))
        return pl_hf_json_corrupt (error, path, "Metaspace's add_prefix_space false contradicts its prepend_scheme");
      value = PL_PREPEND_NEVER;
    }
  *scheme = value;
  return TRUE;
}

static gboolean
read_normalizer (PlTokenizer  *self,
                 JsonNode     *node,
                 const char   *path,
                 GError      **error)
{
  static const char * const forms[] = { "NFC", "NFD", "NFKC", "NFKD" };
  const char *type = pl_hf_json_type (node);
  PlNormalizeStep step = { 0 };
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == NULL)
    return pl_hf_json_corrupt (error, path, "the normalizer has no type");
  object = json_node_get_object (node);
  if (strcmp (type, "Sequence") == 0)
    {
      JsonArray *list = sequence_list (object, "normalizers", path, "normalizer", error);

      for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
        if (!read_normalizer (self, json_array_get_element (list, i), path, error))
          return FALSE;
      return list != NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    if (strcmp (type, forms[i]) == 0)
      {
        step.kind = PL_NORMALIZE_NFC + i;
        g_array_append_val (self->normalizers, step);
        return TRUE;
      }
  if (strcmp (type, "Prepend") == 0)
    {
      const char *prepend = pl_hf_json_string (object, "prepend");

      if (prepend == NULL)
        return pl_hf_json_corrupt (error, path, "the Prepend normalizer has no “prepend” text");
      step.kind = PL_NORMALIZE_PREPEND;
      step.content = g_strdup (prepend);
      g_array_append_val (self->normalizers, step);
      return TRUE;
    }
  if (strcmp (type, "Lowercase") == 0 || strcmp (type, "StripAccents") == 0)
    {
      step.kind = type[0] == 'L' ? PL_NORMALIZE_LOWERCASE : PL_NORMALIZE_STRIP_ACCENTS;
      g_array_append_val (self->normalizers, step);
      return TRUE;
    }
  if (strcmp (type, "Strip") == 0)
    {
      step.kind = PL_NORMALIZE_STRIP;
      step.left = pl_hf_json_bool (object, "strip_left", TRUE);
      step.right = pl_hf_json_bool (object, "strip_right", TRUE);
      g_array_append_val (self->normalizers, step);
      return TRUE;
    }
  if (strcmp (type, "Precompiled") == 0)
    {
      const char *charsmap = pl_hf_json_string (object, "precompiled_charsmap");
      g_autofree guint8 *data = NULL;
      gsize data_len = 0;

      if (charsmap == NULL || charsmap[0] == '\0' || strlen (charsmap) % 4 != 0 ||
          strspn (charsmap, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != strlen (charsmap))
        return pl_hf_json_corrupt (error, path, "the Precompiled normalizer's “precompiled_charsmap” is not base64 "
                                   "of a SentencePiece charsmap");
      data = g_base64_decode (charsmap, &data_len);
      step.kind = PL_NORMALIZE_PRECOMPILED;
      if (!(step.precompiled = pl_precompiled_new (data, data_len, path, error)))
        return FALSE;
      g_array_append_val (self->normalizers, step);
      return TRUE;
    }
  if (strcmp (type, "Replace") == 0)
    {
      JsonNode *pattern = json_object_get_member (object, "pattern");
      const char *content = pl_hf_json_string (object, "content");
      const char *regex = pattern != NULL && JSON_NODE_HOLDS_OBJECT (pattern)
                          ? pl_hf_json_string (json_node_get_object (pattern), "Regex") : NULL;

      /* The one regular expression SentencePiece conversions write */
      if (regex != NULL && strcmp (regex, " {2,}") == 0)
        {
          if (content == NULL)
            return pl_hf_json_corrupt (error, path, "the Replace normalizer has no “content”");
          step.kind = PL_NORMALIZE_REPLACE_SPACES;
          step.content = g_strdup (content);
          g_array_append_val (self->normalizers, step);
          return TRUE;
        }
      step.kind = PL_NORMALIZE_REPLACE;
      if (!read_string_pattern (object, path, "Replace normalizer with the regular expression", &step.pattern, error))
        return FALSE;
      if (content == NULL)
        {
          g_free (step.pattern);
          return pl_hf_json_corrupt (error, path, "the Replace normalizer has no “content”");
        }
      step.content = g_strdup (content);
      g_array_append_val (self->normalizers, step);
      return TRUE;
    }
  return pl_hf_json_unsupported (error, path, "normalizer", type);
}

static gboolean
read_split (JsonObject         *object,
            const char         *path,
            PlPretokenizeStep  *step,
            GError            **error)
{
  JsonNode *node = json_object_get_member (object, "pattern");
  JsonObject *pattern = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *regex = pattern != NULL ? pl_hf_json_string (pattern, "Regex") : NULL;
  int behavior;

  step->kind = PL_PRETOKENIZE_SPLIT;
  if (!read_enum (object, "behavior", behaviors, G_N_ELEMENTS (behaviors), -1, path, &behavior, error))
    return FALSE;
  step->behavior = behavior;
  step->invert = pl_hf_json_bool (object, "invert", FALSE);
  if (regex == NULL)
    {
      step->pattern = PL_PATTERN_STRING;
      return read_string_pattern (object, path, "Split", &step->string, error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (known_patterns); i++)
    if (strcmp (regex, known_patterns[i].regex) == 0)
      {
        step->pattern = known_patterns[i].kind;
        return TRUE;
      }
  return pl_hf_json_unsupported (error, path, "Split pre-tokenizer with the regular expression", regex);
}

static gboolean
read_pretokenizer (PlTokenizer  *self,
                   JsonNode     *node,
                   const char   *path,
                   GError      **error)
{
  const char *type = pl_hf_json_type (node);
  PlPretokenizeStep step = { 0 };
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == NULL)
    return pl_hf_json_corrupt (error, path, "the pre-tokenizer has no type");
  object = json_node_get_object (node);
  if (self->byte_level)
    return pl_hf_json_unsupported (error, path, "pre-tokenizer after ByteLevel", type);
  if (strcmp (type, "Sequence") == 0)
    {
      JsonArray *list = sequence_list (object, "pretokenizers", path, "pre-tokenizer", error);

      for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
        if (!read_pretokenizer (self, json_array_get_element (list, i), path, error))
          return FALSE;
      return list != NULL;
    }
  if (strcmp (type, "Split") == 0)
    {
      if (!read_split (object, path, &step, error))
        return FALSE;
    }
  else if (strcmp (type, "WhitespaceSplit") == 0)
    {
      /* A Split on each white-space character, removed */
      step.kind = PL_PRETOKENIZE_SPLIT;
      step.pattern = PL_PATTERN_WHITE_SPACE;
      step.behavior = PL_SPLIT_REMOVED;
    }
  else if (strcmp (type, "Digits") == 0)
    {
      /* Digits is a Split on \p{N}: each alone, or runs of them. */
      step.kind = PL_PRETOKENIZE_SPLIT;
      step.pattern = PL_PATTERN_NUMERIC;
      step.behavior = pl_hf_json_bool (object, "individual_digits", FALSE) ? PL_SPLIT_ISOLATED : PL_SPLIT_CONTIGUOUS;
    }
  else if (strcmp (type, "ByteLevel") == 0)
    {
      step.kind = PL_PRETOKENIZE_BYTE_LEVEL;
      step.add_prefix_space = pl_hf_json_bool (object, "add_prefix_space", FALSE);
      step.use_regex = pl_hf_json_bool (object, "use_regex", TRUE);
      /* The model then sees bytes as characters: steps after this one
       * would see them too, which Poslens does not run. */
      self->byte_level = TRUE;
    }
  else if (strcmp (type, "Metaspace") == 0)
    {
      step.kind = PL_PRETOKENIZE_METASPACE;
      step.split = pl_hf_json_bool (object, "split", TRUE);
      if (!read_char (object, "replacement", path, step.replacement, error) ||
          !read_prepend_scheme (object, path, &step.prepend_scheme, error))
        return FALSE;
    }
  else
    return pl_hf_json_unsupported (error, path, "pre-tokenizer", type);
  g_array_append_val (self->pretokenizers, step);
  return TRUE;
}

static gboolean
read_decoder (PlTokenizer  *self,
              JsonNode     *node,
              const char   *path,
              GError      **error)
{
  const char *type = pl_hf_json_type (node);
  PlDecodeStep step = { 0 };
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == NULL)
    return pl_hf_json_corrupt (error, path, "the decoder has no type");
  object = json_node_get_object (node);
  if (strcmp (type, "Sequence") == 0)
    {
      JsonArray *list = sequence_list (object, "decoders", path, "decoder", error);

      for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
        if (!read_decoder (self, json_array_get_element (list, i), path, error))
          return FALSE;
      return list != NULL;
    }
  if (strcmp (type, "ByteLevel") == 0)
    step.kind = PL_DECODE_BYTE_LEVEL;
  else if (strcmp (type, "ByteFallback") == 0)
    step.kind = PL_DECODE_BYTE_FALLBACK;
  else if (strcmp (type, "Fuse") == 0)
    step.kind = PL_DECODE_FUSE;
  else if (strcmp (type, "Metaspace") == 0)
    {
      step.kind = PL_DECODE_METASPACE;
      if (!read_char (object, "replacement", path, step.replacement, error) ||
          !read_prepend_scheme (object, path, &step.prepend_scheme, error))
        return FALSE;
    }
  else if (strcmp (type, "Replace") == 0)
    {
      const char *content = pl_hf_json_string (object, "content");

      step.kind = PL_DECODE_REPLACE;
      if (content == NULL)
        return pl_hf_json_corrupt (error, path, "the Replace decoder has no “content”");
      if (!read_string_pattern (object, path, "Replace decoder with the regular expression", &step.pattern, error))
        return FALSE;
      step.content = g_strdup (content);
    }
  else if (strcmp (type, "Strip") == 0)
    {
      char content[8];
      JsonNode *start = json_object_get_member (object, "start");
      JsonNode *stop = json_object_get_member (object, "stop");

      if (!read_char (object, "content", path, content, error))
        return FALSE;
      step.kind = PL_DECODE_STRIP;
      step.content = g_strdup (content);
      /* Counts of characters; beyond a token's length they change nothing. */
      step.start = start != NULL && json_node_get_value_type (start) == G_TYPE_INT64
                   ? (guint) CLAMP (json_node_get_int (start), 0, G_MAXINT) : 0;
      step.stop = stop != NULL && json_node_get_value_type (stop) == G_TYPE_INT64
                  ? (guint) CLAMP (json_node_get_int (stop), 0, G_MAXINT) : 0;
    }
  else
    return pl_hf_json_unsupported (error, path, "decoder", type);
  g_array_append_val (self->decoders, step);
  return TRUE;
}

gboolean
pl_tokenizer_read_bpe_pipeline (PlTokenizer  *self,
                                JsonObject   *root,
                                const char   *path,
                                GError      **error)
{
  if (!read_normalizer (self, json_object_get_member (root, "normalizer"), path, error) ||
      !read_pretokenizer (self, json_object_get_member (root, "pre_tokenizer"), path, error) ||
      !read_decoder (self, json_object_get_member (root, "decoder"), path, error))
    return FALSE;
  self->kind = self->byte_level ? PL_TOKENIZER_BPE : PL_TOKENIZER_SENTENCEPIECE_BPE;
  return TRUE;
}
