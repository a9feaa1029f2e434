/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-activations-file.h"
#include "pl-tokenizer.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* What an activations file records of a forward pass, and about what. */
typedef struct
{
  const char  *model_name;     /* a Hugging Face id or the checkpoint's name */
  const char  *config_json;    /* config.json's text, or NULL ("{}") */
  const char  *writer;         /* "poslens-cli 0.1.0" */
  /* The sample inputs the statistics average over: GArrays of int, all of
   * one length T. */
  GPtrArray   *sequences;
  /* Inputs whose full attention maps are kept, each of its own length;
   * NULL or empty for none. */
  GPtrArray   *map_sequences;
  /* Gives the tokens' labels when not NULL. */
  PlTokenizer *tokenizer;
} PlActivationsInputs;

/* Runs TRANSFORMER over the inputs and writes the activations file at PATH
 * (built beside it and moved into place when complete): the attention
 * statistics, the mean hidden state at each position of every layer, a
 * rotary model's per-plane query and key norms, and the maps asked for,
 * each dataset a layer at a time. */
gboolean pl_activations_write (PlTransformer              *transformer,
                               const PlActivationsInputs  *inputs,
                               const char                 *path,
                               GCancellable               *cancellable,
                               GError                    **error);

G_END_DECLS
