/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-figure-view.h"
#include "pl-similarity.h"
#include "pl-similarity-page.h"

/* The position-similarity heatmap of one model. The matrix is computed on a
 * worker thread; a new question cancels the one in flight, and answers are
 * kept per (model, metric, centring) so going back redraws at once. */
struct _PlSimilarityPage
{
  GtkWidget      parent_instance;

  PlModel       *model;
  GCancellable  *cancellable;
  GHashTable    *cache;          /* key → PlMatrix */

  /* Template widgets */
  GtkWidget     *toolbar;
  GtkDropDown   *metric_dropdown;
  GtkToggleButton *center_button;
  GtkLabel      *readout;
  GtkStack      *stack;
  AdwStatusPage *error_page;
  PlFigureView  *figure_view;
  GtkSpinner    *spinner;
};

G_DEFINE_FINAL_TYPE (PlSimilarityPage, pl_similarity_page, GTK_TYPE_WIDGET)

typedef struct
{
  PlModel            *model;
  PlSimilarityMetric  metric;
  gboolean            center;
  char               *key;
} Request;

static void
request_free (Request *request)
{
  g_clear_object (&request->model);
  g_free (request->key);
  g_free (request);
}

static char *
cache_key (PlModel *model, PlSimilarityMetric metric, gboolean center)
{
  return g_strdup_printf ("%p/%s/%d", model, pl_similarity_metric_to_string (metric), center);
}

static PlSimilarityMetric
get_metric (PlSimilarityPage *self)
{
  return (PlSimilarityMetric) gtk_drop_down_get_selected (self->metric_dropdown);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Request *request = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = NULL;
  PlMatrix *result;

  if (!(table = pl_model_read_positions (request->model, &error)) ||
      !(result = pl_similarity_compute (table, request->metric, request->center, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) pl_matrix_unref);
}

static void
show_matrix (PlSimilarityPage *self,
             PlMatrix         *matrix)
{
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (matrix, 0);
  PlSimilarityMetric metric = get_metric (self);
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *title = NULL;

  if (metric == PL_SIMILARITY_COSINE)
    pl_figure_set_range (figure, -1.0, 1.0);
  else
    pl_figure_set_range (figure, NAN, NAN);
  pl_figure_set_dark (figure, adw_style_manager_get_dark (style));
  /* Translators: figure title, e.g. "mini-gpt2 — cosine similarity of positions" */
  title = g_strdup_printf (_("%s — %s of positions"), pl_model_get_name (self->model),
                           gtk_string_object_get_string (gtk_drop_down_get_selected_item (self->metric_dropdown)));
  pl_figure_set_title (figure, title);

  pl_figure_view_set_figure (self->figure_view, figure, matrix->cols, matrix->rows);
  gtk_stack_set_visible_child_name (self->stack, "figure");
}

static void
compute_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (object);
  Request *request = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) matrix = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);

  if (matrix == NULL)
    {
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      return;
    }

  g_hash_table_replace (self->cache, g_strdup (request->key), pl_matrix_ref (matrix));
  show_matrix (self, matrix);
}

static void
refresh (PlSimilarityPage *self)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *key = NULL;
  PlMatrix *cached;
  Request *request;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  if (self->model == NULL)
    {
      pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  key = cache_key (self->model, get_metric (self), gtk_toggle_button_get_active (self->center_button));
  if ((cached = g_hash_table_lookup (self->cache, key)))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);
      show_matrix (self, cached);
      return;
    }

  request = g_new0 (Request, 1);
  request->model = g_object_ref (self->model);
  request->metric = get_metric (self);
  request->center = gtk_toggle_button_get_active (self->center_button);
  request->key = g_steal_pointer (&key);

  self->cancellable = g_cancellable_new ();
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), TRUE);
  gtk_spinner_start (self->spinner);

  task = g_task_new (self, self->cancellable, compute_done, NULL);
  g_task_set_source_tag (task, refresh);
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  g_task_run_in_thread (task, compute_thread);
}

void
pl_similarity_page_set_model (PlSimilarityPage *self,
                              PlModel          *model)
{
  g_return_if_fail (PL_IS_SIMILARITY_PAGE (self));
  g_return_if_fail (!model || PL_IS_MODEL (model));

  if (g_set_object (&self->model, model))
    refresh (self);
}

PlModel *
pl_similarity_page_get_model (PlSimilarityPage *self)
{
  g_return_val_if_fail (PL_IS_SIMILARITY_PAGE (self), NULL);
  return self->model;
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
  g_autofree char *key = NULL;
  PlMatrix *matrix;

  key = cache_key (self->model, get_metric (self), gtk_toggle_button_get_active (self->center_button));
  matrix = self->model ? g_hash_table_lookup (self->cache, key) : NULL;
  if (!inside || matrix == NULL || row >= matrix->rows || column >= matrix->cols)
    {
      gtk_label_set_text (self->readout, "");
      return;
    }
  {
    guint first = pl_model_get_first_position (self->model);
    float value = pl_matrix_get (matrix, row, column);

    if (isnan (value))
      /* Translators: hover readout when a value is undefined (a zero row has no cosine) */
      text = g_strdup_printf (_("i = %u, j = %u: no value"), row + first, column + first);
    else
      text = g_strdup_printf ("i = %u, j = %u: %.4f", row + first, column + first, value);
  }
  gtk_label_set_text (self->readout, text);
}

static void
on_reset_zoom (PlSimilarityPage *self)
{
  pl_figure_view_reset_zoom (self->figure_view);
}

static void
on_dark_changed (PlSimilarityPage *self)
{
  PlFigure *figure = pl_figure_view_get_figure (self->figure_view);

  if (figure != NULL)
    {
      pl_figure_set_dark (figure, adw_style_manager_get_dark (adw_style_manager_get_default ()));
      gtk_widget_queue_draw (GTK_WIDGET (self->figure_view));
    }
}

static void
pl_similarity_page_dispose (GObject *object)
{
  PlSimilarityPage *self = PL_SIMILARITY_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->model);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_SIMILARITY_PAGE);

  G_OBJECT_CLASS (pl_similarity_page_parent_class)->dispose (object);
}

static void
pl_similarity_page_class_init (PlSimilarityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_similarity_page_dispose;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-similarity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, toolbar);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, center_button);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, readout);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, stack);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, figure_view);
  gtk_widget_class_bind_template_child (widget_class, PlSimilarityPage, spinner);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_hover);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_zoom);
}

static void
pl_similarity_page_init (PlSimilarityPage *self)
{
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) pl_matrix_unref);
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}
