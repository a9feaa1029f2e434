/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"

G_DEFINE_BOXED_TYPE (PlAttentionStats, pl_attention_stats,
                     pl_attention_stats_ref, pl_attention_stats_unref)

PlAttentionStats *
pl_attention_stats_ref (PlAttentionStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_attention_stats_unref (PlAttentionStats *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_int_dec_and_test (&self->ref_count))
    {
      g_clear_pointer (&self->offset_profile, pl_matrix_unref);
      g_clear_pointer (&self->mean_distance, pl_matrix_unref);
      g_clear_pointer (&self->first_token, pl_matrix_unref);
      g_free (self);
    }
}

PlAttentionStats *
pl_attention_stats_new_from_file (PlActivationsFile  *file,
                                  GError            **error)
{
  g_autoptr(PlAttentionStats) stats = g_new0 (PlAttentionStats, 1);

  g_return_val_if_fail (PL_IS_ACTIVATIONS_FILE (file), NULL);

  stats->ref_count = 1;
  stats->n_layers = pl_activations_file_get_n_layers (file);
  stats->n_heads = pl_activations_file_get_n_heads (file);
  stats->n_tokens = pl_activations_file_get_n_tokens (file);
  stats->n_sequences = pl_activations_file_get_n_sequences (file);
  if (!(stats->offset_profile = pl_activations_file_read_offset_profile (file, error)) ||
      !(stats->mean_distance = pl_activations_file_read_mean_distance (file, error)) ||
      !(stats->first_token = pl_activations_file_read_first_token (file, error)))
    return NULL;
  return g_steal_pointer (&stats);
}

PlMatrix *
pl_attention_stats_get_profile (PlAttentionStats *self,
                                guint             layer,
                                guint             head)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (layer < self->n_layers && head < self->n_heads, NULL);
  return pl_matrix_slice_rows (self->offset_profile, (gsize) layer * self->n_heads + head, 1);
}

typedef struct
{
  guint   n_layers;   /* accumulated: the passes stop after them */
  guint   n_heads;
  guint   t;
  double *profile;    /* [layers × heads, 2T − 1] */
  double *distance;   /* [layers × heads] */
  double *first;      /* [layers × heads] */
} Sums;

static void
sums_clear (Sums *sums)
{
  g_clear_pointer (&sums->profile, g_free);
  g_clear_pointer (&sums->distance, g_free);
  g_clear_pointer (&sums->first, g_free);
}

static gboolean
accumulate (guint     k,
            PlMatrix *attention,
            PlMatrix *hidden,
            gpointer  user_data)
{
  Sums *s = user_data;
  gsize t = s->t, width = 2 * t - 1;

  if (k == 0)
    return TRUE;
  for (guint h = 0; h < s->n_heads; h++)
    {
      gsize row = (gsize) (k - 1) * s->n_heads + h;
      double *prof = s->profile + row * width;
      double dist = 0, first = 0;

      for (gsize i = 0; i < t; i++)
        {
          const float *a = pl_matrix_row (attention, h * t + i);
          /* key j sits at column j − i + T − 1 */
          double *p = prof + (t - 1 - i);

          for (gsize j = 0; j < t; j++)
            {
              p[j] += a[j];
              dist += a[j] * fabs ((double) j - (double) i);
            }
          first += a[0];
        }
      s->distance[row] += dist;
      s->first[row] += first;
    }
  return k < s->n_layers;
}

/* Inputs to average over: at least one, all of one length, not empty. */
static gboolean
check_lengths (GPtrArray  *sequences,
               GError    **error)
{
  guint t;

  if (sequences->len == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "attention statistics need at least one input");
      return FALSE;
    }
  t = ((GArray *) sequences->pdata[0])->len;
  for (guint s = 1; s < sequences->len; s++)
    if (((GArray *) sequences->pdata[s])->len != t)
      {
        g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                     "attention statistics average inputs of one length; input %u has %u tokens, not %u",
                     s + 1, ((GArray *) sequences->pdata[s])->len, t);
        return FALSE;
      }
  if (t == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "an empty input");
      return FALSE;
    }
  return TRUE;
}

static void
sums_init (Sums                      *sums,
           const PlTransformerConfig *c,
           guint                      n_layers,
           gsize                      t)
{
  gsize rows = (gsize) n_layers * c->n_heads;

  sums->n_layers = n_layers;
  sums->n_heads = c->n_heads;
  sums->t = t;
  sums->profile = g_new0 (double, rows * (2 * t - 1));
  sums->distance = g_new0 (double, rows);
  sums->first = g_new0 (double, rows);
}

/* The means over N_SEQUENCES inputs; frees what SUMS holds. */
static PlAttentionStats *
sums_finish (Sums                      *sums,
             const PlTransformerConfig *c,
             guint                      n_sequences)
{
  gsize t = sums->t, width = 2 * t - 1, rows = (gsize) sums->n_layers * c->n_heads;
  PlAttentionStats *stats = g_new0 (PlAttentionStats, 1);
  double norm = 1.0 / ((double) t * n_sequences);

  stats->ref_count = 1;
  stats->n_layers = sums->n_layers;
  stats->n_heads = c->n_heads;
  stats->n_tokens = t;
  stats->n_sequences = n_sequences;
  stats->offset_profile = pl_matrix_new (rows, width);
  stats->mean_distance = pl_matrix_new (sums->n_layers, c->n_heads);
  stats->first_token = pl_matrix_new (sums->n_layers, c->n_heads);
  for (gsize i = 0; i < rows * width; i++)
    stats->offset_profile->data[i] = sums->profile[i] * norm;
  for (gsize i = 0; i < rows; i++)
    {
      stats->mean_distance->data[i] = sums->distance[i] * norm;
      stats->first_token->data[i] = sums->first[i] * norm;
    }
  sums_clear (sums);
  return stats;
}

static PlAttentionStats *
compute_layers (PlTransformer  *transformer,
                guint           n_layers,
                GPtrArray      *sequences,
                GCancellable   *cancellable,
                PlProgressFunc  progress,
                gpointer        progress_data,
                GError        **error)
{
  const PlTransformerConfig *c = pl_transformer_get_config (transformer);
  Sums sums;

  if (!check_lengths (sequences, error))
    return NULL;
  sums_init (&sums, c, n_layers, ((GArray *) sequences->pdata[0])->len);

  if (!pl_transformer_run_sequences (transformer, sequences,
                                     &(PlForwardHooks) { .want_attentions = TRUE, .layer_func = accumulate,
                                                         .layer_data = &sums },
                                     cancellable, progress, progress_data, error))
    {
      sums_clear (&sums);
      return NULL;
    }
  return sums_finish (&sums, c, sequences->len);
}

PlAttentionStats *
pl_attention_stats_compute_for_ids (PlTransformer  *transformer,
                                    GPtrArray      *sequences,
                                    GCancellable   *cancellable,
                                    PlProgressFunc  progress,
                                    gpointer        progress_data,
                                    GError        **error)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);
  g_return_val_if_fail (sequences != NULL, NULL);

  return compute_layers (transformer, pl_transformer_get_config (transformer)->n_layers, sequences, cancellable,
                         progress, progress_data, error);
}

static guint
resolve_length (PlTransformer *transformer,
                guint          length)
{
  return length == 0 ? pl_transformer_get_config (transformer)->n_positions : length;
}

/* N_SEQUENCES random inputs of LENGTH tokens (0: the model's n_positions),
 * or NULL when there are none or they are too long for the model. */
static GPtrArray *
random_inputs (PlTransformer  *transformer,
               guint           n_sequences,
               guint           length,
               guint64         seed,
               GError        **error)
{
  guint max = pl_transformer_get_max_tokens (transformer);

  if (n_sequences == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the number of random inputs must be at least 1");
      return NULL;
    }
  if (length > max)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "inputs of %u tokens: the model takes at most %u", length, max);
      return NULL;
    }
  return pl_transformer_random_sequences (transformer, n_sequences, resolve_length (transformer, length), seed);
}

PlAttentionStats *
pl_attention_stats_compute (PlTransformer  *transformer,
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

  if (!(sequences = random_inputs (transformer, n_sequences, length, seed, error)))
    return NULL;
  return pl_attention_stats_compute_for_ids (transformer, sequences, cancellable,
                                             progress, progress_data, error);
}

PlAttentionStats *
pl_attention_stats_compute_first (PlTransformer  *transformer,
                                  guint           n_layers,
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
  g_return_val_if_fail (n_layers >= 1 && n_layers <= pl_transformer_get_config (transformer)->n_layers, NULL);

  if (!(sequences = random_inputs (transformer, n_sequences, length, seed, error)))
    return NULL;
  return compute_layers (transformer, n_layers, sequences, cancellable, progress, progress_data, error);
}

PlMatrix *
pl_attention_position_only (PlTransformer  *transformer,
                            guint           length,
                            GError        **error)
{
  const PlTransformerConfig *c;
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) projected = NULL;
  g_autoptr(PlMatrix) q = NULL;
  g_autoptr(PlMatrix) k = NULL;
  PlMatrix *type;
  PlMatrix *out;
  gsize t, h, nh, d;
  float scale;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);

  c = pl_transformer_get_config (transformer);
  t = resolve_length (transformer, length);
  if (!(x = pl_transformer_get_positions (transformer, t, error)))
    return NULL;
  h = c->hidden_size;
  nh = c->n_heads;
  d = h / nh;

  type = pl_transformer_get_token_type (transformer);
  if (type != NULL)
    for (gsize i = 0; i < t; i++)
      for (gsize j = 0; j < x->cols; j++)
        pl_matrix_row (x, i)[j] += type->data[j];
  pl_transformer_first_norm (transformer, x);
  /* ELECTRA-small: layer 0 sees the embeddings only after embeddings_project
   * (Linear with bias, embedding → hidden size), so the position-only term
   * takes the projected rows, proj(LN(P + type 0)), just as a real input's
   * proj(LN(token + P + type 0)) reaches the query and key projections. */
  projected = pl_transformer_project_embeddings (transformer, x);

  q = pl_matrix_new (t, h);
  k = pl_matrix_new (t, h);
  pl_transformer_first_qk (transformer, projected, q, k);

  if (!(out = pl_matrix_try_new (nh * t, t, error)))
    return NULL;
  scale = 1.0f / sqrtf ((float) d);
  for (gsize head = 0; head < nh; head++)
    {
      float *p = out->data + head * t * t;

      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, t, t, d,
                   scale, q->data + head * d, h, k->data + head * d, h, 0.0f, p, t);
      for (gsize i = 0; i < t; i++)
        pl_kernel_softmax_row (p + i * t, c->causal ? i + 1 : t, t);
    }
  return out;
}

typedef struct
{
  guint    max_layer;
  double **sums;      /* max_layer + 1 of [T × hidden] */
} Means;

static gboolean
add_hidden (guint     k,
            PlMatrix *attention,
            PlMatrix *hidden,
            gpointer  user_data)
{
  Means *m = user_data;
  gsize n = hidden->rows * hidden->cols;

  for (gsize i = 0; i < n; i++)
    m->sums[k][i] += hidden->data[i];
  return k < m->max_layer;
}

static void
means_clear (Means *means)
{
  for (guint k = 0; means->sums != NULL && k <= means->max_layer; k++)
    g_free (means->sums[k]);
  g_clear_pointer (&means->sums, g_free);
}

static gboolean
means_init (Means   *means,
            guint    max_layer,
            gsize    t,
            gsize    h,
            GError **error)
{
  means->max_layer = max_layer;
  means->sums = g_new0 (double *, max_layer + 1);
  for (guint k = 0; k <= max_layer; k++)
    if (!(means->sums[k] = g_try_new0 (double, t * h)))
      {
        g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                     "out of memory for %u layers of %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT " means",
                     max_layer + 1, t, h);
        means_clear (means);
        return FALSE;
      }
  return TRUE;
}

/* Layers 0 to max_layer's mean hidden states over N_SEQUENCES inputs;
 * frees what MEANS holds. */
static GPtrArray *
means_finish (Means *means,
              gsize  t,
              gsize  h,
              guint  n_sequences)
{
  GPtrArray *tables = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref);

  for (guint k = 0; k <= means->max_layer; k++)
    {
      PlMatrix *table = pl_matrix_new (t, h);

      for (gsize i = 0; i < t * h; i++)
        table->data[i] = (float) (means->sums[k][i] / n_sequences);
      g_ptr_array_add (tables, table);
    }
  means_clear (means);
  return tables;
}

GPtrArray *
pl_attention_positional_components_for_ids (PlTransformer  *transformer,
                                            guint           max_layer,
                                            GPtrArray      *sequences,
                                            GCancellable   *cancellable,
                                            PlProgressFunc  progress,
                                            gpointer        progress_data,
                                            GError        **error)
{
  const PlTransformerConfig *c;
  Means means;
  gsize t;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), NULL);
  g_return_val_if_fail (sequences != NULL, NULL);

  c = pl_transformer_get_config (transformer);
  if (max_layer > c->n_layers)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "layer %u does not exist: the model has layers 0 (embeddings) to %u",
                   max_layer, c->n_layers);
      return NULL;
    }
  if (!check_lengths (sequences, error))
    return NULL;
  t = ((GArray *) sequences->pdata[0])->len;
  if (!means_init (&means, max_layer, t, c->hidden_size, error))
    return NULL;

  if (!pl_transformer_run_sequences (transformer, sequences,
                                     &(PlForwardHooks) { .layer_func = add_hidden, .layer_data = &means },
                                     cancellable, progress, progress_data, error))
    {
      means_clear (&means);
      return NULL;
    }
  return means_finish (&means, t, c->hidden_size, sequences->len);
}

typedef struct
{
  Sums  sums;
  Means means;
} StatsAndMeans;

static gboolean
accumulate_all (guint     k,
                PlMatrix *attention,
                PlMatrix *hidden,
                gpointer  user_data)
{
  StatsAndMeans *all = user_data;

  accumulate (k, attention, hidden, &all->sums);
  add_hidden (k, attention, hidden, &all->means);
  return TRUE;
}

gboolean
pl_attention_stats_compute_all (PlTransformer     *transformer,
                                GPtrArray         *sequences,
                                PlQkvFunc          qkv_func,
                                gpointer           qkv_data,
                                GCancellable      *cancellable,
                                PlAttentionStats **stats,
                                GPtrArray        **components,
                                GError           **error)
{
  const PlTransformerConfig *c;
  StatsAndMeans all;
  gsize t;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), FALSE);
  g_return_val_if_fail (sequences != NULL && stats != NULL && components != NULL, FALSE);

  c = pl_transformer_get_config (transformer);
  if (!check_lengths (sequences, error))
    return FALSE;
  t = ((GArray *) sequences->pdata[0])->len;
  if (!means_init (&all.means, c->n_layers, t, c->hidden_size, error))
    return FALSE;
  sums_init (&all.sums, c, c->n_layers, t);

  if (!pl_transformer_run_sequences (transformer, sequences,
                                     &(PlForwardHooks) { TRUE, accumulate_all, &all, qkv_func, qkv_data },
                                     cancellable, NULL, NULL, error))
    {
      sums_clear (&all.sums);
      means_clear (&all.means);
      return FALSE;
    }
  *stats = sums_finish (&all.sums, c, sequences->len);
  *components = means_finish (&all.means, t, c->hidden_size, sequences->len);
  return TRUE;
}

GPtrArray *
pl_attention_positional_components (PlTransformer  *transformer,
                                    guint           max_layer,
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

  if (!(sequences = random_inputs (transformer, n_sequences, length, seed, error)))
    return NULL;
  return pl_attention_positional_components_for_ids (transformer, max_layer, sequences, cancellable,
                                                     progress, progress_data, error);
}
