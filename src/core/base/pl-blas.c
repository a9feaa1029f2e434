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
  int n;

  /* Inside a single-threaded section the user's setting is the saved one. */
  g_mutex_lock (&single_lock);
  n = single_depth > 0 ? single_saved : openblas_get_num_threads ();
  g_mutex_unlock (&single_lock);
  return (guint) CLAMP (n, 1, (int) g_get_num_processors ());
}
