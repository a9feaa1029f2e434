/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "pl-enum-labels.h"
#include "pl-error.h"
#include "pl-figure-view.h"
#include "pl-model.h"
#include "pl-probes.h"
#include "pl-probes-page.h"
#include "pl-questions.h"
#include "pl-view-style.h"

/* The paper's Table 1 for every model in the sidebar, side by side: each
 * probe's mean over the repeats (GSettings probe-repeats, seeds 0, 1, …) ±
 * the 95 % interval of that mean. Probes take seconds, so they run when
 * asked, one model after another on a worker, and the table fills in as
 * answers arrive. The paper's protocol takes the rows PE-Study's code takes
 * (pl_model_read_paper_positions); the others the model's positions. A
 * vision transformer's patches are also probed in two dimensions
 * (pl_probe_grid, one run with the first seed): the regression of the row
 * and of the column, the order along rows and along columns, in four more
 * columns shown when a model has a grid. An activations file has no table:
 * its embedding output stands in, every position it holds, under either
 * protocol (pl_question_table_layer). */
struct _PlProbesPage
{
  PlPage          parent_instance;

  guint           next;          /* the model being probed */
  gboolean        follows_repeats;
  GHashTable     *reasons;       /* PlModel → why it has no answer, a footnote under its name */
  char           *caption;       /* under the table, and in its exports */

  /* Template widgets */
  GtkDropDown    *folds_dropdown;
  GtkSpinButton  *pairs_spin;
  GtkButton      *run_button;
  GtkLabel       *status_label;
};

G_DEFINE_FINAL_TYPE (PlProbesPage, pl_probes_page, PL_TYPE_PAGE)

typedef struct
{
  PlModel        *model;        /* the paper's protocol reads its rows on the worker */
  PlMatrix       *table;        /* the others' table, read by the workspace */
  PlProbeOptions  options;
  guint           n_repeats;
  double          done;         /* the run's progress before this model, */
  double          share;        /* and this model's part of it */
} Question;

typedef struct
{
  PlAnalysisJob  *job;
  const Question *question;
} Progress;

/* The whole run's progress: the models before, and this one's runs. */
static void
report_progress (double   fraction,
                 gpointer data)
{
  Progress *progress = data;

  pl_analysis_job_set_progress (progress->job, progress->question->done + progress->question->share * fraction);
}

static void
question_free (Question *q)
{
  g_clear_object (&q->model);
  g_clear_pointer (&q->table, pl_matrix_unref);
  g_free (q);
}

/* What an answer holds, as the columns of a 1 × N_ANSWER matrix. */
enum
{
  ANSWER_ROWS,
  ANSWER_ABSOLUTE_MEAN,
  ANSWER_ABSOLUTE_HALF_WIDTH,
  ANSWER_RELATIVE_MEAN,
  ANSWER_RELATIVE_HALF_WIDTH,
  ANSWER_PAIRS,
  ANSWER_FEATURES,
  ANSWER_ROW_MAE,             /* the grid probes: NaN for a table without a grid */
  ANSWER_COLUMN_MAE,
  ANSWER_ALONG_ROWS,
  ANSWER_ALONG_COLUMNS,
  N_ANSWER
};

static guint
get_repeats (PlProbesPage *self)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  GSettings *settings = workspace ? pl_workspace_get_settings (workspace) : NULL;

  return settings ? (guint) g_settings_get_int (settings, "probe-repeats") : PL_PROBE_DEFAULT_REPEATS;
}

static void
get_options (PlProbesPage   *self,
             PlProbeOptions *options)
{
  pl_probe_options_init (options);
  options->protocol = pl_probes_page_get_protocol (self);
  /* 0: the protocol's own count (the paper's 512, else by the table's width). */
  options->n_pairs = (guint) gtk_spin_button_get_value (self->pairs_spin);
}

static char *
answer_key (PlProbesPage *self,
            PlModel      *model)
{
  PlProbeOptions options;

  get_options (self, &options);
  return g_strdup_printf ("probes/%s/%s/%u/%u/%u", pl_question_model_key (model),
                          pl_probe_protocol_to_string (options.protocol), options.n_pairs, options.seed,
                          get_repeats (self));
}

/* The answer as a 1 × N_ANSWER matrix (float: the table prints three
 * decimals). */
static gboolean
run_probes (PlAnalysisJob  *job,
            gpointer        data,
            GValue         *result,
            GError        **error)
{
  Question *q = data;
  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);
  g_autoptr(PlMatrix) paper_table = NULL;
  const PlMatrix *table = q->table;
  g_autofree PlProbeResult *runs = g_new0 (PlProbeResult, q->n_repeats);
  PlProbeSummary summary;
  PlMatrix *answer;
  guint rows, cols;

  /* DeBERTa's relative table has buckets for rows, not positions. */
  if (pl_question_table_layer (q->model) == PL_LAYER_TABLE && !pl_model_require_probe_table (q->model, error))
    return FALSE;
  if (table == NULL)
    {
      if (!(paper_table = pl_model_read_paper_positions (q->model, error)))
        return FALSE;
      table = paper_table;
    }
  if (!pl_probe_repeat_full (table, &q->options, q->n_repeats, runs, report_progress,
                             &(Progress) { job, q }, cancellable, error))
    return FALSE;
  /* A probe with no random draw is one run, with no interval. */
  pl_probe_summarise_repeats (runs, q->n_repeats, &q->options, &summary);
  answer = pl_matrix_new (1, N_ANSWER);
  for (guint k = ANSWER_ROW_MAE; k <= ANSWER_ALONG_COLUMNS; k++)
    answer->data[k] = NAN;
  if (pl_model_get_grid (q->model, &rows, &cols))
    {
      g_autoptr(GError) grid_error = NULL;
      g_autoptr(PlMatrix) patches = q->table != NULL ? pl_matrix_ref (q->table)
                                                     : pl_model_read_positions (q->model, &grid_error);
      PlGridProbeResult grid;

      /* A grid too small to probe (fewer patches than two per fold) keeps
       * its one-dimensional answer, with dashes for the grid's. */
      if (patches != NULL && pl_probe_grid (patches, rows, cols, &q->options, &grid, cancellable, &grid_error))
        {
          answer->data[ANSWER_ROW_MAE] = (float) grid.row_mae;
          answer->data[ANSWER_COLUMN_MAE] = (float) grid.column_mae;
          answer->data[ANSWER_ALONG_ROWS] = (float) grid.along_rows_error;
          answer->data[ANSWER_ALONG_COLUMNS] = (float) grid.along_columns_error;
        }
      else if (g_error_matches (grid_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          pl_matrix_unref (answer);
          g_propagate_error (error, g_steal_pointer (&grid_error));
          return FALSE;
        }
    }
  answer->data[ANSWER_ROWS] = runs[0].rows;
  answer->data[ANSWER_ABSOLUTE_MEAN] = (float) summary.absolute.mean;
  answer->data[ANSWER_ABSOLUTE_HALF_WIDTH] = (float) summary.absolute.half_width;
  answer->data[ANSWER_RELATIVE_MEAN] = (float) summary.relative.mean;
  answer->data[ANSWER_RELATIVE_HALF_WIDTH] = (float) summary.relative.half_width;
  answer->data[ANSWER_PAIRS] = runs[0].n_pairs;
  answer->data[ANSWER_FEATURES] = 2 * table->cols;
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, answer);
  return TRUE;
}

/* How the table's numbers were made: the protocol and the runs. */
static char *
describe_runs (PlProbesPage         *self,
               const PlProbeOptions *options)
{
  const char *protocol = pl_enum_label (PL_TYPE_PROBE_PROTOCOL, options->protocol);
  guint repeats = get_repeats (self);

  if (repeats == 1)
    /* Translators: e.g. "Paper’s protocol: one run (seed 0)." */
    return g_strdup_printf (_("%s: one run (seed 0)."), protocol);
  if (!pl_probe_absolute_is_random (options->protocol))
    /* Translators: e.g. "Interleaved folds: the absolute probe draws …" */
    return g_strdup_printf (_("%s: the absolute probe draws nothing at random and runs once; the relative "
                              "probe’s pairs, mean ± 95 %% interval over %u runs (seeds 0–%u)."),
                            protocol, repeats, repeats - 1);
  /* Translators: how the table's numbers were made, e.g. "Paper’s protocol: mean ± 95 % interval over 20 runs (seeds 0–19)." */
  return g_strdup_printf (_("%s: mean ± 95 %% interval over %u runs (seeds 0–%u)."), protocol, repeats,
                          repeats - 1);
}

/* ¹ … ⁹, then [10], … */
static char *
footnote_mark (guint n)
{
  static const char * const superscripts[] = { "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };

  return n >= 1 && n <= 9 ? g_strdup (superscripts[n - 1]) : g_strdup_printf ("[%u]", n);
}

/* The numbers of MODEL that a probe knowing nothing beats, for a footnote:
 * each probe against its chance level (the middle position, row or
 * column predicted for every row; a coin for an order). NULL when none. */
static char *
worse_than_chance (PlModel        *model,
                   const PlMatrix *m,
                   const char     *name,
                   const char    **columns)
{
  g_autoptr(GString) worse = g_string_new (NULL);
  double chance[6] = { pl_probe_chance_mae ((gsize) m->data[ANSWER_ROWS]), 0.5, NAN, NAN, 0.5, 0.5 };
  double values[6] = { m->data[ANSWER_ABSOLUTE_MEAN], m->data[ANSWER_RELATIVE_MEAN], m->data[ANSWER_ROW_MAE],
                       m->data[ANSWER_COLUMN_MAE], m->data[ANSWER_ALONG_ROWS], m->data[ANSWER_ALONG_COLUMNS] };
  guint rows, cols;

  if (pl_model_get_grid (model, &rows, &cols))
    {
      chance[2] = pl_probe_chance_mae (rows);
      chance[3] = pl_probe_chance_mae (cols);
    }
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    if (isfinite (values[k]) && isfinite (chance[k]) && values[k] > chance[k])
      /* Translators: a column of the table, its value and the chance level, e.g. "Absolute position MAE 34.846 (chance 16.000)" */
      g_string_append_printf (worse, _("%s%s %.3f (chance %.3f)"), worse->len ? ", " : "", columns[k], values[k],
                              chance[k]);
  if (worse->len == 0)
    return NULL;
  /* Translators: a model's name, then its results worse than chance */
  return g_strdup_printf (_("%s does worse than chance: %s."), name, worse->str);
}

/* The chance levels, with the position counts of the models answered. */
static char *
describe_chance (GArray *row_counts)
{
  g_autoptr(GString) levels = g_string_new (NULL);

  for (guint i = 0; i < row_counts->len; i++)
    {
      guint n = g_array_index (row_counts, guint, i);

      /* Translators: an MAE and the number of positions it is for, e.g. "128.000 for 512 positions" */
      g_string_append_printf (levels, _("%s%.3f for %u positions"), i ? ", " : "", pl_probe_chance_mae (n), n);
    }
  if (row_counts->len == 0)
    return g_strdup (_("Chance: the middle position predicted for every row, a coin (0.5) for an order."));
  /* Translators: %s lists MAEs with their position counts */
  return g_strdup_printf (_("Chance: the middle position predicted for every row has an MAE of %s; a coin, 0.5, "
                            "for an order."), levels->str);
}

static void probe_next (PlProbesPage *self);
static void on_parameters_changed (PlProbesPage *self);

/* The table: a row per model, its answer or dashes, and under it the
 * caption an export keeps: how the numbers were made, the chance levels,
 * the warnings, and the footnotes marked on the models' names (why a model
 * has no answer, which results are worse than chance). */
static void
rebuild (PlProbesPage *self)
{
  const char *columns[] = { _("Absolute position MAE"), _("Relative order error"),
                            /* Translators: the grid probes' columns, short: a table header */
                            _("Row MAE"), _("Column MAE"), _("Order along rows"), _("Order along columns"), NULL };
  g_autoptr(PlFigure) figure = NULL;
  gboolean grids = FALSE;
  g_autoptr(GString) few_pairs = g_string_new (NULL);
  g_autoptr(GString) footnotes = g_string_new (NULL);
  g_autoptr(GString) caption = g_string_new (NULL);
  g_autoptr(GArray) row_counts = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *runs = NULL;
  g_autofree char *chance = NULL;
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  PlProbeOptions options;
  GListModel *models;
  guint n, n_notes = 0;

  if (workspace == NULL)
    return;
  if (!self->follows_repeats && pl_workspace_get_settings (workspace) != NULL)
    {
      g_signal_connect_object (pl_workspace_get_settings (workspace), "changed::probe-repeats",
                               G_CALLBACK (on_parameters_changed), self, G_CONNECT_SWAPPED);
      self->follows_repeats = TRUE;
    }
  get_options (self, &options);
  models = pl_workspace_get_models (workspace);
  n = g_list_model_get_n_items (models);
  for (guint i = 0; i < n && !grids; i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      grids = pl_model_get_grid (model, NULL, NULL);
    }
  /* The grid probes' columns only when a model has a grid. */
  figure = pl_figure_new_table ((const char * const[]) { columns[0], columns[1], grids ? columns[2] : NULL,
                                                         columns[3], columns[4], columns[5], NULL });
  /* On a narrow page the grid probes' columns wrap below, two by two. */
  pl_figure_set_table_breaks (figure, (const guint[]) { 2, 4 }, grids ? 2 : 0);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);
      g_autofree char *key = answer_key (self, model);
      g_autofree char *name = pl_question_table_name (model);
      g_autoptr(GString) label = g_string_new (name);
      g_autofree char *worse = NULL;
      const GValue *answer = pl_analysis_cache_lookup (pl_workspace_get_cache (workspace), key);
      const char *reason = g_hash_table_lookup (self->reasons, model);
      double values[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
      double half_widths[6] = { NAN, NAN, NAN, NAN, NAN, NAN };

      if (answer != NULL)
        {
          PlMatrix *m = g_value_get_boxed (answer);
          guint rows = (guint) m->data[ANSWER_ROWS];
          gboolean known = FALSE;

          values[0] = m->data[ANSWER_ABSOLUTE_MEAN];
          values[1] = m->data[ANSWER_RELATIVE_MEAN];
          for (guint k = 0; k < 4; k++)
            values[2 + k] = m->data[ANSWER_ROW_MAE + k];
          if (get_repeats (self) > 1)
            {
              /* A probe that draws nothing at random ran once: no interval. */
              if (pl_probe_absolute_is_random (options.protocol))
                half_widths[0] = m->data[ANSWER_ABSOLUTE_HALF_WIDTH];
              half_widths[1] = m->data[ANSWER_RELATIVE_HALF_WIDTH];
            }
          if (m->data[ANSWER_PAIRS] < m->data[ANSWER_FEATURES])
            /* Translators: a model with its pairs and features, e.g. "mini-gpt2: 512 pairs, 512 features" */
            g_string_append_printf (few_pairs, _("%s%s: %.0f pairs, %.0f features"), few_pairs->len ? "; " : "",
                                    name, m->data[ANSWER_PAIRS], m->data[ANSWER_FEATURES]);
          for (guint k = 0; k < row_counts->len; k++)
            known |= g_array_index (row_counts, guint, k) == rows;
          if (!known)
            g_array_append_val (row_counts, rows);
          worse = worse_than_chance (model, m, name, columns);
        }
      for (guint k = 0; k < 2; k++)
        {
          g_autofree char *mark = NULL;

          if ((k == 0 ? reason : worse) == NULL)
            continue;
          mark = footnote_mark (++n_notes);
          g_string_append_printf (label, " %s", mark);
          if (k == 0)
            /* Translators: a footnote: the model's name, then why it has no answer (a sentence) */
            g_string_append_printf (footnotes, _("\n%s %s: %s"), mark, name, reason);
          else
            g_string_append_printf (footnotes, "\n%s %s", mark, worse);
        }
      pl_figure_add_row_with_intervals (figure, label->str, values, half_widths);
    }

  runs = describe_runs (self, &options);
  chance = describe_chance (row_counts);
  g_string_append_printf (caption, "%s %s", runs, chance);
  if (few_pairs->len > 0)
    /* Translators: %s lists models with their pair and feature counts */
    g_string_append_printf (caption, _(" Fewer pairs than features (%s): the relative-order error mostly "
                                       "measures the sample, not the table."), few_pairs->str);
  g_string_append (caption, footnotes->str);
  g_free (self->caption);
  self->caption = g_strdup (caption->str);
  pl_figure_set_caption (figure, caption->str);
  pl_view_style_apply (figure, workspace);
  pl_figure_set_title (figure, _("Probes of the position tables"));
  pl_figure_view_set_figure (pl_page_get_figure_view (PL_PAGE (self)), figure, 0, 0);
}

/* Why MODEL has no answer, for a footnote after its name: the message
 * without the path in front, ended as a sentence. */
static char *
short_reason (PlModel      *model,
              const GError *error)
{
  const char *path = pl_model_get_path (model);
  const char *message = error->message;

  if (path != NULL && g_str_has_prefix (message, path))
    {
      message += strlen (path);
      while (*message == ':' || *message == ' ')
        message++;
    }
  return g_str_has_suffix (message, ".") ? g_strdup (message) : g_strconcat (message, ".", NULL);
}

/* An answer, or why there is none, for the model probed; then the next. */
static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlProbesPage *self = PL_PROBES_PAGE (page);
  GListModel *models = pl_workspace_get_models (pl_page_get_workspace (page));

  /* Why there is none goes in a footnote under the model's name. */
  if (answer == NULL && self->next < g_list_model_get_n_items (models))
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, self->next);

      g_hash_table_replace (self->reasons, g_object_ref (model), short_reason (model, error));
    }
  self->next++;
  rebuild (self);
  probe_next (self);
}

static Question *
question_new (PlProbesPage *self,
              PlModel      *model,
              PlMatrix     *table)
{
  Question *q = g_new0 (Question, 1);
  guint n;

  q->model = g_object_ref (model);
  q->table = table ? pl_matrix_ref (table) : NULL;
  q->n_repeats = get_repeats (self);
  get_options (self, &q->options);
  n = g_list_model_get_n_items (pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self))));
  q->done = (double) self->next / MAX (n, 1);
  q->share = 1.0 / MAX (n, 1);
  return q;
}

static gpointer
make_question (PlPage   *page,
               PlMatrix *table)
{
  PlProbesPage *self = PL_PROBES_PAGE (page);
  PlWorkspace *workspace = pl_page_get_workspace (page);
  g_autoptr(PlModel) model = g_list_model_get_item (pl_workspace_get_models (workspace), self->next);

  return question_new (self, model, table);
}

/* Probes the next model without an answer, or stops at the end of the list. */
static void
probe_next (PlProbesPage *self)
{
  GListModel *models = pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self)));
  PlPageRunner *runner = pl_page_get_runner (PL_PAGE (self));
  guint n = g_list_model_get_n_items (models);

  for (; self->next < n; self->next++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, self->next);
      g_autofree char *key = answer_key (self, model);
      g_autofree char *status = NULL;

      if (pl_analysis_cache_lookup (pl_workspace_get_cache (pl_page_get_workspace (PL_PAGE (self))), key))
        continue;
      /* Translators: progress of the probes, e.g. "Probing mini-bert (2 of 4)…" */
      status = g_strdup_printf (_("Probing %s (%u of %u)…"), pl_model_get_name (model), self->next + 1, n);
      gtk_label_set_text (self->status_label, status);
      /* The paper's protocol reads the rows PE-Study's code took, on the worker. */
      if (pl_drop_down_get_value (self->folds_dropdown) == PL_PROBE_PAPER &&
          pl_question_table_layer (model) == PL_LAYER_TABLE)
        pl_page_runner_ask (runner, key, run_probes, question_new (self, model, NULL),
                            (GDestroyNotify) question_free, on_answer);
      else
        pl_page_runner_ask_table (runner, key, model, pl_question_table_layer (model), make_question,
                                  run_probes, (GDestroyNotify) question_free, on_answer);
      return;
    }
}

/* Run while nothing runs, Stop while the probes run; the "Probing …" line
 * goes when the run ends. */
static void
on_busy_changed (PlProbesPage *self)
{
  gboolean busy = pl_page_get_busy (PL_PAGE (self));

  gtk_button_set_label (self->run_button, busy ? _("_Stop") : _("_Run Probes"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->run_button),
                               busy ? _("Stop the probes; the models done keep their numbers")
                                    : _("Fit both probes on every model in the sidebar"));
  if (busy)
    gtk_widget_remove_css_class (GTK_WIDGET (self->run_button), "suggested-action");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->run_button), "suggested-action");
  if (!busy)
    gtk_label_set_text (self->status_label, "");
}

void
pl_probes_page_run (PlProbesPage *self)
{
  g_return_if_fail (PL_IS_PROBES_PAGE (self));

  if (pl_page_get_workspace (PL_PAGE (self)) == NULL || pl_page_get_busy (PL_PAGE (self)))
    return;
  self->next = 0;
  g_hash_table_remove_all (self->reasons);
  probe_next (self);
}

/* MODEL's answer under the current options ([1, N_ANSWER]), or NULL. */
static PlMatrix *
find_answer (PlProbesPage *self,
             PlModel      *model)
{
  g_autofree char *key = answer_key (self, model);
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  const GValue *answer = pl_analysis_cache_lookup (pl_workspace_get_cache (workspace), key);

  return answer != NULL ? g_value_get_boxed (answer) : NULL;
}

gboolean
pl_probes_page_get_result (PlProbesPage *self,
                           PlModel      *model,
                           double       *absolute_mae,
                           double       *relative_error)
{
  PlMatrix *m;

  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), FALSE);
  g_return_val_if_fail (PL_IS_MODEL (model), FALSE);

  if (!(m = find_answer (self, model)))
    return FALSE;
  *absolute_mae = m->data[ANSWER_ABSOLUTE_MEAN];
  *relative_error = m->data[ANSWER_RELATIVE_MEAN];
  return TRUE;
}

gboolean
pl_probes_page_get_grid_result (PlProbesPage *self,
                                PlModel      *model,
                                double       *values)
{
  PlMatrix *m;

  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), FALSE);
  g_return_val_if_fail (PL_IS_MODEL (model), FALSE);

  if (!(m = find_answer (self, model)))
    return FALSE;
  for (guint k = 0; k < 4; k++)
    values[k] = m->data[ANSWER_ROW_MAE + k];
  return TRUE;
}

static void
on_run_clicked (PlProbesPage *self)
{
  if (pl_page_get_busy (PL_PAGE (self)))
    pl_page_stop (PL_PAGE (self));
  else
    pl_probes_page_run (self);
}

void
pl_probes_page_set_protocol (PlProbesPage    *self,
                             PlProbeProtocol  protocol)
{
  g_return_if_fail (PL_IS_PROBES_PAGE (self));

  pl_drop_down_set_value (self->folds_dropdown, protocol);
}

void
pl_probes_page_set_pairs (PlProbesPage *self,
                          guint         n_pairs)
{
  g_return_if_fail (PL_IS_PROBES_PAGE (self));

  gtk_spin_button_set_value (self->pairs_spin, n_pairs);
}

PlProbeProtocol
pl_probes_page_get_protocol (PlProbesPage *self)
{
  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), PL_PROBE_PAPER);

  return (PlProbeProtocol) pl_drop_down_get_value (self->folds_dropdown);
}

const char *
pl_probes_page_get_note (PlProbesPage *self)
{
  g_return_val_if_fail (PL_IS_PROBES_PAGE (self), NULL);

  return self->caption;
}

/* 0 pairs reads "Auto". */
static gboolean
on_pairs_output (GtkSpinButton *spin)
{
  if (gtk_spin_button_get_value_as_int (spin) != 0)
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (spin), C_("pairs", "Auto"));
  return TRUE;
}

static int
on_pairs_input (GtkSpinButton *spin,
                double        *value)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
  char *end = NULL;

  if (g_strcmp0 (text, C_("pairs", "Auto")) == 0)
    {
      *value = 0;
      return TRUE;
    }
  *value = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' ? TRUE : GTK_INPUT_ERROR;
}

static void
on_parameters_changed (PlProbesPage *self)
{
  /* Other options are other questions: stop, and show what is known for them. */
  pl_page_stop (PL_PAGE (self));
  g_hash_table_remove_all (self->reasons);
  pl_page_refresh (PL_PAGE (self));
}

static void
refresh (PlPage *page)
{
  rebuild (PL_PROBES_PAGE (page));
}

/* The protocol chosen is kept in the settings, for the next session. */
static void
workspace_changed (PlPage *page)
{
  PlProbesPage *self = PL_PROBES_PAGE (page);
  GSettings *settings = pl_workspace_get_settings (pl_page_get_workspace (PL_PAGE (self)));

  if (settings != NULL)
    pl_settings_bind_enum (settings, "probe-protocol", self->folds_dropdown,
                           ADW_ENUM_LIST_MODEL (gtk_drop_down_get_model (self->folds_dropdown)));
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

  g_clear_pointer (&self->reasons, g_hash_table_unref);
  g_clear_pointer (&self->caption, g_free);
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
  page_class->workspace_changed = workspace_changed;
  page_class->style_changed = refresh;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-probes-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, folds_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, pairs_spin);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, PlProbesPage, status_label);
  gtk_widget_class_bind_template_callback (widget_class, on_run_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_pairs_output);
  gtk_widget_class_bind_template_callback (widget_class, on_pairs_input);
}

static void
pl_probes_page_init (PlProbesPage *self)
{
  self->reasons = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, g_free);
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->folds_dropdown, PL_TYPE_PROBE_PROTOCOL);
  g_signal_connect (self, "notify::busy", G_CALLBACK (on_busy_changed), NULL);
  /* The table lists every model, with or without answers yet. */
  pl_page_show_figure (PL_PAGE (self));
}
