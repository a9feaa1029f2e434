/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-attention-heads.h"
#include "pl-error.h"
#include "pl-linear.h"
#include "pl-transformer.h"
#include "pl-transformer-private.h"

G_DEFINE_FINAL_TYPE (PlTransformer, pl_transformer, G_TYPE_OBJECT)

static const char *weight_names[] = {
  [PL_WEIGHT_TOKEN_EMBEDDING] = "token embedding",
  [PL_WEIGHT_POSITION_EMBEDDING] = "position embedding",
  [PL_WEIGHT_TOKEN_TYPE_EMBEDDING] = "token type embedding",
  [PL_WEIGHT_EMBED_LN_WEIGHT] = "embedding LayerNorm weight",
  [PL_WEIGHT_EMBED_LN_BIAS] = "embedding LayerNorm bias",
  [PL_WEIGHT_Q_WEIGHT] = "query weight",
  [PL_WEIGHT_Q_BIAS] = "query bias",
  [PL_WEIGHT_K_WEIGHT] = "key weight",
  [PL_WEIGHT_K_BIAS] = "key bias",
  [PL_WEIGHT_V_WEIGHT] = "value weight",
  [PL_WEIGHT_V_BIAS] = "value bias",
  [PL_WEIGHT_ATTN_OUT_WEIGHT] = "attention output weight",
  [PL_WEIGHT_ATTN_OUT_BIAS] = "attention output bias",
  [PL_WEIGHT_LN1_WEIGHT] = "first LayerNorm weight",
  [PL_WEIGHT_LN1_BIAS] = "first LayerNorm bias",
  [PL_WEIGHT_FFN_IN_WEIGHT] = "feed-forward input weight",
  [PL_WEIGHT_FFN_IN_BIAS] = "feed-forward input bias",
  [PL_WEIGHT_FFN_OUT_WEIGHT] = "feed-forward output weight",
  [PL_WEIGHT_FFN_OUT_BIAS] = "feed-forward output bias",
  [PL_WEIGHT_LN2_WEIGHT] = "second LayerNorm weight",
  [PL_WEIGHT_LN2_BIAS] = "second LayerNorm bias",
  [PL_WEIGHT_FINAL_LN_WEIGHT] = "final LayerNorm weight",
  [PL_WEIGHT_FINAL_LN_BIAS] = "final LayerNorm bias",
  [PL_WEIGHT_EMBED_PROJECT_WEIGHT] = "embedding projection weight",
  [PL_WEIGHT_EMBED_PROJECT_BIAS] = "embedding projection bias",
};

void
pl_transformer_layer_clear (PlTransformerLayer *layer)
{
  g_clear_pointer (&layer->qkv_w, pl_matrix_unref);
  g_clear_pointer (&layer->qkv_b, pl_matrix_unref);
  g_clear_pointer (&layer->out_w, pl_matrix_unref);
  g_clear_pointer (&layer->out_b, pl_matrix_unref);
  g_clear_pointer (&layer->ln1_w, pl_matrix_unref);
  g_clear_pointer (&layer->ln1_b, pl_matrix_unref);
  g_clear_pointer (&layer->ffn_in_w, pl_matrix_unref);
  g_clear_pointer (&layer->ffn_in_b, pl_matrix_unref);
  g_clear_pointer (&layer->ffn_out_w, pl_matrix_unref);
  g_clear_pointer (&layer->ffn_out_b, pl_matrix_unref);
  g_clear_pointer (&layer->ln2_w, pl_matrix_unref);
  g_clear_pointer (&layer->ln2_b, pl_matrix_unref);
  g_clear_pointer (&layer->qkv_tiles, pl_linear_tiles_free);
  g_clear_pointer (&layer->out_tiles, pl_linear_tiles_free);
  g_clear_pointer (&layer->ffn_in_tiles, pl_linear_tiles_free);
  g_clear_pointer (&layer->ffn_out_tiles, pl_linear_tiles_free);
}

static void
pl_transformer_finalize (GObject *object)
{
  PlTransformer *self = PL_TRANSFORMER (object);

  g_clear_pointer (&self->token_embedding, pl_matrix_unref);
  g_clear_pointer (&self->position_embedding, pl_matrix_unref);
  g_clear_pointer (&self->token_type, pl_matrix_unref);
  g_clear_pointer (&self->embed_ln_w, pl_matrix_unref);
  g_clear_pointer (&self->embed_ln_b, pl_matrix_unref);
  g_clear_pointer (&self->embed_project_w, pl_matrix_unref);
  g_clear_pointer (&self->embed_project_b, pl_matrix_unref);
  g_clear_pointer (&self->final_ln_w, pl_matrix_unref);
  g_clear_pointer (&self->final_ln_b, pl_matrix_unref);
  for (guint l = 0; self->stored_layers != NULL && l < self->n_stored_layers; l++)
    pl_transformer_layer_clear (&self->stored_layers[l]);
  g_clear_pointer (&self->stored_layers, g_free);
  g_clear_pointer (&self->layers, g_free);
  g_clear_pointer (&self->specials, g_hash_table_unref);
  pl_transformer_clear_decoder (self);
  g_clear_pointer (&self->relpos, pl_relpos_net_free);

  G_OBJECT_CLASS (pl_transformer_parent_class)->finalize (object);
}

static void
pl_transformer_class_init (PlTransformerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_transformer_finalize;
}

static void
pl_transformer_init (PlTransformer *self)
{
}

/* Reads one weight and checks its shape. Vectors may come as 1 × n or n × 1.
 * OPTIONAL weights that are missing come back NULL without an error. */
static PlMatrix *
load (PlWeightFunc   func,
      gpointer       data,
      PlWeight       weight,
      int            layer,
      gsize          rows,
      gsize          cols,
      gboolean       optional,
      GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(PlMatrix) m = func (weight, layer, data, &local_error);
  g_autofree char *where = layer >= 0 ? g_strdup_printf (" of layer %d", layer) : g_strdup ("");

  if (m == NULL)
    {
      if (optional && g_error_matches (local_error, PL_ERROR, PL_ERROR_NOT_FOUND))
        return NULL;
      if (local_error == NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "the model has no %s%s",
                     weight_names[weight], where);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (rows == 1 && m->rows * m->cols == cols && m->rows != 1)
    return pl_matrix_new_from (1, cols, m->data);
  /* rows == 0: any number of rows (tables) */
  if ((rows != 0 && m->rows != rows) || (cols != 0 && m->cols != cols))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "the %s%s is %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT
                   " but the configuration asks for %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT,
                   weight_names[weight], where, m->rows, m->cols, rows ? rows : m->rows, cols);
      return NULL;
    }
  if (!pl_matrix_all_finite (m))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "the %s%s holds NaN or infinite values",
                   weight_names[weight], where);
      return NULL;
    }
  return g_steal_pointer (&m);
}

/* A missing optional vector: LayerNorm weights are 1, biases 0. */
static PlMatrix *
constant_row (gsize cols, float value)
{
  PlMatrix *m = pl_matrix_new (1, cols);

  for (gsize j = 0; j < cols; j++)
    m->data[j] = value;
  return m;
}

/* A weight of ROWS × COLS. A BIAS may be missing, and is then zero; a bias
 * that is there but cannot be read is an error. */
static PlMatrix *
load_or_zero (PlWeightFunc   func,
              gpointer       data,
              PlWeight       weight,
              int            layer,
              gsize          rows,
              gsize          cols,
              gboolean       bias,
              GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  PlMatrix *m = load (func, data, weight, layer, rows, cols, bias, &local_error);

  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  return m != NULL ? m : constant_row (cols, 0);
}

/* *W's AMX tiles into TILES where the processor has them (NULL otherwise),
 * and then *W dropped if DROP: the forward pass multiplies by the tiles
 * alone, and nothing else reads the layers' float32 weights. */
static gboolean
make_tiles (PlMatrix       **w,
            PlLinearTiles  **tiles,
            gboolean         drop,
            GCancellable    *cancellable,
            GError         **error)
{
  GError *local_error = NULL;

  *tiles = pl_linear_tiles_new (*w, cancellable, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (*tiles != NULL && drop)
    g_clear_pointer (w, pl_matrix_unref);
  return TRUE;
}

static gboolean
load_layer (PlTransformer  *self,
            PlWeightFunc    func,
            gpointer        data,
            guint           l,
            GCancellable   *cancellable,
            GError        **error)
{
  const PlTransformerConfig *c = &self->config;
  PlTransformerLayer *w = &self->stored_layers[l];
  gsize h = c->hidden_size, f = c->ffn_size;
  PlMatrix *part[6] = { NULL, };
  static const PlWeight qkv[6] = {
    PL_WEIGHT_Q_WEIGHT, PL_WEIGHT_K_WEIGHT, PL_WEIGHT_V_WEIGHT,
    PL_WEIGHT_Q_BIAS, PL_WEIGHT_K_BIAS, PL_WEIGHT_V_BIAS,
  };
  gboolean ok;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  ok = TRUE;
  for (guint i = 0; i < 6 && ok; i++)
    ok = (part[i] = load_or_zero (func, data, qkv[i], l, i < 3 ? h : 1, h, i >= 3, error)) != NULL;
  if (ok)
    {
      /* One GEMM for Q, K and V: their columns side by side. */
      w->qkv_w = pl_matrix_new (h, 3 * h);
      w->qkv_b = pl_matrix_new (1, 3 * h);
      for (guint p = 0; p < 3; p++)
        {
          for (gsize r = 0; r < h; r++)
            memcpy (pl_matrix_row (w->qkv_w, r) + p * h, pl_matrix_row (part[p], r), h * sizeof (float));
          memcpy (w->qkv_b->data + p * h, part[3 + p]->data, h * sizeof (float));
        }
    }
  for (guint i = 0; i < 6; i++)
    g_clear_pointer (&part[i], pl_matrix_unref);
  if (!ok)
    return FALSE;

  {
    const struct { PlMatrix **field; PlWeight weight; gsize rows, cols; gboolean bias; } rest[] = {
      { &w->out_w, PL_WEIGHT_ATTN_OUT_WEIGHT, h, h, FALSE },
      { &w->out_b, PL_WEIGHT_ATTN_OUT_BIAS, 1, h, TRUE },
      { &w->ln1_w, PL_WEIGHT_LN1_WEIGHT, 1, h, FALSE },
      { &w->ln1_b, PL_WEIGHT_LN1_BIAS, 1, h, TRUE },
      { &w->ffn_in_w, PL_WEIGHT_FFN_IN_WEIGHT, h, f, FALSE },
      { &w->ffn_in_b, PL_WEIGHT_FFN_IN_BIAS, 1, f, TRUE },
      { &w->ffn_out_w, PL_WEIGHT_FFN_OUT_WEIGHT, f, h, FALSE },
      { &w->ffn_out_b, PL_WEIGHT_FFN_OUT_BIAS, 1, h, TRUE },
      { &w->ln2_w, PL_WEIGHT_LN2_WEIGHT, 1, h, FALSE },
      { &w->ln2_b, PL_WEIGHT_LN2_BIAS, 1, h, TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS (rest); i++)
      if ((*rest[i].field = load_or_zero (func, data, rest[i].weight, l, rest[i].rows, rest[i].cols,
                                          rest[i].bias, error)) == NULL)
        return FALSE;
  }
  /* Layer 0's Q and K stay float32 for pl_transformer_first_qk. */
  return make_tiles (&w->qkv_w, &w->qkv_tiles, l > 0, cancellable, error) &&
         make_tiles (&w->out_w, &w->out_tiles, TRUE, cancellable, error) &&
         make_tiles (&w->ffn_in_w, &w->ffn_in_tiles, TRUE, cancellable, error) &&
         make_tiles (&w->ffn_out_w, &w->ffn_out_tiles, TRUE, cancellable, error);
}

/* ELECTRA-small: the embeddings are narrower than the layers, and a
 * Linear maps them up after their LayerNorm; ALBERT has that Linear
 * (embedding_hidden_mapping_in) whatever the two sizes. Pre-LN families
 * (GPT-2, OPT) have no such weight: their ln_1 works at the hidden size. */
static gboolean
load_projection (PlTransformer  *self,
                 PlWeightFunc    func,
                 gpointer        data,
                 GError        **error)
{
  const PlTransformerConfig *c = &self->config;
  gsize e = c->embedding_size, h = c->hidden_size;
  g_autoptr(GError) local_error = NULL;

  if (c->pre_ln)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "the embeddings are %" G_GSIZE_FORMAT " wide but the layers compute in %" G_GSIZE_FORMAT
                   "; only post-LN models (ELECTRA) can project their embeddings", e, h);
      return FALSE;
    }
  self->embed_project_w = load (func, data, PL_WEIGHT_EMBED_PROJECT_WEIGHT, -1, e, h, TRUE, &local_error);
  if (self->embed_project_w == NULL)
    {
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else if (e == h)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "the model has no embedding projection between its embeddings and its layers");
      else
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "the embeddings are %" G_GSIZE_FORMAT " wide but the layers compute in %" G_GSIZE_FORMAT
                     ", and the model has no embedding projection between them", e, h);
      return FALSE;
    }
  self->embed_project_b = load (func, data, PL_WEIGHT_EMBED_PROJECT_BIAS, -1, 1, h, TRUE, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (self->embed_project_b == NULL)
    self->embed_project_b = constant_row (h, 0);
  return TRUE;
}

PlTransformer *
pl_transformer_new_full (const PlTransformerConfig  *config,
                         PlWeightFunc                func,
                         gpointer                    data,
                         GCancellable               *cancellable,
                         GError                    **error)
{
  g_autoptr(PlTransformer) self = NULL;
  PlTransformerConfig *c;
  gsize h, e;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  if (!pl_family_has_forward (config->family))
    {
      g_autofree char *runnable = pl_family_list_forward ();

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "Poslens runs %s models; this model has no forward pass here", runnable);
      return NULL;
    }
  if (config->hidden_size == 0 || config->n_heads == 0 || config->n_layers == 0 ||
      config->ffn_size == 0 || config->vocab_size == 0 || config->n_positions == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the model configuration lacks a size (hidden %u, heads %u, layers %u, "
                   "feed-forward %u, vocabulary %u, positions %u)",
                   config->hidden_size, config->n_heads, config->n_layers,
                   config->ffn_size, config->vocab_size, config->n_positions);
      return NULL;
    }
  if (config->hidden_size % config->n_heads != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the hidden size %u is not a multiple of the %u attention heads",
                   config->hidden_size, config->n_heads);
      return NULL;
    }
  if (config->activation == PL_ACTIVATION_NONE || !(config->layer_norm_eps >= 0))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the model configuration names no activation or a bad LayerNorm epsilon");
      return NULL;
    }

  self = g_object_new (PL_TYPE_TRANSFORMER, NULL);
  self->config = *config;
  c = &self->config;
  h = c->hidden_size;

  if (!(self->token_embedding = load (func, data, PL_WEIGHT_TOKEN_EMBEDDING, -1, 0, 0, FALSE, error)))
    return NULL;
  if (c->embedding_size == 0)
    c->embedding_size = self->token_embedding->cols;
  e = c->embedding_size;
  if (self->token_embedding->cols != e || self->token_embedding->rows != c->vocab_size)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "the token embedding is %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT
                   " but the configuration asks for %u×%" G_GSIZE_FORMAT,
                   self->token_embedding->rows, self->token_embedding->cols, c->vocab_size, e);
      return NULL;
    }
  if ((e != h || c->shared_layers) && !load_projection (self, func, data, error))
    return NULL;
  if (!(self->position_embedding = load (func, data, PL_WEIGHT_POSITION_EMBEDDING, -1, 0, e, FALSE, error)))
    return NULL;
  if (self->position_embedding->rows < (gsize) c->first_position + c->n_positions)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "the position table has %" G_GSIZE_FORMAT " rows but the model uses rows %u to %u",
                   self->position_embedding->rows, c->first_position,
                   c->first_position + c->n_positions - 1);
      return NULL;
    }

  if (c->family != PL_FAMILY_GPT2)
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(PlMatrix) types = load (func, data, PL_WEIGHT_TOKEN_TYPE_EMBEDDING, -1, 0, e, TRUE, &local_error);

      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      /* Every input is a single segment: token type 0. */
      if (types != NULL && types->rows > 0)
        self->token_type = pl_matrix_slice_rows (types, 0, 1);
    }

  if (!c->pre_ln)
    {
      if (!(self->embed_ln_w = load (func, data, PL_WEIGHT_EMBED_LN_WEIGHT, -1, 1, e, FALSE, error)) ||
          !(self->embed_ln_b = load (func, data, PL_WEIGHT_EMBED_LN_BIAS, -1, 1, e, FALSE, error)))
        return NULL;
    }
  else
    {
      if (!(self->final_ln_w = load (func, data, PL_WEIGHT_FINAL_LN_WEIGHT, -1, 1, h, FALSE, error)) ||
          !(self->final_ln_b = load (func, data, PL_WEIGHT_FINAL_LN_BIAS, -1, 1, h, FALSE, error)))
        return NULL;
    }

  /* ALBERT applies its one shared layer num_hidden_layers times: it is
   * read once and every layer points at it. */
  self->n_stored_layers = c->shared_layers ? 1 : c->n_layers;
  self->stored_layers = g_new0 (PlTransformerLayer, self->n_stored_layers);
  self->layers = g_new0 (PlTransformerLayer *, c->n_layers);
  for (guint l = 0; l < self->n_stored_layers; l++)
    if (!load_layer (self, func, data, l, cancellable, error))
      return NULL;
  for (guint l = 0; l < c->n_layers; l++)
    self->layers[l] = &self->stored_layers[c->shared_layers ? 0 : l];

  return g_steal_pointer (&self);
}

const PlTransformerConfig *
pl_transformer_get_config (PlTransformer *self)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);
  return &self->config;
}

guint
pl_transformer_get_max_tokens (PlTransformer *self)
{
  g_return_val_if_fail (PL_IS_TRANSFORMER (self), 0);
  /* Rotary models take inputs past max_position_embeddings, as HF does (and
   * dynamic scaling exists for them); memory bounds them. */
  if (self->max_tokens > 0)
    return self->max_tokens;
  return self->config.rotary ? MAX (self->config.n_positions, 1u << 20) : self->config.n_positions;
}

static gboolean
set_cancelled (GCancellable  *cancellable,
               GError       **error)
{
  return g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* Multi-head attention of one layer: QKV [T, 3h] (queries, keys, values
 * side by side) → CTX [T, h]; PROBS gets every head's probabilities
 * ([heads × T, T]) when not NULL. */
static gboolean
attention (PlTransformer  *self,
           const PlMatrix *qkv,
           PlMatrix       *probs,
           PlMatrix       *ctx,
           GCancellable   *cancellable,
           GError        **error)
{
  const PlTransformerConfig *c = &self->config;
  guint d = c->hidden_size / c->n_heads;
  PlAttentionHeads job = {
    .qkv = qkv->data,
    .stride = qkv->cols,
    .n_tokens = qkv->rows,
    .n_heads = c->n_heads,
    .n_kv_heads = c->n_heads,
    .head_dim = d,
    .scale = 1.0f / sqrtf ((float) d),
    .probs = probs,
    .ctx = ctx->data,
    .bidirectional = !c->causal,
  };

  return pl_attention_heads (&job, cancellable, error);
}

gboolean
pl_transformer_run (PlTransformer   *self,
                    const int       *ids,
                    gsize            n_ids,
                    gboolean         want_attentions,
                    PlLayerFunc      layer_func,
                    gpointer         layer_data,
                    GCancellable    *cancellable,
                    PlProgressFunc   progress,
                    gpointer         progress_data,
                    GError         **error)
{
  return pl_transformer_run_with_qkv (self, ids, n_ids, want_attentions, layer_func, layer_data, NULL, NULL,
                                      cancellable, progress, progress_data, error);
}

gboolean
pl_transformer_run_with_qkv (PlTransformer   *self,
                             const int       *ids,
                             gsize            n_ids,
                             gboolean         want_attentions,
                             PlLayerFunc      layer_func,
                             gpointer         layer_data,
                             PlQkvFunc        qkv_func,
                             gpointer         qkv_data,
                             GCancellable    *cancellable,
                             PlProgressFunc   progress,
                             gpointer         progress_data,
                             GError         **error)
{
  const PlTransformerConfig *c;
  gsize t, h, f, nh;
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) normed = NULL;
  g_autoptr(PlMatrix) qkv = NULL;
  g_autoptr(PlMatrix) ctx = NULL;
  g_autoptr(PlMatrix) mid = NULL;
  g_autoptr(PlMatrix) inner = NULL;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), FALSE);
  g_return_val_if_fail (ids != NULL || n_ids == 0, FALSE);
  g_return_val_if_fail (qkv_func == NULL || self->config.rotary, FALSE);

  c = &self->config;
  t = n_ids;
  h = c->hidden_size;
  f = c->ffn_size;
  nh = c->n_heads;

  if (!pl_transformer_check_length (self, t, error))
    return FALSE;
  for (gsize i = 0; i < t; i++)
    if (ids[i] < 0 || (guint) ids[i] >= c->vocab_size)
      {
        g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                     "token id %d at index %" G_GSIZE_FORMAT " is outside the vocabulary of %u",
                     ids[i], i, c->vocab_size);
        return FALSE;
      }
  if (set_cancelled (cancellable, error))
    return FALSE;
  if (self->relpos != NULL)
    return self->relpos->run (self, self->relpos, ids, t, want_attentions, layer_func, layer_data, cancellable,
                              progress, progress_data, error);
  if (c->rotary)
    return pl_transformer_run_decoder (self, ids, t, want_attentions, layer_func, layer_data, qkv_func, qkv_data,
                                       cancellable, progress, progress_data, error);

  if (!(x = pl_transformer_embed (self, ids, t, error)) ||
      !(normed = pl_matrix_try_new (t, h, error)) ||
      !(qkv = pl_matrix_try_new (t, 3 * h, error)) ||
      !(ctx = pl_matrix_try_new (t, h, error)) ||
      !(mid = pl_matrix_try_new (t, h, error)) ||
      !(inner = pl_matrix_try_new (t, f, error)))
    return FALSE;

  if (layer_func != NULL && !layer_func (0, NULL, x, layer_data))
    return TRUE;

  for (guint l = 0; l < c->n_layers; l++)
    {
      const PlTransformerLayer *w = self->layers[l];
      g_autoptr(PlMatrix) probs = NULL;
      g_autoptr(PlMatrix) next = NULL;

      if (set_cancelled (cancellable, error))
        return FALSE;
      if (want_attentions && !(probs = pl_matrix_try_new (nh * t, t, error)))
        return FALSE;
      if (!(next = pl_matrix_try_new (t, h, error)))
        return FALSE;

      if (c->pre_ln)
        {
          pl_layer_norm_rows (x, normed, w->ln1_w->data, w->ln1_b->data, c->layer_norm_eps);
          if (!pl_linear (normed, w->qkv_w, w->qkv_tiles, w->qkv_b, NULL, PL_ACTIVATION_NONE, qkv, error))
            return FALSE;
          if (!attention (self, qkv, probs, ctx, cancellable, error))
            return FALSE;
          if (!pl_linear (ctx, w->out_w, w->out_tiles, w->out_b, x, PL_ACTIVATION_NONE, mid, error))
            return FALSE;
          pl_layer_norm_rows (mid, normed, w->ln2_w->data, w->ln2_b->data, c->layer_norm_eps);
          if (!pl_linear (normed, w->ffn_in_w, w->ffn_in_tiles, w->ffn_in_b, NULL, c->activation, inner, error))
            return FALSE;
          if (!pl_linear (inner, w->ffn_out_w, w->ffn_out_tiles, w->ffn_out_b, mid, PL_ACTIVATION_NONE, next,
                          error))
            return FALSE;
          if (l + 1 == c->n_layers)
            pl_layer_norm_rows (next, next, self->final_ln_w->data, self->final_ln_b->data,
                                c->layer_norm_eps);
        }
      else
        {
          if (!pl_linear (x, w->qkv_w, w->qkv_tiles, w->qkv_b, NULL, PL_ACTIVATION_NONE, qkv, error))
            return FALSE;
          if (!attention (self, qkv, probs, ctx, cancellable, error))
            return FALSE;
          if (!pl_linear (ctx, w->out_w, w->out_tiles, w->out_b, x, PL_ACTIVATION_NONE, mid, error))
            return FALSE;
          pl_layer_norm_rows (mid, mid, w->ln1_w->data, w->ln1_b->data, c->layer_norm_eps);
          if (!pl_linear (mid, w->ffn_in_w, w->ffn_in_tiles, w->ffn_in_b, NULL, c->activation, inner, error))
            return FALSE;
          if (!pl_linear (inner, w->ffn_out_w, w->ffn_out_tiles, w->ffn_out_b, mid, PL_ACTIVATION_NONE, next,
                          error))
            return FALSE;
          pl_layer_norm_rows (next, next, w->ln2_w->data, w->ln2_b->data, c->layer_norm_eps);
        }

      g_clear_pointer (&x, pl_matrix_unref);
      x = g_steal_pointer (&next);

      if (progress != NULL)
        progress ((double) (l + 1) / c->n_layers, progress_data);
      if (layer_func != NULL &&
          !layer_func (l + 1, probs, x, layer_data))
        return TRUE;
    }
  /* The progress callback may have cancelled after the last layer. */
  return !set_cancelled (cancellable, error);
}

void
pl_forward_result_free (PlForwardResult *result)
{
  if (result == NULL)
    return;
  for (guint l = 0; result->attentions != NULL && l < result->n_layers; l++)
    g_clear_pointer (&result->attentions[l], pl_matrix_unref);
  for (guint l = 0; result->hidden_states != NULL && l <= result->n_layers; l++)
    g_clear_pointer (&result->hidden_states[l], pl_matrix_unref);
  g_free (result->attentions);
  g_free (result->hidden_states);
  g_free (result);
}

static gboolean
collect (guint     k,
         PlMatrix *attention_probs,
         PlMatrix *hidden,
         gpointer  user_data)
{
  PlForwardResult *result = user_data;

  if (result->attentions != NULL && k > 0)
    result->attentions[k - 1] = pl_matrix_ref (attention_probs);
  if (result->hidden_states != NULL)
    result->hidden_states[k] = pl_matrix_ref (hidden);
  return TRUE;
}

PlForwardResult *
pl_transformer_forward (PlTransformer   *self,
                        const int       *ids,
                        gsize            n_ids,
                        PlForwardFlags   flags,
                        GCancellable    *cancellable,
                        PlProgressFunc   progress,
                        gpointer         progress_data,
                        GError         **error)
{
  g_autoptr(PlForwardResult) result = NULL;

  g_return_val_if_fail (PL_IS_TRANSFORMER (self), NULL);

  result = g_new0 (PlForwardResult, 1);
  result->n_tokens = n_ids;
  result->n_layers = self->config.n_layers;
  result->n_heads = self->config.n_heads;
  if (flags & PL_FORWARD_ATTENTIONS)
    result->attentions = g_new0 (PlMatrix *, result->n_layers);
  if (flags & PL_FORWARD_HIDDEN_STATES)
    result->hidden_states = g_new0 (PlMatrix *, result->n_layers + 1);

  if (!pl_transformer_run (self, ids, n_ids, (flags & PL_FORWARD_ATTENTIONS) != 0,
                           collect, result, cancellable, progress, progress_data, error))
    return NULL;
  return g_steal_pointer (&result);
}
