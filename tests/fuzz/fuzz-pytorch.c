/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"

/* A PyTorch file, zip or legacy: the zip directory, the pickles, the
 * storages' layout, then reads of what it listed. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = pl_fuzz_write ("pytorch_model.bin", data, size);
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;

  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint != NULL)
    pl_fuzz_exercise_checkpoint (checkpoint, path);
  return 0;
}
