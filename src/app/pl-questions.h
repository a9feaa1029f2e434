/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-pca.h"
#include "pl-similarity.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* The analyses views ask of position tables, with one cache key each, so
 * views asking the same question share the answer. */

typedef struct
{
  PlMatrix           *table;
  PlSimilarityMetric  metric;
  gboolean            center;
} PlSimilarityQuestion;

char                 *pl_similarity_question_key  (PlModel             *model,
                                                   int                  layer,
                                                   PlSimilarityMetric   metric,
                                                   gboolean             center);
PlSimilarityQuestion *pl_similarity_question_new  (PlMatrix            *table,
                                                   PlSimilarityMetric   metric,
                                                   gboolean             center);
void                  pl_similarity_question_free (PlSimilarityQuestion *question);
/* A PlAnalysisFunc: the answer is a PlMatrix. */
gboolean              pl_similarity_question_run  (PlAnalysisJob       *job,
                                                   gpointer             question,
                                                   GValue              *result,
                                                   GError             **error);

char                 *pl_pca_question_key         (PlModel             *model,
                                                   int                  layer);
/* A PlAnalysisFunc on a PlMatrix table: the answer is a PlPca of up to 16 components. */
gboolean              pl_pca_question_run         (PlAnalysisJob       *job,
                                                   gpointer             table,
                                                   GValue              *result,
                                                   GError             **error);

G_END_DECLS
