/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-grid.h"
#include "pl-questions.h"
#include "pl-rope-profile.h"

char *
pl_similarity_question_key (PlModel            *model,
                            int                 layer,
                            PlSimilarityMetric  metric,
                            gboolean            center)
{
  return g_strdup_printf ("similarity/%s/%d/%s/%d", pl_question_model_key (model), layer,
                          pl_similarity_metric_to_string (metric), center);
}

PlSimilarityQuestion *
pl_similarity_question_new (PlMatrix           *table,
                            PlSimilarityMetric  metric,
                            gboolean            center)
{
  PlSimilarityQuestion *question = g_new0 (PlSimilarityQuestion, 1);

  question->table = pl_matrix_ref (table);
  question->metric = metric;
  question->center = center;
  return question;
}

void
pl_similarity_question_free (PlSimilarityQuestion *question)
{
  g_clear_pointer (&question->table, pl_matrix_unref);
  g_free (question);
}

gboolean
pl_similarity_question_run (PlAnalysisJob  *job,
                            gpointer        data,
                            GValue         *result,
                            GError        **error)
{
  PlSimilarityQuestion *question = data;
  PlMatrix *matrix;

  if (!pl_similarity_check_rows (question->table, 0, question->metric, question->center, error))
    return FALSE;
  matrix = pl_similarity_compute (question->table, question->metric, question->center,
                                  pl_analysis_job_get_cancellable (job), error);
  if (matrix == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, matrix);
  return TRUE;
}

char *
pl_patch_grid_question_key (PlModel            *model,
                            PlSimilarityMetric  metric,
                            guint               new_rows,
                            guint               new_cols,
                            PlGridResample      resample)
{
  if (new_rows == 0)
    return g_strdup_printf ("patch-grid/%s/%s", pl_question_model_key (model), pl_similarity_metric_to_string (metric));
  return g_strdup_printf ("patch-grid/%s/%s/%ux%u/%s", pl_question_model_key (model),
                          pl_similarity_metric_to_string (metric), new_rows, new_cols,
                          pl_grid_resample_to_string (resample));
}

PlPatchGridQuestion *
pl_patch_grid_question_new (PlMatrix           *table,
                            PlModel            *model,
                            PlSimilarityMetric  metric)
{
  PlPatchGridQuestion *question = g_new0 (PlPatchGridQuestion, 1);

  question->table = pl_matrix_ref (table);
  question->model = g_object_ref (model);
  question->metric = metric;
  return question;
}

void
pl_patch_grid_question_resize (PlPatchGridQuestion *question,
                               guint                rows,
                               guint                cols,
                               guint                new_rows,
                               guint                new_cols,
                               PlGridResample       resample)
{
  question->rows = rows;
  question->cols = cols;
  question->new_rows = new_rows;
  question->new_cols = new_cols;
  question->resample = resample;
}

void
pl_patch_grid_question_free (PlPatchGridQuestion *question)
{
  g_clear_pointer (&question->table, pl_matrix_unref);
  g_clear_object (&question->model);
  g_free (question);
}

/* The question's patches, resized when it asks so. */
static PlMatrix *
question_patches (PlPatchGridQuestion  *question,
                  GCancellable         *cancellable,
                  GError              **error)
{
  if (question->new_rows == 0)
    return pl_matrix_ref (question->table);
  return pl_grid_interpolate (question->table, question->rows, question->cols, question->new_rows,
                              question->new_cols, question->resample, cancellable, error);
}

gboolean
pl_patch_grid_question_run (PlAnalysisJob  *job,
                            gpointer        data,
                            GValue         *result,
                            GError        **error)
{
  PlPatchGridQuestion *question = data;
  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);
  g_autoptr(PlMatrix) special = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) special_similarity = NULL;
  PlMatrix *answer;
  gsize n, k;

  if (pl_model_get_n_special_rows (question->model) > 0 &&
      !(special = pl_model_read_special_rows (question->model, error)))
    return FALSE;
  if (!(table = question_patches (question, cancellable, error)) ||
      !(patches = pl_grid_similarity (table, special, question->metric, &special_similarity, cancellable, error)))
    return FALSE;
  n = patches->rows;
  k = special_similarity != NULL ? special_similarity->rows : 0;
  answer = pl_matrix_new (n + k, n);
  memcpy (answer->data, patches->data, n * n * sizeof (float));
  if (k > 0)
    memcpy (answer->data + n * n, special_similarity->data, k * n * sizeof (float));
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, answer);
  return TRUE;
}

char *
pl_resized_pca_question_key (PlModel        *model,
                             guint           new_rows,
                             guint           new_cols,
                             PlGridResample  resample)
{
  return g_strdup_printf ("pca/%s/%ux%u/%s", pl_question_model_key (model), new_rows, new_cols,
                          pl_grid_resample_to_string (resample));
}

gboolean
pl_resized_pca_question_run (PlAnalysisJob  *job,
                             gpointer        data,
                             GValue         *result,
                             GError        **error)
{
  g_autoptr(PlMatrix) table = question_patches (data, pl_analysis_job_get_cancellable (job), error);

  return table != NULL && pl_pca_question_run (job, table, result, error);
}

char *
pl_pca_question_key (PlModel *model,
                     int      layer)
{
  return g_strdup_printf ("pca/%s/%d", pl_question_model_key (model), layer);
}

gboolean
pl_pca_question_run (PlAnalysisJob  *job,
                     gpointer        data,
                     GValue         *result,
                     GError        **error)
{
  PlMatrix *table = data;
  guint k = MIN (PL_PCA_MAX_COMPONENTS, MIN (table->rows, table->cols));
  PlPca *pca = pl_pca_compute (table, k, pl_analysis_job_get_cancellable (job), error);

  if (pca == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_PCA);
  g_value_take_boxed (result, pca);
  return TRUE;
}

gpointer
pl_forward_question_make (PlPage        *page,
                          PlModel       *model,
                          PlTransformer *transformer)
{
  PlForwardQuestion *question = g_new0 (PlForwardQuestion, 1);

  question->transformer = g_object_ref (transformer);
  question->length = pl_question_sample_length (model);
  return question;
}

void
pl_forward_question_free (PlForwardQuestion *question)
{
  g_clear_object (&question->transformer);
  g_free (question);
}

char *
pl_attention_stats_question_key (PlModel *model)
{
  return g_strdup_printf ("attention-stats/%s/%u/%u/%u", pl_question_model_key (model), PL_FORWARD_SEQUENCES,
                          PL_FORWARD_SEED, pl_question_sample_length (model));
}

gboolean
pl_attention_stats_question_run (PlAnalysisJob  *job,
                                 gpointer        data,
                                 GValue         *result,
                                 GError        **error)
{
  PlForwardQuestion *question = data;
  PlAttentionStats *stats;

  stats = pl_attention_stats_compute (question->transformer, PL_FORWARD_SEQUENCES, question->length,
                                      PL_FORWARD_SEED, pl_analysis_job_get_cancellable (job),
                                      (PlProgressFunc) pl_analysis_job_set_progress, job, error);
  if (stats == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_ATTENTION_STATS);
  g_value_take_boxed (result, stats);
  return TRUE;
}

char *
pl_attention_first_question_key (PlModel *model)
{
  return g_strdup_printf ("attention-first/%s/%u/%u/%u", pl_question_model_key (model), PL_FORWARD_SEQUENCES,
                          PL_FORWARD_SEED, pl_question_sample_length (model));
}

gboolean
pl_attention_first_question_run (PlAnalysisJob  *job,
                                 gpointer        data,
                                 GValue         *result,
                                 GError        **error)
{
  PlForwardQuestion *question = data;
  PlAttentionStats *stats;

  stats = pl_attention_stats_compute_first (question->transformer, 1, PL_FORWARD_SEQUENCES, question->length,
                                            PL_FORWARD_SEED, pl_analysis_job_get_cancellable (job),
                                            (PlProgressFunc) pl_analysis_job_set_progress, job, error);
  if (stats == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_ATTENTION_STATS);
  g_value_take_boxed (result, stats);
  return TRUE;
}

gboolean
pl_question_runs_long (PlModel *model)
{
  double h = pl_model_get_hidden_size (model), f = pl_model_get_ffn_size (model);

  /* attention (Q, K, V, output) and a feed-forward of two or three products */
  return pl_model_get_n_layers (model) * (4 * h * h + 3 * h * f) >= 1e8;
}

char *
pl_rope_profile_question_key (PlModel *model)
{
  return g_strdup_printf ("rope-profile/%s/%u/%u/%u", pl_question_model_key (model), PL_FORWARD_SEQUENCES,
                          PL_FORWARD_SEED, pl_question_sample_length (model));
}

gboolean
pl_rope_profile_question_run (PlAnalysisJob  *job,
                              gpointer        data,
                              GValue         *result,
                              GError        **error)
{
  PlForwardQuestion *question = data;
  PlRopeProfile *profile;

  profile = pl_rope_profile_compute (question->transformer, PL_FORWARD_SEQUENCES, question->length,
                                     PL_FORWARD_SEED, pl_analysis_job_get_cancellable (job),
                                     (PlProgressFunc) pl_analysis_job_set_progress, job, error);
  if (profile == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_ROPE_PROFILE);
  g_value_take_boxed (result, profile);
  return TRUE;
}

char *
pl_position_only_question_key (PlModel *model)
{
  return g_strdup_printf ("position-only/%s", pl_question_model_key (model));
}

gpointer
pl_position_only_question_make (PlPage        *page,
                                PlModel       *model,
                                PlTransformer *transformer)
{
  return g_object_ref (transformer);
}

gboolean
pl_position_only_question_run (PlAnalysisJob  *job,
                               gpointer        transformer,
                               GValue         *result,
                               GError        **error)
{
  PlMatrix *term = pl_attention_position_only (PL_TRANSFORMER (transformer), 0, error);

  if (term == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, term);
  return TRUE;
}

char *
pl_file_stats_question_key (PlModel *model)
{
  return g_strdup_printf ("attention-stats/%s/file", pl_question_model_key (model));
}

gboolean
pl_file_stats_question_run (PlAnalysisJob  *job,
                            gpointer        model,
                            GValue         *result,
                            GError        **error)
{
  PlAttentionStats *stats = pl_attention_stats_new_from_file (pl_model_get_activations (PL_MODEL (model)), error);

  if (stats == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_ATTENTION_STATS);
  g_value_take_boxed (result, stats);
  return TRUE;
}

/* ---- What views take of a model ------------------------------------------ */

const char *
pl_question_model_key (PlModel *model)
{
  static guint next_id;
  const char *key;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  if (!(key = g_object_get_data (G_OBJECT (model), "pl-workspace-key")))
    {
      char *fresh = g_strdup_printf ("m%u", ++next_id);
      g_object_set_data_full (G_OBJECT (model), "pl-workspace-key", fresh, g_free);
      key = fresh;
    }
  return key;
}

guint
pl_question_sample_length (PlModel *model)
{
  g_return_val_if_fail (PL_IS_MODEL (model), 0);

  if (pl_model_get_rotary_decoder (model) == NULL)
    return 0;
  return MIN (pl_model_get_n_positions (model), PL_ROTARY_SAMPLE_LENGTH);
}

char *
pl_question_analytic_rope (PlModel *model)
{
  const PlRotaryDecoderSpec *decoder;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  if ((decoder = pl_model_get_rotary_decoder (model)) == NULL)
    return NULL;
  return g_strdup_printf ("builtin:rope:%ux%u:%g", MIN (pl_model_get_n_positions (model), 1024u),
                          decoder->rope.dim, decoder->rope.theta);
}

int
pl_question_table_layer (PlModel *model)
{
  g_return_val_if_fail (PL_IS_MODEL (model), PL_LAYER_TABLE);

  return pl_model_get_activations (model) != NULL ? 0 : PL_LAYER_TABLE;
}

char *
pl_question_table_name (PlModel *model)
{
  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  if (pl_model_get_activations (model) == NULL)
    return g_strdup (pl_model_get_name (model));
  /* Translators: what an activations file stands in with where tables are compared: its name, then this */
  return g_strdup_printf (_("%s · embedding output"), pl_model_get_name (model));
}

gboolean
pl_question_shows_patches (PlModel *model,
                           int      layer,
                           guint   *cols)
{
  g_return_val_if_fail (model == NULL || PL_IS_MODEL (model), FALSE);

  return model != NULL && layer == PL_LAYER_TABLE && pl_model_get_grid (model, NULL, cols);
}
