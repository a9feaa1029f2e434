/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-attention-page.h"
#include "pl-compare-page.h"
#include "pl-error.h"
#include "pl-executor.h"
#include "pl-export-dialog.h"
#include "pl-model-row.h"
#include "pl-page.h"
#include "pl-patches-page.h"
#include "pl-playground-page.h"
#include "pl-probes-page.h"
#include "pl-rotary-page.h"
#include "pl-similarity-page.h"
#include "pl-trajectory-page.h"
#include "pl-window-private.h"
#include "pl-workspace.h"

G_DEFINE_FINAL_TYPE (PlWindow, pl_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_SELECTED_MODEL,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GListModel *
pl_window_get_models (PlWindow *self)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->models);
}

PlModel *
pl_window_get_selected_model (PlWindow *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);

  row = gtk_list_box_get_selected_row (self->model_list);
  if (row == NULL)
    return NULL;
  return pl_model_row_get_model (PL_MODEL_ROW (row));
}

void
pl_window_select_model (PlWindow *self,
                        guint     position)
{
  GtkListBoxRow *row;

  g_return_if_fail (PL_IS_WINDOW (self));

  row = gtk_list_box_get_row_at_index (self->model_list, position);
  if (row != NULL)
    gtk_list_box_select_row (self->model_list, row);
}

void
pl_window_show_error (PlWindow   *self,
                      const char *message)
{
  g_autofree char *sentence = NULL;
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_return_if_fail (PL_IS_WINDOW (self));

  g_message ("%s", message);
  sentence = pl_error_sentence (message);
  /* A toast's title is markup: a message holding "<" or "&" would show empty. */
  escaped = g_markup_escape_text (sentence, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

gboolean
pl_window_show_view (PlWindow   *self,
                     const char *name)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), FALSE);

  if (adw_view_stack_get_child_by_name (self->view_stack, name) == NULL)
    return FALSE;
  adw_view_stack_set_visible_child_name (self->view_stack, name);
  return TRUE;
}

static void
show_view_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);
  guint index = (guint) g_variant_get_int32 (param);

  /* Alt+1 … Alt+8: the views in the order the switcher shows them. */
  if (index < g_list_model_get_n_items (G_LIST_MODEL (pages)))
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), index);
      adw_view_stack_set_visible_child (self->view_stack, adw_view_stack_page_get_child (page));
    }
}

PlWorkspace *
pl_window_get_workspace (PlWindow *self)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  return self->workspace;
}

/* The page of view NAME, built into its bin the first time it is asked
 * for: a start builds only the view it shows. NULL for no such view. */
static PlPage *
ensure_page (PlWindow   *self,
             const char *name)
{
  static const struct { const char *name; GType (*get_type) (void); } views[] = {
    { "similarity", pl_similarity_page_get_type },
    { "trajectory", pl_trajectory_page_get_type },
    { "attention", pl_attention_page_get_type },
    { "probes", pl_probes_page_get_type },
    { "compare", pl_compare_page_get_type },
    { "playground", pl_playground_page_get_type },
    { "patches", pl_patches_page_get_type },
    { "rotary", pl_rotary_page_get_type },
  };
  GtkWidget *bin = name != NULL ? adw_view_stack_get_child_by_name (self->view_stack, name) : NULL;
  GtkWidget *page;

  if (bin == NULL)
    return NULL;
  if ((page = adw_bin_get_child (ADW_BIN (bin))) != NULL)
    return PL_PAGE (page);
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (g_str_equal (views[i].name, name))
      {
        page = g_object_new (views[i].get_type (), NULL);
        adw_bin_set_child (ADW_BIN (bin), page);
        if (self->workspace != NULL)
          pl_page_set_workspace (PL_PAGE (page), self->workspace);
        return PL_PAGE (page);
      }
  g_return_val_if_reached (NULL);
}

GtkWidget *
pl_window_get_page (PlWindow   *self,
                    const char *name)
{
  g_return_val_if_fail (PL_IS_WINDOW (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return GTK_WIDGET (ensure_page (self, name));
}

/* The view shown gets its page, and the views' drop-down names it. */
static void
on_visible_view_changed (PlWindow *self)
{
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);
  GtkWidget *visible = adw_view_stack_get_visible_child (self->view_stack);

  ensure_page (self, adw_view_stack_get_visible_child_name (self->view_stack));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);

      if (adw_view_stack_page_get_child (page) == visible && gtk_drop_down_get_selected (self->view_menu) != i)
        gtk_drop_down_set_selected (self->view_menu, i);
    }
}

static void
on_view_menu_selected (PlWindow *self)
{
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);
  guint selected = gtk_drop_down_get_selected (self->view_menu);
  g_autoptr(AdwViewStackPage) page = NULL;

  if (selected >= g_list_model_get_n_items (G_LIST_MODEL (pages)))
    return;
  page = g_list_model_get_item (G_LIST_MODEL (pages), selected);
  adw_view_stack_set_visible_child (self->view_stack, adw_view_stack_page_get_child (page));
}

/* Where the bar at the bottom cannot show every view's label in full, the
 * header switches views with a drop-down instead. The squeezer chooses while
 * it is allocated, so the header changes in an idle after that allocation. */
static gboolean
place_view_switcher (gpointer data)
{
  PlWindow *self = data;
  gboolean bar_fits = adw_squeezer_get_visible_child (self->bottom_squeezer) == GTK_WIDGET (self->switcher_bar);

  self->switcher_idle = 0;
  gtk_stack_set_visible_child_name (self->title_stack, bar_fits ? "switcher" : "menu");
  return G_SOURCE_REMOVE;
}

static void
on_bottom_squeezed (PlWindow *self)
{
  if (self->switcher_idle == 0)
    self->switcher_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, place_view_switcher, self, NULL);
}

/* A view in the drop-down: its icon and title, as the switcher shows it;
 * in the list, a check mark at the view shown, as other drop-downs have. */
static void
setup_view_item (GtkSignalListItemFactory *factory,
                 GtkListItem              *item,
                 gpointer                  in_list)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_box_append (GTK_BOX (box), gtk_image_new ());
  gtk_box_append (GTK_BOX (box), label);
  if (in_list != NULL)
    {
      gtk_widget_set_hexpand (label, TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_box_append (GTK_BOX (box), gtk_image_new_from_icon_name ("object-select-symbolic"));
    }
  gtk_list_item_set_child (item, box);
}

static void
update_view_check (GtkDropDown *menu,
                   GParamSpec  *pspec,
                   GtkListItem *item)
{
  GtkWidget *check = gtk_widget_get_last_child (gtk_list_item_get_child (item));

  gtk_widget_set_opacity (check, gtk_list_item_get_position (item) == gtk_drop_down_get_selected (menu) ? 1 : 0);
}

static void
bind_view_item (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                PlWindow                 *in_list)
{
  AdwViewStackPage *page = gtk_list_item_get_item (item);
  GtkWidget *image = gtk_widget_get_first_child (gtk_list_item_get_child (item));

  gtk_image_set_from_icon_name (GTK_IMAGE (image), adw_view_stack_page_get_icon_name (page));
  gtk_label_set_label (GTK_LABEL (gtk_widget_get_next_sibling (image)), adw_view_stack_page_get_title (page));
  if (in_list != NULL)
    {
      g_signal_connect (in_list->view_menu, "notify::selected", G_CALLBACK (update_view_check), item);
      update_view_check (in_list->view_menu, NULL, item);
    }
}

static void
unbind_view_item (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  PlWindow                 *in_list)
{
  /* Items are also unbound while the window's template is torn down. */
  if (in_list->view_menu != NULL)
    g_signal_handlers_disconnect_by_func (in_list->view_menu, update_view_check, item);
}

static GtkWidget *
create_model_row (gpointer item,
                  gpointer user_data)
{
  return GTK_WIDGET (pl_model_row_new (PL_MODEL (item)));
}

static void
on_row_selected (PlWindow      *self,
                 GtkListBoxRow *row,
                 GtkListBox    *list)
{
  PlModel *model = row ? pl_model_row_get_model (PL_MODEL_ROW (row)) : NULL;

  /* Rows go away while the window is torn down. */
  if (self->workspace == NULL)
    return;
  pl_workspace_set_model (self->workspace, model);
  if (row != NULL)
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_MODEL]);
}

static PlPage *
get_visible_page (PlWindow *self)
{
  return ensure_page (self, adw_view_stack_get_visible_child_name (self->view_stack));
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  PlPage *page = get_visible_page (self);
  PlFigure *figure = page ? pl_page_get_figure (page) : NULL;
  g_autofree char *name = NULL;
  PlExportDialog *dialog;
  PlFigure *companion;
  const char *label;

  if (figure == NULL)
    {
      pl_window_show_error (self, _("There is no figure to export yet"));
      return;
    }
  name = pl_page_get_export_name (page);
  dialog = pl_export_dialog_new (GTK_WINDOW (self), figure, name, pl_workspace_get_settings (self->workspace));
  if ((companion = pl_page_get_export_companion (page, &label)) != NULL)
    pl_export_dialog_set_companion (dialog, companion, label);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The folded sidebar's way back: the content's back button. */
static void
show_models_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);

  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

static void
on_remove_toast_dismissed (PlWindow *self,
                           AdwToast *toast)
{
  if (toast != self->remove_toast)
    return;
  self->remove_toast = NULL;
  g_clear_object (&self->removed);
}

/* Takes the selected model out of the sidebar; its neighbour is selected,
 * and a toast offers to bring it back. */
static void
remove_model_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  GtkListBoxRow *row = gtk_list_box_get_selected_row (self->model_list);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));
  g_autoptr(PlModel) removed = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  AdwToast *toast;
  int at;

  if (row == NULL)
    return;
  at = gtk_list_box_row_get_index (row);
  removed = g_list_model_get_item (G_LIST_MODEL (self->models), at);
  pl_window_forget_demo (self, removed);
  g_list_store_remove (self->models, at);
  if (n > 1)
    pl_window_select_model (self, MIN ((guint) at, n - 2));
  else
    pl_workspace_set_model (self->workspace, NULL);

  g_set_object (&self->removed, removed);
  self->removed_at = (guint) at;
  /* A toast's title is markup: a name holding "<" or "&" shows as written. */
  name = g_markup_escape_text (pl_model_get_name (removed), -1);
  /* Translators: a toast after Delete, with an Undo button; %s is the model's name */
  title = g_strdup_printf (_("“%s” removed"), name);
  /* Another Delete while the toast shows: it offers the newest one back. */
  if (self->remove_toast != NULL)
    {
      adw_toast_set_title (self->remove_toast, title);
      return;
    }
  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-remove");
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (on_remove_toast_dismissed), self, G_CONNECT_SWAPPED);
  self->remove_toast = toast;
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Undo of Delete: the model back in its row, selected, a demo kept at start. */
static void
undo_remove_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  g_autoptr(PlModel) model = g_steal_pointer (&self->removed);
  guint at;

  if (model == NULL)
    return;
  at = MIN (self->removed_at, g_list_model_get_n_items (G_LIST_MODEL (self->models)));
  g_list_store_insert (self->models, at, model);
  pl_window_keep_demo (self, model);
  gtk_stack_set_visible_child_name (self->content_stack, "views");
  pl_window_select_model (self, at);
  /* The toast goes by itself: its button dismisses it, and dismissing it
   * here as well makes libadwaita 1.2 free it twice. */
}

static void
step_layer (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);

  pl_workspace_set_layer (self->workspace, pl_workspace_get_layer (self->workspace) + g_variant_get_int32 (param));
}

static void
step_head (GtkWidget  *widget,
           const char *action_name,
           GVariant   *param)
{
  PlWindow *self = PL_WINDOW (widget);
  int head = (int) pl_workspace_get_head (self->workspace) + g_variant_get_int32 (param);

  if (head >= 0)
    pl_workspace_set_head (self->workspace, head);
}

static void
pl_window_constructed (GObject *object)
{
  PlWindow *self = PL_WINDOW (object);
  GSettings *settings = self->settings;

  G_OBJECT_CLASS (pl_window_parent_class)->constructed (object);

  self->workspace = pl_workspace_new (settings);
  pl_workspace_set_models (self->workspace, G_LIST_MODEL (self->models));
  if (settings != NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (settings, "window-width"),
                                   g_settings_get_int (settings, "window-height"));
      if (g_settings_get_boolean (settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
    }
  /* The other views' pages are built when first shown. */
  on_visible_view_changed (self);
  g_signal_connect_object (self->view_stack, "notify::visible-child", G_CALLBACK (on_visible_view_changed), self,
                           G_CONNECT_SWAPPED);
  if (settings != NULL)
    g_signal_connect_object (settings, "changed::recent-files", G_CALLBACK (pl_window_update_recent_menu), self,
                             G_CONNECT_SWAPPED);
  pl_window_update_recent_menu (self);
  if (settings != NULL)
    self->restore_selection = g_settings_get_string (settings, "selected-model");
  if (self->restore_selection != NULL && self->restore_selection[0] == '\0')
    g_clear_pointer (&self->restore_selection, g_free);
  self->starting = TRUE;
  pl_window_load_demo_models (self);
  pl_window_restore_models (self);
  self->starting = FALSE;
  if (self->start_pending == 0)
    g_clear_pointer (&self->restore_selection, g_free);
}

static gboolean
pl_window_close_request (GtkWindow *window)
{
  PlWindow *self = PL_WINDOW (window);
  GSettings *settings = pl_workspace_get_settings (self->workspace);

  pl_window_save_models (self);
  if (settings != NULL)
    {
      PlModel *selected = pl_window_get_selected_model (self);
      const char *path = selected != NULL ? pl_model_get_path (selected) : NULL;
      int width, height;

      g_settings_set_string (settings, "selected-model", path != NULL ? path : "");
      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window))
        {
          g_settings_set_int (settings, "window-width", width);
          g_settings_set_int (settings, "window-height", height);
        }
    }
  return GTK_WINDOW_CLASS (pl_window_parent_class)->close_request (window);
}

static void
pl_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  PlWindow *self = PL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SELECTED_MODEL:
      g_value_set_object (value, pl_window_get_selected_model (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  PlWindow *self = PL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_window_dispose (GObject *object)
{
  PlWindow *self = PL_WINDOW (object);

  g_clear_handle_id (&self->switcher_idle, g_source_remove);
  g_cancellable_cancel (self->paper_cancellable);
  /* A helper process opening a file is killed, not waited for. */
  g_cancellable_cancel (self->open_cancellable);
  /* The recent-files menu goes with the template; a change of the list
   * that arrives later (while the executor drains, say) finds no window. */
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_func (self->settings, pl_window_update_recent_menu, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_WINDOW);
  /* Everything the views asked stops now, and the window is gone only once
   * no thread computes: the process may end next, and OpenBLAS and HDF5
   * free at exit what a thread still computing uses. A view whose question
   * is in flight outlives the window (the question holds it) and cancels
   * nothing itself, and the idle in which the cache cancels a computation
   * nobody waits for may never run. */
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), NULL);
  if (self->workspace != NULL)
    pl_analysis_cache_cancel_all (pl_workspace_get_cache (self->workspace));
  pl_executor_wait_idle (pl_executor_get_default ());
  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  if (self->paper_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (g_steal_pointer (&self->paper_dialog)));
  g_clear_object (&self->paper_cancellable);
  g_clear_object (&self->open_cancellable);
  g_clear_object (&self->paper_toast);
  g_clear_pointer (&self->paper_folder, g_free);
  g_clear_object (&self->removed);
  g_clear_pointer (&self->restore_selection, g_free);
  g_clear_object (&self->models);
  g_clear_object (&self->workspace);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (pl_window_parent_class)->dispose (object);
}

static void
pl_window_finalize (GObject *object)
{
  PlWindow *self = PL_WINDOW (object);

  g_string_free (self->load_errors, TRUE);
  G_OBJECT_CLASS (pl_window_parent_class)->finalize (object);
}

static void
pl_window_class_init (PlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = pl_window_constructed;
  object_class->dispose = pl_window_dispose;
  object_class->finalize = pl_window_finalize;
  object_class->get_property = pl_window_get_property;
  object_class->set_property = pl_window_set_property;
  GTK_WINDOW_CLASS (klass)->close_request = pl_window_close_request;

  properties[PROP_SELECTED_MODEL] =
    g_param_spec_object ("selected-model", NULL, NULL,
                         PL_TYPE_MODEL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* Given at construction, so the workspace and the window size come from it. */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL,
                         G_TYPE_SETTINGS,
                         (G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PL_TYPE_SIMILARITY_PAGE);
  g_type_ensure (PL_TYPE_TRAJECTORY_PAGE);
  g_type_ensure (PL_TYPE_ATTENTION_PAGE);
  g_type_ensure (PL_TYPE_ROTARY_PAGE);
  g_type_ensure (PL_TYPE_PROBES_PAGE);
  g_type_ensure (PL_TYPE_COMPARE_PAGE);
  g_type_ensure (PL_TYPE_PLAYGROUND_PAGE);
  g_type_ensure (PL_TYPE_PATCHES_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, model_list);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, recent_menu);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, title_stack);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, view_menu);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, bottom_squeezer);
  gtk_widget_class_bind_template_child (widget_class, PlWindow, switcher_bar);
  gtk_widget_class_bind_template_callback (widget_class, on_row_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_bottom_squeezed);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, pl_window_open_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.reproduce-paper", NULL, pl_window_reproduce_paper_action);
  gtk_widget_class_install_action (widget_class, "win.open-paper-folder", NULL, pl_window_open_paper_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", pl_window_open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.open-analytic", "s", pl_window_open_analytic_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, pl_window_open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-ollama", NULL, pl_window_open_ollama_action);
  gtk_widget_class_install_action (widget_class, "win.show-view", "i", show_view_action);
  for (int i = 0; i < 8; i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK, "win.show-view", "i", i);
  gtk_widget_class_install_action (widget_class, "win.new-encoding", NULL, pl_window_new_encoding_action);
  gtk_widget_class_install_action (widget_class, "win.show-models", NULL, show_models_action);
  gtk_widget_class_install_action (widget_class, "win.remove-model", NULL, remove_model_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "win.remove-model", NULL);
  gtk_widget_class_install_action (widget_class, "win.undo-remove", NULL, undo_remove_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.undo-remove", NULL);
  gtk_widget_class_install_action (widget_class, "win.restore-demos", NULL, pl_window_restore_demos_action);
  gtk_widget_class_install_action (widget_class, "win.step-layer", "i", step_layer);
  gtk_widget_class_install_action (widget_class, "win.step-head", "i", step_head);
}

/* Layers and heads step from anywhere in the window: these keys are taken
 * before the focused widget sees them, and are none that a list, an entry
 * or a spin button moves with (plain Page Down moves the sidebar's list). */
static void
add_stepping_keys (PlWindow *self)
{
  static const struct { guint key; GdkModifierType mods; const char *action; int step; } keys[] = {
    { GDK_KEY_Page_Down, GDK_CONTROL_MASK, "win.step-layer",  1 },
    { GDK_KEY_Page_Up,   GDK_CONTROL_MASK, "win.step-layer", -1 },
    { GDK_KEY_Page_Down, GDK_ALT_MASK,     "win.step-head",   1 },
    { GDK_KEY_Page_Up,   GDK_ALT_MASK,     "win.step-head",  -1 },
  };
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_event_controller_set_name (controller, "pl-stepping-keys");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].key, keys[i].mods),
                                                gtk_named_action_new (keys[i].action));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_int32 (keys[i].step));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);
    }
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

static void
pl_window_init (PlWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  if (DEVELOPMENT_BUILD)
    gtk_widget_add_css_class (GTK_WIDGET (self), "devel");

  self->models = g_list_store_new (PL_TYPE_MODEL);
  self->open_cancellable = g_cancellable_new ();
  self->load_errors = g_string_new (NULL);
  gtk_list_box_bind_model (self->model_list, G_LIST_MODEL (self->models),
                           create_model_row, self, NULL);
  add_stepping_keys (self);

  {
    g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->view_stack);
    g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
    g_autoptr(GtkListItemFactory) list_factory = gtk_signal_list_item_factory_new ();

    g_signal_connect (factory, "setup", G_CALLBACK (setup_view_item), NULL);
    g_signal_connect (factory, "bind", G_CALLBACK (bind_view_item), NULL);
    g_signal_connect (list_factory, "setup", G_CALLBACK (setup_view_item), self);
    g_signal_connect (list_factory, "bind", G_CALLBACK (bind_view_item), self);
    g_signal_connect (list_factory, "unbind", G_CALLBACK (unbind_view_item), self);
    gtk_drop_down_set_factory (self->view_menu, factory);
    gtk_drop_down_set_list_factory (self->view_menu, list_factory);
    gtk_drop_down_set_model (self->view_menu, G_LIST_MODEL (pages));
    g_signal_connect_object (self->view_menu, "notify::selected", G_CALLBACK (on_view_menu_selected), self,
                             G_CONNECT_SWAPPED);
    place_view_switcher (self);
  }

  {
    /* Checkpoints dropped on the window open like files from the file chooser. */
    GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

    g_signal_connect (drop, "drop", G_CALLBACK (pl_window_on_drop), self);
    gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  }
}

PlWindow *
pl_window_new (PlApplication *application)
{
  return g_object_new (PL_TYPE_WINDOW,
                       "application", application,
                       "settings", pl_application_get_settings (application),
                       NULL);
}
