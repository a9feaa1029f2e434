/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A weights-only reader of Python pickles, for PyTorch checkpoints.
 *
 * A pickle is a program for a small stack machine whose instructions can
 * import and call any Python function. This reader runs only the
 * instructions that build data (numbers, strings, tuples, lists, dicts) and
 * knows a fixed list of globals, the ones PyTorch's own
 * torch.load (weights_only=True) allows for state dicts: containers, tensor
 * rebuild functions, storage types and dtypes. Any other global is refused by
 * name when the pickle names it. Allowed globals are never called either: a
 * call is recorded as a PL_PICKLE_CALL value for the caller to interpret.
 *
 * What a pickle can cost is bounded by its length: its values, the items of
 * its containers, its stack, memo and decoded texts count against one
 * budget of half the pickle's bytes plus 40 MiB (a state dict's pickle
 * builds about six times its size; pl_pickle_charge lets a reader count what
 * it builds from the values against the same budget), nesting against a
 * fixed cap, and a memo index may not run ahead of the values built. */

typedef enum
{
  PL_PICKLE_NONE,
  PL_PICKLE_BOOL,
  PL_PICKLE_INT,            /* fits in 64 bits */
  PL_PICKLE_BIG_INT,        /* wider: its little-endian bytes, as stored */
  PL_PICKLE_FLOAT,
  PL_PICKLE_STRING,         /* str: UTF-8 as stored, not validated */
  PL_PICKLE_BYTES,          /* bytes, or a Python 2 str */
  PL_PICKLE_TUPLE,
  PL_PICKLE_LIST,
  PL_PICKLE_SET,
  PL_PICKLE_DICT,           /* dict, OrderedDict, Counter: keys and values alternate */
  PL_PICKLE_GLOBAL,         /* one of the allowed globals */
  PL_PICKLE_CALL,           /* an allowed global applied to arguments: recorded, never run */
  PL_PICKLE_PERSISTENT_ID,  /* ('storage', type, key, location, numel, …): data outside the pickle */
} PlPickleKind;

typedef enum
{
  PL_PICKLE_GLOBAL_DICT,                 /* collections.OrderedDict, collections.Counter */
  PL_PICKLE_GLOBAL_SIZE,                 /* torch.Size */
  PL_PICKLE_GLOBAL_TENSOR_TYPE,          /* torch.Tensor, torch.nn.parameter.Parameter */
  PL_PICKLE_GLOBAL_REBUILD_TENSOR,       /* torch._utils._rebuild_tensor */
  PL_PICKLE_GLOBAL_REBUILD_TENSOR_V2,    /* torch._utils._rebuild_tensor_v2 */
  PL_PICKLE_GLOBAL_REBUILD_PARAMETER,    /* _rebuild_parameter, _rebuild_parameter_with_state */
  PL_PICKLE_GLOBAL_REBUILD_FROM_TYPE,    /* torch._tensor._rebuild_from_type_v2 */
  PL_PICKLE_GLOBAL_REBUILD_OTHER,        /* sparse, quantized, meta tensors: allowed, not read */
  PL_PICKLE_GLOBAL_STORAGE,              /* torch.FloatStorage, …: the dtype of a storage */
  PL_PICKLE_GLOBAL_DTYPE,                /* torch.float32, … */
  PL_PICKLE_GLOBAL_OTHER,                /* torch.device, _codecs.encode, builtins.set, … */
} PlPickleGlobalKind;

typedef struct
{
  const char         *name;       /* "module.name" */
  PlPickleGlobalKind  kind;
  const char         *dtype;      /* storages and dtypes: "F32", "BF16", "I64", … */
  guint               elem_size;  /* storages: bytes per element */
} PlPickleGlobal;

typedef struct _PlPickleValue PlPickleValue;

/* The items of a container, and the unpickler's stack, memo and lists. */
typedef struct
{
  PlPickleValue **data;
  guint           len;
  guint           capacity;
} PlPickleItems;

struct _PlPickleValue
{
  PlPickleKind kind;
  guint        depth;             /* containers: levels of values below, as built */
  union
  {
    gboolean               boolean;
    gint64                 integer;
    double                 real;
    struct
    {
      const char *data;           /* into the pickle's bytes, not NUL-terminated */
      gsize       len;
    }                      bytes;  /* STRING, BYTES, BIG_INT */
    PlPickleItems          items;  /* TUPLE, LIST, SET, DICT */
    const PlPickleGlobal  *global;
    struct
    {
      const PlPickleGlobal *func;
      PlPickleValue        *args;  /* a TUPLE */
      PlPickleValue        *state; /* what BUILD gave it, or NULL */
    }                      call;
    PlPickleValue         *pid;    /* PERSISTENT_ID: the id, a TUPLE */
  };
};

typedef struct _PlPickle PlPickle;

/* Reads the pickle that starts at OFFSET in DATA. WHAT names it in messages
 * ("model.bin", "model.pt: archive/data.pkl"). When the bytes end before
 * the pickle does, *TRUNCATED (if given) is set as well as the error, so a
 * caller reading a file in pieces can read more and try again. */
PlPickle            *pl_pickle_load             (GBytes               *data,
                                                 gsize                 offset,
                                                 const char           *what,
                                                 gboolean             *truncated,
                                                 GError              **error);
void                 pl_pickle_free             (PlPickle             *self);
/* Where the pickle at OFFSET of FD (a file of SIZE bytes, PATH in messages)
 * ends: its instructions stepped over, nothing built, about as many bytes
 * read as it has; refused past MAX_LEN bytes or the file's end. */
gboolean             pl_pickle_find_end         (int                   fd,
                                                 guint64               size,
                                                 guint64               offset,
                                                 guint64               max_len,
                                                 const char           *path,
                                                 guint64              *end,
                                                 GError              **error);
/* Counts BYTES that a reader builds from the pickle's values against its
 * budget; FALSE with ERROR ("WHAT: …") once the budget is spent. */
gboolean             pl_pickle_charge           (PlPickle             *self,
                                                 gsize                 bytes,
                                                 const char           *what,
                                                 GError              **error);
const PlPickleValue *pl_pickle_get_root         (PlPickle             *self);
/* The offset just past the pickle's STOP. */
gsize                pl_pickle_get_end          (PlPickle             *self);
/* Every PERSISTENT_ID the pickle built, in order, wherever it is used. */
const PlPickleValue * const *
                     pl_pickle_get_persistent_ids (PlPickle           *self,
                                                   guint              *n);

/* Items of a TUPLE, LIST, SET or DICT (2 per entry in a DICT). */
guint                pl_pickle_value_get_length (const PlPickleValue  *value);
const PlPickleValue *pl_pickle_value_get_item   (const PlPickleValue  *value,
                                                 guint                 i);
/* TRUE for a STRING or BYTES. */
gboolean             pl_pickle_value_is_text    (const PlPickleValue  *value);
/* An INT's value when it is not negative. */
gboolean             pl_pickle_value_get_uint   (const PlPickleValue  *value,
                                                 guint64              *out);
/* TRUE for a STRING or BYTES equal to TEXT. */
gboolean             pl_pickle_value_equals     (const PlPickleValue  *value,
                                                 const char           *text);
/* A DICT's value for the string key KEY, or NULL. */
const PlPickleValue *pl_pickle_dict_lookup      (const PlPickleValue  *dict,
                                                 const char           *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPickle, pl_pickle_free)

G_END_DECLS
