/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-compare-page.h"
#include "pl-enum-labels.h"
#include "pl-error.h"
#include "pl-figure-view.h"
#include "pl-questions.h"
#include "pl-view-style.h"

/* Two models' position similarities side by side on one colour scale, and
 * their difference where the shapes agree, in one figure. Each side is its
 * own question, so what the similarity view computed before is reused; the
 * difference is a third, asked once both are in. An activations file has
 * no table: its embedding output stands in. */
struct _PlComparePage
{
  PlPage         parent_instance;

  PlPageRunner  *runners[2];     /* each side's: the first is the page's */
  PlPageRunner  *difference_runner;
  char          *keys[2];        /* the questions each side asked */
  PlMatrix      *answers[2];
  PlMatrix      *difference;
  gboolean       rebuilding_names;

  /* Template widgets */
  GtkStringList *names;
  GtkDropDown   *first_dropdown;
  GtkDropDown   *second_dropdown;
  GtkDropDown   *metric_dropdown;
  GtkLabel      *status_label;
};

G_DEFINE_FINAL_TYPE (PlComparePage, pl_compare_page, PL_TYPE_PAGE)

static PlModel *
get_model (PlComparePage *self,
           guint          side)
{
  GListModel *models = pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self)));
  guint i = gtk_drop_down_get_selected (side == 0 ? self->first_dropdown : self->second_dropdown);

  if (i >= g_list_model_get_n_items (models))
    return NULL;
  return g_list_model_get_item (models, i);
}

static PlSimilarityMetric
get_metric (PlComparePage *self)
{
  return (PlSimilarityMetric) pl_drop_down_get_value (self->metric_dropdown);
}

/* Whether MODEL's compared table holds a vision transformer's patches, COLS
 * to a row of the grid. */
static gboolean
shows_patches (PlModel *model,
               guint   *cols)
{
  return model != NULL && pl_question_shows_patches (model, pl_question_table_layer (model), cols);
}

/* PATCHES: its positions are a vision transformer's patches, read row by row. */
static PlFigure *
make_heatmap (PlComparePage *self,
              PlMatrix      *values,
              const char    *title,
              gboolean       patches)
{
  PlFigure *figure = pl_figure_new_heatmap (values, 0);

  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_set_title (figure, title);
  if (patches)
    pl_figure_set_axis_labels (figure, _("Patch, row by row"), _("Patch, row by row"));
  return figure;
}

/* Both similarities on one scale and, once it is in, their difference on
 * its own: one figure, so it exports whole and its panels zoom, pan and
 * select as one, laid out to fill the pane at any size. */
static void
show_answers (PlComparePage *self)
{
  g_autoptr(PlModel) first = get_model (self, 0);
  g_autoptr(PlModel) second = get_model (self, 1);
  PlSimilarityMetric metric = get_metric (self);
  g_autofree char *first_name = NULL;
  g_autofree char *second_name = NULL;
  PlFigure *panels[3];
  guint columns[3], rows[3];
  guint n_panels = 2;
  guint cols[2];
  gboolean patches[2];
  g_autoptr(PlFigure) figure = NULL;

  if (self->answers[0] == NULL || self->answers[1] == NULL || first == NULL || second == NULL)
    return;

  first_name = pl_question_table_name (first);
  second_name = pl_question_table_name (second);
  patches[0] = shows_patches (first, &cols[0]);
  patches[1] = shows_patches (second, &cols[1]);
  panels[0] = make_heatmap (self, self->answers[0], first_name, patches[0]);
  panels[1] = make_heatmap (self, self->answers[1], second_name, patches[1]);
  for (guint side = 0; side < 2; side++)
    {
      columns[side] = self->answers[side]->cols;
      rows[side] = self->answers[side]->rows;
    }
  if (self->difference != NULL)
    {
      g_autofree char *title = NULL;

      /* Translators: title of the difference of two models' similarities: "A − B" */
      title = g_strdup_printf (_("%s − %s"), first_name, second_name);
      panels[n_panels] = make_heatmap (self, self->difference, title,
                                       patches[0] && patches[1] && cols[0] == cols[1]);
      /* Signed values: white is no difference, red where the first model
       * sees positions as more alike (a smaller distance for Euclidean). */
      pl_figure_set_colormap (panels[n_panels], PL_COLORMAP_DIVERGING);
      pl_figure_set_reversed (panels[n_panels], metric == PL_SIMILARITY_L2);
      pl_figure_set_value_label (panels[n_panels], _("Difference"));
      pl_figure_set_own_scale (panels[n_panels], TRUE);
      columns[n_panels] = self->difference->cols;
      rows[n_panels] = self->difference->rows;
      n_panels++;
    }

  figure = pl_figure_new_multiples ((PlFigure * const *) panels, n_panels, 0);
  /* The multiples hold their own references. */
  for (guint i = 0; i < n_panels; i++)
    g_object_unref (panels[i]);
  if (metric == PL_SIMILARITY_COSINE)
    pl_figure_set_range (figure, -1, 1);
  pl_view_style_apply_metric (figure, pl_page_get_workspace (PL_PAGE (self)), metric);
  pl_figure_set_value_label (figure, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, metric));
  /* Zoom, pan and selection act on each panel's own positions. */
  pl_figure_view_set_multiples (pl_page_get_figure_view (PL_PAGE (self)), figure, columns, rows);
}

static gpointer
make_question (PlPage   *page,
               PlMatrix *table)
{
  return pl_similarity_question_new (table, get_metric (PL_COMPARE_PAGE (page)), FALSE);
}

/* The difference of the two sides' similarities, [2, n × n] in: the first's
 * row then the second's. */
static gboolean
compute_difference (PlAnalysisJob  *job,
                    gpointer        data,
                    GValue         *result,
                    GError        **error)
{
  GPtrArray *sides = data;
  const PlMatrix *a = g_ptr_array_index (sides, 0), *b = g_ptr_array_index (sides, 1);
  PlMatrix *difference = pl_matrix_new (a->rows, a->cols);

  for (gsize i = 0; i < a->rows * a->cols; i++)
    difference->data[i] = a->data[i] - b->data[i];
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, difference);
  return TRUE;
}

static void
on_difference (PlPage       *page,
               const GValue *answer,
               const GError *error)
{
  PlComparePage *self = PL_COMPARE_PAGE (page);

  g_clear_pointer (&self->difference, pl_matrix_unref);
  if (answer == NULL)
    {
      g_autofree char *sentence = pl_error_sentence (error->message);

      gtk_label_set_text (self->status_label, sentence);
      return;
    }
  self->difference = pl_matrix_ref (g_value_get_boxed (answer));
  show_answers (self);
  pl_page_show_figure (page);
}

/* Both sides in: their difference where the shapes agree, off the main
 * thread (a 2048-position table's is four million cells). */
static void
ask_difference (PlComparePage *self)
{
  PlMatrix *a = self->answers[0], *b = self->answers[1];
  g_autofree char *key = NULL;
  GPtrArray *sides;

  if (a->rows != b->rows || a->cols != b->cols)
    {
      g_autofree char *status = g_strdup_printf (_("No difference: %u and %u positions"), (guint) a->rows,
                                                 (guint) b->rows);

      gtk_label_set_text (self->status_label, status);
      show_answers (self);
      pl_page_show_figure (PL_PAGE (self));
      return;
    }
  gtk_label_set_text (self->status_label, "");
  sides = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref);
  g_ptr_array_add (sides, pl_matrix_ref (a));
  g_ptr_array_add (sides, pl_matrix_ref (b));
  key = g_strdup_printf ("difference/%s/%s", self->keys[0], self->keys[1]);
  pl_page_runner_ask (self->difference_runner, key, compute_difference, sides, (GDestroyNotify) g_ptr_array_unref,
                      on_difference);
}

static void
on_answer (PlComparePage *self,
           guint          side,
           const GValue  *answer,
           const GError  *error)
{
  g_clear_pointer (&self->answers[side], pl_matrix_unref);
  if (answer == NULL)
    {
      g_autofree char *sentence = pl_error_sentence (error->message);

      gtk_label_set_text (self->status_label, sentence);
      return;
    }
  self->answers[side] = pl_matrix_ref (g_value_get_boxed (answer));
  if (self->answers[0] != NULL && self->answers[1] != NULL)
    ask_difference (self);
}

static void
on_first_answer (PlPage *page, const GValue *answer, const GError *error)
{
  on_answer (PL_COMPARE_PAGE (page), 0, answer, error);
}

static void
on_second_answer (PlPage *page, const GValue *answer, const GError *error)
{
  on_answer (PL_COMPARE_PAGE (page), 1, answer, error);
}

static void
refresh (PlPage *page)
{
  PlComparePage *self = PL_COMPARE_PAGE (page);
  const PlPageAnswerFunc answered[2] = { on_first_answer, on_second_answer };

  if (pl_page_get_workspace (PL_PAGE (self)) == NULL || self->rebuilding_names)
    return;
  pl_page_stop (page);
  g_clear_pointer (&self->difference, pl_matrix_unref);
  if (g_list_model_get_n_items (pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self)))) == 0)
    {
      pl_page_show_empty (page);
      return;
    }

  /* Tables are compared: a rotary model has none to put beside another. */
  for (guint side = 0; side < 2; side++)
    {
      g_autoptr(PlModel) model = get_model (self, side);

      if (model != NULL && pl_model_get_rotary_decoder (model) != NULL)
        {
          pl_page_show_no_table (page, model);
          return;
        }
    }
  for (guint side = 0; side < 2; side++)
    {
      g_clear_pointer (&self->answers[side], pl_matrix_unref);
      g_clear_pointer (&self->keys[side], g_free);
    }
  for (guint side = 0; side < 2; side++)
    {
      g_autoptr(PlModel) model = get_model (self, side);

      if (model == NULL)
        continue;
      self->keys[side] = pl_similarity_question_key (model, pl_question_table_layer (model), get_metric (self),
                                                     FALSE);
      pl_page_runner_ask_table (self->runners[side], self->keys[side], model, pl_question_table_layer (model),
                                make_question, pl_similarity_question_run,
                                (GDestroyNotify) pl_similarity_question_free, answered[side]);
    }
}

/* The dropdowns list the sidebar's models by name. */
static void
rebuild_names (PlComparePage *self)
{
  GListModel *models = pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self)));
  guint n = g_list_model_get_n_items (models);
  guint first = gtk_drop_down_get_selected (self->first_dropdown);
  guint second = gtk_drop_down_get_selected (self->second_dropdown);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);
      g_autofree char *name = pl_question_table_name (model);

      g_strv_builder_add (builder, name);
    }
  names = g_strv_builder_end (builder);

  self->rebuilding_names = TRUE;
  gtk_string_list_splice (self->names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->names)),
                          (const char * const *) names);
  /* Start with the first two models: GPT-2 against BERT in the demo. */
  gtk_drop_down_set_selected (self->first_dropdown, first < n ? first : 0);
  gtk_drop_down_set_selected (self->second_dropdown, second < n && second != GTK_INVALID_LIST_POSITION &&
                                                     !(second == 0 && n > 1) ? second : MIN (1, n - 1));
  self->rebuilding_names = FALSE;
  pl_page_refresh (PL_PAGE (self));
}

void
pl_compare_page_set_models (PlComparePage *self,
                            guint          first,
                            guint          second)
{
  g_return_if_fail (PL_IS_COMPARE_PAGE (self));

  self->rebuilding_names = TRUE;
  gtk_drop_down_set_selected (self->first_dropdown, first);
  gtk_drop_down_set_selected (self->second_dropdown, second);
  self->rebuilding_names = FALSE;
  pl_page_refresh (PL_PAGE (self));
}

PlMatrix *
pl_compare_page_get_difference (PlComparePage *self)
{
  g_return_val_if_fail (PL_IS_COMPARE_PAGE (self), NULL);
  return self->difference;
}

static char *
on_describe (PlComparePage *self,
             int            panel,
             guint          column,
             guint          row,
             PlFigureView  *view)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const char *metric_name = pl_enum_label (PL_TYPE_SIMILARITY_METRIC, get_metric (self));
  g_autoptr(PlModel) first = get_model (self, 0);
  g_autoptr(PlModel) second = get_model (self, 1);
  PlModel *models[2] = { first, second };
  guint cols[2] = { 0, 0 };

  /* Translators: hover readout on Compare: positions i and j */
  g_string_append_printf (text, _("Positions %u and %u"), row, column);
  for (guint side = 0; side < 2; side++)
    if (!shows_patches (models[side], &cols[side]))
      cols[side] = 0;
  /* A vision transformer's patches, once when both grids agree. */
  if (cols[0] > 0 && cols[0] == cols[1])
    /* Translators: hover readout on Compare: the two patches (row, column) under the pointer */
    g_string_append_printf (text, _("\n= patches (%u, %u) and (%u, %u), read row by row"),
                            row / cols[0], row % cols[0], column / cols[0], column % cols[0]);
  else
    for (guint side = 0; side < 2; side++)
      if (cols[side] > 0)
        {
          g_autofree char *name = pl_question_table_name (models[side]);

          /* Translators: hover readout on Compare: a model's two patches (row, column) under the pointer */
          g_string_append_printf (text, _("\n%s: patches (%u, %u) and (%u, %u), read row by row"), name,
                                  row / cols[side], row % cols[side], column / cols[side], column % cols[side]);
        }
  for (guint side = 0; side < 2; side++)
    {
      PlMatrix *m = self->answers[side];

      if (models[side] != NULL && m != NULL && row < m->rows && column < m->cols)
        {
          g_autofree char *name = pl_question_table_name (models[side]);

          /* Translators: hover readout on Compare: model, measure: value */
          g_string_append_printf (text, _("\n%s, %s: %.4f"), name, metric_name, pl_matrix_get (m, row, column));
        }
    }
  if (self->difference != NULL && row < self->difference->rows && column < self->difference->cols)
    g_string_append_printf (text, _("\nDifference: %.4f"), pl_matrix_get (self->difference, row, column));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
on_select (PlComparePage *self,
           guint          start,
           guint          end,
           PlFigureView  *view)
{
  pl_workspace_set_selection (pl_page_get_workspace (PL_PAGE (self)), start, end);
}

static void
on_parameters_changed (PlComparePage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

static void
style_changed (PlPage *page)
{
  show_answers (PL_COMPARE_PAGE (page));
}

static void
workspace_changed (PlPage *page)
{
  PlComparePage *self = PL_COMPARE_PAGE (page);

  g_signal_connect_object (pl_workspace_get_models (pl_page_get_workspace (PL_PAGE (self))), "items-changed",
                           G_CALLBACK (rebuild_names), self, G_CONNECT_SWAPPED);
  rebuild_names (self);
}

static char *
get_export_name (PlPage *page)
{
  PlComparePage *self = PL_COMPARE_PAGE (page);
  g_autoptr(PlModel) first = get_model (self, 0);
  g_autoptr(PlModel) second = get_model (self, 1);

  return g_strdup_printf ("%s-vs-%s-%s", first ? pl_model_get_name (first) : "model",
                          second ? pl_model_get_name (second) : "model",
                          pl_similarity_metric_to_string (get_metric (self)));
}

static void
pl_compare_page_dispose (GObject *object)
{
  PlComparePage *self = PL_COMPARE_PAGE (object);

  for (guint side = 0; side < 2; side++)
    {
      g_clear_pointer (&self->answers[side], pl_matrix_unref);
      g_clear_pointer (&self->keys[side], g_free);
    }
  g_clear_pointer (&self->difference, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_COMPARE_PAGE);
  G_OBJECT_CLASS (pl_compare_page_parent_class)->dispose (object);
}

static void
pl_compare_page_class_init (PlComparePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_compare_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_SELECTION;
  page_class->refresh = refresh;
  page_class->workspace_changed = workspace_changed;
  page_class->style_changed = style_changed;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlComparePage, names);
  gtk_widget_class_bind_template_child (widget_class, PlComparePage, first_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlComparePage, second_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlComparePage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlComparePage, status_label);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
  gtk_widget_class_bind_template_callback (widget_class, on_select);
}

static void
pl_compare_page_init (PlComparePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->metric_dropdown, PL_TYPE_SIMILARITY_METRIC);
  self->runners[0] = pl_page_get_runner (PL_PAGE (self));
  self->runners[1] = pl_page_add_runner (PL_PAGE (self));
  self->difference_runner = pl_page_add_runner (PL_PAGE (self));
}
