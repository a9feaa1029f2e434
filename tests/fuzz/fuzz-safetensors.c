/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pl-fuzz.h"
#include "pl-model-isolated.h"
#include "pl-model-private.h"

/* An input that ends in "HOLE" and a 32-bit little-endian count N is a file
 * followed by N MiB never written (at most 64 GiB): a sparse file, whose
 * header may declare tensors in bytes the disk does not hold. */
#define HOLE_MAGIC    "HOLE"
#define MAX_HOLE_MIB  (1u << 16)

/* A safetensors file: the header parser, then reads of what it listed. A
 * sparse one is then checked as `poslens-cli check` does, its position
 * table read whatever its size: the reader must refuse what is not stored
 * before it takes memory for it (libFuzzer's -malloc_limit_mb catches it
 * when it does not). */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  guint32 hole_mib = 0;

  if (size >= 8 && memcmp (data + size - 8, HOLE_MAGIC, 4) == 0)
    {
      memcpy (&hole_mib, data + size - 4, 4);
      hole_mib = GUINT32_FROM_LE (hole_mib) % (MAX_HOLE_MIB + 1);
      size -= 8;
    }
  path = pl_fuzz_write ("model.safetensors", data, size);
  if (hole_mib > 0)
    g_assert (truncate (path, (off_t) size + ((off_t) hole_mib << 20)) == 0);

  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint == NULL)
    return 0;
  pl_fuzz_exercise_checkpoint (checkpoint, path);
  if (hole_mib > 0)
    {
      g_autoptr(PlModel) model = pl_model_open_checkpoint (g_object_ref (checkpoint), path, NULL, &error);

      g_assert ((model == NULL) != (error == NULL));
      if (model != NULL)
        g_assert (pl_model_check_readable (model, &error) == (error == NULL));
    }
  return 0;
}
