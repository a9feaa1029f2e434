/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>

#include "pl-blas.h"

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
