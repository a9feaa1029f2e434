/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"

G_BEGIN_DECLS

#define PL_TYPE_CHECKPOINT_PYTORCH (pl_checkpoint_pytorch_get_type ())

G_DECLARE_FINAL_TYPE (PlCheckpointPytorch, pl_checkpoint_pytorch, PL, CHECKPOINT_PYTORCH, PlCheckpoint)

/* A PyTorch state dict (torch.save): the zip format of PyTorch 1.6 and
 * later or the legacy format before it, a .pt/.pth dict holding one under
 * "state_dict" or "model", or the shards of a pytorch_model.bin.index.json.
 * PATH is the file, or the index whose SHARDS (full paths) are then opened;
 * SHARDS is NULL for one file. Opening reads the pickles (with pl-pickle's
 * weights-only reader) and the archive's directory; a tensor's bytes are
 * read on demand with positioned reads. */
PlCheckpoint *pl_checkpoint_pytorch_open (const char          *path,
                                          const char * const  *shards,
                                          GError             **error);

G_END_DECLS
