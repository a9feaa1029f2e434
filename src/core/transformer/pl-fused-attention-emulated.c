/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-kernel-emulation.h"

/* pl-fused-attention.c one number at a time: its blocks of ROWS queries
 * and panels of PANEL keys, its fused multiply-adds (fmaf) in its order,
 * its exp polynomial, its 16 lanes of row sums and GCC's order of
 * _mm512_reduce_add_ps. */

#define ROWS 8
#define PANEL 32
#define LANES 16

/* exp16's clamp, its 2^n · p(r) and _mm512_scalef_ps */
static float
exp_as_kernel (float x)
{
  float n, r, p;

  /* _mm512_max_ps and _mm512_min_ps give their second operand for a NaN */
  x = x > -87.0f ? x : -87.0f;
  x = x < 88.0f ? x : 88.0f;
  n = nearbyintf (x * 1.44269504088896341f);
  r = fmaf (-n, 0.693359375f, x);
  r = fmaf (n, 2.12194440e-4f, r);
  p = 1.9875691500e-4f;
  p = fmaf (p, r, 1.3981999507e-3f);
  p = fmaf (p, r, 8.3334519073e-3f);
  p = fmaf (p, r, 4.1665795894e-2f);
  p = fmaf (p, r, 1.6666665459e-1f);
  p = fmaf (p, r, 5.0000001201e-1f);
  p = fmaf (p, r * r, r + 1.0f);
  return ldexpf (p, (int) n);
}

/* _mm512_reduce_add_ps as GCC 12's header writes it */
static float
reduce_add (const float *v)
{
  float h[8], q[4];

  for (guint i = 0; i < 8; i++)
    h[i] = v[i + 8] + v[i];
  for (guint i = 0; i < 4; i++)
    q[i] = h[i + 4] + h[i];
  return (q[0] + q[2]) + (q[1] + q[3]);
}

/* softmax_row: ROW[LO … HI) = exp(ROW − its maximum there), zero elsewhere
 * in [0, N); 1 / the sum of 16 lanes */
static float
softmax_row (float *row,
             gsize  lo,
             gsize  hi,
             gsize  n)
{
  float m = -G_MAXFLOAT, lane[LANES] = { 0 };

  for (gsize j = lo; j < hi; j++)
    m = row[j] > m ? row[j] : m;
  for (gsize j = lo; j < hi; j++)
    {
      row[j] = exp_as_kernel (row[j] - m);
      lane[(j - lo) % LANES] += row[j];
    }
  memset (row, 0, lo * sizeof (float));
  memset (row + hi, 0, (n - hi) * sizeof (float));
  return 1.0f / reduce_add (lane);
}

static void
emulate_head (const PlAttentionHeads *job,
              gsize                   head,
              float                  *qs,
              float                  *s)
{
  gsize t = job->n_tokens, d = job->head_dim, g = head / (job->n_heads / job->n_kv_heads);
  gsize q_cols = (gsize) job->n_heads * d, kv_cols = (gsize) job->n_kv_heads * d;
  gsize width = (t + PANEL - 1) / PANEL * PANEL;
  const float *q = job->qkv + head * d;
  const float *k = job->qkv + q_cols + g * d;
  const float *v = job->qkv + q_cols + kv_cols + g * d;
  float inv[ROWS];

  memset (qs, 0, (t + ROWS) * d * sizeof (float));
  for (gsize j = 0; j < t; j++)
    for (gsize i = 0; i < d; i++)
      qs[j * d + i] = job->scale * q[j * job->stride + i];
  for (gsize i0 = 0; i0 < t; i0 += ROWS)
    {
      gsize n_rows = MIN (ROWS, t - i0);
      gsize j0 = pl_attention_heads_first_key (job, i0);
      gsize j1 = pl_attention_heads_end_key (job, i0 + n_rows - 1);
      gsize jbase = j0 / PANEL * PANEL, n = (j1 + PANEL - 1) / PANEL * PANEL - jbase;

      /* scores of the block's rows against its panels' keys (zero past T) */
      for (gsize r = 0; r < n_rows; r++)
        for (gsize j = jbase; j < jbase + n; j++)
          {
            float a = 0.0f;

            for (gsize i = 0; i < d; i++)
              a = fmaf (qs[(i0 + r) * d + i], j < t ? k[j * job->stride + i] : 0.0f, a);
            s[r * width + j - jbase] = a;
          }
      for (gsize r = 0; r < ROWS; r++)
        {
          if (r < n_rows)
            inv[r] = softmax_row (s + r * width, pl_attention_heads_first_key (job, i0 + r) - jbase,
                                  pl_attention_heads_end_key (job, i0 + r) - jbase, n);
          else
            inv[r] = 0.0f;
        }
      if (job->probs != NULL)
        for (gsize r = 0; r < n_rows; r++)
          {
            float *dst = pl_matrix_row (job->probs, head * t + i0 + r);

            for (gsize j = 0; j < t; j++)
              dst[j] = j >= jbase && j < MIN (jbase + n, t) ? s[r * width + j - jbase] * inv[r] : 0.0f;
          }
      /* the context: every key of the block (zero scores too) */
      for (gsize r = 0; r < n_rows; r++)
        for (gsize c = 0; c < d; c++)
          {
            float a = 0.0f;

            for (gsize j = j0; j < j1; j++)
              a = fmaf (s[r * width + j - jbase], v[j * job->stride + c], a);
            job->ctx[(i0 + r) * q_cols + head * d + c] = a * inv[r];
          }
    }
}

void
pl_fused_attention_emulated (const PlAttentionHeads *job)
{
  gsize t = job->n_tokens, d = job->head_dim, width = (t + PANEL - 1) / PANEL * PANEL;
  g_autofree float *qs = g_new (float, (t + ROWS) * d);
  g_autofree float *s = g_new0 (float, ROWS * width);

  g_return_if_fail (d > 0 && d % 16 == 0 && job->softcap == 0 && job->add_bias == NULL);
  for (gsize h = 0; h < job->n_heads; h++)
    emulate_head (job, h, qs, s);
}
