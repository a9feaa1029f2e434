/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-attention-heads.h"
#include "pl-error.h"
#include "pl-executor.h"
#include "pl-rope.h"
#include "pl-stored-gemm.h"
#include "pl-transformer.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"

/* The rotary-position decoders' forward pass over layers that
 * pl-transformer-decoder.c loads and prepares (the formulas are written
 * there): norms, attention, feed-forward or experts, and the layers in turn,
 * each prepared on its first use. */

#define MAX_TOKENS (1u << 20)

static void
norm (PlTransformer  *self,
      const PlMatrix *x,
      const PlMatrix *w,
      const PlMatrix *b,
      PlMatrix       *out)
{
  const PlTransformerConfig *c = &self->config;

  if (c->decoder.norm == PL_NORM_LAYER)
    pl_kernel_layer_norm (x->data, out->data, x->rows, x->cols, w->data, b->data, c->layer_norm_eps);
  else
    pl_kernel_rms_norm (x->data, out->data, x->rows, x->cols, w->data, c->layer_norm_eps);
}

void
pl_decoder_gate (const PlMatrix *gate_up,
                 PlActivation    activation,
                 PlMatrix       *out)
{
  gsize f = out->cols;

  for (gsize r = 0; r < out->rows; r++)
    {
      const float *g = pl_matrix_row (gate_up, r);
      float *o = pl_matrix_row (out, r);

      memcpy (o, g, f * sizeof (float));
      pl_kernel_activate (o, f, activation);
      for (gsize j = 0; j < f; j++)
        o[j] *= g[f + j];
    }
}

/* OUT = A + B, element by element (OUT may be B) */
static void
add_rows (const PlMatrix *a,
          const PlMatrix *b,
          PlMatrix       *out)
{
  for (gsize i = 0; i < a->rows * a->cols; i++)
    out->data[i] = a->data[i] + b->data[i];
}

/* NEXT = ATTN + the layer's feed-forward of NORMED: its experts', or the
 * dense one (Gemma 2 norms its output first); UP, ACT and BRANCH are
 * scratch. */
static gboolean
feed_forward (PlTransformer        *self,
              const PlDecoderLayer *w,
              const PlMatrix       *normed,
              const PlMatrix       *attn,
              PlMatrix             *up,
              PlMatrix             *act,
              PlMatrix             *branch,
              PlMatrix             *next,
              GError              **error)
{
  const PlTransformerConfig *c = &self->config;
  const PlRotaryDecoderSpec *d = &c->decoder;

  if (w->router_w != NULL)
    {
      if (!pl_decoder_run_experts (self, w, normed, branch, error))
        return FALSE;
      add_rows (attn, branch, next);
      return TRUE;
    }
  if (d->gated_mlp)
    {
      gsize f = act->cols;

      pl_stored_gemm_columns (normed, w->gate_w, w->up_b ? w->up_b->data : NULL, up, 0);
      pl_stored_gemm_columns (normed, w->up_w, w->up_b ? w->up_b->data + f : NULL, up, f);
      pl_decoder_gate (up, c->activation, act);
    }
  else
    {
      pl_stored_gemm (normed, w->up_w, w->up_b, NULL, up);
      pl_kernel_activate (up->data, up->rows * up->cols, c->activation);
    }
  if (!d->post_norms)
    {
      pl_stored_gemm (d->gated_mlp ? act : up, w->down_w, w->down_b, attn, next);
      return TRUE;
    }
  pl_stored_gemm (d->gated_mlp ? act : up, w->down_w, w->down_b, NULL, branch);
  norm (self, branch, w->post_ffn_w, NULL, branch);
  add_rows (attn, branch, next);
  return TRUE;
}

gboolean
pl_transformer_run_decoder (PlTransformer   *self,
                            const int       *ids,
                            gsize            t,
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
  const PlTransformerConfig *c = &self->config;
  const PlRotaryDecoderSpec *d = &c->decoder;
  gsize h = c->hidden_size, f = c->ffn_size, nh = c->n_heads;
  gsize q = nh * d->head_dim, kv = (gsize) d->n_kv_heads * d->head_dim, half = d->rope.dim / 2;
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) normed = NULL;
  g_autoptr(PlMatrix) qkv = NULL;
  g_autoptr(PlMatrix) ctx = NULL;
  g_autoptr(PlMatrix) attn = NULL;
  g_autoptr(PlMatrix) up = NULL;
  g_autoptr(PlMatrix) act = NULL;
  g_autoptr(PlMatrix) branch = NULL;
  g_autofree float *inv_freq = g_new (float, half);
  gboolean any_experts = FALSE, any_dense = FALSE;
  g_autofree float *cos_table = NULL;
  g_autofree float *sin_table = NULL;
  float attention_scaling;
  PlAttentionHeads job = { 0, };

  if (t > MAX_TOKENS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE, "an input of %" G_GSIZE_FORMAT " tokens: at most %u",
                   t, MAX_TOKENS);
      return FALSE;
    }
  if (!(x = pl_matrix_try_new (t, h, error)) ||
      !(normed = pl_matrix_try_new (t, h, error)) ||
      !(qkv = pl_matrix_try_new (t, q + 2 * kv, error)) ||
      !(ctx = pl_matrix_try_new (t, q, error)) ||
      !(attn = pl_matrix_try_new (t, h, error)))
    return FALSE;
  for (guint l = 0; l < c->n_layers; l++)
    {
      gboolean experts = self->layer_experts != NULL && self->layer_experts[l];

      any_experts |= experts;
      any_dense |= !experts;
    }
  if ((any_dense && !(up = pl_matrix_try_new (t, d->gated_mlp ? 2 * f : f, error))) ||
      (any_dense && d->gated_mlp && !(act = pl_matrix_try_new (t, f, error))) ||
      ((d->post_norms || any_experts) && !(branch = pl_matrix_try_new (t, h, error))))
    return FALSE;

  /* The rotation of every position, for this length (dynamic NTK scaling
   * depends on it) */
  pl_rope_inv_freq (&d->rope, t, inv_freq, &attention_scaling);
  cos_table = g_new (float, t * half);
  sin_table = g_new (float, t * half);
  pl_rope_cos_sin (inv_freq, half, attention_scaling, t, cos_table, sin_table);

  for (gsize i = 0; i < t; i++)
    {
      /* the embedding's rows are checked as they are used */
      if (!pl_stored_matrix_rows_finite (self->token_embedding_stored, ids[i], 1))
        return pl_decoder_not_finite (PL_WEIGHT_TOKEN_EMBEDDING, -1, error);
      pl_stored_matrix_to_float (self->token_embedding_stored, ids[i], 1, pl_matrix_row (x, i));
    }
  if (d->scale_embeddings)
    {
      /* GemmaModel: normalizer = torch.tensor(hidden_size ** 0.5, dtype=hidden dtype) */
      float normalizer = (float) sqrt ((double) h);

      for (gsize i = 0; i < t * h; i++)
        x->data[i] *= normalizer;
    }
  if (layer_func != NULL && !layer_func (0, NULL, x, layer_data))
    return TRUE;

  job.qkv = qkv->data;
  job.stride = qkv->cols;
  job.n_tokens = t;
  job.n_heads = nh;
  job.n_kv_heads = d->n_kv_heads;
  job.head_dim = d->head_dim;
  job.scale = (float) (d->attention_scale > 0 ? d->attention_scale : 1.0 / sqrt ((double) d->head_dim));
  job.softcap = (float) d->attention_softcap;
  job.ctx = ctx->data;
  for (guint l = 0; l < c->n_layers; l++)
    {
      const PlDecoderLayer *w = &self->decoder_layers[l];
      g_autoptr(PlMatrix) probs = NULL;
      g_autoptr(PlMatrix) next = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          !pl_transformer_prepare_decoder_layer (self, l, cancellable, error))
        return FALSE;
      if (want_attentions && !(probs = pl_matrix_try_new (nh * t, t, error)))
        return FALSE;
      if (!(next = pl_matrix_try_new (t, h, error)))
        return FALSE;

      norm (self, x, w->norm1_w, w->norm1_b, normed);
      pl_stored_gemm_columns (normed, w->q_w, w->qkv_b ? w->qkv_b->data : NULL, qkv, 0);
      pl_stored_gemm_columns (normed, w->k_w, w->qkv_b ? w->qkv_b->data + q : NULL, qkv, q);
      pl_stored_gemm_columns (normed, w->v_w, w->qkv_b ? w->qkv_b->data + q + kv : NULL, qkv, q + kv);
      for (gsize i = 0; i < t; i++)
        {
          float *row = pl_matrix_row (qkv, i);

          /* Qwen 3: each query and key head RMSNormed over its head_dim
           * values (q_norm, k_norm), then turned */
          if (d->qk_norm)
            {
              pl_kernel_rms_norm (row, row, nh, d->head_dim, w->q_norm_w->data, c->layer_norm_eps);
              pl_kernel_rms_norm (row + q, row + q, d->n_kv_heads, d->head_dim, w->k_norm_w->data,
                                  c->layer_norm_eps);
            }
          pl_rope_rotate_row (row, nh, d->head_dim, half, cos_table + i * half, sin_table + i * half);
          pl_rope_rotate_row (row + q, d->n_kv_heads, d->head_dim, half, cos_table + i * half, sin_table + i * half);
        }
      if (qkv_func != NULL)
        qkv_func (l, qkv, qkv_data);
      job.window = self->layer_windows ? self->layer_windows[l] : 0;
      job.probs = want_attentions ? probs : NULL;
      if (!pl_attention_heads (&job, cancellable, error))
        return FALSE;

      /* attn = x + a; the feed-forward reads norm2(x + a), or with GPT-NeoX's
       * parallel residual norm2(x), and adds to x + a. Gemma 2 norms a and
       * the feed-forward's output before adding each. */
      if (d->post_norms)
        {
          pl_stored_gemm (ctx, w->out_w, w->out_b, NULL, branch);
          norm (self, branch, w->post_attn_w, NULL, branch);
          add_rows (x, branch, attn);
        }
      else
        pl_stored_gemm (ctx, w->out_w, w->out_b, x, attn);
      norm (self, d->parallel_residual ? x : attn, w->norm2_w, w->norm2_b, normed);
      if (!feed_forward (self, w, normed, attn, up, act, branch, next, error))
        return FALSE;
      if (l + 1 == c->n_layers)
        norm (self, next, self->final_ln_w, self->final_ln_b, next);

      g_clear_pointer (&x, pl_matrix_unref);
      x = g_steal_pointer (&next);
      if (progress != NULL)
        progress ((double) (l + 1) / c->n_layers, progress_data);
      if (layer_func != NULL && !layer_func (l + 1, want_attentions ? probs : NULL, x, layer_data))
        return TRUE;
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}
