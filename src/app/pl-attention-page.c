/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-attention-page.h"
#include "pl-attention-text.h"
#include "pl-enum-labels.h"
#include "pl-figure-view.h"
#include "pl-questions.h"
#include "pl-view-style.h"

/* How attention depends on position, for the workspace's model: the mass by
 * offset per head of a layer, every head's mean distance, and the first
 * layer's position-only term from the weights. The statistics average the
 * forward passes of several random inputs, computed once per model on a
 * worker with a progress bar; and the attention map of a sentence the user
 * types (PlAttentionText). */

struct _PlAttentionPage
{
  PlPage             parent_instance;

  PlPageRunner      *term_runner;    /* the position-only term, beside the statistics */
  PlAttentionStats  *stats;
  PlMatrix          *position_only;  /* [heads × T, T] */
  PlMatrix          *head_term;      /* the chosen head's rows, on screen */
  guint              shown_head;     /* its head, 0-based */
  gboolean           updating;
  char              *info_text;      /* the ⓘ's text as the template has it */

  /* Template widgets */
  GtkStringList     *layer_names;
  GtkStringList     *head_names;
  GtkDropDown       *layer_dropdown;
  GtkDropDown       *head_dropdown;
  GtkWidget         *window_label;
  GtkSpinButton     *window_spin;
  guint              offsets_window;  /* offsets shown: −w … −w + count − 1 */
  guint              offsets_count;
  GtkStack          *views;
  GtkWidget         *switcher;
  GtkWidget         *position_button;
  PlFigureView      *offsets_view;
  PlFigureView      *distances_view;
  PlFigureView      *position_view;
  PlAttentionText   *text_view;
  GtkLabel          *info_label;
};

G_DEFINE_FINAL_TYPE (PlAttentionPage, pl_attention_page, PL_TYPE_PAGE)

/* The attention layer shown, 0-based (of the model's: the statistics may
 * hold only the first layer yet). */
static guint
get_layer (PlAttentionPage *self)
{
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));

  return pl_workspace_get_layer_index (workspace, pl_workspace_get_n_layers (workspace));
}

static guint
get_head (PlAttentionPage *self)
{
  return pl_workspace_get_head (pl_page_get_workspace (PL_PAGE (self)));
}

static void selection_changed (PlPage *page);

static void
show_offsets (PlAttentionPage *self)
{
  PlAttentionStats *stats = self->stats;
  PlModel *model = pl_page_get_model (PL_PAGE (self));
  guint t = stats->n_tokens;
  guint w = MIN ((guint) gtk_spin_button_get_value (self->window_spin), t - 1);
  guint layer = get_layer (self);
  /* A causal model never attends ahead: its offsets end at 0. */
  guint n = pl_model_get_causal (model) ? w + 1 : 2 * w + 1;
  g_autofree double *x = g_new (double, n);
  g_autofree double *y = g_new (double, n);
  g_autoptr(PlFigure) figure = NULL;
  g_autofree char *title = NULL;

  self->offsets_window = w;
  self->offsets_count = n;
  for (guint i = 0; i < n; i++)
    x[i] = (double) i - w;
  figure = pl_figure_new_lines (x, n);
  for (guint h = 0; h < stats->n_heads; h++)
    {
      const float *row = pl_matrix_row (stats->offset_profile, layer * stats->n_heads + h);
      g_autofree char *name = g_strdup_printf (_("Head %u"), h + 1);

      for (guint i = 0; i < n; i++)
        y[i] = row[(t - 1) - w + i];
      pl_figure_add_series (figure, name, y);
    }
  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  /* Translators: figure title: model — layer: what is plotted */
  title = g_strdup_printf (_("%s — layer %u: attention by offset"), pl_model_get_name (model), layer + 1);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Offset j − i (key − query)"), _("Attention mass"));
  /* The Head drop-down's head stands out. */
  pl_figure_set_highlight_series (figure, (int) MIN (get_head (self), stats->n_heads - 1));
  pl_figure_view_set_figure (self->offsets_view, figure, 0, 0);
}

static void
show_distances (PlAttentionPage *self)
{
  PlAttentionStats *stats = self->stats;
  guint n = stats->n_layers * stats->n_heads;
  g_autofree double *x = g_new (double, n);
  g_autofree double *y = g_new (double, n);
  g_autofree double *mass = g_new (double, n);
  g_autoptr(PlFigure) figure = NULL;
  g_autofree char *title = NULL;

  for (guint l = 0; l < stats->n_layers; l++)
    for (guint h = 0; h < stats->n_heads; h++)
      {
        guint i = l * stats->n_heads + h;

        /* Heads of one layer side by side around the layer's number. */
        x[i] = l + 1 + 0.3 * ((h + 0.5) / stats->n_heads - 0.5);
        y[i] = pl_matrix_get (stats->mean_distance, l, h);
        mass[i] = pl_matrix_get (stats->first_token, l, h);
      }
  figure = pl_figure_new_scatter (x, y, n);
  pl_figure_set_x_integers (figure, TRUE);
  pl_figure_set_point_values (figure, mass);
  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  title = g_strdup_printf (_("%s — mean attention distance per head"),
                           pl_model_get_name (pl_page_get_model (PL_PAGE (self))));
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Layer"), _("Mean distance |j − i|"));
  pl_figure_set_value_label (figure, _("Mass on the first token"));
  /* The layer and head picked (Layer, Head, a click) are ringed. */
  pl_figure_set_highlight_series (figure, (int) (get_layer (self) * stats->n_heads +
                                                 MIN (get_head (self), stats->n_heads - 1)));
  pl_figure_view_set_figure (self->distances_view, figure, 0, 0);
}

static void
show_position_only (PlAttentionPage *self)
{
  guint heads = self->stats ? self->stats->n_heads : pl_workspace_get_n_heads (pl_page_get_workspace (PL_PAGE (self)));
  guint t = self->position_only->rows / MAX (heads, 1);
  guint head = MIN (get_head (self), heads - 1);
  g_autoptr(PlFigure) figure = NULL;
  g_autofree char *title = NULL;

  g_clear_pointer (&self->head_term, pl_matrix_unref);
  self->head_term = pl_matrix_slice_rows (self->position_only, (gsize) head * t, t);
  self->shown_head = head;
  figure = pl_figure_new_heatmap (self->head_term, 0);
  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  title = g_strdup_printf (_("%s — layer 1, head %u: attention from positions alone"),
                           pl_model_get_name (pl_page_get_model (PL_PAGE (self))), head + 1);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Key position"), _("Query position"));
  pl_figure_set_value_label (figure, _("Attention"));
  pl_figure_view_set_figure (self->position_view, figure, t, t);
  selection_changed (PL_PAGE (self));
}

static void
redraw (PlAttentionPage *self)
{
  const char *view = gtk_stack_get_visible_child_name (self->views);
  PlModel *model = pl_page_get_model (PL_PAGE (self));

  /* An activations file has what a forward pass measured, not weights. */
  if (model != NULL && pl_model_get_activations (model) != NULL)
    {
      if (g_strcmp0 (view, "position-only") == 0 || g_strcmp0 (view, "text") == 0)
        {
          pl_page_show_status (PL_PAGE (self), "dialog-information-symbolic", _("Needs the Model’s Weights"),
                               _("This activations file holds what a forward pass measured over its inputs. "
                                 "The position-only term and the attention of a typed sentence are computed "
                                 "from the weights: open the checkpoint itself for them."));
          return;
        }
      pl_page_show_figure (PL_PAGE (self));
    }

  /* Only the sub-view on screen is drawn; the others when they are shown.
   * A layer past the statistics computed so far waits for them. */
  if (self->stats != NULL && g_strcmp0 (view, "offsets") == 0)
    {
      if (get_layer (self) < self->stats->n_layers)
        show_offsets (self);
      else
        pl_figure_view_set_figure (self->offsets_view, NULL, 0, 0);
    }
  else if (self->stats != NULL && g_strcmp0 (view, "distances") == 0)
    show_distances (self);
  else if (self->position_only != NULL && g_strcmp0 (view, "position-only") == 0)
    show_position_only (self);
  else if (g_strcmp0 (view, "text") == 0)
    pl_attention_text_redraw (self->text_view);
}

/* Only the controls that act on what is shown: the offsets' range in
 * Offsets, layers and heads for a model that has them. */
static void
sync_controls (PlAttentionPage *self)
{
  gboolean offsets = g_strcmp0 (gtk_stack_get_visible_child_name (self->views), "offsets") == 0;
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));
  gboolean layered = workspace != NULL && pl_workspace_get_n_layers (workspace) > 0;

  gtk_widget_set_visible (self->window_label, offsets && layered);
  gtk_widget_set_visible (GTK_WIDGET (self->window_spin), offsets && layered);
  gtk_widget_set_visible (GTK_WIDGET (self->layer_dropdown), layered);
  gtk_widget_set_visible (GTK_WIDGET (self->head_dropdown), layered);
  /* Without attention to show, no view of it to choose. */
  gtk_widget_set_visible (self->switcher, layered);
}

/* The ⓘ ends with what the statistics on screen were measured on. */
static void
update_info (PlAttentionPage *self)
{
  g_autofree char *text = NULL;
  PlModel *model = pl_page_get_model (PL_PAGE (self));

  if (self->stats == NULL)
    text = g_strdup (self->info_text);
  else if (model != NULL && pl_model_get_activations (model) != NULL)
    /* Translators: the end of the ⓘ text: the inputs an activations file recorded */
    text = g_strdup_printf (_("%s\n\n<b>Here</b>: the inputs the file recorded, %u of %u tokens."), self->info_text,
                            self->stats->n_sequences, self->stats->n_tokens);
  else
    /* Translators: the end of the ⓘ text: the random inputs Offsets and Distances average over */
    text = g_strdup_printf (_("%s\n\n<b>Here</b>: Offsets and Distances average over %u random inputs of %u "
                              "tokens."), self->info_text, self->stats->n_sequences, self->stats->n_tokens);
  gtk_label_set_markup (self->info_label, text);
}

/* Fills the layer and head pickers for the model and follows the workspace. */
static void
sync_pickers (PlAttentionPage *self)
{
  guint n_layers = pl_workspace_get_n_layers (pl_page_get_workspace (PL_PAGE (self)));
  guint n_heads = pl_workspace_get_n_heads (pl_page_get_workspace (PL_PAGE (self)));

  sync_controls (self);
  self->updating = TRUE;
  pl_string_list_set_layers (self->layer_names, n_layers);
  pl_string_list_set_heads (self->head_names, n_heads);
  if (n_layers > 0)
    gtk_drop_down_set_selected (self->layer_dropdown, get_layer (self));
  if (n_heads > 0)
    gtk_drop_down_set_selected (self->head_dropdown, MIN (get_head (self), n_heads - 1));
  self->updating = FALSE;
}

static void
on_stats (PlPage       *page,
          const GValue *answer,
          const GError *error)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);

  if (answer == NULL)
    {
      pl_page_stop (page);
      pl_page_show_error (page, _("Cannot Run This Model"), error);
      return;
    }
  g_clear_pointer (&self->stats, pl_attention_stats_unref);
  self->stats = pl_attention_stats_ref (g_value_get_boxed (answer));
  update_info (self);
  redraw (self);
}

static void ask_stats (PlAttentionPage *self,
                       PlModel         *model);

/* The first layer's statistics of a large model: shown at once, then the
 * whole computation asked. */
static void
on_first_stats (PlPage       *page,
                const GValue *answer,
                const GError *error)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);

  on_stats (page, answer, error);
  if (answer != NULL)
    ask_stats (self, pl_page_get_model (page));
}

static void
on_position_only (PlPage       *page,
                  const GValue *answer,
                  const GError *error)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);

  if (answer == NULL)
    {
      pl_page_stop (page);
      pl_page_show_error (page, _("Cannot Run This Model"), error);
      return;
    }
  g_clear_pointer (&self->position_only, pl_matrix_unref);
  self->position_only = pl_matrix_ref (g_value_get_boxed (answer));
  redraw (self);
}

static void
ask_stats (PlAttentionPage *self,
           PlModel         *model)
{
  g_autofree char *key = pl_attention_stats_question_key (model);

  pl_page_runner_ask_forward (pl_page_get_runner (PL_PAGE (self)), key, model, pl_forward_question_make,
                              pl_attention_stats_question_run, (GDestroyNotify) pl_forward_question_free,
                              on_stats);
}

/* Whether MODEL's positions are vectors added to the embeddings, whose term
 * can be taken alone: not for a rotary model, nor for T5's or ALiBi's bias
 * or DeBERTa's relative table, which enter attention itself. */
static gboolean
has_position_vectors (PlModel *model)
{
  return pl_model_get_rotary_decoder (model) == NULL && !pl_model_has_position_bias (model) &&
         pl_model_get_table_kind (model) != PL_TABLE_RELATIVE;
}

/* The statistics of MODEL (from its forward passes, or as an activations
 * file recorded them) and, where positions are vectors added to the
 * embeddings, its position-only term. */
static void
ask (PlAttentionPage *self,
     PlModel         *model)
{
  PlPage *page = PL_PAGE (self);
  g_autofree char *key = NULL;

  if (pl_model_get_activations (model) != NULL)
    {
      key = pl_file_stats_question_key (model);
      pl_page_runner_ask (pl_page_get_runner (page), key, pl_file_stats_question_run, g_object_ref (model),
                          g_object_unref, on_stats);
      return;
    }
  key = pl_attention_stats_question_key (model);
  /* A large model's first layer first, unless every layer is known */
  if (pl_question_runs_long (model) &&
      pl_analysis_cache_lookup (pl_workspace_get_cache (pl_page_get_workspace (page)), key) == NULL)
    {
      g_autofree char *first = pl_attention_first_question_key (model);

      pl_page_runner_ask_forward (pl_page_get_runner (page), first, model, pl_forward_question_make,
                                  pl_attention_first_question_run, (GDestroyNotify) pl_forward_question_free,
                                  on_first_stats);
    }
  else
    ask_stats (self, model);
  /* A rotary model, T5, ALiBi and DeBERTa have no position vectors to take alone. */
  if (has_position_vectors (model))
    {
      g_free (key);
      key = pl_position_only_question_key (model);
      pl_page_runner_ask_forward (self->term_runner, key, model, pl_position_only_question_make,
                                  pl_position_only_question_run, g_object_unref, on_position_only);
    }
}

static void
refresh (PlPage *page)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);
  PlModel *model = pl_workspace_get_model (pl_page_get_workspace (PL_PAGE (self)));

  sync_pickers (self);
  if (model == pl_page_get_model (page))
    {
      redraw (self);
      return;
    }

  pl_page_stop (page);
  pl_page_set_model (page, model);
  pl_attention_text_set_model (self->text_view, pl_page_get_workspace (PL_PAGE (self)),
                               pl_workspace_get_n_layers (pl_page_get_workspace (PL_PAGE (self))) > 0 &&
                               pl_model_get_activations (model) == NULL ? model : NULL);
  g_clear_pointer (&self->stats, pl_attention_stats_unref);
  g_clear_pointer (&self->position_only, pl_matrix_unref);
  update_info (self);
  pl_figure_view_set_figure (self->offsets_view, NULL, 0, 0);
  pl_figure_view_set_figure (self->distances_view, NULL, 0, 0);
  pl_figure_view_set_figure (self->position_view, NULL, 0, 0);

  if (model == NULL || pl_workspace_get_n_layers (pl_page_get_workspace (PL_PAGE (self))) == 0)
    {
      g_autofree char *families = pl_family_list_forward ();
      /* Translators: the list is of architectures: GPT-2, OPT, BERT, …, Llama, GPT-NeoX */
      g_autofree char *description = g_strdup_printf (_("Attention needs a model Poslens can run: %s, with its "
                                                        "config.json. Tables and analytic encodings have no "
                                                        "attention."), families);

      pl_page_show_status (page, "find-location-symbolic", _("No Attention to Show"), description);
      return;
    }

  /* The position-only term exists where positions are vectors added to the
   * embeddings, not for rotary models. */
  gtk_widget_set_visible (self->position_button, has_position_vectors (model));
  if (!has_position_vectors (model) &&
      g_strcmp0 (gtk_stack_get_visible_child_name (self->views), "position-only") == 0)
    gtk_stack_set_visible_child_name (self->views, "offsets");

  pl_page_show_figure (page);
  ask (self, model);
}

static void
on_layer_selected (PlAttentionPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->layer_dropdown);

  if (!self->updating && pl_page_get_workspace (PL_PAGE (self)) != NULL && selected != GTK_INVALID_LIST_POSITION)
    pl_workspace_set_layer (pl_page_get_workspace (PL_PAGE (self)), (int) selected + 1);
}

static void
on_head_selected (PlAttentionPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->head_dropdown);

  if (!self->updating && pl_page_get_workspace (PL_PAGE (self)) != NULL && selected != GTK_INVALID_LIST_POSITION)
    pl_workspace_set_head (pl_page_get_workspace (PL_PAGE (self)), selected);
}

static void
on_view_button_toggled (PlAttentionPage *self,
                        GtkToggleButton *button)
{
  if (gtk_toggle_button_get_active (button))
    gtk_stack_set_visible_child_name (self->views, gtk_widget_get_name (GTK_WIDGET (button)));
}

/* Keeps the buttons in step when the view changes from code. */
static void
sync_view_buttons (PlAttentionPage *self)
{
  const char *view = gtk_stack_get_visible_child_name (self->views);

  for (GtkWidget *b = gtk_widget_get_first_child (self->switcher); b != NULL; b = gtk_widget_get_next_sibling (b))
    if (g_strcmp0 (gtk_widget_get_name (b), view) == 0 && !gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (b)))
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (b), TRUE);
}

static void
on_view_changed (PlAttentionPage *self)
{
  if (self->switcher != NULL)
    sync_view_buttons (self);
  if (self->window_label != NULL)
    sync_controls (self);
  if (pl_page_get_workspace (PL_PAGE (self)) != NULL)
    redraw (self);
}

static char *
on_describe (PlAttentionPage *self,
             int              panel,
             guint            a,
             guint            b,
             PlFigureView    *view)
{
  PlAttentionStats *stats = self->stats;

  if (view == self->offsets_view && stats != NULL && b < stats->n_heads && get_layer (self) < stats->n_layers)
    {
      guint layer = get_layer (self), w = self->offsets_window;
      const float *row = pl_matrix_row (stats->offset_profile, layer * stats->n_heads + b);

      if (a == G_MAXUINT)
        /* Translators: hover readout on a legend entry of the offsets plot */
        return g_strdup_printf (_("Layer %u, head %u\nClick to choose this head"), layer + 1, b + 1);
      if (a >= self->offsets_count)
        return NULL;
      /* Translators: hover readout: offset j − i, layer, head, attention mass */
      return g_strdup_printf (_("Offset %d\nLayer %u, head %u: %.4f"), (int) a - (int) w, layer + 1, b + 1,
                              row[(stats->n_tokens - 1) - w + a]);
    }
  if (view == self->distances_view && stats != NULL && a < stats->n_layers * stats->n_heads)
    {
      guint l = a / stats->n_heads, h = a % stats->n_heads;

      return g_strdup_printf (_("Layer %u, head %u: mean distance %.1f, first token %.2f"), l + 1, h + 1,
                              pl_matrix_get (stats->mean_distance, l, h),
                              pl_matrix_get (stats->first_token, l, h));
    }
  if (view == self->position_view && self->head_term != NULL && b < self->head_term->rows &&
      a < self->head_term->cols)
    /* Translators: hover readout: query and key positions, then layer 1's head and the attention */
    return g_strdup_printf (_("Query %u, key %u\nLayer 1, head %u: %.4f"), b, a, self->shown_head + 1,
                            pl_matrix_get (self->head_term, b, a));
  return NULL;
}

/* A click on a head (a value in Offsets or its legend entry, a point in
 * Distances) chooses that layer and head. */
static void
on_activate (PlAttentionPage *self,
             int              panel,
             guint            a,
             guint            b,
             PlFigureView    *view)
{
  PlAttentionStats *stats = self->stats;
  PlWorkspace *workspace = pl_page_get_workspace (PL_PAGE (self));

  if (stats == NULL || workspace == NULL)
    return;
  if (view == self->offsets_view && b < stats->n_heads)
    pl_workspace_set_head (workspace, b);
  else if (view == self->distances_view && a < stats->n_layers * stats->n_heads)
    {
      pl_workspace_set_layer (workspace, (int) (a / stats->n_heads) + 1);
      pl_workspace_set_head (workspace, a % stats->n_heads);
    }
}

static void
style_changed (PlPage *page)
{
  redraw (PL_ATTENTION_PAGE (page));
}

/* The selected positions, as queries and keys of Position Only and as the
 * tokens at those positions of Text. */
static void
selection_changed (PlPage *page)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);
  guint start, end;

  pl_workspace_get_selection (pl_page_get_workspace (PL_PAGE (self)), &start, &end);
  pl_figure_view_set_highlight (self->position_view, start, end);
  pl_figure_view_set_highlight (pl_attention_text_get_view (self->text_view), start, end);
}

/* A Shift-drag in Position Only or Text selects those positions everywhere. */
static void
on_select (PlAttentionPage *self,
           guint            start,
           guint            end,
           PlFigureView    *view)
{
  pl_workspace_set_selection (pl_page_get_workspace (PL_PAGE (self)), start, end);
}

static PlFigure *
get_figure (PlPage *page)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);
  GtkWidget *child = gtk_stack_get_visible_child (self->views);

  if (g_strcmp0 (pl_page_get_shown (page), "figure") != 0)
    return NULL;
  if (PL_IS_PAGE (child))
    return pl_page_get_figure (PL_PAGE (child));
  return pl_figure_view_get_figure (PL_FIGURE_VIEW (child));
}

static char *
get_export_name (PlPage *page)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (page);
  const char *view = gtk_stack_get_visible_child_name (self->views);
  PlModel *model = pl_page_get_model (PL_PAGE (self));
  const char *name = model ? pl_model_get_name (model) : "poslens";

  if (g_strcmp0 (view, "offsets") == 0)
    return g_strdup_printf ("%s-attention-offsets-layer-%u", name, get_layer (self) + 1);
  if (g_strcmp0 (view, "position-only") == 0)
    return g_strdup_printf ("%s-position-only-head-%u", name, get_head (self) + 1);
  if (g_strcmp0 (view, "text") == 0)
    {
      guint layer, head;

      pl_attention_text_get_shown (self->text_view, &layer, &head);
      return g_strdup_printf ("%s-text-layer-%u-head-%u", name, layer, head);
    }
  return g_strdup_printf ("%s-attention-distance", name);
}

PlAttentionStats *
pl_attention_page_get_stats (PlAttentionPage *self)
{
  g_return_val_if_fail (PL_IS_ATTENTION_PAGE (self), NULL);
  return self->stats;
}

void
pl_attention_page_show (PlAttentionPage *self,
                        const char      *view)
{
  g_return_if_fail (PL_IS_ATTENTION_PAGE (self));
  gtk_stack_set_visible_child_name (self->views, view);
}

static void
pl_attention_page_dispose (GObject *object)
{
  PlAttentionPage *self = PL_ATTENTION_PAGE (object);

  g_clear_pointer (&self->info_text, g_free);
  g_clear_pointer (&self->stats, pl_attention_stats_unref);
  g_clear_pointer (&self->position_only, pl_matrix_unref);
  g_clear_pointer (&self->head_term, pl_matrix_unref);
  self->term_runner = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_ATTENTION_PAGE);
  G_OBJECT_CLASS (pl_attention_page_parent_class)->dispose (object);
}

static void
pl_attention_page_class_init (PlAttentionPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_attention_page_dispose;
  page_class->follows = PL_PAGE_FOLLOWS_MODEL | PL_PAGE_FOLLOWS_LAYER | PL_PAGE_FOLLOWS_HEAD;
  page_class->refresh = refresh;
  page_class->style_changed = style_changed;
  page_class->selection_changed = selection_changed;
  page_class->get_figure = get_figure;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_VIEW);
  g_type_ensure (PL_TYPE_ATTENTION_TEXT);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-attention-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, layer_names);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, head_names);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, layer_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, head_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, window_label);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, window_spin);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, views);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, offsets_view);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, distances_view);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, position_view);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, text_view);
  gtk_widget_class_bind_template_callback (widget_class, on_layer_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_head_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_view_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_view_button_toggled);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, switcher);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, info_label);
  gtk_widget_class_bind_template_child (widget_class, PlAttentionPage, position_button);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
}

PlAttentionText *
pl_attention_page_get_text (PlAttentionPage *self)
{
  g_return_val_if_fail (PL_IS_ATTENTION_PAGE (self), NULL);
  return self->text_view;
}

static void
pl_attention_page_init (PlAttentionPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->info_text = g_strdup (gtk_label_get_label (self->info_label));
  self->term_runner = pl_page_add_runner (PL_PAGE (self));
  g_signal_connect_swapped (self->position_view, "select", G_CALLBACK (on_select), self);
  g_signal_connect_swapped (pl_attention_text_get_view (self->text_view), "select", G_CALLBACK (on_select), self);
}
