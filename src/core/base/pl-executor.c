/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <time.h>

#include "pl-executor.h"

/* One GThreadPool of dedicated threads holds two kinds of items: tasks
 * (questions, newest first) and pieces of split work, which go before any
 * task so that a running question gets the threads it can use before a new
 * one starts. A piece that starts after its split work is over returns at
 * once. */

typedef struct
{
  GThreadFunc func;
  gpointer    data;
  GMutex      lock;
  GCond       done;
  gboolean    open;        /* the caller still takes helpers */
  guint       n_running;   /* helpers inside FUNC */
  gint64      cpu_ns;      /* the helpers' processor time */
  gint        ref_count;
} Split;

typedef struct
{
  guint            order;   /* tasks: later ones are larger */
  GTask           *task;
  GTaskThreadFunc  func;
  Split           *split;   /* or a piece of split work */
} Item;

struct _PlExecutor
{
  GObject      parent_instance;
  GThreadPool *pool;
  guint        n_threads;
  gint         next_order;   /* atomic */
  gint         n_running;    /* atomic */
  GMutex       tasks_lock;
  GCond        tasks_done;
  guint        n_tasks;      /* queued or running */
  GMutex       cpu_lock;
  gint64       cpu_total_ns;
  gint64       cpu_cancelled_ns;
};

G_DEFINE_FINAL_TYPE (PlExecutor, pl_executor, G_TYPE_OBJECT)

/* The CPU time of the task running on this thread, for the pieces it splits off. */
static GPrivate current_cpu_ns;

static gint64
thread_cpu_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (gint64) t.tv_sec * G_GINT64_CONSTANT (1000000000) + t.tv_nsec;
}

static void
split_unref (Split *split)
{
  if (!g_atomic_int_dec_and_test (&split->ref_count))
    return;
  g_mutex_clear (&split->lock);
  g_cond_clear (&split->done);
  g_free (split);
}

static void
run_piece (Split *split)
{
  gint64 start;

  g_mutex_lock (&split->lock);
  if (!split->open)
    {
      g_mutex_unlock (&split->lock);
      return;
    }
  split->n_running++;
  g_mutex_unlock (&split->lock);

  start = thread_cpu_ns ();
  split->func (split->data);

  g_mutex_lock (&split->lock);
  split->cpu_ns += thread_cpu_ns () - start;
  if (--split->n_running == 0)
    g_cond_signal (&split->done);
  g_mutex_unlock (&split->lock);
}

static void
run_task (PlExecutor *self,
          Item       *item)
{
  GCancellable *cancellable = g_task_get_cancellable (item->task);
  gint64 cpu_ns = 0, start;

  /* Helpers add their time to CPU_NS through pl_executor_split. */

  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (item->task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      return;
    }
  g_atomic_int_inc (&self->n_running);
  g_private_set (&current_cpu_ns, &cpu_ns);
  start = thread_cpu_ns ();
  item->func (item->task, g_task_get_source_object (item->task), g_task_get_task_data (item->task), cancellable);
  cpu_ns += thread_cpu_ns () - start;
  g_private_set (&current_cpu_ns, NULL);

  g_mutex_lock (&self->cpu_lock);
  self->cpu_total_ns += cpu_ns;
  if (g_cancellable_is_cancelled (cancellable))
    self->cpu_cancelled_ns += cpu_ns;
  g_mutex_unlock (&self->cpu_lock);
  g_atomic_int_add (&self->n_running, -1);
}

static void
worker (gpointer data,
        gpointer user_data)
{
  Item *item = data;

  if (item->split != NULL)
    {
      run_piece (item->split);
      split_unref (item->split);
    }
  else
    {
      PlExecutor *self = user_data;

      run_task (self, item);
      g_object_unref (item->task);
      g_mutex_lock (&self->tasks_lock);
      if (--self->n_tasks == 0)
        g_cond_broadcast (&self->tasks_done);
      g_mutex_unlock (&self->tasks_lock);
    }
  g_free (item);
}

/* Pieces of split work first, then the newest task. */
static int
compare_items (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const Item *p = a, *q = b;

  if ((p->split != NULL) != (q->split != NULL))
    return p->split != NULL ? -1 : 1;
  return p->order > q->order ? -1 : p->order < q->order;
}

PlExecutor *
pl_executor_new (guint n_threads)
{
  PlExecutor *self = g_object_new (PL_TYPE_EXECUTOR, NULL);
  g_autoptr(GError) error = NULL;

  self->n_threads = CLAMP (n_threads, 1, 64);
  self->pool = g_thread_pool_new (worker, self, (int) self->n_threads, TRUE, &error);
  if (self->pool == NULL)
    g_error ("cannot start %u threads: %s", self->n_threads, error->message);
  g_thread_pool_set_sort_function (self->pool, compare_items, NULL);
  return self;
}

PlExecutor *
pl_executor_get_default (void)
{
  static PlExecutor *executor;

  if (g_once_init_enter (&executor))
    {
      /* OpenBLAS reads OPENBLAS_NUM_THREADS, or counts the processors, when
       * it loads; from here on its calls run on the thread that makes them
       * and the executor's threads are the ones that compute. */
      int n = openblas_get_num_threads ();

      openblas_set_num_threads (1);
      g_once_init_leave (&executor, pl_executor_new ((guint) MAX (n, 1)));
    }
  return executor;
}

guint
pl_executor_get_n_threads (PlExecutor *self)
{
  g_return_val_if_fail (PL_IS_EXECUTOR (self), 1);
  return self->n_threads;
}

void
pl_executor_run_task (PlExecutor      *self,
                      GTask           *task,
                      GTaskThreadFunc  func)
{
  Item *item;

  g_return_if_fail (PL_IS_EXECUTOR (self));
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (func != NULL);

  item = g_new0 (Item, 1);
  item->order = (guint) g_atomic_int_add (&self->next_order, 1) + 1;
  item->task = g_object_ref (task);
  item->func = func;
  g_mutex_lock (&self->tasks_lock);
  self->n_tasks++;
  g_mutex_unlock (&self->tasks_lock);
  g_thread_pool_push (self->pool, item, NULL);
}

void
pl_executor_wait_idle (PlExecutor *self)
{
  g_return_if_fail (PL_IS_EXECUTOR (self));

  g_mutex_lock (&self->tasks_lock);
  while (self->n_tasks > 0)
    g_cond_wait (&self->tasks_done, &self->tasks_lock);
  g_mutex_unlock (&self->tasks_lock);
}

void
pl_executor_split (PlExecutor  *self,
                   guint        n_threads,
                   GThreadFunc  func,
                   gpointer     data)
{
  Split *split;
  gint64 *task_cpu_ns;

  g_return_if_fail (PL_IS_EXECUTOR (self));
  g_return_if_fail (func != NULL);

  n_threads = MIN (n_threads, self->n_threads);
  if (n_threads <= 1)
    {
      func (data);
      return;
    }

  split = g_new0 (Split, 1);
  split->func = func;
  split->data = data;
  split->open = TRUE;
  split->ref_count = 1;
  g_mutex_init (&split->lock);
  g_cond_init (&split->done);
  for (guint t = 1; t < n_threads; t++)
    {
      Item *item = g_new0 (Item, 1);

      item->split = split;
      g_atomic_int_inc (&split->ref_count);
      g_thread_pool_push (self->pool, item, NULL);
    }

  func (data);

  g_mutex_lock (&split->lock);
  split->open = FALSE;
  while (split->n_running > 0)
    g_cond_wait (&split->done, &split->lock);
  g_mutex_unlock (&split->lock);
  /* The caller's own share is on its thread's clock; the helpers' is added
   * to its task's, when it is one. */
  if ((task_cpu_ns = g_private_get (&current_cpu_ns)) != NULL)
    *task_cpu_ns += split->cpu_ns;
  split_unref (split);
}

typedef struct
{
  PlPieceFunc func;
  gpointer    data;
  guint       n_pieces;
  gint        next;   /* atomic: the next piece to take */
  gint        slot;   /* atomic: the next thread's slot */
} ForJob;

static gpointer
for_worker (gpointer data)
{
  ForJob *job = data;
  guint slot = (guint) g_atomic_int_add (&job->slot, 1);
  guint piece;

  while ((piece = (guint) g_atomic_int_add (&job->next, 1)) < job->n_pieces)
    job->func (piece, slot, job->data);
  return NULL;
}

void
pl_executor_for (PlExecutor  *self,
                 guint        n_pieces,
                 PlPieceFunc  func,
                 gpointer     data)
{
  ForJob job = { func, data, n_pieces, 0, 0 };

  g_return_if_fail (PL_IS_EXECUTOR (self));
  g_return_if_fail (func != NULL);

  pl_executor_split (self, n_pieces, for_worker, &job);
}

guint
pl_executor_get_n_running (PlExecutor *self)
{
  g_return_val_if_fail (PL_IS_EXECUTOR (self), 0);
  return (guint) g_atomic_int_get (&self->n_running);
}

void
pl_executor_get_cpu_time (PlExecutor *self,
                          double     *total,
                          double     *cancelled)
{
  g_return_if_fail (PL_IS_EXECUTOR (self));

  g_mutex_lock (&self->cpu_lock);
  *total = self->cpu_total_ns / 1e9;
  *cancelled = self->cpu_cancelled_ns / 1e9;
  g_mutex_unlock (&self->cpu_lock);
}

static void
pl_executor_finalize (GObject *object)
{
  PlExecutor *self = PL_EXECUTOR (object);

  /* Whatever was queued still runs (its owners have cancelled it by now). */
  g_thread_pool_free (self->pool, FALSE, TRUE);
  g_mutex_clear (&self->tasks_lock);
  g_cond_clear (&self->tasks_done);
  g_mutex_clear (&self->cpu_lock);
  G_OBJECT_CLASS (pl_executor_parent_class)->finalize (object);
}

static void
pl_executor_class_init (PlExecutorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pl_executor_finalize;
}

static void
pl_executor_init (PlExecutor *self)
{
  g_mutex_init (&self->tasks_lock);
  g_cond_init (&self->tasks_done);
  g_mutex_init (&self->cpu_lock);
}
