/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"

/* A safetensors file: the header parser, then reads of what it listed; a
 * sparse one (pl_fuzz_write_sparse) is then checked as `poslens-cli check`
 * does. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  guint32 hole_mib;

  path = pl_fuzz_write_sparse ("model.safetensors", data, size, &hole_mib);
  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint == NULL)
    return 0;
  pl_fuzz_exercise_checkpoint (checkpoint, path);
  if (hole_mib > 0)
    pl_fuzz_check_sparse (checkpoint, path);
  return 0;
}
