/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

#define PL_PCA_MAX_COMPONENTS 16

/* Principal components of the mean-centred rows, exact (an eigensolver, not
 * a randomised sketch). Immutable once computed; shared by reference count. */
typedef struct _PlPca
{
  gsize     n_rows;
  gsize     n_cols;
  guint     n_components;
  PlMatrix *projection;               /* [n_rows, K]: centred rows on each component */
  PlMatrix *components;               /* [K, n_cols]: unit loadings, largest |loading| positive */
  PlMatrix *explained_variance;       /* [1, K]: eigenvalue / (n_rows − 1), as scikit-learn */
  PlMatrix *explained_variance_ratio; /* [1, K]: over the total variance (the trace) */
  PlMatrix *mean;                     /* [1, n_cols] */
  double    total_variance;
  /*< private >*/
  gint      ref_count;
} PlPca;

#define PL_TYPE_PCA (pl_pca_get_type ())

GType  pl_pca_get_type (void) G_GNUC_CONST;
/* The first N_COMPONENTS (1 … 16, at most the smaller side of X) components
 * of X's rows. Fails with G_IO_ERROR_CANCELLED soon after CANCELLABLE is
 * cancelled (checked between chunks of the cross-product and eigensolver
 * steps). */
PlPca *pl_pca_compute  (const PlMatrix  *x,
                        guint            n_components,
                        GCancellable    *cancellable,
                        GError         **error);
PlPca *pl_pca_ref      (PlPca           *self);
void   pl_pca_unref    (PlPca           *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPca, pl_pca_unref)

G_END_DECLS
