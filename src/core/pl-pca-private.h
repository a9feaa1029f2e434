/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The top KK eigenpairs of the symmetric m×m float32 matrix C (lower
 * triangle, column-major) by block Lanczos: W ascending, Z column-major m×kk.
 * FALSE when the residuals ‖Cv − λv‖ did not all fall below
 * TOLERANCE·λmax within MAX_BASIS vectors. */
gboolean pl_pca_lanczos_top (const float *c,
                             gsize        m,
                             guint        kk,
                             double       tolerance,
                             gsize        max_basis,
                             double      *w,
                             double      *z);

G_END_DECLS
