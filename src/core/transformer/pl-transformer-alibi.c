/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-relpos.h"
#include "pl-stored-gemm.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"
#include "pl-transformer-relpos.h"

/* BLOOM's and MPT's forward pass, what Hugging Face's BloomModel and
 * MptModel compute with output_hidden_states and output_attentions
 * (modeling_bloom.py, modeling_mpt.py): causal decoders whose only position
 * information is ALiBi, a slope per head times the offset added to the
 * scores.
 *
 *   BLOOM: x = LayerNorm(word_embeddings(ids)) (hidden_states[0] is this);
 *          each block: a = dense(attention(ln1(x))) + r1, r1 = x (or ln1(x)
 *          with apply_residual_connection_post_layernorm);
 *          x = dense_4h_to_h(gelu_tanh(dense_h_to_4h(ln2(a)))) + r2, r2 = a
 *          (or ln2(a)); query_key_value fuses, head by head, the head's
 *          query, key and value rows; scores q·k / √head_dim + slope · j.
 *   MPT:   x = wte(ids); each block, LayerNorms without bias, no biases:
 *          x = x + out_proj(attention(norm_1(x))), Wqkv's output clamped to
 *          ±clip_qkv when set and cut in three (all queries, keys, values);
 *          x = x + down_proj(gelu(up_proj(norm_2(x)))); scores
 *          q·k · softmax_scale + slope · (j − T + 1).
 *   hidden_states[L] is the final LayerNorm (ln_f, norm_f) of the last
 *   block's output.
 *
 * BLOOM's slope · j and MPT's slope · (j − T + 1) differ from slope · (j − i)
 * by a constant per query, which the softmax takes out: this file adds
 * slope · (j − i) (pl_position_bias_alibi), the same probabilities. */

typedef struct
{
  PlMatrix       *ln1_w, *ln1_b;
  PlStoredMatrix *qkv;            /* [3 hidden, hidden]: BLOOM's rows as stored, head by head */
  PlMatrix       *qkv_b;
  PlStoredMatrix *out;
  PlMatrix       *out_b;
  PlMatrix       *ln2_w, *ln2_b;
  PlStoredMatrix *up;
  PlMatrix       *up_b;
  PlStoredMatrix *down;
  PlMatrix       *down_b;
} Block;

typedef struct
{
  PlRelposNet     parent;
  gboolean        bloom;
  guint           hidden;
  guint           n_heads;
  guint           n_layers;
  guint           ffn;
  double          eps;
  gboolean        residual_post_ln;   /* BLOOM */
  float           clip_qkv;           /* MPT; 0 for none */
  float           scale;              /* 1 / √head_dim, or MPT's softmax_scale */
  float          *slopes;
  PlStoredMatrix *embedding;
  PlMatrix       *embed_ln_w, *embed_ln_b;   /* BLOOM */
  PlMatrix       *final_w, *final_b;
  PlMatrix       *zeros;                     /* MPT's LayerNorms have no bias */
  Block          *blocks;
} AlibiNet;

static void
alibi_free (PlRelposNet *parent)
{
  AlibiNet *net = (AlibiNet *) parent;

  for (guint l = 0; net->blocks != NULL && l < net->n_layers; l++)
    {
      Block *b = &net->blocks[l];

      g_clear_pointer (&b->ln1_w, pl_matrix_unref);
      g_clear_pointer (&b->ln1_b, pl_matrix_unref);
      g_clear_pointer (&b->qkv, pl_stored_matrix_unref);
      g_clear_pointer (&b->qkv_b, pl_matrix_unref);
      g_clear_pointer (&b->out, pl_stored_matrix_unref);
      g_clear_pointer (&b->out_b, pl_matrix_unref);
      g_clear_pointer (&b->ln2_w, pl_matrix_unref);
      g_clear_pointer (&b->ln2_b, pl_matrix_unref);
      g_clear_pointer (&b->up, pl_stored_matrix_unref);
      g_clear_pointer (&b->up_b, pl_matrix_unref);
      g_clear_pointer (&b->down, pl_stored_matrix_unref);
      g_clear_pointer (&b->down_b, pl_matrix_unref);
    }
  g_free (net->blocks);
  g_free (net->slopes);
  g_clear_pointer (&net->embedding, pl_stored_matrix_unref);
  g_clear_pointer (&net->embed_ln_w, pl_matrix_unref);
  g_clear_pointer (&net->embed_ln_b, pl_matrix_unref);
  g_clear_pointer (&net->final_w, pl_matrix_unref);
  g_clear_pointer (&net->final_b, pl_matrix_unref);
  g_clear_pointer (&net->zeros, pl_matrix_unref);
  g_free (net);
}

/* A LayerNorm's weight and bias, NAME.weight and NAME.bias (MPT's have no
 * bias: zeros). */
static gboolean
load_norm (AlibiNet    *net,
           PlModel     *model,
           const char  *name,
           PlMatrix   **w,
           PlMatrix   **b,
           GError     **error)
{
  g_autofree char *weight = g_strconcat (name, ".weight", NULL);
  g_autofree char *bias = g_strconcat (name, ".bias", NULL);

  if (!(*w = pl_relpos_load_float (model, weight, FALSE, 1, net->hidden, FALSE, error)))
    return FALSE;
  if (!net->bloom)
    {
      *b = pl_matrix_ref (net->zeros);
      return TRUE;
    }
  return (*b = pl_relpos_load_float (model, bias, FALSE, 1, net->hidden, FALSE, error)) != NULL;
}

/* A Linear's weight [ROWS, COLS] and, for BLOOM, its bias. */
static gboolean
load_linear (AlibiNet         *net,
             PlModel          *model,
             const char       *name,
             gsize             rows,
             gsize             cols,
             PlStoredMatrix  **w,
             PlMatrix        **b,
             GCancellable     *cancellable,
             GError          **error)
{
  g_autofree char *weight = g_strconcat (name, ".weight", NULL);
  g_autofree char *bias = g_strconcat (name, ".bias", NULL);

  if (!(*w = pl_relpos_load (model, weight, FALSE, rows, cols, cancellable, error)))
    return FALSE;
  return !net->bloom || (*b = pl_relpos_load_float (model, bias, FALSE, 1, rows, FALSE, error)) != NULL;
}

static gboolean
load (AlibiNet      *net,
      PlModel       *model,
      GCancellable  *cancellable,
      GError       **error)
{
  gsize h = net->hidden, f = net->ffn;

  if (!(net->embedding = pl_model_read_named_stored (model, net->bloom ? "word_embeddings.weight" : "wte.weight",
                                                     FALSE, FALSE, error)))
    return FALSE;
  if (net->embedding->cols != h || !pl_stored_matrix_all_finite (net->embedding))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the token embedding is %" G_GSIZE_FORMAT " wide or holds "
                   "NaN, not %u wide", pl_checkpoint_get_path (pl_model_get_checkpoint (model)),
                   net->embedding->cols, net->hidden);
      return FALSE;
    }
  if ((net->bloom && !load_norm (net, model, "word_embeddings_layernorm", &net->embed_ln_w, &net->embed_ln_b,
                                 error)) ||
      !load_norm (net, model, net->bloom ? "ln_f" : "norm_f", &net->final_w, &net->final_b, error))
    return FALSE;
  net->blocks = g_new0 (Block, net->n_layers);
  for (guint l = 0; l < net->n_layers; l++)
    {
      Block *b = &net->blocks[l];
      g_autofree char *p = g_strdup_printf (net->bloom ? "h.%u." : "blocks.%u.", l);
      g_autofree char *ln1 = g_strconcat (p, net->bloom ? "input_layernorm" : "norm_1", NULL);
      g_autofree char *ln2 = g_strconcat (p, net->bloom ? "post_attention_layernorm" : "norm_2", NULL);
      g_autofree char *qkv = g_strconcat (p, net->bloom ? "self_attention.query_key_value" : "attn.Wqkv", NULL);
      g_autofree char *out = g_strconcat (p, net->bloom ? "self_attention.dense" : "attn.out_proj", NULL);
      g_autofree char *up = g_strconcat (p, net->bloom ? "mlp.dense_h_to_4h" : "ffn.up_proj", NULL);
      g_autofree char *down = g_strconcat (p, net->bloom ? "mlp.dense_4h_to_h" : "ffn.down_proj", NULL);

      if (!load_norm (net, model, ln1, &b->ln1_w, &b->ln1_b, error) ||
          !load_norm (net, model, ln2, &b->ln2_w, &b->ln2_b, error) ||
          !load_linear (net, model, qkv, 3 * h, h, &b->qkv, &b->qkv_b, cancellable, error) ||
          !load_linear (net, model, out, h, h, &b->out, &b->out_b, cancellable, error) ||
          !load_linear (net, model, up, f, h, &b->up, &b->up_b, cancellable, error) ||
          !load_linear (net, model, down, h, f, &b->down, &b->down_b, cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* BLOOM's fused output, head by head [q_h | k_h | v_h], into the order
 * pl_attention_heads reads: every query head, then the keys, the values. */
static void
unfuse_heads (const PlMatrix *fused,
              guint           n_heads,
              PlMatrix       *qkv)
{
  gsize d = fused->cols / (3 * (gsize) n_heads), h = fused->cols / 3;

  for (gsize r = 0; r < fused->rows; r++)
    {
      const float *in = pl_matrix_row (fused, r);
      float *out = pl_matrix_row (qkv, r);

      for (guint head = 0; head < n_heads; head++)
        for (guint part = 0; part < 3; part++)
          memcpy (out + part * h + head * d, in + (head * 3 + part) * d, d * sizeof (float));
    }
}

static void
copy_out (const PlMatrix  *x,
          PlMatrix       **copy)
{
  *copy = pl_matrix_new_from (x->rows, x->cols, x->data);
}

static gboolean
alibi_run (PlTransformer   *transformer,
           PlRelposNet     *parent,
           const int       *ids,
           gsize            t,
           gboolean         want_attentions,
           PlLayerFunc      layer_func,
           gpointer         layer_data,
           GCancellable    *cancellable,
           PlProgressFunc   progress,
           gpointer         progress_data,
           GError         **error)
{
  AlibiNet *net = (AlibiNet *) parent;
  gsize h = net->hidden, f = net->ffn;
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) normed = NULL;
  g_autoptr(PlMatrix) fused = NULL;
  g_autoptr(PlMatrix) qkv = NULL;
  g_autoptr(PlMatrix) ctx = NULL;
  g_autoptr(PlMatrix) attn = NULL;
  g_autoptr(PlMatrix) inner = NULL;
  g_autoptr(PlMatrix) bias = NULL;

  if (!(x = pl_relpos_embed (net->embedding, ids, t, error)) || !(normed = pl_matrix_try_new (t, h, error)) ||
      !(qkv = pl_matrix_try_new (t, 3 * h, error)) || (net->bloom && !(fused = pl_matrix_try_new (t, 3 * h, error))) ||
      !(ctx = pl_matrix_try_new (t, h, error)) || !(attn = pl_matrix_try_new (t, h, error)) ||
      !(inner = pl_matrix_try_new (t, f, error)))
    return FALSE;
  /* the bias by offset over this length; the causal mask drops the offsets above 0 */
  bias = pl_position_bias_alibi (net->slopes, net->n_heads, t, FALSE);
  if (net->bloom)
    pl_kernel_layer_norm (x->data, x->data, t, h, net->embed_ln_w->data, net->embed_ln_b->data, net->eps);
  if (layer_func != NULL)
    {
      g_autoptr(PlMatrix) copy = NULL;

      copy_out (x, &copy);
      if (!layer_func (0, NULL, copy, layer_data))
        return TRUE;
    }

  for (guint l = 0; l < net->n_layers; l++)
    {
      const Block *b = &net->blocks[l];
      g_autoptr(PlMatrix) probs = NULL;
      const PlMatrix *residual;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (want_attentions && !(probs = pl_matrix_try_new ((gsize) net->n_heads * t, t, error)))
        return FALSE;

      pl_kernel_layer_norm (x->data, normed->data, t, h, b->ln1_w->data, b->ln1_b->data, net->eps);
      if (net->bloom)
        {
          pl_stored_gemm (normed, b->qkv, b->qkv_b, NULL, fused);
          unfuse_heads (fused, net->n_heads, qkv);
        }
      else
        {
          pl_stored_gemm (normed, b->qkv, NULL, NULL, qkv);
          if (net->clip_qkv > 0)
            for (gsize i = 0; i < t * 3 * h; i++)
              qkv->data[i] = CLAMP (qkv->data[i], -net->clip_qkv, net->clip_qkv);
        }
      if (!pl_relpos_attend (qkv, net->n_heads, h / net->n_heads, net->scale, TRUE, pl_relpos_offset_bias, bias,
                             probs, ctx, cancellable, error))
        return FALSE;
      residual = net->residual_post_ln ? normed : x;
      pl_stored_gemm (ctx, b->out, b->out_b, residual, attn);

      pl_kernel_layer_norm (attn->data, normed->data, t, h, b->ln2_w->data, b->ln2_b->data, net->eps);
      pl_stored_gemm (normed, b->up, b->up_b, NULL, inner);
      pl_kernel_activate (inner->data, t * f, net->bloom ? PL_ACTIVATION_GELU_TANH : PL_ACTIVATION_GELU);
      residual = net->residual_post_ln ? normed : attn;
      pl_stored_gemm (inner, b->down, b->down_b, residual, x);
      if (l + 1 == net->n_layers)
        pl_kernel_layer_norm (x->data, x->data, t, h, net->final_w->data, net->final_b->data, net->eps);

      if (progress != NULL)
        progress ((double) (l + 1) / net->n_layers, progress_data);
      if (layer_func != NULL)
        {
          g_autoptr(PlMatrix) copy = NULL;

          copy_out (x, &copy);
          if (!layer_func (l + 1, probs, copy, layer_data))
            return TRUE;
        }
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

PlRelposNet *
pl_relpos_alibi_new (PlModel             *model,
                     PlTransformerConfig *config,
                     GCancellable        *cancellable,
                     GError             **error)
{
  const PlRelposSpec *spec = pl_model_get_relpos (model);
  AlibiNet *net = g_new0 (AlibiNet, 1);
  g_autoptr(GError) local_error = NULL;

  net->parent.run = alibi_run;
  net->parent.free = alibi_free;
  net->bloom = config->family == PL_FAMILY_BLOOM;
  net->hidden = config->hidden_size;
  net->n_heads = config->n_heads;
  net->n_layers = config->n_layers;
  net->ffn = config->ffn_size;
  net->eps = config->layer_norm_eps;
  net->residual_post_ln = net->bloom && spec->residual_post_ln;
  net->clip_qkv = net->bloom ? 0 : (float) spec->clip_qkv;
  net->scale = net->bloom ? (float) (1.0 / sqrt ((double) net->hidden / net->n_heads)) : (float) spec->softmax_scale;
  net->slopes = g_new (float, net->n_heads);
  if (net->bloom)
    pl_alibi_slopes_bloom (net->n_heads, net->slopes);
  else
    pl_alibi_slopes_mpt (net->n_heads, spec->alibi_bias_max, net->slopes);
  net->zeros = pl_matrix_new (1, net->hidden);
  if (net->hidden % net->n_heads != 0)
    g_set_error (&local_error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %u heads do not divide the hidden size %u",
                 pl_checkpoint_get_path (pl_model_get_checkpoint (model)), net->n_heads, net->hidden);
  if (local_error != NULL || !load (net, model, cancellable, &local_error))
    {
      alibi_free (&net->parent);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  config->causal = TRUE;
  config->pre_ln = TRUE;
  return &net->parent;
}
