/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* Byte-level BPE as GPT-2 and RoBERTa use it: the text is cut by GPT-2's
 * pattern, each piece's bytes become printable characters, and pairs merge
 * by rank, lowest first, leftmost first among equals (Hugging Face's order). */

/* Beyond this many distinct pieces the cache stops growing (as Hugging
 * Face's BPE cache does) so memory stays bounded on endless input. */
#define CACHE_CAPACITY 100000

typedef struct
{
  guint64 key;       /* (left + 1) << 32 | right; 0 marks an empty slot */
  int     rank;
  int     id;        /* the merged token */
} MergeSlot;

struct _PlBpeMerges
{
  MergeSlot *slots;
  gsize      mask;
  gsize      n;
};

static inline guint64
merge_key (int left, int right)
{
  return ((guint64) (guint32) (left + 1) << 32) | (guint32) right;
}

static inline gsize
merge_hash (guint64 key)
{
  return (gsize) ((key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 24);
}

PlBpeMerges *
pl_bpe_merges_new (guint n_hint)
{
  PlBpeMerges *m = g_new0 (PlBpeMerges, 1);
  gsize size = 64;

  while (size < (gsize) n_hint * 2)
    size *= 2;
  m->slots = g_new0 (MergeSlot, size);
  m->mask = size - 1;
  return m;
}

void
pl_bpe_merges_free (PlBpeMerges *m)
{
  if (m == NULL)
    return;
  g_free (m->slots);
  g_free (m);
}

static MergeSlot *
merges_find (const PlBpeMerges *m, guint64 key)
{
  gsize i = merge_hash (key) & m->mask;

  while (m->slots[i].key != 0 && m->slots[i].key != key)
    i = (i + 1) & m->mask;
  return &m->slots[i];
}

static inline const MergeSlot *
merges_lookup (const PlBpeMerges *m, int left, int right)
{
  const MergeSlot *slot = merges_find (m, merge_key (left, right));

  return slot->key != 0 ? slot : NULL;
}

static void
merges_insert (PlBpeMerges *m, int left, int right, int rank, int id)
{
  guint64 key = merge_key (left, right);
  MergeSlot *slot;

  if ((m->n + 1) * 2 > m->mask + 1)
    {
      MergeSlot *old = m->slots;
      gsize old_size = m->mask + 1;

      m->slots = g_new0 (MergeSlot, old_size * 2);
      m->mask = old_size * 2 - 1;
      for (gsize i = 0; i < old_size; i++)
        if (old[i].key != 0)
          *merges_find (m, old[i].key) = old[i];
      g_free (old);
    }
  slot = merges_find (m, key);
  if (slot->key == 0)
    m->n++;
  /* A pair listed twice keeps its last rank, as in Hugging Face. */
  slot->key = key;
  slot->rank = rank;
  slot->id = id;
}

/* GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves,
 * the other 68 take the characters from U+0100 on, in byte order. */
void
pl_bpe_init_byte_map (PlTokenizer *self)
{
  guint extra = 0;

  memset (self->char_bytes, 0, sizeof self->char_bytes);
  for (guint b = 0; b < 256; b++)
    {
      gunichar c;
      int n;

      if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)
        c = b;
      else
        c = 256 + extra++;
      n = g_unichar_to_utf8 (c, self->byte_chars[b]);
      self->byte_chars[b][n] = '\0';
      self->char_bytes[c] = (guint8) b;
      self->byte_ids[b] = -1;
    }
}

gboolean
pl_bpe_add_merge (PlTokenizer  *self,
                  const char   *left,
                  const char   *right,
                  GError      **error)
{
  g_autofree char *merged = g_strconcat (left, right, NULL);
  int a = pl_tokenizer_token_to_id (self, left);
  int b = pl_tokenizer_token_to_id (self, right);
  int c = pl_tokenizer_token_to_id (self, merged);
  const char *missing = a < 0 ? left : b < 0 ? right : c < 0 ? merged : NULL;

  if (missing != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: merge “%s %s” uses “%s”, which is not in the vocabulary (do the merges belong to this vocabulary?)",
                   self->source, left, right, missing);
      return FALSE;
    }
  merges_insert (self->merges, a, b, (int) self->merges->n, c);
  return TRUE;
}

void
pl_bpe_prepare (PlTokenizer *self)
{
  for (guint b = 0; b < 256; b++)
    self->byte_ids[b] = pl_tokenizer_token_to_id (self, self->byte_chars[b]);
  if (self->cache == NULL)
    self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* A candidate merge of the symbol at POS with the one after it. */
typedef struct
{
  int rank;
  int pos;
  int id;
} Candidate;

static inline gboolean
candidate_before (const Candidate *x, const Candidate *y)
{
  return x->rank != y->rank ? x->rank < y->rank : x->pos < y->pos;
}

static void
heap_push (Candidate *heap, gsize *n, Candidate c)
{
  gsize i = (*n)++;

  while (i > 0 && candidate_before (&c, &heap[(i - 1) / 2]))
    {
      heap[i] = heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  heap[i] = c;
}

static Candidate
heap_pop (Candidate *heap, gsize *n)
{
  Candidate top = heap[0];
  Candidate last = heap[--(*n)];
  gsize i = 0;

  for (;;)
    {
      gsize child = 2 * i + 1;

      if (child >= *n)
        break;
      if (child + 1 < *n && candidate_before (&heap[child + 1], &heap[child]))
        child++;
      if (!candidate_before (&heap[child], &last))
        break;
      heap[i] = heap[child];
      i = child;
    }
  if (*n > 0)
    heap[i] = last;
  return top;
}

typedef struct
{
  int    *sym;
  int    *prev;
  int    *next;
  Candidate *heap;
  gsize   n_heap;
} Word;

static void
consider (PlTokenizer *self, Word *w, int pos)
{
  const MergeSlot *slot;
  int right;

  if (pos < 0 || (right = w->next[pos]) < 0)
    return;
  slot = merges_lookup (self->merges, w->sym[pos], w->sym[right]);
  if (slot != NULL)
    heap_push (w->heap, &w->n_heap, (Candidate) { slot->rank, pos, slot->id });
}

/* Merges the bytes of one piece; returns int[] {n, ids…} (to be freed). */
static int *
merge_piece (PlTokenizer *self, const guchar *bytes, gsize len)
{
  g_autofree int *sym = g_new (int, len);
  g_autofree int *prev = g_new (int, len);
  g_autofree int *next = g_new (int, len);
  g_autofree Candidate *heap = NULL;
  Word w = { sym, prev, next, NULL, 0 };
  gsize n = 0;
  int *out;
  int count = 0;

  for (gsize i = 0; i < len; i++)
    {
      /* A byte missing from the vocabulary is dropped, as Hugging Face
       * does without an unknown token. */
      if (self->byte_ids[bytes[i]] < 0)
        continue;
      sym[n] = self->byte_ids[bytes[i]];
      prev[n] = (int) n - 1;
      next[n] = (int) n + 1;
      n++;
    }
  if (n > 0)
    next[n - 1] = -1;

  /* Each merge adds at most two candidates to the n - 1 first ones. */
  heap = g_new (Candidate, 3 * n + 1);
  w.heap = heap;
  for (gsize i = 0; i + 1 < n; i++)
    consider (self, &w, (int) i);

  while (w.n_heap > 0)
    {
      Candidate c = heap_pop (heap, &w.n_heap);
      const MergeSlot *slot;
      int right;

      /* Skip candidates made stale by earlier merges. */
      if (sym[c.pos] < 0 || (right = next[c.pos]) < 0)
        continue;
      slot = merges_lookup (self->merges, sym[c.pos], sym[right]);
      if (slot == NULL || slot->id != c.id || slot->rank != c.rank)
        continue;

      sym[c.pos] = c.id;
      sym[right] = -1;
      next[c.pos] = next[right];
      if (next[right] >= 0)
        prev[next[right]] = c.pos;
      consider (self, &w, prev[c.pos]);
      consider (self, &w, c.pos);
    }

  out = g_new (int, n + 1);
  for (int i = n > 0 ? 0 : -1; i >= 0; i = next[i])
    out[1 + count++] = sym[i];
  out[0] = count;
  return out;
}

typedef struct
{
  PlTokenizer *self;
  GArray      *ids;
  GString     *key;
} PieceState;

static void
encode_piece (const char *text,
              gsize       len,
              gpointer    user_data)
{
  PieceState *st = user_data;
  PlTokenizer *self = st->self;
  const int *cached;
  int *merged;

  g_string_truncate (st->key, 0);
  g_string_append_len (st->key, text, len);

  g_mutex_lock (&self->cache_lock);
  cached = g_hash_table_lookup (self->cache, st->key->str);
  if (cached != NULL)
    g_array_append_vals (st->ids, cached + 1, cached[0]);
  g_mutex_unlock (&self->cache_lock);
  if (cached != NULL)
    return;

  merged = NULL;
  if (self->ignore_merges)
    {
      /* Llama 3 style: a piece that is a token as a whole is taken whole. */
      g_autoptr(GString) mapped = g_string_sized_new (2 * len);
      int id;

      for (gsize i = 0; i < len; i++)
        g_string_append (mapped, self->byte_chars[(guchar) text[i]]);
      id = pl_tokenizer_token_to_id (self, mapped->str);
      if (id >= 0)
        {
          merged = g_new (int, 2);
          merged[0] = 1;
          merged[1] = id;
        }
    }
  if (merged == NULL)
    merged = merge_piece (self, (const guchar *) text, len);
  g_array_append_vals (st->ids, merged + 1, merged[0]);

  g_mutex_lock (&self->cache_lock);
  if (g_hash_table_size (self->cache) < CACHE_CAPACITY &&
      !g_hash_table_contains (self->cache, st->key->str))
    {
      g_hash_table_insert (self->cache, g_strdup (st->key->str), merged);
      merged = NULL;
    }
  g_mutex_unlock (&self->cache_lock);
  g_free (merged);
}

void
pl_bpe_encode (PlTokenizer *self,
               const char  *text,
               gsize        len,
               GArray      *ids)
{
  g_autoptr(GString) key = g_string_sized_new (64);
  g_autofree char *spaced = NULL;
  PieceState st = { self, ids, key };

  if (len == 0)
    return;
  if (self->add_prefix_space && text[0] != ' ')
    {
      spaced = g_strdup_printf (" %.*s", (int) len, text);
      text = spaced;
      len++;
    }
  if (self->use_regex)
    pl_pretokenize_gpt2 (text, len, encode_piece, &st);
  else
    encode_piece (text, len, &st);
}
