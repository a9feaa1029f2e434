/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"

G_BEGIN_DECLS

/* Path of a file under tests/fixtures (references, format samples). */
char     *pl_test_fixture      (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* Path of a file under data/demo (the checkpoints the app ships). */
char     *pl_test_demo         (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* A dataset of a reference file, read with the raw HDF5 API (not through
 * PlCheckpoint, so the reader under test is not its own referee), as float32
 * with the last dimension as columns. */
PlMatrix *pl_test_read_h5      (const char *file,
                                const char *dataset);
double    pl_test_read_h5_scalar (const char *file,
                                  const char *dataset);
/* Largest |a - b| over all elements; NaN when the shapes differ. */
double    pl_test_max_abs_diff (const PlMatrix *a,
                                const PlMatrix *b);
/* A fresh temporary folder, removed with its contents by pl_test_rmtree. */
char     *pl_test_tmpdir       (void);
void      pl_test_rmtree       (const char *path);

G_END_DECLS
