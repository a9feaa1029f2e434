/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-figure-view.h"
#include "pl-probes.h"
#include "pl-probes-page.h"
#include "pl-view-style.h"

/* The paper's Table 1 for every model in the sidebar, side by side. Probes
 * take seconds, so they run when asked, one model after another on a
 * worker, and the table fills in as answers arrive. */
struct _PlProbesPage
{
  GtkWidget       parent_instance;

  PlWorkspace    *workspace;
  GCancellable   *cancellable;
  guint           next;          /* the model being probed */

  /* Template widgets */
  GtkDropDown    *folds_dropdown;
  GtkSpinButton  *pairs_spin;
  GtkButton      *run_button;
  GtkSpinner     *spinner;
  GtkLabel       *status_label;
  PlFigureView   *figure_view;
};

static void page_iface_init (PlPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PlProbesPage, pl_probes_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (PL_TYPE_PAGE, page_iface_init))

typedef struct
{
  PlMatrix       *table;
  PlProbeOptions  options;
} Question;

static void
question_free (Question *q)
{
  g_clear_pointer (&q->table, pl_matrix_unref);
  g_free (q);
}

static void
get_options (PlProbesPage   *self,
             PlProbeOptions *options)
{
  pl_probe_options_init (options);
  options->folds = gtk_drop_down_get_selected (self->folds_dropdown) == 0 ? PL_FOLDS_INTERLEAVED
                                                                          : PL_FOLDS_SHUFFLED;
  options->n_pairs = (guint) gtk_spin_button_get_value (self->pairs_spin);
}

static char *
answer_key (PlProbesPage *self,
            PlModel      *model)
{
  PlProbeOptions options;

  get_options (self, &options);
  return g_strdup_printf ("probes/%s/%s/%u/%u", pl_workspace_model_key (model),
                          pl_folds_to_string (options.folds), options.n_pairs, options.seed);
}

/* The answer as a 1 × 3 matrix: rows, absolute MAE, relative error. */
static gboolean
run_probes (PlAnalysisJob  *job,
            gpointer        data,
            GValue         *result,
            GError        **error)
{
  Question *q = data;
  PlProbeResult probe;
  PlMatrix *answer;

  if (!pl_probe_run (q->table, &q->options, &probe, pl_analysis_job_get_cancellable (job), error))
    return FALSE;
  answer = pl_matrix_new (1, 3);
  answer->data[0] = probe.rows;
  answer->data[1] = (float) probe.absolute_mae;
  answer->data[2] = (float) probe.relative_error;
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, answer);
  return TRUE;
}

static void
rebuild (PlProbesPage *self)
{
  const char *columns[] = { _("Absolute position MAE"), _("Relative order error"), NULL };
  g_autoptr(PlFigure) figure = NULL;
  GListModel *models = self->workspace ? pl_workspace_get_models (self->workspace) : NULL;
  guint n = models ? g_list_model_get_n_items (models) : 0;

  figure = pl_figure_new_table (columns);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);
      g_autofree char *key = answer_key (self, model);
      const GValue *answer = pl_analysis_cache_lookup (pl_workspace_get_cache (self->workspace), key);
      double values[2] = { NAN, NAN };

      if (answer != NULL)
        {
          PlMatrix *m = g_value_get_boxed (answer);
          values[0] = m->data[1];
          values[1] = m->data[2];
        }
      pl_figure_add_row (figure, pl_model_get_name (model), values);
    }
  pl_view_style_apply (figure, self->workspace);
  pl_figure_set_title (figure, _("Probes of the position tables"));
  pl_figure_view_set_figure (self->figure_view, figure, 0, 0);
}

static void set_running (PlProbesPage *self, gboolean running);
static void probe_next (PlProbesPage *self);

static void
answer_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PlProbesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->workspace == NULL)
    return;
  if (answer == NULL)
    gtk_label_set_text (self->status_label, error->message);
  self->next++;
  rebuild (self);
  probe_next (self);
}

static void
table_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(PlProbesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_workspace_get_table_finish (PL_WORKSPACE (object), result, &error);
  g_autoptr(PlModel) model = NULL;
  g_autofree char *key = NULL;
  Question *q;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->workspace == NULL)
    return;
  if (table == NULL)
    {
      gtk_label_set_text (self->status_label, error->message);
      self->next++;
      probe_next (self);
      return;
    }
  model = g_list_model_get_item (pl_workspace_get_models (self->workspace), self->next);
  key = answer_key (self, model);
  q = g_new0 (Question, 1);
  q->table = g_steal_pointer (&table);
  get_options (self, &q->options);
  pl_analysis_cache_run_async (pl_workspace_get_cache (self->workspace), key, run_probes,
                               q, (GDestroyNotify) question_free, NULL, NULL,
                               self->cancellable, answer_done, g_object_ref (self));
}

/* Probes the next model without an answer, or stops at the end of the list. */
static void
probe_next (PlProbesPage *self)
{
  GListModel *models = pl_workspace_get_models (self->workspace);
  guint n = g_list_model_get_n_items (models);

  for (; self->next < n; self->next++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, self->next);
      g_autofree char *key = answer_key (self, model);
      g_autofree char *status = NULL;

      if (pl_analysis_cache_lookup (pl_workspace_get_cache (self->workspace), key))
        continue;
      /* Translators: progress of the probes, e.g. "Probing mini-bert (2 of 4)…" */
      status = g_strdup_printf (_("Probing %s (%u of %u)…"), pl_model_get_name (model), self->next + 1, n);
      gtk_label_set_text (self->status_label, status);
      pl_workspace_get_table_async (self->workspace, model, PL_LAYER_TABLE, self->cancellable,
                                    table_done, g_object_ref (self));
      return;
    }
  set_running (self, FALSE);
}

static void
set_running (PlProbesPage *self,
             gboolean      running)
{
  if (!running)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
      if (g_strcmp0 (gtk_label_get_text (self->status_label), "") != 0 &&
          g_str_has_suffix (gtk_label_get_text (self->status_label), "…"))
        gtk_label_set_text (self->status_label, "");
    }
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->run_button), !running);
}

void
pl_probes_page_run (PlProbesPage *self)
{
  g_return_if_fail (PL_IS_PROBES_PAGE (self));

  if (self->workspace == NULL || self->cancellable != NULL)
    return;
  self->cancellable = g_cancellable_new ();
  self->next = 0;
  set_running (self, TRUE);
  probe_next (self);
}

gboolean
pl_probes_page_get_busy (PlProbesPage *self)
{
  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), FALSE);
  return self->cancellable != NULL;
}

gboolean
pl_probes_page_get_result (PlProbesPage *self,
                           PlModel      *model,
                           double       *absolute_mae,
                           double       *relative_error)
{
  g_autofree char *key = NULL;
  const GValue *answer;
  PlMatrix *m;

  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), FALSE);
  g_return_val_if_fail (PL_IS_MODEL (model), FALSE);

  key = answer_key (self, model);
  if (!(answer = pl_analysis_cache_lookup (pl_workspace_get_cache (self->workspace), key)))
    return FALSE;
  m = g_value_get_boxed (answer);
  *absolute_mae = m->data[1];
  *relative_error = m->data[2];
  return TRUE;
}

static void
on_run_clicked (PlProbesPage *self)
{
  pl_probes_page_run (self);
}

static void
on_parameters_changed (PlProbesPage *self)
{
  /* Other options are other questions: stop, and show what is known for them. */
  set_running (self, FALSE);
  rebuild (self);
}

static void
on_models_changed (PlProbesPage *self)
{
  rebuild (self);
}

static void
page_set_workspace (PlPage      *page,
                    PlWorkspace *workspace)
{
  PlProbesPage *self = PL_PROBES_PAGE (page);

  if (!g_set_object (&self->workspace, workspace))
    return;
  g_signal_connect_object (pl_workspace_get_models (workspace), "items-changed",
                           G_CALLBACK (on_models_changed), self, G_CONNECT_SWAPPED);
  pl_view_style_connect (workspace, G_CALLBACK (on_models_changed), self);
  rebuild (self);
}

static PlFigure *
page_get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_PROBES_PAGE (page)->figure_view);
}

static char *
page_get_export_name (PlPage *page)
{
  return g_strdup ("poslens-probes");
}

static void
page_iface_init (PlPageInterface *iface)
{
  iface->set_workspace = page_set_workspace;
  iface->get_figure = page_get_figure;
  iface->get_export_name = page_get_export_name;
}

static void
pl_probes_page_dispose (GObject *object)
{
  PlProbesPage *self = PL_PROBES_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->workspace);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_PROBES_PAGE);
  pl_widget_unparent_children (GTK_WIDGET (self));
  G_OBJECT_CLASS (pl_probes_page_parent_class)->dispose (object);
}

static void
pl_probes_page_class_init (PlProbesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_probes_page_dispose;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-probes-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, folds_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, pairs_spin);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, figure_view);
  gtk_widget_class_bind_template_callback (widget_class, on_run_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
}

static void
pl_probes_page_init (PlProbesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
