/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-attention-text.h"
#include "pl-error.h"
#include "pl-questions.h"
#include "pl-view-style.h"

/* A sentence typed by the user, through the model's own tokenizer and
 * forward pass on a worker, shown as the attention map of one head with its
 * tokens on both axes. The tokenizer is read once per model and kept in the
 * workspace's cache; only the latest sentence is kept, since a long one holds
 * layers × heads × T² numbers. Nothing is read until the sub-view is first
 * shown, and the weights only once the tokenizer is there: by then the other
 * sub-views have usually built the model's forward pass, which the cache
 * hands over instead of reading the weights a second time. */

/* Typing pauses this long before the model runs; Enter runs it at once. */
#define DEBOUNCE_MS 400
/* Titles quote the sentence up to this many characters. */
#define TITLE_CHARS 40

struct _PlAttentionText
{
  PlPage           parent_instance;

  PlModel         *model;
  PlTokenizer     *tokenizer;
  PlTextAttention *result;
  PlMatrix        *map;              /* the head on screen, [T, T] */
  guint            shown_layer;      /* 0-based */
  guint            shown_head;
  gboolean         load_started;
  char            *asked;            /* the sentence in flight */
  gboolean         model_runs;       /* its forward pass was built */
  guint            serial;
  guint            debounce_id;

  GtkEntry        *entry;
  GtkLabel        *count;
  PlFigureView    *view;
};

G_DEFINE_FINAL_TYPE (PlAttentionText, pl_attention_text, PL_TYPE_PAGE)

static void
show_status (PlAttentionText *self,
             const char      *icon,
             const char      *title,
             const char      *description)
{
  pl_page_show_status (PL_PAGE (self), icon, title, description);
}

static void
show_hint (PlAttentionText *self)
{
  show_status (self, "input-keyboard-symbolic", _("Type a Sentence"),
               _("Its tokens go along both axes: each row is a token (the query) and shows how much "
                 "it attends to every token of the sentence (the keys) in the chosen layer and head. "
                 "Press Enter, or pause typing, to run the model."));
}

/* A token as the readout quotes it: blanks made visible. */
static char *
readable (const char *label)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (label));

  if (trimmed[0] != '\0')
    return g_steal_pointer (&trimmed);
  if (strchr (label, '\n') != NULL)
    return g_strdup ("↵");
  return g_strdup ("␣");
}

void
pl_attention_text_redraw (PlAttentionText *self)
{
  PlTextAttention *r = self->result;
  g_autoptr(PlFigure) figure = NULL;
  g_autofree char *title = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *count = NULL;
  int layer;

  g_return_if_fail (PL_IS_ATTENTION_TEXT (self));

  if (r == NULL || pl_page_get_workspace (PL_PAGE (self)) == NULL)
    return;
  layer = pl_workspace_get_layer (pl_page_get_workspace (PL_PAGE (self)));
  self->shown_layer = (guint) CLAMP (layer, 1, (int) r->n_layers) - 1;
  self->shown_head = MIN (pl_workspace_get_head (pl_page_get_workspace (PL_PAGE (self))), r->n_heads - 1);

  g_clear_pointer (&self->map, pl_matrix_unref);
  self->map = pl_text_attention_get_map (r, self->shown_layer, self->shown_head);
  figure = pl_figure_new_heatmap (self->map, 0);
  pl_figure_set_tick_labels (figure, (const char * const *) r->labels, r->n_tokens);
  pl_view_style_apply (figure, pl_page_get_workspace (PL_PAGE (self)));
  if (g_utf8_strlen (r->text, -1) > TITLE_CHARS)
    {
      g_autofree char *start = g_utf8_substring (r->text, 0, TITLE_CHARS - 1);
      quoted = g_strconcat (start, "…", NULL);
    }
  else
    quoted = g_strdup (r->text);
  g_strdelimit (quoted, "\r\n\t", ' ');
  /* Translators: figure title: model — layer and head: “the sentence” */
  title = g_strdup_printf (_("%s — layer %u, head %u: “%s”"), pl_model_get_name (self->model),
                           self->shown_layer + 1, self->shown_head + 1, quoted);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, _("Key token (attended to)"), _("Query token"));
  pl_figure_set_value_label (figure, _("Attention"));
  pl_figure_view_set_figure (self->view, figure, r->n_tokens, r->n_tokens);
  pl_page_show_figure (PL_PAGE (self));

  count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u token", "%u tokens", r->n_tokens), r->n_tokens);
  gtk_label_set_text (self->count, count);
}

typedef struct
{
  PlTransformer *transformer;
  PlTokenizer   *tokenizer;
  char          *text;
} TextInput;

static void
text_input_free (gpointer data)
{
  TextInput *input = data;

  g_clear_object (&input->transformer);
  g_clear_object (&input->tokenizer);
  g_free (input->text);
  g_free (input);
}

static gpointer
make_text_input (PlPage        *page,
                 PlModel       *model,
                 PlTransformer *transformer)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (page);
  TextInput *input = g_new0 (TextInput, 1);

  self->model_runs = TRUE;
  input->transformer = g_object_ref (transformer);
  input->tokenizer = g_object_ref (self->tokenizer);
  input->text = g_strdup (self->asked);
  return input;
}

static gboolean
compute_text (PlAnalysisJob  *job,
              gpointer        data,
              GValue         *result,
              GError        **error)
{
  TextInput *input = data;
  PlTextAttention *sentence;

  sentence = pl_text_attention_compute (input->transformer, input->tokenizer, input->text,
                                        pl_analysis_job_get_cancellable (job),
                                        (PlProgressFunc) pl_analysis_job_set_progress, job, error);
  if (sentence == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_TEXT_ATTENTION);
  g_value_take_boxed (result, sentence);
  return TRUE;
}

static void
on_text (PlPage       *page,
         const GValue *answer,
         const GError *error)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (page);

  g_clear_pointer (&self->result, pl_text_attention_unref);
  if (answer == NULL)
    {
      gtk_label_set_text (self->count, "");
      /* Either the model's weights did not make a forward pass, or the
       * sentence did not go through it. */
      pl_page_show_error (page, self->model_runs ? _("Cannot Show This Text") : _("Cannot Run This Model"), error);
      return;
    }
  self->result = pl_text_attention_ref (g_value_get_boxed (answer));
  pl_attention_text_redraw (self);
}

static void
run (PlAttentionText *self)
{
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry)));
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  g_autofree char *key = NULL;

  g_clear_handle_id (&self->debounce_id, g_source_remove);
  pl_page_update_busy (PL_PAGE (self));
  if (self->tokenizer == NULL)
    return;   /* the model's message is on screen; it runs when the tokenizer is read */

  pl_analysis_cache_forget (pl_workspace_get_cache (pl_page_get_workspace (PL_PAGE (self))), "attention-text/");
  if (stripped[0] == '\0')
    {
      pl_page_stop (PL_PAGE (self));
      g_clear_pointer (&self->result, pl_text_attention_unref);
      g_clear_pointer (&self->map, pl_matrix_unref);
      pl_figure_view_set_figure (self->view, NULL, 0, 0);
      gtk_label_set_text (self->count, "");
      show_hint (self);
      return;
    }

  if (self->result == NULL)
    show_status (self, "content-loading-symbolic", _("Running the Model…"), NULL);
  g_free (self->asked);
  self->asked = g_steal_pointer (&text);
  /* A key of its own per run, so a stale answer is never taken for this one. */
  key = g_strdup_printf ("attention-text/%s/%u", pl_question_model_key (self->model), ++self->serial);
  pl_page_runner_ask_forward (pl_page_get_runner (PL_PAGE (self)), key, self->model, make_text_input,
                              compute_text, text_input_free, on_text);
}

static gboolean
on_debounce (gpointer data)
{
  PlAttentionText *self = data;

  self->debounce_id = 0;
  run (self);
  return G_SOURCE_REMOVE;
}

static void
on_changed (PlAttentionText *self)
{
  g_clear_handle_id (&self->debounce_id, g_source_remove);
  self->debounce_id = g_timeout_add (DEBOUNCE_MS, on_debounce, self);
  pl_page_update_busy (PL_PAGE (self));
}

static gboolean
load_tokenizer (PlAnalysisJob  *job,
                gpointer        data,
                GValue         *result,
                GError        **error)
{
  PlTokenizer *tokenizer = pl_tokenizer_new_for_model_dir (data, error);

  if (tokenizer == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_TOKENIZER);
  g_value_take_object (result, tokenizer);
  return TRUE;
}

static void
on_tokenizer (PlPage       *page,
              const GValue *answer,
              const GError *error)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (page);

  if (answer == NULL)
    {
      g_autofree char *sentence = pl_error_sentence (error->message);

      /* The model still runs on random ids in the other views. */
      show_status (self, "text-x-generic-symbolic", _("Text Input Is Off"), sentence);
      return;
    }
  self->tokenizer = g_object_ref (g_value_get_object (answer));
  gtk_widget_set_sensitive (GTK_WIDGET (self->entry), TRUE);
  run (self);
}

static void
stop (PlAttentionText *self)
{
  g_clear_handle_id (&self->debounce_id, g_source_remove);
  pl_page_stop (PL_PAGE (self));
}

static void
load (PlAttentionText *self)
{
  g_autofree char *key = NULL;

  if (self->model == NULL || pl_page_get_workspace (PL_PAGE (self)) == NULL || self->load_started)
    return;
  self->load_started = TRUE;
  key = g_strdup_printf ("tokenizer/%s", pl_question_model_key (self->model));
  pl_page_runner_ask (pl_page_get_runner (PL_PAGE (self)), key, load_tokenizer,
                      g_strdup (pl_model_get_path (self->model)), g_free, on_tokenizer);
}

void
pl_attention_text_set_model (PlAttentionText *self,
                             PlWorkspace     *workspace,
                             PlModel         *model)
{
  g_return_if_fail (PL_IS_ATTENTION_TEXT (self));

  pl_page_set_workspace (PL_PAGE (self), workspace);
  if (model == self->model)
    return;

  stop (self);
  g_set_object (&self->model, model);
  g_clear_object (&self->tokenizer);
  g_clear_pointer (&self->result, pl_text_attention_unref);
  g_clear_pointer (&self->map, pl_matrix_unref);
  pl_figure_view_set_figure (self->view, NULL, 0, 0);
  gtk_label_set_text (self->count, "");
  gtk_widget_set_sensitive (GTK_WIDGET (self->entry), FALSE);
  self->load_started = FALSE;
  self->model_runs = FALSE;
  show_status (self, "content-loading-symbolic", _("Reading the Tokenizer…"), NULL);
  pl_page_update_busy (PL_PAGE (self));
  pl_page_refresh (PL_PAGE (self));
}

PlFigureView *
pl_attention_text_get_view (PlAttentionText *self)
{
  g_return_val_if_fail (PL_IS_ATTENTION_TEXT (self), NULL);
  return self->view;
}

static PlFigure *
get_figure (PlPage *page)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (page);

  if (g_strcmp0 (pl_page_get_shown (page), "figure") != 0)
    return NULL;
  return pl_figure_view_get_figure (self->view);
}

char *
pl_attention_text_describe (PlAttentionText *self,
                            guint            column,
                            guint            row)
{
  g_autofree char *query = NULL;
  g_autofree char *key = NULL;

  g_return_val_if_fail (PL_IS_ATTENTION_TEXT (self), NULL);

  if (self->map == NULL || self->result == NULL || row >= self->map->rows || column >= self->map->cols)
    return NULL;
  query = readable (self->result->labels[row]);
  key = readable (self->result->labels[column]);
  /* Translators: readout: “query token” (its position) → “key token” (its position): attention weight,
   * then the layer and head */
  return g_strdup_printf (_("“%s” (%u) → “%s” (%u): %.3f\nLayer %u, head %u"), query, row, key, column,
                          pl_matrix_get (self->map, row, column), self->shown_layer + 1, self->shown_head + 1);
}

static char *
on_describe (PlAttentionText *self,
             int              panel,
             guint            column,
             guint            row,
             PlFigureView    *view)
{
  return pl_attention_text_describe (self, column, row);
}

void
pl_attention_text_get_shown (PlAttentionText *self,
                             guint           *layer,
                             guint           *head)
{
  g_return_if_fail (PL_IS_ATTENTION_TEXT (self));

  *layer = self->shown_layer + 1;
  *head = self->shown_head + 1;
}

GtkEditable *
pl_attention_text_get_entry (PlAttentionText *self)
{
  g_return_val_if_fail (PL_IS_ATTENTION_TEXT (self), NULL);
  return GTK_EDITABLE (self->entry);
}

PlTextAttention *
pl_attention_text_get_result (PlAttentionText *self)
{
  g_return_val_if_fail (PL_IS_ATTENTION_TEXT (self), NULL);
  return self->result;
}

/* Busy also while a sentence waits for typing to pause. */
static gboolean
get_busy (PlPage *page)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (page);

  return (self->model != NULL && !self->load_started) || self->debounce_id != 0 ||
         PL_PAGE_CLASS (pl_attention_text_parent_class)->get_busy (page);
}

static void
pl_attention_text_dispose (GObject *object)
{
  PlAttentionText *self = PL_ATTENTION_TEXT (object);

  g_clear_handle_id (&self->debounce_id, g_source_remove);
  g_clear_object (&self->model);
  g_clear_object (&self->tokenizer);
  g_clear_pointer (&self->asked, g_free);
  g_clear_pointer (&self->result, pl_text_attention_unref);
  g_clear_pointer (&self->map, pl_matrix_unref);
  G_OBJECT_CLASS (pl_attention_text_parent_class)->dispose (object);
}

static void
refresh (PlPage *page)
{
  load (PL_ATTENTION_TEXT (page));
}

static void
pl_attention_text_class_init (PlAttentionTextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_attention_text_dispose;
  page_class->refresh = refresh;
  page_class->get_figure = get_figure;
  page_class->get_busy = get_busy;
}

static void
pl_attention_text_init (PlAttentionText *self)
{
  self->entry = GTK_ENTRY (gtk_entry_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->entry), TRUE);
  gtk_entry_set_placeholder_text (self->entry, _("Type a sentence…"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->entry),
                               _("A sentence for the model’s tokenizer; Enter runs the model"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Sentence"), -1);
  gtk_widget_set_sensitive (GTK_WIDGET (self->entry), FALSE);
  g_signal_connect_swapped (self->entry, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->entry, "activate", G_CALLBACK (run), self);
  pl_page_add_toolbar_child (PL_PAGE (self), GTK_WIDGET (self->entry));
  self->count = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->count), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->count), "numeric");
  pl_page_add_toolbar_child (PL_PAGE (self), GTK_WIDGET (self->count));
  self->view = PL_FIGURE_VIEW (pl_figure_view_new ());
  g_signal_connect_swapped (self->view, "describe", G_CALLBACK (on_describe), self);
  pl_page_set_content (PL_PAGE (self), GTK_WIDGET (self->view));
  show_hint (self);
}
