/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-gguf-header.h"
#include "pl-input-file.h"
#include "pl-tokenizer-private.h"

/* The tokenizer a GGUF file carries in its tokenizer.ggml.* metadata, run by
 * the same BPE machinery as tokenizer.json so that a typed sentence gives
 * the ids Hugging Face's tokenizer gives:
 *
 *   tokenizer.ggml.model "llama"  SentencePiece-style BPE: tokens with scores
 *                                 and types; a pair merges when the two make
 *                                 a token, higher scores first (as Hugging
 *                                 Face's SentencePieceExtractor orders the
 *                                 merges it derives); characters missing from
 *                                 the vocabulary as <0xNN> byte tokens; "▁"
 *                                 for spaces and before the text unless
 *                                 tokenizer.ggml.add_space_prefix is false
 *   tokenizer.ggml.model "gpt2"   byte-level BPE with tokenizer.ggml.merges,
 *                                 the pre-tokenizer tokenizer.ggml.pre names
 *
 * Control and user-defined tokens are matched whole in the text (control
 * ones are special); BOS and EOS are put around the text as
 * tokenizer.ggml.add_bos_token / add_eos_token say, or as llama.cpp defaults
 * them. Other models and pre-tokenizers are refused by name. */

/* tokenizer.ggml.token_type, as llama.cpp numbers them */
enum
{
  TYPE_NORMAL = 1,
  TYPE_UNKNOWN = 2,
  TYPE_CONTROL = 3,
  TYPE_USER_DEFINED = 4,
  TYPE_UNUSED = 5,
  TYPE_BYTE = 6,
};

/* llama.cpp's pre-tokenizer names (llama-vocab.cpp) by the pattern their
 * regular expressions are, as tokenizer.json spells them for Hugging Face */
typedef enum
{
  PRE_GPT2,         /* ByteLevel with GPT-2's regex */
  PRE_DIGITS_GPT2,  /* each digit alone, then the same */
  PRE_LLAMA3,       /* Split on tiktoken's pattern, ByteLevel without regex, whole words first */
  PRE_QWEN2,        /* NFC, tiktoken's pattern with single digits */
} PreKind;

static const struct
{
  const char *name;
  PreKind     kind;
  gboolean    add_bos;
} pre_tokenizers[] = {
  { "default", PRE_GPT2, FALSE },
  { "gpt-2", PRE_GPT2, FALSE },
  { "phi-2", PRE_GPT2, FALSE },
  { "mpt", PRE_GPT2, FALSE },
  { "olmo", PRE_GPT2, FALSE },
  { "roberta-bpe", PRE_GPT2, FALSE },
  { "starcoder", PRE_DIGITS_GPT2, FALSE },
  { "refact", PRE_DIGITS_GPT2, FALSE },
  { "smollm", PRE_DIGITS_GPT2, FALSE },
  { "codeshell", PRE_DIGITS_GPT2, FALSE },
  { "llama3", PRE_LLAMA3, TRUE },
  { "llama-v3", PRE_LLAMA3, TRUE },
  { "llama-bpe", PRE_LLAMA3, TRUE },
  { "falcon3", PRE_LLAMA3, TRUE },
  { "dbrx", PRE_LLAMA3, FALSE },
  { "smaug-bpe", PRE_LLAMA3, FALSE },
  { "qwen2", PRE_QWEN2, FALSE },
  { "deepseek-r1-qwen", PRE_QWEN2, FALSE },
  { "stablelm2", PRE_QWEN2, FALSE },
};

typedef struct
{
  const PlGgufHeader *header;
  const char         *path;
  GStrv               tokens;
  guint               n;
  const PlGgufValue  *scores;
  const PlGgufValue  *types;
} Vocab;

static int
token_type (const Vocab *v,
            guint        id)
{
  double t;

  return pl_gguf_array_get_number (v->types, id, &t) ? (int) t : TYPE_NORMAL;
}

static gboolean
get_bool (const PlGgufHeader *header,
          const char         *key,
          gboolean            fallback)
{
  gboolean b;

  return pl_gguf_value_get_bool (pl_gguf_header_lookup (header, key), &b) ? b : fallback;
}

/* tokenizer.ggml.KEY_token_id when it names a token, else -1 */
static int
token_id (const Vocab *v,
          const char  *key)
{
  guint64 id;

  return pl_gguf_value_get_uint (pl_gguf_header_lookup (v->header, key), &id) && id < v->n ? (int) id : -1;
}

typedef struct
{
  double score;
  int    merged;
  int    left;
  int    right;
} Merge;

static int
compare_merges (gconstpointer a,
                gconstpointer b)
{
  const Merge *x = a, *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  if (x->merged != y->merged)
    return x->merged < y->merged ? -1 : 1;
  if (x->left != y->left)
    return x->left < y->left ? -1 : 1;
  return (x->right > y->right) - (x->right < y->right);
}

/* SentencePiece's merges from the scores: every split of a token into two
 * tokens, by the token's score, highest first (ties by ids, as Hugging
 * Face's extractor leaves them). */
static gboolean
add_score_merges (PlTokenizer  *self,
                  const Vocab  *v,
                  GError      **error)
{
  g_autoptr(GArray) merges = g_array_new (FALSE, FALSE, sizeof (Merge));
  g_autofree char *buffer = NULL;
  gsize longest = 0;

  for (guint i = 0; i < v->n; i++)
    longest = MAX (longest, strlen (v->tokens[i]));
  buffer = g_malloc (longest + 1);
  for (guint i = 0; i < v->n; i++)
    {
      const char *t = v->tokens[i];
      gsize len = strlen (t);
      int type = token_type (v, i);
      double score = 0;

      if (type != TYPE_NORMAL && type != TYPE_USER_DEFINED)
        continue;
      pl_gguf_array_get_number (v->scores, i, &score);
      for (const char *split = g_utf8_next_char (t); split < t + len; split = g_utf8_next_char (split))
        {
          Merge m = { score, (int) i, -1, -1 };

          memcpy (buffer, t, split - t);
          buffer[split - t] = '\0';
          if ((m.left = pl_tokenizer_model_token_to_id (self, buffer)) < 0 ||
              (m.right = pl_tokenizer_model_token_to_id (self, split)) < 0)
            continue;
          g_array_append_val (merges, m);
        }
    }
  g_array_sort (merges, compare_merges);
  self->merges = pl_bpe_merges_new (merges->len);
  for (guint i = 0; i < merges->len; i++)
    {
      const Merge *m = &g_array_index (merges, Merge, i);

      pl_bpe_add_merge_ids (self, m->left, m->right, m->merged);
    }
  (void) error;
  return TRUE;
}

/* tokenizer.ggml.merges: "left right", split at the first space after the
 * first byte (as llama.cpp splits them) */
static gboolean
add_listed_merges (PlTokenizer  *self,
                   const Vocab  *v,
                   GError      **error)
{
  const PlGgufValue *value = pl_gguf_header_lookup (v->header, "tokenizer.ggml.merges");
  g_auto(GStrv) merges = NULL;
  guint n;

  if (value == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: this BPE tokenizer has no tokenizer.ggml.merges", v->path);
      return FALSE;
    }
  if (!(merges = pl_gguf_array_dup_strings (value, v->path, "tokenizer.ggml.merges", error)))
    return FALSE;
  n = g_strv_length (merges);
  self->merges = pl_bpe_merges_new (n);
  for (guint i = 0; i < n; i++)
    {
      char *space = merges[i][0] != '\0' ? strchr (merges[i] + 1, ' ') : NULL;

      if (space == NULL || space[1] == '\0')
        {
          g_autofree char *shown = pl_escape_text (merges[i], -1);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: merge %u (“%s”) of tokenizer.ggml.merges is not two "
                       "tokens", v->path, i, shown);
          return FALSE;
        }
      *space = '\0';
      if (!pl_bpe_add_merge (self, merges[i], space + 1, error))
        return FALSE;
    }
  return TRUE;
}

static void
add_normalizer (PlTokenizer     *self,
                PlNormalizeKind  kind,
                const char      *pattern,
                const char      *content)
{
  PlNormalizeStep step = { kind, g_strdup (pattern), g_strdup (content) };

  g_array_append_val (self->normalizers, step);
}

static void
add_decoder (PlTokenizer  *self,
             PlDecodeKind  kind,
             const char   *pattern,
             const char   *content)
{
  PlDecodeStep step = { .kind = kind, .pattern = g_strdup (pattern), .content = g_strdup (content) };

  if (kind == PL_DECODE_STRIP)
    step.start = 1;
  g_array_append_val (self->decoders, step);
}

/* Llama 2's tokenizer.json pipeline: "▁" before the text and for every
 * space, and back. */
static void
use_sentencepiece_pipeline (PlTokenizer *self,
                            gboolean     add_space_prefix)
{
  if (add_space_prefix)
    add_normalizer (self, PL_NORMALIZE_PREPEND, NULL, "\xe2\x96\x81");
  add_normalizer (self, PL_NORMALIZE_REPLACE, " ", "\xe2\x96\x81");
  add_decoder (self, PL_DECODE_REPLACE, "\xe2\x96\x81", " ");
  add_decoder (self, PL_DECODE_BYTE_FALLBACK, NULL, NULL);
  add_decoder (self, PL_DECODE_FUSE, NULL, NULL);
  if (add_space_prefix)
    add_decoder (self, PL_DECODE_STRIP, NULL, " ");
}

static void
use_byte_level_pipeline (PlTokenizer *self,
                         PreKind      kind)
{
  PlPretokenizeStep split = { .kind = PL_PRETOKENIZE_SPLIT, .behavior = PL_SPLIT_ISOLATED };
  PlPretokenizeStep bytes = { .kind = PL_PRETOKENIZE_BYTE_LEVEL, .use_regex = TRUE };
  PlDecodeStep decode = { .kind = PL_DECODE_BYTE_LEVEL };

  switch (kind)
    {
    case PRE_DIGITS_GPT2:
      split.pattern = PL_PATTERN_NUMERIC;
      g_array_append_val (self->pretokenizers, split);
      break;
    case PRE_LLAMA3:
      split.pattern = PL_PATTERN_TIKTOKEN;
      g_array_append_val (self->pretokenizers, split);
      bytes.use_regex = FALSE;
      self->ignore_merges = TRUE;
      break;
    case PRE_QWEN2:
      add_normalizer (self, PL_NORMALIZE_NFC, NULL, NULL);
      split.pattern = PL_PATTERN_TIKTOKEN_DIGIT;
      g_array_append_val (self->pretokenizers, split);
      bytes.use_regex = FALSE;
      break;
    case PRE_GPT2:
    default:
      break;
    }
  g_array_append_val (self->pretokenizers, bytes);
  g_array_append_val (self->decoders, decode);
  self->byte_level = TRUE;
}

/* Control and user-defined tokens, matched whole in the typed text */
static gboolean
add_whole_tokens (PlTokenizer  *self,
                  const Vocab  *v,
                  GError      **error)
{
  for (guint i = 0; i < v->n; i++)
    {
      int type = token_type (v, i);

      if ((type == TYPE_CONTROL || type == TYPE_USER_DEFINED || type == TYPE_UNKNOWN) &&
          !pl_tokenizer_add_token (self, v->tokens[i], i, FALSE, FALSE, FALSE, FALSE, type != TYPE_USER_DEFINED,
                                   error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
add_affix (PlTokenizer  *self,
           const Vocab  *v,
           gboolean      prefix,
           const char   *key,
           GError      **error)
{
  int id = token_id (v, key);

  if (id < 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s asks for a token %s every input, but %s names none",
                   v->path, prefix ? "tokenizer.ggml.add_bos_token" : "tokenizer.ggml.add_eos_token",
                   prefix ? "before" : "after", key);
      return FALSE;
    }
  g_array_append_val (prefix ? self->prefix : self->suffix, id);
  g_hash_table_add (self->special_ids, GINT_TO_POINTER (id));
  return TRUE;
}

PlTokenizer *
pl_tokenizer_new_from_gguf_header (const PlGgufHeader  *header,
                                   const char          *path,
                                   GError             **error)
{
  g_autoptr(PlTokenizer) self = NULL;
  g_autofree char *model = pl_gguf_value_dup_string (pl_gguf_header_lookup (header, "tokenizer.ggml.model"));
  g_autofree char *pre = pl_gguf_value_dup_string (pl_gguf_header_lookup (header, "tokenizer.ggml.pre"));
  g_auto(GStrv) tokens = NULL;
  Vocab v = { header, path };
  gboolean spm, add_bos, add_eos;
  int unk;
  guint p = 0;

  g_return_val_if_fail (header != NULL && path != NULL, NULL);

  if (model == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s carries no tokenizer (no tokenizer.ggml.model); use random or explicit ids", path);
      return NULL;
    }
  spm = g_str_equal (model, "llama");
  if (!spm && !g_str_equal (model, "gpt2"))
    {
      g_autofree char *shown = pl_escape_text (model, -1);

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: its tokenizer is a “%s” model, which Poslens does not run (it runs “llama”, SentencePiece-"
                   "style BPE, and “gpt2”, byte-level BPE)", path, shown);
      return NULL;
    }
  if (!spm)
    {
      /* no pre-tokenizer named: llama.cpp's default, GPT-2's pattern */
      for (p = 0; p < G_N_ELEMENTS (pre_tokenizers); p++)
        if (g_str_equal (pre ? pre : "default", pre_tokenizers[p].name))
          break;
      if (p == G_N_ELEMENTS (pre_tokenizers))
        {
          g_autofree char *shown = pl_escape_text (pre, -1);

          g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                       "%s: its tokenizer’s pre-tokenizer “%s” (tokenizer.ggml.pre) is not one Poslens runs; use "
                       "random or explicit ids", path, shown);
          return NULL;
        }
    }
  if (!(tokens = pl_gguf_array_dup_strings (pl_gguf_header_lookup (header, "tokenizer.ggml.tokens"), path,
                                           "tokenizer.ggml.tokens", error)))
    return NULL;
  v.tokens = tokens;
  v.n = g_strv_length (tokens);
  v.scores = pl_gguf_header_lookup (header, "tokenizer.ggml.scores");
  v.types = pl_gguf_header_lookup (header, "tokenizer.ggml.token_type");
  if (v.n == 0 || v.n > PL_TOKENIZER_MAX_IDS ||
      (v.scores != NULL && (v.scores->type != PL_GGUF_ARRAY || v.scores->len != v.n)) ||
      (v.types != NULL && (v.types->type != PL_GGUF_ARRAY || v.types->len != v.n)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: tokenizer.ggml.tokens has %u tokens (at most %u), tokenizer.ggml.scores and .token_type must "
                   "list as many", path, v.n, PL_TOKENIZER_MAX_IDS);
      return NULL;
    }

  self = pl_tokenizer_alloc (spm ? PL_TOKENIZER_SENTENCEPIECE_BPE : PL_TOKENIZER_BPE, path);
  pl_tokenizer_set_id_limit (self, v.n);
  pl_bpe_init_byte_map (self);
  for (guint i = 0; i < v.n; i++)
    if (!pl_tokenizer_set_token (self, i, tokens[i], error))
      return NULL;

  unk = token_id (&v, "tokenizer.ggml.unknown_token_id");
  if (spm)
    {
      use_sentencepiece_pipeline (self, get_bool (header, "tokenizer.ggml.add_space_prefix", TRUE));
      self->byte_fallback = pl_tokenizer_token_to_id (self, "<0x00>") >= 0;
      self->fuse_unk = TRUE;
      if (!add_score_merges (self, &v, error))
        return NULL;
      add_bos = TRUE;
    }
  else
    {
      use_byte_level_pipeline (self, pre_tokenizers[p].kind);
      if (!add_listed_merges (self, &v, error))
        return NULL;
      add_bos = pre_tokenizers[p].add_bos;
    }
  if (!pl_bpe_prepare (self, unk >= 0 ? tokens[unk] : NULL, error) || !add_whole_tokens (self, &v, error))
    return NULL;
  add_bos = get_bool (header, "tokenizer.ggml.add_bos_token", add_bos);
  add_eos = get_bool (header, "tokenizer.ggml.add_eos_token", FALSE);
  if ((add_bos && !add_affix (self, &v, TRUE, "tokenizer.ggml.bos_token_id", error)) ||
      (add_eos && !add_affix (self, &v, FALSE, "tokenizer.ggml.eos_token_id", error)))
    return NULL;
  return g_steal_pointer (&self);
}

PlTokenizer *
pl_tokenizer_new_from_gguf (const char  *path,
                            GError     **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) local_error = NULL;
  PlGgufHeader *header;
  PlTokenizer *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  /* the rules of every reader: links only to regular files */
  if ((fd = pl_input_file_open (path, NULL, error)) < 0)
    return NULL;
  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local_error);
  close (fd);
  if (mapped == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%s: %s", path, local_error->message);
      return NULL;
    }
  if (!(header = pl_gguf_header_parse ((const guint8 *) g_mapped_file_get_contents (mapped),
                                       g_mapped_file_get_length (mapped), path, error)))
    return NULL;
  self = pl_tokenizer_new_from_gguf_header (header, path, error);
  pl_gguf_header_free (header);
  return self;
}
