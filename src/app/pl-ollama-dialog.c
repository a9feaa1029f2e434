/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-ollama-dialog.h"
#include "pl-ollama-store.h"

/* Ollama keeps its models as blobs named by their hashes: the user picks one
 * by the name Ollama shows ("llama3.2:1b"), not from a file chooser. */
struct _PlOllamaDialog
{
  AdwWindow       parent_instance;

  GPtrArray      *models;          /* PlOllamaModel, sorted by name */

  GtkStack       *stack;
  GtkListBox     *list_box;
  GtkLabel       *store_label;
  GtkLabel       *problems_label;
  AdwStatusPage  *empty_page;
};

G_DEFINE_FINAL_TYPE (PlOllamaDialog, pl_ollama_dialog, ADW_TYPE_WINDOW)

enum {
  CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
choose (PlOllamaDialog *self,
        guint           i)
{
  g_autofree char *name = NULL;

  if (i >= self->models->len)
    return;
  name = g_strdup (((PlOllamaModel *) self->models->pdata[i])->name);
  g_signal_emit (self, signals[CHOSEN], 0, name);
  gtk_window_close (GTK_WINDOW (self));
}

static void
on_row_activated (PlOllamaDialog *self,
                  GtkListBoxRow  *row)
{
  choose (self, (guint) gtk_list_box_row_get_index (row));
}

static void
pl_ollama_dialog_dispose (GObject *object)
{
  PlOllamaDialog *self = PL_OLLAMA_DIALOG (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_OLLAMA_DIALOG);
  G_OBJECT_CLASS (pl_ollama_dialog_parent_class)->dispose (object);
}

static void
pl_ollama_dialog_finalize (GObject *object)
{
  PlOllamaDialog *self = PL_OLLAMA_DIALOG (object);

  g_clear_pointer (&self->models, g_ptr_array_unref);
  G_OBJECT_CLASS (pl_ollama_dialog_parent_class)->finalize (object);
}

static void
pl_ollama_dialog_class_init (PlOllamaDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_ollama_dialog_dispose;
  object_class->finalize = pl_ollama_dialog_finalize;

  signals[CHOSEN] = g_signal_new ("chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-ollama-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlOllamaDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, PlOllamaDialog, list_box);
  gtk_widget_class_bind_template_child (widget_class, PlOllamaDialog, store_label);
  gtk_widget_class_bind_template_child (widget_class, PlOllamaDialog, problems_label);
  gtk_widget_class_bind_template_child (widget_class, PlOllamaDialog, empty_page);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

/* A row: the model's name, its size beneath, an arrow to open it. */
static GtkWidget *
model_row (const PlOllamaModel *model)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *size = g_format_size (model->size);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), model->name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), size);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  return row;
}

static void
pl_ollama_dialog_init (PlOllamaDialog *self)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_auto(GStrv) roots = pl_ollama_store_roots ();
  g_autofree char *where = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->models = pl_ollama_store_list (NULL, problems);
  for (guint i = 0; i < self->models->len; i++)
    gtk_list_box_append (self->list_box, model_row (self->models->pdata[i]));
  if (roots[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", roots);

      /* Translators: %s is the folder (or folders) of Ollama's models */
      where = g_strdup_printf (_("Models Ollama keeps in %s."), joined);
    }
  gtk_label_set_text (self->store_label, where ? where : "");
  if (problems->len > 0)
    {
      g_strchomp (problems->str);
      gtk_label_set_text (self->problems_label, problems->str);
      gtk_widget_set_visible (GTK_WIDGET (self->problems_label), TRUE);
    }
  if (self->models->len == 0)
    {
      adw_status_page_set_description (self->empty_page,
        _("Poslens looks in the folder OLLAMA_MODELS names, else in ~/.ollama/models and "
          "/usr/share/ollama/.ollama/models. Pull a model with “ollama pull llama3.2:1b”."));
      gtk_stack_set_visible_child_name (self->stack, "empty");
    }
}

PlOllamaDialog *
pl_ollama_dialog_new (GtkWindow *parent)
{
  return g_object_new (PL_TYPE_OLLAMA_DIALOG, "transient-for", parent, NULL);
}

guint
pl_ollama_dialog_get_n_models (PlOllamaDialog *self)
{
  g_return_val_if_fail (PL_IS_OLLAMA_DIALOG (self), 0);
  return self->models->len;
}

const char *
pl_ollama_dialog_get_name (PlOllamaDialog *self,
                           guint           i)
{
  g_return_val_if_fail (PL_IS_OLLAMA_DIALOG (self), NULL);
  return i < self->models->len ? ((PlOllamaModel *) self->models->pdata[i])->name : NULL;
}

void
pl_ollama_dialog_choose (PlOllamaDialog *self,
                         guint           i)
{
  g_return_if_fail (PL_IS_OLLAMA_DIALOG (self));
  choose (self, i);
}
