/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-grid.h"
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

/* The grid of grids of a vision transformer's patches. The answer is a
 * PlMatrix of n + k rows by n: the patches' similarity, then each special
 * row's similarity with every patch (read on the worker). With NEW_ROWS
 * and NEW_COLS, of the patches resized from their ROWS × COLS grid to that
 * one first, as Hugging Face's interpolate_pos_encoding does with
 * RESAMPLE's arguments (pl_grid_interpolate). */
typedef struct
{
  PlMatrix           *table;
  PlModel            *model;
  PlSimilarityMetric  metric;
  guint               rows;
  guint               cols;
  guint               new_rows;   /* 0: the table as it is */
  guint               new_cols;
  PlGridResample      resample;
} PlPatchGridQuestion;

/* NEW_ROWS 0 for the table as it is; then NEW_COLS and RESAMPLE are not read. */
char                 *pl_patch_grid_question_key  (PlModel             *model,
                                                   PlSimilarityMetric   metric,
                                                   guint                new_rows,
                                                   guint                new_cols,
                                                   PlGridResample       resample);
PlPatchGridQuestion  *pl_patch_grid_question_new  (PlMatrix            *table,
                                                   PlModel             *model,
                                                   PlSimilarityMetric   metric);
/* Asks of the patches resized from ROWS × COLS to NEW_ROWS × NEW_COLS. */
void                  pl_patch_grid_question_resize (PlPatchGridQuestion *question,
                                                     guint                rows,
                                                     guint                cols,
                                                     guint                new_rows,
                                                     guint                new_cols,
                                                     PlGridResample       resample);
void                  pl_patch_grid_question_free (PlPatchGridQuestion *question);
gboolean              pl_patch_grid_question_run  (PlAnalysisJob       *job,
                                                   gpointer             question,
                                                   GValue              *result,
                                                   GError             **error);
/* The principal components of the question's (resized) patches: the
 * answer is a PlPca of up to 16 components; the metric is not read. */
char                 *pl_resized_pca_question_key (PlModel             *model,
                                                   guint                new_rows,
                                                   guint                new_cols,
                                                   PlGridResample       resample);
gboolean              pl_resized_pca_question_run (PlAnalysisJob       *job,
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
