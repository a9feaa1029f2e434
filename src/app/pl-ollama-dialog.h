/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PL_TYPE_OLLAMA_DIALOG (pl_ollama_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PlOllamaDialog, pl_ollama_dialog, PL, OLLAMA_DIALOG, AdwWindow)

/* The models of Ollama's store by their names; emits "chosen" (the name,
 * "llama3.2:1b") when the user picks one, and closes. */
PlOllamaDialog *pl_ollama_dialog_new          (GtkWindow      *parent);
guint           pl_ollama_dialog_get_n_models (PlOllamaDialog *self);
/* The name on row I, for tests; NULL past the last. */
const char     *pl_ollama_dialog_get_name     (PlOllamaDialog *self,
                                               guint           i);
/* Picks row I as if the user had activated it, for tests. */
void            pl_ollama_dialog_choose       (PlOllamaDialog *self,
                                               guint           i);

G_END_DECLS
