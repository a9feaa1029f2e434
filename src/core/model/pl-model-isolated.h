/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-model.h"

G_BEGIN_DECLS

/* How long a helper may take to open a file before it is stopped. */
#define PL_MODEL_CHECK_TIMEOUT_SECONDS 60

/* Reads what opening and analysing MODEL reads from its file: the whole
 * position table and the first row of every other tensor, so every
 * dataset's layout in the file is parsed once. The values are not judged
 * (an all-zero row is the analyses' business, not a damaged file). */
gboolean  pl_model_check_readable (PlModel      *model,
                                   GError      **error);

/* pl_model_open (PATH, DATASET), but the file is first opened and read by
 * `HELPER check` in a process of its own, stopped after TIMEOUT_SECONDS.
 * A damaged HDF5 file can leave Debian's libhdf5 1.10 with dangling
 * pointers that a later, sound file trips over (tests/fuzz/known-libhdf5/),
 * and a hostile one can make it loop: a long-lived process lets only files
 * the helper opened cleanly into its own libhdf5. HELPER is a poslens-cli;
 * NULL opens in this process. */
PlModel  *pl_model_open_isolated  (const char   *path,
                                   const char   *dataset,
                                   const char   *helper,
                                   guint         timeout_seconds,
                                   GError      **error);

G_END_DECLS
