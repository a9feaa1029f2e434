/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-tokenizer-private.h"

/* Hugging Face's decoders behind a BPE model, each turning the list of token
 * strings into another as its decode_chain does, and the label of a single
 * token, which runs the same steps without those that depend on where the
 * token stands (Strip, Metaspace's first token) and leaves stray bytes as
 * bytes. */

#define REPLACEMENT_CHARACTER "\357\277\275"

/* The length of the well-formed UTF-8 sequence at P (Unicode's table 3-7),
 * or, when there is none, of its longest ill-formed prefix (at least 1):
 * what Rust's String::from_utf8_lossy replaces by one U+FFFD. */
static gsize
utf8_unit (const guchar *p,
           const guchar *end,
           gboolean     *valid)
{
  guchar b = p[0];
  guchar lo = 0x80, hi = 0xbf;
  gsize need;
  gsize n = 1;

  *valid = TRUE;
  if (b < 0x80)
    return 1;
  if (b >= 0xc2 && b <= 0xdf)
    need = 1;
  else if (b >= 0xe0 && b <= 0xef)
    {
      need = 2;
      lo = b == 0xe0 ? 0xa0 : 0x80;
      hi = b == 0xed ? 0x9f : 0xbf;
    }
  else if (b >= 0xf0 && b <= 0xf4)
    {
      need = 3;
      lo = b == 0xf0 ? 0x90 : 0x80;
      hi = b == 0xf4 ? 0x8f : 0xbf;
    }
  else
    {
      *valid = FALSE;
      return 1;
    }
  for (gsize k = 0; k < need; k++, lo = 0x80, hi = 0xbf)
    {
      if (p + n >= end || p[n] < lo || p[n] > hi)
        {
          *valid = FALSE;
          return n;
        }
      n++;
    }
  return n;
}

/* Rust's from_utf8_lossy. */
static char *
utf8_lossy (const char *bytes,
            gsize       len)
{
  const guchar *p = (const guchar *) bytes;
  const guchar *end = p + len;
  GString *out = g_string_sized_new (len);

  while (p < end)
    {
      gboolean valid;
      gsize n = utf8_unit (p, end, &valid);

      if (valid)
        g_string_append_len (out, (const char *) p, n);
      else
        g_string_append (out, REPLACEMENT_CHARACTER);
      p += n;
    }
  return g_string_free (out, FALSE);
}

/* A byte for a label: as it is, except NUL, which would end the string. */
static void
append_label_byte (GString *out,
                   guchar   b)
{
  if (b == 0)
    g_string_append (out, "\\x00");
  else
    g_string_append_c (out, (char) b);
}

/* ByteLevel: the bytes a token's characters stand for, or the token as it
 * is when any of its characters is outside the byte map (added tokens). */
static void
append_byte_level (PlTokenizer *self,
                   GString     *out,
                   const char  *token,
                   gboolean     label)
{
  gsize start = out->len;

  for (const char *p = token; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c >= G_N_ELEMENTS (self->char_bytes) ||
          g_utf8_get_char (self->byte_chars[self->char_bytes[c]]) != c)
        {
          g_string_truncate (out, start);
          g_string_append (out, token);
          return;
        }
      if (label)
        append_label_byte (out, self->char_bytes[c]);
      else
        g_string_append_c (out, (char) self->char_bytes[c]);
    }
}

/* The byte of a <0xNN> token, or -1 (Rust's u8::from_str_radix on the two
 * characters after "<0x", which takes a sign). */
static int
fallback_byte (const char *token)
{
  int hi, lo;

  if (strlen (token) != 6 || !g_str_has_prefix (token, "<0x") || token[5] != '>')
    return -1;
  lo = g_ascii_xdigit_value (token[4]);
  if (token[3] == '+')
    return lo;
  hi = g_ascii_xdigit_value (token[3]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/* ByteFallback: a run of <0xNN> tokens becomes its text, or one U+FFFD per
 * byte when the run is not UTF-8. LABEL keeps the bytes. */
static void
flush_bytes (GPtrArray *out,
             GString   *bytes,
             guint      n_tokens,
             gboolean   label)
{
  if (n_tokens == 0)
    return;
  if (label)
    {
      GString *kept = g_string_new (NULL);

      for (gsize i = 0; i < bytes->len; i++)
        append_label_byte (kept, (guchar) bytes->str[i]);
      g_ptr_array_add (out, g_string_free (kept, FALSE));
    }
  else if (g_utf8_validate (bytes->str, bytes->len, NULL))
    g_ptr_array_add (out, g_strndup (bytes->str, bytes->len));
  else
    for (guint i = 0; i < n_tokens; i++)
      g_ptr_array_add (out, g_strdup (REPLACEMENT_CHARACTER));
  g_string_truncate (bytes, 0);
}

static GPtrArray *
byte_fallback (GPtrArray *tokens,
               gboolean   label)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) bytes = g_string_new (NULL);
  guint n_bytes = 0;

  for (guint i = 0; i < tokens->len; i++)
    {
      int b = fallback_byte (g_ptr_array_index (tokens, i));

      if (b >= 0)
        {
          g_string_append_c (bytes, (char) b);
          n_bytes++;
          continue;
        }
      flush_bytes (out, bytes, n_bytes, label);
      n_bytes = 0;
      g_ptr_array_add (out, g_strdup (g_ptr_array_index (tokens, i)));
    }
  flush_bytes (out, bytes, n_bytes, label);
  return out;
}

/* Strip: up to START copies of the character CONTENT from the front of each
 * token, up to STOP from its back. */
static char *
strip_token (const char         *token,
             const PlDecodeStep *step)
{
  gsize n = strlen (step->content);
  const char *begin = token;
  const char *end = token + strlen (token);

  for (guint i = 0; i < step->start && g_str_has_prefix (begin, step->content); i++)
    begin += n;
  for (guint i = 0; i < step->stop && (gsize) (end - begin) >= n && memcmp (end - n, step->content, n) == 0; i++)
    end -= n;
  return g_strndup (begin, end - begin);
}

/* Metaspace: the replacement becomes a space, except in the first token
 * (when a prefix was added), where it goes. */
static char *
metaspace_token (const char         *token,
                 const PlDecodeStep *step,
                 gboolean            first)
{
  return pl_string_replace_all (token, strlen (token), step->replacement,
                                first && step->prepend_scheme != PL_PREPEND_NEVER ? "" : " ");
}

/* One decoder on TOKENS (consumed); LABEL: one token alone, for its label. */
static GPtrArray *
decode_step (PlTokenizer        *self,
             const PlDecodeStep *step,
             GPtrArray          *tokens,
             gboolean            label)
{
  GPtrArray *out = NULL;
  GString *joined;

  switch (step->kind)
    {
    case PL_DECODE_BYTE_FALLBACK:
      out = byte_fallback (tokens, label);
      break;
    case PL_DECODE_BYTE_LEVEL:
    case PL_DECODE_FUSE:
      joined = g_string_new (NULL);
      for (guint i = 0; i < tokens->len; i++)
        if (step->kind == PL_DECODE_BYTE_LEVEL)
          append_byte_level (self, joined, g_ptr_array_index (tokens, i), label);
        else
          g_string_append (joined, g_ptr_array_index (tokens, i));
      out = g_ptr_array_new_with_free_func (g_free);
      if (step->kind == PL_DECODE_BYTE_LEVEL && !label)
        {
          g_ptr_array_add (out, utf8_lossy (joined->str, joined->len));
          g_string_free (joined, TRUE);
        }
      else
        g_ptr_array_add (out, g_string_free (joined, FALSE));
      break;
    case PL_DECODE_REPLACE:
    case PL_DECODE_STRIP:
    case PL_DECODE_METASPACE:
      out = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < tokens->len; i++)
        {
          const char *token = g_ptr_array_index (tokens, i);

          if (step->kind == PL_DECODE_REPLACE)
            g_ptr_array_add (out, pl_string_replace_all (token, strlen (token), step->pattern, step->content));
          else if (step->kind == PL_DECODE_STRIP)
            g_ptr_array_add (out, label ? g_strdup (token) : strip_token (token, step));
          else
            g_ptr_array_add (out, metaspace_token (token, step, i == 0 && !label));
        }
      break;
    default:
      g_assert_not_reached ();
    }
  g_ptr_array_unref (tokens);
  return out;
}

static GPtrArray *
decode_tokens (PlTokenizer *self,
               GPtrArray   *tokens,
               gboolean     label)
{
  for (guint i = 0; i < self->decoders->len; i++)
    tokens = decode_step (self, &g_array_index (self->decoders, PlDecodeStep, i), tokens, label);
  return tokens;
}

/* What the decoders get for ID: its token, or the normalised content of a
 * normalized added token. */
static const char *
token_to_decode (PlTokenizer *self,
                 int          id)
{
  const char *normal = g_hash_table_lookup (self->decoded_as, GINT_TO_POINTER (id));

  return normal != NULL ? normal : pl_tokenizer_id_to_token (self, id);
}

char *
pl_pipeline_decode (PlTokenizer *self,
                    const int   *ids,
                    gsize        n_ids,
                    gboolean     skip_special)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  char *text;

  for (gsize i = 0; i < n_ids; i++)
    {
      const char *token = token_to_decode (self, ids[i]);
      /* Hugging Face skips a special token by its content: one decoded in
       * its normalised form is not skipped. */
      gboolean skip = skip_special && pl_tokenizer_is_special (self, ids[i]) &&
                      !g_hash_table_contains (self->decoded_as, GINT_TO_POINTER (ids[i]));

      if (token != NULL && !skip)
        g_ptr_array_add (tokens, g_strdup (token));
    }
  tokens = decode_tokens (self, tokens, FALSE);
  /* With no decoder, Hugging Face joins the tokens with spaces. */
  g_ptr_array_add (tokens, NULL);
  text = g_strjoinv (self->decoders->len == 0 ? " " : "", (char **) tokens->pdata);
  g_ptr_array_unref (tokens);
  return text;
}

char *
pl_pipeline_label (PlTokenizer *self,
                   int          id)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) bytes = g_string_new (NULL);
  GString *out = g_string_new (NULL);
  const char *p, *end;

  g_ptr_array_add (tokens, g_strdup (token_to_decode (self, id)));
  tokens = decode_tokens (self, tokens, TRUE);
  for (guint i = 0; i < tokens->len; i++)
    g_string_append (bytes, g_ptr_array_index (tokens, i));
  g_ptr_array_unref (tokens);

  /* Whole characters as text, the bytes of a character cut in pieces
   * (“é” as two tokens) as \xHH. */
  p = bytes->str;
  end = bytes->str + bytes->len;
  while (p < end)
    {
      gboolean valid;
      gsize n = utf8_unit ((const guchar *) p, (const guchar *) end, &valid);

      if (valid)
        g_string_append_len (out, p, n);
      else
        for (gsize k = 0; k < n; k++)
          g_string_append_printf (out, "\\x%02X", (guint) (guchar) p[k]);
      p += n;
    }
  return g_string_free (out, FALSE);
}
