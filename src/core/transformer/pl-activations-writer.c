/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-activations-writer.h"
#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-position-coordinates.h"
#include "pl-rope-profile.h"
#include "pl-text-attention.h"
#include "pl-transformer-private.h"

/* The activations file from Poslens's own forward pass: the statistics are
 * the ones the views compute (pl-attention-stats), averaged over every
 * input, then written layer by layer into the layout poslens-export writes
 * from a Hugging Face run. */

static gboolean
write_inputs (PlH5Writer     *writer,
              const char     *group,
              GPtrArray      *sequences,
              PlTokenizer    *tokenizer,
              GError        **error)
{
  guint n = sequences->len, t = ((GArray *) sequences->pdata[0])->len;
  g_autofree int *ids = g_new (int, (gsize) n * t);
  g_autofree char *ids_name = g_strconcat (group, "/input_ids", NULL);
  guint64 dims[2] = { n, t };

  for (guint s = 0; s < n; s++)
    memcpy (ids + (gsize) s * t, ((GArray *) sequences->pdata[s])->data, t * sizeof (int));
  if (!pl_h5_writer_write_int_array (writer, ids_name, 2, dims, ids, error))
    return FALSE;

  if (tokenizer != NULL)
    {
      g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
      g_autofree const char **flat = g_new (const char *, (gsize) n * t);
      g_autofree char *tokens_name = g_strconcat (group, "/tokens", NULL);

      for (guint s = 0; s < n; s++)
        {
          char **row = pl_text_token_labels (tokenizer, ids + (gsize) s * t, t);

          g_ptr_array_add (labels, row);
          for (guint i = 0; i < t; i++)
            flat[(gsize) s * t + i] = row[i];
        }
      if (!pl_h5_writer_write_strings (writer, tokens_name, 2, dims, flat, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_statistics (PlH5Writer        *writer,
                  PlAttentionStats  *stats,
                  GPtrArray         *components,
                  GError           **error)
{
  guint nl = stats->n_layers, nh = stats->n_heads, t = stats->n_tokens;
  PlMatrix *first = components->pdata[0];
  guint64 profile_dims[3] = { nl, nh, 2 * (guint64) t - 1 };
  guint64 head_dims[2] = { nl, nh };
  /* Wider than long, a layer's rows are kept as their T coordinates in a
   * basis of their span (pl-position-coordinates). */
  gboolean compact = first->cols > t;
  const char *hidden_name = compact ? "/hidden/position_coordinates" : "/hidden/position_mean";
  guint64 hidden_dims[3] = { nl + 1, t, compact ? t : first->cols };

  if (!pl_h5_writer_add (writer, "/attention/offset_profile", 3, profile_dims, error) ||
      !pl_h5_writer_add (writer, "/attention/mean_distance", 2, head_dims, error) ||
      !pl_h5_writer_add (writer, "/attention/first_token_mass", 2, head_dims, error) ||
      !pl_h5_writer_add (writer, hidden_name, 3, hidden_dims, error))
    return FALSE;

  for (guint l = 0; l < nl; l++)
    if (!pl_h5_writer_put (writer, "/attention/offset_profile", l,
                           pl_matrix_row (stats->offset_profile, (gsize) l * nh), error) ||
        !pl_h5_writer_put (writer, "/attention/mean_distance", l, pl_matrix_row (stats->mean_distance, l), error) ||
        !pl_h5_writer_put (writer, "/attention/first_token_mass", l, pl_matrix_row (stats->first_token, l), error))
      return FALSE;
  for (guint k = 0; k <= nl; k++)
    {
      PlMatrix *rows = components->pdata[k];
      g_autoptr(PlMatrix) coordinates = NULL;

      if (compact && !(coordinates = pl_position_coordinates (rows, NULL, error)))
        {
          g_prefix_error (error, "layer %u: ", k);
          return FALSE;
        }
      if (!pl_h5_writer_put (writer, hidden_name, k, compact ? coordinates->data : rows->data, error))
        return FALSE;
    }
  return TRUE;
}

/* A rotary model's per-plane norms, [layers, heads, planes] and
 * [layers, kv_heads, planes] a layer at a time, and the frequencies. */
static gboolean
write_rotary (PlH5Writer     *writer,
              PlRopeProfile  *profile,
              GError        **error)
{
  guint nl = profile->n_layers, planes = profile->n_planes;
  guint64 query_dims[3] = { nl, profile->n_heads, planes };
  guint64 key_dims[3] = { nl, profile->n_kv_heads, planes };
  guint64 frequency_dims[1] = { planes };

  if (!pl_h5_writer_add (writer, "/rotary/query_norm", 3, query_dims, error) ||
      !pl_h5_writer_add (writer, "/rotary/key_norm", 3, key_dims, error))
    return FALSE;
  for (guint l = 0; l < nl; l++)
    if (!pl_h5_writer_put (writer, "/rotary/query_norm", l,
                           pl_matrix_row (profile->query_norm, (gsize) l * profile->n_heads), error) ||
        !pl_h5_writer_put (writer, "/rotary/key_norm", l,
                           pl_matrix_row (profile->key_norm, (gsize) l * profile->n_kv_heads), error))
      return FALSE;
  return pl_h5_writer_write (writer, "/rotary/frequency", 1, frequency_dims, profile->frequency->data, error);
}

typedef struct
{
  PlH5Writer *writer;
  const char *name;
  GError     *error;
} MapWriter;

static gboolean
write_map_layer (guint     k,
                 PlMatrix *attention,
                 PlMatrix *hidden,
                 gpointer  user_data)
{
  MapWriter *w = user_data;

  if (attention == NULL)
    return TRUE;
  return pl_h5_writer_put (w->writer, w->name, k - 1, attention->data, &w->error);
}

static gboolean
write_maps (PlTransformer  *transformer,
            PlH5Writer     *writer,
            GPtrArray      *map_sequences,
            PlTokenizer    *tokenizer,
            GCancellable   *cancellable,
            GError        **error)
{
  const PlTransformerConfig *c = pl_transformer_get_config (transformer);

  for (guint m = 0; m < map_sequences->len; m++)
    {
      GArray *ids = map_sequences->pdata[m];
      g_autofree char *group = g_strdup_printf ("/maps/%u", m);
      g_autofree char *name = g_strdup_printf ("/maps/%u/attentions", m);
      g_autoptr(GPtrArray) one = g_ptr_array_new ();
      guint64 dims[4] = { c->n_layers, c->n_heads, ids->len, ids->len };
      MapWriter w = { writer, name, NULL };
      gboolean ran;

      g_ptr_array_add (one, ids);
      if (ids->len == 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "an empty input for an attention map");
          return FALSE;
        }
      if (!write_inputs (writer, group, one, tokenizer, error) ||
          !pl_h5_writer_add (writer, name, 4, dims, error))
        return FALSE;
      ran = pl_transformer_run (transformer, (int *) ids->data, ids->len, TRUE, write_map_layer, &w,
                                cancellable, NULL, NULL, error);
      if (w.error != NULL)
        {
          g_propagate_error (error, w.error);
          return FALSE;
        }
      if (!ran)
        return FALSE;
    }
  return TRUE;
}

gboolean
pl_activations_write (PlTransformer              *transformer,
                      const PlActivationsInputs  *inputs,
                      const char                 *path,
                      GCancellable               *cancellable,
                      GError                    **error)
{
  const PlTransformerConfig *c;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(GPtrArray) components = NULL;
  g_autoptr(PlRopeProfile) rotary = NULL;
  g_autoptr(PlRopeSums) sums = NULL;
  g_autoptr(PlH5Writer) writer = NULL;

  g_return_val_if_fail (PL_IS_TRANSFORMER (transformer), FALSE);
  g_return_val_if_fail (inputs != NULL && inputs->sequences != NULL && path != NULL, FALSE);

  c = pl_transformer_get_config (transformer);
  if (c->rotary)
    sums = pl_rope_sums_new (transformer);
  if (!pl_attention_stats_compute_all (transformer, inputs->sequences, sums != NULL ? pl_rope_sums_add_layer : NULL,
                                       sums, cancellable, &stats, &components, error))
    return FALSE;
  if (sums != NULL)
    rotary = pl_rope_sums_finish (g_steal_pointer (&sums), ((GArray *) inputs->sequences->pdata[0])->len,
                                  inputs->sequences->len);

  if (!(writer = pl_h5_writer_new (path, error)) ||
      !write_inputs (writer, "/inputs", inputs->sequences, inputs->tokenizer, error) ||
      !pl_h5_writer_set_string (writer, "/", "format", PL_ACTIVATIONS_FORMAT, error) ||
      !pl_h5_writer_set_int (writer, "/", "format_version", PL_ACTIVATIONS_FORMAT_VERSION, error) ||
      !pl_h5_writer_set_string (writer, "/", "model_name", inputs->model_name, error) ||
      !pl_h5_writer_set_string (writer, "/", "config",
                                inputs->config_json != NULL ? inputs->config_json : "{}", error) ||
      !pl_h5_writer_set_string (writer, "/", "writer", inputs->writer, error) ||
      !pl_h5_writer_set_int (writer, "/", "causal", c->causal, error) ||
      !pl_h5_writer_set_int (writer, "/", "hidden_size", ((PlMatrix *) components->pdata[0])->cols, error) ||
      !write_statistics (writer, stats, components, error) ||
      (rotary != NULL && !write_rotary (writer, rotary, error)))
    return FALSE;
  if (inputs->map_sequences != NULL &&
      !write_maps (transformer, writer, inputs->map_sequences, inputs->tokenizer, cancellable, error))
    return FALSE;
  return pl_h5_writer_finish (writer, error);
}
