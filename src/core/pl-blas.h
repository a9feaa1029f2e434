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
/* Runs FUNC (DATA) on N_THREADS threads, the caller being one of them, with
 * BLAS single-threaded meanwhile, and returns when all are done. FUNC takes
 * its share of the work from a shared atomic counter. */
void  pl_blas_run_split     (guint       n_threads,
                             GThreadFunc func,
                             gpointer    data);

/* The same for many short jobs in a row: the threads are started once and
 * wait between jobs, and BLAS stays single-threaded until the team is
 * freed. A helper that wakes after the caller has taken every share skips
 * the job, so FUNC must take its shares from a shared counter. */
typedef struct _PlBlasTeam PlBlasTeam;

PlBlasTeam *pl_blas_team_new  (guint        n_threads);
void        pl_blas_team_run  (PlBlasTeam  *team,
                               GThreadFunc  func,
                               gpointer     data);
void        pl_blas_team_free (PlBlasTeam  *team);

G_END_DECLS
