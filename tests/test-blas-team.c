/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The thread team behind the Lanczos steps: every share of every job runs
 * exactly once, none after pl_blas_team_run has returned, whether the
 * helpers catch the next job while spinning (jobs back to back) or sleep
 * in between (jobs further apart than their spin). */
#include "config.h"

#include <glib.h>

#include "pl-blas-split.h"

#define MAX_SHARES 17

typedef struct
{
  guint    n_shares;
  gint     taken;
  gint     runs[MAX_SHARES];
  gint     closed;     /* set once the caller is back: no share may run after */
  gint     taken_then; /* TAKEN then: no helper may even enter the job after */
  GThread *caller;
  gint     side_runs;
} Job;

static gpointer
share_worker (gpointer data)
{
  Job *job = data;
  guint s;

  while ((s = (guint) g_atomic_int_add (&job->taken, 1)) < job->n_shares)
    {
      g_assert_false (g_atomic_int_get (&job->closed));
      g_atomic_int_inc (&job->runs[s]);
      /* Some shares take a while, so the helpers do get some. */
      if (s % 5 == 0)
        g_usleep (1);
    }
  return NULL;
}

static gpointer
side_worker (gpointer data)
{
  Job *job = data;

  g_assert_true (g_thread_self () == job->caller);
  g_atomic_int_inc (&job->side_runs);
  return NULL;
}

/* N_JOBS jobs on a team of N_THREADS, GAP_US apart; every other one with
 * a side task. */
static void
run_jobs (guint n_threads,
          guint n_jobs,
          guint gap_us)
{
  PlBlasTeam *team = pl_blas_team_new (n_threads);
  Job *jobs = g_new0 (Job, n_jobs);

  for (guint k = 0; k < n_jobs; k++)
    {
      Job *job = &jobs[k];

      job->n_shares = 1 + k % MAX_SHARES;
      job->caller = g_thread_self ();
      pl_blas_team_run_beside (team, share_worker, job, k % 2 ? side_worker : NULL, job);
      g_atomic_int_set (&job->closed, TRUE);
      job->taken_then = g_atomic_int_get (&job->taken);
      for (guint s = 0; s < job->n_shares; s++)
        g_assert_cmpint (g_atomic_int_get (&job->runs[s]), ==, 1);
      g_assert_cmpint (job->side_runs, ==, k % 2);
      if (gap_us > 0)
        g_usleep (gap_us);
    }
  pl_blas_team_free (team);
  /* The helpers are joined: one that entered a job after its caller was
   * back would have moved its counter. */
  for (guint k = 0; k < n_jobs; k++)
    {
      g_assert_cmpint (jobs[k].taken, ==, jobs[k].taken_then);
      for (guint s = 0; s < jobs[k].n_shares; s++)
        g_assert_cmpint (jobs[k].runs[s], ==, 1);
    }
  g_free (jobs);
}

static void
test_back_to_back (void)
{
  run_jobs (2, 20000, 0);
  run_jobs (4, 5000, 0);
}

static void
test_sleeping (void)
{
  /* Well past the helpers' spin, so each job wakes them from sleep. */
  run_jobs (2, 100, 2000);
}

static void
test_single (void)
{
  /* No helpers: the caller does it all. */
  run_jobs (1, 100, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/blas-team/back-to-back", test_back_to_back);
  g_test_add_func ("/blas-team/sleeping", test_sleeping);
  g_test_add_func ("/blas-team/single", test_single);
  return g_test_run ();
}
