/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-model.h"

G_BEGIN_DECLS

/* How long a helper may take to open a file before it is stopped. */
#define PL_MODEL_CHECK_TIMEOUT_SECONDS 60

/* Answers for what the window does with MODEL: its position table is read
 * whole and its values checked as the analyses check them (no NaN, no
 * infinity, no all-zero position); without one, there must be a 2-D table
 * to choose. Then the first row of every other tensor Poslens reads, so
 * every dataset's layout in the file is parsed once, here rather than in
 * the window's libhdf5. Tensors it never reads (other dtypes, external
 * storage, never written) are left for when they are asked for. */
gboolean  pl_model_check_readable (PlModel      *model,
                                   GError      **error);

/* pl_model_open (PATH, DATASET), but the file is first opened and read by
 * `HELPER check` in a process of its own, stopped after TIMEOUT_SECONDS or
 * at once when CANCELLABLE is cancelled (then G_IO_ERROR_CANCELLED).
 * A damaged HDF5 file can leave Debian's libhdf5 1.10 with dangling
 * pointers that a later, sound file trips over (tests/fuzz/known-libhdf5/),
 * and a hostile one can make it loop: a long-lived process lets only files
 * the helper opened cleanly into its own libhdf5. HELPER is a poslens-cli;
 * NULL opens in this process. */
PlModel  *pl_model_open_isolated  (const char   *path,
                                   const char   *dataset,
                                   const char   *helper,
                                   guint         timeout_seconds,
                                   GCancellable *cancellable,
                                   GError      **error);

G_END_DECLS
