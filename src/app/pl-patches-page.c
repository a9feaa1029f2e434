/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-enum-labels.h"
#include "pl-error.h"
#include "pl-figure-pair.h"
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
 * patch as colours. Beside it, when asked, the same of the table resized to
 * another grid as Hugging Face's interpolate_pos_encoding resizes it (the
 * code of poslens-cli resize). A model without a grid gets a status page
 * saying why. */

/* What one figure shows: the table's grid, or the resized one's. */
typedef struct
{
  PlFigureView      *view;
  PlPageRunner      *runner;        /* the page's for the table, the pane's own for the resized one */
  guint              rows;
  guint              cols;
  PlMatrix          *similarity;    /* [n + k, n]: the patches', then the special rows' */
  PlPca             *pca;
  PlSimilarityMetric asked_metric;  /* the measure of the question in flight */
  PlSimilarityMetric shown_metric;  /* the measure of SIMILARITY */
  int                focus;         /* the map shown large, or -1 */
} Pane;

enum { TABLE, RESIZED };

/* The resized grid's largest side in the window (the CLI takes up to
 * PL_GRID_MAX_SIDE): a 64 × 64 grid of grids is 4096 maps of 4096 cells. */
#define MAX_RESIZED_SIDE 64

struct _PlPatchesPage
{
  PlPage           parent_instance;

  Pane             panes[2];
  PlModel         *sized_for;       /* the model the resize spins were set for (not a reference) */
  gboolean         setting_spins;

  /* Template widgets */
  GtkButton       *back_button;
  GtkDropDown     *show_dropdown;
  GtkDropDown     *metric_dropdown;
  GtkMenuButton   *resize_button;
  GtkSwitch       *resize_switch;
  GtkSpinButton   *rows_spin;
  GtkSpinButton   *cols_spin;
  GtkDropDown     *resample_dropdown;
  PlFigureView    *resized_view;
};

G_DEFINE_FINAL_TYPE (PlPatchesPage, pl_patches_page, PL_TYPE_PAGE)

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

static PlGridResample
get_resample (PlPatchesPage *self)
{
  return gtk_drop_down_get_selected (self->resample_dropdown) == 1 ? PL_GRID_RESAMPLE_TENTH : PL_GRID_RESAMPLE_SIZE;
}

static gboolean
resizing (PlPatchesPage *self)
{
  return gtk_switch_get_active (self->resize_switch);
}

static PlModel *
get_model (PlPatchesPage *self)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));

  return workspace != NULL ? pl_workspace_get_model (workspace) : NULL;
}

static Pane *
pane_of (PlPatchesPage *self,
         PlFigureView  *view)
{
  return view == self->resized_view ? &self->panes[RESIZED] : &self->panes[TABLE];
}

static guint
n_patches (const Pane *pane)
{
  return pane->rows * pane->cols;
}

/* "CLS", or "Patch (2, 3)": what map M of PANE stands for. */
static char *
describe_map (PlPatchesPage *self,
              const Pane    *pane,
              guint          m)
{
  if (m >= n_patches (pane))
    return g_strdup (pl_model_get_special_row_name (get_model (self), m - n_patches (pane)));
  /* Translators: a patch of the image by its row and column in the grid */
  return g_strdup_printf (_("Patch (%u, %u)"), m / pane->cols, m % pane->cols);
}

/* Back to the grid (the button, Escape) while a map is shown large; Escape
 * only while the view is on screen, and from anywhere in the window. */
static void
sync_back (PlPatchesPage *self)
{
  gboolean large = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    large = large || self->panes[i].focus >= 0;
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), large);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "patches.back",
                                 large && gtk_widget_get_mapped (GTK_WIDGET (self)));
}

static void
finish_figure (PlPatchesPage *self,
               Pane          *pane,
               PlFigure      *figure,
               const char    *what)
{
  const char *name = pl_model_get_name (get_model (self));
  g_autofree char *title = NULL;

  if (pane == &self->panes[RESIZED])
    /* Translators: figure title: model resized to a grid of rows × columns — what is shown */
    title = g_strdup_printf (_("%s resized to %u × %u — %s"), name, pane->rows, pane->cols, what);
  else
    /* Translators: figure title: model — what is shown */
    title = g_strdup_printf (_("%s — %s"), name, what);
  /* A distance reverses the colour map, as in the Similarity view: near is bright. */
  pl_view_style_apply_metric (figure, pl_page_get_workspace (PL_PAGE (self)), pane->shown_metric);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Patch column"), _("Patch row"));
  pl_figure_set_value_label (figure, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, pane->shown_metric));
  pl_figure_view_set_figure (pane->view, figure, 0, 0);
  sync_back (self);
  if (pane == &self->panes[TABLE])
    pl_page_show_figure (PL_PAGE (self));
}

static PlFigure *
grid_figure (PlPatchesPage *self,
             Pane          *pane)
{
  guint n = n_patches (pane), k = (guint) pane->similarity->rows - n;
  g_autoptr(PlMatrix) patches = pl_matrix_slice_rows (pane->similarity, 0, n);
  PlFigure *figure = pl_figure_new_patch_grid (patches, pane->rows, pane->cols);

  if (k > 0)
    {
      g_autoptr(PlMatrix) special = pl_matrix_slice_rows (pane->similarity, n, k);
      g_autoptr(GPtrArray) names = g_ptr_array_new ();

      for (guint i = 0; i < k; i++)
        g_ptr_array_add (names, (gpointer) pl_model_get_special_row_name (get_model (self), i));
      g_ptr_array_add (names, NULL);
      pl_figure_set_special_maps (figure, special, (const char * const *) names->pdata);
    }
  return figure;
}

static void
show_similarity (PlPatchesPage *self,
                 Pane          *pane)
{
  g_autoptr(PlFigure) grid = grid_figure (self, pane);

  if (pane->focus < 0)
    {
      finish_figure (self, pane, grid, _("similarity of every patch with every patch"));
      return;
    }
  else
    {
      /* The map clicked, large, on the grid's colour scale. */
      g_autoptr(PlMatrix) map = pl_matrix_new_from (pane->rows, pane->cols,
                                                    pl_matrix_row (pane->similarity, (gsize) pane->focus));
      g_autoptr(PlFigure) figure = pl_figure_new_heatmap (map, 0);
      g_autofree char *name = describe_map (self, pane, (guint) pane->focus);
      /* Translators: figure title part: "Patch (2, 3) with every patch" or "CLS with every patch" */
      g_autofree char *what = g_strdup_printf (_("%s with every patch"), name);
      double lo, hi;

      pl_figure_get_range (grid, &lo, &hi);
      pl_figure_set_range (figure, lo, hi);
      finish_figure (self, pane, figure, what);
    }
}

static void
show_colours (PlPatchesPage *self,
              Pane          *pane)
{
  g_autoptr(PlMatrix) rgb = pl_grid_pca_colors (pane->pca);
  g_autoptr(PlFigure) figure = NULL;
  double ratio[3];

  pane->shown_metric = PL_SIMILARITY_COSINE;
  for (guint k = 0; k < 3; k++)
    ratio[k] = k < pane->pca->n_components ? pl_matrix_get (pane->pca->explained_variance_ratio, 0, k) : NAN;
  figure = pl_figure_new_grid_colors (rgb, pane->rows, pane->cols, ratio);
  finish_figure (self, pane, figure, _("First three principal components as colours"));
}

static void
take_answer (PlPatchesPage *self,
             Pane          *pane,
             const GValue  *answer,
             const GError  *error)
{
  if (pl_page_answer_or_error (PL_PAGE (self), answer, error) == NULL)
    return;
  if (G_VALUE_HOLDS (answer, PL_TYPE_PCA))
    {
      g_clear_pointer (&pane->pca, pl_pca_unref);
      pane->pca = pl_pca_ref (g_value_get_boxed (answer));
      show_colours (self, pane);
    }
  else
    {
      g_clear_pointer (&pane->similarity, pl_matrix_unref);
      pane->similarity = pl_matrix_ref (g_value_get_boxed (answer));
      pane->shown_metric = pane->asked_metric;
      if (pane->focus >= (int) pane->similarity->rows)
        pane->focus = -1;
      show_similarity (self, pane);
    }
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);

  take_answer (self, &self->panes[TABLE], answer, error);
}

static void
on_resized_answer (PlPage       *page,
                   const GValue *answer,
                   const GError *error)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);

  take_answer (self, &self->panes[RESIZED], answer, error);
}

static gpointer
make_grid_question (PlPage   *page,
                    PlMatrix *table)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);

  return pl_patch_grid_question_new (table, get_model (self), self->panes[TABLE].asked_metric);
}

static gpointer
make_resized_question (PlPage   *page,
                       PlMatrix *table)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  const Pane *resized = &self->panes[RESIZED];
  PlPatchGridQuestion *question = pl_patch_grid_question_new (table, get_model (self), resized->asked_metric);

  pl_patch_grid_question_resize (question, self->panes[TABLE].rows, self->panes[TABLE].cols, resized->rows,
                                 resized->cols, get_resample (self));
  return question;
}

static gpointer
make_pca_input (PlPage   *page,
                PlMatrix *table)
{
  return pl_matrix_ref (table);
}

static void
clear_pane (Pane *pane)
{
  pl_page_runner_cancel (pane->runner);
  g_clear_pointer (&pane->similarity, pl_matrix_unref);
  g_clear_pointer (&pane->pca, pl_pca_unref);
  pl_figure_view_set_figure (pane->view, NULL, 0, 0);
}

static void
clear (PlPatchesPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    {
      clear_pane (&self->panes[i]);
      self->panes[i].focus = -1;
    }
  sync_back (self);
}

/* A new model's resize starts half as large again as its grid. */
static void
set_spins_for (PlPatchesPage *self,
               PlModel       *model)
{
  const Pane *table = &self->panes[TABLE];

  if (model == self->sized_for)
    return;
  self->sized_for = model;
  self->setting_spins = TRUE;
  gtk_spin_button_set_value (self->rows_spin, MIN (table->rows + table->rows / 2, MAX_RESIZED_SIDE));
  gtk_spin_button_set_value (self->cols_spin, MIN (table->cols + table->cols / 2, MAX_RESIZED_SIDE));
  self->setting_spins = FALSE;
}

static void
ask_resized (PlPatchesPage *self,
             PlModel       *model)
{
  Pane *pane = &self->panes[RESIZED];
  PlGridResample resample = get_resample (self);
  g_autofree char *key = NULL;

  pane->rows = (guint) gtk_spin_button_get_value_as_int (self->rows_spin);
  pane->cols = (guint) gtk_spin_button_get_value_as_int (self->cols_spin);
  pane->asked_metric = get_metric (self);
  if (get_show (self) == PL_PATCHES_COLOURS)
    {
      key = pl_resized_pca_question_key (model, pane->rows, pane->cols, resample);
      pl_page_runner_ask_table (pane->runner, key, model, PL_LAYER_TABLE, make_resized_question,
                          pl_resized_pca_question_run, (GDestroyNotify) pl_patch_grid_question_free,
                          on_resized_answer);
    }
  else
    {
      key = pl_patch_grid_question_key (model, pane->asked_metric, pane->rows, pane->cols, resample);
      pl_page_runner_ask_table (pane->runner, key, model, PL_LAYER_TABLE, make_resized_question,
                          pl_patch_grid_question_run, (GDestroyNotify) pl_patch_grid_question_free,
                          on_resized_answer);
    }
}

/* A model without a grid: why, and where to find one, in the window's
 * words (the command line names builtin:sincos2d instead). */
static void
show_no_grid (PlPatchesPage *self,
              PlModel       *model,
              const GError  *error)
{
  g_autofree char *description = NULL;
  GtkWidget *button;

  if (!g_error_matches (error, PL_ERROR, PL_ERROR_UNSUPPORTED))
    {
      g_autofree char *sentence = pl_error_sentence (error->message);

      /* Translators: a sentence that ends a status page's description */
      description = g_strdup_printf (_("%s."), sentence);
      pl_page_show_status (PL_PAGE (self), "view-app-grid-symbolic", _("No Grid of Patches"), description);
      return;
    }
  /* Translators: %s is the model's name */
  description = g_strdup_printf (_("%s holds positions in a line, not the patches of an image in a grid. Open a "
                                   "vision transformer (ViT, DeiT, DINOv2, CLIP, SigLIP), or make the 2-D "
                                   "sine–cosine table of MAE with New Analytic Encoding… in the main menu."),
                                 pl_model_get_name (model));
  pl_page_show_status (PL_PAGE (self), "view-app-grid-symbolic", _("No Grid of Patches"), description);
  button = gtk_button_new_with_mnemonic (_("New _Analytic Encoding…"));
  gtk_widget_set_halign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "pill");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.new-encoding");
  adw_status_page_set_child (pl_page_get_status (PL_PAGE (self)), button);
}

static void
refresh (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  PlModel *model = get_model (self);
  Pane *pane = &self->panes[TABLE];
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  if (model == NULL)
    {
      clear (self);
      pl_page_show_empty (page);
      return;
    }
  /* Without a grid only the explanation applies. */
  if (!pl_model_require_grid (model, &pane->rows, &pane->cols, &error))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->show_dropdown), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->metric_dropdown), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->resize_button), FALSE);
      clear (self);
      show_no_grid (self, model, error);
      return;
    }
  set_spins_for (self, model);

  pl_page_show_loading (page);
  gtk_widget_set_visible (GTK_WIDGET (self->show_dropdown), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->resize_button), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->metric_dropdown), get_show (self) == PL_PATCHES_GRID_OF_GRIDS);
  if (get_show (self) == PL_PATCHES_COLOURS)
    {
      key = pl_pca_question_key (model, PL_LAYER_TABLE);
      pl_page_runner_ask_table (pane->runner, key, model, PL_LAYER_TABLE,
                          make_pca_input, pl_pca_question_run, (GDestroyNotify) pl_matrix_unref, on_answer);
    }
  else
    {
      pane->asked_metric = get_metric (self);
      key = pl_patch_grid_question_key (model, pane->asked_metric, 0, 0, PL_GRID_RESAMPLE_SIZE);
      pl_page_runner_ask_table (pane->runner, key, model, PL_LAYER_TABLE,
                          make_grid_question, pl_patch_grid_question_run,
                          (GDestroyNotify) pl_patch_grid_question_free, on_answer);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->resized_view), resizing (self));
  if (resizing (self))
    ask_resized (self, model);
  else
    clear_pane (&self->panes[RESIZED]);
}

static void
style_changed (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);

  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    {
      Pane *pane = &self->panes[i];
      PlFigure *figure = pl_figure_view_get_figure (pane->view);

      if (figure != NULL)
        {
          pl_view_style_apply_metric (figure, pl_page_get_workspace (PL_PAGE (self)), pane->shown_metric);
          pl_figure_view_invalidate (pane->view);
        }
    }
}

static char *
get_export_name (PlPage *page)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (page);
  PlModel *model = get_model (self);
  const char *name = model != NULL ? pl_model_get_name (model) : "poslens";
  const Pane *pane = &self->panes[TABLE];

  if (get_show (self) == PL_PATCHES_COLOURS)
    return g_strdup_printf ("%s-patch-colours", name);
  if (pane->focus >= 0)
    return g_strdup_printf ("%s-patch-map-%d-%s", name, pane->focus,
                            pl_similarity_metric_to_string (pane->shown_metric));
  return g_strdup_printf ("%s-grid-of-grids-%s", name, pl_similarity_metric_to_string (pane->shown_metric));
}

static void
on_show_changed (PlPatchesPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    {
      self->panes[i].focus = -1;
      pl_figure_view_set_figure (self->panes[i].view, NULL, 0, 0);
    }
  sync_back (self);
  pl_page_refresh (PL_PAGE (self));
}

/* The same maps, large or in the grid, in the new measure. */
static void
on_metric_changed (PlPatchesPage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

static void
on_resize_changed (PlPatchesPage *self)
{
  if (self->setting_spins)
    return;
  self->panes[RESIZED].focus = -1;
  sync_back (self);
  pl_page_refresh (PL_PAGE (self));
}

static char *
on_describe (PlPatchesPage *self,
             int            panel,
             guint          column,
             guint          row,
             PlFigureView  *view)
{
  const Pane *pane = pane_of (self, view);
  const char *metric = pl_enum_label (PL_TYPE_SIMILARITY_METRIC, pane->shown_metric);
  guint n = n_patches (pane), map, cell;
  g_autofree char *first = NULL;

  if (get_show (self) == PL_PATCHES_COLOURS)
    {
      const PlPca *pca = pane->pca;
      guint p = row * pane->cols + column;

      if (pca == NULL || row >= pane->rows || column >= pane->cols)
        return NULL;
      first = describe_map (self, pane, p);
      /* Translators: hover readout: the patch, then its first three principal components */
      return g_strdup_printf (_("%s\nPC1 %.3f, PC2 %.3f, PC3 %.3f"), first, pl_matrix_get (pca->projection, p, 0),
                              pca->n_components > 1 ? pl_matrix_get (pca->projection, p, 1) : NAN,
                              pca->n_components > 2 ? pl_matrix_get (pca->projection, p, 2) : NAN);
    }
  if (pane->similarity == NULL)
    return NULL;
  /* The grid of grids hits map ROW's cell COLUMN; the large map its cell. */
  map = pane->focus >= 0 ? (guint) pane->focus : row;
  cell = pane->focus >= 0 ? row * pane->cols + column : column;
  if (map >= pane->similarity->rows || cell >= n)
    return NULL;
  if (map >= n)
    /* Translators: hover readout: a special token ("CLS") and a patch by row and column, the measure and its value */
    return g_strdup_printf (_("%s and patch (%u, %u)\n%s: %.4f"),
                            pl_model_get_special_row_name (get_model (self), map - n), cell / pane->cols,
                            cell % pane->cols, metric, pl_matrix_get (pane->similarity, map, cell));
  /* Translators: hover readout: two patches by row and column, the measure and its value */
  return g_strdup_printf (_("Patches (%u, %u) and (%u, %u)\n%s: %.4f"), map / pane->cols, map % pane->cols,
                          cell / pane->cols, cell % pane->cols, metric, pl_matrix_get (pane->similarity, map, cell));
}

static void
on_activate (PlPatchesPage *self,
             int            panel,
             guint          column,
             guint          row,
             PlFigureView  *view)
{
  Pane *pane = pane_of (self, view);

  if (get_show (self) != PL_PATCHES_GRID_OF_GRIDS || pane->similarity == NULL)
    return;
  /* A map clicked opens large; a click on the large one goes back. */
  pane->focus = pane->focus < 0 && row < pane->similarity->rows ? (int) row : -1;
  show_similarity (self, pane);
}

/* Every map shown large goes back to its grid. */
static void
back_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (widget);

  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    if (self->panes[i].focus >= 0)
      {
        self->panes[i].focus = -1;
        if (self->panes[i].similarity != NULL)
          show_similarity (self, &self->panes[i]);
      }
  sync_back (self);
}

void
pl_patches_page_set_metric (PlPatchesPage      *self,
                            PlSimilarityMetric  metric)
{
  g_return_if_fail (PL_IS_PATCHES_PAGE (self));
  pl_drop_down_set_value (self->metric_dropdown, metric);
}

void
pl_patches_page_set_resize (PlPatchesPage  *self,
                            gboolean        show,
                            guint           rows,
                            guint           cols,
                            PlGridResample  resample)
{
  g_return_if_fail (PL_IS_PATCHES_PAGE (self));
  g_return_if_fail (rows >= 1 && rows <= MAX_RESIZED_SIDE && cols >= 1 && cols <= MAX_RESIZED_SIDE);

  self->setting_spins = TRUE;
  gtk_spin_button_set_value (self->rows_spin, rows);
  gtk_spin_button_set_value (self->cols_spin, cols);
  gtk_drop_down_set_selected (self->resample_dropdown, resample == PL_GRID_RESAMPLE_TENTH ? 1 : 0);
  self->setting_spins = FALSE;
  if (gtk_switch_get_active (self->resize_switch) != show)
    gtk_switch_set_active (self->resize_switch, show);
  else
    on_resize_changed (self);
}

void
pl_patches_page_show (PlPatchesPage *self,
                      PlPatchesShow  show)
{
  g_return_if_fail (PL_IS_PATCHES_PAGE (self));
  gtk_drop_down_set_selected (self->show_dropdown, show);
}

GtkWidget *
pl_patches_page_get_resized_view (PlPatchesPage *self)
{
  g_return_val_if_fail (PL_IS_PATCHES_PAGE (self), NULL);
  return GTK_WIDGET (self->resized_view);
}

int
pl_patches_page_get_focus (PlPatchesPage *self)
{
  g_return_val_if_fail (PL_IS_PATCHES_PAGE (self), -1);
  return self->panes[TABLE].focus;
}

static void
pl_patches_page_dispose (GObject *object)
{
  PlPatchesPage *self = PL_PATCHES_PAGE (object);

  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    {
      g_clear_pointer (&self->panes[i].similarity, pl_matrix_unref);
      g_clear_pointer (&self->panes[i].pca, pl_pca_unref);
    }
  self->sized_for = NULL;
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
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_PAIR);
  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-patches-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, back_button);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, show_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, resize_button);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, resize_switch);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, rows_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, cols_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, resample_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPatchesPage, resized_view);
  gtk_widget_class_bind_template_callback (widget_class, on_show_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_metric_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_resize_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);

  gtk_widget_class_install_action (widget_class, "patches.back", NULL, back_activated);
}

static void
pl_patches_page_init (PlPatchesPage *self)
{
  GtkEventController *escape;

  self->setting_spins = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  self->panes[TABLE].view = pl_page_get_figure_view (PL_PAGE (self));
  self->panes[TABLE].runner = pl_page_get_runner (PL_PAGE (self));
  self->panes[RESIZED].view = self->resized_view;
  self->panes[RESIZED].runner = pl_page_add_runner (PL_PAGE (self));
  for (guint i = 0; i < G_N_ELEMENTS (self->panes); i++)
    self->panes[i].focus = -1;
  gtk_spin_button_set_range (self->rows_spin, 1, MAX_RESIZED_SIDE);
  gtk_spin_button_set_range (self->cols_spin, 1, MAX_RESIZED_SIDE);
  gtk_spin_button_set_increments (self->rows_spin, 1, 4);
  gtk_spin_button_set_increments (self->cols_spin, 1, 4);
  self->setting_spins = FALSE;
  pl_drop_down_set_enum (self->metric_dropdown, PL_TYPE_SIMILARITY_METRIC);
  pl_drop_down_set_value (self->metric_dropdown, PL_SIMILARITY_COSINE);

  escape = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (escape), GTK_SHORTCUT_SCOPE_GLOBAL);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (escape),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("patches.back")));
  gtk_widget_add_controller (GTK_WIDGET (self), escape);
  g_signal_connect (self, "map", G_CALLBACK (sync_back), NULL);
  g_signal_connect (self, "unmap", G_CALLBACK (sync_back), NULL);
  sync_back (self);
}
