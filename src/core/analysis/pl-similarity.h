/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

typedef enum
{
  PL_SIMILARITY_COSINE,
  PL_SIMILARITY_DOT,
  PL_SIMILARITY_L2,        /* Euclidean distance */
} PlSimilarityMetric;

const char *pl_similarity_metric_to_string   (PlSimilarityMetric  metric);
gboolean    pl_similarity_metric_from_string (const char         *name,
                                              PlSimilarityMetric *metric);

/* Whether the similarity of N rows, an N×N matrix, can be computed: FALSE
 * with its size in ERROR when it is too large, before anything is read. */
gboolean    pl_similarity_check_size (gsize                n,
                                      GError             **error);

/* Whether METRIC can compare the rows of X, position FIRST onwards: an
 * all-zero row has no direction, so the cosine (uncentred) refuses a table
 * with one, naming every such position; dot products and distances take
 * it. */
gboolean    pl_similarity_check_rows (const PlMatrix      *x,
                                      guint                first,
                                      PlSimilarityMetric   metric,
                                      gboolean             center,
                                      GError             **error);

/* The n×n matrix between the rows of X. Cosine of a zero row is NaN: it is
 * undefined, and the views draw it as "no value". Fails with
 * G_IO_ERROR_CANCELLED soon after CANCELLABLE is cancelled (checked between
 * blocks of the product). */
PlMatrix   *pl_similarity_compute (const PlMatrix      *x,
                                   PlSimilarityMetric   metric,
                                   gboolean             center,
                                   GCancellable        *cancellable,
                                   GError             **error);

G_END_DECLS
