/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"
#include "pl-gguf-header.h"

G_BEGIN_DECLS

#define PL_TYPE_CHECKPOINT_GGUF (pl_checkpoint_gguf_get_type ())

G_DECLARE_FINAL_TYPE (PlCheckpointGguf, pl_checkpoint_gguf, PL, CHECKPOINT_GGUF, PlCheckpoint)

/* A GGUF file (llama.cpp's and Ollama's models), mapped read-only: its
 * header is read at once, its tensors where they are asked for. Tensors keep
 * ggml's names and list their shapes as PyTorch would (rows first: ggml's
 * dimensions reversed); quantised ones have dtype PL_DTYPE_QUANTIZED and
 * are read as float32 block by block, or kept in their blocks by
 * pl_checkpoint_read_stored, which lends the mapped bytes without copying
 * them. Types Poslens does not read are listed and refused by name. */
PlCheckpoint       *pl_checkpoint_gguf_open       (const char        *path,
                                                   GError           **error);
/* The header: metadata and tensor infos, as the file holds them. */
const PlGgufHeader *pl_checkpoint_gguf_get_header (PlCheckpointGguf  *self);
/* The ggml type of a tensor this checkpoint lists. */
guint32             pl_checkpoint_gguf_tensor_type (PlCheckpointGguf *self,
                                                    const PlTensorInfo *info);

G_END_DECLS
