/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-fuzz.h"
#include "pl-model-private.h"

/* The model recogniser: tensor names and shapes in, a PlModel or an error
 * out. One tensor a line: "NAME DIM,DIM,... [DTYPE]"; a first line "@PATH"
 * names the checkpoint (the model's name comes from it). */
#define MAX_TENSORS 512

static PlDType
parse_dtype (const char  *word,
             const char **name)
{
  static const struct { const char *name; PlDType dtype; } dtypes[] = {
    { "F32", PL_DTYPE_F32 }, { "F16", PL_DTYPE_F16 }, { "BF16", PL_DTYPE_BF16 },
    { "F64", PL_DTYPE_F64 },
  };

  for (guint i = 0; word != NULL && i < G_N_ELEMENTS (dtypes); i++)
    if (g_str_equal (word, dtypes[i].name))
      {
        *name = dtypes[i].name;
        return dtypes[i].dtype;
      }
  *name = word != NULL ? word : "F32";
  return word != NULL ? PL_DTYPE_OTHER : PL_DTYPE_F32;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto(GStrv) lines = g_strsplit (text, "\n", MAX_TENSORS + 1);
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = "/nonexistent/poslens-fuzz/model.safetensors";
  guint first = 0;

  if (lines[0] != NULL && lines[0][0] == '@' && lines[0][1] != '\0')
    {
      path = lines[0] + 1;
      first = 1;
    }
  checkpoint = pl_fuzz_checkpoint_new (path);
  for (guint i = first; lines[i] != NULL && i < MAX_TENSORS; i++)
    {
      g_auto(GStrv) words = g_strsplit (lines[i], " ", 3);
      g_auto(GStrv) dims = NULL;
      guint64 shape[PL_TENSOR_MAX_RANK];
      guint rank = 0;
      const char *dtype_name;
      PlDType dtype;

      if (words[0] == NULL || words[0][0] == '\0')
        continue;
      if (words[1] != NULL && words[1][0] != '\0')
        {
          dims = g_strsplit (words[1], ",", PL_TENSOR_MAX_RANK + 1);
          for (; dims[rank] != NULL && rank < PL_TENSOR_MAX_RANK; rank++)
            shape[rank] = g_ascii_strtoull (dims[rank], NULL, 10);
        }
      dtype = parse_dtype (words[1] != NULL ? words[2] : NULL, &dtype_name);
      pl_checkpoint_add_tensor (checkpoint, words[0], rank, shape, dtype, dtype_name);
    }

  model = pl_model_open_checkpoint (g_object_ref (checkpoint), path, NULL, &error);
  g_assert ((model == NULL) != (error == NULL));
  if (model == NULL)
    return 0;

  (void) pl_model_get_name (model);
  (void) pl_model_get_family_name (model);
  (void) pl_model_get_n_positions (model);
  for (int layer = -1; layer < (int) MIN (pl_model_get_n_layers (model), 48); layer++)
    for (int w = 0; w < PL_N_WEIGHTS; w++)
      {
        g_autoptr(PlMatrix) m = NULL;
        g_autoptr(GError) read_error = NULL;
        gboolean kernel;

        (void) pl_model_find_role (model, w, layer < 0 ? 0 : layer, &kernel);
        m = pl_model_read_weight (model, w, layer < 0 ? 0 : layer, &read_error);
        g_assert ((m == NULL) != (read_error == NULL));
      }
  return 0;
}
