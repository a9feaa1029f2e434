/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-figure-view.h"
#include "pl-layer-picker.h"
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

  PlWorkspace     *workspace;
  GCancellable    *cancellable;
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

typedef struct
{
  PlMatrix           *table;
  PlSimilarityMetric  metric;
  gboolean            center;
} Question;

static void
question_free (Question *question)
{
  g_clear_pointer (&question->table, pl_matrix_unref);
  g_free (question);
}

static PlSimilarityMetric
get_metric (PlSimilarityPage *self)
{
  return (PlSimilarityMetric) gtk_drop_down_get_selected (self->metric_dropdown);
}

static char *
answer_key (PlSimilarityPage *self)
{
  PlModel *model = pl_workspace_get_model (self->workspace);

  return g_strdup_printf ("similarity/%s/%d/%s/%d",
                          pl_workspace_model_key (model),
                          pl_workspace_get_layer (self->workspace),
                          pl_similarity_metric_to_string (get_metric (self)),
                          gtk_toggle_button_get_active (self->center_button));
}

static gboolean
compute_similarity (PlAnalysisJob  *job,
                    gpointer        data,
                    GValue         *result,
                    GError        **error)
{
  Question *question = data;
  PlMatrix *matrix = pl_similarity_compute (question->table, question->metric, question->center, error);

  if (matrix == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, matrix);
  return TRUE;
}

static void
set_busy (PlSimilarityPage *self,
          gboolean          busy)
{
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
}

static void
show_error (PlSimilarityPage *self,
            const GError     *error)
{
  set_busy (self, FALSE);
  g_clear_object (&self->cancellable);
  adw_status_page_set_description (self->error_page, error->message);
  gtk_stack_set_visible_child_name (self->stack, "error");
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

  set_busy (self, FALSE);
  g_clear_object (&self->cancellable);

  /* Cosine has a natural scale; the others take the data's. */
  if (metric == PL_SIMILARITY_COSINE)
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
  gtk_stack_set_visible_child_name (self->stack, "figure");
}

static void
similarity_done (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(PlSimilarityPage) self = user_data;
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->workspace == NULL)
    return;
  if (answer == NULL)
    show_error (self, error);
  else
    show_matrix (self, g_value_get_boxed (answer));
}

static void
table_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(PlSimilarityPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_workspace_get_table_finish (PL_WORKSPACE (object), result, &error);
  g_autofree char *key = NULL;
  Question *question;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->workspace == NULL)
    return;
  if (table == NULL)
    {
      show_error (self, error);
      return;
    }

  question = g_new0 (Question, 1);
  question->table = g_steal_pointer (&table);
  question->metric = get_metric (self);
  question->center = gtk_toggle_button_get_active (self->center_button);
  key = answer_key (self);
  pl_analysis_cache_run_async (pl_workspace_get_cache (self->workspace), key,
                               compute_similarity, question, (GDestroyNotify) question_free,
                               NULL, NULL, self->cancellable, similarity_done, g_object_ref (self));
}

static void
refresh (PlSimilarityPage *self)
{
  g_autofree char *key = NULL;
  const GValue *cached;
  PlModel *model;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  model = self->workspace ? pl_workspace_get_model (self->workspace) : NULL;
  if (model == NULL)
    {
      set_busy (self, FALSE);
      g_clear_pointer (&self->shown, pl_matrix_unref);
      pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  key = answer_key (self);
  if ((cached = pl_analysis_cache_lookup (pl_workspace_get_cache (self->workspace), key)))
    {
      show_matrix (self, g_value_get_boxed (cached));
      return;
    }

  self->cancellable = g_cancellable_new ();
  set_busy (self, TRUE);
  pl_workspace_get_table_async (self->workspace, model, pl_workspace_get_layer (self->workspace),
                                self->cancellable, table_done, g_object_ref (self));
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
      gtk_widget_queue_draw (GTK_WIDGET (self->figure_view));
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
  return self->cancellable != NULL;
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

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->workspace);
  g_clear_pointer (&self->shown, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_SIMILARITY_PAGE);
  pl_widget_unparent_children (GTK_WIDGET (self));

  G_OBJECT_CLASS (pl_similarity_page_parent_class)->dispose (object);
}

static void
pl_similarity_page_class_init (PlSimilarityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_similarity_page_dispose;

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
}
