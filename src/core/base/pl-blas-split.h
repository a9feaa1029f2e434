/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Work the analyses split over their own threads, each calling BLAS
 * single-threaded (pl_blas_begin_single); the count of threads comes from
 * pl_blas_split_threads. */

/* Runs FUNC (DATA) on N_THREADS threads, the caller being one of them, with
 * BLAS single-threaded meanwhile, and returns when all are done. Each
 * thread runs FUNC once; FUNC divides the work (a shared atomic counter of
 * pieces, or a fixed stride by a slot each thread takes). */
void  pl_blas_run_split     (guint       n_threads,
                             GThreadFunc func,
                             gpointer    data);

/* The same for many short jobs in a row: the threads are started once and
 * wait between jobs (spinning for a moment, then asleep), and BLAS stays
 * single-threaded until the team is freed. A helper that wakes after the
 * caller has taken every share skips the job, so FUNC must take its shares
 * from a shared counter. */
typedef struct _PlBlasTeam PlBlasTeam;

PlBlasTeam *pl_blas_team_new  (guint        n_threads);
void        pl_blas_team_run  (PlBlasTeam  *team,
                               GThreadFunc  func,
                               gpointer     data);
/* The same, the caller first running SIDE (SIDE_DATA), serial work that
 * does not touch what FUNC writes, while the helpers start on FUNC; then
 * it takes whatever shares of FUNC are left. */
void        pl_blas_team_run_beside (PlBlasTeam  *team,
                                     GThreadFunc  func,
                                     gpointer     data,
                                     GThreadFunc  side,
                                     gpointer     side_data);
void        pl_blas_team_free (PlBlasTeam  *team);

G_END_DECLS
