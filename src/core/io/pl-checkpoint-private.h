/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint.h"

G_BEGIN_DECLS

/* What a reader keeps per tensor; PlTensorInfo comes first so the pointer
 * handed out as a PlTensorInfo is the entry. */
typedef struct
{
  PlTensorInfo  info;
  guint         shard;      /* which file of a sharded checkpoint */
  guint64       offset;     /* safetensors: absolute byte offset in that file */
  guint64       nbytes;
  guint         elem_size;  /* bytes per element when known, else 0 */
  char         *refusal;    /* why it cannot be read (external storage, …), or NULL */
} PlTensorEntry;

/* A reader that opens several files adds each one's size (one file alone
 * needs nothing: its size is looked up). */
void           pl_checkpoint_add_file_bytes      (PlCheckpoint    *self,
                                                  guint64          bytes);
void           pl_checkpoint_set_path_and_format (PlCheckpoint    *self,
                                                  const char      *path,
                                                  const char      *format);
PlTensorEntry *pl_checkpoint_add_tensor          (PlCheckpoint    *self,
                                                  const char      *name,
                                                  guint            rank,
                                                  const guint64   *shape,
                                                  PlDType          dtype,
                                                  const char      *dtype_name);
/* Reads config.json beside DIR_OR_FILE's folder, when there is one. */
gboolean       pl_checkpoint_load_config         (PlCheckpoint    *self,
                                                  const char      *weights_file,
                                                  GError         **error);
/* A configuration the file carries itself (JSON TEXT; WHAT names it in
 * messages), in place of a config.json beside it. */
gboolean       pl_checkpoint_set_config_text     (PlCheckpoint    *self,
                                                  const char      *text,
                                                  const char      *what,
                                                  GError         **error);
void           pl_checkpoint_set_attribute       (PlCheckpoint    *self,
                                                  const char      *name,
                                                  const char      *value);
/* Reads a sharded checkpoint's index: returns the shard file names in first-use
 * order (plain names in the index's folder, never paths elsewhere). */
GStrv          pl_checkpoint_read_shard_index    (const char      *index_path,
                                                  GError         **error);
/* pl-checkpoint-bytes.c */
/* Reads exactly LEN bytes at OFFSET; a short file is an error naming PATH. */
gboolean       pl_checkpoint_read_exact          (int              fd,
                                                  void            *buf,
                                                  gsize            len,
                                                  guint64          offset,
                                                  const char      *path,
                                                  GError         **error);
/* Converts N little-endian elements of a float DTYPE to float32. */
void           pl_checkpoint_convert_le          (PlDType          dtype,
                                                  const guint8    *src,
                                                  float           *dst,
                                                  gsize            n);
/* INFO's values as the file stores them (float32, float16 or bfloat16,
 * little-endian) from OFFSET of FD on: the file's extent is checked before
 * memory is taken, and failures name PATH and the tensor. */
PlStoredMatrix *pl_checkpoint_read_stored_at     (int                  fd,
                                                  const char          *path,
                                                  const PlTensorInfo  *info,
                                                  guint64              offset,
                                                  GError             **error);

/* The same tensor as a view into MAP, FD's file mapped read-only, when its
 * bytes can be used in place (host little-endian, aligned to the element
 * size, inside the mapping, stored rather than holes): no copy, and the
 * pages are read from the page cache as the forward pass touches them.
 * Otherwise, or when MAP is NULL, as pl_checkpoint_read_stored_at. */
PlStoredMatrix *pl_checkpoint_view_stored        (GMappedFile         *map,
                                                  int                  fd,
                                                  const char          *path,
                                                  const PlTensorInfo  *info,
                                                  guint64              offset,
                                                  GError             **error);

G_END_DECLS
