/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-figure-view.h"
#include "pl-layer-picker.h"
#include "pl-page-runner.h"
#include "pl-pca.h"
#include "pl-questions.h"
#include "pl-trajectory-page.h"
#include "pl-view-style.h"

/* The positions as a path through their first principal components, in 2-D
 * or turned in 3-D, beside the explained variance of each component. One PCA
 * (16 components) per model and layer answers every choice of axes. */
struct _PlTrajectoryPage
{
  GtkWidget        parent_instance;

  gboolean         stale;          /* asked while hidden: answered when shown */

  PlWorkspace     *workspace;
  PlPageRunner    *runner;
  PlPca           *shown;

  /* Template widgets */
  PlLayerPicker   *layer_picker;
  GtkToggleButton *three_d_button;
  GtkDropDown     *x_dropdown;
  GtkDropDown     *y_dropdown;
  GtkDropDown     *z_dropdown;
  GtkLabel        *readout;
  GtkStack        *stack;
  AdwStatusPage   *error_page;
  PlFigureView    *figure_view;
  PlFigureView    *variance_view;
  GtkSpinner      *spinner;
};

static void page_iface_init (PlPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PlTrajectoryPage, pl_trajectory_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (PL_TYPE_PAGE, page_iface_init))

static gpointer
make_input (PlMatrix *table,
            gpointer  page)
{
  return pl_matrix_ref (table);
}

static void
on_selection_changed (PlTrajectoryPage *self)
{
  guint start, end;

  pl_workspace_get_selection (self->workspace, &start, &end);
  pl_figure_view_set_highlight (self->figure_view, start, end);
}

static void
show_pca (PlTrajectoryPage *self,
          PlPca            *pca)
{
  PlModel *model = pl_workspace_get_model (self->workspace);
  g_autofree double *ratios = g_new0 (double, pca->n_components);
  g_autofree char *layer = pl_workspace_describe_layer (self->workspace, pl_workspace_get_layer (self->workspace));
  g_autofree char *title = NULL;
  g_autoptr(PlFigure) figure = NULL;
  g_autoptr(PlFigure) bars = NULL;
  guint a = gtk_drop_down_get_selected (self->x_dropdown);
  guint b = gtk_drop_down_get_selected (self->y_dropdown);
  guint c = gtk_drop_down_get_selected (self->z_dropdown);
  guint k = pca->n_components;
  gboolean three_d = gtk_toggle_button_get_active (self->three_d_button) && k >= 3;
  PlFigure *old = pl_figure_view_get_figure (self->figure_view);
  double azimuth = 30, elevation = 20;

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
  pl_view_style_apply (figure, self->workspace);
  title = g_strdup_printf (_("%s — %s"), pl_model_get_name (model), layer);
  pl_figure_set_title (figure, title);
  pl_figure_set_value_label (figure, _("Position"));

  bars = pl_figure_new_bars (ratios, k, NULL);
  pl_figure_set_cumulative (bars, TRUE);
  pl_view_style_apply (bars, self->workspace);
  pl_figure_set_title (bars, _("Explained variance"));
  pl_figure_set_axis_labels (bars, _("Component"), _("Ratio of total variance"));

  g_clear_pointer (&self->shown, pl_pca_unref);
  self->shown = pl_pca_ref (pca);
  pl_figure_view_set_figure (self->figure_view, figure, 0, 0);
  pl_figure_view_set_figure (self->variance_view, bars, 0, 0);
  on_selection_changed (self);
  gtk_stack_set_visible_child_name (self->stack, "figure");
}

static void
on_answer (gpointer      page,
           const GValue *answer,
           const GError *error)
{
  PlTrajectoryPage *self = page;

  if (answer == NULL)
    {
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      return;
    }
  show_pca (self, g_value_get_boxed (answer));
}

static void
refresh (PlTrajectoryPage *self)
{
  g_autofree char *key = NULL;
  PlModel *model = self->workspace ? pl_workspace_get_model (self->workspace) : NULL;

  if (pl_page_defer_until_shown (GTK_WIDGET (self), &self->stale))
    {
      pl_page_runner_cancel (self->runner);
      return;
    }

  if (model == NULL)
    {
      pl_page_runner_cancel (self->runner);
      g_clear_pointer (&self->shown, pl_pca_unref);
      pl_figure_view_set_figure (self->figure_view, NULL, 0, 0);
      pl_figure_view_set_figure (self->variance_view, NULL, 0, 0);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }
  key = pl_pca_question_key (model, pl_workspace_get_layer (self->workspace));
  pl_page_runner_ask (self->runner, self->workspace, key, model, pl_workspace_get_layer (self->workspace),
                      make_input, pl_pca_question_run, (GDestroyNotify) pl_matrix_unref, on_answer);
}

static void
on_style_changed (PlTrajectoryPage *self)
{
  PlFigure *figures[] = {
    pl_figure_view_get_figure (self->figure_view),
    pl_figure_view_get_figure (self->variance_view),
  };

  for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
    if (figures[i] != NULL)
      pl_view_style_apply (figures[i], self->workspace);
  pl_figure_view_invalidate (self->figure_view);
  pl_figure_view_invalidate (self->variance_view);
}

static void
page_set_workspace (PlPage      *page,
                    PlWorkspace *workspace)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);

  if (!g_set_object (&self->workspace, workspace))
    return;
  pl_layer_picker_set_workspace (self->layer_picker, workspace);
  g_signal_connect_object (workspace, "notify::model", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "notify::layer", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "notify::selection", G_CALLBACK (on_selection_changed), self, G_CONNECT_SWAPPED);
  pl_view_style_connect (workspace, G_CALLBACK (on_style_changed), self);
  refresh (self);
}

static PlFigure *
page_get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_TRAJECTORY_PAGE (page)->figure_view);
}

static char *
page_get_export_name (PlPage *page)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (page);
  PlModel *model = pl_workspace_get_model (self->workspace);
  int layer = pl_workspace_get_layer (self->workspace);
  g_autofree char *layer_part = layer == PL_LAYER_TABLE ? g_strdup ("") : g_strdup_printf ("-layer-%d", layer);

  return g_strdup_printf ("%s-pca%s%s", model ? pl_model_get_name (model) : "poslens",
                          gtk_toggle_button_get_active (self->three_d_button) ? "-3d" : "", layer_part);
}

static void
page_iface_init (PlPageInterface *iface)
{
  iface->set_workspace = page_set_workspace;
  iface->get_figure = page_get_figure;
  iface->get_export_name = page_get_export_name;
}

GtkWidget *
pl_trajectory_page_get_figure_view (PlTrajectoryPage *self)
{
  g_return_val_if_fail (PL_IS_TRAJECTORY_PAGE (self), NULL);
  return GTK_WIDGET (self->figure_view);
}

gboolean
pl_trajectory_page_get_busy (PlTrajectoryPage *self)
{
  g_return_val_if_fail (PL_IS_TRAJECTORY_PAGE (self), FALSE);
  return pl_page_runner_get_busy (self->runner);
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

static void
on_hover (PlTrajectoryPage *self,
          gboolean          inside,
          guint             point,
          guint             unused,
          PlFigureView     *view)
{
  g_autofree char *text = NULL;

  if (!inside || self->shown == NULL || point >= self->shown->projection->rows)
    {
      gtk_label_set_text (self->readout, "");
      return;
    }
  {
    guint a = MIN (gtk_drop_down_get_selected (self->x_dropdown), self->shown->n_components - 1);
    guint b = MIN (gtk_drop_down_get_selected (self->y_dropdown), self->shown->n_components - 1);

    /* Translators: hover readout on a trajectory: position, then its coordinates */
    text = g_strdup_printf (_("position %u: PC%u = %.3f, PC%u = %.3f"), point,
                            a + 1, pl_matrix_get (self->shown->projection, point, a),
                            b + 1, pl_matrix_get (self->shown->projection, point, b));
  }
  gtk_label_set_text (self->readout, text);
}

static void
pl_trajectory_page_dispose (GObject *object)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (object);

  g_clear_pointer (&self->runner, pl_page_runner_free);
  g_clear_pointer (&self->shown, pl_pca_unref);
  g_clear_object (&self->workspace);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_TRAJECTORY_PAGE);
  pl_widget_unparent_children (GTK_WIDGET (self));
  G_OBJECT_CLASS (pl_trajectory_page_parent_class)->dispose (object);
}

static void
pl_trajectory_page_map (GtkWidget *widget)
{
  PlTrajectoryPage *self = PL_TRAJECTORY_PAGE (widget);

  GTK_WIDGET_CLASS (pl_trajectory_page_parent_class)->map (widget);
  if (self->stale)
    refresh (self);
}

static void
pl_trajectory_page_class_init (PlTrajectoryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_trajectory_page_dispose;
  widget_class->map = pl_trajectory_page_map;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_LAYER_PICKER);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-trajectory-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, layer_picker);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, three_d_button);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, x_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, y_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, z_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, readout);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, stack);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, figure_view);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, variance_view);
  gtk_widget_class_bind_template_child (widget_class, PlTrajectoryPage, spinner);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_hover);
}

static void
pl_trajectory_page_init (PlTrajectoryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->runner = pl_page_runner_new (self, self->spinner);
}
