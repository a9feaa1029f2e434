/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-model-row.h"

/* A sidebar entry: the model's name, and what a researcher checks first:
 * family, table shape (a vision table's as its grid of patches), and where
 * the real positions start. */
struct _PlModelRow
{
  AdwActionRow  parent_instance;
  PlModel      *model;
};

G_DEFINE_FINAL_TYPE (PlModelRow, pl_model_row, ADW_TYPE_ACTION_ROW)

static char *
describe (PlModel *model)
{
  guint rows = pl_model_get_n_positions (model);
  guint cols = pl_model_get_position_table_cols (model);
  guint first = pl_model_get_first_position (model);
  PlActivationsFile *activations = pl_model_get_activations (model);
  const PlRotaryDecoderSpec *decoder = pl_model_get_rotary_decoder (model);
  guint grid_rows, grid_cols;

  if (activations != NULL)
    /* Translators: an activations file: sample inputs × tokens, layers */
    return g_strdup_printf (_("Activations · %u × %u tokens · %u layers"),
                            pl_activations_file_get_n_sequences (activations),
                            pl_activations_file_get_n_tokens (activations),
                            pl_activations_file_get_n_layers (activations));
  if (pl_model_has_position_bias (model) && pl_model_get_position_table_name (model) == NULL)
    {
      const PlEncodingSpec *encoding = pl_model_get_encoding (model);

      /* Translators: a model whose position is a bias on attention scores (T5, ALiBi): family · its heads */
      return g_strdup_printf (_("%s · position bias · %u heads"), pl_model_get_family_display_name (model),
                              encoding != NULL ? encoding->heads : pl_model_get_n_heads (model));
    }
  if (decoder != NULL)
    /* Translators: family · rotary (RoPE) base · max_position_embeddings */
    return g_strdup_printf (_("%s · RoPE base %g · %u positions"), pl_model_get_family_display_name (model),
                            decoder->rope.theta, rows);
  if (pl_model_get_grid (model, &grid_rows, &grid_cols))
    {
      if (first > 0)
        /* Translators: a vision table: family · grid rows × grid columns of patches × width ·
         * first table row that is a patch (the rows before are special tokens') */
        return g_strdup_printf (_("%s · %u × %u patches × %u · from row %u"),
                                pl_model_get_family_display_name (model), grid_rows, grid_cols, cols, first);
      /* Translators: a vision table: family · grid rows × grid columns of patches × width */
      return g_strdup_printf (_("%s · %u × %u patches × %u"), pl_model_get_family_display_name (model),
                              grid_rows, grid_cols, cols);
    }
  if (first > 0)
    /* Translators: family · positions × width · first table row that is a real position */
    return g_strdup_printf (_("%s · %u × %u · from row %u"),
                            pl_model_get_family_display_name (model), rows, cols, first);
  /* Translators: family · positions × width */
  return g_strdup_printf (_("%s · %u × %u"), pl_model_get_family_display_name (model), rows, cols);
}

PlModelRow *
pl_model_row_new (PlModel *model)
{
  PlModelRow *self;
  g_autofree char *subtitle = NULL;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  subtitle = describe (model);
  self = g_object_new (PL_TYPE_MODEL_ROW,
                       "title", pl_model_get_name (model),
                       "subtitle", subtitle,
                       "use-markup", FALSE,
                       NULL);
  self->model = g_object_ref (model);
  if (pl_model_get_path (model) != NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self), pl_model_get_path (model));
  return self;
}

PlModel *
pl_model_row_get_model (PlModelRow *self)
{
  g_return_val_if_fail (PL_IS_MODEL_ROW (self), NULL);
  return self->model;
}

static void
pl_model_row_dispose (GObject *object)
{
  PlModelRow *self = PL_MODEL_ROW (object);

  g_clear_object (&self->model);
  G_OBJECT_CLASS (pl_model_row_parent_class)->dispose (object);
}

static void
pl_model_row_class_init (PlModelRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pl_model_row_dispose;
}

static void
pl_model_row_init (PlModelRow *self)
{
}
