/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-checkpoint-gguf.h"
#include "pl-fuzz.h"
#include "pl-tokenizer.h"

/* A GGUF file: the header parser, its metadata read as the model and the
 * tokenizer read it (and the tokenizer run on a sentence), reads of what it
 * lists (in rows, and kept in their blocks then unpacked); a sparse one
 * (pl_fuzz_write_sparse) is then checked as `poslens-cli check` does. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  const PlGgufHeader *header;
  guint32 hole_mib;

  path = pl_fuzz_write_sparse ("model.gguf", data, size, &hole_mib);
  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint == NULL)
    return 0;
  header = pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (checkpoint));
  for (guint i = 0; i < pl_gguf_header_get_n_keys (header); i++)
    {
      const char *key = pl_gguf_header_get_key (header, i);
      const PlGgufValue *value = pl_gguf_header_lookup (header, key);
      g_auto(GStrv) strings = NULL;
      g_autofree char *text = pl_gguf_value_dup_string (value);
      guint64 u;
      double d;

      pl_gguf_value_get_uint (value, &u);
      pl_gguf_value_get_double (value, &d);
      pl_gguf_array_get_number (value, 0, &d);
      if (value->type == PL_GGUF_ARRAY && value->len > 0)
        pl_gguf_array_get_number (value, value->len - 1, &d);
      strings = pl_gguf_array_dup_strings (value, path, key, NULL);
    }
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_autoptr(PlStoredMatrix) stored = NULL;
      g_autoptr(GError) read_error = NULL;
      guint64 rows, cols;

      pl_tensor_info_get_matrix_shape (info, &rows, &cols);
      if (rows * cols > (1 << 20))
        continue;
      stored = pl_checkpoint_read_stored (checkpoint, info->name, &read_error);
      g_assert ((stored == NULL) != (read_error == NULL));
      if (stored != NULL)
        {
          g_autoptr(PlMatrix) m = pl_stored_matrix_to_matrix (stored, NULL);

          pl_stored_matrix_all_finite (stored);
        }
    }
  /* its tokenizer, as a typed sentence would use it */
  {
    g_autoptr(PlTokenizer) tokenizer = pl_tokenizer_new_from_gguf (path, NULL);
    g_autoptr(GArray) ids = NULL;

    if (tokenizer != NULL)
      pl_tokenizer_encode (tokenizer, "Hello world, 12345 <s> ä\n", &ids, NULL, NULL);
  }
  pl_fuzz_exercise_checkpoint (checkpoint, path);
  if (hole_mib > 0)
    pl_fuzz_check_sparse (checkpoint, path);
  return 0;
}
