/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How many threads one BLAS call may use. */
int  pl_blas_get_threads (void);
void pl_blas_set_threads (int n_threads);

/* Between these, BLAS calls run on the calling thread only: for work the
 * caller splits over its own threads. Nested and concurrent pairs are
 * counted; the last end restores the thread count. */
void pl_blas_begin_single (void);
void pl_blas_end_single   (void);

/* How many threads work split by the caller should use: as many as BLAS
 * may (the user's setting), at most one per processor. */
guint pl_blas_split_threads (void);

G_END_DECLS
