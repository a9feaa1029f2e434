/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-questions.h"
#include "pl-rope-profile.h"
#include "pl-rotary-page.h"
#include "pl-view-style.h"

/* Which rotary frequencies each head of a RoPE model uses: for the
 * workspace's layer, the mean norm of every head's query (or key) in each
 * 2-D rotary plane, fastest plane first. One profile per model holds every
 * layer, computed once on a worker over random inputs with a progress bar,
 * or read from an activations file, which recorded it over its inputs. */

struct _PlRotaryPage
{
  PlPage           parent_instance;

  PlRopeProfile   *profile;
  PlMatrix        *shown;          /* heads × planes on screen */
  gboolean         updating;

  char            *info_text;      /* the ⓘ's text as the template has it */

  /* Template widgets */
  GtkStringList   *layer_names;
  GtkDropDown     *layer_dropdown;
  GtkToggleButton *keys_button;
  GtkLabel        *info_label;
};

G_DEFINE_FINAL_TYPE (PlRotaryPage, pl_rotary_page, PL_TYPE_PAGE)

/* The layer shown, 0-based. */
static guint
get_layer (PlRotaryPage *self)
{
  return pl_workspace_get_layer_index (pl_page_get_workspace (PL_PAGE (self)), 0);
}

static gboolean
showing_keys (PlRotaryPage *self)
{
  return gtk_toggle_button_get_active (self->keys_button);
}

/* The ⓘ ends with what the profile on screen was measured on. */
static void
update_info (PlRotaryPage *self)
{
  g_autofree char *text = NULL;
  PlModel *model = pl_page_get_model (PL_PAGE (self));

  if (self->profile == NULL)
    text = g_strdup (self->info_text);
  else if (model != NULL && pl_model_get_activations (model) != NULL)
    /* Translators: the end of the ⓘ text: the inputs an activations file recorded */
    text = g_strdup_printf (_("%s\n\n<b>Here</b>: the inputs the file recorded, %u of %u tokens."), self->info_text,
                            self->profile->n_sequences, self->profile->n_tokens);
  else
    /* Translators: the end of the ⓘ text: the random inputs the profile on screen averages over */
    text = g_strdup_printf (_("%s\n\n<b>Here</b>: %u random inputs of %u tokens (at most %u, the model’s "
                              "positions allowing)."), self->info_text, self->profile->n_sequences,
                            self->profile->n_tokens, PL_ROTARY_SAMPLE_LENGTH);
  gtk_label_set_markup (self->info_label, text);
}

/* The layer and the Keys toggle, only when there is a profile to choose in. */
static void
show_controls (PlRotaryPage *self,
               gboolean      shown)
{
  gtk_widget_set_visible (GTK_WIDGET (self->layer_dropdown), shown);
  gtk_widget_set_visible (GTK_WIDGET (self->keys_button), shown);
}

static void
redraw (PlRotaryPage *self)
{
  g_autoptr(PlFigure) figure = NULL;
  guint layer;

  if (self->profile == NULL)
    return;
  layer = MIN (get_layer (self), self->profile->n_layers - 1);
  g_clear_pointer (&self->shown, pl_matrix_unref);
  self->shown = pl_rope_profile_get_layer (self->profile, layer, showing_keys (self));
  figure = pl_figure_new_rotary_norms (self->shown, pl_model_get_name (pl_page_get_model (PL_PAGE (self))),
                                       layer + 1, showing_keys (self));
  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_view_set_figure (pl_page_get_figure_view (PL_PAGE (self)), figure, self->shown->cols,
                             self->shown->rows);
  pl_page_show_figure (PL_PAGE (self));
  update_info (self);
}

static void
sync_layers (PlRotaryPage *self)
{
  guint n_layers = pl_workspace_get_n_layers (pl_page_get_workspace (PL_PAGE (self)));

  self->updating = TRUE;
  pl_string_list_set_layers (self->layer_names, n_layers);
  if (n_layers > 0)
    gtk_drop_down_set_selected (self->layer_dropdown, get_layer (self));
  self->updating = FALSE;
}

static void
on_profile (PlPage       *page,
            const GValue *answer,
            const GError *error)
{
  PlRotaryPage *self = PL_ROTARY_PAGE (page);

  if (answer == NULL)
    {
      pl_page_show_error (page, _("Cannot Run This Model"), error);
      return;
    }
  g_clear_pointer (&self->profile, pl_rope_profile_unref);
  self->profile = pl_rope_profile_ref (g_value_get_boxed (answer));
  redraw (self);
}

/* An activations file recorded the norms over its own inputs. */
static void
show_file_profile (PlRotaryPage      *self,
                   PlActivationsFile *file)
{
  g_autoptr(GError) error = NULL;

  if (pl_activations_file_get_n_planes (file) == 0)
    {
      pl_page_show_status (PL_PAGE (self), "weather-clear-night-symbolic", _("No Rotary Norms in This File"),
                           _("This activations file holds no per-plane query and key norms: its model has no "
                             "rotary position embedding, or the run that wrote it could not find the model’s "
                             "query and key projections."));
      return;
    }
  if (!(self->profile = pl_rope_profile_new_from_file (file, &error)))
    {
      pl_page_show_error (PL_PAGE (self), _("Cannot Read This File"), error);
      return;
    }
  redraw (self);
}

static void
refresh (PlPage *page)
{
  PlRotaryPage *self = PL_ROTARY_PAGE (page);
  PlModel *model = pl_workspace_get_model (pl_page_get_workspace (page));
  g_autofree char *key = NULL;

  sync_layers (self);
  if (model == pl_page_get_model (page) && self->profile != NULL)
    {
      redraw (self);
      return;
    }

  pl_page_stop (page);
  pl_page_set_model (page, model);
  g_clear_pointer (&self->profile, pl_rope_profile_unref);
  g_clear_pointer (&self->shown, pl_matrix_unref);
  pl_figure_view_set_figure (pl_page_get_figure_view (page), NULL, 0, 0);
  update_info (self);
  show_controls (self, FALSE);
  if (model == NULL)
    {
      pl_page_show_empty (page);
      return;
    }
  if (pl_model_get_activations (model) != NULL)
    {
      show_controls (self, pl_activations_file_get_n_planes (pl_model_get_activations (model)) > 0);
      show_file_profile (self, pl_model_get_activations (model));
      return;
    }
  if (pl_model_get_rotary_decoder (model) == NULL || pl_workspace_get_n_layers (pl_page_get_workspace (page)) == 0)
    {
      pl_page_show_status (page, "weather-clear-night-symbolic", _("No Rotary Embedding"),
                           _("This model’s positions are vectors added to its embeddings, a learned table or an "
                             "analytic encoding. The rotary profile is for models that turn queries and keys "
                             "instead (RoPE): Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma 2, Phi-3 and GPT-NeoX."));
      return;
    }

  show_controls (self, TRUE);
  pl_page_show_loading (page);
  key = pl_rope_profile_question_key (model);
  pl_page_runner_ask_forward (pl_page_get_runner (page), key, model, pl_forward_question_make,
                              pl_rope_profile_question_run, (GDestroyNotify) pl_forward_question_free,
                              on_profile);
}

static void
on_layer_selected (PlRotaryPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->layer_dropdown);

  if (!self->updating && pl_page_get_workspace (PL_PAGE (self)) != NULL && selected != GTK_INVALID_LIST_POSITION)
    pl_workspace_set_layer (pl_page_get_workspace (PL_PAGE (self)), (int) selected + 1);
}

static void
on_keys_toggled (PlRotaryPage *self)
{
  if (pl_page_get_workspace (PL_PAGE (self)) != NULL)
    redraw (self);
}

static char *
on_describe (PlRotaryPage *self,
             int           panel,
             guint         column,
             guint         row,
             PlFigureView *view)
{
  float theta;

  if (self->shown == NULL || self->profile == NULL || row >= self->shown->rows || column >= self->shown->cols)
    return NULL;
  theta = self->profile->frequency->data[column];
  /* Translators: hover readout: head (counted from 1) and rotary plane (counted from 0, as on the axes),
   * the plane's angle per token and wavelength, the mean norm */
  return g_strdup_printf (showing_keys (self) ? _("Key head %u, plane %u\n%.4g rad per token, one turn in %.4g tokens\nMean norm: %.3f")
                                              : _("Head %u, plane %u\n%.4g rad per token, one turn in %.4g tokens\nMean norm: %.3f"),
                          row + 1, column, theta, 2 * G_PI / theta, pl_matrix_get (self->shown, row, column));
}

static void
style_changed (PlPage *page)
{
  redraw (PL_ROTARY_PAGE (page));
}

static char *
get_export_name (PlPage *page)
{
  PlRotaryPage *self = PL_ROTARY_PAGE (page);
  PlModel *model = pl_page_get_model (PL_PAGE (self));

  return g_strdup_printf ("%s-rope-profile-layer-%u%s", model ? pl_model_get_name (model) : "poslens",
                          get_layer (self) + 1, showing_keys (self) ? "-keys" : "");
}

PlRopeProfile *
pl_rotary_page_get_profile (PlRotaryPage *self)
{
  g_return_val_if_fail (PL_IS_ROTARY_PAGE (self), NULL);
  return self->profile;
}

static void
pl_rotary_page_dispose (GObject *object)
{
  PlRotaryPage *self = PL_ROTARY_PAGE (object);

  g_clear_pointer (&self->profile, pl_rope_profile_unref);
  g_clear_pointer (&self->shown, pl_matrix_unref);
  g_clear_pointer (&self->info_text, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_ROTARY_PAGE);
  G_OBJECT_CLASS (pl_rotary_page_parent_class)->dispose (object);
}

static void
pl_rotary_page_class_init (PlRotaryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_rotary_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODEL | PL_PAGE_FOLLOWS_LAYER;
  page_class->refresh = refresh;
  page_class->style_changed = style_changed;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-rotary-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlRotaryPage, layer_names);
  gtk_widget_class_bind_template_child (widget_class, PlRotaryPage, layer_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlRotaryPage, keys_button);
  gtk_widget_class_bind_template_child (widget_class, PlRotaryPage, info_label);
  gtk_widget_class_bind_template_callback (widget_class, on_layer_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_keys_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
}

static void
pl_rotary_page_init (PlRotaryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->info_text = g_strdup (gtk_label_get_label (self->info_label));
  show_controls (self, FALSE);
}
