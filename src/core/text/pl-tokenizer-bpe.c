/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* Hugging Face's BPE model on one pre-token. Byte-level (GPT-2, Llama 3,
 * Qwen2): each byte is a printable character; SentencePiece-style (Llama 2,
 * Mistral, Gemma): each character is looked up, and one missing from the
 * vocabulary becomes its bytes' <0xNN> tokens (byte fallback) or the
 * unknown token. Pairs then merge by rank, lowest first, leftmost first
 * among equals (Hugging Face's order). */

/* Beyond this many distinct pieces the cache stops growing, and longer
 * pieces are not kept (as in Hugging Face's BPE cache), so memory stays
 * bounded on endless input: Llama 2's whole text is one piece. */
#define CACHE_CAPACITY 100000
#define CACHE_MAX_PIECE 256

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
pl_bpe_add_merge_ids (PlTokenizer *self,
                      int          left,
                      int          right,
                      int          merged)
{
  merges_insert (self->merges, left, right, (int) self->merges->n, merged);
}

gboolean
pl_bpe_prepare (PlTokenizer  *self,
                const char   *unk_token,
                GError      **error)
{
  for (guint b = 0; b < 256; b++)
    {
      /* Rust's format "<{:#04X}>": "<0x0A>", upper-case digits */
      char name[8];

      g_snprintf (name, sizeof name, "<0x%02X>", b);
      self->fallback_ids[b] = pl_tokenizer_token_to_id (self, name);
      self->byte_ids[b] = pl_tokenizer_token_to_id (self, self->byte_chars[b]);
      if (b < G_N_ELEMENTS (self->ascii_ids))
        {
          name[0] = (char) b;
          name[1] = '\0';
          self->ascii_ids[b] = b > 0 ? pl_tokenizer_token_to_id (self, name) : -1;
        }
    }
  if (unk_token != NULL && (self->unk_id = pl_tokenizer_token_to_id (self, unk_token)) < 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the unknown token “%s” is not in the vocabulary", self->source, unk_token);
      return FALSE;
    }
  if (self->cache == NULL)
    self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return TRUE;
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

/* The first symbols of a piece, as Hugging Face's merge_word makes them:
 * one per unit (a byte's character, or a character), a unit missing from
 * the vocabulary as the <0xNN> tokens of its bytes when all exist, else the
 * unknown token (one for a run of them with fuse_unk), else nothing. A
 * pending unknown token is written when the next unit is found, so it
 * follows any byte-fallback tokens before that unit, as in Hugging Face.
 * SYM holds at least 2 × LEN + 1 ids; returns how many it got. */
static gsize
initial_symbols (PlTokenizer  *self,
                 const guchar *bytes,
                 gsize         len,
                 int          *sym)
{
  int pending_unk = -1;
  gsize n = 0;
  gsize i = 0;

  while (i < len)
    {
      char unit[8];
      const char *spelling;
      gsize unit_len;
      int id;

      if (self->byte_level)
        {
          spelling = self->byte_chars[bytes[i]];
          id = self->byte_ids[bytes[i]];
          i++;
        }
      else if (bytes[i] < 0x80)
        {
          unit[0] = (char) bytes[i];
          unit[1] = '\0';
          spelling = unit;
          id = self->ascii_ids[bytes[i]];
          i++;
        }
      else
        {
          unit_len = g_utf8_skip[bytes[i]];
          unit_len = MIN (unit_len, len - i);
          memcpy (unit, bytes + i, unit_len);
          unit[unit_len] = '\0';
          spelling = unit;
          id = pl_tokenizer_model_token_to_id (self, unit);
          i += unit_len;
        }

      if (id >= 0)
        {
          if (pending_unk >= 0)
            sym[n++] = pending_unk;
          pending_unk = -1;
          sym[n++] = id;
          continue;
        }
      if (self->byte_fallback)
        {
          gboolean all = TRUE;

          for (const char *b = spelling; *b != '\0'; b++)
            all = all && self->fallback_ids[(guchar) *b] >= 0;
          if (all)
            {
              for (const char *b = spelling; *b != '\0'; b++)
                sym[n++] = self->fallback_ids[(guchar) *b];
              continue;
            }
        }
      if (self->unk_id >= 0)
        {
          if (pending_unk >= 0 && !self->fuse_unk)
            sym[n++] = pending_unk;
          pending_unk = self->unk_id;
        }
    }
  if (pending_unk >= 0)
    sym[n++] = pending_unk;
  return n;
}

/* Merges the symbols of one piece; returns int[] {n, ids…} (to be freed). */
static int *
merge_piece (PlTokenizer *self, const guchar *bytes, gsize len)
{
  g_autofree int *sym = g_new (int, 2 * len + 1);
  g_autofree int *prev = NULL;
  g_autofree int *next = NULL;
  g_autofree Candidate *heap = NULL;
  Word w = { sym, NULL, NULL, NULL, 0 };
  gsize n = initial_symbols (self, bytes, len, sym);
  int *out;
  int count = 0;

  prev = g_new (int, n + 1);
  next = g_new (int, n + 1);
  w.prev = prev;
  w.next = next;
  for (gsize i = 0; i < n; i++)
    {
      prev[i] = (int) i - 1;
      next[i] = (int) i + 1;
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

void
pl_bpe_encode_piece (PlTokenizer *self,
                     const char  *text,
                     gsize        len,
                     GString     *key,
                     GArray      *ids)
{
  const int *cached;
  int *merged;

  if (len == 0)
    return;
  g_string_truncate (key, 0);
  g_string_append_len (key, text, len);

  g_mutex_lock (&self->cache_lock);
  cached = g_hash_table_lookup (self->cache, key->str);
  if (cached != NULL)
    g_array_append_vals (ids, cached + 1, cached[0]);
  g_mutex_unlock (&self->cache_lock);
  if (cached != NULL)
    return;

  merged = NULL;
  if (self->ignore_merges)
    {
      /* Llama 3: a piece that is a token as a whole is taken whole. */
      g_autoptr(GString) spelt = g_string_sized_new (2 * len);
      int id;

      if (self->byte_level)
        for (gsize i = 0; i < len; i++)
          g_string_append (spelt, self->byte_chars[(guchar) text[i]]);
      else
        g_string_append_len (spelt, text, len);
      id = pl_tokenizer_model_token_to_id (self, spelt->str);
      if (id >= 0)
        {
          merged = g_new (int, 2);
          merged[0] = 1;
          merged[1] = id;
        }
    }
  if (merged == NULL)
    merged = merge_piece (self, (const guchar *) text, len);
  g_array_append_vals (ids, merged + 1, merged[0]);

  g_mutex_lock (&self->cache_lock);
  if (len < CACHE_MAX_PIECE && g_hash_table_size (self->cache) < CACHE_CAPACITY &&
      !g_hash_table_contains (self->cache, key->str))
    {
      g_hash_table_insert (self->cache, g_strdup (key->str), merged);
      merged = NULL;
    }
  g_mutex_unlock (&self->cache_lock);
  g_free (merged);
}
