/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-bias-view.h"
#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-layer-picker.h"
#include "pl-questions.h"
#include "pl-similarity.h"
#include "pl-similarity-page.h"
#include "pl-view-style.h"

/* The position-similarity heatmap of the workspace's model and layer. The
 * table and the matrix are computed on workers; a new question cancels the
 * one in flight, and answers stay in the workspace's cache, so stepping back
 * to a layer or metric seen before redraws at once. */
struct _PlSimilarityPage
{
  PlPage           parent_instance;

  PlMatrix        *shown;          /* the matrix on screen, for the hover readout */
  PlSimilarityMetric shown_metric;

  /* Template widgets */
  GtkDropDown     *metric_dropdown;
  GtkToggleButton *center_button;
  PlLayerPicker   *layer_picker;
  GtkLabel        *family_label;
};

G_DEFINE_FINAL_TYPE (PlSimilarityPage, pl_similarity_page, PL_TYPE_PAGE)

static PlSimilarityMetric
get_metric (PlSimilarityPage *self)
{
  return (PlSimilarityMetric) pl_drop_down_get_value (self->metric_dropdown);
}

static gpointer
make_question (PlPage   *page,
               PlMatrix *table)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);

  return pl_similarity_question_new (table, get_metric (self), gtk_toggle_button_get_active (self->center_button));
}

static void
show_matrix (PlSimilarityPage *self,
             PlMatrix         *matrix)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  PlModel *model = pl_workspace_get_model (workspace);
  PlSimilarityMetric metric = get_metric (self);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (matrix, 0);
  g_autofree char *layer = pl_workspace_describe_layer (workspace, pl_workspace_get_layer (workspace));
  g_autofree char *title = NULL;
  const char *metric_name = pl_enum_label (PL_TYPE_SIMILARITY_METRIC, metric);
  guint cols;

  /* Cosine of a table has a natural scale. Layers' mean hidden states share
   * a large common vector, so there the scale follows the data, or every
   * cell would look the same. */
  if (metric == PL_SIMILARITY_COSINE && pl_workspace_get_layer (workspace) == PL_LAYER_TABLE)
    pl_figure_set_range (figure, -1.0, 1.0);
  pl_view_style_apply_metric (figure, workspace, metric);
  /* Translators: figure title: model — layer; the colour bar says what is shown */
  title = g_strdup_printf (_("%s — %s"), pl_model_get_name (model), layer);
  pl_figure_set_title (figure, title);
  pl_figure_set_value_label (figure, metric_name);

  g_clear_pointer (&self->shown, pl_matrix_unref);
  self->shown = pl_matrix_ref (matrix);
  self->shown_metric = metric;
  /* A vision transformer's patches, flattened as it reads them. */
  if (pl_workspace_shows_patches (workspace, &cols))
    pl_figure_set_axis_labels (figure, _("Patch, row by row"), _("Patch, row by row"));
  /* DeBERTa's relative table: rows are buckets of i − j, zero marked. */
  if (pl_workspace_get_layer (workspace) == PL_LAYER_TABLE && pl_model_get_relative_zero_row (model) > 0)
    {
      pl_figure_set_first_position (figure, -(int) pl_model_get_relative_zero_row (model));
      pl_figure_set_axis_labels (figure, _("Relative bucket of i − j"), _("Relative bucket of i − j"));
    }
  pl_figure_view_set_figure (pl_page_get_figure_view (PL_PAGE (self)), figure, matrix->cols, matrix->rows);
  pl_page_show_figure (PL_PAGE (self));
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlMatrix *matrix = pl_page_answer_or_error (page, answer, error);

  if (matrix != NULL)
    show_matrix (PL_SIMILARITY_PAGE (page), matrix);
}

static void
refresh (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlWorkspace *workspace = pl_page_get_workspace (page);
  PlModel *model;
  g_autofree char *key = NULL;

  pl_bias_view_clear (page);
  pl_bias_view_show_explanation (self->family_label, workspace);
  /* T5's and ALiBi's bias stands in for the table they do not have; the
   * measures of similarity do not act on it. */
  gtk_widget_set_visible (GTK_WIDGET (self->metric_dropdown), !pl_bias_view_applies (workspace));
  gtk_widget_set_visible (GTK_WIDGET (self->center_button), !pl_bias_view_applies (workspace));
  if (pl_bias_view_applies (workspace))
    {
      g_clear_pointer (&self->shown, pl_matrix_unref);
      pl_bias_view_show (page);
      return;
    }
  model = pl_page_begin_layer_question (page);
  if (model == NULL)
    {
      g_clear_pointer (&self->shown, pl_matrix_unref);
      pl_figure_view_set_figure (pl_page_get_figure_view (page), NULL, 0, 0);
      return;
    }
  key = pl_similarity_question_key (model, pl_workspace_get_layer (workspace), get_metric (self),
                                    gtk_toggle_button_get_active (self->center_button));
  pl_page_runner_ask_table (pl_page_get_runner (page), key, model, pl_workspace_get_layer (workspace),
                            make_question, pl_similarity_question_run,
                            (GDestroyNotify) pl_similarity_question_free, on_answer);
}

static void
style_changed (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlFigureView *view = pl_page_get_figure_view (page);

  if (pl_figure_view_get_figure (view) != NULL)
    {
      pl_view_style_apply_metric (pl_figure_view_get_figure (view), pl_page_get_workspace (page),
                                  self->shown_metric);
      pl_figure_view_invalidate (view);
    }
}

static void
workspace_changed (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlWorkspace *workspace = pl_page_get_workspace (page);
  GSettings *settings = pl_workspace_get_settings (workspace);

  pl_layer_picker_set_workspace (self->layer_picker, workspace);
  if (settings != NULL)
    {
      g_autofree char *metric_name = g_settings_get_string (settings, "similarity-metric");
      PlSimilarityMetric metric;

      /* The preferences give the starting question. */
      if (pl_similarity_metric_from_string (metric_name, &metric))
        pl_drop_down_set_value (self->metric_dropdown, metric);
      gtk_toggle_button_set_active (self->center_button, g_settings_get_boolean (settings, "center"));
    }
}

static char *
get_export_name (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlModel *model = pl_workspace_get_model (pl_page_get_workspace (page));
  int layer = pl_workspace_get_layer (pl_page_get_workspace (page));
  g_autofree char *layer_part = layer == PL_LAYER_TABLE ? g_strdup ("") : g_strdup_printf ("-layer-%d", layer);

  if (pl_bias_view_get_bias (page) != NULL)
    return g_strdup_printf ("%s-position-bias", pl_model_get_name (model));
  return g_strdup_printf ("%s-%s%s%s", model ? pl_model_get_name (model) : "poslens",
                          pl_similarity_metric_to_string (get_metric (self)),
                          gtk_toggle_button_get_active (self->center_button) ? "-centred" : "",
                          layer_part);
}

PlMatrix *
pl_similarity_page_get_matrix (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), NULL);
  return self->shown;
}

void
pl_similarity_page_set_metric (PlSimilarityPage   *self,
                               PlSimilarityMetric  metric)
{
  g_return_if_fail (PL_IS_SIMILARITY_PAGE (self));
  pl_drop_down_set_value (self->metric_dropdown, metric);
}

static void
on_parameters_changed (PlSimilarityPage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

static char *
on_describe (PlSimilarityPage *self,
             int               panel,
             guint             column,
             guint             row,
             PlFigureView     *view)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  PlModel *model = pl_workspace_get_model (workspace);
  g_autofree char *layer = NULL;
  float value;
  guint cols;

  if (pl_bias_view_get_bias (PL_PAGE (self)) != NULL)
    return pl_bias_view_describe (PL_PAGE (self), panel, column, row);
  if (self->shown == NULL || row >= self->shown->rows || column >= self->shown->cols)
    return NULL;
  layer = pl_workspace_describe_layer (workspace, pl_workspace_get_layer (workspace));
  value = pl_matrix_get (self->shown, row, column);
  if (model != NULL && pl_workspace_get_layer (workspace) == PL_LAYER_TABLE &&
      pl_model_get_relative_zero_row (model) > 0)
    {
      g_autofree char *a = pl_model_describe_relative_row (model, row);
      g_autofree char *b = pl_model_describe_relative_row (model, column);

      /* Translators: hover readout: two rows of DeBERTa's relative table (what offsets each stands for), the measure and its value */
      return g_strdup_printf (_("%s\n%s\n%s: %.4f"), a, b,
                              pl_enum_label (PL_TYPE_SIMILARITY_METRIC, get_metric (self)), value);
    }
  if (pl_workspace_shows_patches (workspace, &cols))
    {
      g_autofree char *where = NULL;

      /* Translators: hover readout: what two positions of a vision transformer's table are (patches by row and column), then the layer */
      where = g_strdup_printf (_("= patches (%u, %u) and (%u, %u), read row by row (special tokens left out)\n%s"),
                               row / cols, row % cols, column / cols, column % cols, layer);
      g_free (layer);
      layer = g_steal_pointer (&where);
    }
  if (isnan (value))
    /* Translators: hover readout: positions i and j, the layer; a zero row has no cosine */
    return g_strdup_printf (_("Positions %u and %u\n%s: no value"), row, column, layer);
  /* Translators: hover readout: positions i and j, the layer, the measure and its value */
  return g_strdup_printf (_("Positions %u and %u\n%s\n%s: %.4f"), row, column, layer,
                          pl_enum_label (PL_TYPE_SIMILARITY_METRIC, get_metric (self)), value);
}

static void
on_select (PlSimilarityPage *self,
           guint             start,
           guint             end,
           PlFigureView     *view)
{
  if (pl_page_get_workspace (PL_PAGE (self)) != NULL)
    pl_workspace_set_selection (pl_page_get_workspace (PL_PAGE (self)), start, end);
}

static void
on_reset_zoom (PlSimilarityPage *self)
{
  pl_figure_view_reset_zoom (pl_page_get_figure_view (PL_PAGE (self)));
}

static void
pl_similarity_page_dispose (GObject *object)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (object);

  g_clear_pointer (&self->shown, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_SIMILARITY_PAGE);
  G_OBJECT_CLASS (pl_similarity_page_parent_class)->dispose (object);
}

static void
pl_similarity_page_class_init (PlSimilarityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_similarity_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODEL | PL_PAGE_FOLLOWS_LAYER | PL_PAGE_FOLLOWS_SELECTION;
  page_class->refresh = refresh;
  page_class->workspace_changed = workspace_changed;
  page_class->style_changed = style_changed;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_LAYER_PICKER);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-similarity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, center_button);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, layer_picker);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, family_label);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
  gtk_widget_class_bind_template_callback (widget_class, on_select);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_zoom);
}

static void
pl_similarity_page_init (PlSimilarityPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->metric_dropdown, PL_TYPE_SIMILARITY_METRIC);
}
