/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-bias-view.h"
#include "pl-figure-view.h"
#include "pl-questions.h"
#include "pl-view-style.h"

#define BIAS_KEY  "pl-bias-view"
#define HEADS_KEY "pl-bias-view-heads"

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
