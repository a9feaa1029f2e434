/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The top KK eigenpairs of the symmetric m×m float32 matrix C (lower
 * triangle, column-major) by block Lanczos: W ascending, Z column-major m×kk.
 * C's upper triangle is overwritten with the lower one's mirror image.
 * FALSE when the residuals ‖Cv − λv‖ did not all fall below
 * TOLERANCE·λmax within MAX_BASIS vectors, or when CANCELLABLE was
 * cancelled (checked at each step). */
gboolean pl_pca_lanczos_top (float        *c,
                             gsize         m,
                             guint         kk,
                             double        tolerance,
                             gsize         max_basis,
                             double       *w,
                             double       *z,
                             GCancellable *cancellable);

/* One row minus the mean (in double) into OUT, adding its squares to
 * COLUMN_SS. */
void pl_pca_centre_row (const float  *row,
                        const double *mean,
                        gsize         d,
                        float        *out,
                        double       *column_ss);

/* X's column means, in double, over our threads; FALSE when X holds NaN or
 * infinite values. */
gboolean pl_pca_column_means (const PlMatrix *x,
                              double         *mean);

/* The upper triangle (row-major) of XcᵀXc, Xc = X − MEAN, into the d×d S,
 * and each column's sum of squares of Xc into COLUMN_SS, without a centred
 * copy of X. Stops early, leaving S unfinished, when CANCELLABLE is
 * cancelled (checked at each chunk): the caller checks it afterwards. */
void pl_pca_covariance (const PlMatrix *x,
                        const double   *mean,
                        float          *s,
                        double         *column_ss,
                        GCancellable   *cancellable);

/* (X − MEAN) COMPONENTSᵀ into PROJECTION (n × k). */
void pl_pca_project    (const PlMatrix *x,
                        const double   *mean,
                        const PlMatrix *components,
                        PlMatrix       *projection);

G_END_DECLS
