/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How many threads one BLAS call may use. */
int  pl_blas_get_threads (void);
void pl_blas_set_threads (int n_threads);

G_END_DECLS
