/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-grid.h"
#include "pl-patches-page.h"
#include "pl-questions.h"
#include "pl-view-style.h"

/* A vision transformer's position table as the grid of patches it stands
 * for: the grid of grids (each patch's similarity with every patch, by the
 * measure chosen (cosine by default, as Figure 7 of Dosovitskiy et al.),
 * drawn as a small map in its place, the special tokens' maps beside it), a
 * map clicked shown large, or the first three principal components of each
 * patch as colours. A model without a grid gets a status page saying why. */
struct _PlPatchesPage
{
  PlPage           parent_instance;

  guint            rows;
  guint            cols;
  PlMatrix        *similarity;    /* [n + k, n]: the patches', then the special rows' */
  PlSimilarityMetric asked_metric; /* the measure of the question in flight */
  PlSimilarityMetric shown_metric; /* the measure of SIMILARITY */
  PlPca           *pca;
  int              focus;         /* the map shown large, or -1 */

  /* Template widgets */
  GtkDropDown     *show_dropdown;
  GtkDropDown     *metric_dropdown;
  PlFigureView    *figure_view;
};

G_DEFINE_FINAL_TYPE (PlPatchesPage, pl_patches_page, PL_TYPE_PAGE)

static PlWorkspace *
get_workspace (PlPatchesPage *self)
{
  return pl_page_get_workspace (PL_PAGE (self));
}

static PlPatchesShow
get_show (PlPatchesPage *self)
{
  return (PlPatchesShow) gtk_drop_down_get_selected (self->show_dropdown);
}

static PlSimilarityMetric
get_metric (PlPatchesPage *self)
{
  return (PlSimilarityMetric) pl_drop_down_get_value (self->metric_dropdown);
}

static PlModel *
get_model (PlPatchesPage *self)
{
  PlWorkspace *workspace = get_workspace (self);

  return workspace != NULL ? pl_workspace_get_model (workspace) : NULL;
}

static guint
n_patches (PlPatchesPage *self)
{
  return self->rows * self->cols;
}

/* "CLS", or "Patch (2, 3)": what map M stands for. */
static char *
describe_map (PlPatchesPage *self,
              guint          m)
{
  if (m >= n_patches (self))
    return g_strdup (pl_model_get_special_row_name (get_model (self), m - n_patches (self)));
  /* Translators: a patch of the image by its row and column in the grid */
  return g_strdup_printf (_("Patch (%u, %u)"), m / self->cols, m % self->cols);
}

static void
finish_figure (PlPatchesPage *self,
               PlFigure      *figure,
               const char    *what)
{
  /* Translators: figure title: model — what is shown */
  g_autofree char *title = g_strdup_printf (_("%s — %s"), pl_model_get_name (get_model (self)), what);

  /* A distance reverses the colour map, as in the Similarity view: near is bright. */
  pl_view_style_apply_metric (figure, get_workspace (self), self->shown_metric);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Patch column"), _("Patch row"));
  pl_figure_set_value_label (figure, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, self->shown_metric));
  pl_figure_view_set_figure (self->figure_view, figure, 0, 0);
  pl_page_show_figure (PL_PAGE (self));
}

static PlFigure *
grid_figure (PlPatchesPage *self)
{
  guint n = n_patches (self), k = (guint) self->similarity->rows - n;
  g_autoptr(PlMatrix) patches = pl_matrix_slice_rows (self->similarity, 0, n);
  PlFigure *figure = pl_figure_new_patch_grid (patches, self->rows, self->cols);

  if (k > 0)
    {
      g_autoptr(PlMatrix) special = pl_matrix_slice_rows (self->similarity, n, k);
      g_autoptr(GPtrArray) names = g_ptr_array_new ();

      for (guint i = 0; i < k; i++)
        g_ptr_array_add (names, (gpointer) pl_model_get_special_row_name (get_model (self), i));
      g_ptr_array_add (names, NULL);
      pl_figure_set_special_maps (figure, special, (const char * const *) names->pdata);
    }
  return figure;
}

static void
show_similarity (PlPatchesPage *self)
{
  g_autoptr(PlFigure) grid = grid_figure (self);

  if (self->focus < 0)
    {
      finish_figure (self, grid, _("similarity of every patch with every patch"));
      return;
    }
  else
    {
      /* The map clicked, large, on the grid's colour scale. */
      g_autoptr(PlMatrix) map = pl_matrix_new_from (self->rows, self->cols,
                                                    pl_matrix_row (self->similarity, (gsize) self->focus));
      g_autoptr(PlFigure) figure = pl_figure_new_heatmap (map, 0);
      g_autofree char *name = describe_map (self, (guint) self->focus);
      /* Translators: figure title part: "Patch (2, 3) with every patch" or "CLS with every patch" */
      g_autofree char *what = g_strdup_printf (_("%s with every patch"), name);
      double lo, hi;

      pl_figure_get_range (grid, &lo, &hi);
      pl_figure_set_range (figure, lo, hi);
      finish_figure (self, figure, what);
    }
}

static void
show_colours (PlPatchesPage *self)
{
  g_autoptr(PlMatrix) rgb = pl_grid_pca_colors (self->pca);
  g_autoptr(PlFigure) figure = NULL;
  double ratio[3];

  self->shown_metric = PL_SIMILARITY_COSINE;
  for (guint k = 0; k < 3; k++)
    ratio[k] = k < self->pca->n_components ? pl_matrix_get (self->pca->explained_variance_ratio, 0, k) : NAN;
  figure = pl_figure_new_grid_colors (rgb, self->rows, self->cols, ratio);
  finish_figure (self, figure, _("first three principal components as colours"));
}

static void
on_answer (gpointer      page,
           const GValue *answer,
           const GError *error)
{
  PlPatchesPage *self = page;

  if (answer == NULL)
    {
      pl_page_show_error (PL_PAGE (self), NULL, error);
      return;
    }
  if (G_VALUE_HOLDS (answer, PL_TYPE_PCA))
    {
      g_clear_pointer (&self->pca, pl_pca_unref);
      self->pca = pl_pca_ref (g_value_get_boxed (answer));
      show_colours (self);
    }
  else
    {
      g_clear_pointer (&self->similarity, pl_matrix_unref);
      self->similarity = pl_matrix_ref (g_value_get_boxed (answer));
      self->shown_metric = self->asked_metric;
      if (self->focus >= (int) self->similarity->rows)
        self->focus = -1;
      show_similarity (self);
    }
}

static gpointer
make_grid_question (PlMatrix *table,
                    gpointer  page)
{
  PlPatchesPage *self = page;

  return pl_patch_grid_question_new (table, get_model (self), self->asked_metric);
}

static gpointer
make_pca_input (PlMatrix *table,
                gpointer  page)
{
  return pl_matrix_ref (table);
}

static void
clear (PlPatchesPage *self)
{
  pl_page_runner_cancel (pl_page_get_runner (PL_PAGE (self)));
  g_clear_pointer (&self->similarity, pl_matrix_unref);
  g_clear_pointer (&self->pca, pl_pca_unref);
  pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
}

static void
refresh (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  PlWorkspace *workspace = get_workspace (self);
  PlModel *model = get_model (self);
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  if (model == NULL)
    {
      clear (self);
      pl_page_show_empty (page);
      return;
    }
  if (!pl_model_require_grid (model, &self->rows, &self->cols, &error))
    {
      clear (self);
      pl_page_show_status (page, "view-app-grid-symbolic", _("No Grid of Patches"), error->message);
      return;
    }

  pl_page_show_loading (page);
  gtk_widget_set_visible (GTK_WIDGET (self->metric_dropdown), get_show (self) == PL_PATCHES_GRID_OF_GRIDS);
  if (get_show (self) == PL_PATCHES_COLOURS)
    {
      key = pl_pca_question_key (model, PL_LAYER_TABLE);
      pl_page_runner_ask (pl_page_get_runner (page), workspace, key, model, PL_LAYER_TABLE,
                          make_pca_input, pl_pca_question_run, (GDestroyNotify) pl_matrix_unref, on_answer);
    }
  else
    {
      self->asked_metric = get_metric (self);
      key = pl_patch_grid_question_key (model, self->asked_metric);
      pl_page_runner_ask (pl_page_get_runner (page), workspace, key, model, PL_LAYER_TABLE,
                          make_grid_question, pl_patch_grid_question_run,
                          (GDestroyNotify) pl_patch_grid_question_free, on_answer);
    }
}

static void
style_changed (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  PlFigure *figure = pl_figure_view_get_figure (self->figure_view);

  if (figure != NULL)
    {
      pl_view_style_apply_metric (figure, get_workspace (self), self->shown_metric);
      pl_figure_view_invalidate (self->figure_view);
    }
}

static PlFigure *
get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_PATCHES_PAGE (page)->figure_view);
}

static char *
get_export_name (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  PlModel *model = get_model (self);
  const char *name = model != NULL ? pl_model_get_name (model) : "poslens";

  if (get_show (self) == PL_PATCHES_COLOURS)
    return g_strdup_printf ("%s-patch-colours", name);
  if (self->focus >= 0)
    return g_strdup_printf ("%s-patch-map-%d-%s", name, self->focus,
                            pl_similarity_metric_to_string (self->shown_metric));
  return g_strdup_printf ("%s-grid-of-grids-%s", name, pl_similarity_metric_to_string (self->shown_metric));
}

static void
on_show_changed (PlPatchesPage *self)
{
  self->focus = -1;
  pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
  pl_page_refresh (PL_PAGE (self));
}

/* The same map, large or in the grid, in the new measure. */
static void
on_metric_changed (PlPatchesPage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

static char *
on_describe (PlPatchesPage *self,
             int            panel,
             guint          column,
             guint          row,
             PlFigureView  *view)
{
  const char *metric = pl_enum_label (PL_TYPE_SIMILARITY_METRIC, self->shown_metric);
  guint n = n_patches (self), map, cell;
  g_autofree char *first = NULL;

  if (get_show (self) == PL_PATCHES_COLOURS)
    {
      if (self->pca == NULL || row >= self->rows || column >= self->cols)
        return NULL;
      first = describe_map (self, row * self->cols + column);
      /* Translators: hover readout: the patch, then its first three principal components */
      return g_strdup_printf (_("%s\nPC1 %.3f, PC2 %.3f, PC3 %.3f"), first,
                              pl_matrix_get (self->pca->projection, row * self->cols + column, 0),
                              self->pca->n_components > 1 ? pl_matrix_get (self->pca->projection, row * self->cols + column, 1) : NAN,
                              self->pca->n_components > 2 ? pl_matrix_get (self->pca->projection, row * self->cols + column, 2) : NAN);
    }
  if (self->similarity == NULL)
    return NULL;
  /* The grid of grids hits map ROW's cell COLUMN; the large map its cell. */
  map = self->focus >= 0 ? (guint) self->focus : row;
  cell = self->focus >= 0 ? row * self->cols + column : column;
  if (map >= self->similarity->rows || cell >= n)
    return NULL;
  if (map >= n)
    /* Translators: hover readout: a special token ("CLS") and a patch by row and column, the measure and its value */
    return g_strdup_printf (_("%s and patch (%u, %u)\n%s: %.4f"),
                            pl_model_get_special_row_name (get_model (self), map - n), cell / self->cols,
                            cell % self->cols, metric, pl_matrix_get (self->similarity, map, cell));
  /* Translators: hover readout: two patches by row and column, the measure and its value */
  return g_strdup_printf (_("Patches (%u, %u) and (%u, %u)\n%s: %.4f"), map / self->cols, map % self->cols,
                          cell / self->cols, cell % self->cols, metric, pl_matrix_get (self->similarity, map, cell));
}

static void
on_activate (PlPatchesPage *self,
             int            panel,
             guint          column,
             guint          row,
             PlFigureView  *view)
{
  if (get_show (self) != PL_PATCHES_GRID_OF_GRIDS || self->similarity == NULL)
    return;
  /* A map clicked opens large; a click on the large one goes back. */
  self->focus = self->focus < 0 && row < self->similarity->rows ? (int) row : -1;
  show_similarity (self);
}

void
pl_patches_page_set_metric (PlPatchesPage      *self,
                            PlSimilarityMetric  metric)
{
  g_return_if_fail (PL_IS_PATCHES_PAGE (self));
  pl_drop_down_set_value (self->metric_dropdown, metric);
}

void
pl_patches_page_show (PlPatchesPage *self,
                      PlPatchesShow  show)
{
  g_return_if_fail (PL_IS_PATCHES_PAGE (self));
  gtk_drop_down_set_selected (self->show_dropdown, show);
}

GtkWidget *
pl_patches_page_get_figure_view (PlPatchesPage *self)
{
  g_return_val_if_fail (PL_IS_PATCHES_PAGE (self), NULL);
  return GTK_WIDGET (self->figure_view);
}

int
pl_patches_page_get_focus (PlPatchesPage *self)
{
  g_return_val_if_fail (PL_IS_PATCHES_PAGE (self), -1);
  return self->focus;
}

static void
pl_patches_page_dispose (GObject *object)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (object);

  g_clear_pointer (&self->similarity, pl_matrix_unref);
  g_clear_pointer (&self->pca, pl_pca_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_PATCHES_PAGE);
  G_OBJECT_CLASS (pl_patches_page_parent_class)->dispose (object);
}

static void
pl_patches_page_class_init (PlPatchesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_patches_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODEL;
  page_class->refresh = refresh;
  page_class->style_changed = style_changed;
  page_class->get_figure = get_figure;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-patches-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, show_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, figure_view);
  gtk_widget_class_bind_template_callback (widget_class, on_show_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_metric_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
}

static void
pl_patches_page_init (PlPatchesPage *self)
{
  self->focus = -1;
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->metric_dropdown, PL_TYPE_SIMILARITY_METRIC);
  pl_drop_down_set_value (self->metric_dropdown, PL_SIMILARITY_COSINE);
}
