/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"
#include "pl-hdf5.h"

/* An HDF5 file, opened read-only as the app opens tf_model.h5: the walk over
 * its groups and datasets, then reads of what it listed. */
static void
open_and_read (const char *path)
{
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;

  checkpoint = pl_checkpoint_open (path, &error);
  g_assert ((checkpoint == NULL) != (error == NULL));
  if (checkpoint != NULL)
    pl_fuzz_exercise_checkpoint (checkpoint, path);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = pl_fuzz_write ("tf_model.h5", data, size);
  ssize_t still_open;

  open_and_read (path);
  /* Once the checkpoint is gone, so is every HDF5 object it opened, on
   * every error path too. */
  pl_hdf5_lock ();
  still_open = H5Fget_obj_count (H5F_OBJ_ALL, H5F_OBJ_ALL);
  pl_hdf5_unlock ();
  if (still_open != 0)
    g_error ("%zd HDF5 objects left open", still_open);
  return 0;
}
