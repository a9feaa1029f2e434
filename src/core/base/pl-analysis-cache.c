/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-analysis-cache.h"
#include "pl-error.h"
#include "pl-executor.h"

/* A computation (PlAnalysisJob) runs as one task on the executor, with a
 * cancellable of its own; the callers waiting for it are its waiters, each
 * with its own GTask and cancellable. Everything but the job's work and
 * its progress reports happens on the cache's main context. */

typedef struct _Pending Pending;

struct _PlAnalysisCache
{
  GObject       parent_instance;
  GMainContext *context;
  GHashTable   *answers;   /* key → GValue* */
  GHashTable   *pending;   /* key → Pending*: computations that callers wait for */
  guint         drop_id;   /* idle that drops cancelled waiters, or 0 */
};

G_DEFINE_FINAL_TYPE (PlAnalysisCache, pl_analysis_cache, G_TYPE_OBJECT)

struct _PlAnalysisJob
{
  char           *key;
  PlAnalysisFunc  func;
  gpointer        input;
  GDestroyNotify  input_free;
  GCancellable   *cancellable;   /* the computation's own */
  GValue          result;
  Pending        *pending;       /* main context only: NULL once no caller waits */

  /* Progress crosses threads: the worker writes it, a timeout on the main
   * context reads it. At most one is pending. */
  GMutex          lock;
  double          fraction;
  gboolean        progress_pending;
  GMainContext   *context;
  gint            ref_count;
};

/* A caller's question: its key, and its answer once there is one (which it
 * gets even if the cache forgot it before the caller's callback ran). */
typedef struct
{
  char   *key;
  GValue  answer;
} Question;

typedef struct
{
  GTask                  *task;         /* the caller's; task data: a Question */
  gulong                  cancelled_id;
  PlAnalysisProgressFunc  progress;
  gpointer                progress_data;
} Waiter;

struct _Pending
{
  PlAnalysisJob *job;
  GPtrArray     *waiters;   /* Waiter* */
};

static void
question_free (Question *q)
{
  if (G_IS_VALUE (&q->answer))
    g_value_unset (&q->answer);
  g_free (q->key);
  g_free (q);
}

/* The caller's answer is ANSWER (a reference, for boxed values). */
static void
question_return (GTask        *task,
                 const GValue *answer)
{
  Question *q = g_task_get_task_data (task);

  g_value_init (&q->answer, G_VALUE_TYPE (answer));
  g_value_copy (answer, &q->answer);
  g_task_return_boolean (task, TRUE);
}

static PlAnalysisJob *
job_ref (PlAnalysisJob *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}

static void
job_unref (PlAnalysisJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  if (job->input_free != NULL && job->input != NULL)
    job->input_free (job->input);
  if (G_IS_VALUE (&job->result))
    g_value_unset (&job->result);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->context, g_main_context_unref);
  g_mutex_clear (&job->lock);
  g_free (job->key);
  g_free (job);
}

GCancellable *
pl_analysis_job_get_cancellable (PlAnalysisJob *job)
{
  g_return_val_if_fail (job != NULL, NULL);
  return job->cancellable;
}

static gboolean
deliver_progress (gpointer data)
{
  PlAnalysisJob *job = data;
  double fraction;

  g_mutex_lock (&job->lock);
  fraction = job->fraction;
  job->progress_pending = FALSE;
  g_mutex_unlock (&job->lock);

  if (job->pending != NULL)
    for (guint i = 0; i < job->pending->waiters->len; i++)
      {
        Waiter *w = g_ptr_array_index (job->pending->waiters, i);

        if (w->progress != NULL && !g_cancellable_is_cancelled (g_task_get_cancellable (w->task)))
          w->progress (fraction, w->progress_data);
      }
  return G_SOURCE_REMOVE;
}

void
pl_analysis_job_set_progress (PlAnalysisJob *job,
                              double         fraction)
{
  gboolean schedule;

  g_return_if_fail (job != NULL);

  g_mutex_lock (&job->lock);
  job->fraction = fraction;
  schedule = !job->progress_pending;
  job->progress_pending = TRUE;
  g_mutex_unlock (&job->lock);

  if (schedule)
    {
      /* Once per frame at most: the worker may report far more often. */
      GSource *source = g_timeout_source_new (16);

      g_source_set_callback (source, deliver_progress, job_ref (job), (GDestroyNotify) job_unref);
      g_source_set_static_name (source, "[poslens] analysis progress");
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
}

PlAnalysisCache *
pl_analysis_cache_new (void)
{
  return g_object_new (PL_TYPE_ANALYSIS_CACHE, NULL);
}

const GValue *
pl_analysis_cache_lookup (PlAnalysisCache *self,
                          const char      *key)
{
  g_return_val_if_fail (PL_IS_ANALYSIS_CACHE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (self->answers, key);
}

/* Hands WAITER its answer: ANSWER, or ERROR. */
static void
waiter_finish (Waiter       *waiter,
               const GValue *answer,
               const GError *error)
{
  g_cancellable_disconnect (g_task_get_cancellable (waiter->task), waiter->cancelled_id);
  if (error != NULL)
    g_task_return_error (waiter->task, g_error_copy (error));
  else
    question_return (waiter->task, answer);
  g_object_unref (waiter->task);
  g_free (waiter);
}

static void
pending_free (Pending *pending)
{
  pending->job->pending = NULL;
  job_unref (pending->job);
  g_ptr_array_unref (pending->waiters);
  g_free (pending);
}

/* Callers that cancelled get G_IO_ERROR_CANCELLED; a computation no caller
 * waits for any more is cancelled and forgotten. This runs in an idle, after
 * whatever the caller did next in the same turn of the main loop: a caller
 * that cancels a question and asks it again keeps its computation. */
static gboolean
drop_cancelled (gpointer data)
{
  PlAnalysisCache *self = data;
  g_autoptr(GError) cancelled = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GHashTableIter iter;
  Pending *pending;

  self->drop_id = 0;
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &pending))
    {
      for (guint i = pending->waiters->len; i-- > 0;)
        {
          Waiter *w = g_ptr_array_index (pending->waiters, i);

          if (g_cancellable_is_cancelled (g_task_get_cancellable (w->task)))
            g_ptr_array_add (gone, g_ptr_array_steal_index (pending->waiters, i));
        }
      if (pending->waiters->len == 0)
        {
          g_cancellable_cancel (pending->job->cancellable);
          g_hash_table_iter_remove (&iter);
        }
    }
  /* After the tables are consistent: a caller's callback may ask again. */
  for (guint i = 0; i < gone->len; i++)
    waiter_finish (g_ptr_array_index (gone, i), NULL, cancelled);
  return G_SOURCE_REMOVE;
}

static gboolean
drop_cancelled_later (gpointer data)
{
  PlAnalysisCache *self = data;
  GSource *source;

  if (self->drop_id != 0)
    return G_SOURCE_REMOVE;
  source = g_idle_source_new ();
  g_source_set_callback (source, drop_cancelled, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[poslens] drop cancelled questions");
  self->drop_id = g_source_attach (source, self->context);
  g_source_unref (source);
  return G_SOURCE_REMOVE;
}

/* A caller's cancellable fired, on whichever thread cancelled it. */
static void
on_waiter_cancelled (GCancellable *cancellable,
                     gpointer      data)
{
  PlAnalysisCache *self = data;

  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, drop_cancelled_later,
                              g_object_ref (self), g_object_unref);
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  PlAnalysisJob *job = task_data;
  GError *error = NULL;
  gboolean ok;

  ok = !g_cancellable_set_error_if_cancelled (cancellable, &error) &&
       job->func (job, job->input, &job->result, &error);
  if (ok && !G_IS_VALUE (&job->result))
    {
      ok = FALSE;
      error = g_error_new (PL_ERROR, PL_ERROR_FAILED, "the analysis “%s” gave no answer", job->key);
    }

  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Keeps ANSWER for KEY, unless KEY has one already. */
static void
keep_answer (PlAnalysisCache *self,
             const char      *key,
             const GValue    *answer)
{
  GValue *kept;

  if (g_hash_table_contains (self->answers, key))
    return;
  kept = g_new0 (GValue, 1);
  g_value_init (kept, G_VALUE_TYPE (answer));
  g_value_copy (answer, kept);
  g_hash_table_insert (self->answers, g_strdup (key), kept);
}

/* The computation ended, on the main context: its answer is kept (even if
 * every caller has gone: it is done) and handed to the callers still
 * waiting. */
static void
job_done (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  PlAnalysisCache *self = PL_ANALYSIS_CACHE (object);
  PlAnalysisJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  Pending *pending = job->pending;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    keep_answer (self, job->key, &job->result);
  if (pending == NULL)
    return;
  /* Out of the table first: a caller's callback may ask again. */
  g_hash_table_steal_extended (self->pending, job->key, (gpointer *) &key, NULL);
  for (guint i = 0; i < pending->waiters->len; i++)
    waiter_finish (g_ptr_array_index (pending->waiters, i), &job->result, error);
  g_ptr_array_set_size (pending->waiters, 0);
  pending_free (pending);
}

static Pending *
start_job (PlAnalysisCache *self,
           const char      *key,
           PlAnalysisFunc   func,
           gpointer         input,
           GDestroyNotify   input_free)
{
  g_autoptr(GTask) task = NULL;
  PlAnalysisJob *job = g_new0 (PlAnalysisJob, 1);
  Pending *pending = g_new0 (Pending, 1);

  job->ref_count = 1;
  job->key = g_strdup (key);
  job->func = func;
  job->input = input;
  job->input_free = input_free;
  job->cancellable = g_cancellable_new ();
  job->context = g_main_context_ref (self->context);
  job->pending = pending;
  g_mutex_init (&job->lock);
  pending->job = job;
  pending->waiters = g_ptr_array_new ();
  g_hash_table_insert (self->pending, g_strdup (key), pending);

  task = g_task_new (self, job->cancellable, job_done, NULL);
  g_task_set_source_tag (task, start_job);
  g_task_set_task_data (task, job_ref (job), (GDestroyNotify) job_unref);
  g_task_set_check_cancellable (task, FALSE);
  pl_executor_run_task (pl_executor_get_default (), task, run_thread);
  return pending;
}

void
pl_analysis_cache_run_async (PlAnalysisCache        *self,
                             const char             *key,
                             PlAnalysisFunc          func,
                             gpointer                input,
                             GDestroyNotify          input_free,
                             PlAnalysisProgressFunc  progress,
                             gpointer                progress_data,
                             GCancellable           *cancellable,
                             GAsyncReadyCallback     callback,
                             gpointer                user_data)
{
  g_autoptr(GCancellable) own = NULL;
  g_autoptr(GTask) task = NULL;
  Pending *pending = NULL;
  Question *question;
  Waiter *waiter;

  g_return_if_fail (PL_IS_ANALYSIS_CACHE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (func != NULL);

  if (cancellable == NULL)
    cancellable = own = g_cancellable_new ();
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pl_analysis_cache_run_async);
  question = g_new0 (Question, 1);
  question->key = g_strdup (key);
  g_task_set_task_data (task, question, (GDestroyNotify) question_free);

  if (g_task_return_error_if_cancelled (task) || g_hash_table_contains (self->answers, key) ||
      (pending = g_hash_table_lookup (self->pending, key)) != NULL)
    {
      if (input_free != NULL && input != NULL)
        input_free (input);
      if (g_task_had_error (task))
        return;
      if (pending == NULL)
        {
          question_return (task, g_hash_table_lookup (self->answers, key));
          return;
        }
    }
  else
    pending = start_job (self, key, func, input, input_free);

  waiter = g_new0 (Waiter, 1);
  waiter->task = g_steal_pointer (&task);
  waiter->progress = progress;
  waiter->progress_data = progress_data;
  waiter->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_waiter_cancelled), self, NULL);
  g_ptr_array_add (pending->waiters, waiter);
}

void
pl_analysis_cache_cancel_all (PlAnalysisCache *self)
{
  GHashTableIter iter;
  Pending *pending;

  g_return_if_fail (PL_IS_ANALYSIS_CACHE (self));

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &pending))
    g_cancellable_cancel (pending->job->cancellable);
}

const GValue *
pl_analysis_cache_run_finish (PlAnalysisCache  *self,
                              GAsyncResult     *result,
                              GError          **error)
{
  Question *q;

  g_return_val_if_fail (PL_IS_ANALYSIS_CACHE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  /* Forgotten between the answer and this call: it is kept again. */
  q = g_task_get_task_data (G_TASK (result));
  keep_answer (self, q->key, &q->answer);
  return g_hash_table_lookup (self->answers, q->key);
}

static gboolean
starts_with (gpointer key, gpointer value, gpointer prefix)
{
  return prefix == NULL || g_str_has_prefix (key, prefix);
}

void
pl_analysis_cache_forget (PlAnalysisCache *self,
                          const char      *prefix)
{
  g_return_if_fail (PL_IS_ANALYSIS_CACHE (self));
  g_hash_table_foreach_remove (self->answers, starts_with, (gpointer) prefix);
}

static void
free_value (gpointer data)
{
  GValue *value = data;

  g_value_unset (value);
  g_free (value);
}

static void
pl_analysis_cache_finalize (GObject *object)
{
  PlAnalysisCache *self = PL_ANALYSIS_CACHE (object);

  /* Waiters' tasks and running jobs hold the cache: none is left. */
  g_assert (g_hash_table_size (self->pending) == 0);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->answers, g_hash_table_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  G_OBJECT_CLASS (pl_analysis_cache_parent_class)->finalize (object);
}

static void
pl_analysis_cache_class_init (PlAnalysisCacheClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_analysis_cache_finalize;
}

static void
pl_analysis_cache_init (PlAnalysisCache *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_value);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) pending_free);
}
