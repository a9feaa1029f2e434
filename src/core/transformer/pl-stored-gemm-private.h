/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-stored-gemm.h"

G_BEGIN_DECLS

/* The tuned products: OUT [T, LDO] (its first W->rows columns) += X · Wᵀ,
 * or FALSE, and OUT untouched, where the path does not apply. */

/* On AMX tiles when W is BF16 tiles and the processor has them
 * (pl-stored-gemm-amx.c). */
gboolean pl_stored_gemm_amx  (const PlMatrix       *x,
                              const PlStoredMatrix *w,
                              float                *out,
                              gsize                 ldo);
/* With AVX-512 BF16 dot products when W is BF16 or a block format and the
 * processor has them, X rounded to BF16 (pl-stored-gemm-bf16.c). */
gboolean pl_stored_gemm_bf16 (const PlMatrix       *x,
                              const PlStoredMatrix *w,
                              float                *out,
                              gsize                 ldo);

/* Rows [FIRST, FIRST + N) of W, a block format, as BF16 into OUT (N ×
 * cols): each element pl_stored_matrix_to_float's float32, rounded to
 * nearest. FLOATS is scratch for a row of float32. AVX-512 BF16 only
 * (pl-stored-blocks-bf16.c). */
void     pl_stored_blocks_to_bf16 (const PlStoredMatrix *w,
                                   gsize                 first,
                                   gsize                 n,
                                   guint16              *out,
                                   float                *floats);

G_END_DECLS
