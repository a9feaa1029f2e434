/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-model-relpos.h"
#include "pl-transformer-relpos.h"
#include "pl-tokenizer.h"
#include "pl-transformer.h"
#include "pl-transformer-private.h"

/* Kept apart from pl-transformer.c so the forward pass links (tests,
 * benchmarks) with weights from anywhere, not only from a PlModel. */

/* What the weight functions read from: the model, and whether to go on. */
typedef struct
{
  PlModel      *model;
  GCancellable *cancellable;
} Reader;

/* Each weight read looks at the cancellable first: a large model's weights
 * take seconds to read. */
static PlStoredMatrix *
model_stored_weight (PlWeight   weight,
                     int        layer,
                     gpointer   user_data,
                     GError   **error)
{
  Reader *reader = user_data;

  if (g_cancellable_set_error_if_cancelled (reader->cancellable, error))
    return NULL;
  return pl_model_read_stored_weight (reader->model, weight, layer, error);
}

static PlMatrix *
model_weight (PlWeight   weight,
              int        layer,
              gpointer   user_data,
              GError   **error)
{
  Reader *reader = user_data;

  if (g_cancellable_set_error_if_cancelled (reader->cancellable, error))
    return NULL;
  return pl_model_read_weight (reader->model, weight, layer, error);
}

/* config.json names no [CLS] / [SEP] for BERT, and says nothing of which ids
 * are special: the tokenizer beside the checkpoint knows both. The ids it
 * puts around an empty text are the ones inputs are wrapped in. */
static void
use_tokenizer (PlTransformer *transformer,
               PlModel       *model)
{
  g_autoptr(PlTokenizer) tokenizer = NULL;
  g_autoptr(GArray) empty = NULL;
  g_autoptr(GArray) specials = g_array_new (FALSE, FALSE, sizeof (int));
  const char *path = pl_model_get_path (model);
  guint vocab;
  int first = -1, last = -1;

  if (path == NULL || !(tokenizer = pl_tokenizer_new_for_model_dir (path, NULL)) ||
      !pl_tokenizer_encode (tokenizer, "", &empty, NULL, NULL))
    return;
  if (empty->len == 2)
    {
      first = g_array_index (empty, int, 0);
      last = g_array_index (empty, int, 1);
    }
  /* Llama's, Mistral's and Gemma's tokenizers put their bos token before a
   * text and nothing after it */
  else if (empty->len == 1 && pl_model_get_causal (model))
    first = g_array_index (empty, int, 0);
  /* Hugging Face's OPT tokenizer (GPT2Tokenizer, add_bos_token) puts the
   * configured bos_token_id (</s>) first and nothing last, whatever the
   * tokenizer files beside the checkpoint would add. */
  if (pl_model_get_family (model) == PL_FAMILY_OPT)
    {
      first = pl_model_get_bos_id (model);
      last = -1;
    }
  vocab = MIN (pl_tokenizer_get_vocab_size (tokenizer), pl_transformer_get_config (transformer)->vocab_size);
  for (guint id = 0; id < vocab; id++)
    if (pl_tokenizer_is_special (tokenizer, id))
      g_array_append_val (specials, id);
  pl_transformer_set_special_ids (transformer, first, last, (int *) specials->data, specials->len);
}

PlTransformer *
pl_transformer_new (PlModel       *model,
                    GCancellable  *cancellable,
                    GError       **error)
{
  PlTransformerConfig config = { 0, };
  Reader reader = { model, cancellable };
  PlTransformer *transformer;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  /* heads, epsilon and activation must come from config.json */
  if (!pl_model_require_config (model, error))
    return NULL;
  config.family = pl_model_get_family (model);
  if (!pl_family_has_forward (config.family))
    {
      g_autofree char *runnable = pl_family_list_forward ();

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s is a %s model: Poslens runs the forward pass of %s checkpoints only",
                   pl_model_get_name (model), pl_model_get_family_name (model), runnable);
      return NULL;
    }
  /* Shapes checked against each other here, where the file's tensor names
   * are known, before the forward pass reads them. */
  if (!pl_model_check_embeddings (model, error))
    return NULL;
  config.hidden_size = pl_model_get_hidden_size (model);
  config.embedding_size = pl_model_get_embedding_size (model);
  config.n_layers = pl_model_get_n_layers (model);
  config.n_heads = pl_model_get_n_heads (model);
  config.ffn_size = pl_model_get_ffn_size (model);
  config.vocab_size = pl_model_get_vocab_size (model);
  config.n_positions = pl_model_get_n_positions (model);
  config.first_position = pl_model_get_first_position (model);
  config.layer_norm_eps = pl_model_get_layer_norm_eps (model);
  config.activation = pl_model_get_activation (model);
  config.pre_ln = pl_model_get_pre_ln (model);
  config.causal = pl_model_get_causal (model);
  config.shared_layers = pl_model_get_shared_layers (model);
  config.bos_id = pl_model_get_bos_id (model);
  config.eos_id = pl_model_get_eos_id (model);
  config.pad_id = pl_model_get_pad_id (model);

  if (pl_model_get_relpos (model) != NULL)
    transformer = pl_transformer_new_relpos (model, cancellable, error);
  else if (pl_model_get_rotary_decoder (model) != NULL)
    {
      config.rotary = TRUE;
      config.decoder = *pl_model_get_rotary_decoder (model);
      transformer = pl_transformer_new_decoder (&config, model_stored_weight, &reader, cancellable, error);
    }
  else
    transformer = pl_transformer_new_full (&config, model_weight, &reader, cancellable, error);
  if (transformer == NULL)
    {
      /* the weights' own messages name the file; the shape checks do not */
      if (config.rotary && error != NULL && *error != NULL &&
          !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          !g_str_has_prefix ((*error)->message, pl_model_get_path (model)) &&
          !g_str_has_prefix ((*error)->message, "/"))
        g_prefix_error (error, "%s: ", pl_model_get_path (model));
      return NULL;
    }
  use_tokenizer (transformer, model);
  return transformer;
}

PlMatrix *
pl_attention_positional_component (PlModel        *model,
                                   guint           layer,
                                   guint           n_sequences,
                                   guint           length,
                                   guint64         seed,
                                   GCancellable   *cancellable,
                                   PlProgressFunc  progress,
                                   gpointer        progress_data,
                                   GError        **error)
{
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(GPtrArray) tables = NULL;

  g_return_val_if_fail (PL_IS_MODEL (model), NULL);

  /* An activations file measured it over its own inputs. */
  if (pl_model_get_activations (model) != NULL)
    return pl_activations_file_read_position_mean (pl_model_get_activations (model), layer, error);
  if (!(transformer = pl_transformer_new (model, cancellable, error)))
    return NULL;
  if (!(tables = pl_attention_positional_components (transformer, layer, n_sequences, length, seed,
                                                     cancellable, progress, progress_data, error)))
    return NULL;
  return pl_matrix_ref (g_ptr_array_index (tables, layer));
}
