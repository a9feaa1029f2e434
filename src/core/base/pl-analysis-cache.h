/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs analyses on the executor's threads (pl-executor.h) and keeps their
 * answers by key, e.g. "similarity/<model>/cosine/0". Results are immutable
 * boxed values (PlMatrix, PlPca, ...) held in a GValue, so any analysis fits
 * without a new type here. Callers asking the same key while it is computed
 * share one computation; it is cancelled when every caller has cancelled,
 * unless another asks for it in the same turn of the main loop (stepping
 * back and forth keeps a computation both steps need). */

typedef struct _PlAnalysisJob PlAnalysisJob;

/* Runs on a worker thread. Puts the answer in RESULT (initialised by the
 * function) or returns FALSE with ERROR set. Checks the job's cancellable
 * (passes it to the core functions it calls) and returns
 * G_IO_ERROR_CANCELLED soon after it is cancelled. */
typedef gboolean (*PlAnalysisFunc) (PlAnalysisJob  *job,
                                    gpointer        input,
                                    GValue         *result,
                                    GError        **error);

/* Called on the main context with the fraction done, at most once per 16 ms. */
typedef void     (*PlAnalysisProgressFunc) (double    fraction,
                                            gpointer  user_data);

GCancellable *pl_analysis_job_get_cancellable (PlAnalysisJob *job);
/* Thread-safe: the worker reports how far it got. */
void          pl_analysis_job_set_progress    (PlAnalysisJob *job,
                                               double         fraction);

#define PL_TYPE_ANALYSIS_CACHE (pl_analysis_cache_get_type ())

G_DECLARE_FINAL_TYPE (PlAnalysisCache, pl_analysis_cache, PL, ANALYSIS_CACHE, GObject)

PlAnalysisCache *pl_analysis_cache_new        (void);
/* The answer for KEY when it was computed before, else NULL. */
const GValue    *pl_analysis_cache_lookup     (PlAnalysisCache         *self,
                                               const char              *key);
/* The answer for KEY from the cache, or from FUNC (INPUT) on a worker thread.
 * INPUT is freed with INPUT_FREE when the job ends, or at once when KEY is
 * answered or being computed already. PROGRESS hears of the computation's
 * progress until this caller's answer. */
void             pl_analysis_cache_run_async  (PlAnalysisCache         *self,
                                               const char              *key,
                                               PlAnalysisFunc           func,
                                               gpointer                 input,
                                               GDestroyNotify           input_free,
                                               PlAnalysisProgressFunc   progress,
                                               gpointer                 progress_data,
                                               GCancellable            *cancellable,
                                               GAsyncReadyCallback      callback,
                                               gpointer                 user_data);
/* The answer, owned by the cache (valid as long as the cache); NULL on error. */
const GValue    *pl_analysis_cache_run_finish (PlAnalysisCache         *self,
                                               GAsyncResult            *result,
                                               GError                 **error);
/* Cancels every computation in flight now, not in an idle: for when all
 * its callers go (a window closing), as the main loop may not turn again.
 * Their callers get G_IO_ERROR_CANCELLED once each stops, and so does a
 * question asked again before that. */
void             pl_analysis_cache_cancel_all (PlAnalysisCache         *self);
/* Forgets every answer whose key starts with PREFIX (NULL: all). */
void             pl_analysis_cache_forget     (PlAnalysisCache         *self,
                                               const char              *prefix);

G_END_DECLS
