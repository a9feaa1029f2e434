/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <hdf5.h>

G_BEGIN_DECLS

/* Debian's libhdf5 is built without thread safety: every HDF5 call in the
 * process must hold this lock. It is recursive, so helpers may nest. The
 * first lock also initialises HDF5 quietly (see pl_hdf5_init). */
void     pl_hdf5_lock             (void);
void     pl_hdf5_unlock           (void);
/* Silences HDF5's automatic error printing and disables filter plugins
 * (a file must not make us load code). Idempotent; called by the lock. */
void     pl_hdf5_init             (void);
/* Sets ERROR to "FILE: WHAT (HDF5: innermost message)" using the current
 * HDF5 error stack, then clears the stack. Call with the lock held. */
void     pl_hdf5_set_error        (GError     **error,
                                   int          code,
                                   const char  *file,
                                   const char  *format,
                                   ...) G_GNUC_PRINTF (4, 5);
/* Access property lists that follow no soft, external or user-defined link
 * (hard links only). Owned by the module; do not close. */
hid_t    pl_hdf5_link_access      (void);
hid_t    pl_hdf5_dataset_access   (void);

G_END_DECLS
