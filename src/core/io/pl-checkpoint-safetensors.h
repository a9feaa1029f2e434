/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"

G_BEGIN_DECLS

#define PL_TYPE_CHECKPOINT_SAFETENSORS (pl_checkpoint_safetensors_get_type ())

G_DECLARE_FINAL_TYPE (PlCheckpointSafetensors, pl_checkpoint_safetensors, PL, CHECKPOINT_SAFETENSORS, PlCheckpoint)

/* PATH is the file, or the index of a sharded checkpoint whose SHARDS (full
 * paths) are then opened; SHARDS is NULL for one file. Only the header is
 * read here; tensors are read on demand with positioned reads. */
PlCheckpoint *pl_checkpoint_safetensors_open (const char          *path,
                                              const char * const  *shards,
                                              GError             **error);

G_END_DECLS
