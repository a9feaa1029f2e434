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

/* A checkpoint holding only a list of tensors: reading any of them fails.
 * What the model recogniser sees, without a file format in the way. */
PlCheckpoint *pl_fuzz_checkpoint_new     (const char    *path);

/* Reads a few rows of every small enough tensor, and the model's position
 * table, through the real readers: what opening a file in the app does. */
void          pl_fuzz_exercise_checkpoint (PlCheckpoint *checkpoint,
                                           const char   *path);

G_END_DECLS
