/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-analysis-cache.h"
#include "pl-executor.h"
#include "pl-matrix.h"
#include "pl-test-util.h"

static gint calls;
static gint cancelled_calls;

/* The gate a slow computation waits at half way, until the test opens it
 * or its cancellable is cancelled; LOCK and COND also tell of each start. */
static GMutex lock;
static GCond cond;
static gboolean gate_open;

static void
wake (GCancellable *cancellable,
      gpointer      data)
{
  g_mutex_lock (&lock);
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
}

static void
hold_at_gate (GCancellable *cancellable)
{
  gulong id = g_cancellable_connect (cancellable, G_CALLBACK (wake), NULL, NULL);

  g_mutex_lock (&lock);
  while (!gate_open && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  g_cancellable_disconnect (cancellable, id);
}

static void
set_gate (gboolean open)
{
  g_mutex_lock (&lock);
  gate_open = open;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
}

/* Blocks until N computations have started. */
static void
wait_started (gint n)
{
  g_mutex_lock (&lock);
  while (g_atomic_int_get (&calls) < n)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
}

/* Zeroes the counts once the computations of earlier tests have ended (a
 * cancelled one's caller hears of it before its worker stops). */
static void
reset_counts (void)
{
  pl_executor_wait_idle (pl_executor_get_default ());
  g_atomic_int_set (&calls, 0);
  g_atomic_int_set (&cancelled_calls, 0);
}

/* Squares its input after reporting progress ten times; with a negative
 * input ("slow") it waits at the gate after the fifth. */
static gboolean
square (PlAnalysisJob  *job,
        gpointer        input,
        GValue         *result,
        GError        **error)
{
  double x = *(double *) input;
  PlMatrix *m;

  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);

  g_mutex_lock (&lock);
  g_atomic_int_inc (&calls);
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
  for (int i = 0; i < 10; i++)
    {
      pl_analysis_job_set_progress (job, (i + 1) / 10.0);
      if (x < 0 && i == 4)
        hold_at_gate (cancellable);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_atomic_int_inc (&cancelled_calls);
          return FALSE;
        }
    }
  m = pl_matrix_new (1, 1);
  m->data[0] = (float) (x * x);
  g_value_init (result, PL_TYPE_MATRIX);
  g_value_take_boxed (result, m);
  return TRUE;
}

typedef struct
{
  const GValue *answer;
  GError       *error;
  gboolean      done;
  double        last_progress;
  guint         n_progress;
} Outcome;

static void
on_done (GObject *object, GAsyncResult *result, gpointer data)
{
  Outcome *outcome = data;

  outcome->answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &outcome->error);
  outcome->done = TRUE;
}

static void
on_progress (double fraction, gpointer data)
{
  Outcome *outcome = data;

  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  outcome->last_progress = fraction;
  outcome->n_progress++;
}

static void
run (PlAnalysisCache *cache, double x, GCancellable *cancellable, Outcome *outcome)
{
  memset (outcome, 0, sizeof *outcome);
  if (x < 0)
    set_gate (FALSE);
  pl_analysis_cache_run_async (cache, x < 0 ? "slow" : "square/3",
                               square, g_memdup2 (&x, sizeof x), g_free,
                               on_progress, outcome, cancellable, on_done, outcome);
}

static void
test_runs_once_then_cached (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  Outcome outcome;

  reset_counts ();
  g_assert_null (pl_analysis_cache_lookup (cache, "square/3"));
  run (cache, 3, NULL, &outcome);
  while (!outcome.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (outcome.error);
  g_assert_cmpfloat (((PlMatrix *) g_value_get_boxed (outcome.answer))->data[0], ==, 9.0f);
  g_assert_cmpint (calls, ==, 1);

  /* The second time answers from the cache without a worker. */
  run (cache, 3, NULL, &outcome);
  while (!outcome.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (calls, ==, 1);
  g_assert_nonnull (pl_analysis_cache_lookup (cache, "square/3"));

  pl_analysis_cache_forget (cache, "square/");
  g_assert_null (pl_analysis_cache_lookup (cache, "square/3"));
}

static void
test_cancel (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Outcome outcome;

  run (cache, -1, cancellable, &outcome);
  g_cancellable_cancel (cancellable);
  while (!outcome.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&outcome.error);
  g_assert_null (outcome.answer);
  g_assert_null (pl_analysis_cache_lookup (cache, "slow"));
}

static void
test_progress_on_main_context (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  Outcome outcome;

  run (cache, -2, NULL, &outcome);
  /* The computation waits half way until a report has landed. */
  while (!outcome.done)
    {
      g_main_context_iteration (NULL, TRUE);
      if (outcome.n_progress > 0)
        set_gate (TRUE);
    }
  g_assert_no_error (outcome.error);
  /* Ten reports land at least once, never more than ten times. */
  g_assert_cmpuint (outcome.n_progress, >=, 1);
  g_assert_cmpuint (outcome.n_progress, <=, 10);
}

/* Two callers of one key while it computes share one computation. */
static void
test_shared (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  Outcome a, b;

  reset_counts ();
  run (cache, -1, NULL, &a);
  run (cache, -1, NULL, &b);
  set_gate (TRUE);
  while (!a.done || !b.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (a.error);
  g_assert_no_error (b.error);
  g_assert_true (a.answer == b.answer);
  g_assert_cmpint (calls, ==, 1);
}

/* A caller that cancels and asks again in the same turn keeps the
 * computation; once no caller waits, it is cancelled and stops. */
static void
test_cancel_and_ask_again (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  g_autoptr(GCancellable) first = g_cancellable_new ();
  g_autoptr(GCancellable) second = g_cancellable_new ();
  Outcome a, b;

  reset_counts ();
  run (cache, -1, first, &a);
  g_cancellable_cancel (first);
  run (cache, -1, second, &b);
  set_gate (TRUE);
  while (!a.done || !b.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (a.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&a.error);
  g_assert_no_error (b.error);
  g_assert_cmpint (calls, ==, 1);
  g_assert_cmpint (cancelled_calls, ==, 0);

  /* Now alone: cancelling it stops the computation itself. */
  pl_analysis_cache_forget (cache, NULL);
  g_cancellable_reset (second);
  run (cache, -1, second, &b);
  wait_started (2);
  g_cancellable_cancel (second);
  while (!b.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (b.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&b.error);
  pl_executor_wait_idle (pl_executor_get_default ());
  g_assert_cmpint (cancelled_calls, ==, 1);
  g_assert_null (pl_analysis_cache_lookup (cache, "slow"));
}

/* Cancelling everything stops a computation at once, with no turn of the
 * main loop (a window closing at the end of the process), and its caller
 * then hears it was cancelled. */
static void
test_cancel_all (void)
{
  g_autoptr(PlAnalysisCache) cache = pl_analysis_cache_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Outcome outcome;

  reset_counts ();
  run (cache, -1, cancellable, &outcome);
  wait_started (1);
  pl_analysis_cache_cancel_all (cache);
  pl_executor_wait_idle (pl_executor_get_default ());
  g_assert_cmpint (cancelled_calls, ==, 1);
  while (!outcome.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&outcome.error);
  g_assert_null (pl_analysis_cache_lookup (cache, "slow"));
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/analysis-cache/runs-once-then-cached", test_runs_once_then_cached);
  g_test_add_func ("/pl/analysis-cache/cancel", test_cancel);
  g_test_add_func ("/pl/analysis-cache/shared", test_shared);
  g_test_add_func ("/pl/analysis-cache/cancel-and-ask-again", test_cancel_and_ask_again);
  g_test_add_func ("/pl/analysis-cache/cancel-all", test_cancel_all);
  g_test_add_func ("/pl/analysis-cache/progress-on-main-context", test_progress_on_main_context);
  return g_test_run ();
}
