/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-pickle-private.h"

/* The globals PyTorch's weights-only unpickler allows for state dicts
 * (torch/_weights_only_unpickler.py, _get_allowed_globals), by the name a
 * pickle gives them. Storages of every device ("torch.cuda.FloatStorage")
 * map to the same types by the name after "torch.". */
static const PlPickleGlobal allowed_globals[] = {
  { "collections.OrderedDict", PL_PICKLE_GLOBAL_DICT, NULL, 0 },
  { "collections.Counter", PL_PICKLE_GLOBAL_DICT, NULL, 0 },
  { "torch.Size", PL_PICKLE_GLOBAL_SIZE, NULL, 0 },
  { "torch.Tensor", PL_PICKLE_GLOBAL_TENSOR_TYPE, NULL, 0 },
  { "torch.nn.parameter.Parameter", PL_PICKLE_GLOBAL_TENSOR_TYPE, NULL, 0 },
  { "torch._utils._rebuild_tensor", PL_PICKLE_GLOBAL_REBUILD_TENSOR, NULL, 0 },
  { "torch._utils._rebuild_tensor_v2", PL_PICKLE_GLOBAL_REBUILD_TENSOR_V2, NULL, 0 },
  { "torch._utils._rebuild_parameter", PL_PICKLE_GLOBAL_REBUILD_PARAMETER, NULL, 0 },
  { "torch._utils._rebuild_parameter_with_state", PL_PICKLE_GLOBAL_REBUILD_PARAMETER, NULL, 0 },
  { "torch._tensor._rebuild_from_type_v2", PL_PICKLE_GLOBAL_REBUILD_FROM_TYPE, NULL, 0 },
  { "torch._utils._rebuild_tensor_v3", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_qtensor", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_sparse_tensor", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_sparse_csr_tensor", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_meta_tensor_no_storage", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_wrapper_subclass", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch._utils._rebuild_device_tensor_from_cpu_tensor", PL_PICKLE_GLOBAL_REBUILD_OTHER, NULL, 0 },
  { "torch.DoubleStorage", PL_PICKLE_GLOBAL_STORAGE, "F64", 8 },
  { "torch.FloatStorage", PL_PICKLE_GLOBAL_STORAGE, "F32", 4 },
  { "torch.HalfStorage", PL_PICKLE_GLOBAL_STORAGE, "F16", 2 },
  { "torch.BFloat16Storage", PL_PICKLE_GLOBAL_STORAGE, "BF16", 2 },
  { "torch.LongStorage", PL_PICKLE_GLOBAL_STORAGE, "I64", 8 },
  { "torch.IntStorage", PL_PICKLE_GLOBAL_STORAGE, "I32", 4 },
  { "torch.ShortStorage", PL_PICKLE_GLOBAL_STORAGE, "I16", 2 },
  { "torch.CharStorage", PL_PICKLE_GLOBAL_STORAGE, "I8", 1 },
  { "torch.ByteStorage", PL_PICKLE_GLOBAL_STORAGE, "U8", 1 },
  { "torch.BoolStorage", PL_PICKLE_GLOBAL_STORAGE, "BOOL", 1 },
  { "torch.ComplexDoubleStorage", PL_PICKLE_GLOBAL_STORAGE, "C128", 16 },
  { "torch.ComplexFloatStorage", PL_PICKLE_GLOBAL_STORAGE, "C64", 8 },
  { "torch.QUInt8Storage", PL_PICKLE_GLOBAL_STORAGE, "QUINT8", 1 },
  { "torch.QInt8Storage", PL_PICKLE_GLOBAL_STORAGE, "QINT8", 1 },
  { "torch.QInt32Storage", PL_PICKLE_GLOBAL_STORAGE, "QINT32", 4 },
  { "torch.QUInt4x2Storage", PL_PICKLE_GLOBAL_STORAGE, "QUINT4X2", 1 },
  { "torch.QUInt2x4Storage", PL_PICKLE_GLOBAL_STORAGE, "QUINT2X4", 1 },
  { "torch.storage.UntypedStorage", PL_PICKLE_GLOBAL_STORAGE, "U8", 1 },
  { "torch.storage.TypedStorage", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.float64", PL_PICKLE_GLOBAL_DTYPE, "F64", 8 },
  { "torch.float32", PL_PICKLE_GLOBAL_DTYPE, "F32", 4 },
  { "torch.float16", PL_PICKLE_GLOBAL_DTYPE, "F16", 2 },
  { "torch.bfloat16", PL_PICKLE_GLOBAL_DTYPE, "BF16", 2 },
  { "torch.int64", PL_PICKLE_GLOBAL_DTYPE, "I64", 8 },
  { "torch.int32", PL_PICKLE_GLOBAL_DTYPE, "I32", 4 },
  { "torch.int16", PL_PICKLE_GLOBAL_DTYPE, "I16", 2 },
  { "torch.int8", PL_PICKLE_GLOBAL_DTYPE, "I8", 1 },
  { "torch.uint8", PL_PICKLE_GLOBAL_DTYPE, "U8", 1 },
  { "torch.bool", PL_PICKLE_GLOBAL_DTYPE, "BOOL", 1 },
  { "torch.complex32", PL_PICKLE_GLOBAL_DTYPE, "C32", 4 },
  { "torch.complex64", PL_PICKLE_GLOBAL_DTYPE, "C64", 8 },
  { "torch.complex128", PL_PICKLE_GLOBAL_DTYPE, "C128", 16 },
  { "torch.device", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.serialization._get_layout", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.per_tensor_affine", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.per_tensor_symmetric", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.per_channel_affine", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.per_channel_symmetric", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "torch.per_channel_affine_float_qparams", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "_codecs.encode", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "builtins.set", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "builtins.bytearray", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
  { "builtins.complex", PL_PICKLE_GLOBAL_OTHER, NULL, 0 },
};

/* Python 2 module names pickle's fix_imports writes, and their Python 3 ones. */
static const char * const python2_modules[][2] = {
  { "__builtin__", "builtins" },
  { "exceptions", "builtins" },
  { "copy_reg", "copyreg" },
  { "commands", "subprocess" },
  { "cPickle", "pickle" },
  { "UserDict", "collections" },
};

static const PlPickleGlobal *
find_global (const char *full)
{
  const char *short_name = full;

  if (g_str_has_prefix (full, "torch.cuda."))
    short_name = full + strlen ("torch.cuda.");
  for (guint i = 0; i < G_N_ELEMENTS (allowed_globals); i++)
    {
      const PlPickleGlobal *g = &allowed_globals[i];

      if (strcmp (g->name, full) == 0)
        return g;
      if (short_name != full && g->kind == PL_PICKLE_GLOBAL_STORAGE &&
          g_str_has_prefix (g->name, "torch.") && strcmp (g->name + strlen ("torch."), short_name) == 0)
        return g;
    }
  return NULL;
}

const PlPickleGlobal *
pl_pickle_find_global (const char  *module,
                       gsize        module_len,
                       const char  *name,
                       gsize        name_len,
                       char       **full)
{
  *full = g_strdup_printf ("%.*s.%.*s", (int) module_len, module, (int) name_len, name);
  /* Python 3 writes some globals under their Python 2 module's name
   * (pickle's fix_imports): name them as Python 3 reads them. */
  for (guint i = 0; i < G_N_ELEMENTS (python2_modules); i++)
    if (strlen (python2_modules[i][0]) == module_len && memcmp (module, python2_modules[i][0], module_len) == 0)
      {
        g_free (*full);
        *full = g_strdup_printf ("%s.%.*s", python2_modules[i][1], (int) name_len, name);
      }
  return find_global (*full);
}
