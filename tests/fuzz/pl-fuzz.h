/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "pl-checkpoint-private.h"

G_BEGIN_DECLS

/* libFuzzer's entry point; the replay program (pl-fuzz-replay.c) calls the
 * same function on saved inputs without libFuzzer. */
int           LLVMFuzzerTestOneInput     (const uint8_t *data,
                                          size_t         size);

/* A private folder for this process, removed at exit. */
const char   *pl_fuzz_tmpdir             (void);
/* Writes DATA to NAME in that folder (replacing it) and returns its path. */
char         *pl_fuzz_write              (const char    *name,
                                          const void    *data,
                                          size_t         size);

/* pl_fuzz_write for readers of sparse files: DATA that ends in "HOLE" and a
 * 32-bit little-endian count N is written without those 8 bytes and
 * followed by N MiB never written (at most 64 GiB), a sparse file that may
 * declare tensors in bytes the disk does not hold. HOLE_MIB receives N. */
char         *pl_fuzz_write_sparse       (const char    *name,
                                          const void    *data,
                                          size_t         size,
                                          guint32       *hole_mib);
/* What `poslens-cli check` does with a sparse file: the model's position
 * table is read whatever its size, so the reader must refuse what the file
 * does not store before it takes memory for it (libFuzzer's
 * -malloc_limit_mb catches it when it does not). */
void          pl_fuzz_check_sparse       (PlCheckpoint  *checkpoint,
                                          const char    *path);
/* A checkpoint holding only a list of tensors: reading any of them fails.
 * What the model recogniser sees, without a file format in the way. */
PlCheckpoint *pl_fuzz_checkpoint_new     (const char    *path);

/* Reads a few rows of every small enough tensor, and the model's position
 * table, through the real readers: what opening a file in the app does. */
void          pl_fuzz_exercise_checkpoint (PlCheckpoint *checkpoint,
                                           const char   *path);

G_END_DECLS
