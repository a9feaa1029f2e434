/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-rope.h"
#include "pl-rope-profile.h"
#include "pl-transformer-private.h"

G_DEFINE_BOXED_TYPE (PlRopeProfile, pl_rope_profile, pl_rope_profile_ref, pl_rope_profile_unref)

PlRopeProfile *
pl_rope_profile_ref (PlRopeProfile *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_rope_profile_unref (PlRopeProfile *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_int_dec_and_test (&self->ref_count))
    {
      g_clear_pointer (&self->query_norm, pl_matrix_unref);
      g_clear_pointer (&self->key_norm, pl_matrix_unref);
      g_clear_pointer (&self->frequency, pl_matrix_unref);
      g_free (self);
    }
}

struct _PlRopeSums
{
  const PlTransformerConfig *config;
  double                    *query;   /* [layers × heads, planes] sums */
  double                    *key;     /* [layers × kv_heads, planes] */
};

PlRopeSums *
pl_rope_sums_new (PlTransformer *transformer)
{
  const PlTransformerConfig *c = pl_transformer_get_config (transformer);
  PlRopeSums *sums = g_new0 (PlRopeSums, 1);
  guint half = c->decoder.rope.dim / 2;

  sums->config = c;
  sums->query = g_new0 (double, (gsize) c->n_layers * c->n_heads * half);
  sums->key = g_new0 (double, (gsize) c->n_layers * c->decoder.n_kv_heads * half);
  return sums;
}

void
pl_rope_sums_free (PlRopeSums *sums)
{
  if (sums == NULL)
    return;
  g_free (sums->query);
  g_free (sums->key);
  g_free (sums);
}

/* Adds each head's plane norms at every position of one layer. */
void
pl_rope_sums_add_layer (guint           layer,
                        const PlMatrix *qkv,
                        gpointer        user_data)
{
  PlRopeSums *s = user_data;
  const PlRotaryDecoderSpec *d = &s->config->decoder;
  guint nh = s->config->n_heads, kv = d->n_kv_heads, hd = d->head_dim, half = d->rope.dim / 2;

  for (gsize i = 0; i < qkv->rows; i++)
    {
      const float *row = pl_matrix_row (qkv, i);

      for (guint h = 0; h < nh + kv; h++)
        {
          const float *v = row + (gsize) h * hd;
          double *sum = h < nh ? s->query + ((gsize) layer * nh + h) * half
                               : s->key + ((gsize) layer * kv + h - nh) * half;

          for (guint p = 0; p < half; p++)
            sum[p] += sqrt ((double) v[p] * v[p] + (double) v[p + half] * v[p + half]);
        }
    }
}

PlRopeProfile *
pl_rope_sums_finish (PlRopeSums *sums,
                     guint       length,
                     guint       n_sequences)
{
  const PlTransformerConfig *c = sums->config;
  const PlRotaryDecoderSpec *d = &c->decoder;
  guint half = d->rope.dim / 2;
  g_autofree float *inv_freq = g_new (float, half);
  PlRopeProfile *self = g_new0 (PlRopeProfile, 1);
  double norm = 1.0 / ((double) length * n_sequences);
  float scaling;

  self->ref_count = 1;
  self->n_layers = c->n_layers;
  self->n_heads = c->n_heads;
  self->n_kv_heads = d->n_kv_heads;
  self->n_planes = half;
  self->n_tokens = length;
  self->n_sequences = n_sequences;
  self->query_norm = pl_matrix_new ((gsize) c->n_layers * c->n_heads, half);
  self->key_norm = pl_matrix_new ((gsize) c->n_layers * d->n_kv_heads, half);
  self->frequency = pl_matrix_new (1, half);
  for (gsize i = 0; i < self->query_norm->rows * half; i++)
    self->query_norm->data[i] = (float) (sums->query[i] * norm);
  for (gsize i = 0; i < self->key_norm->rows * half; i++)
    self->key_norm->data[i] = (float) (sums->key[i] * norm);
  pl_rope_inv_freq (&d->rope, length, inv_freq, &scaling);
  for (guint p = 0; p < half; p++)
    self->frequency->data[p] = inv_freq[p];
  pl_rope_sums_free (sums);
  return self;
}

PlRopeProfile *
pl_rope_profile_compute_for_ids (PlTransformer  *transformer,
                                 GPtrArray      *sequences,
                                 GCancellable   *cancellable,
                                 PlProgressFunc  progress,
                                 gpointer        progress_data,
                                 GError        **error)
{
  const PlTransformerConfig *c;
  g_autoptr(PlRopeSums) sums = NULL;
  guint length;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);
  g_return_val_if_fail (sequences != NULL, NULL);

  c = pl_transformer_get_config (transformer);
  if (!c->rotary)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "the model has no rotary position embedding: its positions are a learned table");
      return NULL;
    }
  if (sequences->len == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "the number of inputs must be at least 1");
      return NULL;
    }
  length = ((GArray *) sequences->pdata[0])->len;
  for (guint s = 1; s < sequences->len; s++)
    if (((GArray *) sequences->pdata[s])->len != length)
      {
        g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                     "the rotary profile averages inputs of one length; input %u has %u tokens, not %u",
                     s + 1, ((GArray *) sequences->pdata[s])->len, length);
        return NULL;
      }

  sums = pl_rope_sums_new (transformer);
  if (!pl_transformer_run_sequences (transformer, sequences,
                                     &(PlForwardHooks) { .qkv_func = pl_rope_sums_add_layer, .qkv_data = sums },
                                     cancellable, progress, progress_data, error))
    return NULL;
  return pl_rope_sums_finish (g_steal_pointer (&sums), length, sequences->len);
}

PlRopeProfile *
pl_rope_profile_compute (PlTransformer  *transformer,
                         guint           n_sequences,
                         guint           length,
                         guint64         seed,
                         GCancellable   *cancellable,
                         PlProgressFunc  progress,
                         gpointer        progress_data,
                         GError        **error)
{
  g_autoptr(GPtrArray) sequences = NULL;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);

  if (length == 0)
    length = pl_transformer_get_config (transformer)->n_positions;
  if (!pl_transformer_check_length (transformer, length, error))
    return NULL;
  sequences = pl_transformer_random_sequences (transformer, n_sequences, length, seed);
  return pl_rope_profile_compute_for_ids (transformer, sequences, cancellable, progress, progress_data, error);
}

PlRopeProfile *
pl_rope_profile_new_from_file (PlActivationsFile  *file,
                               GError            **error)
{
  g_autoptr(PlRopeProfile) self = g_new0 (PlRopeProfile, 1);

  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (file), NULL);

  self->ref_count = 1;
  self->n_layers = pl_activations_file_get_n_layers (file);
  self->n_heads = pl_activations_file_get_n_heads (file);
  self->n_kv_heads = pl_activations_file_get_n_kv_heads (file);
  self->n_planes = pl_activations_file_get_n_planes (file);
  self->n_tokens = pl_activations_file_get_n_tokens (file);
  self->n_sequences = pl_activations_file_get_n_sequences (file);
  if (!(self->query_norm = pl_activations_file_read_plane_norms (file, FALSE, error)) ||
      !(self->key_norm = pl_activations_file_read_plane_norms (file, TRUE, error)) ||
      !(self->frequency = pl_activations_file_read_frequency (file, error)))
    return NULL;
  return g_steal_pointer (&self);
}

PlMatrix *
pl_rope_profile_get_layer (PlRopeProfile *self,
                           guint          layer,
                           gboolean       keys)
{
  guint heads;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (layer < self->n_layers, NULL);

  heads = keys ? self->n_kv_heads : self->n_heads;
  return pl_matrix_slice_rows (keys ? self->key_norm : self->query_norm, (gsize) layer * heads, heads);
}
