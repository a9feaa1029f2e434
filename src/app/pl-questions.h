/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-grid.h"
#include "pl-page-runner.h"
#include "pl-pca.h"
#include "pl-similarity.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* The analyses views ask of position tables, with one cache key each, so
 * views asking the same question share the answer. */

/* What views take of a model, whatever the workspace shows. */

/* A short id for MODEL that is never reused, for cache keys. */
const char           *pl_question_model_key       (PlModel             *model);
/* How long the random inputs of MODEL's forward-pass views are: its whole
 * table (n_positions, as 0 says to the analyses) for a learned table; for a
 * rotary model, whose max_position_embeddings can be 128 K, at most
 * PL_ROTARY_SAMPLE_LENGTH. */
#define PL_ROTARY_SAMPLE_LENGTH 256
guint                 pl_question_sample_length   (PlModel             *model);
/* "builtin:rope:LENGTHxDIM:BASE": the analytic RoPE of a rotary MODEL's base
 * and rotated dims, or NULL for other models. */
char                 *pl_question_analytic_rope   (PlModel             *model);
/* The layer the views across models (Probes, Compare) take of MODEL as its
 * table: PL_LAYER_TABLE, or for an activations file, which holds no table,
 * its embedding output (layer 0: the mean hidden state at each position).
 * The name says which. */
int                   pl_question_table_layer     (PlModel             *model);
char                 *pl_question_table_name      (PlModel             *model);
/* Whether LAYER of MODEL holds a vision transformer's patches, flattened row
 * by row as pl_model_read_positions gives them (special tokens left out):
 * position p is patch (p / COLS, p % COLS). */
gboolean              pl_question_shows_patches   (PlModel             *model,
                                                   int                  layer,
                                                   guint               *cols);


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

/* What views measure on a model's forward passes over random inputs
 * (PL_FORWARD_SEQUENCES of pl_question_sample_length tokens each, seed
 * PL_FORWARD_SEED): the attention statistics (a PlAttentionStats, with
 * progress) and a rotary model's query and key norms per plane (a
 * PlRopeProfile, with progress). MAKE is a PlPageForwardInputFunc. */
#define PL_FORWARD_SEQUENCES 8
#define PL_FORWARD_SEED      1

typedef struct
{
  PlTransformer *transformer;
  guint          length;
} PlForwardQuestion;

gpointer              pl_forward_question_make    (PlPage              *page,
                                                   PlModel             *model,
                                                   PlTransformer       *transformer);
void                  pl_forward_question_free    (PlForwardQuestion   *question);
char                 *pl_attention_stats_question_key (PlModel         *model);
gboolean              pl_attention_stats_question_run (PlAnalysisJob   *job,
                                                       gpointer         question,
                                                       GValue          *result,
                                                       GError         **error);
/* The same statistics of the first layer alone (PlAttentionStats with
 * n_layers 1: the whole computation's layer 1, number for number), asked
 * first of a model whose passes take long (pl_question_runs_long), so a
 * view shows it within seconds while the rest is computed. */
char                 *pl_attention_first_question_key (PlModel         *model);
gboolean              pl_attention_first_question_run (PlAnalysisJob   *job,
                                                       gpointer         question,
                                                       GValue          *result,
                                                       GError         **error);
/* Whether MODEL's layers hold 100 million weights or more: its forward
 * passes over the random inputs take more than a few seconds on a laptop. */
gboolean              pl_question_runs_long       (PlModel             *model);
char                 *pl_rope_profile_question_key (PlModel            *model);
gboolean              pl_rope_profile_question_run (PlAnalysisJob      *job,
                                                    gpointer            question,
                                                    GValue             *result,
                                                    GError            **error);
/* The first layer's attention from the position vectors alone (a
 * PlMatrix, [heads × T, T]), from the weights; MAKE is a
 * PlPageForwardInputFunc giving the transformer. */
char                 *pl_position_only_question_key  (PlModel          *model);
gpointer              pl_position_only_question_make (PlPage           *page,
                                                      PlModel          *model,
                                                      PlTransformer    *transformer);
gboolean              pl_position_only_question_run  (PlAnalysisJob    *job,
                                                      gpointer          transformer,
                                                      GValue           *result,
                                                      GError          **error);
/* The attention statistics an activations file holds; the input is the
 * PlModel (a reference, freed with g_object_unref). */
char                 *pl_file_stats_question_key  (PlModel             *model);
gboolean              pl_file_stats_question_run  (PlAnalysisJob       *job,
                                                   gpointer             model,
                                                   GValue              *result,
                                                   GError             **error);

G_END_DECLS
