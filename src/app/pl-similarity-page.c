/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

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
  guint            shown_first;    /* its first position number */
  PlSimilarityMetric shown_metric;

  /* Template widgets */
  GtkDropDown     *metric_dropdown;
  GtkToggleButton *center_button;
  PlLayerPicker   *layer_picker;
  PlFigureView    *figure_view;
};

G_DEFINE_FINAL_TYPE (PlSimilarityPage, pl_similarity_page, PL_TYPE_PAGE)

static PlWorkspace *
get_workspace (PlSimilarityPage *self)
{
  return pl_page_get_workspace (PL_PAGE (self));
}

static PlSimilarityMetric
get_metric (PlSimilarityPage *self)
{
  return (PlSimilarityMetric) pl_drop_down_get_value (self->metric_dropdown);
}

static void selection_changed (PlPage *page);

static gpointer
make_question (PlMatrix *table,
               gpointer  page)
{
  PlSimilarityPage *self = page;

  return pl_similarity_question_new (table, get_metric (self), gtk_toggle_button_get_active (self->center_button));
}

static void
show_matrix (PlSimilarityPage *self,
             PlMatrix         *matrix)
{
  PlWorkspace *workspace = get_workspace (self);
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
  self->shown_first = 0;
  self->shown_metric = metric;
  /* A vision transformer's patches, flattened as it reads them. */
  if (pl_workspace_shows_patches (workspace, &cols))
    pl_figure_set_axis_labels (figure, _("Patch, row by row"), _("Patch, row by row"));
  pl_figure_view_set_figure (self->figure_view, figure, matrix->cols, matrix->rows);
  selection_changed (PL_PAGE (self));
  pl_page_show_figure (PL_PAGE (self));
}

static void
on_answer (gpointer      page,
           const GValue *answer,
           const GError *error)
{
  PlMatrix *matrix = pl_page_answer_or_error (page, answer, error);

  if (matrix != NULL)
    show_matrix (page, matrix);
}

static void
refresh (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlWorkspace *workspace = get_workspace (self);
  PlModel *model = pl_page_begin_layer_question (page);
  g_autofree char *key = NULL;

  if (model == NULL)
    {
      g_clear_pointer (&self->shown, pl_matrix_unref);
      pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
      return;
    }
  key = pl_similarity_question_key (model, pl_workspace_get_layer (workspace), get_metric (self),
                                    gtk_toggle_button_get_active (self->center_button));
  pl_page_runner_ask (pl_page_get_runner (page), workspace, key, model, pl_workspace_get_layer (workspace),
                      make_question, pl_similarity_question_run, (GDestroyNotify) pl_similarity_question_free,
                      on_answer);
}

static void
selection_changed (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  guint start, end;

  pl_workspace_get_selection (get_workspace (self), &start, &end);
  pl_figure_view_set_highlight (self->figure_view, start - MIN (start, self->shown_first),
                                end - MIN (end, self->shown_first));
}

static void
style_changed (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlFigure *figure = pl_figure_view_get_figure (self->figure_view);

  if (figure != NULL)
    {
      pl_view_style_apply_metric (figure, get_workspace (self), self->shown_metric);
      pl_figure_view_invalidate (self->figure_view);
    }
}

static void
workspace_changed (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlWorkspace *workspace = get_workspace (self);
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

static PlFigure *
get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_SIMILARITY_PAGE (page)->figure_view);
}

static char *
get_export_name (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlModel *model = pl_workspace_get_model (get_workspace (self));
  int layer = pl_workspace_get_layer (get_workspace (self));
  g_autofree char *layer_part = layer == PL_LAYER_TABLE ? g_strdup ("") : g_strdup_printf ("-layer-%d", layer);

  return g_strdup_printf ("%s-%s%s%s", model ? pl_model_get_name (model) : "poslens",
                          pl_similarity_metric_to_string (get_metric (self)),
                          gtk_toggle_button_get_active (self->center_button) ? "-centred" : "",
                          layer_part);
}

GtkWidget *
pl_similarity_page_get_figure_view (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), NULL);
  return GTK_WIDGET (self->figure_view);
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
  PlWorkspace *workspace = get_workspace (self);
  g_autofree char *layer = NULL;
  float value;
  guint cols;

  if (self->shown == NULL || row >= self->shown->rows || column >= self->shown->cols)
    return NULL;
  layer = pl_workspace_describe_layer (workspace, pl_workspace_get_layer (workspace));
  if (pl_workspace_shows_patches (workspace, &cols))
    {
      guint i = row + self->shown_first, j = column + self->shown_first;
      g_autofree char *where = NULL;

      /* Translators: hover readout: what two positions of a vision transformer's table are (patches by row and column), then the layer */
      where = g_strdup_printf (_("= patches (%u, %u) and (%u, %u), read row by row (special tokens left out)\n%s"),
                               i / cols, i % cols, j / cols, j % cols, layer);
      g_free (layer);
      layer = g_steal_pointer (&where);
    }
  value = pl_matrix_get (self->shown, row, column);
  if (isnan (value))
    /* Translators: hover readout: positions i and j, the layer; a zero row has no cosine */
    return g_strdup_printf (_("Positions %u and %u\n%s: no value"),
                            row + self->shown_first, column + self->shown_first, layer);
  /* Translators: hover readout: positions i and j, the layer, the measure and its value */
  return g_strdup_printf (_("Positions %u and %u\n%s\n%s: %.4f"), row + self->shown_first,
                          column + self->shown_first, layer, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, get_metric (self)),
                          value);
}

static void
on_select (PlSimilarityPage *self,
           guint             start,
           guint             end,
           PlFigureView     *view)
{
  if (get_workspace (self) != NULL)
    pl_workspace_set_selection (get_workspace (self), start + self->shown_first, end + self->shown_first);
}

static void
on_reset_zoom (PlSimilarityPage *self)
{
  pl_figure_view_reset_zoom (self->figure_view);
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
  page_class->follows = PL_PAGE_FOLLOWS_MODEL | PL_PAGE_FOLLOWS_LAYER;
  page_class->refresh = refresh;
  page_class->workspace_changed = workspace_changed;
  page_class->style_changed = style_changed;
  page_class->selection_changed = selection_changed;
  page_class->get_figure = get_figure;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_LAYER_PICKER);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-similarity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, center_button);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, layer_picker);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, figure_view);
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
