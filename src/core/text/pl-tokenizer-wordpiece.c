/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* WordPiece as Hugging Face's `tokenizers` runs it for BERT: BertNormalizer,
 * BertPreTokenizer, then greedy longest-match-first pieces. */

#define DEFAULT_MAX_CHARS_PER_WORD 100

/* Rust's order in BertNormalizer is clean text, CJK, strip accents, lower
 * case; these are the reference's, where Python's BertTokenizer differs. */

/* Rust's unicode_categories is_other(): Cc, Cf and Co. Unassigned code
 * points stay (Python's BertTokenizer drops them; the Rust reference not). */
static gboolean
is_control (gunichar c)
{
  if (c == '\t' || c == '\n' || c == '\r')
    return FALSE;
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_PRIVATE_USE:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The CJK Unified Ideographs blocks BERT pads with spaces (not kana or
 * hangul, which are written with spaces of their own). */
static gboolean
is_chinese (gunichar c)
{
  return (c >= 0x4e00 && c <= 0x9fff) ||
         (c >= 0x3400 && c <= 0x4dbf) ||
         (c >= 0x20000 && c <= 0x2a6df) ||
         (c >= 0x2a700 && c <= 0x2b73f) ||
         (c >= 0x2b740 && c <= 0x2b81f) ||
         (c >= 0x2b920 && c <= 0x2ceaf) ||
         (c >= 0xf900 && c <= 0xfaff) ||
         (c >= 0x2f800 && c <= 0x2fa1f);
}

static inline void
append_unichar (GString *s, gunichar c)
{
  if (c < 0x80)
    g_string_append_c (s, (char) c);
  else
    g_string_append_unichar (s, c);
}

/* Returns the normalised text in OUT (reused between calls). */
static void
normalize (PlTokenizer *self,
           const char  *text,
           gsize        len,
           GString     *out,
           GString     *tmp)
{
  const PlWordPieceOptions *wp = &self->wp;
  const char *end = text + len;
  g_autofree char *nfd = NULL;
  const char *src;
  gsize src_len;
  gboolean ascii = TRUE;

  g_string_truncate (tmp, 0);
  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = (guchar) *p < 0x80 ? (gunichar) *p : g_utf8_get_char (p);

      if (c >= 0x20 && c < 0x7f)
        {
          g_string_append_c (tmp, (char) c);
          continue;
        }
      if (wp->clean_text)
        {
          if (c == 0 || c == 0xfffd || is_control (c))
            continue;
          if (pl_unichar_is_white_space (c))
            {
              g_string_append_c (tmp, ' ');
              continue;
            }
        }
      if (wp->chinese_chars && is_chinese (c))
        {
          g_string_append_c (tmp, ' ');
          g_string_append_unichar (tmp, c);
          g_string_append_c (tmp, ' ');
          ascii = FALSE;
          continue;
        }
      g_string_append_len (tmp, p, g_utf8_next_char (p) - p);
      ascii = ascii && c < 0x80;
    }

  src = tmp->str;
  src_len = tmp->len;
  /* ASCII is its own NFD: most text skips the decomposition. */
  if (wp->strip_accents && !ascii)
    {
      nfd = g_utf8_normalize (tmp->str, tmp->len, G_NORMALIZE_NFD);
      src = nfd;
      src_len = strlen (nfd);
    }

  g_string_truncate (out, 0);
  if (!wp->strip_accents && !wp->lowercase)
    {
      g_string_append_len (out, src, src_len);
      return;
    }
  for (const char *p = src; p < src + src_len; p = g_utf8_next_char (p))
    {
      gunichar c = (guchar) *p < 0x80 ? (gunichar) *p : g_utf8_get_char (p);

      if (c < 0x80)
        {
          if (wp->lowercase && c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
          g_string_append_c (out, (char) c);
          continue;
        }
      if (wp->strip_accents && g_unichar_type (c) == G_UNICODE_NON_SPACING_MARK)
        continue;
      if (wp->lowercase)
        {
          /* Rust's char::to_lowercase: İ is the one character whose lower
           * case is two (i and a combining dot). */
          if (c == 0x130)
            {
              g_string_append (out, "i\xcc\x87");
              continue;
            }
          c = g_unichar_tolower (c);
        }
      append_unichar (out, c);
    }
}

typedef struct
{
  PlTokenizer *self;
  GArray      *ids;
  GString     *piece;
  gsize        prefix_len;
} WordState;

static void
push (GArray *ids, int id)
{
  g_array_append_val (ids, id);
}

static void
encode_word (const char *word,
             gsize       len,
             gpointer    user_data)
{
  WordState *st = user_data;
  PlTokenizer *self = st->self;
  guint mark = st->ids->len;
  gsize start = 0;

  if (g_utf8_strlen (word, len) > (glong) self->wp.max_chars_per_word)
    {
      push (st->ids, self->unk_id);
      return;
    }

  while (start < len)
    {
      gsize lead = start > 0 ? st->prefix_len : 0;
      gsize end = len;
      int id = -1;

      /* No piece is longer than the longest token: start there. */
      if (self->max_token_bytes < lead)
        end = start;
      else if (end - start > self->max_token_bytes - lead)
        {
          end = start + (self->max_token_bytes - lead);
          while (end > start && ((guchar) word[end] & 0xc0) == 0x80)
            end--;
        }

      while (end > start)
        {
          g_string_truncate (st->piece, 0);
          if (start > 0)
            g_string_append_len (st->piece, self->subword_prefix, st->prefix_len);
          g_string_append_len (st->piece, word + start, end - start);
          id = pl_tokenizer_token_to_id (self, st->piece->str);
          if (id >= 0)
            break;
          end = g_utf8_find_prev_char (word + start, word + end) - word;
        }

      if (id < 0)
        {
          /* One piece missing makes the whole word unknown. */
          g_array_set_size (st->ids, mark);
          push (st->ids, self->unk_id);
          return;
        }
      push (st->ids, id);
      start = end;
    }
}

void
pl_wordpiece_encode (PlTokenizer *self,
                     const char  *text,
                     gsize        len,
                     GArray      *ids)
{
  g_autoptr(GString) normalized = g_string_sized_new (len + 16);
  g_autoptr(GString) tmp = g_string_sized_new (len + 16);
  g_autoptr(GString) piece = g_string_sized_new (64);
  WordState st = { self, ids, piece, strlen (self->subword_prefix) };

  normalize (self, text, len, normalized, tmp);
  pl_pretokenize_bert (normalized->str, normalized->len, encode_word, &st);
}

/* An uncased vocabulary has no upper-case letters outside its special tokens
 * ([CLS], [unused0]); bert-base-cased has thousands. */
static gboolean
vocab_is_cased (PlTokenizer *self)
{
  guint upper = 0;

  for (guint i = 0; i < self->vocab->len; i++)
    {
      const char *t = g_ptr_array_index (self->vocab, i);

      if (t == NULL || t[0] == '[' || t[0] == '<')
        continue;
      for (const char *p = t; *p; p = g_utf8_next_char (p))
        if (g_unichar_isupper (g_utf8_get_char (p)))
          {
            upper++;
            break;
          }
    }
  /* A handful may slip into an uncased vocabulary; a cased one has many. */
  return upper > 100;
}

void
pl_wordpiece_default_options (PlTokenizer        *self,
                              PlWordPieceOptions *options)
{
  options->lowercase = !vocab_is_cased (self);
  options->strip_accents = options->lowercase;
  options->clean_text = TRUE;
  options->chinese_chars = TRUE;
  options->add_special = TRUE;
  options->max_chars_per_word = DEFAULT_MAX_CHARS_PER_WORD;
}

gboolean
pl_wordpiece_prepare (PlTokenizer  *self,
                      GError      **error)
{
  const char *unk = "[UNK]";

  if (self->wp.max_chars_per_word == 0)
    self->wp.max_chars_per_word = DEFAULT_MAX_CHARS_PER_WORD;
  if (self->subword_prefix == NULL)
    self->subword_prefix = g_strdup ("##");

  if (self->unk_id < 0)
    self->unk_id = pl_tokenizer_token_to_id (self, unk);
  if (self->unk_id < 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s has no %s token: a WordPiece vocabulary needs one for unknown words",
                   self->source, unk);
      return FALSE;
    }

  self->max_token_bytes = 0;
  for (guint i = 0; i < self->vocab->len; i++)
    {
      const char *t = g_ptr_array_index (self->vocab, i);

      if (t != NULL)
        self->max_token_bytes = MAX (self->max_token_bytes, strlen (t));
    }
  return TRUE;
}
