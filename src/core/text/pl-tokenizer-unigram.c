/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-tokenizer-private.h"

/* SentencePiece's Unigram model, as Hugging Face's tokenizers runs it
 * (models/unigram/model.rs, encode_optimized): the pieces of tokenizer.json's
 * "vocab" list, id = place in the list, each with a score (a log
 * probability). A pre-token is cut where the sum of its pieces' scores is
 * highest (Viterbi over byte positions, at character boundaries): from each
 * start, in order, every piece that the text there begins with, shortest
 * first; a later candidate replaces an earlier one at the same end only when
 * it scores more. A character that no one-character piece covers is the
 * unknown piece, at the lowest score minus 10. Consecutive unknowns become
 * one token, which with byte_fallback is its bytes' <0xNN> pieces (when the
 * vocabulary has all of them), else unk_id. */

#define UNK_PENALTY 10.0

/* The pieces in a trie of bytes: children in lists, the root's in a table. */
typedef struct
{
  guint32 first_child;   /* 0: none (node 0 is the root, never a child) */
  guint32 next_sibling;
  gint32  id;            /* the piece ending here (its last listing), or -1 */
  guint8  byte;
} Node;

struct _PlUnigram
{
  GArray   *nodes;       /* Node */
  guint32   root[256];
  double   *scores;      /* by id */
  guint     n_pieces;
  double    min_score;
  int       unk_id;      /* -1: none */
};

static guint32
child (const PlUnigram *self,
       guint32          node,
       guint8           byte)
{
  const Node *nodes = (const Node *) self->nodes->data;

  if (node == 0)
    return self->root[byte];
  for (guint32 c = nodes[node].first_child; c != 0; c = nodes[c].next_sibling)
    if (nodes[c].byte == byte)
      return c;
  return 0;
}

PlUnigram *
pl_unigram_new (guint n_pieces)
{
  PlUnigram *self = g_new0 (PlUnigram, 1);
  Node root = { 0, 0, -1, 0 };

  self->nodes = g_array_sized_new (FALSE, FALSE, sizeof (Node), MIN (n_pieces, 1u << 20) * 2 + 1);
  g_array_append_val (self->nodes, root);
  self->scores = g_new (double, MAX (n_pieces, 1));
  self->n_pieces = n_pieces;
  self->min_score = INFINITY;
  self->unk_id = -1;
  return self;
}

void
pl_unigram_free (PlUnigram *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->nodes);
  g_free (self->scores);
  g_free (self);
}

void
pl_unigram_add (PlUnigram  *self,
                guint       id,
                const char *piece,
                double      score)
{
  guint32 node = 0;

  g_return_if_fail (id < self->n_pieces);
  self->scores[id] = score;
  self->min_score = MIN (self->min_score, score);
  for (const char *p = piece; *p != '\0'; p++)
    {
      guint8 byte = (guint8) *p;
      guint32 next = child (self, node, byte);

      if (next == 0)
        {
          Node fresh = { 0, 0, -1, byte };

          next = self->nodes->len;
          if (node == 0)
            self->root[byte] = next;
          else
            {
              fresh.next_sibling = g_array_index (self->nodes, Node, node).first_child;
              g_array_index (self->nodes, Node, node).first_child = next;
            }
          g_array_append_val (self->nodes, fresh);
        }
      node = next;
    }
  /* A piece listed twice is found by its last id, as Hugging Face's map of
   * pieces to ids keeps it. */
  if (node != 0)
    g_array_index (self->nodes, Node, node).id = (gint32) id;
}

void
pl_unigram_set_unk (PlUnigram *self,
                    int        unk_id)
{
  self->unk_id = unk_id;
}

typedef struct
{
  double score;
  gsize  start;
  int    id;
  gboolean set;
} Best;

/* The id of the piece TEXT is exactly, or -1. */
static int
piece_id (const PlUnigram *self,
          const char      *text,
          gsize            len)
{
  guint32 node = 0;

  for (gsize i = 0; i < len; i++)
    if ((node = child (self, node, (guint8) text[i])) == 0)
      return -1;
  return node == 0 ? -1 : g_array_index (self->nodes, Node, node).id;
}

/* A run of unknown characters as Hugging Face's tokenize() looks its text
 * up: a piece when it is one (the unknown piece's own text), else its
 * bytes' <0xNN> pieces, else the unknown token. */
static void
emit_unknown (PlTokenizer *self,
              const char  *text,
              gsize        len,
              GArray      *out)
{
  const PlUnigram *model = self->unigram;
  int id = piece_id (model, text, len);

  if (id >= 0)
    {
      g_array_append_val (out, id);
      return;
    }
  if (self->byte_fallback)
    {
      gboolean all = TRUE;

      for (gsize i = 0; i < len && all; i++)
        all = self->fallback_ids[(guchar) text[i]] >= 0;
      if (all)
        {
          for (gsize i = 0; i < len; i++)
            g_array_append_val (out, self->fallback_ids[(guchar) text[i]]);
          return;
        }
    }
  g_array_append_val (out, model->unk_id);
}

void
pl_unigram_encode_piece (PlTokenizer *self,
                         const char  *text,
                         gsize        len,
                         GArray      *ids)
{
  const PlUnigram *model = self->unigram;
  const Node *nodes = (const Node *) model->nodes->data;
  double unk_score = model->min_score - UNK_PENALTY;
  g_autofree Best *best = NULL;
  g_autoptr(GArray) path = NULL;
  gsize start, end;

  if (len == 0)
    return;
  best = g_new0 (Best, len + 1);
  for (start = 0; start < len; start = g_utf8_next_char (text + start) - text)
    {
      double here = best[start].score;
      gsize char_len = g_utf8_next_char (text + start) - (text + start);
      gboolean single = FALSE;
      guint32 node = 0;

      if (start > 0 && !best[start].set)
        continue;
      for (gsize i = start; i < len && (node = child (model, node, (guint8) text[i])) != 0; i++)
        {
          gsize stop = i + 1;
          double candidate;

          if (nodes[node].id < 0)
            continue;
          candidate = model->scores[nodes[node].id] + here;
          if (!best[stop].set || candidate > best[stop].score)
            best[stop] = (Best) { candidate, start, nodes[node].id, TRUE };
          if (stop - start == char_len)
            single = TRUE;
        }
      if (!single)
        {
          double candidate = unk_score + here;
          gsize stop = MIN (start + char_len, len);

          if (!best[stop].set || candidate > best[stop].score)
            best[stop] = (Best) { candidate, start, model->unk_id, TRUE };
        }
    }

  /* Back from the end; runs of unknowns are fused. */
  path = g_array_new (FALSE, FALSE, sizeof (gsize));
  for (end = len; end > 0; end = best[end].start)
    g_array_append_val (path, end);
  end = 0;
  for (guint k = path->len; k-- > 0;)
    {
      gsize stop = g_array_index (path, gsize, k);
      int id = best[stop].id;

      if (model->unk_id >= 0 && id == model->unk_id)
        {
          gsize run_end = stop;

          /* the unknowns after this one */
          while (k > 0 && best[g_array_index (path, gsize, k - 1)].id == model->unk_id)
            run_end = g_array_index (path, gsize, --k);
          emit_unknown (self, text + end, run_end - end, ids);
          end = run_end;
          continue;
        }
      g_array_append_val (ids, id);
      end = stop;
    }
}

/* tokenizer.json's Unigram model: "vocab" [[piece, score], …], "unk_id",
 * "byte_fallback"; in front of it the normalizers and pre-tokenizers
 * SentencePiece conversions write (pl-tokenizer-json-pipeline.c). A score
 * is a log probability: one not finite, or past ±10⁶, is refused. */
#define MAX_SCORE 1e6

gboolean
pl_tokenizer_read_unigram (PlTokenizer  *self,
                           JsonObject   *root,
                           JsonObject   *model,
                           const char   *path,
                           GError      **error)
{
  JsonNode *vocab = json_object_get_member (model, "vocab");
  JsonNode *unk = json_object_get_member (model, "unk_id");
  JsonArray *list;
  guint n;
  gint64 unk_id;

  if (!pl_tokenizer_read_bpe_pipeline (self, root, path, error))
    return FALSE;
  if (self->byte_level)
    return pl_hf_json_unsupported (error, path, "pre-tokenizer before a Unigram model", "ByteLevel");
  self->kind = PL_TOKENIZER_UNIGRAM;
  self->byte_fallback = pl_hf_json_bool (model, "byte_fallback", FALSE);

  if (vocab == NULL || !JSON_NODE_HOLDS_ARRAY (vocab) || (n = json_array_get_length (json_node_get_array (vocab))) == 0)
    return pl_hf_json_corrupt (error, path, "the Unigram model has no “vocab” list of [piece, score] pairs");
  list = json_node_get_array (vocab);
  if (unk == NULL || !JSON_NODE_HOLDS_VALUE (unk) || json_node_get_value_type (unk) != G_TYPE_INT64)
    return pl_hf_json_unsupported (error, path, "Unigram model", "without an unk_id (for characters no piece covers)");
  unk_id = json_node_get_int (unk);
  if (unk_id < 0 || unk_id >= n)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the Unigram model's unk_id %" G_GINT64_FORMAT
                   " is not one of its %u pieces", path, unk_id, n);
      return FALSE;
    }

  self->unigram = pl_unigram_new (n);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *item = json_array_get_element (list, i);
      JsonArray *pair = JSON_NODE_HOLDS_ARRAY (item) ? json_node_get_array (item) : NULL;
      JsonNode *piece = pair != NULL && json_array_get_length (pair) == 2 ? json_array_get_element (pair, 0) : NULL;
      JsonNode *score = pair != NULL && json_array_get_length (pair) == 2 ? json_array_get_element (pair, 1) : NULL;
      double value;

      if (piece == NULL || !JSON_NODE_HOLDS_VALUE (piece) || json_node_get_value_type (piece) != G_TYPE_STRING ||
          score == NULL || !JSON_NODE_HOLDS_VALUE (score) ||
          (json_node_get_value_type (score) != G_TYPE_DOUBLE && json_node_get_value_type (score) != G_TYPE_INT64))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the Unigram vocabulary's entry %u is not a [piece, score] pair", path, i);
          return FALSE;
        }
      value = json_node_get_double (score);
      if (!isfinite (value) || fabs (value) > MAX_SCORE)
        {
          g_autofree char *shown = g_utf8_make_valid (json_node_get_string (piece), -1);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the piece “%s” (id %u) has the score %g; a Unigram score is a log probability, "
                       "finite and at most %g in size", path, shown, i, value, MAX_SCORE);
          return FALSE;
        }
      if (!pl_tokenizer_set_token (self, i, json_node_get_string (piece), error))
        return FALSE;
      pl_unigram_add (self->unigram, i, json_node_get_string (piece), value);
    }
  pl_unigram_set_unk (self->unigram, (int) unk_id);
  self->unk_id = (int) unk_id;
  for (guint b = 0; b < 256; b++)
    {
      /* Rust's format "<0x{:02X}>" */
      char name[8];

      g_snprintf (name, sizeof name, "<0x%02X>", b);
      self->fallback_ids[b] = pl_tokenizer_token_to_id (self, name);
    }
  return TRUE;
}
