/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>

#include "pl-error.h"
#include "pl-figure-preset.h"
#include "pl-paper.h"
#include "pl-similarity.h"

#define EXPORT_DPI    300.0

struct _PlPaper
{
  PlPaperOptions  options;
  guint           n_models;
  char          **names;
  char          **row_notes;
  PlProbeSummary *summaries;
  guint          *n_pairs;       /* the relative probe's pairs and features, per model */
  gsize          *n_features;
  PlFigure       *figure1;
  PlFigure       *table1;
};

void
pl_paper_options_init (PlPaperOptions *options)
{
  const PlFigurePresetInfo *page = pl_figure_preset_get (PL_FIGURE_PRESET_TWO_COLUMNS);

  g_return_if_fail (options != NULL);

  options->n_repeats = PL_PROBE_DEFAULT_REPEATS;
  options->first_seed = 0;
  options->width_pt = page->width;
  options->height_pt = page->height;
  options->font_size = page->font_size;
}

void
pl_paper_free (PlPaper *self)
{
  if (self == NULL)
    return;
  g_strfreev (self->names);
  g_strfreev (self->row_notes);
  g_free (self->summaries);
  g_free (self->n_pairs);
  g_free (self->n_features);
  g_clear_object (&self->figure1);
  g_clear_object (&self->table1);
  g_free (self);
}

/* One model's panel of Figure 1: the cosine of its real positions. */
static PlFigure *
cosine_panel (PlModel       *model,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(PlMatrix) cosine = NULL;
  PlFigure *panel;

  if (!(positions = pl_model_read_positions (model, error)) ||
      !(cosine = pl_similarity_compute (positions, PL_SIMILARITY_COSINE, FALSE, cancellable, error)))
    return NULL;
  panel = pl_figure_new_heatmap (cosine, 0);
  pl_figure_set_title (panel, pl_model_get_name (model));
  pl_figure_set_value_label (panel, _("Cosine similarity"));
  return panel;
}

/* One model's row of Table 1: both probes, repeated, on PE-Study's rows. */
static gboolean
probe_model (PlModel              *model,
             const PlPaperOptions *options,
             PlProbeSummary       *summary,
             guint                *n_pairs,
             gsize                *n_features,
             PlPaperProgressFunc   progress,
             gpointer              progress_data,
             double                done,
             double                share,
             GCancellable         *cancellable,
             GError              **error)
{
  g_autoptr(PlMatrix) table = NULL;
  g_autofree PlProbeResult *runs = g_new (PlProbeResult, options->n_repeats);
  PlProbeOptions probe;

  pl_probe_options_init (&probe);
  probe.protocol = PL_PROBE_PAPER;
  if (!(table = pl_model_read_paper_positions (model, error)))
    return FALSE;
  for (guint r = 0; r < options->n_repeats; r++)
    {
      probe.seed = options->first_seed + r;
      if (!pl_probe_run (table, &probe, &runs[r], cancellable, error))
        return FALSE;
      if (progress != NULL)
        progress (done + share * (r + 1) / options->n_repeats, progress_data);
    }
  pl_probe_summarise (runs, options->n_repeats, summary);
  *n_pairs = runs[0].n_pairs;
  *n_features = 2 * table->cols;
  return TRUE;
}

static char *
table_caption (PlPaper *self)
{
  g_autoptr(GString) caption = g_string_new (NULL);
  guint32 last = self->options.first_seed + self->options.n_repeats - 1;

  g_string_append_printf (caption,
                          _("The probes of Wang and Chen (2020), Table 1, by the paper’s protocol "
                            "(the code of MiuLab/PE-Study, absolute.py and relative.py, its draws seeded as "
                            "np.random.seed): absolute position, a linear regression from each row to its index "
                            "on five folds of the rows in a random order, the mean absolute error of the rounded "
                            "predictions; relative order, a logistic regression (C = 1) on [pᵢ; pⱼ] deciding "
                            "whether j comes after i, on %u pairs drawn from all ordered pairs of the first %u "
                            "rows, five stratified folds, the error rate."),
                          PL_PROBE_PAPER_ROWS, PL_PROBE_PAPER_ROWS);
  /* A single run has no spread to show. */
  if (self->options.n_repeats == 1)
    /* Translators: continues the caption of Table 1 */
    g_string_append_printf (caption, _(" One run, seed %u: no interval."), self->options.first_seed);
  else
    /* Translators: continues the caption of Table 1 */
    g_string_append_printf (caption,
                            _(" Mean ± the 95 %% confidence interval of the mean over %u runs, seeds %u–%u."),
                            self->options.n_repeats, self->options.first_seed, last);
  for (guint i = 0; i < self->n_models; i++)
    /* Translators: a model's name and which rows of its table the probes used */
    g_string_append_printf (caption, _(" %s: %s."), self->names[i], self->row_notes[i]);
  return g_string_free (g_steal_pointer (&caption), FALSE);
}

static void
build_figures (PlPaper    *self,
               PlFigure  **panels)
{
  const char *columns[] = { _("Absolute position (MAE)"), _("Relative order (error rate)"), NULL };
  g_autofree char *caption = table_caption (self);

  self->figure1 = pl_figure_new_multiples (panels, self->n_models, 0);
  pl_figure_set_title (self->figure1, _("Position-wise cosine similarity"));
  pl_figure_set_caption (self->figure1,
                         _("Figure 1 of Wang and Chen (2020): cell (i, j) of each panel is the cosine "
                           "similarity of the position embeddings of positions i and j (the real positions "
                           "of each table), all panels on one colour scale, computed from the stored tables "
                           "without random draws (Table 1 names the probes’ protocol and seeds). Made with "
                           "Poslens."));

  self->table1 = pl_figure_new_table (columns);
  for (guint i = 0; i < self->n_models; i++)
    {
      const PlProbeSummary *s = &self->summaries[i];
      double values[2] = { s->absolute.mean, s->relative.mean };
      double half[2] = { s->absolute.n > 1 ? s->absolute.half_width : NAN,
                         s->relative.n > 1 ? s->relative.half_width : NAN };

      pl_figure_add_row_with_intervals (self->table1, self->names[i], values, half);
    }
  pl_figure_set_title (self->table1, _("Probes of the position embeddings"));
  pl_figure_set_caption (self->table1, caption);
}

PlPaper *
pl_paper_compute (PlModel * const       *models,
                  guint                  n_models,
                  const PlPaperOptions  *options,
                  PlPaperProgressFunc    progress,
                  gpointer               progress_data,
                  GCancellable          *cancellable,
                  GError               **error)
{
  g_autoptr(PlPaper) self = NULL;
  g_autoptr(GPtrArray) panels = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (models != NULL || n_models == 0, NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (n_models == 0)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "no models to reproduce the paper on; open or name at least one");
      return NULL;
    }
  if (options->n_repeats == 0 || (guint64) options->first_seed + options->n_repeats - 1 > G_MAXUINT32)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "the paper's probes need at least one run, and seeds below 2³²");
      return NULL;
    }

  for (guint i = 0; i < n_models; i++)
    if (!pl_model_require_paper_table (models[i], error))
      return NULL;

  self = g_new0 (PlPaper, 1);
  self->options = *options;
  self->n_models = n_models;
  self->names = g_new0 (char *, n_models + 1);
  self->row_notes = g_new0 (char *, n_models + 1);
  self->summaries = g_new0 (PlProbeSummary, n_models);
  self->n_pairs = g_new0 (guint, n_models);
  self->n_features = g_new0 (gsize, n_models);
  for (guint i = 0; i < n_models; i++)
    {
      PlFigure *panel;

      self->names[i] = g_strdup (pl_model_get_name (models[i]));
      self->row_notes[i] = pl_model_describe_paper_rows (models[i]);
      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          !(panel = cosine_panel (models[i], cancellable, error)))
        return NULL;
      g_ptr_array_add (panels, panel);
      if (!probe_model (models[i], options, &self->summaries[i], &self->n_pairs[i], &self->n_features[i],
                        progress, progress_data,
                        (double) i / n_models, 1.0 / n_models, cancellable, error))
        return NULL;
    }
  build_figures (self, (PlFigure **) panels->pdata);
  return g_steal_pointer (&self);
}

guint
pl_paper_get_n_models (PlPaper *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_models;
}

const PlProbeSummary *
pl_paper_get_summary (PlPaper *self,
                      guint    index)
{
  g_return_val_if_fail (self != NULL && index < self->n_models, NULL);
  return &self->summaries[index];
}

void
pl_paper_get_pairs (PlPaper *self,
                    guint    index,
                    guint   *n_pairs,
                    gsize   *n_features)
{
  g_return_if_fail (self != NULL && index < self->n_models);
  *n_pairs = self->n_pairs[index];
  *n_features = self->n_features[index];
}

PlFigure *
pl_paper_get_figure1 (PlPaper *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->figure1;
}

PlFigure *
pl_paper_get_table1 (PlPaper *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->table1;
}

static gboolean
export_both (PlFigure    *figure,
             const char  *dir,
             const char  *stem,
             double       width,
             double       height,
             GError     **error)
{
  static const char *extensions[] = { "pdf", "png" };

  for (guint e = 0; e < G_N_ELEMENTS (extensions); e++)
    {
      g_autofree char *name = g_strdup_printf ("%s.%s", stem, extensions[e]);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (!pl_figure_export (figure, path, width, height, EXPORT_DPI, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
pl_paper_write (PlPaper     *self,
                const char  *dir,
                GError     **error)
{
  const PlPaperOptions *o;
  double width, figure_height, table_height;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);

  o = &self->options;
  if (!(o->width_pt > 0) || !(o->font_size > 0) || !(o->height_pt >= 0))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the paper's figures need a width and a text size above 0, not %g pt and %g pt",
                   o->width_pt, o->font_size);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: cannot make the folder: %s", dir, g_strerror (saved));
      return FALSE;
    }
  width = o->width_pt;
  pl_figure_set_font (self->figure1, NULL, o->font_size);
  pl_figure_set_font (self->table1, NULL, o->font_size);
  figure_height = o->height_pt > 0 ? o->height_pt : pl_figure_get_preferred_height (self->figure1, width);
  table_height = o->height_pt > 0 ? o->height_pt : pl_figure_get_preferred_height (self->table1, width);
  return export_both (self->figure1, dir, "figure1", width, figure_height, error) &&
         export_both (self->table1, dir, "table1", width, table_height, error);
}
