/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

G_DEFINE_FINAL_TYPE (PlTokenizer, pl_tokenizer, G_TYPE_OBJECT)

static void
added_tokens_clear (PlAddedTokens *set)
{
  for (guint i = 0; set->tokens != NULL && i < set->tokens->len; i++)
    g_free (g_array_index (set->tokens, PlSpecialToken, i).content);
  g_clear_pointer (&set->tokens, g_array_unref);
}

static void
pl_tokenizer_finalize (GObject *object)
{
  PlTokenizer *self = (PlTokenizer *) object;

  added_tokens_clear (&self->added);
  added_tokens_clear (&self->added_normalized);
  g_clear_pointer (&self->added_contents, g_hash_table_unref);
  g_clear_pointer (&self->added_only, g_hash_table_unref);
  g_clear_pointer (&self->decoded_as, g_hash_table_unref);
  pl_pipeline_clear (self);
  g_clear_pointer (&self->ids, g_hash_table_unref);
  g_clear_pointer (&self->vocab, g_ptr_array_unref);
  g_clear_pointer (&self->special_ids, g_hash_table_unref);
  g_clear_pointer (&self->prefix, g_array_unref);
  g_clear_pointer (&self->suffix, g_array_unref);
  g_clear_pointer (&self->merges, pl_bpe_merges_free);
  g_clear_pointer (&self->unigram, pl_unigram_free);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_mutex_clear (&self->cache_lock);
  g_free (self->subword_prefix);
  g_free (self->source);

  G_OBJECT_CLASS (pl_tokenizer_parent_class)->finalize (object);
}

static void
pl_tokenizer_class_init (PlTokenizerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_tokenizer_finalize;
}

static void
pl_tokenizer_init (PlTokenizer *self)
{
  self->vocab = g_ptr_array_new_with_free_func (g_free);
  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->added.tokens = g_array_new (FALSE, TRUE, sizeof (PlSpecialToken));
  self->added_normalized.tokens = g_array_new (FALSE, TRUE, sizeof (PlSpecialToken));
  self->added_contents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->added_only = g_hash_table_new (NULL, NULL);
  self->decoded_as = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->id_limit = PL_TOKENIZER_MAX_IDS;
  self->special_ids = g_hash_table_new (NULL, NULL);
  self->prefix = g_array_new (FALSE, FALSE, sizeof (int));
  self->suffix = g_array_new (FALSE, FALSE, sizeof (int));
  self->unk_id = -1;
  pl_pipeline_init (self);
  g_mutex_init (&self->cache_lock);
}

PlTokenizer *
pl_tokenizer_alloc (PlTokenizerKind  kind,
                    const char      *source)
{
  PlTokenizer *self = g_object_new (PL_TYPE_TOKENIZER, NULL);

  self->kind = kind;
  self->source = g_strdup (source);
  return self;
}

/* Real files number their tokens densely; a few ids to spare for the odd
 * gap. */
#define ID_SLACK 1024

void
pl_tokenizer_set_id_limit (PlTokenizer *self,
                           guint64      n_listed)
{
  self->n_listed = n_listed;
  self->id_limit = (guint) MIN (n_listed + ID_SLACK, (guint64) PL_TOKENIZER_MAX_IDS);
}

gboolean
pl_tokenizer_set_token (PlTokenizer  *self,
                        gint64        id,
                        const char   *token,
                        GError      **error)
{
  char *copy;

  if (id < 0 || id >= self->id_limit)
    {
      g_autofree char *shown = g_utf8_make_valid (token, -1);

      if (id >= 0 && self->n_listed > 0)
        g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                     "%s: the token “%s” has id %" G_GINT64_FORMAT ", but the file lists only %"
                     G_GUINT64_FORMAT " tokens", self->source, shown, id, self->n_listed);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                     "%s: the token “%s” has id %" G_GINT64_FORMAT ", outside 0 to %u",
                     self->source, shown, id, self->id_limit - 1);
      return FALSE;
    }
  if ((guint) id >= self->vocab->len)
    g_ptr_array_set_size (self->vocab, id + 1);
  copy = g_strdup (token);
  if (g_ptr_array_index (self->vocab, id) != NULL)
    {
      /* The id is renamed: forget the old name unless it went elsewhere. */
      const char *old = g_ptr_array_index (self->vocab, id);

      if (GPOINTER_TO_INT (g_hash_table_lookup (self->ids, old)) == id + 1)
        g_hash_table_remove (self->ids, old);
      g_free (g_ptr_array_index (self->vocab, id));
    }
  g_ptr_array_index (self->vocab, id) = copy;
  /* A token listed twice keeps its last id, as Hugging Face's maps do. */
  g_hash_table_replace (self->ids, copy, GINT_TO_POINTER (id + 1));
  return TRUE;
}

static int
compare_specials (gconstpointer a,
                  gconstpointer b)
{
  const PlSpecialToken *x = a;
  const PlSpecialToken *y = b;

  return x->len < y->len ? 1 : x->len > y->len ? -1 : 0;
}

/* Longest first, so that at one place in the text the longest added token
 * wins; sorted once, before the first encoding (sorting on every insert
 * made 10 000 added tokens take seconds to load). Encodings may run on
 * several threads at once. */
static void
sort_specials (PlTokenizer *self)
{
  if (g_atomic_int_get (&self->added_sorted))
    return;
  g_mutex_lock (&self->cache_lock);
  if (!self->added_sorted)
    {
      g_array_sort (self->added.tokens, compare_specials);
      g_array_sort (self->added_normalized.tokens, compare_specials);
      g_atomic_int_set (&self->added_sorted, TRUE);
    }
  g_mutex_unlock (&self->cache_lock);
}

gboolean
pl_tokenizer_add_token (PlTokenizer  *self,
                        const char   *content,
                        gint64        id,
                        gboolean      lstrip,
                        gboolean      rstrip,
                        gboolean      single_word,
                        gboolean      normalized,
                        gboolean      special,
                        GError      **error)
{
  PlAddedTokens *set = &self->added;
  char *match = NULL;
  PlSpecialToken sp;

  if (content[0] == '\0' || g_hash_table_contains (self->added_contents, content))
    return TRUE;
  if (id < 0 || id >= self->vocab->len || g_ptr_array_index (self->vocab, id) == NULL)
    {
      if (!pl_tokenizer_set_token (self, id, content, error))
        return FALSE;
      g_hash_table_add (self->added_only, GINT_TO_POINTER ((int) id));
    }
  g_hash_table_add (self->added_contents, g_strdup (content));
  if (special)
    g_hash_table_add (self->special_ids, GINT_TO_POINTER ((int) id));

  /* WordPiece normalises inside its model, so its added tokens are all
   * matched in the text as typed. */
  if (normalized && self->kind != PL_TOKENIZER_WORDPIECE)
    {
      gsize len;

      set = &self->added_normalized;
      match = pl_pipeline_normalize (self, content, strlen (content), &len);
      /* Decoders see the normalised form, as Hugging Face's do. */
      if (match != NULL && strcmp (match, content) != 0)
        g_hash_table_replace (self->decoded_as, GINT_TO_POINTER ((int) id), g_strdup (match));
    }
  if (match == NULL)
    match = g_strdup (content);
  if (match[0] == '\0')
    {
      g_free (match);
      return TRUE;
    }
  sp = (PlSpecialToken) { match, strlen (match), (int) id, lstrip, rstrip, single_word, special };
  g_array_append_val (set->tokens, sp);
  g_atomic_int_set (&self->added_sorted, FALSE);
  set->first[(guchar) sp.content[0]] = 1;
  return TRUE;
}

gboolean
pl_tokenizer_add_special (PlTokenizer  *self,
                          const char   *content,
                          gint64        id,
                          gboolean      lstrip,
                          gboolean      rstrip,
                          GError      **error)
{
  return pl_tokenizer_add_token (self, content, id, lstrip, rstrip, FALSE, FALSE, TRUE, error);
}

void
pl_tokenizer_add_specials_from_vocab (PlTokenizer        *self,
                                      const char * const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      int id = pl_tokenizer_token_to_id (self, names[i]);

      /* RoBERTa's <mask> takes the space before it: "a <mask>" is a, <mask>.
       * The vocabulary has the id, so this cannot fail. */
      if (id >= 0)
        pl_tokenizer_add_special (self, names[i], id, strcmp (names[i], "<mask>") == 0, FALSE, NULL);
    }
}

gboolean
pl_tokenizer_add_affix (PlTokenizer  *self,
                        gboolean      prefix,
                        const char   *token,
                        GError      **error)
{
  int id = pl_tokenizer_token_to_id (self, token);

  if (id < 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s has no %s token, which the model puts %s every input",
                   self->source, token, prefix ? "before" : "after");
      return FALSE;
    }
  g_array_append_val (prefix ? self->prefix : self->suffix, id);
  g_hash_table_add (self->special_ids, GINT_TO_POINTER (id));
  return TRUE;
}

/* Constructors for each kind ---------------------------------------------- */

/* The rest of a WordPiece tokenizer once its vocabulary and options are in. */
gboolean
pl_tokenizer_finish_wordpiece (PlTokenizer  *self,
                               GError      **error)
{
  static const char * const specials[] = { "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", NULL };

  if (!pl_wordpiece_prepare (self, error))
    return FALSE;
  pl_tokenizer_add_specials_from_vocab (self, specials);
  return !self->wp.add_special ||
         (pl_tokenizer_add_affix (self, TRUE, "[CLS]", error) &&
          pl_tokenizer_add_affix (self, FALSE, "[SEP]", error));
}

PlTokenizer *
pl_tokenizer_new_wordpiece (const char                *vocab_txt,
                            const PlWordPieceOptions  *options,
                            GError                   **error)
{
  g_autoptr(PlTokenizer) self = NULL;

  g_return_val_if_fail (vocab_txt != NULL, NULL);

  self = pl_tokenizer_alloc (PL_TOKENIZER_WORDPIECE, vocab_txt);
  if (!pl_tokenizer_load_vocab_txt (self, vocab_txt, error))
    return NULL;
  if (options != NULL)
    self->wp = *options;
  else
    pl_wordpiece_default_options (self, &self->wp);
  if (!pl_tokenizer_finish_wordpiece (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

PlTokenizer *
pl_tokenizer_new_bpe (const char  *vocab_json,
                      const char  *merges_txt,
                      gboolean     add_bos_eos,
                      GError     **error)
{
  static const char * const specials[] = { "<s>", "</s>", "<pad>", "<unk>", "<mask>", "<|endoftext|>", NULL };
  g_autoptr(PlTokenizer) self = NULL;
  g_autofree char *source = NULL;

  g_return_val_if_fail (vocab_json != NULL, NULL);
  g_return_val_if_fail (merges_txt != NULL, NULL);

  source = g_strdup_printf ("%s + %s", vocab_json, merges_txt);
  self = pl_tokenizer_alloc (PL_TOKENIZER_BPE, source);
  pl_bpe_init_byte_map (self);
  pl_pipeline_use_byte_level (self, FALSE);
  if (!pl_tokenizer_load_vocab_json (self, vocab_json, error) ||
      !pl_tokenizer_load_merges_txt (self, merges_txt, error) ||
      !pl_bpe_prepare (self, NULL, error))
    return NULL;
  pl_tokenizer_add_specials_from_vocab (self, specials);
  if (add_bos_eos &&
      (!pl_tokenizer_add_affix (self, TRUE, "<s>", error) ||
       !pl_tokenizer_add_affix (self, FALSE, "</s>", error)))
    return NULL;
  return g_steal_pointer (&self);
}

PlTokenizer *
pl_tokenizer_new_bytes (guint              offset,
                        const char * const *specials,
                        int                prefix_id,
                        int                suffix_id)
{
  guint n_specials = specials != NULL ? g_strv_length ((char **) specials) : 0;
  PlTokenizer *self;

  g_return_val_if_fail (n_specials <= offset, NULL);
  g_return_val_if_fail (offset <= 65536, NULL);

  self = pl_tokenizer_alloc (PL_TOKENIZER_BYTES, "bytes");
  self->byte_offset = offset;
  pl_bpe_init_byte_map (self);
  pl_tokenizer_set_id_limit (self, offset + 256);
  pl_pipeline_use_byte_level (self, FALSE);
  /* Bytes are named like byte-level BPE's (Ġ for a space): one printable
   * character each, so axis labels stay short. Every id is within the
   * limit just set. */
  for (guint b = 0; b < 256; b++)
    pl_tokenizer_set_token (self, offset + b, self->byte_chars[b], NULL);
  for (guint i = 0; i < offset; i++)
    {
      g_autofree char *name = g_strdup_printf ("<special%u>", i);

      pl_tokenizer_add_special (self, i < n_specials ? specials[i] : name, i, FALSE, FALSE, NULL);
    }
  if (prefix_id >= 0)
    {
      g_array_append_val (self->prefix, prefix_id);
      g_hash_table_add (self->special_ids, GINT_TO_POINTER (prefix_id));
    }
  if (suffix_id >= 0)
    {
      g_array_append_val (self->suffix, suffix_id);
      g_hash_table_add (self->special_ids, GINT_TO_POINTER (suffix_id));
    }
  return self;
}

/* Encoding ---------------------------------------------------------------- */

static void
encode_segment (PlTokenizer *self,
                const char  *text,
                gsize        len,
                gboolean     at_start,
                GArray      *ids)
{
  if (len == 0)
    return;
  switch (self->kind)
    {
    case PL_TOKENIZER_WORDPIECE:
      pl_wordpiece_encode (self, text, len, ids);
      break;
    case PL_TOKENIZER_BPE:
    case PL_TOKENIZER_SENTENCEPIECE_BPE:
    case PL_TOKENIZER_UNIGRAM:
      pl_pipeline_encode (self, text, len, at_start, ids);
      break;
    case PL_TOKENIZER_BYTES:
      for (gsize i = 0; i < len; i++)
        {
          int id = (int) self->byte_offset + (guchar) text[i];

          g_array_append_val (ids, id);
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

static const PlSpecialToken *
match_special (const PlAddedTokens *set,
               const char          *p,
               const char          *end)
{
  for (guint i = 0; i < set->tokens->len; i++)
    {
      const PlSpecialToken *sp = &g_array_index (set->tokens, PlSpecialToken, i);

      if ((gsize) (end - p) >= sp->len && memcmp (p, sp->content, sp->len) == 0)
        return sp;
    }
  return NULL;
}

/* Added tokens are cut out first, the text between them is tokenised on
 * its own, as Hugging Face's are. */
void
pl_tokenizer_split_added (PlTokenizer         *self,
                          const PlAddedTokens *set,
                          const char          *text,
                          gsize                len,
                          gboolean             at_start,
                          PlSegmentFunc        func,
                          GArray              *ids)
{
  const char *end = text + len;
  const char *segment = text;
  const char *p = text;

  while (p < end)
    {
      const PlSpecialToken *sp;
      const char *stop = p;

      if (!set->first[(guchar) *p] || (sp = match_special (set, p, end)) == NULL)
        {
          p++;
          continue;
        }
      /* single_word: not inside a word, else skipped whole, as Hugging
       * Face's matcher moves on past it. */
      if (sp->single_word &&
          ((p > text && pl_unichar_is_word (g_utf8_get_char (g_utf8_find_prev_char (text, p)))) ||
           (p + sp->len < end && pl_unichar_is_word (g_utf8_get_char (p + sp->len)))))
        {
          p += sp->len;
          continue;
        }
      if (sp->lstrip)
        while (stop > segment)
          {
            const char *before = g_utf8_find_prev_char (segment, stop);

            if (!pl_unichar_is_white_space (g_utf8_get_char (before)))
              break;
            stop = before;
          }
      func (self, segment, stop - segment, at_start && segment == text, ids);
      g_array_append_val (ids, sp->id);
      p += sp->len;
      if (sp->rstrip)
        while (p < end && pl_unichar_is_white_space (g_utf8_get_char (p)))
          p = g_utf8_next_char (p);
      segment = p;
    }
  func (self, segment, end - segment, at_start && segment == text, ids);
}

gboolean
pl_tokenizer_encode (PlTokenizer  *self,
                     const char   *text,
                     GArray      **ids,
                     GPtrArray   **tokens,
                     GError      **error)
{
  g_autoptr(GArray) out = NULL;
  const char *bad = NULL;
  gsize len;

  g_return_val_if_fail (PL_IS_TOKENIZER (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  len = strlen (text);
  if (!g_utf8_validate (text, len, &bad))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "The text is not valid UTF-8 (byte 0x%02x at offset %" G_GSIZE_FORMAT "); save or type it as UTF-8",
                   (guchar) *bad, (gsize) (bad - text));
      return FALSE;
    }

  sort_specials (self);
  out = g_array_sized_new (FALSE, FALSE, sizeof (int), len / 3 + 8);
  g_array_append_vals (out, self->prefix->data, self->prefix->len);
  pl_tokenizer_split_added (self, &self->added, text, len, TRUE, encode_segment, out);
  g_array_append_vals (out, self->suffix->data, self->suffix->len);

  if (tokens != NULL)
    {
      GPtrArray *strings = g_ptr_array_new_full (out->len, g_free);

      for (guint i = 0; i < out->len; i++)
        {
          const char *t = pl_tokenizer_id_to_token (self, g_array_index (out, int, i));

          g_ptr_array_add (strings, g_strdup (t != NULL ? t : ""));
        }
      *tokens = strings;
    }
  if (ids != NULL)
    *ids = g_steal_pointer (&out);
  return TRUE;
}

GArray *
pl_tokenizer_encode_for_model (const char  *path,
                               const char  *text,
                               GPtrArray  **tokens,
                               GError     **error)
{
  g_autoptr(PlTokenizer) self = pl_tokenizer_new_for_model_dir (path, error);
  GArray *ids = NULL;

  if (self == NULL || !pl_tokenizer_encode (self, text, &ids, tokens, error))
    return NULL;
  return ids;
}

/* Decoding ---------------------------------------------------------------- */

char *
pl_tokenizer_decode (PlTokenizer *self,
                     const int   *ids,
                     gsize        n_ids,
                     gboolean     skip_special)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gsize prefix_len;

  g_return_val_if_fail (PL_IS_TOKENIZER (self), NULL);

  if (self->kind != PL_TOKENIZER_WORDPIECE)
    return pl_pipeline_decode (self, ids, n_ids, skip_special);

  prefix_len = self->subword_prefix != NULL ? strlen (self->subword_prefix) : 0;
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *t = pl_tokenizer_id_to_token (self, ids[i]);
      gboolean special = pl_tokenizer_is_special (self, ids[i]);

      if (t == NULL || (special && skip_special))
        continue;
      if (!special && prefix_len > 0 && out->len > 0 && g_str_has_prefix (t, self->subword_prefix))
        t += prefix_len;
      else if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, t);
    }
  return g_utf8_make_valid (out->str, out->len);
}

char *
pl_tokenizer_get_label (PlTokenizer *self,
                        int          id)
{
  const char *token;

  g_return_val_if_fail (PL_IS_TOKENIZER (self), NULL);

  token = pl_tokenizer_id_to_token (self, id);
  if (token == NULL)
    return g_strdup_printf ("#%d", id);
  if (self->kind == PL_TOKENIZER_WORDPIECE || pl_tokenizer_is_special (self, id))
    return g_strdup (token);
  return pl_pipeline_label (self, id);
}

/* Getters ----------------------------------------------------------------- */

PlTokenizerKind
pl_tokenizer_get_kind (PlTokenizer *self)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), PL_TOKENIZER_BYTES);
  return self->kind;
}

const char *
pl_tokenizer_get_kind_name (PlTokenizer *self)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), NULL);
  switch (self->kind)
    {
    case PL_TOKENIZER_WORDPIECE:
      return "wordpiece";
    case PL_TOKENIZER_BPE:
      return "byte-level-bpe";
    case PL_TOKENIZER_SENTENCEPIECE_BPE:
      return "sentencepiece-bpe";
    case PL_TOKENIZER_UNIGRAM:
      return "unigram";
    case PL_TOKENIZER_BYTES:
      return "bytes";
    default:
      g_assert_not_reached ();
    }
}

const char *
pl_tokenizer_get_source (PlTokenizer *self)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), NULL);
  return self->source;
}

guint
pl_tokenizer_get_vocab_size (PlTokenizer *self)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), 0);
  return self->vocab->len;
}

const char *
pl_tokenizer_id_to_token (PlTokenizer *self,
                          int          id)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), NULL);
  if (id < 0 || (guint) id >= self->vocab->len)
    return NULL;
  return g_ptr_array_index (self->vocab, id);
}

int
pl_tokenizer_token_to_id (PlTokenizer *self,
                          const char  *token)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), -1);
  g_return_val_if_fail (token != NULL, -1);
  return GPOINTER_TO_INT (g_hash_table_lookup (self->ids, token)) - 1;
}

int
pl_tokenizer_model_token_to_id (PlTokenizer *self,
                                const char  *token)
{
  int id = GPOINTER_TO_INT (g_hash_table_lookup (self->ids, token)) - 1;

  return id >= 0 && !g_hash_table_contains (self->added_only, GINT_TO_POINTER (id)) ? id : -1;
}

gboolean
pl_tokenizer_is_special (PlTokenizer *self,
                         int          id)
{
  g_return_val_if_fail (PL_IS_TOKENIZER (self), FALSE);
  return g_hash_table_contains (self->special_ids, GINT_TO_POINTER (id));
}
