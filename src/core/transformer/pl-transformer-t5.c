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

/* T5's and UMT5's forward pass, what Hugging Face's T5Stack computes with
 * output_hidden_states and output_attentions (modeling_t5.py, modeling_umt5.py):
 *
 *   x = embed_tokens(ids) (T5's shared table); for each block, pre-norm:
 *     x = x + o(attention(T5LayerNorm(x)))      scores q·kᵀ with no scaling, plus
 *                                               the bias of the offset's bucket
 *     (decoder) x = x + o(cross-attention(T5LayerNorm(x), encoder output))
 *     x = x + wo(act(wi(T5LayerNorm(x))))       or, gated: wo(act(wi_0 ·) ⊙ wi_1 ·)
 *   hidden_states[k] is block k's input for k < L; hidden_states[L] the
 *   final T5LayerNorm of the last block's output.
 *
 * T5LayerNorm is an RMS norm (no mean, no bias). The relative bias is block
 * 0's, computed once and shared by every block (UMT5: each block's own);
 * bidirectional buckets in the encoder, causal in the decoder, whose scores
 * also get the causal mask. The decoder's cross-attention has no bias. A
 * decoder run is model(input_ids=ids, decoder_input_ids=ids): the encoder
 * first over the ids, then the decoder over the same ids attending to its
 * output; its hidden states and self-attentions are what is reported.
 * Heads are d_kv wide, heads × d_kv need not be d_model. */

typedef struct
{
  PlStoredMatrix *q, *k, *v, *o;
  PlMatrix       *ln;
  PlMatrix       *bias_table;     /* [buckets, heads], block 0's (UMT5: every block's) */
  /* the decoder's cross-attention */
  PlStoredMatrix *cq, *ck, *cv, *co;
  PlMatrix       *cross_ln;
  /* the feed-forward */
  PlStoredMatrix *wi, *wi_1, *wo;   /* gated: wi is wi_0 */
  PlMatrix       *ff_ln;
} Block;

typedef struct
{
  guint            n_layers;
  gboolean         decoder;
  PlStoredMatrix  *embedding;      /* [vocab, d_model] */
  Block           *blocks;
  PlMatrix        *final_ln;
} Stack;

typedef struct
{
  PlRelposNet   parent;
  guint         d_model;
  guint         n_heads;
  guint         d_kv;
  guint         d_ff;
  gboolean      gated;
  gboolean      per_layer;
  guint         n_buckets;
  guint         max_distance;
  double        eps;
  PlActivation  activation;
  Stack         encoder;
  Stack         decoder;
  gboolean      run_decoder;       /* the chosen stack */
} T5Net;

static void
block_clear (Block *b)
{
  g_clear_pointer (&b->q, pl_stored_matrix_unref);
  g_clear_pointer (&b->k, pl_stored_matrix_unref);
  g_clear_pointer (&b->v, pl_stored_matrix_unref);
  g_clear_pointer (&b->o, pl_stored_matrix_unref);
  g_clear_pointer (&b->ln, pl_matrix_unref);
  g_clear_pointer (&b->bias_table, pl_matrix_unref);
  g_clear_pointer (&b->cq, pl_stored_matrix_unref);
  g_clear_pointer (&b->ck, pl_stored_matrix_unref);
  g_clear_pointer (&b->cv, pl_stored_matrix_unref);
  g_clear_pointer (&b->co, pl_stored_matrix_unref);
  g_clear_pointer (&b->cross_ln, pl_matrix_unref);
  g_clear_pointer (&b->wi, pl_stored_matrix_unref);
  g_clear_pointer (&b->wi_1, pl_stored_matrix_unref);
  g_clear_pointer (&b->wo, pl_stored_matrix_unref);
  g_clear_pointer (&b->ff_ln, pl_matrix_unref);
}

static void
stack_clear (Stack *s)
{
  for (guint l = 0; s->blocks != NULL && l < s->n_layers; l++)
    block_clear (&s->blocks[l]);
  g_clear_pointer (&s->blocks, g_free);
  g_clear_pointer (&s->embedding, pl_stored_matrix_unref);
  g_clear_pointer (&s->final_ln, pl_matrix_unref);
}

static void
t5_free (PlRelposNet *parent)
{
  T5Net *net = (T5Net *) parent;

  stack_clear (&net->encoder);
  stack_clear (&net->decoder);
  g_free (net);
}

/* The stack's weights: STACK's prefix is the model's chosen one for the
 * chosen stack; the other is read through the model's base prefix. */
static gboolean
load_stack (T5Net         *net,
            PlModel       *model,
            Stack         *s,
            const char    *stack,
            GCancellable  *cancellable,
            GError       **error)
{
  gsize d = net->d_model, inner = (gsize) net->n_heads * net->d_kv, f = net->d_ff;
  const char *ff = s->decoder ? "2" : "1";
  g_autofree char *embed = g_strdup_printf ("%s.embed_tokens.weight", stack);
  g_autofree char *final = g_strdup_printf ("%s.final_layer_norm.weight", stack);

  /* HF's safetensors keep the tied table once, as shared.weight */
  s->embedding = pl_model_read_named_stored (model, embed, TRUE, TRUE, NULL);
  if (s->embedding == NULL &&
      !(s->embedding = pl_model_read_named_stored (model, "shared.weight", TRUE, FALSE, error)))
    return FALSE;
  if (s->embedding->cols != d || !pl_stored_matrix_all_finite (s->embedding))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the %s’s token embedding is %" G_GSIZE_FORMAT " × %"
                   G_GSIZE_FORMAT " or holds NaN, not %u wide", pl_checkpoint_get_path (pl_model_get_checkpoint (model)),
                   stack, s->embedding->rows, s->embedding->cols, net->d_model);
      return FALSE;
    }
  if (!(s->final_ln = pl_relpos_load_float (model, final, TRUE, 1, d, FALSE, error)))
    return FALSE;
  s->blocks = g_new0 (Block, s->n_layers);
  for (guint l = 0; l < s->n_layers; l++)
    {
      Block *b = &s->blocks[l];
      g_autofree char *p = g_strdup_printf ("%s.block.%u.layer.", stack, l);
      g_autofree char *q = g_strconcat (p, "0.SelfAttention.q.weight", NULL);
      g_autofree char *k = g_strconcat (p, "0.SelfAttention.k.weight", NULL);
      g_autofree char *v = g_strconcat (p, "0.SelfAttention.v.weight", NULL);
      g_autofree char *o = g_strconcat (p, "0.SelfAttention.o.weight", NULL);
      g_autofree char *ln = g_strconcat (p, "0.layer_norm.weight", NULL);
      g_autofree char *bias = g_strconcat (p, "0.SelfAttention.relative_attention_bias.weight", NULL);
      g_autofree char *wi = g_strdup_printf ("%s%s.DenseReluDense.%s.weight", p, ff, net->gated ? "wi_0" : "wi");
      g_autofree char *wi_1 = g_strdup_printf ("%s%s.DenseReluDense.wi_1.weight", p, ff);
      g_autofree char *wo = g_strdup_printf ("%s%s.DenseReluDense.wo.weight", p, ff);
      g_autofree char *ff_ln = g_strdup_printf ("%s%s.layer_norm.weight", p, ff);

      if (!(b->q = pl_relpos_load (model, q, TRUE, inner, d, cancellable, error)) ||
          !(b->k = pl_relpos_load (model, k, TRUE, inner, d, cancellable, error)) ||
          !(b->v = pl_relpos_load (model, v, TRUE, inner, d, cancellable, error)) ||
          !(b->o = pl_relpos_load (model, o, TRUE, d, inner, cancellable, error)) ||
          !(b->ln = pl_relpos_load_float (model, ln, TRUE, 1, d, FALSE, error)) ||
          !(b->wi = pl_relpos_load (model, wi, TRUE, f, d, cancellable, error)) ||
          (net->gated && !(b->wi_1 = pl_relpos_load (model, wi_1, TRUE, f, d, cancellable, error))) ||
          !(b->wo = pl_relpos_load (model, wo, TRUE, d, f, cancellable, error)) ||
          !(b->ff_ln = pl_relpos_load_float (model, ff_ln, TRUE, 1, d, FALSE, error)))
        return FALSE;
      if ((l == 0 || net->per_layer) &&
          !(b->bias_table = pl_relpos_load_float (model, bias, TRUE, net->n_buckets, net->n_heads, FALSE, error)))
        return FALSE;
      if (s->decoder)
        {
          g_autofree char *cq = g_strconcat (p, "1.EncDecAttention.q.weight", NULL);
          g_autofree char *ck = g_strconcat (p, "1.EncDecAttention.k.weight", NULL);
          g_autofree char *cv = g_strconcat (p, "1.EncDecAttention.v.weight", NULL);
          g_autofree char *co = g_strconcat (p, "1.EncDecAttention.o.weight", NULL);
          g_autofree char *cln = g_strconcat (p, "1.layer_norm.weight", NULL);

          if (!(b->cq = pl_relpos_load (model, cq, TRUE, inner, d, cancellable, error)) ||
              !(b->ck = pl_relpos_load (model, ck, TRUE, inner, d, cancellable, error)) ||
              !(b->cv = pl_relpos_load (model, cv, TRUE, inner, d, cancellable, error)) ||
              !(b->co = pl_relpos_load (model, co, TRUE, d, inner, cancellable, error)) ||
              !(b->cross_ln = pl_relpos_load_float (model, cln, TRUE, 1, d, FALSE, error)))
            return FALSE;
        }
    }
  return TRUE;
}

/* The bias a block adds over T tokens, [heads, 2T − 1]: its table's value
 * at each offset's bucket; for a causal stack every positive offset is in
 * bucket 0, as HF's buckets give it (the mask drops those scores). */
static PlMatrix *
offset_bias (T5Net          *net,
             const PlMatrix *table,
             gsize           t,
             gboolean        causal)
{
  gsize width = 2 * t - 1;
  PlMatrix *bias = pl_matrix_new (net->n_heads, width);

  for (gsize c = 0; c < width; c++)
    {
      int offset = (int) c - (int) (t - 1);
      guint b = pl_t5_bucket (offset, !causal, net->n_buckets, net->max_distance);

      for (guint h = 0; h < net->n_heads; h++)
        bias->data[h * width + c] = table->data[(gsize) b * net->n_heads + h];
    }
  return bias;
}

/* Q, K, V of X (and, for cross-attention, K and V of MEMORY) side by side
 * in QKV [T, 3 inner]. */
static void
project_qkv (const PlMatrix       *x,
             const PlMatrix       *memory,
             const PlStoredMatrix *q,
             const PlStoredMatrix *k,
             const PlStoredMatrix *v,
             PlMatrix             *part,
             PlMatrix             *qkv)
{
  const PlStoredMatrix *w[3] = { q, k, v };
  gsize inner = part->cols;

  for (guint i = 0; i < 3; i++)
    {
      pl_stored_gemm (i == 0 || memory == NULL ? x : memory, w[i], NULL, NULL, part);
      for (gsize r = 0; r < x->rows; r++)
        memcpy (pl_matrix_row (qkv, r) + i * inner, pl_matrix_row (part, r), inner * sizeof (float));
    }
}

/* One stack over X (taken over: the embedded ids), reporting to LAYER_FUNC
 * when REPORT; *OUT gets the final normed output. */
static gboolean
run_stack (T5Net           *net,
           Stack           *s,
           PlMatrix        *x_in,
           const PlMatrix  *memory,
           gboolean         report,
           gboolean         want_attentions,
           PlLayerFunc      layer_func,
           gpointer         layer_data,
           PlMatrix       **out,
           GCancellable    *cancellable,
           PlProgressFunc   progress,
           gpointer         progress_data,
           GError         **error)
{
  g_autoptr(PlMatrix) x = x_in;
  gsize t = x->rows, d = net->d_model, inner = (gsize) net->n_heads * net->d_kv, f = net->d_ff;
  g_autoptr(PlMatrix) normed = NULL;
  g_autoptr(PlMatrix) part = NULL;
  g_autoptr(PlMatrix) qkv = NULL;
  g_autoptr(PlMatrix) ctx = NULL;
  g_autoptr(PlMatrix) hidden = NULL;
  g_autoptr(PlMatrix) hidden_1 = NULL;
  g_autoptr(PlMatrix) bias = NULL;

  if (!(normed = pl_matrix_try_new (t, d, error)) || !(part = pl_matrix_try_new (t, inner, error)) ||
      !(qkv = pl_matrix_try_new (t, 3 * inner, error)) || !(ctx = pl_matrix_try_new (t, inner, error)) ||
      !(hidden = pl_matrix_try_new (t, f, error)) || (net->gated && !(hidden_1 = pl_matrix_try_new (t, f, error))))
    return FALSE;
  if (report && layer_func != NULL)
    {
      /* fresh matrices each time: the callback may keep them, and X changes in place */
      g_autoptr(PlMatrix) copy = pl_matrix_new_from (t, d, x->data);

      if (!layer_func (0, NULL, copy, layer_data))
        return TRUE;
    }

  for (guint l = 0; l < s->n_layers; l++)
    {
      const Block *b = &s->blocks[l];
      g_autoptr(PlMatrix) probs = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (b->bias_table != NULL)
        {
          g_clear_pointer (&bias, pl_matrix_unref);
          bias = offset_bias (net, b->bias_table, t, s->decoder);
        }
      if (report && want_attentions && !(probs = pl_matrix_try_new ((gsize) net->n_heads * t, t, error)))
        return FALSE;

      pl_kernel_rms_norm (x->data, normed->data, t, d, b->ln->data, net->eps);
      project_qkv (normed, NULL, b->q, b->k, b->v, part, qkv);
      if (!pl_relpos_attend (qkv, net->n_heads, net->d_kv, 1.0f, s->decoder, pl_relpos_offset_bias, bias, probs,
                             ctx, cancellable, error))
        return FALSE;
      pl_stored_gemm (ctx, b->o, NULL, x, x);

      if (s->decoder)
        {
          pl_kernel_rms_norm (x->data, normed->data, t, d, b->cross_ln->data, net->eps);
          project_qkv (normed, memory, b->cq, b->ck, b->cv, part, qkv);
          if (!pl_relpos_attend (qkv, net->n_heads, net->d_kv, 1.0f, FALSE, NULL, NULL, NULL, ctx, cancellable,
                                 error))
            return FALSE;
          pl_stored_gemm (ctx, b->co, NULL, x, x);
        }

      pl_kernel_rms_norm (x->data, normed->data, t, d, b->ff_ln->data, net->eps);
      pl_stored_gemm (normed, b->wi, NULL, NULL, hidden);
      pl_kernel_activate (hidden->data, t * f, net->activation);
      if (net->gated)
        {
          pl_stored_gemm (normed, b->wi_1, NULL, NULL, hidden_1);
          for (gsize i = 0; i < t * f; i++)
            hidden->data[i] *= hidden_1->data[i];
        }
      pl_stored_gemm (hidden, b->wo, NULL, x, x);

      if (l + 1 == s->n_layers)
        pl_kernel_rms_norm (x->data, x->data, t, d, s->final_ln->data, net->eps);
      if (report && progress != NULL)
        progress ((double) (l + 1) / s->n_layers, progress_data);
      if (report && layer_func != NULL)
        {
          g_autoptr(PlMatrix) copy = pl_matrix_new_from (t, d, x->data);

          if (!layer_func (l + 1, probs, copy, layer_data))
            return TRUE;
        }
    }
  if (out != NULL)
    *out = g_steal_pointer (&x);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

static gboolean
t5_run (PlTransformer   *transformer,
        PlRelposNet     *parent,
        const int       *ids,
        gsize            n,
        gboolean         want_attentions,
        PlLayerFunc      layer_func,
        gpointer         layer_data,
        GCancellable    *cancellable,
        PlProgressFunc   progress,
        gpointer         progress_data,
        GError         **error)
{
  T5Net *net = (T5Net *) parent;
  g_autoptr(PlMatrix) memory = NULL;
  PlMatrix *x;

  if (!net->run_decoder)
    return (x = pl_relpos_embed (net->encoder.embedding, ids, n, error)) != NULL &&
           run_stack (net, &net->encoder, x, NULL, TRUE, want_attentions, layer_func, layer_data, NULL,
                      cancellable, progress, progress_data, error);
  if (!(x = pl_relpos_embed (net->encoder.embedding, ids, n, error)) ||
      !run_stack (net, &net->encoder, x, NULL, FALSE, FALSE, NULL, NULL, &memory, cancellable, NULL, NULL, error) ||
      !(x = pl_relpos_embed (net->decoder.embedding, ids, n, error)))
    return FALSE;
  return run_stack (net, &net->decoder, x, memory, TRUE, want_attentions, layer_func, layer_data, NULL, cancellable,
                    progress, progress_data, error);
}

PlRelposNet *
pl_relpos_t5_new (PlModel             *model,
                  PlTransformerConfig *config,
                  GCancellable        *cancellable,
                  GError             **error)
{
  const PlRelposSpec *spec = pl_model_get_relpos (model);
  T5Net *net = g_new0 (T5Net, 1);
  g_autoptr(GError) local_error = NULL;

  net->parent.run = t5_run;
  net->parent.free = t5_free;
  net->d_model = config->hidden_size;
  net->n_heads = config->n_heads;
  net->d_kv = spec->d_kv;
  net->d_ff = config->ffn_size;
  net->gated = spec->gated;
  net->per_layer = config->family == PL_FAMILY_UMT5;
  net->n_buckets = spec->n_buckets;
  net->max_distance = spec->max_distance;
  net->eps = config->layer_norm_eps;
  net->activation = config->activation;
  net->run_decoder = g_strcmp0 (pl_model_get_stack (model), "decoder") == 0;
  net->encoder.n_layers = spec->n_encoder_layers;
  net->decoder.n_layers = spec->n_decoder_layers;
  net->decoder.decoder = TRUE;
  /* the decoder runs after the encoder: both stacks are read */
  if (!load_stack (net, model, &net->encoder, "encoder", cancellable, &local_error) ||
      (net->run_decoder && !load_stack (net, model, &net->decoder, "decoder", cancellable, &local_error)))
    {
      t5_free (&net->parent);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  config->n_layers = net->run_decoder ? net->decoder.n_layers : net->encoder.n_layers;
  config->causal = net->run_decoder;
  config->pre_ln = TRUE;
  return &net->parent;
}
