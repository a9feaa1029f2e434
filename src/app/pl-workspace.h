/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-analysis-cache.h"
#include "pl-matrix.h"
#include "pl-model.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* What the user is looking at, shared by every view of a window: the model,
 * the layer and head, the selected position range, and the cache of answers.
 * Views follow it, so a selection made in one shows in the others. */

#define PL_LAYER_TABLE (-1)   /* the position table as stored, not a layer's output */

#define PL_TYPE_WORKSPACE (pl_workspace_get_type ())

G_DECLARE_FINAL_TYPE (PlWorkspace, pl_workspace, PL, WORKSPACE, GObject)

PlWorkspace     *pl_workspace_new              (GSettings    *settings);
GSettings       *pl_workspace_get_settings     (PlWorkspace  *self);
PlAnalysisCache *pl_workspace_get_cache        (PlWorkspace  *self);

/* Every model the window has open, in sidebar order. */
GListModel      *pl_workspace_get_models       (PlWorkspace  *self);
void             pl_workspace_set_models       (PlWorkspace  *self,
                                                GListModel   *models);

PlModel         *pl_workspace_get_model        (PlWorkspace  *self);
void             pl_workspace_set_model        (PlWorkspace  *self,
                                                PlModel      *model);

/* PL_LAYER_TABLE, or 0 … n_layers for hidden_states[k] (0: the embedding output). */
int              pl_workspace_get_layer        (PlWorkspace  *self);
void             pl_workspace_set_layer        (PlWorkspace  *self,
                                                int           layer);
/* How many layers the model can show: 0 when it has no forward pass. */
guint            pl_workspace_get_n_layers     (PlWorkspace  *self);
/* The layer a view of attention layers shows, 0 … N_LAYERS − 1, from the
 * workspace's layer (1 … L; 0, the embeddings, shows the first); N_LAYERS 0
 * takes the model's count. */
guint            pl_workspace_get_layer_index  (PlWorkspace  *self,
                                                guint         n_layers);
char            *pl_workspace_describe_layer   (PlWorkspace  *self,
                                                int           layer);
guint            pl_workspace_get_head         (PlWorkspace  *self);
void             pl_workspace_set_head         (PlWorkspace  *self,
                                                guint         head);
guint            pl_workspace_get_n_heads      (PlWorkspace  *self);

/* The selected positions [start, end), in position numbers; end == start: none. */
void             pl_workspace_get_selection    (PlWorkspace  *self,
                                                guint        *start,
                                                guint        *end);
void             pl_workspace_set_selection    (PlWorkspace  *self,
                                                guint         start,
                                                guint         end);

gboolean         pl_workspace_get_dark         (PlWorkspace  *self);

/* Whether the workspace's model at its layer holds a vision transformer's
 * patches (pl_question_shows_patches); FALSE without a workspace. */
gboolean         pl_workspace_shows_patches    (PlWorkspace  *self,
                                                guint        *cols);

/* The position table of the current layer of MODEL (the stored table, or a
 * layer's positional component from forward passes), from the cache or a worker. */
void             pl_workspace_get_table_async  (PlWorkspace         *self,
                                                PlModel             *model,
                                                int                  layer,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
PlMatrix        *pl_workspace_get_table_finish (PlWorkspace         *self,
                                                GAsyncResult        *result,
                                                GError             **error);

/* The model's forward pass, its weights read once per model, from the cache or a worker. */
void             pl_workspace_get_transformer_async  (PlWorkspace         *self,
                                                      PlModel             *model,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
PlTransformer   *pl_workspace_get_transformer_finish (PlWorkspace         *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

G_END_DECLS
