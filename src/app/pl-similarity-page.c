/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-figure-view.h"
#include "pl-layer-picker.h"
#include "pl-page-runner.h"
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
  GtkWidget        parent_instance;

  gboolean         stale;          /* asked while hidden: answered when shown */

  PlWorkspace     *workspace;
  PlPageRunner    *runner;
  PlMatrix        *shown;          /* the matrix on screen, for the hover readout */
  guint            shown_first;    /* its first position number */

  /* Template widgets */
  GtkDropDown     *metric_dropdown;
  GtkToggleButton *center_button;
  PlLayerPicker   *layer_picker;
  GtkLabel        *readout;
  GtkStack        *stack;
  AdwStatusPage   *error_page;
  PlFigureView    *figure_view;
  GtkSpinner      *spinner;
};

static void page_iface_init (PlPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PlSimilarityPage, pl_similarity_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (PL_TYPE_PAGE, page_iface_init))

static PlSimilarityMetric
get_metric (PlSimilarityPage *self)
{
  return (PlSimilarityMetric) gtk_drop_down_get_selected (self->metric_dropdown);
}

static char *
answer_key (PlSimilarityPage *self)
{
  return pl_similarity_question_key (pl_workspace_get_model (self->workspace),
                                     pl_workspace_get_layer (self->workspace),
                                     get_metric (self),
                                     gtk_toggle_button_get_active (self->center_button));
}

static void on_selection_changed (PlSimilarityPage *self);

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
  PlModel *model = pl_workspace_get_model (self->workspace);
  PlSimilarityMetric metric = get_metric (self);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (matrix, 0);
  g_autofree char *layer = pl_workspace_describe_layer (self->workspace, pl_workspace_get_layer (self->workspace));
  g_autofree char *title = NULL;
  const char *metric_name = gtk_string_object_get_string (gtk_drop_down_get_selected_item (self->metric_dropdown));

  /* Cosine of a table has a natural scale. Layers' mean hidden states share
   * a large common vector, so there the scale follows the data, or every
   * cell would look the same. */
  if (metric == PL_SIMILARITY_COSINE && pl_workspace_get_layer (self->workspace) == PL_LAYER_TABLE)
    pl_figure_set_range (figure, -1.0, 1.0);
  pl_view_style_apply (figure, self->workspace);
  /* Translators: figure title: model — layer; the colour bar says what is shown */
  title = g_strdup_printf (_("%s — %s"), pl_model_get_name (model), layer);
  pl_figure_set_title (figure, title);
  pl_figure_set_value_label (figure, metric_name);

  g_clear_pointer (&self->shown, pl_matrix_unref);
  self->shown = pl_matrix_ref (matrix);
  self->shown_first = 0;
  pl_figure_view_set_figure (self->figure_view, figure, matrix->cols, matrix->rows);
  on_selection_changed (self);
  gtk_stack_set_visible_child_name (self->stack, "figure");
}

static void
on_answer (gpointer      page,
           const GValue *answer,
           const GError *error)
{
  PlSimilarityPage *self = page;

  if (answer == NULL)
    {
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      return;
    }
  show_matrix (self, g_value_get_boxed (answer));
}

static void
refresh (PlSimilarityPage *self)
{
  g_autofree char *key = NULL;
  PlModel *model = self->workspace ? pl_workspace_get_model (self->workspace) : NULL;

  if (pl_page_defer_until_shown (GTK_WIDGET (self), &self->stale))
    {
      pl_page_runner_cancel (self->runner);
      return;
    }

  if (model == NULL)
    {
      pl_page_runner_cancel (self->runner);
      g_clear_pointer (&self->shown, pl_matrix_unref);
      pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  /* Until the first answer, say that one is coming rather than "no model". */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "empty") == 0)
    gtk_stack_set_visible_child_name (self->stack, "loading");
  key = answer_key (self);
  pl_page_runner_ask (self->runner, self->workspace, key, model, pl_workspace_get_layer (self->workspace),
                      make_question, pl_similarity_question_run, (GDestroyNotify) pl_similarity_question_free,
                      on_answer);
}

static void
on_selection_changed (PlSimilarityPage *self)
{
  guint start, end;

  pl_workspace_get_selection (self->workspace, &start, &end);
  pl_figure_view_set_highlight (self->figure_view, start - MIN (start, self->shown_first),
                                end - MIN (end, self->shown_first));
}

static void
on_style_changed (PlSimilarityPage *self)
{
  PlFigure *figure = pl_figure_view_get_figure (self->figure_view);

  if (figure != NULL)
    {
      pl_view_style_apply (figure, self->workspace);
      pl_figure_view_invalidate (self->figure_view);
    }
}

static void
page_set_workspace (PlPage      *page,
                    PlWorkspace *workspace)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);

  if (self->workspace != NULL)
    g_signal_handlers_disconnect_by_data (self->workspace, self);
  if (!g_set_object (&self->workspace, workspace))
    return;

  pl_layer_picker_set_workspace (self->layer_picker, workspace);
  if (workspace != NULL && pl_workspace_get_settings (workspace) != NULL)
    {
      GSettings *settings = pl_workspace_get_settings (workspace);
      g_autofree char *metric_name = g_settings_get_string (settings, "similarity-metric");
      PlSimilarityMetric metric;

      /* The preferences give the starting question. */
      if (pl_similarity_metric_from_string (metric_name, &metric))
        gtk_drop_down_set_selected (self->metric_dropdown, metric);
      gtk_toggle_button_set_active (self->center_button, g_settings_get_boolean (settings, "center"));
    }
  if (workspace != NULL)
    {
      g_signal_connect_object (workspace, "notify::model", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (workspace, "notify::layer", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (workspace, "notify::selection", G_CALLBACK (on_selection_changed), self, G_CONNECT_SWAPPED);
      pl_view_style_connect (workspace, G_CALLBACK (on_style_changed), self);
    }
  refresh (self);
}

static PlFigure *
page_get_figure (PlPage *page)
{
  return pl_similarity_page_get_figure (PL_SIMILARITY_PAGE (page));
}

static char *
page_get_export_name (PlPage *page)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (page);
  PlModel *model = pl_workspace_get_model (self->workspace);
  int layer = pl_workspace_get_layer (self->workspace);
  g_autofree char *layer_part = layer == PL_LAYER_TABLE ? g_strdup ("") : g_strdup_printf ("-layer-%d", layer);

  return g_strdup_printf ("%s-%s%s%s", model ? pl_model_get_name (model) : "poslens",
                          pl_similarity_metric_to_string (get_metric (self)),
                          gtk_toggle_button_get_active (self->center_button) ? "-centred" : "",
                          layer_part);
}

static void
page_iface_init (PlPageInterface *iface)
{
  iface->set_workspace = page_set_workspace;
  iface->get_figure = page_get_figure;
  iface->get_export_name = page_get_export_name;
}

PlFigure *
pl_similarity_page_get_figure (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), NULL);
  return pl_figure_view_get_figure (self->figure_view);
}

GtkWidget *
pl_similarity_page_get_figure_view (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), NULL);
  return GTK_WIDGET (self->figure_view);
}

gboolean
pl_similarity_page_get_busy (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), FALSE);
  return pl_page_runner_get_busy (self->runner);
}

static void
on_parameters_changed (PlSimilarityPage *self)
{
  refresh (self);
}

static void
on_hover (PlSimilarityPage *self,
          gboolean          inside,
          guint             column,
          guint             row,
          PlFigureView     *view)
{
  g_autofree char *text = NULL;
  float value;

  if (!inside || self->shown == NULL || row >= self->shown->rows || column >= self->shown->cols)
    {
      gtk_label_set_text (self->readout, "");
      return;
    }
  value = pl_matrix_get (self->shown, row, column);
  if (isnan (value))
    /* Translators: hover readout for an undefined value (a zero row has no cosine) */
    text = g_strdup_printf (_("i = %u, j = %u: no value"), row + self->shown_first, column + self->shown_first);
  else
    text = g_strdup_printf ("i = %u, j = %u: %.4f", row + self->shown_first, column + self->shown_first, value);
  gtk_label_set_text (self->readout, text);
}

static void
on_select (PlSimilarityPage *self,
           guint             start,
           guint             end,
           PlFigureView     *view)
{
  if (self->workspace != NULL)
    pl_workspace_set_selection (self->workspace, start + self->shown_first, end + self->shown_first);
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

  g_clear_pointer (&self->runner, pl_page_runner_free);
  g_clear_object (&self->workspace);
  g_clear_pointer (&self->shown, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_SIMILARITY_PAGE);
  pl_widget_unparent_children (GTK_WIDGET (self));

  G_OBJECT_CLASS (pl_similarity_page_parent_class)->dispose (object);
}

static void
pl_similarity_page_map (GtkWidget *widget)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (widget);

  GTK_WIDGET_CLASS (pl_similarity_page_parent_class)->map (widget);
  if (self->stale)
    refresh (self);
}

static void
pl_similarity_page_class_init (PlSimilarityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_similarity_page_dispose;
  widget_class->map = pl_similarity_page_map;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_LAYER_PICKER);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-similarity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, center_button);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, layer_picker);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, readout);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, stack);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, figure_view);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, spinner);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_hover);
  gtk_widget_class_bind_template_callback (widget_class, on_select);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_zoom);
}

static void
pl_similarity_page_init (PlSimilarityPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->runner = pl_page_runner_new (self, self->spinner);
}
