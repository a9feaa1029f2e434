/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-stored-gemm.h"
#include "pl-transformer-kernels.h"
#include "pl-transformer-private.h"

/* Qwen3MoeSparseMoeBlock on X [T, hidden] into OUT: each token's router
 * logits, their softmax (float32), its N_EXPERTS_PER_TOKEN most probable
 * experts (renormalised to sum 1 with norm_topk_prob), and OUT = Σ of
 * weight × expert(x) over them, the experts taken in order as HF's loop
 * over them adds their outputs. */
gboolean
pl_decoder_run_experts (PlTransformer        *self,
                        const PlDecoderLayer *w,
                        const PlMatrix       *x,
                        PlMatrix             *out,
                        GError              **error)
{
  const PlTransformerConfig *c = &self->config;
  const PlRotaryDecoderSpec *d = &c->decoder;
  gsize t = x->rows, h = x->cols, n = d->n_experts, k = d->n_experts_per_token, f = d->expert_ffn;
  g_autoptr(PlMatrix) probs = NULL;
  g_autofree guint *chosen = g_new (guint, t * k);
  g_autofree float *weights = g_new (float, t * k);
  g_autofree gsize *tokens = g_new (gsize, t);
  g_autofree float *token_weights = g_new (float, t);

  if (!(probs = pl_matrix_try_new (t, n, error)))
    return FALSE;
  /* The router on the plain path, float32 activations: which experts a
   * token takes must not turn on BF16 rounding (a choice is not a number
   * that moves by 2⁻⁸; pl_stored_gemm_rounds_activations). */
  pl_stored_gemm_plain (x, w->router_w, NULL, NULL, probs);
  for (gsize i = 0; i < t; i++)
    {
      float *p = pl_matrix_row (probs, i);
      float sum = 0;

      pl_kernel_softmax_row (p, n, n);
      /* torch.topk: the largest first, and of equals the lower expert */
      for (gsize j = 0; j < k; j++)
        {
          gsize best = n;

          for (gsize e = 0; e < n; e++)
            {
              gboolean taken = FALSE;

              for (gsize m = 0; m < j && !taken; m++)
                taken = chosen[i * k + m] == e;
              if (!taken && (best == n || p[e] > p[best]))
                best = e;
            }
          chosen[i * k + j] = (guint) best;
          weights[i * k + j] = p[best];
          sum += p[best];
        }
      if (d->norm_topk)
        for (gsize j = 0; j < k; j++)
          weights[i * k + j] /= sum;
    }

  memset (out->data, 0, t * h * sizeof (float));
  for (gsize e = 0; e < n; e++)
    {
      g_autoptr(PlMatrix) in = NULL;
      g_autoptr(PlMatrix) up = NULL;
      g_autoptr(PlMatrix) act = NULL;
      g_autoptr(PlMatrix) down = NULL;
      gsize rows = 0;

      for (gsize i = 0; i < t; i++)
        for (gsize j = 0; j < k; j++)
          if (chosen[i * k + j] == e)
            {
              tokens[rows] = i;
              token_weights[rows++] = weights[i * k + j];
            }
      if (rows == 0)
        continue;
      if (!(in = pl_matrix_try_new (rows, h, error)) || !(up = pl_matrix_try_new (rows, 2 * f, error)) ||
          !(act = pl_matrix_try_new (rows, f, error)) || !(down = pl_matrix_try_new (rows, h, error)))
        return FALSE;
      for (gsize r = 0; r < rows; r++)
        memcpy (pl_matrix_row (in, r), pl_matrix_row (x, tokens[r]), h * sizeof (float));
      pl_stored_gemm (in, w->expert_up[e], NULL, NULL, up);
      pl_decoder_gate (up, c->activation, act);
      pl_stored_gemm (act, w->expert_down[e], NULL, NULL, down);
      for (gsize r = 0; r < rows; r++)
        {
          float *o = pl_matrix_row (out, tokens[r]);
          const float *y = pl_matrix_row (down, r);

          for (gsize j = 0; j < h; j++)
            o[j] += y[j] * token_weights[r];
        }
    }
  return TRUE;
}
