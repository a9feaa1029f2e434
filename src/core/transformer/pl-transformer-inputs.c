/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-transformer.h"
#include "pl-transformer-private.h"

/* What the model reads: explicit ids wrapped in start and end ids, random
 * ids that avoid special tokens, a random segment repeated; and several
 * inputs run in turn. */

void
pl_transformer_set_special_ids (PlTransformer *self,
                                int            start_id,
                                int            end_id,
                                const int     *special_ids,
                                gsize          n_special_ids)
{
  g_return_if_fail (PL_IS_TRANSFORMER (self));

  self->has_specials = TRUE;
  self->start_id = start_id;
  self->end_id = end_id;
  g_clear_pointer (&self->specials, g_hash_table_unref);
  self->specials = g_hash_table_new (NULL, NULL);
  for (gsize i = 0; i < n_special_ids; i++)
    g_hash_table_add (self->specials, GINT_TO_POINTER (special_ids[i]));
}

static int
start_id (PlTransformer *self)
{
  if (self->has_specials)
    return self->start_id;
  if (self->config.family == PL_FAMILY_OPT)
    return self->config.bos_id;
  return self->config.causal ? -1 : self->config.bos_id;
}

static int
end_id (PlTransformer *self)
{
  if (self->has_specials)
    return self->end_id;
  return self->config.causal ? -1 : self->config.eos_id;
}

/* Causal models' tokenizers (OPT's, Llama's) put a start id before the text
 * and nothing after it; the others wrap in both ids or in neither. */
static gboolean
puts_start_id (PlTransformer *self)
{
  return start_id (self) >= 0 && (end_id (self) >= 0 || self->config.causal);
}

static gboolean
puts_end_id (PlTransformer *self)
{
  return start_id (self) >= 0 && end_id (self) >= 0;
}

gboolean
pl_transformer_is_regular_id (PlTransformer *self,
                              int            id)
{
  const PlTransformerConfig *c;
  int specials[3];
  int low = -1;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), FALSE);

  c = &self->config;
  specials[0] = c->bos_id;
  specials[1] = c->eos_id;
  specials[2] = c->pad_id;
  if (id < 0 || (guint) id >= c->vocab_size)
    return FALSE;
  if (self->has_specials)
    return !g_hash_table_contains (self->specials, GINT_TO_POINTER (id)) &&
           id != self->start_id && id != self->end_id;
  for (guint i = 0; i < G_N_ELEMENTS (specials); i++)
    {
      if (id == specials[i])
        return FALSE;
      /* Vocabularies that start with their special tokens (BERT's [PAD] …
       * [MASK], RoBERTa's <s> <pad> </s>) keep them in one block there. */
      if (specials[i] >= 0 && (guint) specials[i] < c->vocab_size / 2)
        low = MAX (low, specials[i]);
    }
  return id > low;
}

static GArray *
new_ids (gsize n)
{
  GArray *ids = g_array_sized_new (FALSE, TRUE, sizeof (int), n);

  g_array_set_size (ids, n);
  return ids;
}

GArray *
pl_transformer_random_ids (PlTransformer *self,
                           guint          length,
                           guint64        seed)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);
  return pl_transformer_repeated_ids (self, length, 0, seed);
}

GPtrArray *
pl_transformer_random_sequences (PlTransformer *self,
                                 guint          n_sequences,
                                 guint          length,
                                 guint64        seed)
{
  GPtrArray *sequences;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);

  sequences = g_ptr_array_new_full (n_sequences, (GDestroyNotify) g_array_unref);
  for (guint s = 0; s < n_sequences; s++)
    g_ptr_array_add (sequences, pl_transformer_random_ids (self, length, seed + s));
  return sequences;
}

GArray *
pl_transformer_repeated_ids (PlTransformer *self,
                             guint          length,
                             guint          period,
                             guint64        seed)
{
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr(GRand) rand = g_rand_new_with_seed_array (words, 2);
  gboolean start, end;
  guint first, last;
  GArray *ids;
  int *v;
  gboolean any = FALSE;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);

  for (guint id = 0; id < self->config.vocab_size && !any; id++)
    any = pl_transformer_is_regular_id (self, id);
  start = puts_start_id (self) && length >= 2;
  end = puts_end_id (self) && length >= 2;
  first = start ? 1 : 0;
  last = end ? length - 1 : length;   /* one past the content */
  ids = new_ids (length);
  v = (int *) ids->data;
  if (start)
    v[0] = start_id (self);
  if (end)
    v[length - 1] = end_id (self);
  for (guint i = first; i < last; i++)
    {
      if (period > 0 && i - first >= period)
        {
          v[i] = v[i - period];
          continue;
        }
      do
        v[i] = g_rand_int_range (rand, 0, self->config.vocab_size);
      while (any && !pl_transformer_is_regular_id (self, v[i]));
    }
  return ids;
}

GArray *
pl_transformer_wrap_ids (PlTransformer *self,
                         const int     *ids,
                         gsize          n_ids)
{
  GArray *out;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);

  out = g_array_sized_new (FALSE, FALSE, sizeof (int), n_ids + 2);
  if (puts_start_id (self))
    g_array_append_vals (out, &(int) { start_id (self) }, 1);
  g_array_append_vals (out, ids, n_ids);
  if (puts_end_id (self))
    g_array_append_vals (out, &(int) { end_id (self) }, 1);
  return out;
}

/* Progress over several forward passes: input DONE of TOTAL, then its layers. */
typedef struct
{
  PlProgressFunc func;
  gpointer       data;
  guint          done;
  guint          total;
} SequenceProgress;

static void
sequence_progress (double   fraction,
                   gpointer user_data)
{
  SequenceProgress *p = user_data;

  p->func ((p->done + fraction) / p->total, p->data);
}

gboolean
pl_transformer_run_sequences (PlTransformer         *self,
                              GPtrArray             *sequences,
                              const PlForwardHooks  *hooks,
                              GCancellable          *cancellable,
                              PlProgressFunc         progress,
                              gpointer               progress_data,
                              GError               **error)
{
  SequenceProgress prog = { progress, progress_data, 0, sequences->len };

  for (guint s = 0; s < sequences->len; s++)
    {
      GArray *ids = sequences->pdata[s];

      prog.done = s;
      if (!pl_transformer_run_with_qkv (self, (int *) ids->data, ids->len, hooks->want_attentions,
                                        hooks->layer_func, hooks->layer_data, hooks->qkv_func, hooks->qkv_data,
                                        cancellable, progress ? sequence_progress : NULL, &prog, error))
        return FALSE;
    }
  return TRUE;
}
