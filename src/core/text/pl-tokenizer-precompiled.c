/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* SentencePiece's normalisation rules as tokenizer.json's Precompiled
 * normalizer carries them: precompiled_charsmap, base64 of
 *
 *   u32 (little-endian) trie_size, trie_size / 4 u32 units of a Darts
 *   double-array trie, then the replacement strings, each ended by a NUL
 *
 * The trie maps a byte string (the text to replace) to the offset of its
 * replacement. Read as Hugging Face's spm_precompiled reads it, and applied
 * as its Precompiled normalizer applies it: each grapheme cluster under 6
 * bytes is replaced whole by the replacement of its shortest prefix in the
 * trie, when there is one; otherwise each of its characters by its own, or
 * kept. A unit or offset the file does not hold (where Rust would panic)
 * counts as no match. */

struct _PlPrecompiled
{
  guint32 *units;
  gsize    n_units;
  char    *normalized;     /* the replacement strings, NUL-ended, valid UTF-8 */
  gsize    normalized_len;
};

static gboolean
has_leaf (guint32 unit)
{
  return (unit >> 8) & 1;
}

static guint32
value (guint32 unit)
{
  return unit & ((1u << 31) - 1);
}

static guint32
label (guint32 unit)
{
  return unit & ((1u << 31) | 0xff);
}

static gsize
offset (guint32 unit)
{
  return (gsize) (unit >> 10) << ((unit & (1u << 9)) >> 6);
}

/* Valid UTF-8 with NUL characters in it, as Rust's String takes it */
static gboolean
valid_utf8 (const char *text,
            gsize       len)
{
  const char *end = text + len;

  while (text < end)
    {
      const char *nul = memchr (text, '\0', end - text);
      gsize n = (nul != NULL ? nul : end) - text;

      if (!g_utf8_validate_len (text, n, NULL))
        return FALSE;
      text += n + (nul != NULL);
    }
  return TRUE;
}

PlPrecompiled *
pl_precompiled_new (const guint8  *data,
                    gsize          len,
                    const char    *path,
                    GError       **error)
{
  PlPrecompiled *self;
  guint32 trie_size;
  gsize n_units;

  if (len < 4)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the Precompiled normalizer's charsmap holds %" G_GSIZE_FORMAT " bytes, too few for its "
                   "trie's size", path, len);
      return NULL;
    }
  /* DATA has no alignment to count on */
  memcpy (&trie_size, data, 4);
  trie_size = GUINT32_FROM_LE (trie_size);
  n_units = trie_size / 4;
  if (n_units == 0 || n_units > (len - 4) / 4)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the Precompiled normalizer's trie claims %u bytes of its charsmap's %" G_GSIZE_FORMAT,
                   path, trie_size, len - 4);
      return NULL;
    }
  if (!valid_utf8 ((const char *) data + 4 + n_units * 4, len - 4 - n_units * 4))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the Precompiled normalizer's replacement strings are not valid UTF-8", path);
      return NULL;
    }
  self = g_new0 (PlPrecompiled, 1);
  self->n_units = n_units;
  self->units = g_new (guint32, n_units);
  for (gsize i = 0; i < n_units; i++)
    {
      guint32 unit;

      memcpy (&unit, data + 4 + i * 4, 4);
      self->units[i] = GUINT32_FROM_LE (unit);
    }
  self->normalized_len = len - 4 - n_units * 4;
  self->normalized = g_malloc (self->normalized_len + 1);
  memcpy (self->normalized, data + 4 + n_units * 4, self->normalized_len);
  self->normalized[self->normalized_len] = '\0';
  return self;
}

void
pl_precompiled_free (PlPrecompiled *self)
{
  if (self == NULL)
    return;
  g_free (self->units);
  g_free (self->normalized);
  g_free (self);
}

/* The replacement of KEY's shortest prefix in the trie (Darts'
 * commonPrefixSearch, its first result), or NULL. */
static const char *
replacement (const PlPrecompiled *self,
             const char          *key,
             gsize                len,
             gsize               *out_len)
{
  gsize node = 0;
  guint32 unit = self->units[0];

  node ^= offset (unit);
  for (gsize i = 0; i < len && key[i] != '\0'; i++)
    {
      guint8 c = (guint8) key[i];
      gsize at;

      node ^= c;
      if (node >= self->n_units)
        return NULL;
      unit = self->units[node];
      if (label (unit) != c)
        return NULL;
      node ^= offset (unit);
      if (has_leaf (unit))
        {
          if (node >= self->n_units)
            return NULL;
          at = value (self->units[node]);
          /* a replacement starts where a string does, on a character */
          if (at > self->normalized_len ||
              (at < self->normalized_len && ((guint8) self->normalized[at] & 0xc0) == 0x80))
            return NULL;
          *out_len = strlen (self->normalized + at);
          return self->normalized + at;
        }
    }
  return NULL;
}

void
pl_precompiled_normalize (const PlPrecompiled *self,
                          const char          *text,
                          gsize                len,
                          GString             *out)
{
  const char *p = text, *end = text + len;

  while (p < end)
    {
      gsize cluster = pl_grapheme_end (p, end - p);
      const char *norm;
      gsize norm_len;

      if (cluster < 6 && (norm = replacement (self, p, cluster, &norm_len)) != NULL)
        {
          g_string_append_len (out, norm, norm_len);
          p += cluster;
          continue;
        }
      for (const char *c = p; c < p + cluster; c = g_utf8_next_char (c))
        {
          gsize n = g_utf8_next_char (c) - c;

          if ((norm = replacement (self, c, n, &norm_len)) != NULL)
            g_string_append_len (out, norm, norm_len);
          else
            g_string_append_len (out, c, n);
        }
      p += cluster;
    }
}
