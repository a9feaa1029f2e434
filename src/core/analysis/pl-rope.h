/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* How a rotary model scales its frequencies (config.json's rope_scaling,
 * "rope_type" or its older name "type"), as Hugging Face's
 * modeling_rope_utils.py implements each kind. */
typedef enum
{
  PL_ROPE_SCALING_NONE,      /* "default", or no rope_scaling */
  PL_ROPE_SCALING_LINEAR,    /* positions divided by factor */
  PL_ROPE_SCALING_DYNAMIC,   /* NTK: base grown for inputs past max_position_embeddings */
  PL_ROPE_SCALING_LLAMA3,    /* Llama 3.1: low frequencies / factor, a smooth band between */
  PL_ROPE_SCALING_YARN,      /* YaRN: per-frequency ramp and an attention factor */
  PL_ROPE_SCALING_FACTORS,   /* each frequency divided by its own factor (GGUF's rope_freqs) */
} PlRopeScaling;

/* One model's rotary embedding: what its queries' and keys' first DIM dims
 * of each head turn by at each position. */
typedef struct
{
  double         theta;                   /* rope_theta (GPT-NeoX: rotary_emb_base) */
  guint          dim;                     /* rotated dims per head (even): head_dim × partial factor */
  guint          max_positions;           /* max_position_embeddings */
  PlRopeScaling  scaling;
  double         factor;
  /* llama3 */
  double         low_freq_factor;
  double         high_freq_factor;
  guint          original_max_positions;  /* llama3; yarn (max_positions when not given) */
  /* yarn: beta_fast, beta_slow, mscale, mscale_all_dim as HF defaults them
   * (beta 32 and 1; mscale 0 for none), and attention_factor when given */
  double         beta_fast;
  double         beta_slow;
  double         mscale;
  double         mscale_all_dim;
  gboolean       has_attention_factor;
  double         attention_factor;
  gboolean       truncate;
  /* factors: DIM / 2 divisors of the plain frequencies, in order (llama.cpp's
   * freq_factors: Llama 3's scaling as its GGUF conversion writes it);
   * FACTOR is the largest, for display */
  const float   *freq_factors;
} PlRopeSpec;

const char *pl_rope_scaling_name (PlRopeScaling      scaling);
/* The inverse frequencies (DIM / 2 floats) and the factor cos and sin are
 * multiplied by, for an input of N_TOKENS tokens (dynamic scaling depends on
 * it), computed in float32 with Hugging Face's operations in Hugging Face's
 * order so that the angles match its own to the last bit or so. */
void        pl_rope_inv_freq     (const PlRopeSpec  *spec,
                                  guint              n_tokens,
                                  float             *inv_freq,
                                  float             *attention_scaling);
/* COS and SIN [N_TOKENS, DIM / 2] for positions 0 … N_TOKENS − 1: the
 * float32 angle p · inv_freq[k], its cosine and sine rounded to float32 and
 * multiplied by the attention scaling, as HF builds cat(freqs, freqs) (both
 * halves of the rotated dims share one angle, so one half is kept). */
void        pl_rope_cos_sin      (const float       *inv_freq,
                                  guint              half_dim,
                                  float              attention_scaling,
                                  guint              n_tokens,
                                  float             *cos_out,
                                  float             *sin_out);
/* Rotates the first 2 · HALF_DIM values of each of N_HEADS heads of the row
 * X (heads HEAD_STRIDE apart) by position P's angles, in rotate-half form:
 * dims d and d + HALF_DIM form the pair turned by angle d,
 *   x'_d = x_d cos − x_{d+h} sin,   x'_{d+h} = x_{d+h} cos + x_d sin,
 * which is HF's x · cos + rotate_half(x) · sin with rotate_half(x) =
 * cat(−x2, x1). Dims past 2 · HALF_DIM (partial rotary) are left alone. */
void        pl_rope_rotate_row   (float             *x,
                                  guint              n_heads,
                                  gsize              head_stride,
                                  guint              half_dim,
                                  const float       *cos_row,
                                  const float       *sin_row);

/* RoFormer's long-term decay (Su et al., 2021, section 3.4.3): for offsets
 * 0 … MAX_OFFSET, the relative upper bound (2/d) Σ_{i=1}^{d/2} |S_i| of a
 * head of WIDTH = d dims with base BASE, S_i = Σ_{j<i} e^{i·m·θ_j} and
 * θ_j = base^(−2j/d). It is (d/2 + 1) / 2 at offset 0 and falls, with
 * ripples, as the offset grows. A 1 × (MAX_OFFSET + 1) matrix. */
PlMatrix   *pl_rope_decay_bound  (guint              width,
                                  double             base,
                                  guint              max_offset);

G_END_DECLS
