/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-error.h"
#include "pl-page.h"
#include "pl-questions.h"
#include "pl-view-style.h"

typedef struct
{
  PlWorkspace   *workspace;
  PlPageRunner  *runner;
  GPtrArray     *runners;        /* the subclass's others (pl_page_add_runner) */
  gboolean       busy;
  gboolean       stale;          /* asked while hidden: answered when shown */
  char          *empty_icon_name;

  GtkWidget     *frame;          /* the toolbar over the stack */
  PlFoldingToolbar *toolbar;
  GtkSpinner    *spinner;
  GtkProgressBar *progress;
  GtkStack      *stack;
  AdwStatusPage *status;
  AdwStatusPage *error;
  GtkWidget     *content;        /* the subclass's figure */
  PlFigureView  *figure_view;    /* the main figure's view, in the content */
  PlModel       *model;          /* the model the page's own results belong to */
} PlPagePrivate;

static void buildable_iface_init (GtkBuildableIface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PlPage, pl_page, GTK_TYPE_WIDGET,
                                  G_ADD_PRIVATE (PlPage)
                                  G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE, buildable_iface_init))

enum {
  PROP_0,
  PROP_WORKSPACE,
  PROP_EMPTY_ICON_NAME,
  PROP_BUSY,
  PROP_FIGURE_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static GtkBuildableIface *parent_buildable_iface;

#define HEADER_MARGIN 12

PlWorkspace *
pl_page_get_workspace (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return priv->workspace;
}

PlPageRunner *
pl_page_get_runner (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return priv->runner;
}

static void
on_runner_progress (PlPage *self,
                    double  fraction)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  gtk_progress_bar_set_fraction (priv->progress, fraction);
  gtk_widget_set_visible (GTK_WIDGET (priv->progress), priv->busy);
}

PlPageRunner *
pl_page_add_runner (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  PlPageRunner *runner;

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  runner = pl_page_runner_new (self, pl_page_update_busy, on_runner_progress);
  g_ptr_array_add (priv->runners, runner);
  return runner;
}

void
pl_page_update_busy (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  gboolean busy;

  g_return_if_fail (PL_IS_PAGE (self));
  busy = pl_page_get_busy (self);
  gtk_widget_set_visible (GTK_WIDGET (priv->spinner), busy);
  gtk_spinner_set_spinning (priv->spinner, busy);
  /* Each question shows its own progress, from its first report. */
  gtk_widget_set_visible (GTK_WIDGET (priv->progress), FALSE);
  gtk_progress_bar_set_fraction (priv->progress, 0);
  if (busy == priv->busy)
    return;
  priv->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

double
pl_page_get_progress (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), -1);
  if (!gtk_widget_get_visible (GTK_WIDGET (priv->progress)))
    return -1;
  return gtk_progress_bar_get_fraction (priv->progress);
}

void
pl_page_stop (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  pl_page_runner_cancel (priv->runner);
  for (guint i = 0; i < priv->runners->len; i++)
    pl_page_runner_cancel (g_ptr_array_index (priv->runners, i));
}

PlFigureView *
pl_page_get_figure_view (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return priv->figure_view;
}

void
pl_page_set_figure_view (PlPage       *self,
                         PlFigureView *view)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  g_return_if_fail (view == NULL || PL_IS_FIGURE_VIEW (view));
  if (g_set_object (&priv->figure_view, view))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIGURE_VIEW]);
}

void
pl_page_refresh (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));

  /* No work and no figures for what nobody looks at. */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      priv->stale = TRUE;
      pl_page_stop (self);
      return;
    }
  priv->stale = FALSE;
  if (PL_PAGE_GET_CLASS (self)->refresh != NULL)
    PL_PAGE_GET_CLASS (self)->refresh (self);
}

static void
on_style_changed (PlPage *self)
{
  if (PL_PAGE_GET_CLASS (self)->style_changed != NULL)
    PL_PAGE_GET_CLASS (self)->style_changed (self);
}


static PlFigure *
pl_page_real_get_figure (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  return priv->figure_view ? pl_figure_view_get_figure (priv->figure_view) : NULL;
}

static void
on_selection_changed (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  guint start, end;

  if ((PL_PAGE_GET_CLASS (self)->follows & PL_PAGE_FOLLOWS_SELECTION) && priv->figure_view != NULL &&
      priv->workspace != NULL)
    {
      pl_workspace_get_selection (priv->workspace, &start, &end);
      pl_figure_view_set_highlight (priv->figure_view, start, end);
    }
  if (PL_PAGE_GET_CLASS (self)->selection_changed != NULL)
    PL_PAGE_GET_CLASS (self)->selection_changed (self);
}

static void
disconnect_workspace (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  GSettings *settings;

  if (priv->workspace == NULL)
    return;
  g_signal_handlers_disconnect_by_data (priv->workspace, self);
  if (pl_workspace_get_models (priv->workspace) != NULL)
    g_signal_handlers_disconnect_by_data (pl_workspace_get_models (priv->workspace), self);
  if ((settings = pl_workspace_get_settings (priv->workspace)) != NULL)
    g_signal_handlers_disconnect_by_data (settings, self);
}

void
pl_page_set_workspace (PlPage      *self,
                       PlWorkspace *workspace)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  PlPageFollows follows;

  g_return_if_fail (PL_IS_PAGE (self));
  g_return_if_fail (workspace == NULL || PL_IS_WORKSPACE (workspace));

  if (priv->workspace == workspace)
    return;
  disconnect_workspace (self);
  g_set_object (&priv->workspace, workspace);

  if (workspace != NULL)
    {
      follows = PL_PAGE_GET_CLASS (self)->follows;
      if (follows & PL_PAGE_FOLLOWS_MODEL)
        g_signal_connect_object (workspace, "notify::model", G_CALLBACK (pl_page_refresh), self, G_CONNECT_SWAPPED);
      if (follows & PL_PAGE_FOLLOWS_LAYER)
        g_signal_connect_object (workspace, "notify::layer", G_CALLBACK (pl_page_refresh), self, G_CONNECT_SWAPPED);
      if (follows & PL_PAGE_FOLLOWS_HEAD)
        g_signal_connect_object (workspace, "notify::head", G_CALLBACK (pl_page_refresh), self, G_CONNECT_SWAPPED);
      if (follows & PL_PAGE_FOLLOWS_MODELS)
        g_signal_connect_object (pl_workspace_get_models (workspace), "items-changed",
                                 G_CALLBACK (pl_page_refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (workspace, "notify::selection", G_CALLBACK (on_selection_changed), self,
                               G_CONNECT_SWAPPED);
      pl_view_style_connect (workspace, G_CALLBACK (on_style_changed), self);
      if (PL_PAGE_GET_CLASS (self)->workspace_changed != NULL)
        PL_PAGE_GET_CLASS (self)->workspace_changed (self);
      on_selection_changed (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WORKSPACE]);
  pl_page_refresh (self);
}

PlFigure *
pl_page_get_figure (PlPage *self)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  if (PL_PAGE_GET_CLASS (self)->get_figure == NULL)
    return NULL;
  return PL_PAGE_GET_CLASS (self)->get_figure (self);
}

char *
pl_page_get_export_name (PlPage *self)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  if (PL_PAGE_GET_CLASS (self)->get_export_name == NULL)
    return g_strdup ("poslens-figure");
  return PL_PAGE_GET_CLASS (self)->get_export_name (self);
}

PlFigure *
pl_page_get_export_companion (PlPage      *self,
                              const char **label)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  g_return_val_if_fail (label != NULL, NULL);

  *label = NULL;
  if (PL_PAGE_GET_CLASS (self)->get_export_companion == NULL)
    return NULL;
  return PL_PAGE_GET_CLASS (self)->get_export_companion (self, label);
}

gboolean
pl_page_get_busy (PlPage *self)
{
  g_return_val_if_fail (PL_IS_PAGE (self), FALSE);
  return PL_PAGE_GET_CLASS (self)->get_busy (self);
}

static gboolean
pl_page_real_get_busy (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  if (pl_page_runner_get_busy (priv->runner))
    return TRUE;
  for (guint i = 0; i < priv->runners->len; i++)
    if (pl_page_runner_get_busy (g_ptr_array_index (priv->runners, i)))
      return TRUE;
  return FALSE;
}

PlModel *
pl_page_get_model (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return priv->model;
}

void
pl_page_set_model (PlPage  *self,
                   PlModel *model)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  g_set_object (&priv->model, model);
}

void
pl_page_show_figure (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  PlFigure *figure = priv->figure_view ? pl_figure_view_get_figure (priv->figure_view) : NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PL_IS_PAGE (self));
  /* A figure cairo cannot draw would show blank. */
  if (figure != NULL && !pl_figure_check_size (figure, &error))
    {
      pl_page_show_error (self, _("Cannot Draw This Figure"), error);
      return;
    }
  gtk_stack_set_visible_child_name (priv->stack, "figure");
}

void
pl_page_show_loading (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  /* Until the first answer, say that one is coming rather than "no model";
   * after it, the figure stays until the next one replaces it. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (priv->stack), "figure") != 0)
    gtk_stack_set_visible_child_name (priv->stack, "loading");
}

static void
set_status (AdwStatusPage *status,
            const char    *icon_name,
            const char    *title,
            const char    *description)
{
  g_autofree char *escaped = description ? g_markup_escape_text (description, -1) : NULL;

  adw_status_page_set_icon_name (status, icon_name);
  adw_status_page_set_title (status, title);
  /* The status page reads its description as markup; a file name or an
   * error holding "<" or "&" must show as written. */
  adw_status_page_set_description (status, escaped);
}

void
pl_page_show_status (PlPage     *self,
                     const char *icon_name,
                     const char *title,
                     const char *description)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  set_status (priv->status, icon_name, title, description);
  adw_status_page_set_child (priv->status, NULL);
  gtk_stack_set_visible_child_name (priv->stack, "status");
}

void
pl_page_show_no_table (PlPage  *self,
                       PlModel *model)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  const PlRotaryDecoderSpec *decoder;
  g_autofree char *spec = NULL;
  g_autofree char *description = NULL;
  GtkWidget *button;

  g_return_if_fail (PL_IS_PAGE (self));
  g_return_if_fail (PL_IS_MODEL (model));

  decoder = pl_model_get_rotary_decoder (model);
  spec = pl_question_analytic_rope (model);
  g_return_if_fail (decoder != NULL && spec != NULL);

  /* Translators: a rotary model's missing table; the family (Llama), the rotary base and dims */
  description = g_strdup_printf (_("%s models learn no position vectors: each layer turns its queries and keys by "
                                   "angles that grow with the position (RoPE, base %g, %u of %u dims per head), "
                                   "so attention sees how far apart two tokens are. The layers show what the "
                                   "hidden states hold about position, and the analytic RoPE of this base and "
                                   "size can be opened as a table."),
                                 pl_model_get_family_display_name (model), decoder->rope.theta,
                                 decoder->rope.dim, decoder->head_dim);
  pl_page_show_status (self, "view-grid-symbolic", _("No Position Table"), description);
  button = gtk_button_new_with_mnemonic (_("Open _Analytic RoPE"));
  gtk_widget_set_halign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "pill");
  gtk_widget_add_css_class (button, "suggested-action");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open-analytic");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (button), g_variant_new_string (spec));
  adw_status_page_set_child (priv->status, button);
}

PlModel *
pl_page_begin_layer_question (PlPage *self)
{
  PlWorkspace *workspace = pl_page_get_workspace (self);
  PlModel *model = workspace ? pl_workspace_get_model (workspace) : NULL;

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);

  if (model == NULL)
    {
      pl_page_stop (self);
      pl_page_show_empty (self);
      return NULL;
    }
  /* A rotary model adds no table to its tokens. */
  if (pl_workspace_get_layer (workspace) == PL_LAYER_TABLE && pl_model_get_rotary_decoder (model) != NULL)
    {
      pl_page_stop (self);
      pl_page_show_no_table (self, model);
      return NULL;
    }
  pl_page_show_loading (self);
  return model;
}

gpointer
pl_page_answer_or_error (PlPage       *self,
                         const GValue *answer,
                         const GError *error)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);

  if (answer == NULL)
    {
      pl_page_show_error (self, NULL, error);
      return NULL;
    }
  return g_value_get_boxed (answer);
}

void
pl_page_show_empty (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  pl_page_show_status (self, priv->empty_icon_name, _("No Model Selected"),
                       _("Pick a model in the sidebar, or open a checkpoint."));
}

void
pl_page_show_error (PlPage       *self,
                    const char   *title,
                    const GError *error)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_autofree char *sentence = NULL;

  g_return_if_fail (PL_IS_PAGE (self));
  g_return_if_fail (error != NULL);
  sentence = pl_error_sentence (error->message);
  set_status (priv->error, "dialog-warning-symbolic", title ? title : _("Cannot Show This Model"), sentence);
  gtk_stack_set_visible_child_name (priv->stack, "error");
}

AdwStatusPage *
pl_page_get_status (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (priv->stack), "error") == 0)
    return priv->error;
  return priv->status;
}

const char *
pl_page_get_shown (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return gtk_stack_get_visible_child_name (priv->stack);
}

void
pl_page_add_toolbar_child (PlPage    *self,
                           GtkWidget *child)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  pl_folding_toolbar_append (priv->toolbar, child);
}

void
pl_page_set_content (PlPage    *self,
                     GtkWidget *content)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_if_fail (PL_IS_PAGE (self));
  if (priv->content != NULL)
    gtk_stack_remove (priv->stack, priv->content);
  priv->content = content;
  gtk_stack_add_named (priv->stack, content, "figure");
}

static void
pl_page_buildable_add_child (GtkBuildable *buildable,
                             GtkBuilder   *builder,
                             GObject      *child,
                             const char   *type)
{
  PlPage *self = PL_PAGE (buildable);
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  if (g_strcmp0 (type, "toolbar") == 0 && GTK_IS_WIDGET (child))
    pl_page_add_toolbar_child (self, GTK_WIDGET (child));
  else if (type == NULL && GTK_IS_WIDGET (child) && priv->frame != NULL)
    pl_page_set_content (self, GTK_WIDGET (child));
  else
    parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
buildable_iface_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = pl_page_buildable_add_child;
}

static void
pl_page_measure (GtkWidget      *widget,
                 GtkOrientation  orientation,
                 int             for_size,
                 int            *minimum,
                 int            *natural,
                 int            *minimum_baseline,
                 int            *natural_baseline)
{
  PlPagePrivate *priv = pl_page_get_instance_private (PL_PAGE (widget));

  gtk_widget_measure (priv->frame, orientation, for_size, minimum, natural, minimum_baseline, natural_baseline);
}

static void
pl_page_size_allocate (GtkWidget *widget,
                       int        width,
                       int        height,
                       int        baseline)
{
  PlPagePrivate *priv = pl_page_get_instance_private (PL_PAGE (widget));

  gtk_widget_allocate (priv->frame, width, height, baseline, NULL);
}

PlFoldingToolbar *
pl_page_get_toolbar (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  return priv->toolbar;
}

static void
pl_page_map (GtkWidget *widget)
{
  PlPage *self = PL_PAGE (widget);
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  GTK_WIDGET_CLASS (pl_page_parent_class)->map (widget);
  if (priv->stale)
    pl_page_refresh (self);
}

static void
pl_page_dispose (GObject *object)
{
  PlPage *self = PL_PAGE (object);
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  g_clear_object (&priv->model);
  g_clear_pointer (&priv->runner, pl_page_runner_free);
  g_ptr_array_set_size (priv->runners, 0);
  g_clear_object (&priv->figure_view);
  disconnect_workspace (self);
  g_clear_object (&priv->workspace);
  g_clear_pointer (&priv->frame, gtk_widget_unparent);
  G_OBJECT_CLASS (pl_page_parent_class)->dispose (object);
}

static void
pl_page_finalize (GObject *object)
{
  PlPagePrivate *priv = pl_page_get_instance_private (PL_PAGE (object));

  g_free (priv->empty_icon_name);
  g_ptr_array_unref (priv->runners);
  G_OBJECT_CLASS (pl_page_parent_class)->finalize (object);
}

static void
pl_page_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  PlPage *self = PL_PAGE (object);
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_WORKSPACE:
      g_value_set_object (value, priv->workspace);
      break;
    case PROP_EMPTY_ICON_NAME:
      g_value_set_string (value, priv->empty_icon_name);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, priv->busy);
      break;
    case PROP_FIGURE_VIEW:
      g_value_set_object (value, priv->figure_view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_page_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  PlPage *self = PL_PAGE (object);
  PlPagePrivate *priv = pl_page_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_WORKSPACE:
      pl_page_set_workspace (self, g_value_get_object (value));
      break;
    case PROP_EMPTY_ICON_NAME:
      if (g_strcmp0 (priv->empty_icon_name, g_value_get_string (value)) != 0)
        {
          g_free (priv->empty_icon_name);
          priv->empty_icon_name = g_value_dup_string (value);
          if (g_strcmp0 (gtk_stack_get_visible_child_name (priv->stack), "status") == 0 &&
              g_strcmp0 (adw_status_page_get_title (priv->status), _("No Model Selected")) == 0)
            adw_status_page_set_icon_name (priv->status, priv->empty_icon_name);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_FIGURE_VIEW:
      pl_page_set_figure_view (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_page_class_init (PlPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_page_dispose;
  object_class->finalize = pl_page_finalize;
  object_class->get_property = pl_page_get_property;
  object_class->set_property = pl_page_set_property;
  widget_class->map = pl_page_map;
  widget_class->measure = pl_page_measure;
  widget_class->size_allocate = pl_page_size_allocate;
  klass->get_busy = pl_page_real_get_busy;
  klass->get_figure = pl_page_real_get_figure;

  properties[PROP_WORKSPACE] =
    g_param_spec_object ("workspace", NULL, NULL, PL_TYPE_WORKSPACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EMPTY_ICON_NAME] =
    g_param_spec_string ("empty-icon-name", NULL, NULL, "view-grid-symbolic",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FIGURE_VIEW] =
    g_param_spec_object ("figure-view", NULL, NULL, PL_TYPE_FIGURE_VIEW,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pl_page_init (PlPage *self)
{
  PlPagePrivate *priv = pl_page_get_instance_private (self);
  GtkWidget *loading = gtk_spinner_new ();
  GtkWidget *overlay;

  priv->empty_icon_name = g_strdup ("view-grid-symbolic");
  priv->frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (priv->frame, GTK_WIDGET (self));

  priv->toolbar = PL_FOLDING_TOOLBAR (pl_folding_toolbar_new ());
  gtk_widget_set_margin_start (GTK_WIDGET (priv->toolbar), HEADER_MARGIN);
  gtk_widget_set_margin_end (GTK_WIDGET (priv->toolbar), HEADER_MARGIN);
  gtk_widget_set_margin_top (GTK_WIDGET (priv->toolbar), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (priv->toolbar), 6);
  gtk_box_append (GTK_BOX (priv->frame), GTK_WIDGET (priv->toolbar));

  priv->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (priv->stack), TRUE);
  priv->status = ADW_STATUS_PAGE (adw_status_page_new ());
  gtk_stack_add_named (priv->stack, GTK_WIDGET (priv->status), "status");
  priv->error = ADW_STATUS_PAGE (adw_status_page_new ());
  gtk_stack_add_named (priv->stack, GTK_WIDGET (priv->error), "error");
  gtk_spinner_set_spinning (GTK_SPINNER (loading), TRUE);
  gtk_widget_set_halign (loading, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (loading, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (loading, 32, 32);
  gtk_stack_add_named (priv->stack, loading, "loading");
  /* Work in flight shows in the corner over the figure, taking no room
   * from the toolbar. */
  overlay = gtk_overlay_new ();
  gtk_overlay_set_child (GTK_OVERLAY (overlay), GTK_WIDGET (priv->stack));
  priv->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_widget_set_visible (GTK_WIDGET (priv->spinner), FALSE);
  gtk_widget_set_halign (GTK_WIDGET (priv->spinner), GTK_ALIGN_END);
  gtk_widget_set_valign (GTK_WIDGET (priv->spinner), GTK_ALIGN_START);
  gtk_widget_set_margin_end (GTK_WIDGET (priv->spinner), HEADER_MARGIN);
  gtk_widget_set_margin_top (GTK_WIDGET (priv->spinner), 6);
  gtk_widget_set_can_target (GTK_WIDGET (priv->spinner), FALSE);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), GTK_WIDGET (priv->spinner));
  /* A worker's progress along the top edge, as a browser shows a page
   * loading. */
  priv->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_widget_add_css_class (GTK_WIDGET (priv->progress), "osd");
  gtk_widget_set_valign (GTK_WIDGET (priv->progress), GTK_ALIGN_START);
  gtk_widget_set_visible (GTK_WIDGET (priv->progress), FALSE);
  gtk_widget_set_can_target (GTK_WIDGET (priv->progress), FALSE);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), GTK_WIDGET (priv->progress));
  gtk_box_append (GTK_BOX (priv->frame), overlay);

  priv->runner = pl_page_runner_new (self, pl_page_update_busy, on_runner_progress);
  priv->runners = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_page_runner_free);
  pl_page_show_empty (self);
}
