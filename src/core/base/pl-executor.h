/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The threads that compute: one executor per process, created at start-up
 * by the application (or the command line, or a test) through
 * pl_executor_get_default, which also fixes BLAS at one thread. Every
 * question runs as a task on its threads, the newest first, at most one per
 * thread at once; the pieces an analysis splits its work into run on the
 * same threads (pl_executor_split), ahead of any question waiting. Nothing
 * else in Poslens starts a thread that computes. */

#define PL_TYPE_EXECUTOR (pl_executor_get_type ())

G_DECLARE_FINAL_TYPE (PlExecutor, pl_executor, PL, EXECUTOR, GObject)

/* The process's executor, created on first use with as many threads as
 * OPENBLAS_NUM_THREADS says (the thread count benches give both sides), or
 * one per processor. */
PlExecutor *pl_executor_get_default   (void);
PlExecutor *pl_executor_new           (guint            n_threads);
guint       pl_executor_get_n_threads (PlExecutor      *self);

/* As g_task_run_in_thread, on the executor's threads: FUNC runs once a
 * thread is free, tasks queued later first. FUNC checks the task's
 * cancellable and returns G_IO_ERROR_CANCELLED when it is cancelled; a task
 * cancelled while it waits in the queue returns that error without running. */
void        pl_executor_run_task      (PlExecutor      *self,
                                       GTask           *task,
                                       GTaskThreadFunc  func);

/* Returns once every task handed to pl_executor_run_task has ended, queued
 * ones included. A process waits here before it exits, after cancelling
 * what it asked: OpenBLAS and HDF5 tear themselves down at exit, under any
 * thread still computing. */
void        pl_executor_wait_idle     (PlExecutor      *self);

/* Runs FUNC (DATA) on the calling thread and on up to N_THREADS − 1 of the
 * executor's threads that are free, and returns when every thread that took
 * part is done. FUNC takes its pieces of work from a counter in DATA (a
 * thread that joins late finds none left), so the work is done even when no
 * other thread is free. */
void        pl_executor_split         (PlExecutor      *self,
                                       guint            n_threads,
                                       GThreadFunc      func,
                                       gpointer         data);

/* Piece PIECE of work split by pl_executor_for, on the thread that took
 * slot SLOT (0 … n_threads − 1, one per thread taking part: an index into
 * scratch space for each of the executor's threads). */
typedef void (*PlPieceFunc) (guint    piece,
                             guint    slot,
                             gpointer data);

/* FUNC (piece, slot, DATA) for every piece 0 … N_PIECES − 1, each once, on
 * the calling thread and free executor threads (as pl_executor_split, with
 * the counter kept here); returns when all are done. The pieces run in no
 * given order; each writes only what is its own. */
void        pl_executor_for           (PlExecutor      *self,
                                       guint            n_pieces,
                                       PlPieceFunc      func,
                                       gpointer         data);

/* How many tasks are running now (pieces of split work not counted). */
guint       pl_executor_get_n_running (PlExecutor      *self);

/* The processor time, in seconds, spent on tasks that have ended, with the
 * pieces of work they split off: all of them (TOTAL), and those whose
 * cancellable was cancelled before they ended (CANCELLED). For benches. */
void        pl_executor_get_cpu_time  (PlExecutor      *self,
                                       double          *total,
                                       double          *cancelled);

G_END_DECLS
