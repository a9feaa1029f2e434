/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* pl_logistic_fit with the kernel XXᵀ (n×n, full) already at hand: given
 * when p + 1 > n, it selects the Woodbury form of the Newton step; NULL
 * selects the (p+1)² Hessian. */
gboolean pl_logistic_fit_kernel (const double  *x,
                                 const guint8  *y,
                                 gsize          n,
                                 gsize          p,
                                 double         c,
                                 const double  *kernel,
                                 double        *w,
                                 double        *b,
                                 GError       **error);

G_END_DECLS
