/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-error.h"
#include "pl-model-private.h"

/* An activations file opened like a model: its sizes, its name and its
 * configuration from the file, no weights and no position table. The
 * views that need only what a forward pass measured read it from the file
 * (pl_model_get_activations); the rest say they need the weights. */

PlModel *
pl_model_open_activations (PlModel  *self,
                           GError  **error)
{
  g_autoptr(PlModel) owned = self;
  const char *model_name;
  JsonObject *config;

  if (!(self->activations = pl_activations_file_new (self->checkpoint, error)))
    return NULL;
  self->desc = pl_family_desc (PL_FAMILY_TABLE);
  self->n_layers = pl_activations_file_get_n_layers (self->activations);
  self->n_heads = pl_activations_file_get_n_heads (self->activations);
  self->hidden = pl_activations_file_get_hidden_size (self->activations);
  self->embedding = self->hidden;
  self->causal = pl_activations_file_get_causal (self->activations);
  /* The inputs' positions are the ones there are. */
  self->table_rows = pl_activations_file_get_n_tokens (self->activations);
  self->table_cols = self->hidden;
  model_name = pl_activations_file_get_model_name (self->activations);
  if (model_name != NULL && model_name[0] != '\0')
    {
      g_free (self->name);
      self->name = g_strdup (model_name);
    }
  config = pl_checkpoint_get_config (self->checkpoint);
  if (config != NULL)
    self->vocab = (guint) CLAMP (pl_config_int (config, (const char * const[]) { "vocab_size", NULL }), 0, G_MAXINT);
  return g_steal_pointer (&owned);
}

PlActivationsFile *
pl_model_get_activations (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->activations;
}

gboolean
pl_model_require_weights (PlModel  *self,
                          GError  **error)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (self->activations == NULL)
    return TRUE;
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
               "%s holds what a forward pass measured (an activations file), not the model's weights: "
               "open the checkpoint itself for this", self->path);
  return FALSE;
}
