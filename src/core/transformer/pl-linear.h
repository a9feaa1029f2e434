/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-linear-amx.h"
#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* OUT [T, N] = ACTIVATION (X [T, K] · W [K, N] + B (1 × N) (+ RESIDUAL [T, N])),
 * every matrix row-major and float32; RESIDUAL may be NULL, ACTIVATION
 * PL_ACTIVATION_NONE. With W's AMX tiles (TILES, from pl_linear_tiles_new;
 * NULL where the processor has none) the product runs on them
 * (pl_linear_amx), and W may be NULL; otherwise, or when that cannot get
 * its scratch, it is split over the executor's threads, each piece one
 * single-threaded SGEMM that starts and ends its own block of OUT (bias,
 * residual, activation). FALSE and PL_ERROR_TOO_LARGE only when W is NULL
 * and the tiles' scratch cannot be had. */
gboolean pl_linear   (const PlMatrix      *x,
                      const PlMatrix      *w,
                      const PlLinearTiles *tiles,
                      const PlMatrix      *b,
                      const PlMatrix      *residual,
                      PlActivation         activation,
                      PlMatrix            *out,
                      GError             **error);
/* The same on the calling thread alone, one SGEMM over the whole product:
 * the tests compare the split with it. */
void pl_linear_plain (const PlMatrix *x,
                      const PlMatrix *w,
                      const PlMatrix *b,
                      const PlMatrix *residual,
                      PlActivation    activation,
                      PlMatrix       *out);

/* LayerNorm of every row of IN into OUT (IN == OUT allowed), rows split over
 * the executor's threads; the same numbers as pl_kernel_layer_norm. */
void pl_layer_norm_rows (const PlMatrix *in,
                         PlMatrix       *out,
                         const float    *gamma,
                         const float    *beta,
                         double          eps);

G_END_DECLS
