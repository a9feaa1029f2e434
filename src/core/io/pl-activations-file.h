/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"

G_BEGIN_DECLS

/* The activations file layout (README, "Activations files"): what its root
 * says it is, and the version this code writes (it reads every version up
 * to it). Version 2 keeps a layer's positional component as coordinates
 * when the hidden size exceeds the positions. */
#define PL_ACTIVATIONS_FORMAT         "poslens-activations"
#define PL_ACTIVATIONS_FORMAT_VERSION 2
/* The widest hidden state a file may say its coordinates stand for. */
#define PL_ACTIVATIONS_MAX_HIDDEN     65536

#define PL_TYPE_ACTIVATIONS_FILE (pl_activations_file_get_type ())

G_DECLARE_FINAL_TYPE (PlActivationsFile, pl_activations_file, PL, ACTIVATIONS_FILE, GObject)

/* What an activations file holds of a forward pass, read through CHECKPOINT
 * (opened by pl_checkpoint_open, format "poslens-activations"), a layer at
 * a time. The layout is checked when it is made: the version, every dataset
 * the views need, float32 and of shapes that agree with each other; an
 * error names the file and what is wrong. */
PlActivationsFile *pl_activations_file_new            (PlCheckpoint       *checkpoint,
                                                       GError            **error);
PlCheckpoint      *pl_activations_file_get_checkpoint (PlActivationsFile  *self);
guint              pl_activations_file_get_format_version (PlActivationsFile *self);
const char        *pl_activations_file_get_model_name (PlActivationsFile  *self);
const char        *pl_activations_file_get_writer     (PlActivationsFile  *self);
guint              pl_activations_file_get_n_layers   (PlActivationsFile  *self);
guint              pl_activations_file_get_n_heads    (PlActivationsFile  *self);
/* T: the length of the sample inputs, and how many there are. */
guint              pl_activations_file_get_n_tokens   (PlActivationsFile  *self);
guint              pl_activations_file_get_n_sequences (PlActivationsFile *self);
guint              pl_activations_file_get_hidden_size (PlActivationsFile *self);
/* Whether the file keeps the positional components as coordinates. */
gboolean           pl_activations_file_get_compact    (PlActivationsFile  *self);
gboolean           pl_activations_file_get_causal     (PlActivationsFile  *self);
/* Rotary models: the planes of the per-plane norms (0 when the file has
 * none) and the key heads. */
guint              pl_activations_file_get_n_planes   (PlActivationsFile  *self);
guint              pl_activations_file_get_n_kv_heads (PlActivationsFile  *self);
/* Sentences whose full attention maps the file keeps. */
guint              pl_activations_file_get_n_maps     (PlActivationsFile  *self);

/* [layers × heads, 2T − 1], row l·heads + h, column (j − i) + T − 1. */
PlMatrix          *pl_activations_file_read_offset_profile (PlActivationsFile *self,
                                                       GError            **error);
/* [layers, heads] each. */
PlMatrix          *pl_activations_file_read_mean_distance (PlActivationsFile *self,
                                                       GError            **error);
PlMatrix          *pl_activations_file_read_first_token (PlActivationsFile *self,
                                                       GError            **error);
/* hidden_states[K] averaged over the inputs at each position, [T, hidden]
 * (K = 0: the embedding output), read alone. A file that keeps the rows as
 * coordinates (/hidden/position_coordinates) gives them in its orthonormal
 * basis, padded with zeros to the hidden size: the rows turned by a
 * rotation of R^hidden, so every dot product, norm, distance, PCA (signs
 * included, over all T rows) and probe of them is the one of the rows
 * themselves, but column j is not hidden dimension j. */
PlMatrix          *pl_activations_file_read_position_mean (PlActivationsFile *self,
                                                       guint               k,
                                                       GError            **error);
/* Every layer's per-plane norms, [layers × heads, planes], row l·heads + h
 * (with KEYS, the key heads'). */
PlMatrix          *pl_activations_file_read_plane_norms (PlActivationsFile *self,
                                                       gboolean            keys,
                                                       GError            **error);
/* 1 × planes: each plane's angle per token, in radians. */
PlMatrix          *pl_activations_file_read_frequency (PlActivationsFile  *self,
                                                       GError            **error);
/* Sentence M's map of LAYER (0-based) and HEAD, [T_M, T_M]. */
PlMatrix          *pl_activations_file_read_map       (PlActivationsFile  *self,
                                                       guint               m,
                                                       guint               layer,
                                                       guint               head,
                                                       GError            **error);

G_END_DECLS
