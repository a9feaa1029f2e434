/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The executor: tasks the newest first and at most one per thread, a task
 * cancelled in the queue never runs, waiting for idle waits for every task,
 * split work done exactly once however many threads join, and processor
 * time counted per task. */
#include "config.h"

#include <gio/gio.h>
#include <time.h>
#include <unistd.h>

#include "pl-executor.h"
#include "pl-test-util.h"

/* ---- Tasks ----------------------------------------------------------------- */

typedef struct
{
  GMutex   lock;
  GCond    cond;        /* the gate opened, or a task arrived at it */
  gboolean open;        /* the gate every task waits at */
  GArray  *order;       /* task numbers, as they ran */
  guint    running;
  guint    most_running;
  guint    done;
} Tasks;

static void
gate_task (GTask        *task,
           gpointer      source,
           gpointer      data,
           GCancellable *cancellable)
{
  Tasks *t = g_object_get_data (G_OBJECT (task), "tasks");
  guint number = GPOINTER_TO_UINT (data);

  g_mutex_lock (&t->lock);
  g_array_append_val (t->order, number);
  t->running++;
  t->most_running = MAX (t->most_running, t->running);
  g_cond_broadcast (&t->cond);
  while (!t->open)
    g_cond_wait (&t->cond, &t->lock);
  t->running--;
  g_mutex_unlock (&t->lock);
  g_task_return_boolean (task, TRUE);
}

static void
task_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Tasks *t = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  t->done++;
}

static void
push (PlExecutor   *executor,
      Tasks        *t,
      guint         number,
      GCancellable *cancellable)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, task_done, t);

  g_object_set_data (G_OBJECT (task), "tasks", t);
  g_task_set_task_data (task, GUINT_TO_POINTER (number), NULL);
  pl_executor_run_task (executor, task, gate_task);
}

/* Blocks until N tasks wait at the closed gate. */
static void
wait_at_gate (Tasks *t,
              guint  n)
{
  g_mutex_lock (&t->lock);
  while (t->running < n)
    g_cond_wait (&t->cond, &t->lock);
  g_mutex_unlock (&t->lock);
}

static void
open_gate (Tasks *t)
{
  g_mutex_lock (&t->lock);
  t->open = TRUE;
  g_cond_broadcast (&t->cond);
  g_mutex_unlock (&t->lock);
}

static void
wait_done (Tasks *t,
           guint  n)
{
  while (t->done < n)
    g_main_context_iteration (NULL, TRUE);
}

/* One thread: task 0 holds it while 1, 2, 3 queue; 2 is cancelled in the
 * queue. Then 3 runs before 1, and 2 never runs. */
static void
test_newest_first (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (1);
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  Tasks t = { .order = g_array_new (FALSE, FALSE, sizeof (guint)) };

  push (executor, &t, 0, NULL);
  wait_at_gate (&t, 1);
  push (executor, &t, 1, NULL);
  push (executor, &t, 2, cancelled);
  push (executor, &t, 3, NULL);
  g_cancellable_cancel (cancelled);
  open_gate (&t);
  wait_done (&t, 4);

  g_assert_cmpuint (t.order->len, ==, 3);
  g_assert_cmpuint (g_array_index (t.order, guint, 0), ==, 0);
  g_assert_cmpuint (g_array_index (t.order, guint, 1), ==, 3);
  g_assert_cmpuint (g_array_index (t.order, guint, 2), ==, 1);
  g_array_unref (t.order);
}

static gpointer
open_gate_once_held (gpointer data)
{
  Tasks *t = data;

  wait_at_gate (t, 1);
  open_gate (t);
  return NULL;
}

/* Waiting for the executor to be idle returns once the running task and
 * the queued ones have all ended, none left half done: the first task
 * holds the only thread at the gate until another thread opens it. */
static void
test_wait_idle (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (1);
  Tasks t = { .order = g_array_new (FALSE, FALSE, sizeof (guint)) };
  GThread *opener;

  for (guint i = 0; i < 3; i++)
    push (executor, &t, i, NULL);
  opener = g_thread_new ("open-gate", open_gate_once_held, &t);
  pl_executor_wait_idle (executor);
  g_mutex_lock (&t.lock);
  g_assert_cmpuint (t.order->len, ==, 3);
  g_assert_cmpuint (t.running, ==, 0);
  g_mutex_unlock (&t.lock);
  g_assert_cmpuint (pl_executor_get_n_running (executor), ==, 0);
  g_thread_join (opener);
  wait_done (&t, 3);
  g_array_unref (t.order);
}

/* Eight tasks on three threads: three run at once (the gate opens when
 * three wait at it), never more, and all run. */
static void
test_bounded (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (3);
  Tasks t = { .order = g_array_new (FALSE, FALSE, sizeof (guint)) };

  for (guint i = 0; i < 8; i++)
    push (executor, &t, i, NULL);
  wait_at_gate (&t, 3);
  open_gate (&t);
  wait_done (&t, 8);
  g_assert_cmpuint (t.order->len, ==, 8);
  g_assert_cmpuint (t.most_running, ==, 3);
  g_array_unref (t.order);
}

/* ---- Split work ------------------------------------------------------------ */

#define N_SHARES 37

typedef struct
{
  gint      taken;
  gint      runs[N_SHARES];
  gint      closed;       /* set once the caller is back: no share may run after */
  gint      threads;      /* how many threads took a share */
  gboolean  wait_for_help;
} Shares;

static gpointer
share_worker (gpointer data)
{
  Shares *job = data;
  gboolean took = FALSE;
  guint s;

  while ((s = (guint) g_atomic_int_add (&job->taken, 1)) < N_SHARES)
    {
      g_assert_false (g_atomic_int_get (&job->closed));
      g_atomic_int_inc (&job->runs[s]);
      took = TRUE;
      /* The thread with the first share holds it until another thread
       * takes one: free helpers do join. */
      if (s == 0 && job->wait_for_help)
        while (g_atomic_int_get (&job->taken) < 2)
          g_thread_yield ();
    }
  if (took)
    g_atomic_int_inc (&job->threads);
  return NULL;
}

/* With WAIT_FOR_HELP, a helper must join (free threads only). */
static void
run_shares (PlExecutor *executor,
            guint       n_threads,
            gboolean    wait_for_help,
            Shares     *job)
{
  *job = (Shares) { .wait_for_help = wait_for_help };
  pl_executor_split (executor, n_threads, share_worker, job);
  g_atomic_int_set (&job->closed, 1);
  for (guint s = 0; s < N_SHARES; s++)
    g_assert_cmpint (job->runs[s], ==, 1);
}

/* Every share runs once, alone or with free threads' help; jobs back to
 * back, so that a late helper of one finds it closed, not the next one's
 * shares. Unreffing the executor waits for the last late helpers. */
static void
test_split (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (4);
  Shares job;

  /* A hang guard only: a helper that never joins. */
  alarm (60);
  for (guint k = 0; k < 12; k++)
    {
      guint n_threads = 1 + k % 4;

      run_shares (executor, n_threads, n_threads > 1, &job);
      g_assert_cmpint (job.threads, >=, n_threads > 1 ? 2 : 1);
    }
  alarm (0);
}

typedef struct
{
  PlExecutor *executor;
  Shares      shares;
} SplitInTask;

static void
split_task (GTask        *task,
            gpointer      source,
            gpointer      data,
            GCancellable *cancellable)
{
  SplitInTask *s = data;

  run_shares (s->executor, 2, FALSE, &s->shares);
  g_task_return_boolean (task, TRUE);
}

static void
count_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_assert_true (g_task_propagate_boolean (G_TASK (result), NULL));
  (*(guint *) user_data)++;
}

/* Split work from tasks that hold every thread: no helper can start, and
 * each task does its work alone instead of waiting for one. */
static void
test_split_when_busy (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (2);
  SplitInTask jobs[6];
  guint done = 0;

  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, count_done, &done);

      jobs[i].executor = executor;
      g_task_set_task_data (task, &jobs[i], NULL);
      pl_executor_run_task (executor, task, split_task);
    }
  while (done < G_N_ELEMENTS (jobs))
    g_main_context_iteration (NULL, TRUE);
}

typedef struct
{
  gint runs[N_SHARES];
  gint slot_used[4];
} ForPieces;

static void
for_piece (guint    piece,
           guint    slot,
           gpointer data)
{
  ForPieces *job = data;

  g_assert_cmpuint (slot, <, 4);
  g_atomic_int_inc (&job->runs[piece]);
  g_atomic_int_set (&job->slot_used[slot], 1);
}

/* pl_executor_for: every piece once, each thread with a slot of its own
 * below the executor's thread count. */
static void
test_for (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (4);

  for (guint k = 0; k < 20; k++)
    {
      ForPieces job = { 0 };

      pl_executor_for (executor, N_SHARES - k, for_piece, &job);
      for (guint p = 0; p < N_SHARES; p++)
        g_assert_cmpint (job.runs[p], ==, p < N_SHARES - k ? 1 : 0);
      g_assert_true (job.slot_used[0]);
    }
}

/* ---- Processor time -------------------------------------------------------- */

static gpointer
spin_worker (gpointer data)
{
  gint *left = data;

  while (g_atomic_int_add (left, -1) > 0)
    {
      struct timespec t;
      gint64 start, now;
      volatile guint x = 0;

      /* 2 ms of this thread's processor time, however busy the machine. */
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
      start = t.tv_sec * G_GINT64_CONSTANT (1000000000) + t.tv_nsec;
      do
        {
          for (guint i = 0; i < 1000; i++)
            x++;
          clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
          now = t.tv_sec * G_GINT64_CONSTANT (1000000000) + t.tv_nsec;
        }
      while (now - start < 2000000);
    }
  return NULL;
}

static void
spin_task (GTask        *task,
           gpointer      source,
           gpointer      data,
           GCancellable *cancellable)
{
  gint left = 20;   /* 40 ms of work, split */

  /* The second task is superseded while it works, and works on. */
  if (cancellable != NULL)
    g_cancellable_cancel (cancellable);
  pl_executor_split (source, 2, spin_worker, &left);
  g_task_return_boolean (task, TRUE);
}

/* A task's time, its helpers' included, counts as cancelled when its
 * cancellable was cancelled before it ended. */
static void
test_cpu_time (void)
{
  g_autoptr(PlExecutor) executor = pl_executor_new (2);
  double total, cancelled;
  guint done = 0;

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GCancellable) cancellable = i ? g_cancellable_new () : NULL;
      g_autoptr(GTask) task = g_task_new (executor, cancellable, count_done, &done);

      g_task_set_check_cancellable (task, FALSE);
      pl_executor_run_task (executor, task, spin_task);
      while (done < i + 1)
        g_main_context_iteration (NULL, TRUE);
    }
  /* A task's time is counted before it ends. */
  pl_executor_wait_idle (executor);
  pl_executor_get_cpu_time (executor, &total, &cancelled);
  g_test_message ("total %.3f s, cancelled %.3f s", total, cancelled);
  g_assert_cmpfloat (total, >=, 0.075);
  g_assert_cmpfloat (cancelled, >=, 0.035);
  g_assert_cmpfloat (cancelled, <=, total - 0.035);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/executor/newest-first", test_newest_first);
  g_test_add_func ("/pl/executor/bounded", test_bounded);
  g_test_add_func ("/pl/executor/wait-idle", test_wait_idle);
  g_test_add_func ("/pl/executor/split", test_split);
  g_test_add_func ("/pl/executor/split-when-busy", test_split_when_busy);
  g_test_add_func ("/pl/executor/for", test_for);
  g_test_add_func ("/pl/executor/cpu-time", test_cpu_time);
  return g_test_run ();
}
