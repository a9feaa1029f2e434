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

/* The rotary-position decoders' forward pass, what Hugging Face's LlamaModel,
 * MistralModel, Qwen2Model, GemmaModel, Phi3Model, GPTNeoXModel, Qwen3Model
 * and Gemma2Model compute with output_hidden_states and output_attentions
 * (eager attention):
 *
 *   hidden_states[0] = embed(ids) (Gemma, Gemma 2: × √hidden rounded to
 *   float32, the hidden dtype here); each layer, pre-norm:
 *     a = o_proj(attention(norm1(x)));  m = mlp(norm2(·))
 *     x = x + a, then x + m        (GPT-NeoX use_parallel_residual: x + a + mlp(norm2(x));
 *                                   Gemma 2: x + post_norm(a), then + post_norm(m))
 *   Qwen 3 RMSNorms each query and key head before the rotation; Gemma 2
 *   scales the scores by query_pre_attn_scalar^−½ and caps them,
 *   cap · tanh(s / cap), before the mask.
 *   hidden_states[k] is layer k's input for k < L; hidden_states[L] is the
 *   final norm of the last layer's output (HF appends the normed state and
 *   never the un-normed one).
 *
 * Conventions, each where it is implemented: rotate-half pairs (pl-rope.c:
 * dims d and d + rot/2 of a head turn together, not neighbours); grouped
 * query heads (attention below: query head h reads key/value head
 * h / (heads / kv_heads), as HF's repeat_kv expands them); the fused
 * layouts (pl-model-decoder.c: Phi-3 rows q | k | v, GPT-NeoX per head). */

void
pl_transformer_clear_decoder (PlTransformer *self)
{
  for (guint l = 0; self->decoder_layers != NULL && l < self->config.n_layers; l++)
    {
      PlDecoderLayer *w = &self->decoder_layers[l];

      g_clear_pointer (&w->q_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->k_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->v_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->qkv_b, pl_matrix_unref);
      g_clear_pointer (&w->out_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->out_b, pl_matrix_unref);
      g_clear_pointer (&w->norm1_w, pl_matrix_unref);
      g_clear_pointer (&w->norm1_b, pl_matrix_unref);
      g_clear_pointer (&w->norm2_w, pl_matrix_unref);
      g_clear_pointer (&w->norm2_b, pl_matrix_unref);
      g_clear_pointer (&w->gate_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->up_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->up_b, pl_matrix_unref);
      g_clear_pointer (&w->down_w, pl_stored_matrix_unref);
      g_clear_pointer (&w->down_b, pl_matrix_unref);
      g_clear_pointer (&w->q_norm_w, pl_matrix_unref);
      g_clear_pointer (&w->k_norm_w, pl_matrix_unref);
      g_clear_pointer (&w->post_attn_w, pl_matrix_unref);
      g_clear_pointer (&w->post_ffn_w, pl_matrix_unref);
      g_clear_pointer (&w->router_w, pl_stored_matrix_unref);
      for (guint e = 0; e < self->config.decoder.n_experts; e++)
        {
          if (w->expert_up != NULL)
            g_clear_pointer (&w->expert_up[e], pl_stored_matrix_unref);
          if (w->expert_down != NULL)
            g_clear_pointer (&w->expert_down[e], pl_stored_matrix_unref);
        }
      g_clear_pointer (&w->expert_up, g_free);
      g_clear_pointer (&w->expert_down, g_free);
      g_clear_error (&w->problem);
      g_mutex_clear (&w->lock);
    }
  g_clear_pointer (&self->decoder_layers, g_free);
  g_clear_pointer (&self->token_embedding_stored, pl_stored_matrix_unref);
  g_clear_pointer (&self->layer_windows, g_free);
  g_clear_pointer (&self->layer_experts, g_free);
}

static const char *
role_name (PlWeight weight)
{
  switch (weight)
    {
    case PL_WEIGHT_TOKEN_EMBEDDING: return "token embedding";
    case PL_WEIGHT_Q_WEIGHT: return "query weight";
    case PL_WEIGHT_Q_BIAS: return "query bias";
    case PL_WEIGHT_K_WEIGHT: return "key weight";
    case PL_WEIGHT_K_BIAS: return "key bias";
    case PL_WEIGHT_V_WEIGHT: return "value weight";
    case PL_WEIGHT_V_BIAS: return "value bias";
    case PL_WEIGHT_ATTN_OUT_WEIGHT: return "attention output weight";
    case PL_WEIGHT_ATTN_OUT_BIAS: return "attention output bias";
    case PL_WEIGHT_LN1_WEIGHT: return "norm before attention";
    case PL_WEIGHT_LN1_BIAS: return "norm bias before attention";
    case PL_WEIGHT_LN2_WEIGHT: return "norm before the feed-forward";
    case PL_WEIGHT_LN2_BIAS: return "norm bias before the feed-forward";
    case PL_WEIGHT_FFN_GATE_WEIGHT: return "feed-forward gate weight";
    case PL_WEIGHT_FFN_GATE_BIAS: return "feed-forward gate bias";
    case PL_WEIGHT_FFN_IN_WEIGHT: return "feed-forward input weight";
    case PL_WEIGHT_FFN_IN_BIAS: return "feed-forward input bias";
    case PL_WEIGHT_FFN_OUT_WEIGHT: return "feed-forward output weight";
    case PL_WEIGHT_FFN_OUT_BIAS: return "feed-forward output bias";
    case PL_WEIGHT_FINAL_LN_WEIGHT: return "final norm";
    case PL_WEIGHT_FINAL_LN_BIAS: return "final norm bias";
    case PL_WEIGHT_Q_NORM_WEIGHT: return "query norm";
    case PL_WEIGHT_K_NORM_WEIGHT: return "key norm";
    case PL_WEIGHT_POST_ATTN_LN_WEIGHT: return "norm after attention";
    case PL_WEIGHT_POST_FFN_LN_WEIGHT: return "norm after the feed-forward";
    case PL_WEIGHT_ROUTER_WEIGHT: return "expert router";
    case PL_WEIGHT_EXPERT_GATE_WEIGHT: return "stacked expert gate weight";
    case PL_WEIGHT_EXPERT_UP_WEIGHT: return "stacked expert input weight";
    case PL_WEIGHT_EXPERT_DOWN_WEIGHT: return "stacked expert output weight";
    default: return "weight";
    }
}

/* WEIGHT of LAYER (−1: the model's), checked to be ROWS × COLS; its values
 * are checked where it is first used (check_finite). */
static PlStoredMatrix *
load (PlStoredWeightFunc   func,
      gpointer             data,
      PlWeight             weight,
      int                  layer,
      gsize                rows,
      gsize                cols,
      GError             **error)
{
  g_autoptr(PlStoredMatrix) m = NULL;
  g_autofree char *where = layer >= 0 ? g_strdup_printf (" of layer %d", layer) : g_strdup ("");
  GError *local_error = NULL;

  if (!(m = func (weight, layer, data, &local_error)))
    {
      if (local_error == NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "the model has no %s%s", role_name (weight), where);
      else
        g_propagate_error (error, local_error);
      return NULL;
    }
  if (m->rows != rows || m->cols != cols)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "the %s%s is %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " but the configuration asks for %"
                   G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT,
                   role_name (weight), where, m->rows, m->cols, rows, cols);
      return NULL;
    }
  return g_steal_pointer (&m);
}

gboolean
pl_decoder_not_finite (PlWeight   weight,
                       int        layer,
                       GError   **error)
{
  g_autofree char *where = layer >= 0 ? g_strdup_printf (" of layer %d", layer) : g_strdup ("");

  g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "the %s%s holds NaN or infinite values",
               role_name (weight), where);
  return FALSE;
}

/* A vector, checked to be finite at once (it is small). */
static PlMatrix *
load_vector (PlStoredWeightFunc   func,
             gpointer             data,
             PlWeight             weight,
             int                  layer,
             gsize                n,
             GError             **error)
{
  g_autoptr(PlStoredMatrix) m = load (func, data, weight, layer, 1, n, error);

  if (m == NULL)
    return NULL;
  if (!pl_stored_matrix_all_finite (m))
    {
      pl_decoder_not_finite (weight, layer, error);
      return NULL;
    }
  return pl_stored_matrix_to_matrix (m, error);
}

/* PARTS' rows one after the other, in one precision (float32 if theirs
 * differ). */
static PlStoredMatrix *
stack_rows (PlStoredMatrix **parts,
            guint            n_parts,
            GError         **error)
{
  PlStoredType type = parts[0]->type;
  gsize rows = 0, cols = parts[0]->cols, done = 0;
  PlStoredMatrix *out;

  for (guint i = 0; i < n_parts; i++)
    {
      rows += parts[i]->rows;
      if (parts[i]->type != type)
        type = PL_STORED_F32;
    }
  if (!(out = pl_stored_matrix_try_new (type, rows, cols, error)))
    return NULL;
  for (guint i = 0; i < n_parts; i++)
    {
      if (parts[i]->type == type)
        memcpy (pl_stored_matrix_row (out, done), parts[i]->data,
                parts[i]->rows * pl_stored_type_row_bytes (type, cols));
      else
        pl_stored_matrix_to_float (parts[i], 0, parts[i]->rows, (float *) pl_stored_matrix_row (out, done));
      done += parts[i]->rows;
    }
  return out;
}

/* ROWS rows of M from row FIRST on, a copy. */
static PlStoredMatrix *
slice_rows (const PlStoredMatrix  *m,
            gsize                  first,
            gsize                  rows,
            GError               **error)
{
  PlStoredMatrix *out = pl_stored_matrix_try_new (m->type, rows, m->cols, error);

  if (out != NULL)
    memcpy (out->data, pl_stored_matrix_row (m, first), rows * m->cols * pl_stored_type_size (m->type));
  return out;
}

/* The biases of WEIGHTS (each a weight whose bias follows it in PlWeight),
 * of ROWS values each, side by side. */
static gboolean
load_biases (PlStoredWeightFunc   func,
             gpointer             data,
             guint                layer,
             const PlWeight      *weights,
             const gsize         *rows,
             guint                n_parts,
             PlMatrix           **out,
             GError             **error)
{
  gsize total = 0;

  for (guint i = 0; i < n_parts; i++)
    total += rows[i];
  *out = pl_matrix_new (1, total);
  total = 0;
  for (guint i = 0; i < n_parts; i++)
    {
      g_autoptr(PlMatrix) b = load_vector (func, data, weights[i] + 1, layer, rows[i], error);

      if (b == NULL)
        return FALSE;
      memcpy ((*out)->data + total, b->data, rows[i] * sizeof (float));
      total += rows[i];
    }
  return TRUE;
}

/* A norm's weight (and, for LayerNorm, bias); Gemma's RMSNorm multiplies
 * by 1 + w, added here once in float32 as HF adds it. */
static gboolean
load_norm (PlTransformer       *self,
           PlStoredWeightFunc   func,
           gpointer             data,
           PlWeight             weight,
           int                  layer,
           PlMatrix           **w_out,
           PlMatrix           **b_out,
           GError             **error)
{
  const PlRotaryDecoderSpec *d = &self->config.decoder;
  gsize h = self->config.hidden_size;

  if (!(*w_out = load_vector (func, data, weight, layer, h, error)))
    return FALSE;
  if (d->norm == PL_NORM_RMS_PLUS_ONE)
    for (gsize j = 0; j < h; j++)
      (*w_out)->data[j] = 1.0f + (*w_out)->data[j];
  if (d->norm == PL_NORM_LAYER && !(*b_out = load_vector (func, data, weight + 1, layer, h, error)))
    return FALSE;
  return TRUE;
}

/* *W replaced by the copy pl_stored_gemm multiplies by fastest (BF16 in
 * AMX tile order, packed once here rather than on every product), the
 * stored one dropped: the layer's weights are held once. */
static gboolean
prepare (PlStoredMatrix **w,
         GCancellable    *cancellable,
         GError         **error)
{
  PlStoredMatrix *ready = pl_stored_gemm_prepare (*w, cancellable, error);

  if (ready == NULL)
    return FALSE;
  pl_stored_matrix_unref (*w);
  *w = ready;
  return TRUE;
}

/* A mixture of experts' layer: the router, and each expert's gate and up
 * rows stacked (as a dense gated feed-forward's) and its down rows, cut
 * out of the experts' weights one after the other. */
static gboolean
load_experts (PlTransformer       *self,
              PlStoredWeightFunc   func,
              gpointer             data,
              guint                l,
              GCancellable        *cancellable,
              GError             **error)
{
  const PlRotaryDecoderSpec *d = &self->config.decoder;
  PlDecoderLayer *w = &self->decoder_layers[l];
  gsize h = self->config.hidden_size, n = d->n_experts, f = d->expert_ffn;
  g_autoptr(PlStoredMatrix) gates = NULL;
  g_autoptr(PlStoredMatrix) ups = NULL;
  g_autoptr(PlStoredMatrix) downs = NULL;

  if (!(w->router_w = load (func, data, PL_WEIGHT_ROUTER_WEIGHT, l, n, h, error)) ||
      !(gates = load (func, data, PL_WEIGHT_EXPERT_GATE_WEIGHT, l, n * f, h, error)) ||
      !(ups = load (func, data, PL_WEIGHT_EXPERT_UP_WEIGHT, l, n * f, h, error)) ||
      !(downs = load (func, data, PL_WEIGHT_EXPERT_DOWN_WEIGHT, l, n * h, f, error)) ||
      !prepare (&w->router_w, cancellable, error))
    return FALSE;
  w->expert_up = g_new0 (PlStoredMatrix *, n);
  w->expert_down = g_new0 (PlStoredMatrix *, n);
  for (gsize e = 0; e < n; e++)
    {
      PlStoredMatrix *parts[2] = { NULL, NULL };
      gboolean ok;

      ok = (parts[0] = slice_rows (gates, e * f, f, error)) != NULL &&
           (parts[1] = slice_rows (ups, e * f, f, error)) != NULL &&
           (w->expert_up[e] = stack_rows (parts, 2, error)) != NULL;
      g_clear_pointer (&parts[0], pl_stored_matrix_unref);
      g_clear_pointer (&parts[1], pl_stored_matrix_unref);
      if (!ok || !(w->expert_down[e] = slice_rows (downs, e * h, h, error)) ||
          !prepare (&w->expert_up[e], cancellable, error) || !prepare (&w->expert_down[e], cancellable, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
load_decoder_layer (PlTransformer       *self,
                    PlStoredWeightFunc   func,
                    gpointer             data,
                    guint                l,
                    GCancellable        *cancellable,
                    GError             **error)
{
  const PlTransformerConfig *c = &self->config;
  const PlRotaryDecoderSpec *d = &c->decoder;
  PlDecoderLayer *w = &self->decoder_layers[l];
  gsize h = c->hidden_size, f = c->ffn_size;
  gsize q = (gsize) c->n_heads * d->head_dim, kv = (gsize) d->n_kv_heads * d->head_dim;
  static const PlWeight qkv[] = { PL_WEIGHT_Q_WEIGHT, PL_WEIGHT_K_WEIGHT, PL_WEIGHT_V_WEIGHT };
  static const PlWeight gate_up[] = { PL_WEIGHT_FFN_GATE_WEIGHT, PL_WEIGHT_FFN_IN_WEIGHT };
  const gsize qkv_rows[] = { q, kv, kv };
  const gsize gate_up_rows[] = { f, f };

  if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
      !load_norm (self, func, data, PL_WEIGHT_LN1_WEIGHT, l, &w->norm1_w, &w->norm1_b, error) ||
      !load_norm (self, func, data, PL_WEIGHT_LN2_WEIGHT, l, &w->norm2_w, &w->norm2_b, error) ||
      (d->post_norms &&
       (!load_norm (self, func, data, PL_WEIGHT_POST_ATTN_LN_WEIGHT, l, &w->post_attn_w, NULL, error) ||
        !load_norm (self, func, data, PL_WEIGHT_POST_FFN_LN_WEIGHT, l, &w->post_ffn_w, NULL, error))) ||
      (d->qk_norm &&
       (!(w->q_norm_w = load_vector (func, data, PL_WEIGHT_Q_NORM_WEIGHT, l, d->head_dim, error)) ||
        !(w->k_norm_w = load_vector (func, data, PL_WEIGHT_K_NORM_WEIGHT, l, d->head_dim, error)))) ||
      !(w->q_w = load (func, data, PL_WEIGHT_Q_WEIGHT, l, q, h, error)) ||
      !(w->k_w = load (func, data, PL_WEIGHT_K_WEIGHT, l, kv, h, error)) ||
      !(w->v_w = load (func, data, PL_WEIGHT_V_WEIGHT, l, kv, h, error)) ||
      (d->qkv_bias && !load_biases (func, data, l, qkv, qkv_rows, 3, &w->qkv_b, error)) ||
      !(w->out_w = load (func, data, PL_WEIGHT_ATTN_OUT_WEIGHT, l, h, q, error)) ||
      (d->out_bias && !(w->out_b = load_vector (func, data, PL_WEIGHT_ATTN_OUT_BIAS, l, h, error))))
    return FALSE;
  if (self->layer_experts != NULL && self->layer_experts[l])
    return load_experts (self, func, data, l, cancellable, error);
  if (d->gated_mlp)
    {
      if (!(w->gate_w = load (func, data, PL_WEIGHT_FFN_GATE_WEIGHT, l, f, h, error)) ||
          !(w->up_w = load (func, data, PL_WEIGHT_FFN_IN_WEIGHT, l, f, h, error)) ||
          (d->mlp_bias && !load_biases (func, data, l, gate_up, gate_up_rows, 2, &w->up_b, error)))
        return FALSE;
    }
  else if (!(w->up_w = load (func, data, PL_WEIGHT_FFN_IN_WEIGHT, l, f, h, error)) ||
           (d->mlp_bias && !(w->up_b = load_vector (func, data, PL_WEIGHT_FFN_IN_BIAS, l, f, error))))
    return FALSE;
  if (!(w->down_w = load (func, data, PL_WEIGHT_FFN_OUT_WEIGHT, l, h, f, error)) ||
      (d->mlp_bias && !(w->down_b = load_vector (func, data, PL_WEIGHT_FFN_OUT_BIAS, l, h, error))))
    return FALSE;
  return TRUE;
}

/* The finiteness check of a layer's weights, in pieces of CHECK_BYTES over
 * the executor's threads: the first time the file's bytes are read. */
#define CHECK_BYTES ((gsize) 2 << 20)

typedef struct
{
  GPtrArray *w;             /* the layer's PlStoredMatrix */
  GArray    *role;          /* PlWeight of each */
  GArray    *first_piece;   /* guint: where each weight's pieces start, and the end */
  GArray    *rows_per_piece;
  gint      *bad;
} FiniteJob;

static void
check_piece (guint    piece,
             guint    slot,
             gpointer data)
{
  FiniteJob *job = data;
  guint i = 0;
  gsize first, rows, per;
  PlStoredMatrix *m;

  while (piece >= g_array_index (job->first_piece, guint, i + 1))
    i++;
  m = job->w->pdata[i];
  per = g_array_index (job->rows_per_piece, gsize, i);
  first = (piece - g_array_index (job->first_piece, guint, i)) * per;
  rows = MIN (per, m->rows - first);
  if (!pl_stored_matrix_rows_finite (m, first, rows))
    g_atomic_int_set (&job->bad[i], 1);
}

static void
add_check (FiniteJob      *job,
           PlStoredMatrix *m,
           PlWeight        role)
{
  gsize per;
  guint end;

  if (m == NULL || m->rows == 0 || m->cols == 0)
    return;
  per = MAX (CHECK_BYTES / MAX (pl_stored_type_row_bytes (m->type, m->cols), 1), 1);
  end = g_array_index (job->first_piece, guint, job->w->len) + (guint) ((m->rows + per - 1) / per);
  g_ptr_array_add (job->w, m);
  g_array_append_val (job->role, role);
  g_array_append_val (job->rows_per_piece, per);
  g_array_append_val (job->first_piece, end);
}

static gboolean
check_finite (PlTransformer   *self,
              PlDecoderLayer  *w,
              int              layer,
              GError         **error)
{
  FiniteJob job;
  guint zero = 0;
  gboolean ok = TRUE;

  job.w = g_ptr_array_new ();
  job.role = g_array_new (FALSE, FALSE, sizeof (PlWeight));
  job.first_piece = g_array_new (FALSE, FALSE, sizeof (guint));
  job.rows_per_piece = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_array_append_val (job.first_piece, zero);
  add_check (&job, w->q_w, PL_WEIGHT_Q_WEIGHT);
  add_check (&job, w->k_w, PL_WEIGHT_K_WEIGHT);
  add_check (&job, w->v_w, PL_WEIGHT_V_WEIGHT);
  add_check (&job, w->out_w, PL_WEIGHT_ATTN_OUT_WEIGHT);
  add_check (&job, w->gate_w, PL_WEIGHT_FFN_GATE_WEIGHT);
  add_check (&job, w->up_w, PL_WEIGHT_FFN_IN_WEIGHT);
  add_check (&job, w->down_w, PL_WEIGHT_FFN_OUT_WEIGHT);
  add_check (&job, w->router_w, PL_WEIGHT_ROUTER_WEIGHT);
  for (guint e = 0; w->expert_up != NULL && e < self->config.decoder.n_experts; e++)
    {
      add_check (&job, w->expert_up[e], PL_WEIGHT_EXPERT_UP_WEIGHT);
      add_check (&job, w->expert_down[e], PL_WEIGHT_EXPERT_DOWN_WEIGHT);
    }
  job.bad = g_new0 (gint, job.w->len);
  pl_executor_for (pl_executor_get_default (), g_array_index (job.first_piece, guint, job.w->len), check_piece,
                   &job);
  for (guint i = 0; i < job.w->len && ok; i++)
    if (job.bad[i])
      ok = pl_decoder_not_finite (g_array_index (job.role, PlWeight, i), layer, error);
  g_ptr_array_unref (job.w);
  g_array_unref (job.role);
  g_array_unref (job.first_piece);
  g_array_unref (job.rows_per_piece);
  g_free (job.bad);
  return ok;
}

gboolean
pl_transformer_prepare_decoder_layer (PlTransformer  *self,
                                      guint           l,
                                      GCancellable   *cancellable,
                                      GError        **error)
{
  PlDecoderLayer *w = &self->decoder_layers[l];
  PlStoredMatrix **weights[] = { &w->q_w, &w->k_w, &w->v_w, &w->out_w, &w->gate_w, &w->up_w, &w->down_w };
  g_autoptr(GMutexLocker) locker = NULL;
  GError *local_error = NULL;

  if (g_atomic_int_get (&w->prepared))
    return TRUE;
  locker = g_mutex_locker_new (&w->lock);
  if (w->problem != NULL)
    {
      g_propagate_error (error, g_error_copy (w->problem));
      return FALSE;
    }
  if (w->prepared)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  /* What is wrong with the weights is kept and said every time; a
   * cancelled preparation is done again by the next pass that asks. */
  if (!check_finite (self, w, (int) l, &w->problem))
    {
      g_propagate_error (error, g_error_copy (w->problem));
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (weights); i++)
    if (*weights[i] != NULL && !prepare (weights[i], cancellable, &local_error))
      {
        if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
          w->problem = g_error_copy (local_error);
        g_propagate_error (error, local_error);
        return FALSE;
      }
  g_atomic_int_set (&w->prepared, TRUE);
  return TRUE;
}

static gboolean
check_config (const PlTransformerConfig  *c,
              GError                    **error)
{
  const PlRotaryDecoderSpec *d = &c->decoder;

  if (c->hidden_size == 0 || c->n_heads == 0 || c->n_layers == 0 || c->ffn_size == 0 ||
      c->vocab_size == 0 || c->n_positions == 0 || d->head_dim == 0 || d->n_kv_heads == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the model configuration lacks a size (hidden %u, heads %u, key/value heads %u, head size %u, "
                   "layers %u, feed-forward %u, vocabulary %u, positions %u)",
                   c->hidden_size, c->n_heads, d->n_kv_heads, d->head_dim, c->n_layers, c->ffn_size,
                   c->vocab_size, c->n_positions);
      return FALSE;
    }
  if (c->n_heads % d->n_kv_heads != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%u key/value heads do not divide %u attention heads", d->n_kv_heads, c->n_heads);
      return FALSE;
    }
  if (d->rope.dim == 0 || d->rope.dim % 2 != 0 || d->rope.dim > d->head_dim)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%u rotated dims do not fit heads of %u", d->rope.dim, d->head_dim);
      return FALSE;
    }
  if (d->layer_experts != NULL && d->n_experts > 0 &&
      (d->n_experts_per_token == 0 || d->n_experts_per_token > d->n_experts || d->expert_ffn == 0))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%u experts, %u of them per token, of %u wide: not a mixture of experts",
                   d->n_experts, d->n_experts_per_token, d->expert_ffn);
      return FALSE;
    }
  if (!(d->attention_scale >= 0) || !isfinite (d->attention_scale) ||
      !(d->attention_softcap >= 0) || !isfinite (d->attention_softcap))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the attention scale %g or score cap %g is not a number of 0 or above",
                   d->attention_scale, d->attention_softcap);
      return FALSE;
    }
  if (c->activation == PL_ACTIVATION_NONE || !(c->layer_norm_eps > 0))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the model configuration names no activation or a bad norm epsilon");
      return FALSE;
    }
  return TRUE;
}

PlTransformer *
pl_transformer_new_decoder (const PlTransformerConfig  *config,
                            PlStoredWeightFunc          func,
                            gpointer                    data,
                            GCancellable               *cancellable,
                            GError                    **error)
{
  g_autoptr(PlTransformer) self = NULL;
  PlTransformerConfig *c;
  gsize h;

  g_return_val_if_fail (config != NULL && config->rotary, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  if (!check_config (config, error))
    return NULL;
  self = g_object_new (PL_TYPE_TRANSFORMER, NULL);
  self->config = *config;
  c = &self->config;
  h = c->hidden_size;
  c->embedding_size = h;
  c->first_position = 0;
  c->pre_ln = TRUE;
  c->causal = TRUE;
  if (config->decoder.layer_windows != NULL)
    self->layer_windows = g_memdup2 (config->decoder.layer_windows, c->n_layers * sizeof (guint));
  c->decoder.layer_windows = self->layer_windows;
  if (config->decoder.layer_experts != NULL && config->decoder.n_experts > 0)
    self->layer_experts = g_memdup2 (config->decoder.layer_experts, c->n_layers * sizeof (gboolean));
  c->decoder.layer_experts = self->layer_experts;

  if (!(self->token_embedding_stored = load (func, data, PL_WEIGHT_TOKEN_EMBEDDING, -1, c->vocab_size, h, error)))
    return NULL;
  if (!(self->final_ln_w = load_vector (func, data, PL_WEIGHT_FINAL_LN_WEIGHT, -1, h, error)))
    return NULL;
  if (c->decoder.norm == PL_NORM_RMS_PLUS_ONE)
    for (gsize j = 0; j < h; j++)
      self->final_ln_w->data[j] = 1.0f + self->final_ln_w->data[j];
  if (c->decoder.norm == PL_NORM_LAYER &&
      !(self->final_ln_b = load_vector (func, data, PL_WEIGHT_FINAL_LN_BIAS, -1, h, error)))
    return NULL;

  self->decoder_layers = g_new0 (PlDecoderLayer, c->n_layers);
  for (guint l = 0; l < c->n_layers; l++)
    g_mutex_init (&self->decoder_layers[l].lock);
  for (guint l = 0; l < c->n_layers; l++)
    if (!load_decoder_layer (self, func, data, l, cancellable, error))
      return NULL;
  return g_steal_pointer (&self);
}
