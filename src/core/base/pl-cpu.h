/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether this processor runs the kernels compiled for AVX2 with FMA (the
 * transformer's element-wise kernels, F16 weights turned into floats, the
 * PCA's mirror and Lanczos products). The
 * environment variable POSLENS_DISABLE_SIMD says no, so that the tests run
 * the portable paths too. */
gboolean pl_cpu_has_avx2_fma (void);
/* Whether this processor runs AVX-512 Foundation and the operating system
 * saves its registers (the fused attention). POSLENS_DISABLE_SIMD says no as
 * above. */
gboolean pl_cpu_has_avx512f (void);
/* Whether this processor multiplies BF16 tiles (AMX-BF16, with AVX-512 BF16
 * conversions), the operating system saves the tile registers and this
 * process may use them (Linux asks for that once, here). POSLENS_DISABLE_SIMD
 * says no as above. */
gboolean pl_cpu_has_amx_bf16 (void);
/* Whether this processor runs AVX-512 with BF16 dot products (AVX512F, BW,
 * VL and AVX512_BF16's VDPBF16PS) and the operating system saves the
 * AVX-512 registers. POSLENS_DISABLE_SIMD says no as above. */
gboolean pl_cpu_has_avx512_bf16 (void);

/* On a function whose loops GCC vectorises: built for AVX2 as well, and
 * the loader picks the build this processor runs (GCC's target_clones, an
 * ELF ifunc). Four doubles a step instead of SSE2's two; without FMA the
 * same operations run in the same order, so the results are the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
# define PL_ALSO_FOR_AVX2 __attribute__ ((target_clones ("avx2", "default")))
#else
# define PL_ALSO_FOR_AVX2
#endif

G_END_DECLS
