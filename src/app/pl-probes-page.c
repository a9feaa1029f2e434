/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-probes.h"
#include "pl-probes-page.h"
#include "pl-view-style.h"

/* The paper's Table 1 for every model in the sidebar, side by side. Probes
 * take seconds, so they run when asked, one model after another on a
 * worker, and the table fills in as answers arrive. */
struct _PlProbesPage
{
  PlPage          parent_instance;

  GCancellable   *cancellable;
  guint           next;          /* the model being probed */

  /* Template widgets */
  GtkDropDown    *folds_dropdown;
  GtkSpinButton  *pairs_spin;
  GtkButton      *run_button;
  GtkLabel       *status_label;
  PlFigureView   *figure_view;
};

G_DEFINE_FINAL_TYPE (PlProbesPage, pl_probes_page, PL_TYPE_PAGE)

static PlWorkspace *
get_workspace (PlProbesPage *self)
{
  return pl_page_get_workspace (PL_PAGE (self));
}

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
  options->folds = (PlFolds) pl_drop_down_get_value (self->folds_dropdown);
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
  GListModel *models;
  guint n;

  if (get_workspace (self) == NULL)
    return;
  models = pl_workspace_get_models (get_workspace (self));
  n = g_list_model_get_n_items (models);
  figure = pl_figure_new_table (columns);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);
      g_autofree char *key = answer_key (self, model);
      const GValue *answer = pl_analysis_cache_lookup (pl_workspace_get_cache (get_workspace (self)), key);
      double values[2] = { NAN, NAN };

      if (answer != NULL)
        {
          PlMatrix *m = g_value_get_boxed (answer);
          values[0] = m->data[1];
          values[1] = m->data[2];
        }
      pl_figure_add_row (figure, pl_model_get_name (model), values);
    }
  pl_view_style_apply (figure, get_workspace (self));
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

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || get_workspace (self) == NULL)
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

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || get_workspace (self) == NULL)
    return;
  if (table == NULL)
    {
      gtk_label_set_text (self->status_label, error->message);
      self->next++;
      probe_next (self);
      return;
    }
  model = g_list_model_get_item (pl_workspace_get_models (get_workspace (self)), self->next);
  key = answer_key (self, model);
  q = g_new0 (Question, 1);
  q->table = g_steal_pointer (&table);
  get_options (self, &q->options);
  pl_analysis_cache_run_async (pl_workspace_get_cache (get_workspace (self)), key, run_probes,
                               q, (GDestroyNotify) question_free, NULL, NULL,
                               self->cancellable, answer_done, g_object_ref (self));
}

/* Probes the next model without an answer, or stops at the end of the list. */
static void
probe_next (PlProbesPage *self)
{
  GListModel *models = pl_workspace_get_models (get_workspace (self));
  guint n = g_list_model_get_n_items (models);

  for (; self->next < n; self->next++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, self->next);
      g_autofree char *key = answer_key (self, model);
      g_autofree char *status = NULL;

      if (pl_analysis_cache_lookup (pl_workspace_get_cache (get_workspace (self)), key))
        continue;
      /* Translators: progress of the probes, e.g. "Probing mini-bert (2 of 4)…" */
      status = g_strdup_printf (_("Probing %s (%u of %u)…"), pl_model_get_name (model), self->next + 1, n);
      gtk_label_set_text (self->status_label, status);
      pl_workspace_get_table_async (get_workspace (self), model, PL_LAYER_TABLE, self->cancellable,
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
  pl_page_set_busy (PL_PAGE (self), running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->run_button), !running);
}

void
pl_probes_page_run (PlProbesPage *self)
{
  g_return_if_fail (PL_IS_PROBES_PAGE (self));

  if (get_workspace (self) == NULL || self->cancellable != NULL)
    return;
  self->cancellable = g_cancellable_new ();
  self->next = 0;
  set_running (self, TRUE);
  probe_next (self);
}

static gboolean
get_busy (PlPage *page)
{
  return PL_PROBES_PAGE (page)->cancellable != NULL;
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
  if (!(answer = pl_analysis_cache_lookup (pl_workspace_get_cache (get_workspace (self)), key)))
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
  pl_page_refresh (PL_PAGE (self));
}

static void
refresh (PlPage *page)
{
  rebuild (PL_PROBES_PAGE (page));
}

static PlFigure *
get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_PROBES_PAGE (page)->figure_view);
}

static char *
get_export_name (PlPage *page)
{
  return g_strdup ("poslens-probes");
}

static void
pl_probes_page_dispose (GObject *object)
{
  PlProbesPage *self = PL_PROBES_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_PROBES_PAGE);
  G_OBJECT_CLASS (pl_probes_page_parent_class)->dispose (object);
}

static void
pl_probes_page_class_init (PlProbesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_probes_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODELS;
  page_class->refresh = refresh;
  page_class->style_changed = refresh;
  page_class->get_figure = get_figure;
  page_class->get_export_name = get_export_name;
  page_class->get_busy = get_busy;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-probes-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, folds_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, pairs_spin);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, figure_view);
  gtk_widget_class_bind_template_callback (widget_class, on_run_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
}

static void
pl_probes_page_init (PlProbesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->folds_dropdown, PL_TYPE_FOLDS);
  /* The table lists every model, with or without answers yet. */
  pl_page_show_figure (PL_PAGE (self));
}
