/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl-analysis-cache.h"

struct _PlAnalysisCache
{
  GObject     parent_instance;
  GHashTable *answers;   /* key → GValue* */

  /* Workers running now, for pl_analysis_cache_wait_idle() */
  GMutex      running_lock;
  GCond       running_cond;
  guint       running;
};

G_DEFINE_FINAL_TYPE (PlAnalysisCache, pl_analysis_cache, G_TYPE_OBJECT)

struct _PlAnalysisJob
{
  char                   *key;
  PlAnalysisFunc          func;
  gpointer                input;
  GDestroyNotify          input_free;
  GCancellable           *cancellable;
  GMainContext           *context;
  PlAnalysisProgressFunc  progress;
  gpointer                progress_data;
  GValue                  result;

  /* Progress crosses threads: the worker writes it, an idle on the main
   * context reads it. At most one idle is pending. */
  GMutex                  lock;
  double                  fraction;
  gboolean                idle_pending;
  gboolean                finished;      /* main context only: no progress after the answer */
  gint                    ref_count;
};

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
  job->idle_pending = FALSE;
  g_mutex_unlock (&job->lock);

  if (!job->finished && !g_cancellable_is_cancelled (job->cancellable))
    job->progress (fraction, job->progress_data);
  return G_SOURCE_REMOVE;
}

void
pl_analysis_job_set_progress (PlAnalysisJob *job,
                              double         fraction)
{
  gboolean schedule;

  g_return_if_fail (job != NULL);

  if (job->progress == NULL)
    return;

  g_mutex_lock (&job->lock);
  job->fraction = fraction;
  schedule = !job->idle_pending;
  job->idle_pending = TRUE;
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

/* Analyses yield to the thread that draws: a worker runs at a lower priority
 * than the main loop, so a forward pass never makes the window stutter. */
static void
lower_thread_priority (void)
{
#if defined(__linux__) && defined(SYS_gettid)
  static GPrivate lowered;

  if (g_private_get (&lowered) == NULL)
    {
      setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), 10);
      g_private_set (&lowered, GINT_TO_POINTER (1));
    }
#endif
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  PlAnalysisCache *self = source_object;
  PlAnalysisJob *job = task_data;
  GError *error = NULL;
  gboolean ok;

  lower_thread_priority ();
  ok = !g_cancellable_set_error_if_cancelled (cancellable, &error) &&
       job->func (job, job->input, &job->result, &error);

  g_mutex_lock (&self->running_lock);
  self->running--;
  g_cond_broadcast (&self->running_cond);
  g_mutex_unlock (&self->running_lock);

  if (!ok)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!G_IS_VALUE (&job->result))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "the analysis “%s” gave no answer", job->key);
      return;
    }
  g_task_return_boolean (task, TRUE);
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
  g_autoptr(GTask) task = NULL;
  PlAnalysisJob *job;

  g_return_if_fail (PL_IS_ANALYSIS_CACHE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (func != NULL);

  job = g_new0 (PlAnalysisJob, 1);
  job->ref_count = 1;
  job->key = g_strdup (key);
  job->func = func;
  job->input = input;
  job->input_free = input_free;
  job->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  job->context = g_main_context_ref_thread_default ();
  job->progress = progress;
  job->progress_data = progress_data;
  g_mutex_init (&job->lock);

  task = g_task_new (self, job->cancellable, callback, user_data);
  g_task_set_source_tag (task, pl_analysis_cache_run_async);
  g_task_set_task_data (task, job, (GDestroyNotify) job_unref);
  /* A cancelled question answers at once; its worker stops when it next looks. */
  g_task_set_return_on_cancel (task, TRUE);

  if (g_hash_table_contains (self->answers, key))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_mutex_lock (&self->running_lock);
  self->running++;
  g_mutex_unlock (&self->running_lock);
  g_task_run_in_thread (task, run_thread);
}

gboolean
pl_analysis_cache_wait_idle (PlAnalysisCache *self,
                             guint            timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean idle;

  g_return_val_if_fail (PL_IS_ANALYSIS_CACHE (self), FALSE);

  g_mutex_lock (&self->running_lock);
  while (self->running > 0 && g_cond_wait_until (&self->running_cond, &self->running_lock, end))
    ;
  idle = self->running == 0;
  g_mutex_unlock (&self->running_lock);
  return idle;
}

const GValue *
pl_analysis_cache_run_finish (PlAnalysisCache  *self,
                              GAsyncResult     *result,
                              GError          **error)
{
  PlAnalysisJob *job;
  const GValue *answer;

  g_return_val_if_fail (PL_IS_ANALYSIS_CACHE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  job = g_task_get_task_data (G_TASK (result));
  job->finished = TRUE;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;

  if ((answer = g_hash_table_lookup (self->answers, job->key)))
    return answer;

  {
    GValue *kept = g_new0 (GValue, 1);

    g_value_init (kept, G_VALUE_TYPE (&job->result));
    g_value_copy (&job->result, kept);
    g_hash_table_insert (self->answers, g_strdup (job->key), kept);
    return kept;
  }
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

  g_clear_pointer (&self->answers, g_hash_table_unref);
  g_mutex_clear (&self->running_lock);
  g_cond_clear (&self->running_cond);
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
  self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_value);
  g_mutex_init (&self->running_lock);
  g_cond_init (&self->running_cond);
}
