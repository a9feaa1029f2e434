/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>

#include "pl-blas.h"

/* OpenBLAS's thread count is one global: single-threaded sections are
 * counted so that overlapping ones restore it only once, at the end. */
static GMutex single_lock;
static guint  single_depth;
static int    single_saved;

int
pl_blas_get_threads (void)
{
  return openblas_get_num_threads ();
}

void
pl_blas_set_threads (int n_threads)
{
  openblas_set_num_threads (MAX (n_threads, 1));
}

void
pl_blas_begin_single (void)
{
  g_mutex_lock (&single_lock);
  if (single_depth++ == 0)
    {
      single_saved = openblas_get_num_threads ();
      openblas_set_num_threads (1);
    }
  g_mutex_unlock (&single_lock);
}

void
pl_blas_end_single (void)
{
  g_mutex_lock (&single_lock);
  g_assert (single_depth > 0);
  if (--single_depth == 0)
    openblas_set_num_threads (single_saved);
  g_mutex_unlock (&single_lock);
}

guint
pl_blas_split_threads (void)
{
  return (guint) CLAMP (openblas_get_num_threads (), 1, (int) g_get_num_processors ());
}

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
