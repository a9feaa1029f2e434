/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether this processor runs the kernels compiled for AVX2 with FMA (the
 * transformer's, the similarity's mirror, the Lanczos products). The
 * environment variable POSLENS_DISABLE_SIMD says no, so that the tests run
 * the portable paths too. */
gboolean pl_cpu_has_avx2_fma (void);

G_END_DECLS
