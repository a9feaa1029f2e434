/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"
#include "pl-stored-matrix.h"

G_BEGIN_DECLS

/* OUT [T, N] = X [T, K] · Wᵀ (+ BIAS, 1 × N) (+ RESIDUAL [T, N]), with W
 * [N, K] as nn.Linear stores it, in its stored precision. BIAS and RESIDUAL
 * may be NULL; RESIDUAL may be OUT. */
void pl_stored_gemm       (const PlMatrix       *x,
                           const PlStoredMatrix *w,
                           const PlMatrix       *bias,
                           const PlMatrix       *residual,
                           PlMatrix             *out);
/* The same on the plain path: W's rows made float32 a block at a time and
 * multiplied by OpenBLAS's SGEMM. The tests compare the tuned paths with
 * it: AMX tiles (BF16 tiles, split activations) and AVX-512 BF16 dot
 * products (BF16 and block-quantised weights, activations rounded to BF16:
 * within 2⁻⁸ of Σ|x·w| of exact). */
void pl_stored_gemm_plain (const PlMatrix       *x,
                           const PlStoredMatrix *w,
                           const PlMatrix       *bias,
                           const PlMatrix       *residual,
                           PlMatrix             *out);

/* OUT's columns [FIRST, FIRST + W->rows) = X · Wᵀ (+ BIAS, W->rows
 * values, or NULL); its other columns are left as they are. Several
 * projections of one input (queries, keys and values; gate and up) so fill
 * one matrix without their weights being copied side by side. */
void pl_stored_gemm_columns       (const PlMatrix       *x,
                                   const PlStoredMatrix *w,
                                   const float          *bias,
                                   PlMatrix             *out,
                                   gsize                 first);
void pl_stored_gemm_columns_plain (const PlMatrix       *x,
                                   const PlStoredMatrix *w,
                                   const float          *bias,
                                   PlMatrix             *out,
                                   gsize                 first);

/* Whether pl_stored_gemm rounds X to BF16 to multiply by W (a BF16 or
 * block-quantised weight on AVX-512 BF16 dot products; a block format's
 * weight rounded to BF16 too): each result is then within about 2⁻⁸ of
 * Σ|x·w| of the exact one, instead of float32's summation error. */
gboolean pl_stored_gemm_rounds_activations (const PlStoredMatrix *w);

/* W as pl_stored_gemm multiplies by it fastest: a BF16 weight in AMX tile
 * order where the processor has AMX (PL_STORED_BF16_TILES, as many bytes;
 * the caller drops W for it), else W itself (a new reference). NULL and
 * PL_ERROR_TOO_LARGE when the copy cannot be had, G_IO_ERROR_CANCELLED when
 * CANCELLABLE is cancelled while it is packed. */
PlStoredMatrix *pl_stored_gemm_prepare (PlStoredMatrix  *w,
                                        GCancellable    *cancellable,
                                        GError         **error);

G_END_DECLS
