/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* A float32 weight W [K, N] split into two BF16 matrices, hi = bf16 (w) and
 * lo = bf16 (w − hi), laid out as AMX tiles (pl-linear-amx.c). */
typedef struct _PlLinearTiles PlLinearTiles;

/* W's tiles where the processor has AMX-BF16, else NULL (nothing to do:
 * pl_linear multiplies by W itself). NULL and PL_ERROR_TOO_LARGE when the
 * copy cannot be had, G_IO_ERROR_CANCELLED when CANCELLABLE is cancelled
 * (looked at per panel). */
PlLinearTiles *pl_linear_tiles_new  (const PlMatrix  *w,
                                     GCancellable    *cancellable,
                                     GError         **error);
void           pl_linear_tiles_free (PlLinearTiles   *tiles);
/* Bytes the tiles hold. */
gsize          pl_linear_tiles_size (const PlLinearTiles *tiles);

/* As pl_linear (OUT = ACTIVATION (X · W + B (+ RESIDUAL)), RESIDUAL may be
 * OUT) with W's tiles: X split into two BF16 terms the same way, the
 * three products hi·hi + hi·lo + lo·hi summed in float32 tiles. FALSE, and
 * OUT untouched, when the scratch for X's terms cannot be had. */
gboolean       pl_linear_amx        (const PlMatrix      *x,
                                     const PlLinearTiles *tiles,
                                     const PlMatrix      *b,
                                     const PlMatrix      *residual,
                                     PlActivation         activation,
                                     PlMatrix            *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlLinearTiles, pl_linear_tiles_free)

G_END_DECLS
