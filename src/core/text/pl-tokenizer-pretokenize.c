/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-tokenizer-private.h"

/* Character classes of the regular expressions Hugging Face uses, written
 * out by hand: a scanner that is faster than GRegex (bench/NOTES.md) and
 * has no backtracking to get wrong. */
typedef enum
{
  CLASS_SPACE,    /* \s: the Unicode White_Space property */
  CLASS_LETTER,   /* \p{L} */
  CLASS_NUMBER,   /* \p{N} */
  CLASS_OTHER,
} CharClass;

/* Unicode's White_Space property: what Rust's char::is_whitespace and
 * Oniguruma's \s both mean. GLib's g_unichar_isspace misses U+000B and U+0085. */
gboolean
pl_unichar_is_white_space (gunichar c)
{
  if (c < 0x80)
    return c == ' ' || (c >= 0x09 && c <= 0x0d);
  switch (c)
    {
    case 0x85: case 0xa0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
      return TRUE;
    default:
      return c >= 0x2000 && c <= 0x200a;
    }
}

/* Alphabetic is the letters, Nl and Other_Alphabetic, which beyond marks
 * holds only the circled, parenthesised and squared Latin letters (So);
 * checked over every code point against Hugging Face's single_word. */
gboolean
pl_unichar_is_word (gunichar c)
{
  if (c < 0x80)
    return g_ascii_isalnum (c) || c == '_';
  if (c == 0x200c || c == 0x200d ||
      (c >= 0x24b6 && c <= 0x24e9) || (c >= 0x1f130 && c <= 0x1f149) ||
      (c >= 0x1f150 && c <= 0x1f169) || (c >= 0x1f170 && c <= 0x1f189))
    return TRUE;
  switch (g_unichar_type (c))
    {
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_CONNECT_PUNCTUATION:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
pl_unichar_is_number (gunichar c)
{
  if (c < 0x80)
    return c >= '0' && c <= '9';
  switch (g_unichar_type (c))
    {
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_OTHER_NUMBER:
      return TRUE;
    default:
      return FALSE;
    }
}

static CharClass
classify (gunichar c)
{
  if (c < 0x80)
    {
      if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
        return CLASS_LETTER;
      if (c >= '0' && c <= '9')
        return CLASS_NUMBER;
      return pl_unichar_is_white_space (c) ? CLASS_SPACE : CLASS_OTHER;
    }
  if (pl_unichar_is_white_space (c))
    return CLASS_SPACE;
  switch (g_unichar_type (c))
    {
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_UPPERCASE_LETTER:
      return CLASS_LETTER;
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_OTHER_NUMBER:
      return CLASS_NUMBER;
    default:
      return CLASS_OTHER;
    }
}

/* The class of the character at P (before END), and where the next one starts. */
static inline CharClass
next_class (const char *p, const char *end, const char **next)
{
  guchar b = (guchar) *p;

  if (b < 0x80)
    {
      *next = p + 1;
      return classify (b);
    }
  *next = g_utf8_next_char (p);
  if (*next > end)
    *next = end;
  return classify (g_utf8_get_char (p));
}

/* Advances over characters of class CLS from P; returns where they end. */
static inline const char *
skip_class (const char *p, const char *end, CharClass cls)
{
  while (p < end)
    {
      const char *next;

      if (next_class (p, end, &next) != cls)
        break;
      p = next;
    }
  return p;
}

/* 's|'t|'re|'ve|'m|'ll|'d, or with ANY_CASE (?i:…): letters of either case,
 * and ſ (U+017F), which Unicode case folding makes an s; no other
 * character folds into these letters (checked over every code point
 * against Hugging Face). */
static gsize
match_contraction (const char *p,
                   const char *end,
                   gboolean    any_case)
{
  static const char * const suffixes[] = { "s", "t", "re", "ve", "m", "ll", "d" };

  if (*p != '\'')
    return 0;
  if (any_case && end - p >= 3 && (guchar) p[1] == 0xc5 && (guchar) p[2] == 0xbf)
    return 3;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      gsize n = strlen (suffixes[i]);

      if ((gsize) (end - p - 1) >= n &&
          (any_case ? g_ascii_strncasecmp (p + 1, suffixes[i], n) : strncmp (p + 1, suffixes[i], n)) == 0)
        return n + 1;
    }
  return 0;
}

void
pl_pretokenize_gpt2 (const char *text,
                     gsize       len,
                     PlSpanFunc  func,
                     gpointer    user_data)
{
  const char *p = text;
  const char *end = text + len;

  while (p < end)
    {
      const char *next;
      const char *stop;
      CharClass cls;
      gsize n;

      /* 's|'t|'re|'ve|'m|'ll|'d */
      if ((n = match_contraction (p, end, FALSE)) > 0)
        {
          func (p, n, user_data);
          p += n;
          continue;
        }

      cls = next_class (p, end, &next);

      /* ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: one space may lead */
      if (*p == ' ' && next < end)
        {
          const char *after;
          CharClass follow = next_class (next, end, &after);

          if (follow != CLASS_SPACE)
            {
              stop = skip_class (after, end, follow);
              func (p, stop - p, user_data);
              p = stop;
              continue;
            }
        }
      if (cls != CLASS_SPACE)
        {
          stop = skip_class (next, end, cls);
          func (p, stop - p, user_data);
          p = stop;
          continue;
        }

      /* \s+(?!\S) takes a run of whitespace but leaves its last character
       * to lead the word after it; a lone one before a word is \s+. */
      stop = skip_class (next, end, CLASS_SPACE);
      if (stop < end && stop > next)
        stop = g_utf8_find_prev_char (p, stop);
      func (p, stop - p, user_data);
      p = stop;
    }
}

static inline gboolean
is_line_break (const char *p)
{
  return *p == '\r' || *p == '\n';
}

void
pl_pretokenize_tiktoken (const char *text,
                         gsize       len,
                         guint       max_digits,
                         PlSpanFunc  func,
                         gpointer    user_data)
{
  const char *p = text;
  const char *end = text + len;

  while (p < end)
    {
      const char *next;
      const char *after;
      const char *stop;
      CharClass cls;
      gsize n;

      /* (?i:'s|'t|'re|'ve|'m|'ll|'d) */
      if ((n = match_contraction (p, end, TRUE)) > 0)
        {
          func (p, n, user_data);
          p += n;
          continue;
        }

      cls = next_class (p, end, &next);

      /* [^\r\n\p{L}\p{N}]?\p{L}+: letters, or one character that is
       * neither a line break, a letter nor a number, then letters */
      if (cls == CLASS_LETTER)
        {
          stop = skip_class (next, end, CLASS_LETTER);
          func (p, stop - p, user_data);
          p = stop;
          continue;
        }
      if (cls != CLASS_NUMBER && !is_line_break (p) && next < end &&
          next_class (next, end, &after) == CLASS_LETTER)
        {
          stop = skip_class (after, end, CLASS_LETTER);
          func (p, stop - p, user_data);
          p = stop;
          continue;
        }

      /* \p{N}{1,3} (Llama 3) or \p{N} (Qwen2) */
      if (cls == CLASS_NUMBER)
        {
          stop = next;
          for (guint k = 1; k < max_digits && stop < end && next_class (stop, end, &after) == CLASS_NUMBER; k++)
            stop = after;
          func (p, stop - p, user_data);
          p = stop;
          continue;
        }

      /* ` ?[^\s\p{L}\p{N}]+[\r\n]*`: other characters, one space before
       * them at most, and the line breaks after them */
      if (cls == CLASS_OTHER || (*p == ' ' && next < end && next_class (next, end, &after) == CLASS_OTHER))
        {
          stop = skip_class (cls == CLASS_OTHER ? next : after, end, CLASS_OTHER);
          while (stop < end && is_line_break (stop))
            stop++;
          func (p, stop - p, user_data);
          p = stop;
          continue;
        }

      /* Whitespace from here on: its run, up to the last line break in it
       * (\s*[\r\n]+), else up to the end of the text, else all of it but
       * the last character, which then leads what follows (\s+(?!\S)),
       * else the one character (\s+). */
      {
        const char *run_end = skip_class (next, end, CLASS_SPACE);
        const char *last_break = NULL;

        for (const char *q = p; q < run_end; q = g_utf8_next_char (q))
          if (is_line_break (q))
            last_break = q;
        if (last_break != NULL)
          stop = last_break + 1;
        else if (run_end == end || run_end == next)
          stop = run_end;
        else
          stop = g_utf8_find_prev_char (p, run_end);
        func (p, stop - p, user_data);
        p = stop;
      }
    }
}

static gboolean
is_bert_punctuation (gunichar c)
{
  if (c < 0x80)
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) ||
           (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONNECT_PUNCTUATION:
    case G_UNICODE_DASH_PUNCTUATION:
    case G_UNICODE_CLOSE_PUNCTUATION:
    case G_UNICODE_FINAL_PUNCTUATION:
    case G_UNICODE_INITIAL_PUNCTUATION:
    case G_UNICODE_OTHER_PUNCTUATION:
    case G_UNICODE_OPEN_PUNCTUATION:
      return TRUE;
    default:
      return FALSE;
    }
}

void
pl_pretokenize_bert (const char *text,
                     gsize       len,
                     PlSpanFunc  func,
                     gpointer    user_data)
{
  const char *p = text;
  const char *end = text + len;
  const char *word = NULL;

  while (p < end)
    {
      const char *next = g_utf8_next_char (p);
      gunichar c = (guchar) *p < 0x80 ? (gunichar) *p : g_utf8_get_char (p);

      if (pl_unichar_is_white_space (c))
        {
          if (word != NULL)
            func (word, p - word, user_data);
          word = NULL;
        }
      else if (is_bert_punctuation (c))
        {
          if (word != NULL)
            func (word, p - word, user_data);
          word = NULL;
          func (p, next - p, user_data);
        }
      else if (word == NULL)
        word = p;
      p = next;
    }
  if (word != NULL)
    func (word, end - word, user_data);
}
