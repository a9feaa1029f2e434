/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-model.h"

G_BEGIN_DECLS

/* Element-wise pieces of the forward pass around the GEMMs, written so the
 * compiler vectorises them. Accuracy: a few float ulps (exp), 3e-7 absolute
 * (erf, tanh), far inside the tests' 1e-4. */

/* OUT[r] = (IN[r] − mean) / sqrt(var + EPS) · GAMMA + BETA; IN == OUT allowed. */
void  pl_kernel_layer_norm   (const float  *in,
                              float        *out,
                              gsize         rows,
                              gsize         cols,
                              const float  *gamma,
                              const float  *beta,
                              double        eps);
/* OUT[r] = IN[r] / sqrt(mean(IN[r]²) + EPS) · GAMMA (RMSNorm); IN == OUT allowed. */
void  pl_kernel_rms_norm     (const float  *in,
                              float        *out,
                              gsize         rows,
                              gsize         cols,
                              const float  *gamma,
                              double        eps);
/* Softmax of ROW[0 … N_VALID), max-subtracted; ROW[N_VALID … N) set to 0. */
void  pl_kernel_softmax_row  (float        *row,
                              gsize         n_valid,
                              gsize         n);
void  pl_kernel_activate     (float        *data,
                              gsize         n,
                              PlActivation  activation);
/* Tests: run the plain x86-64 loops even where AVX2 + FMA exist. */
void  pl_kernel_force_generic (gboolean     generic);
/* exp over an array, in place (used by the tests against libm). */
void  pl_kernel_exp          (float        *data,
                              gsize         n);

G_END_DECLS
