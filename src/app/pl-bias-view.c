/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-bias-view.h"
#include "pl-figure-view.h"
#include "pl-model-relpos.h"
#include "pl-questions.h"
#include "pl-view-style.h"

#define BIAS_KEY  "pl-bias-view"
#define HEADS_KEY "pl-bias-view-heads"

char *
pl_bias_view_explain (PlModel *model)
{
  const PlRelposSpec *relpos;
  PlFamily family;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  family = pl_model_get_family (model);
  relpos = pl_model_get_relpos (model);
  if ((family == PL_FAMILY_T5 || family == PL_FAMILY_UMT5) && relpos != NULL)
    {
      gboolean causal = g_strcmp0 (pl_model_get_stack (model), "decoder") == 0;
      guint side = causal ? relpos->n_buckets : relpos->n_buckets / 2;

      /* Translators: the ⓘ paragraph on T5: buckets of one sign, exact ones, max_distance */
      return g_strdup_printf (_("<b>T5’s buckets</b>: T5 (also Flan-T5, mT5, ByT5 and UMT5) adds no position to "
                                "its tokens. Each head adds a learned number to the score of query i for key j, "
                                "looked up by the bucket of the offset j − i. Of the %u buckets for keys on one "
                                "side of the query, the first %u are one offset each; the rest cover offsets up "
                                "to %u in logarithmic steps, and every farther offset shares the last. The "
                                "encoder has buckets for keys before and after the query, the decoder for "
                                "earlier keys only. Dotted lines mark where the bucket changes. T5 learns this "
                                "table in its first layer and every layer reuses it; UMT5 learns one per layer."),
                              side, side / 2, relpos->max_distance);
    }
  if (pl_model_has_position_bias (model))
    /* Translators: the ⓘ paragraph on ALiBi (BLOOM, MPT, builtin:alibi) */
    return g_strdup (_("<b>ALiBi’s slopes</b>: BLOOM, MPT and ALiBi add no position to their tokens and learn "
                       "nothing about it. Head h of H adds m<sub>h</sub> · (j − i) to the score of query i for key "
                       "j: a penalty growing in a straight line with the distance to an earlier key. The slopes "
                       "are geometric, m<sub>h</sub> = 2<sup>−8h/H</sup> when H is a power of two (BLOOM and MPT "
                       "fill in other head counts each its own way): the first head looks mostly at the last few "
                       "tokens, the last one almost evenly far back. Being a fixed rule, it runs on inputs longer "
                       "than any seen in training."));
  if (pl_model_get_table_kind (model) == PL_TABLE_RELATIVE && relpos != NULL)
    /* Translators: the ⓘ paragraph on DeBERTa: the rows, position_buckets / 2, max_relative_positions */
    return g_strdup_printf (_("<b>DeBERTa’s two relative terms</b>: DeBERTa-v2 and v3 add no position to their "
                              "tokens either. Each row of this table stands for a bucket of the offset i − j, "
                              "query minus key: %u rows, the dotted zero bucket in the middle; offsets up to ±%u "
                              "have a bucket each, farther ones share log-spaced buckets up to ±%u. Attention adds "
                              "two terms to the score of content against content: the query’s content against the "
                              "key’s offset (content-to-position) and the key’s content against the query’s "
                              "offset (position-to-content), both through rows of this table. A row is an offset, "
                              "not a position, so the probes do not apply."),
                            2 * relpos->span,
                            relpos->position_buckets > 0 ? relpos->position_buckets / 2 : relpos->span,
                            relpos->max_relative);
  return NULL;
}

void
pl_bias_view_show_explanation (GtkLabel    *label,
                               PlWorkspace *workspace)
{
  PlModel *model = workspace ? pl_workspace_get_model (workspace) : NULL;
  g_autofree char *text = model ? pl_bias_view_explain (model) : NULL;

  gtk_label_set_markup (label, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (label), text != NULL);
}

gboolean
pl_bias_view_applies (PlWorkspace *workspace)
{
  PlModel *model = workspace ? pl_workspace_get_model (workspace) : NULL;

  return model != NULL && pl_workspace_get_layer (workspace) == PL_LAYER_TABLE &&
         pl_model_has_position_bias (model) && pl_model_get_position_table_name (model) == NULL;
}

static gboolean
compute (PlAnalysisJob  *job,
         gpointer        input,
         GValue         *result,
         GError        **error)
{
  PlPositionBias *bias = pl_model_compute_position_bias (input, 0, 0, error);

  if (bias == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_POSITION_BIAS);
  g_value_take_boxed (result, bias);
  return TRUE;
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlPositionBias *bias = pl_page_answer_or_error (page, answer, error);
  PlWorkspace *workspace = pl_page_get_workspace (page);
  PlModel *model = pl_workspace_get_model (workspace);
  g_autofree guint *heads = g_new (guint, 8);
  g_autoptr(PlFigure) figure = NULL;
  g_autofree char *title = NULL;
  guint n;

  if (bias == NULL || model == NULL)
    return;
  n = pl_position_bias_default_heads (bias->n_heads, heads);
  figure = pl_figure_new_position_bias (bias->bias, -(int) (bias->length - 1), bias->buckets, heads, n);
  pl_view_style_apply (figure, workspace);
  if (pl_model_get_stack (model) != NULL)
    /* Translators: figure title: model — the bias of a stack's first layer ("encoder") */
    title = g_strdup_printf (_("%s — position bias, %s layer 1"), pl_model_get_name (model),
                             pl_model_get_stack (model));
  else
    /* Translators: figure title: model — the bias it adds to attention scores */
    title = g_strdup_printf (_("%s — position bias"), pl_model_get_name (model));
  pl_figure_set_title (figure, title);
  g_object_set_data_full (G_OBJECT (page), BIAS_KEY, pl_position_bias_ref (bias),
                          (GDestroyNotify) pl_position_bias_unref);
  g_object_set_data_full (G_OBJECT (page), HEADS_KEY, g_steal_pointer (&heads), g_free);
  pl_figure_view_set_figure (pl_page_get_figure_view (page), figure, 0, 0);
  pl_page_show_figure (page);
}

void
pl_bias_view_show (PlPage *page)
{
  PlModel *model = pl_workspace_get_model (pl_page_get_workspace (page));
  g_autofree char *key = NULL;

  g_return_if_fail (PL_IS_PAGE (page));
  g_return_if_fail (model != NULL);

  pl_bias_view_clear (page);
  pl_page_show_loading (page);
  key = g_strdup_printf ("position-bias/%s", pl_question_model_key (model));
  pl_page_runner_ask (pl_page_get_runner (page), key, compute, g_object_ref (model), g_object_unref, on_answer);
}

void
pl_bias_view_clear (PlPage *page)
{
  g_object_set_data (G_OBJECT (page), BIAS_KEY, NULL);
  g_object_set_data (G_OBJECT (page), HEADS_KEY, NULL);
}

PlPositionBias *
pl_bias_view_get_bias (PlPage *page)
{
  return g_object_get_data (G_OBJECT (page), BIAS_KEY);
}

char *
pl_bias_view_describe (PlPage *page,
                       int     panel,
                       guint   column,
                       guint   row)
{
  PlPositionBias *bias = pl_bias_view_get_bias (page);
  const guint *heads = g_object_get_data (G_OBJECT (page), HEADS_KEY);
  g_autofree char *bucket = NULL;
  int offset;
  guint head;
  float value;

  if (bias == NULL || column >= bias->bias->cols)
    return NULL;
  if (panel == 1)
    {
      guint n = pl_position_bias_default_heads (bias->n_heads, (guint[8]) { 0 });

      if (row >= n)
        return NULL;
      head = heads[row];
    }
  else
    head = row;
  if (head >= bias->n_heads)
    return NULL;
  offset = (int) column - (int) (bias->length - 1);
  value = pl_matrix_get (bias->bias, head, column);
  if (bias->buckets != NULL && bias->buckets[column] >= 0)
    /* Translators: hover readout of T5's bias, after the value: the bucket the offset falls in */
    bucket = g_strdup_printf (_(", bucket %d"), bias->buckets[column]);
  else if (bias->slopes != NULL)
    /* Translators: hover readout of ALiBi's bias, after the value: the head's slope */
    bucket = g_strdup_printf (_(", slope %.6g × offset"), bias->slopes[head]);
  if (isnan (value))
    /* Translators: hover readout: head (from 1), offset j − i; a causal stack never sees keys after the query */
    return g_strdup_printf (_("Head %u, offset %d\nnot seen: a causal stack hides later keys"), head + 1, offset);
  /* Translators: hover readout: head (from 1), offset j − i, the bias added to the score, then the bucket or slope */
  return g_strdup_printf (_("Head %u, offset %d\nbias %.4f%s"), head + 1, offset, value, bucket ? bucket : "");
}
