/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-blas.h"
#include "pl-blas-split.h"

void
pl_blas_run_split (guint       n_threads,
                   GThreadFunc func,
                   gpointer    data)
{
  GThread *threads[15];

  n_threads = CLAMP (n_threads, 1, G_N_ELEMENTS (threads) + 1);
  if (n_threads == 1)
    {
      func (data);
      return;
    }
  pl_blas_begin_single ();
  for (guint t = 1; t < n_threads; t++)
    threads[t - 1] = g_thread_new ("pl-blas-split", func, data);
  func (data);
  for (guint t = 1; t < n_threads; t++)
    g_thread_join (threads[t - 1]);
  pl_blas_end_single ();
}

/* A team's helpers join a job only while it is open: a helper woken late,
 * on a busy machine, finds the job closed (the caller took every share
 * itself) and goes back to sleep, and the caller waits only for helpers
 * that are running the job. FUNC must take its shares from a counter.
 *
 * Jobs that follow each other closely (the phases of a Lanczos step, tens
 * of microseconds apart) would pay a futex wake each, as long as the job
 * itself: helpers and the caller therefore watch the counters for a while
 * (SPIN_US) before they sleep. The lock still decides who joins. */
#define SPIN_US 200

struct _PlBlasTeam
{
  GMutex       lock;
  GCond        cond;
  GThread     *threads[15];
  guint        n_helpers;
  gint         generation;   /* bumped for each job; atomic reads */
  gboolean     open;         /* the current job still takes helpers */
  gint         n_running;    /* helpers inside the current job; atomic reads */
  guint        n_sleeping;   /* helpers (or the caller) in g_cond_wait */
  gboolean     quit;
  GThreadFunc  func;
  gpointer     data;
};

/* Waits, without the lock, until *VALUE differs from NOT (or equals IS,
 * if IS >= 0) or SPIN_US pass; TRUE if it did. */
static gboolean
spin_until (const gint *value,
            gint        not,
            gint        is)
{
  gint64 end = g_get_monotonic_time () + SPIN_US;

  for (guint i = 0;; i++)
    {
      gint v = g_atomic_int_get (value);

      if (is >= 0 ? v == is : v != not)
        return TRUE;
      if (i % 64 == 63 && g_get_monotonic_time () > end)
        return FALSE;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause ();
#endif
    }
}

static gpointer
team_helper (gpointer user_data)
{
  PlBlasTeam *team = user_data;
  gint seen = 0;

  g_mutex_lock (&team->lock);
  for (;;)
    {
      while (team->generation == seen && !team->quit)
        {
          g_mutex_unlock (&team->lock);
          spin_until (&team->generation, seen, -1);
          g_mutex_lock (&team->lock);
          if (team->generation == seen && !team->quit)
            {
              team->n_sleeping++;
              g_cond_wait (&team->cond, &team->lock);
              team->n_sleeping--;
            }
        }
      if (team->quit)
        break;
      seen = team->generation;
      if (!team->open)
        continue;
      g_atomic_int_inc (&team->n_running);
      g_mutex_unlock (&team->lock);
      team->func (team->data);
      g_mutex_lock (&team->lock);
      if (g_atomic_int_dec_and_test (&team->n_running) && team->n_sleeping > 0)
        g_cond_broadcast (&team->cond);
    }
  g_mutex_unlock (&team->lock);
  return NULL;
}

PlBlasTeam *
pl_blas_team_new (guint n_threads)
{
  PlBlasTeam *team = g_new0 (PlBlasTeam, 1);

  g_mutex_init (&team->lock);
  g_cond_init (&team->cond);
  team->n_helpers = CLAMP (n_threads, 1, G_N_ELEMENTS (team->threads) + 1) - 1;
  pl_blas_begin_single ();
  for (guint t = 0; t < team->n_helpers; t++)
    team->threads[t] = g_thread_new ("pl-blas-team", team_helper, team);
  return team;
}

void
pl_blas_team_run (PlBlasTeam  *team,
                  GThreadFunc  func,
                  gpointer     data)
{
  pl_blas_team_run_beside (team, func, data, NULL, NULL);
}

void
pl_blas_team_run_beside (PlBlasTeam  *team,
                         GThreadFunc  func,
                         gpointer     data,
                         GThreadFunc  side,
                         gpointer     side_data)
{
  g_mutex_lock (&team->lock);
  team->func = func;
  team->data = data;
  team->open = TRUE;
  g_atomic_int_inc (&team->generation);
  if (team->n_sleeping > 0)
    g_cond_broadcast (&team->cond);
  g_mutex_unlock (&team->lock);

  if (side != NULL)
    side (side_data);
  func (data);

  g_mutex_lock (&team->lock);
  team->open = FALSE;
  while (team->n_running > 0)
    {
      g_mutex_unlock (&team->lock);
      spin_until (&team->n_running, 0, 0);
      g_mutex_lock (&team->lock);
      if (team->n_running > 0)
        {
          team->n_sleeping++;
          g_cond_wait (&team->cond, &team->lock);
          team->n_sleeping--;
        }
    }
  g_mutex_unlock (&team->lock);
}

void
pl_blas_team_free (PlBlasTeam *team)
{
  g_mutex_lock (&team->lock);
  team->quit = TRUE;
  g_cond_broadcast (&team->cond);
  g_mutex_unlock (&team->lock);
  for (guint t = 0; t < team->n_helpers; t++)
    g_thread_join (team->threads[t]);
  pl_blas_end_single ();
  g_mutex_clear (&team->lock);
  g_cond_clear (&team->cond);
  g_free (team);
}
