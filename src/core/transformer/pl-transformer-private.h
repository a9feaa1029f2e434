/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-transformer.h"

G_BEGIN_DECLS

typedef struct
{
  PlMatrix *qkv_w;      /* [hidden, 3 hidden]: Q, K and V side by side */
  PlMatrix *qkv_b;
  PlMatrix *out_w;
  PlMatrix *out_b;
  PlMatrix *ln1_w;
  PlMatrix *ln1_b;
  PlMatrix *ffn_in_w;
  PlMatrix *ffn_in_b;
  PlMatrix *ffn_out_w;
  PlMatrix *ffn_out_b;
  PlMatrix *ln2_w;
  PlMatrix *ln2_b;
} PlTransformerLayer;

struct _PlTransformer
{
  GObject              parent_instance;

  PlTransformerConfig  config;
  PlMatrix            *token_embedding;
  PlMatrix            *position_embedding;  /* every row, as stored */
  PlMatrix            *token_type;          /* row 0 of the type table, or NULL */
  PlMatrix            *embed_ln_w;
  PlMatrix            *embed_ln_b;
  PlMatrix            *embed_project_w;     /* [embedding, hidden], or NULL when they agree */
  PlMatrix            *embed_project_b;
  PlMatrix            *final_ln_w;
  PlMatrix            *final_ln_b;
  PlTransformerLayer               *layers;
  /* from the tokenizer, when known */
  gboolean             has_specials;
  int                  start_id;
  int                  end_id;
  GHashTable          *specials;
};

gboolean  pl_transformer_family_has_forward (PlFamily        family);
/* pl-transformer-embed.c */
gboolean  pl_transformer_check_length       (PlTransformer  *self,
                                             gsize           n_tokens,
                                             GError        **error);
/* hidden_states[0] for IDS (checked): [n, hidden] */
PlMatrix *pl_transformer_embed              (PlTransformer  *self,
                                             const int      *ids,
                                             gsize           n,
                                             GError        **error);

G_END_DECLS
