/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-probes.h"

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

/* The same fit for samples that are pairs [p_i ; p_j] of the ROWS rows of
 * TABLE (rows × d, row-major): N pairs PAIR_I, PAIR_J with labels Y, W
 * gets 2d values. Each Newton step costs O(rows²·d + rows·d² + d³),
 * whatever the number of pairs, where the explicit fit costs O(n·d²). */
gboolean pl_logistic_fit_pairs  (const double   *table,
                                 gsize           rows,
                                 gsize           d,
                                 const guint32  *pair_i,
                                 const guint32  *pair_j,
                                 const guint8   *y,
                                 gsize           n,
                                 double          c,
                                 double         *w,
                                 double         *b,
                                 GError        **error);

/* X Xᵀ for the N rows of X (width D, row-major), both triangles. */
double  *pl_probes_gram         (const double   *x,
                                 gsize           n,
                                 gsize           d);

/* pl_probe_absolute with TARGET[i] (NULL: i) the value row i's prediction
 * is rounded and compared to. */
gboolean pl_probe_absolute_targets (const PlMatrix        *x,
                                    const double          *target,
                                    const PlProbeOptions  *options,
                                    double                *mae,
                                    double                *folds,
                                    GCancellable          *cancellable,
                                    GError               **error);
/* The relative-order probe on the NP pairs given (rows of X, label 1 when
 * the pair is in order), cross-validated over OPTIONS' pair folds. */
gboolean pl_probe_relative_pairs   (const PlMatrix        *x,
                                    const guint32         *pair_i,
                                    const guint32         *pair_j,
                                    const guint8          *labels,
                                    gsize                  np,
                                    const PlProbeOptions  *options,
                                    double                *error_rate,
                                    double                *folds,
                                    GCancellable          *cancellable,
                                    GError               **error);

/* The random draws of each protocol (pl-probes-draws.c). */

/* fold_of[i] for the N rows of the absolute probe. */
guint *pl_probe_row_folds   (gsize                 n,
                             const PlProbeOptions *options);
/* N_PAIRS ordered pairs of the first N rows into PAIR_I, PAIR_J, with
 * labels (pair_j > pair_i). */
void   pl_probe_draw_pairs  (gsize                 n,
                             const PlProbeOptions *options,
                             guint                 n_pairs,
                             guint32              *pair_i,
                             guint32              *pair_j,
                             guint8               *labels);
/* fold_of[s] for the N_PAIRS pairs with these LABELS. */
guint *pl_probe_pair_folds  (const guint8         *labels,
                             guint                 n_pairs,
                             const PlProbeOptions *options);

G_END_DECLS
