/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"

G_BEGIN_DECLS

/* Analytic position encodings: models with no file. */
typedef enum
{
  PL_ENCODING_SINUSOIDAL,
  PL_ENCODING_ROPE,
  PL_ENCODING_ALIBI,
  PL_ENCODING_NONE,
  PL_ENCODING_SINCOS2D,    /* the 2-D sine–cosine table of MAE and DeiT III over a grid */
} PlEncodingKind;

typedef struct
{
  PlEncodingKind kind;
  guint          length;   /* positions (sincos2d: rows × cols) */
  guint          rows;     /* sincos2d: the grid */
  guint          cols;
  guint          width;    /* model width (sinusoidal, RoPE head dim) */
  guint          heads;    /* ALiBi */
  double         base;     /* 10000 unless given */
} PlEncodingSpec;

/* "builtin:sinusoidal:512x768", "builtin:sinusoidal:512x768:10000", "builtin:rope:...",
 * "builtin:alibi:...", "builtin:none:...", "builtin:sincos2d:14x14x768[:BASE]" */
gboolean  pl_encoding_spec_parse    (const char            *spec,
                                     PlEncodingSpec        *out,
                                     GError               **error);
/* Display name, e.g. "Sinusoidal 512 × 768". */
char     *pl_encoding_spec_describe (const PlEncodingSpec  *spec);
/* The Vaswani et al. table: PE[p, 2k] = sin(p / base^(2k/width)), PE[p, 2k+1] = cos(...). */
PlMatrix *pl_encoding_sinusoidal    (guint                  length,
                                     guint                  width,
                                     double                 base);
/* The 2-D sine–cosine table of MAE's get_2d_sincos_pos_embed (also DeiT
 * III's), [ROWS × COLS, WIDTH] with WIDTH a multiple of 4, patch p = r·COLS + c
 * in row r and column c. The first half of the width encodes the column, the
 * second half the row, each as a 1-D table of WIDTH / 4 sines followed by
 * WIDTH / 4 cosines: [sin(c ω_0) … sin(c ω_{W/4−1}), cos(c ω_0) …, sin(r ω_0) …,
 * cos(r ω_0) …] with ω_k = BASE^(−k / (WIDTH / 4)). (MAE's code names its
 * first half "emb_h" but feeds it the first of meshgrid(w, h), the column.) */
PlMatrix *pl_encoding_sincos2d      (guint                  rows,
                                     guint                  cols,
                                     guint                  width,
                                     double                 base);
/* The position table an encoding stands for, for the table analyses; NULL and
 * an error for encodings that have none (ALiBi, none). For RoPE it is the
 * rotation phases [cos pθ_0, sin pθ_0, cos pθ_1, …]: R(p) applied to (1, 0, 1, 0, …),
 * so a row dot product is the RoPE score of that unit query and key. */
PlMatrix *pl_encoding_table         (const PlEncodingSpec  *spec,
                                     GError               **error);

/* RoPE rotation frequencies θ_k = base^(−2k/width), k = 0 … width/2 − 1,
 * into OUT (width/2 values). Pair (x_2k, x_2k+1) turns by p·θ_k at position p. */
void      pl_encoding_rope_frequencies (guint               width,
                                        double              base,
                                        double             *out);
/* The relative score q·R(Δ)k of a query and key of WIDTH dims (even) as a
 * function of the offset Δ = j − i (key j, query i), for Δ = MIN_OFFSET …
 * MAX_OFFSET: a 1 × (MAX_OFFSET − MIN_OFFSET + 1) matrix. At Δ = 0 it is q·k. */
PlMatrix *pl_encoding_rope_scores   (const float           *q,
                                     const float           *k,
                                     guint                  width,
                                     double                 base,
                                     int                    min_offset,
                                     int                    max_offset);
/* ALiBi head slopes (Press et al.): 2^(−8h/n) for h = 1 … n when n is a power
 * of two, otherwise the slopes of the nearest lower power of two followed by
 * every other slope of the next power. OUT holds HEADS values. */
void      pl_encoding_alibi_slopes  (guint                  heads,
                                     double                *out);
/* The ALiBi bias added to attention scores, −m_h·d, per head (rows) and key
 * distance d = |i − j| = 0 … LENGTH − 1 (columns): HEADS × LENGTH. Causal
 * models see only keys j ≤ i. */
PlMatrix *pl_encoding_alibi_bias    (guint                  heads,
                                     guint                  length);

G_END_DECLS
