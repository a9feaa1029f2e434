/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-relpos.h"
#include "pl-stored-gemm.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"
#include "pl-transformer-relpos.h"

/* DeBERTa-v2's and v3's forward pass, what Hugging Face's DebertaV2Model
 * computes with output_hidden_states and output_attentions
 * (modeling_deberta_v2.py): a post-LN encoder whose attention is
 * disentangled, content and position apart.
 *
 *   embeddings: word (+ position, when position_biased_input) (+ token type
 *   0, when type_vocab_size > 0), through embed_proj when embedding_size is
 *   not the hidden size, then LayerNorm: hidden_states[0];
 *   R = rel_embeddings (2 span rows), through encoder.LayerNorm when
 *   norm_rel_ebd says layer_norm;
 *   each layer: q, k, v = x Wᵀ + b; the relative position of query i and
 *   key j is the bucket δ(i, j) of i − j (make_log_bucket_position), its
 *   row r(i, j) = clamp(δ + span, 0, 2 span − 1);
 *     score(i, j) = [q_i·k_j + c2p q_i·Kr_{r(i,j)} + p2c k_j·Qr_{r(i,j)}] / √(d · s)
 *   with Kr, Qr the rows of R through the key and query projections
 *   (share_att_key) or pos_key_proj and pos_query_proj, s = 1 + the terms
 *   pos_att_type names; softmax; a = LN(x + dense(context));
 *   x = LN(a + output(act(intermediate(a)))). hidden_states[k] is layer k's
 *   output.
 *
 * The position terms enter each head's scores through pl_attention_heads's
 * bias hook: per head, C2P = Q Krᵀ and P2C = K Qrᵀ ([T, 2 span] each) are
 * computed once per layer and gathered at r(i, j). */

typedef struct
{
  PlStoredMatrix *q, *k, *v, *pos_q, *pos_k;   /* pos_*: without share_att_key */
  PlMatrix       *q_b, *k_b, *v_b, *pos_q_b, *pos_k_b;
  PlStoredMatrix *out;
  PlMatrix       *out_b, *ln1_w, *ln1_b;
  PlStoredMatrix *inter;
  PlMatrix       *inter_b;
  PlStoredMatrix *output;
  PlMatrix       *output_b, *ln2_w, *ln2_b;
} Layer;

typedef struct
{
  PlRelposNet     parent;
  guint           hidden;
  guint           embedding_size;
  guint           n_heads;
  guint           head_size;
  guint           n_layers;
  guint           ffn;
  guint           span;
  guint           buckets;
  guint           max_relative;
  gboolean        c2p;
  gboolean        p2c;
  gboolean        share_att_key;
  double          eps;
  PlActivation    activation;
  PlStoredMatrix *word;
  PlMatrix       *position;        /* or NULL */
  PlMatrix       *type0;           /* token type 0's row, or NULL */
  PlStoredMatrix *embed_proj;      /* or NULL */
  PlMatrix       *embed_ln_w, *embed_ln_b;
  PlMatrix       *rel;             /* [2 span, hidden], normed when norm_rel_ebd */
  Layer          *layers;
} DebertaNet;

/* What the bias hook reads for one layer. */
typedef struct
{
  const float *c2p;     /* [heads, T, 2 span], or NULL */
  const float *p2c;
  const int   *rows;    /* [T, T]: r(i, j) */
  gsize        width;   /* 2 span */
  float        scale;
} Terms;

static void
layer_clear (Layer *l)
{
  PlStoredMatrix **stored[] = { &l->q, &l->k, &l->v, &l->pos_q, &l->pos_k, &l->out, &l->inter, &l->output };
  PlMatrix **plain[] = { &l->q_b, &l->k_b, &l->v_b, &l->pos_q_b, &l->pos_k_b, &l->out_b, &l->ln1_w, &l->ln1_b,
                         &l->inter_b, &l->output_b, &l->ln2_w, &l->ln2_b };

  for (guint i = 0; i < G_N_ELEMENTS (stored); i++)
    g_clear_pointer (stored[i], pl_stored_matrix_unref);
  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    g_clear_pointer (plain[i], pl_matrix_unref);
}

static void
deberta_free (PlRelposNet *parent)
{
  DebertaNet *net = (DebertaNet *) parent;

  for (guint l = 0; net->layers != NULL && l < net->n_layers; l++)
    layer_clear (&net->layers[l]);
  g_free (net->layers);
  g_clear_pointer (&net->word, pl_stored_matrix_unref);
  g_clear_pointer (&net->position, pl_matrix_unref);
  g_clear_pointer (&net->type0, pl_matrix_unref);
  g_clear_pointer (&net->embed_proj, pl_stored_matrix_unref);
  g_clear_pointer (&net->embed_ln_w, pl_matrix_unref);
  g_clear_pointer (&net->embed_ln_b, pl_matrix_unref);
  g_clear_pointer (&net->rel, pl_matrix_unref);
  g_free (net);
}

static gboolean
load_linear (PlModel          *model,
             const char       *prefix,
             const char       *name,
             gsize             rows,
             gsize             cols,
             PlStoredMatrix  **w,
             PlMatrix        **b,
             GCancellable     *cancellable,
             GError          **error)
{
  g_autofree char *weight = g_strconcat (prefix, name, ".weight", NULL);
  g_autofree char *bias = g_strconcat (prefix, name, ".bias", NULL);

  return (*w = pl_relpos_load (model, weight, FALSE, rows, cols, cancellable, error)) != NULL &&
         (*b = pl_relpos_load_float (model, bias, FALSE, 1, rows, FALSE, error)) != NULL;
}

static gboolean
load_norm (PlModel     *model,
           const char  *name,
           gsize        n,
           PlMatrix   **w,
           PlMatrix   **b,
           GError     **error)
{
  g_autofree char *weight = g_strconcat (name, ".weight", NULL);
  g_autofree char *bias = g_strconcat (name, ".bias", NULL);

  return (*w = pl_relpos_load_float (model, weight, FALSE, 1, n, FALSE, error)) != NULL &&
         (*b = pl_relpos_load_float (model, bias, FALSE, 1, n, FALSE, error)) != NULL;
}

static gboolean
load (DebertaNet    *net,
      PlModel       *model,
      gboolean       position_biased_input,
      gboolean       norm_rel_ebd,
      GCancellable  *cancellable,
      GError       **error)
{
  gsize h = net->hidden, e = net->embedding_size, a = (gsize) net->n_heads * net->head_size, f = net->ffn;
  g_autoptr(PlMatrix) types = NULL;
  GError *local_error = NULL;

  if (!(net->word = pl_model_read_named_stored (model, "embeddings.word_embeddings.weight", FALSE, FALSE, error)))
    return FALSE;
  if (net->word->cols != e || !pl_stored_matrix_all_finite (net->word))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the word embeddings are %" G_GSIZE_FORMAT " wide or hold "
                   "NaN, not %u wide (embedding_size)", pl_checkpoint_get_path (pl_model_get_checkpoint (model)),
                   net->word->cols, net->embedding_size);
      return FALSE;
    }
  if (position_biased_input &&
      !(net->position = pl_relpos_load_float (model, "embeddings.position_embeddings.weight", FALSE, 0, e, FALSE,
                                              error)))
    return FALSE;
  types = pl_relpos_load_float (model, "embeddings.token_type_embeddings.weight", FALSE, 0, e, TRUE, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (types != NULL && types->rows > 0)
    net->type0 = pl_matrix_slice_rows (types, 0, 1);
  if (e != h && !(net->embed_proj = pl_relpos_load (model, "embeddings.embed_proj.weight", FALSE, h, e, cancellable,
                                                     error)))
    return FALSE;
  if (!load_norm (model, "embeddings.LayerNorm", h, &net->embed_ln_w, &net->embed_ln_b, error) ||
      !(net->rel = pl_relpos_load_float (model, "encoder.rel_embeddings.weight", FALSE, 2 * net->span, h, FALSE,
                                         error)))
    return FALSE;
  if (norm_rel_ebd)
    {
      g_autoptr(PlMatrix) w = NULL;
      g_autoptr(PlMatrix) b = NULL;

      if (!load_norm (model, "encoder.LayerNorm", h, &w, &b, error))
        return FALSE;
      pl_kernel_layer_norm (net->rel->data, net->rel->data, net->rel->rows, h, w->data, b->data, net->eps);
    }

  net->layers = g_new0 (Layer, net->n_layers);
  for (guint l = 0; l < net->n_layers; l++)
    {
      Layer *L = &net->layers[l];
      g_autofree char *p = g_strdup_printf ("encoder.layer.%u.", l);
      g_autofree char *ln1 = g_strconcat (p, "attention.output.LayerNorm", NULL);
      g_autofree char *ln2 = g_strconcat (p, "output.LayerNorm", NULL);

      if (!load_linear (model, p, "attention.self.query_proj", a, h, &L->q, &L->q_b, cancellable, error) ||
          !load_linear (model, p, "attention.self.key_proj", a, h, &L->k, &L->k_b, cancellable, error) ||
          !load_linear (model, p, "attention.self.value_proj", a, h, &L->v, &L->v_b, cancellable, error) ||
          (!net->share_att_key && net->c2p &&
           !load_linear (model, p, "attention.self.pos_key_proj", a, h, &L->pos_k, &L->pos_k_b, cancellable, error)) ||
          (!net->share_att_key && net->p2c &&
           !load_linear (model, p, "attention.self.pos_query_proj", a, h, &L->pos_q, &L->pos_q_b, cancellable,
                         error)) ||
          !load_linear (model, p, "attention.output.dense", h, a, &L->out, &L->out_b, cancellable, error) ||
          !load_norm (model, ln1, h, &L->ln1_w, &L->ln1_b, error) ||
          !load_linear (model, p, "intermediate.dense", f, h, &L->inter, &L->inter_b, cancellable, error) ||
          !load_linear (model, p, "output.dense", h, f, &L->output, &L->output_b, cancellable, error) ||
          !load_norm (model, ln2, h, &L->ln2_w, &L->ln2_b, error))
        return FALSE;
    }
  return TRUE;
}

/* The position terms of one head, gathered at r(i, j), times the scale. */
static void
add_terms (const PlAttentionHeads *job,
           gsize                     head,
           gsize                     i0,
           gsize                     n_rows,
           gsize                     j0,
           gsize                     n_keys,
           float                    *scores,
           gsize                     ld)
{
  const Terms *terms = job->bias_data;
  gsize t = job->n_tokens, w = terms->width;
  const float *c2p = terms->c2p ? terms->c2p + head * t * w : NULL;
  const float *p2c = terms->p2c ? terms->p2c + head * t * w : NULL;

  for (gsize r = 0; r < n_rows; r++)
    {
      gsize i = i0 + r;
      const int *rows = terms->rows + i * t;

      for (gsize c = 0; c < n_keys; c++)
        {
          gsize j = j0 + c, k = (gsize) rows[j];
          float v = 0;

          if (c2p != NULL)
            v += c2p[i * w + k];
          if (p2c != NULL)
            v += p2c[j * w + k];
          scores[r * ld + c] += v * terms->scale;
        }
    }
}

/* For each head, OUT_h [T, 2 span] = X_h [T, d] · P_hᵀ, X_h and P_h the head's
 * columns of X [T, heads · d] and P [2 span, heads · d]. */
static void
per_head_products (const DebertaNet *net,
                   const float      *x,
                   gsize             x_stride,
                   const PlMatrix   *p,
                   gsize             t,
                   float            *out)
{
  gsize d = net->head_size, w = p->rows;

  for (guint h = 0; h < net->n_heads; h++)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, t, w, d, 1.0f, x + h * d, x_stride,
                 p->data + h * d, p->cols, 0.0f, out + (gsize) h * t * w, w);
}

static gboolean
deberta_run (PlTransformer   *transformer,
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
  DebertaNet *net = (DebertaNet *) parent;
  gsize h = net->hidden, a = (gsize) net->n_heads * net->head_size, f = net->ffn, w = 2 * (gsize) net->span;
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) part = NULL;
  g_autoptr(PlMatrix) qkv = NULL;
  g_autoptr(PlMatrix) ctx = NULL;
  g_autoptr(PlMatrix) attn = NULL;
  g_autoptr(PlMatrix) inner = NULL;
  g_autoptr(PlMatrix) pos_q = NULL;
  g_autoptr(PlMatrix) pos_k = NULL;
  g_autofree float *c2p = NULL;
  g_autofree float *p2c = NULL;
  g_autofree int *rows = NULL;
  float scale;
  Terms terms;

  if (!(part = pl_matrix_try_new (t, a, error)) || !(qkv = pl_matrix_try_new (t, 3 * a, error)) ||
      !(ctx = pl_matrix_try_new (t, a, error)) || !(attn = pl_matrix_try_new (t, h, error)) ||
      !(inner = pl_matrix_try_new (t, f, error)) || !(pos_q = pl_matrix_try_new (w, a, error)) ||
      !(pos_k = pl_matrix_try_new (w, a, error)) || !(x = pl_matrix_try_new (t, h, error)))
    return FALSE;
  if ((net->c2p && !(c2p = g_try_new (float, (gsize) net->n_heads * t * w))) ||
      (net->p2c && !(p2c = g_try_new (float, (gsize) net->n_heads * t * w))) ||
      !(rows = g_try_new (int, t * t)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE, "not enough memory for the relative terms of %"
                   G_GSIZE_FORMAT " tokens", t);
      return FALSE;
    }

  /* embeddings */
  {
    g_autoptr(PlMatrix) e = NULL;

    if (!(e = pl_relpos_embed (net->word, ids, t, error)))
      return FALSE;
    for (gsize i = 0; i < t; i++)
      {
        float *row = pl_matrix_row (e, i);

        for (gsize j = 0; j < e->cols; j++)
          row[j] += (net->position ? pl_matrix_row (net->position, i)[j] : 0) + (net->type0 ? net->type0->data[j] : 0);
      }
    if (net->embed_proj != NULL)
      pl_stored_gemm (e, net->embed_proj, NULL, NULL, x);
    else
      memcpy (x->data, e->data, t * h * sizeof (float));
    pl_kernel_layer_norm (x->data, x->data, t, h, net->embed_ln_w->data, net->embed_ln_b->data, net->eps);
  }
  if (layer_func != NULL)
    {
      g_autoptr(PlMatrix) copy = pl_matrix_new_from (t, h, x->data);

      if (!layer_func (0, NULL, copy, layer_data))
        return TRUE;
    }

  for (gsize i = 0; i < t; i++)
    for (gsize j = 0; j < t; j++)
      {
        int bucket = pl_deberta_bucket ((int) i - (int) j, net->buckets, net->max_relative);

        rows[i * t + j] = CLAMP (bucket + (int) net->span, 0, (int) w - 1);
      }
  /* HF: the scores over √(d · s), d and s float32 */
  scale = 1.0f / sqrtf ((float) net->head_size * (float) (1 + net->c2p + net->p2c));
  terms = (Terms) { c2p, p2c, rows, w, scale };

  for (guint l = 0; l < net->n_layers; l++)
    {
      const Layer *L = &net->layers[l];
      const PlStoredMatrix *kw = net->share_att_key ? L->k : L->pos_k;
      const PlStoredMatrix *qw = net->share_att_key ? L->q : L->pos_q;
      const PlMatrix *kb = net->share_att_key ? L->k_b : L->pos_k_b;
      const PlMatrix *qb = net->share_att_key ? L->q_b : L->pos_q_b;
      const PlStoredMatrix *proj[3] = { L->q, L->k, L->v };
      const PlMatrix *bias[3] = { L->q_b, L->k_b, L->v_b };
      g_autoptr(PlMatrix) probs = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (want_attentions && !(probs = pl_matrix_try_new ((gsize) net->n_heads * t, t, error)))
        return FALSE;

      for (guint i = 0; i < 3; i++)
        {
          pl_stored_gemm (x, proj[i], bias[i], NULL, part);
          for (gsize r = 0; r < t; r++)
            memcpy (pl_matrix_row (qkv, r) + i * a, pl_matrix_row (part, r), a * sizeof (float));
        }
      /* C2P = Q Krᵀ, P2C = K Qrᵀ per head */
      if (net->c2p)
        {
          pl_stored_gemm (net->rel, kw, kb, NULL, pos_k);
          per_head_products (net, qkv->data, qkv->cols, pos_k, t, c2p);
        }
      if (net->p2c)
        {
          pl_stored_gemm (net->rel, qw, qb, NULL, pos_q);
          per_head_products (net, qkv->data + a, qkv->cols, pos_q, t, p2c);
        }
      if (!pl_relpos_attend (qkv, net->n_heads, net->head_size, scale, FALSE,
                             net->c2p || net->p2c ? add_terms : NULL, &terms, probs, ctx, cancellable, error))
        return FALSE;
      pl_stored_gemm (ctx, L->out, L->out_b, x, attn);
      pl_kernel_layer_norm (attn->data, attn->data, t, h, L->ln1_w->data, L->ln1_b->data, net->eps);
      pl_stored_gemm (attn, L->inter, L->inter_b, NULL, inner);
      pl_kernel_activate (inner->data, t * f, net->activation);
      pl_stored_gemm (inner, L->output, L->output_b, attn, x);
      pl_kernel_layer_norm (x->data, x->data, t, h, L->ln2_w->data, L->ln2_b->data, net->eps);

      if (progress != NULL)
        progress ((double) (l + 1) / net->n_layers, progress_data);
      if (layer_func != NULL)
        {
          g_autoptr(PlMatrix) copy = pl_matrix_new_from (t, h, x->data);

          if (!layer_func (l + 1, probs, copy, layer_data))
            return TRUE;
        }
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

PlRelposNet *
pl_relpos_deberta_new (PlModel             *model,
                       PlTransformerConfig *config,
                       GCancellable        *cancellable,
                       GError             **error)
{
  const PlRelposSpec *spec = pl_model_get_relpos (model);
  DebertaNet *net = g_new0 (DebertaNet, 1);
  g_autoptr(GError) local_error = NULL;

  net->parent.run = deberta_run;
  net->parent.free = deberta_free;
  net->hidden = config->hidden_size;
  net->embedding_size = config->embedding_size;
  net->n_heads = config->n_heads;
  net->head_size = spec->head_size;
  net->n_layers = config->n_layers;
  net->ffn = config->ffn_size;
  net->span = spec->span;
  net->buckets = spec->position_buckets;
  net->max_relative = spec->max_relative;
  net->c2p = spec->c2p;
  net->p2c = spec->p2c;
  net->share_att_key = spec->share_att_key;
  net->eps = config->layer_norm_eps;
  net->activation = config->activation;
  if (!load (net, model, spec->position_biased_input, spec->norm_rel_ebd, cancellable, &local_error))
    {
      deberta_free (&net->parent);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  config->causal = FALSE;
  config->pre_ln = FALSE;
  return &net->parent;
}
