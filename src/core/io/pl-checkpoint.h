/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pl-matrix.h"
#include "pl-stored-matrix.h"

G_BEGIN_DECLS

#define PL_TENSOR_MAX_RANK 8

typedef enum
{
  PL_DTYPE_F32,
  PL_DTYPE_F16,
  PL_DTYPE_BF16,
  PL_DTYPE_F64,
  PL_DTYPE_OTHER,          /* listed, but refused by name when read */
  PL_DTYPE_QUANTIZED,      /* a ggml block format (GGUF): dtype_name says which */
} PlDType;

typedef struct
{
  char    *name;           /* as stored: an HDF5 path or a safetensors key */
  guint    rank;
  guint64  shape[PL_TENSOR_MAX_RANK];
  PlDType  dtype;
  char    *dtype_name;     /* "F32", "BF16", "I64", "float32", "Q4_K", ... for messages */
  gboolean repeats;        /* names more elements than it stores (a view with a stride of 0, as torch's
                            * expand makes): its rows are not positions of their own */
} PlTensorInfo;

/* The matrix view of a tensor: columns are its last dimension, rows the
 * product of the others (a vector is one row, a scalar 1×1). */
void                pl_tensor_info_get_matrix_shape (const PlTensorInfo *info,
                                                     guint64            *rows,
                                                     guint64            *cols);
/* TRUE for non-empty 2-D tensors of a float dtype, and 3-D ones of a single
 * first dimension (ViT's [1, rows, width]): what can be a position table. */
gboolean            pl_tensor_info_is_table     (const PlTensorInfo *info);

#define PL_TYPE_CHECKPOINT (pl_checkpoint_get_type ())

G_DECLARE_DERIVABLE_TYPE (PlCheckpoint, pl_checkpoint, PL, CHECKPOINT, GObject)

struct _PlCheckpointClass
{
  GObjectClass parent_class;

  /* Reads rows [first, first + n) of a tensor viewed as a matrix whose
   * columns are its last dimension, converted to float32. */
  PlMatrix *(*read_rows) (PlCheckpoint        *self,
                          const PlTensorInfo  *info,
                          guint64              first,
                          guint64              n,
                          GError             **error);
  /* The whole tensor, viewed as above, in its stored precision (F32, F16
   * or BF16; the caller checked the dtype is one of them). Optional: a
   * format without it has its tensors read as float32. */
  PlStoredMatrix *(*read_stored) (PlCheckpoint        *self,
                                  const PlTensorInfo  *info,
                                  GError             **error);
};

/* The bytes the checkpoint's files hold, all shards together. */
guint64             pl_checkpoint_get_file_bytes (PlCheckpoint *self);

/* Opens a file or a checkpoint folder, read-only, and lists its tensors. */
PlCheckpoint       *pl_checkpoint_open          (const char    *path,
                                                 GError       **error);
const char         *pl_checkpoint_get_path      (PlCheckpoint  *self);
/* "hdf5-tf" (Keras save_weights, as HF writes tf_model.h5), "hdf5-keras"
 * (Keras model.save), "hdf5-sharded", "poslens-activations" (an
 * activations file, README), "hdf5" (any other HDF5 file), "safetensors",
 * "safetensors-sharded", "pytorch", "gguf". */
const char         *pl_checkpoint_get_format    (PlCheckpoint  *self);
guint               pl_checkpoint_get_n_tensors (PlCheckpoint  *self);
const PlTensorInfo *pl_checkpoint_get_tensor    (PlCheckpoint  *self,
                                                 guint          i);
const PlTensorInfo *pl_checkpoint_find_tensor   (PlCheckpoint  *self,
                                                 const char    *name);
/* config.json beside the weights (an activations file's own), or NULL when
 * there is none. */
JsonObject         *pl_checkpoint_get_config    (PlCheckpoint  *self);
/* What a file records about itself at its root, as text (integers in
 * decimal): an activations file's "format", "format_version",
 * "model_name", "writer", "causal". NULL when absent. */
const char         *pl_checkpoint_get_attribute (PlCheckpoint  *self,
                                                 const char    *name);
PlMatrix           *pl_checkpoint_read          (PlCheckpoint  *self,
                                                 const char    *name,
                                                 GError       **error);
/* A tensor as a matrix in the precision the file stores it when that is
 * F32, F16 or BF16 (F64 and formats without a stored read: float32), so
 * that large half-precision weights are not doubled in memory. */
PlStoredMatrix     *pl_checkpoint_read_stored   (PlCheckpoint  *self,
                                                 const char    *name,
                                                 GError       **error);
PlMatrix           *pl_checkpoint_read_rows     (PlCheckpoint  *self,
                                                 const char    *name,
                                                 guint64        first,
                                                 guint64        n,
                                                 GError       **error);

G_END_DECLS
