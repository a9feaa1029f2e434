/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-encodings.h"
#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-pca.h"
#include "pl-playground-page.h"
#include "pl-similarity.h"
#include "pl-view-style.h"

/* The sinusoidal encoding with its knobs out: length, width and base change
 * the heatmap and the trajectory as the user turns them. Each change cancels
 * the computation in flight; only the latest answer is kept. */
struct _PlPlaygroundPage
{
  PlPage          parent_instance;

  GCancellable   *cancellable;
  guint           restack_id;
  PlMatrix       *matrix;
  PlMatrix       *projection;     /* on screen in the trajectory */

  /* Template widgets */
  GtkSpinButton  *length_spin;
  GtkSpinButton  *width_spin;
  GtkScale       *base_scale;
  GtkLabel       *base_label;
  GtkBox         *figures;
  PlFigureView   *heatmap_view;
  PlFigureView   *trajectory_view;
};

G_DEFINE_FINAL_TYPE (PlPlaygroundPage, pl_playground_page, PL_TYPE_PAGE)

static PlWorkspace *
get_workspace (PlPlaygroundPage *self)
{
  return pl_page_get_workspace (PL_PAGE (self));
}

typedef struct
{
  guint  length;
  guint  width;
  double base;
} Spec;

static double
get_base (PlPlaygroundPage *self)
{
  return pow (10.0, gtk_range_get_value (GTK_RANGE (self->base_scale)));
}

/* The answer: [cosine, projection (3 components), explained ratios]. */
static gboolean
compute (PlAnalysisJob  *job,
         gpointer        data,
         GValue         *result,
         GError        **error)
{
  Spec *spec = data;
  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);
  g_autoptr(PlMatrix) table = pl_encoding_sinusoidal (spec->length, spec->width, spec->base);
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlPca) pca = NULL;
  GPtrArray *answer;

  if (!(cosine = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, cancellable, error)))
    return FALSE;
  if (!(pca = pl_pca_compute (table, MIN (3, MIN (table->rows, table->cols)), cancellable, error)))
    return FALSE;

  answer = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref);
  g_ptr_array_add (answer, g_steal_pointer (&cosine));
  g_ptr_array_add (answer, pl_matrix_ref (pca->projection));
  g_ptr_array_add (answer, pl_matrix_ref (pca->explained_variance_ratio));
  g_value_init (result, G_TYPE_PTR_ARRAY);
  g_value_take_boxed (result, answer);
  return TRUE;
}

static void
show_answer (PlPlaygroundPage *self,
             GPtrArray        *answer)
{
  PlMatrix *cosine = g_ptr_array_index (answer, 0);
  PlMatrix *projection = g_ptr_array_index (answer, 1);
  PlMatrix *ratios = g_ptr_array_index (answer, 2);
  double explained[3] = { 0, 0, 0 };
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (cosine, 0);
  g_autoptr(PlFigure) trajectory = NULL;
  g_autofree char *title = NULL;

  for (guint i = 0; i < MIN (3, ratios->cols); i++)
    explained[i] = ratios->data[i];

  title = g_strdup_printf (_("Sinusoidal %u × %u, base %.0f"),
                           (guint) gtk_spin_button_get_value (self->length_spin),
                           (guint) gtk_spin_button_get_value (self->width_spin), get_base (self));
  pl_figure_set_range (heatmap, -1, 1);
  pl_view_style_apply (heatmap, get_workspace (self));
  pl_figure_set_title (heatmap, title);
  pl_figure_set_value_label (heatmap, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_COSINE));
  pl_figure_view_set_figure (self->heatmap_view, heatmap, cosine->cols, cosine->rows);

  if (projection->cols >= 2)
    {
      trajectory = pl_figure_new_trajectory (projection, 0, explained, 0, 1);
      pl_view_style_apply (trajectory, get_workspace (self));
      pl_figure_set_title (trajectory, _("First two principal components"));
      pl_figure_set_value_label (trajectory, _("Position"));
    }
  pl_figure_view_set_figure (self->trajectory_view, trajectory, 0, 0);

  g_clear_pointer (&self->matrix, pl_matrix_unref);
  self->matrix = pl_matrix_ref (cosine);
  g_clear_pointer (&self->projection, pl_matrix_unref);
  self->projection = pl_matrix_ref (projection);
}

static void
compute_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PlPlaygroundPage) self = user_data;
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || get_workspace (self) == NULL)
    return;
  g_clear_object (&self->cancellable);
  pl_page_set_busy (PL_PAGE (self), FALSE);
  if (answer == NULL)
    {
      g_warning ("The sinusoid playground failed: %s", error->message);
      return;
    }
  show_answer (self, g_value_get_boxed (answer));
}

static void
stop (PlPlaygroundPage *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  pl_page_set_busy (PL_PAGE (self), FALSE);
}

static void
refresh (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);
  PlAnalysisCache *cache;
  g_autofree char *key = NULL;
  g_autofree char *base_text = NULL;
  Spec *spec;

  base_text = g_strdup_printf ("%.0f", get_base (self));
  gtk_label_set_text (self->base_label, base_text);
  if (get_workspace (self) == NULL)
    return;

  stop (self);
  cache = pl_workspace_get_cache (get_workspace (self));
  /* The knobs make endless questions: keep no answers but the next. */
  pl_analysis_cache_forget (cache, "playground/");

  spec = g_new0 (Spec, 1);
  spec->length = (guint) gtk_spin_button_get_value (self->length_spin);
  spec->width = (guint) gtk_spin_button_get_value (self->width_spin) & ~1u;
  spec->base = get_base (self);
  key = g_strdup_printf ("playground/%u/%u/%g", spec->length, spec->width, spec->base);

  self->cancellable = g_cancellable_new ();
  pl_page_set_busy (page, TRUE);
  pl_analysis_cache_run_async (cache, key, compute, spec, g_free, NULL, NULL,
                               self->cancellable, compute_done, g_object_ref (self));
}

void
pl_playground_page_set_encoding (PlPlaygroundPage *self,
                                 guint             length,
                                 guint             width,
                                 double            base)
{
  g_return_if_fail (PL_IS_PLAYGROUND_PAGE (self));

  gtk_spin_button_set_value (self->length_spin, length);
  gtk_spin_button_set_value (self->width_spin, width);
  gtk_range_set_value (GTK_RANGE (self->base_scale), log10 (base));
  pl_page_refresh (PL_PAGE (self));
}

static gboolean
get_busy (PlPage *page)
{
  return PL_PLAYGROUND_PAGE (page)->cancellable != NULL;
}

PlMatrix *
pl_playground_page_get_matrix (PlPlaygroundPage *self)
{
  g_return_val_if_fail (PL_IS_PLAYGROUND_PAGE (self), NULL);
  return self->matrix;
}

static char *
on_describe (PlPlaygroundPage *self,
             int               panel,
             guint             column,
             guint             row,
             PlFigureView     *view)
{
  if (view == self->trajectory_view && self->projection != NULL && column < self->projection->rows &&
      self->projection->cols >= 2)
    /* Translators: hover readout on the sinusoid's trajectory: position, its first two components */
    return g_strdup_printf (_("Position %u\nPC1 = %.3f, PC2 = %.3f"), column,
                            pl_matrix_get (self->projection, column, 0), pl_matrix_get (self->projection, column, 1));
  if (view != self->heatmap_view || self->matrix == NULL || row >= self->matrix->rows ||
      column >= self->matrix->cols)
    return NULL;
  /* Translators: hover readout on the sinusoid's heatmap: positions i and j, cosine similarity */
  return g_strdup_printf (_("Positions %u and %u\nCosine similarity: %.4f"), row, column,
                          pl_matrix_get (self->matrix, row, column));
}

static void
on_parameters_changed (PlPlaygroundPage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

static void
style_changed (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);
  PlFigureView *views[] = { self->heatmap_view, self->trajectory_view };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (pl_figure_view_get_figure (views[i]) != NULL)
      {
        pl_view_style_apply (pl_figure_view_get_figure (views[i]), get_workspace (self));
        pl_figure_view_invalidate (views[i]);
      }
}

static PlFigure *
get_figure (PlPage *page)
{
  return pl_figure_view_get_figure (PL_PLAYGROUND_PAGE (page)->heatmap_view);
}

static char *
get_export_name (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);

  return g_strdup_printf ("sinusoidal-%ux%u-base-%.0f",
                          (guint) gtk_spin_button_get_value (self->length_spin),
                          (guint) gtk_spin_button_get_value (self->width_spin), get_base (self));
}

/* The two figures side by side, or one above the other where that gives
 * each a larger square (a narrow window). Switched after the allocation
 * that found it, never during one. */
static gboolean
restack (gpointer data)
{
  PlPlaygroundPage *self = data;
  int width = gtk_widget_get_width (GTK_WIDGET (self->figures));
  int height = gtk_widget_get_height (GTK_WIDGET (self->figures));
  GtkOrientation orientation = MIN (width, height / 2) > MIN (width / 2, height) ? GTK_ORIENTATION_VERTICAL
                                                                                 : GTK_ORIENTATION_HORIZONTAL;

  self->restack_id = 0;
  if (width > 0 && height > 0 && gtk_orientable_get_orientation (GTK_ORIENTABLE (self->figures)) != orientation)
    gtk_orientable_set_orientation (GTK_ORIENTABLE (self->figures), orientation);
  return G_SOURCE_REMOVE;
}

static void
pl_playground_page_size_allocate (GtkWidget *widget,
                                  int        width,
                                  int        height,
                                  int        baseline)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (widget);

  GTK_WIDGET_CLASS (pl_playground_page_parent_class)->size_allocate (widget, width, height, baseline);
  if (self->restack_id == 0)
    self->restack_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, restack, self, NULL);
}

static void
pl_playground_page_dispose (GObject *object)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (object);

  g_clear_handle_id (&self->restack_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->matrix, pl_matrix_unref);
  g_clear_pointer (&self->projection, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_PLAYGROUND_PAGE);
  G_OBJECT_CLASS (pl_playground_page_parent_class)->dispose (object);
}

static void
pl_playground_page_class_init (PlPlaygroundPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_playground_page_dispose;
  widget_class->size_allocate = pl_playground_page_size_allocate;
  page_class->refresh = refresh;
  page_class->style_changed = style_changed;
  page_class->get_figure = get_figure;
  page_class->get_export_name = get_export_name;
  page_class->get_busy = get_busy;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-playground-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, length_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, base_scale);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, base_label);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, figures);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, heatmap_view);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, trajectory_view);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
}

static void
pl_playground_page_init (PlPlaygroundPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The encoding needs no model. */
  pl_page_show_figure (PL_PAGE (self));
  gtk_scale_set_draw_value (self->base_scale, FALSE);
}
