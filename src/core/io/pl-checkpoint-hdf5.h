/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"

G_BEGIN_DECLS

#define PL_TYPE_CHECKPOINT_HDF5 (pl_checkpoint_hdf5_get_type ())

G_DECLARE_FINAL_TYPE (PlCheckpointHdf5, pl_checkpoint_hdf5, PL, CHECKPOINT_HDF5, PlCheckpoint)

/* PATH is the file, or the index of a sharded checkpoint whose SHARDS (full
 * paths) are then opened; SHARDS is NULL for one file. */
PlCheckpoint *pl_checkpoint_hdf5_open (const char          *path,
                                       const char * const  *shards,
                                       GError             **error);

G_END_DECLS
