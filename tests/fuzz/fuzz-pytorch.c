/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"

/* A PyTorch file, zip or legacy: the zip directory, the pickles, the
 * storages' layout, then reads of what it listed, then checked as
 * `poslens-cli check` does, which reads the first row of every tensor
 * (seeds stride0-names and memo-aliases: what that cost before it had a
 * budget). A sparse one (pl_fuzz_write_sparse: a legacy file's storages
 * come last, so the hole can be one of them) is among them. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  guint32 hole_mib;

  path = pl_fuzz_write_sparse ("pytorch_model.bin", data, size, &hole_mib);
  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint == NULL)
    return 0;
  pl_fuzz_exercise_checkpoint (checkpoint, path);
  pl_fuzz_check_sparse (checkpoint, path);
  (void) hole_mib;
  return 0;
}
