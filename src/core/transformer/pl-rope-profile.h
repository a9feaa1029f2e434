/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-activations-file.h"
#include "pl-transformer.h"

G_BEGIN_DECLS

/* Which rotary frequencies a rotary model's heads use. RoPE turns each
 * head's query and key in 2-D planes (dims p and p + rot/2), plane p by
 * θ_p per position: a plane where queries and keys are long carries much of
 * the score, and its frequency says how fast that part of the score changes
 * with the offset (fast planes: position; slow ones: content, as they hardly
 * turn over a text). The norm in a plane does not change under the rotation.
 * Immutable once computed. */
typedef struct
{
  guint     n_layers;
  guint     n_heads;
  guint     n_kv_heads;
  guint     n_planes;      /* rotated dims / 2 */
  guint     n_tokens;
  guint     n_sequences;
  /* [layers × heads, planes]: row l·heads + h, column p: the mean over the
   * inputs' positions of ‖(q_p, q_{p+rot/2})‖ of head h's query at layer l */
  PlMatrix *query_norm;
  /* [layers × kv_heads, planes]: the same for the key heads */
  PlMatrix *key_norm;
  /* 1 × planes: θ_p in radians per token, at this input length (the model's
   * scaling applied) */
  PlMatrix *frequency;
  /*< private >*/
  gint      ref_count;
} PlRopeProfile;

#define PL_TYPE_ROPE_PROFILE (pl_rope_profile_get_type ())

GType          pl_rope_profile_get_type (void) G_GNUC_CONST;
PlRopeProfile *pl_rope_profile_ref      (PlRopeProfile *self);
void           pl_rope_profile_unref    (PlRopeProfile *self);

/* Over N_SEQUENCES random inputs of LENGTH tokens (pl_transformer_random_ids,
 * seeds SEED, SEED + 1, …; LENGTH 0: n_positions). PL_ERROR_UNSUPPORTED for
 * models without rotary embeddings. */
PlRopeProfile *pl_rope_profile_compute  (PlTransformer  *transformer,
                                         guint           n_sequences,
                                         guint           length,
                                         guint64         seed,
                                         GCancellable   *cancellable,
                                         PlProgressFunc  progress,
                                         gpointer        progress_data,
                                         GError        **error);
/* Over given inputs: SEQUENCES holds GArrays of int, all of one length. */
PlRopeProfile *pl_rope_profile_compute_for_ids (PlTransformer *transformer,
                                         GPtrArray      *sequences,
                                         GCancellable   *cancellable,
                                         PlProgressFunc  progress,
                                         gpointer        progress_data,
                                         GError        **error);
/* What an activations file recorded of a rotary model's forward pass
 * (PL_ERROR_NOT_FOUND when it holds no rotary norms). */
PlRopeProfile *pl_rope_profile_new_from_file (PlActivationsFile *file,
                                         GError        **error);
/* Layer LAYER's norms (0-based), heads × planes: the query heads', or with
 * KEYS the key heads'. */
PlMatrix      *pl_rope_profile_get_layer (PlRopeProfile *self,
                                         guint           layer,
                                         gboolean        keys);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlRopeProfile, pl_rope_profile_unref)

G_END_DECLS
