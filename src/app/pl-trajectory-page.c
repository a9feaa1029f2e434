/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-bias-view.h"
#include "pl-figure-pair.h"
#include "pl-figure-view.h"
#include "pl-layer-picker.h"
#include "pl-pca.h"
#include "pl-questions.h"
#include "pl-trajectory-page.h"
#include "pl-view-style.h"

/* The positions as a path through their first principal components, in 2-D
 * or turned in 3-D, beside the explained variance of each component. One PCA
 * (16 components) per model and layer answers every choice of axes. */
struct _PlTrajectoryPage
{
  PlPage           parent_instance;

  PlPca           *shown;

  /* Template widgets */
  PlLayerPicker   *layer_picker;
  GtkLabel        *family_label;
  GtkToggleButton *three_d_button;
  GtkDropDown     *x_dropdown;
  GtkDropDown     *y_dropdown;
  GtkDropDown     *z_dropdown;
  PlFigureView    *variance_view;
};

G_DEFINE_FINAL_TYPE (PlTrajectoryPage, pl_trajectory_page, PL_TYPE_PAGE)

static gpointer
make_input (PlPage   *page,
            PlMatrix *table)
{
  return pl_matrix_ref (table);
}

static void
show_pca (PlTrajectoryPage *self,
          PlPca            *pca)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  PlFigureView *view = pl_page_get_figure_view (PL_PAGE (self));
  PlModel *model = pl_workspace_get_model (workspace);
  g_autofree double *ratios = g_new0 (double, pca->n_components);
  g_autofree char *layer = pl_workspace_describe_layer (workspace, pl_workspace_get_layer (workspace));
  g_autofree char *title = NULL;
  g_autoptr(PlFigure) figure = NULL;
  g_autoptr(PlFigure) bars = NULL;
  guint a = gtk_drop_down_get_selected (self->x_dropdown);
  guint b = gtk_drop_down_get_selected (self->y_dropdown);
  guint c = gtk_drop_down_get_selected (self->z_dropdown);
  guint k = pca->n_components;
  gboolean three_d = gtk_toggle_button_get_active (self->three_d_button) && k >= 3;
  PlFigure *old = pl_figure_view_get_figure (view);
  double azimuth = 30, elevation = 20;
  guint cols;

  for (guint i = 0; i < k; i++)
    ratios[i] = pca->explained_variance_ratio->data[i];
  a = MIN (a, k - 1);
  b = MIN (b, k - 1);
  c = MIN (c, k - 1);

  /* Keep the rotation the user turned to when only the data changes. */
  if (old != NULL && pl_figure_get_kind (old) == PL_FIGURE_TRAJECTORY_3D)
    pl_figure_get_rotation (old, &azimuth, &elevation);
  if (three_d)
    {
      figure = pl_figure_new_trajectory_3d (pca->projection, 0, ratios, a, b, c);
      pl_figure_set_rotation (figure, azimuth, elevation);
    }
  else
    figure = pl_figure_new_trajectory (pca->projection, 0, ratios, a, b);
  pl_view_style_apply (figure, workspace);
  title = g_strdup_printf (_("%s — %s"), pl_model_get_name (model), layer);
  pl_figure_set_title (figure, title);
  /* The path runs through a vision transformer's patches row by row. */
  pl_figure_set_value_label (figure, pl_workspace_shows_patches (workspace, &cols) ? _("Patch, row by row")
                                                                                   : _("Position"));
  /* DeBERTa's relative table: points are buckets of i − j, zero labelled. */
  if (pl_workspace_get_layer (workspace) == PL_LAYER_TABLE && pl_model_get_relative_zero_row (model) > 0)
    {
      pl_figure_set_first_position (figure, -(int) pl_model_get_relative_zero_row (model));
      pl_figure_set_value_label (figure, _("Relative bucket of i − j"));
    }

  bars = pl_figure_new_bars (ratios, k, NULL);
  pl_figure_set_cumulative (bars, TRUE);
  pl_view_style_apply (bars, workspace);
  pl_figure_set_title (bars, _("Explained variance"));
  pl_figure_set_axis_labels (bars, _("Component"), _("Ratio of total variance"));

  g_clear_pointer (&self->shown, pl_pca_unref);
  self->shown = pl_pca_ref (pca);
  pl_figure_view_set_figure (view, figure, 0, 0);
  pl_figure_view_set_figure (self->variance_view, bars, 0, 0);
  pl_page_show_figure (PL_PAGE (self));
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlPca *pca = pl_page_answer_or_error (page, answer, error);

  if (pca != NULL)
    show_pca (PL_TRAJECTORY_PAGE (page), pca);
}

static void
refresh (PlPage *page)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);
  PlWorkspace *workspace = pl_page_get_workspace (page);
  PlModel *model;
  g_autofree char *key = NULL;

  pl_bias_view_clear (page);
  pl_bias_view_show_explanation (self->family_label, workspace);
  /* T5's and ALiBi's bias stands in for the table they do not have; it
   * has no components to explain. */
  gtk_widget_set_visible (GTK_WIDGET (self->variance_view), !pl_bias_view_applies (workspace));
  gtk_widget_set_visible (GTK_WIDGET (self->three_d_button), !pl_bias_view_applies (workspace));
  gtk_widget_set_visible (GTK_WIDGET (self->x_dropdown), !pl_bias_view_applies (workspace));
  gtk_widget_set_visible (GTK_WIDGET (self->y_dropdown), !pl_bias_view_applies (workspace));
  gtk_widget_set_visible (GTK_WIDGET (self->z_dropdown), !pl_bias_view_applies (workspace) &&
                          gtk_toggle_button_get_active (self->three_d_button));
  if (pl_bias_view_applies (workspace))
    {
      g_clear_pointer (&self->shown, pl_pca_unref);
      pl_figure_view_set_figure (self->variance_view, NULL, 0, 0);
      pl_bias_view_show (page);
      return;
    }
  model = pl_page_begin_layer_question (page);
  if (model == NULL)
    {
      g_clear_pointer (&self->shown, pl_pca_unref);
      pl_figure_view_set_figure (pl_page_get_figure_view (page), NULL, 0, 0);
      pl_figure_view_set_figure (self->variance_view, NULL, 0, 0);
      return;
    }
  key = pl_pca_question_key (model, pl_workspace_get_layer (workspace));
  pl_page_runner_ask_table (pl_page_get_runner (page), key, model, pl_workspace_get_layer (workspace),
                            make_input, pl_pca_question_run, (GDestroyNotify) pl_matrix_unref, on_answer);
}

static void
style_changed (PlPage *page)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);
  PlFigureView *views[] = { pl_page_get_figure_view (page), self->variance_view };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (pl_figure_view_get_figure (views[i]) != NULL)
      {
        pl_view_style_apply (pl_figure_view_get_figure (views[i]), pl_page_get_workspace (page));
        pl_figure_view_invalidate (views[i]);
      }
}

static void
workspace_changed (PlPage *page)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);

  pl_layer_picker_set_workspace (self->layer_picker, pl_page_get_workspace (page));
}

static char *
get_export_name (PlPage *page)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);
  PlModel *model = pl_workspace_get_model (pl_page_get_workspace (page));
  int layer = pl_workspace_get_layer (pl_page_get_workspace (page));
  g_autofree char *layer_part = layer == PL_LAYER_TABLE ? g_strdup ("") : g_strdup_printf ("-layer-%d", layer);

  if (pl_bias_view_get_bias (page) != NULL)
    return g_strdup_printf ("%s-position-bias", pl_model_get_name (model));
  return g_strdup_printf ("%s-pca%s%s", model ? pl_model_get_name (model) : "poslens",
                          gtk_toggle_button_get_active (self->three_d_button) ? "-3d" : "", layer_part);
}

static PlFigure *
get_export_companion (PlPage      *page,
                      const char **label)
{
  *label = _("Include the explained variance");
  return pl_figure_view_get_figure (PL_TRAJECTORY_PAGE (page)->variance_view);
}

void
pl_trajectory_page_set_3d (PlTrajectoryPage *self,
                           gboolean          three_d)
{
  g_return_if_fail (PL_IS_TRAJECTORY_PAGE (self));
  gtk_toggle_button_set_active (self->three_d_button, three_d);
}

static void
on_parameters_changed (PlTrajectoryPage *self)
{
  /* Axes and 2-D / 3-D redraw the PCA already computed. */
  if (self->shown != NULL)
    show_pca (self, self->shown);
}

static char *
on_describe (PlTrajectoryPage *self,
             int               panel,
             guint             point,
             guint             unused,
             PlFigureView     *view)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  PlModel *model = pl_workspace_get_model (workspace);
  g_autofree char *layer = NULL;
  guint k, a, b, cols;

  if (pl_bias_view_get_bias (PL_PAGE (self)) != NULL)
    return pl_bias_view_describe (PL_PAGE (self), panel, point, unused);
  if (self->shown == NULL)
    return NULL;
  k = self->shown->n_components;
  if (view == self->variance_view)
    {
      double before = 0;

      if (point >= k)
        return NULL;
      for (guint i = 0; i < point; i++)
        before += self->shown->explained_variance_ratio->data[i];
      /* Translators: hover readout on the explained variance: the component, its share of the variance in per
       * cent, then the share of it and the components before it */
      return g_strdup_printf (_("PC%u: %.1f %% of the variance\nPC1 to PC%u: %.1f %%"), point + 1,
                              100 * self->shown->explained_variance_ratio->data[point], point + 1,
                              100 * (before + self->shown->explained_variance_ratio->data[point]));
    }
  if (point >= self->shown->projection->rows)
    return NULL;
  a = MIN (gtk_drop_down_get_selected (self->x_dropdown), k - 1);
  b = MIN (gtk_drop_down_get_selected (self->y_dropdown), k - 1);
  layer = pl_workspace_describe_layer (workspace, pl_workspace_get_layer (workspace));
  if (model != NULL && pl_workspace_get_layer (workspace) == PL_LAYER_TABLE &&
      pl_model_get_relative_zero_row (model) > 0)
    {
      g_autofree char *bucket = pl_model_describe_relative_row (model, point);

      /* Translators: hover readout on DeBERTa's relative table: which offsets the row stands for, then its coordinates */
      return g_strdup_printf (_("%s\nPC%u = %.3f, PC%u = %.3f"), bucket,
                              a + 1, pl_matrix_get (self->shown->projection, point, a),
                              b + 1, pl_matrix_get (self->shown->projection, point, b));
    }
  if (pl_workspace_shows_patches (workspace, &cols))
    /* Translators: hover readout on a vision transformer's trajectory: position, its patch (row, column), layer, coordinates */
    return g_strdup_printf (_("Position %u = patch (%u, %u), read row by row (special tokens left out)\n%s\n"
                              "PC%u = %.3f, PC%u = %.3f"), point, point / cols, point % cols, layer,
                            a + 1, pl_matrix_get (self->shown->projection, point, a),
                            b + 1, pl_matrix_get (self->shown->projection, point, b));
  /* Translators: hover readout on a trajectory: position, layer, then its coordinates */
  return g_strdup_printf (_("Position %u\n%s\nPC%u = %.3f, PC%u = %.3f"), point, layer,
                          a + 1, pl_matrix_get (self->shown->projection, point, a),
                          b + 1, pl_matrix_get (self->shown->projection, point, b));
}

static void
pl_trajectory_page_dispose (GObject *object)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (object);

  g_clear_pointer (&self->shown, pl_pca_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_TRAJECTORY_PAGE);
  G_OBJECT_CLASS (pl_trajectory_page_parent_class)->dispose (object);
}

static void
pl_trajectory_page_class_init (PlTrajectoryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_trajectory_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODEL | PL_PAGE_FOLLOWS_LAYER | PL_PAGE_FOLLOWS_SELECTION;
  page_class->refresh = refresh;
  page_class->workspace_changed = workspace_changed;
  page_class->style_changed = style_changed;
  page_class->get_export_name = get_export_name;
  page_class->get_export_companion = get_export_companion;

  g_type_ensure (PL_TYPE_FIGURE_PAIR);
  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_LAYER_PICKER);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-trajectory-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, layer_picker);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, family_label);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, three_d_button);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, x_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, y_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, z_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, variance_view);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
}

static void
pl_trajectory_page_init (PlTrajectoryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
