/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-stored-gemm.h"

G_BEGIN_DECLS

/* OUT += X · Wᵀ on AMX tiles when W is BF16 tiles and the processor has them
 * (pl-stored-gemm-amx.c); FALSE, and OUT untouched, otherwise. */
gboolean pl_stored_gemm_amx (const PlMatrix       *x,
                             const PlStoredMatrix *w,
                             PlMatrix             *out);

G_END_DECLS
