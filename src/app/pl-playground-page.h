/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"

G_BEGIN_DECLS

/* What the Playground draws. */
typedef enum
{
  PL_PLAYGROUND_SINUSOIDAL,   /* the Transformer's table: similarity and trajectory */
  PL_PLAYGROUND_ROPE,         /* rotary: the score of a fixed query and key by offset */
  PL_PLAYGROUND_ALIBI,        /* ALiBi: each head's bias by distance */
  PL_PLAYGROUND_SINCOS2D,     /* MAE's 2-D sine–cosine table over a square grid of patches */
} PlPlaygroundKind;

#define PL_TYPE_PLAYGROUND_PAGE (pl_playground_page_get_type ())

G_DECLARE_FINAL_TYPE (PlPlaygroundPage, pl_playground_page, PL, PLAYGROUND_PAGE, PlPage)

void      pl_playground_page_set_encoding (PlPlaygroundPage *self,
                                           guint             length,
                                           guint             width,
                                           double            base);
void      pl_playground_page_set_kind     (PlPlaygroundPage *self,
                                           PlPlaygroundKind  kind);
/* The kind of the last question asked, its length (positions, or the
 * grid's side) and width. */
PlPlaygroundKind pl_playground_page_get_asked (PlPlaygroundPage *self,
                                               guint            *length,
                                               guint            *width);
/* The heatmap's matrix on screen: the table's cosine similarity (sinusoidal,
 * RoPE; the 2-D table's patches, [n, n], drawn as the grid of grids) or the
 * heads' biases (ALiBi). */
PlMatrix *pl_playground_page_get_matrix   (PlPlaygroundPage *self);
/* The lines on screen: RoPE's score of q = k = 1 and RoFormer's bound on
 * it (2 × offsets, in units of the score at offset 0), ALiBi's biases
 * (heads × distances); NULL for the other kinds. */
PlMatrix *pl_playground_page_get_curves   (PlPlaygroundPage *self);

G_END_DECLS
