/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-checkpoint-private.h"
#include "pl-checkpoint-pytorch.h"
#include "pl-pickle.h"

G_BEGIN_DECLS

/* What the files of PlCheckpointPytorch share: pl-checkpoint-pytorch.c
 * (the class, its files and reads), -pickle.c (storages and tensors from
 * what the pickle built) and -archive.c (the zip and legacy layouts). */

typedef struct
{
  int      fd;
  char    *path;
  guint64  size;
} PlPytorchShard;

typedef struct
{
  guint                  shard;
  guint64                offset;   /* in its file, of element 0 */
  guint64                numel;
  const PlPickleGlobal  *type;     /* its storage type: dtype and element size */
} PlPytorchStorage;

/* A tensor as PyTorch stores it: a view into a storage. */
typedef struct
{
  guint    storage;
  guint64  offset;                 /* in elements */
  guint64  extent;                 /* elements from OFFSET to its last, included */
  guint64  stride[PL_TENSOR_MAX_RANK];
} PlPytorchView;

struct _PlCheckpointPytorch
{
  PlCheckpoint  parent_instance;
  GArray       *shards;     /* PlPytorchShard */
  GArray       *storages;   /* PlPytorchStorage */
  GHashTable   *views;      /* PlTensorEntry * -> PlPytorchView * */
};

/* A legacy file's view of a storage, as its key first stood for it. */
typedef struct
{
  char                  *root;     /* the storage's key */
  const PlPickleGlobal  *type;
  guint64                offset;
  guint64                size;
} PlPytorchLegacyView;

/* What opening one file needs: its storages by key. */
typedef struct
{
  PlCheckpointPytorch *self;
  guint                shard;
  const char          *path;
  gboolean             legacy;          /* the legacy format, not the zip one */
  GHashTable          *by_key;          /* key -> storage index + 1 */
  GHashTable          *views_by_key;    /* legacy view key -> PlPytorchLegacyView */
  PlPickle            *pickle;          /* the object's, while its tensors are listed */
} PlPytorchLoad;

/* The storage of KEY in the file being opened, or NULL. */
PlPytorchStorage *pl_checkpoint_pytorch_storage_of        (PlPytorchLoad        *load,
                                                          const char           *key);
/* Every storage PICKLE names, wherever it is used (a legacy file's layout
 * needs them all), as a storage of the file being opened. */
gboolean          pl_checkpoint_pytorch_register_storages (PlPytorchLoad        *load,
                                                          PlPickle             *pickle,
                                                          GError              **error);
/* Lists the tensors of the state dict in PICKLE, each view checked against
 * its storage and what it costs counted against the pickle's budget. */
gboolean          pl_checkpoint_pytorch_add_tensors       (PlPytorchLoad        *load,
                                                          PlPickle             *pickle,
                                                          GError              **error);
/* Opens the file of LOAD in the zip format or the legacy one. */
gboolean          pl_checkpoint_pytorch_open_zip          (PlPytorchLoad        *load,
                                                          GError              **error);
gboolean          pl_checkpoint_pytorch_open_legacy       (PlPytorchLoad        *load,
                                                          GError              **error);

G_END_DECLS
