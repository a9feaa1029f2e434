/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The probes of Wang & Chen (2020), Table 1, as their scikit-learn code ran
 * them, on the rows of a position table (row i is position i). Each fails
 * with G_IO_ERROR_CANCELLED soon after its CANCELLABLE is cancelled (checked
 * before each fold). */

typedef enum
{
  PL_FOLDS_INTERLEAVED,   /* fold k = rows (pairs) with index % n_folds == k */
  PL_FOLDS_SHUFFLED,      /* a seeded permutation cut into n_folds parts */
} PlFolds;

typedef struct
{
  PlFolds folds;
  guint32 seed;           /* shuffled folds and the pair sample */
  guint   n_folds;        /* 5 */
  guint   n_pairs;        /* relative probe: 512 */
} PlProbeOptions;

typedef struct
{
  gsize  rows;
  double absolute_mae;    /* mean over folds of |round(prediction) − position| */
  double relative_error;  /* mean over folds of the misclassified share of pairs */
  guint  n_pairs;
} PlProbeResult;

const char *pl_folds_to_string      (PlFolds          folds);
gboolean    pl_folds_from_string    (const char      *name,
                                     PlFolds         *folds);
void        pl_probe_options_init   (PlProbeOptions  *options);

/* Absolute position: least squares with intercept from a row to its index,
 * the minimum-norm solution when the rows do not pin it down (as LAPACK's
 * gelsd behind scikit-learn's LinearRegression, cutting singular values below
 * float32 precision), predictions rounded. */
gboolean    pl_probe_absolute       (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     double                *mae,
                                     GCancellable          *cancellable,
                                     GError               **error);
/* Relative order: L2 logistic regression (C = 1, intercept not penalised) on
 * [p_i ; p_j] predicting j > i, over n_pairs sampled pairs i ≠ j. */
gboolean    pl_probe_relative       (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     double                *error_rate,
                                     GCancellable          *cancellable,
                                     GError               **error);
gboolean    pl_probe_run            (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     PlProbeResult         *result,
                                     GCancellable          *cancellable,
                                     GError               **error);

/* Minimises C·Σ log(1 + exp(−(2y−1)(x·w + b))) + ½‖w‖² exactly (Newton's
 * method): X is n × p row-major double, Y 0/1, W gets p values. */
gboolean    pl_logistic_fit         (const double          *x,
                                     const guint8          *y,
                                     gsize                  n,
                                     gsize                  p,
                                     double                 c,
                                     double                *w,
                                     double                *b,
                                     GError               **error);

G_END_DECLS
