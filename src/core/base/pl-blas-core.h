/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenBLAS picks its kernels once, when it loads, from the processor's model
 * number; a model newer than the OpenBLAS release (Debian 12 ships 0.3.21)
 * falls back to its SSE3 kernels, far slower on AVX-512 processors
 * (bench/NOTES.md).
 * The choice can only be steered through OPENBLAS_CORETYPE, read at load
 * time, so programs call pl_blas_core_choose() first thing in main(): when the
 * user has not set OPENBLAS_CORETYPE and OpenBLAS took kernels for a weaker
 * instruction set than the processor runs, it sets the variable and starts the
 * program again (same arguments); otherwise it returns. */
void         pl_blas_core_choose       (char **argv);

/* The OpenBLAS kernel family for the widest instruction set this processor
 * and its OS run ("Cooperlake" for AVX-512 with BF16, "SkylakeX" for
 * AVX-512, "Haswell" for AVX2 with FMA), or NULL when nothing better than
 * OpenBLAS's own choice can be named. POSLENS_DISABLE_SIMD does not change
 * it: it concerns Poslens's kernels, not OpenBLAS's. */
const char  *pl_blas_core_for_cpu      (void);

/* The instruction-set level a kernel family name stands for: 3 for the
 * AVX-512 families, 2 for AVX2 with FMA, 1 for anything else. */
int          pl_blas_core_level        (const char *core);

/* "OpenBLAS 0.3.21, Cooperlake kernels": what --version prints and the
 * benches read. */
char        *pl_blas_core_describe     (void);

G_END_DECLS
