/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-safetensors-header.h"

/* A scanner for the one shape of JSON safetensors writers produce. Each
 * function returns FALSE as soon as the text leaves that shape; nothing is
 * reported, as the general JSON parser then reads the header again. */

typedef struct
{
  const char *p;
  const char *end;
} Scan;

static void
skip_space (Scan *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static gboolean
take (Scan *s,
      char  c)
{
  skip_space (s);
  if (s->p < s->end && *s->p == c)
    {
      s->p++;
      return TRUE;
    }
  return FALSE;
}

/* A string without escapes or control characters: its bytes, unquoted. */
static gboolean
string (Scan        *s,
        const char **out,
        gsize       *len)
{
  const char *start;

  if (!take (s, '"'))
    return FALSE;
  start = s->p;
  while (s->p < s->end && *s->p != '"')
    {
      if (*s->p == '\\' || (guchar) *s->p < 0x20)
        return FALSE;
      s->p++;
    }
  if (s->p == s->end)
    return FALSE;
  *out = start;
  *len = s->p - start;
  s->p++;
  return TRUE;
}

/* A non-negative integer written plainly (no sign, fraction, exponent or
 * leading zero) that fits an int64, as json-glib reads integers. */
static gboolean
number (Scan    *s,
        guint64 *out)
{
  const char *start;
  guint64 v = 0;

  skip_space (s);
  start = s->p;
  while (s->p < s->end && g_ascii_isdigit (*s->p))
    {
      guint digit = *s->p - '0';

      if (v > ((guint64) G_MAXINT64 - digit) / 10)
        return FALSE;
      v = v * 10 + digit;
      s->p++;
    }
  if (s->p == start || (*start == '0' && s->p - start > 1))
    return FALSE;
  if (s->p < s->end && (*s->p == '.' || *s->p == 'e' || *s->p == 'E'))
    return FALSE;
  *out = v;
  return TRUE;
}

/* [N, …] of at most MAX numbers. */
static gboolean
numbers (Scan    *s,
         guint64 *out,
         guint    max,
         guint   *n)
{
  *n = 0;
  if (!take (s, '['))
    return FALSE;
  if (take (s, ']'))
    return TRUE;
  do
    {
      if (*n == max || !number (s, &out[*n]))
        return FALSE;
      (*n)++;
    }
  while (take (s, ','));
  return take (s, ']');
}

static gboolean
is_key (const char *key,
        gsize       len,
        const char *name)
{
  return len == strlen (name) && memcmp (key, name, len) == 0;
}

/* {"key": "value", …} */
static gboolean
metadata (Scan *s)
{
  const char *text;
  gsize len;

  if (!take (s, '{'))
    return FALSE;
  if (take (s, '}'))
    return TRUE;
  do
    if (!string (s, &text, &len) || !take (s, ':') || !string (s, &text, &len))
      return FALSE;
  while (take (s, ','));
  return take (s, '}');
}

/* {"dtype": S, "shape": [N…], "data_offsets": [B, E]}, each once. */
static gboolean
tensor (Scan               *s,
        PlSafetensorsEntry *entry)
{
  gboolean dtype = FALSE, shape = FALSE, offsets = FALSE;
  guint64 range[2];
  const char *key;
  gsize len;
  guint n;

  if (!take (s, '{'))
    return FALSE;
  do
    {
      if (!string (s, &key, &len) || !take (s, ':'))
        return FALSE;
      if (is_key (key, len, "dtype") && !dtype)
        {
          if (!string (s, &entry->dtype, &entry->dtype_len))
            return FALSE;
          dtype = TRUE;
        }
      else if (is_key (key, len, "shape") && !shape)
        {
          if (!numbers (s, entry->shape, PL_TENSOR_MAX_RANK, &entry->rank))
            return FALSE;
          shape = TRUE;
        }
      else if (is_key (key, len, "data_offsets") && !offsets)
        {
          if (!numbers (s, range, 2, &n) || n != 2)
            return FALSE;
          entry->begin = range[0];
          entry->end = range[1];
          offsets = TRUE;
        }
      else
        return FALSE;
    }
  while (take (s, ','));
  return take (s, '}') && dtype && shape && offsets;
}

static guint
entry_name_hash (gconstpointer key)
{
  const PlSafetensorsEntry *entry = key;
  guint h = 5381;

  for (gsize i = 0; i < entry->name_len; i++)
    h = h * 33 + (guchar) entry->name[i];
  return h;
}

static gboolean
entry_name_equal (gconstpointer a,
                  gconstpointer b)
{
  const PlSafetensorsEntry *x = a, *y = b;

  return x->name_len == y->name_len && memcmp (x->name, y->name, x->name_len) == 0;
}

static gboolean
scan_header (const char *text,
             gsize       len,
             GArray     *entries)
{
  g_autoptr(GHashTable) names = NULL;
  Scan s = { text, text + len };

  if (!take (&s, '{'))
    return FALSE;
  if (!take (&s, '}'))
    {
      do
        {
          PlSafetensorsEntry entry = { 0 };

          if (!string (&s, &entry.name, &entry.name_len) || !take (&s, ':'))
            return FALSE;
          if (is_key (entry.name, entry.name_len, "__metadata__"))
            {
              if (!metadata (&s))
                return FALSE;
              continue;
            }
          if (!tensor (&s, &entry))
            return FALSE;
          g_array_append_val (entries, entry);
        }
      while (take (&s, ','));
      if (!take (&s, '}'))
        return FALSE;
    }
  /* Writers pad the header with spaces to a multiple of 8 bytes. */
  skip_space (&s);
  if (s.p != s.end)
    return FALSE;

  /* JSON keeps the last of a name given twice: the general parser's
   * business. */
  names = g_hash_table_new (entry_name_hash, entry_name_equal);
  for (guint i = 0; i < entries->len; i++)
    if (!g_hash_table_add (names, &g_array_index (entries, PlSafetensorsEntry, i)))
      return FALSE;
  return TRUE;
}

gboolean
pl_safetensors_header_scan (const char *text,
                            gsize       len,
                            GArray     *entries)
{
  g_return_val_if_fail (g_array_get_element_size (entries) == sizeof (PlSafetensorsEntry), FALSE);

  if (scan_header (text, len, entries))
    return TRUE;
  g_array_set_size (entries, 0);
  return FALSE;
}
