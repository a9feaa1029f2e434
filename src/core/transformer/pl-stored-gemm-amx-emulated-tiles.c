/* SPDX-License-Identifier: GPL-3.0-or-later */

/* pl-stored-gemm-amx.c built again on tiles emulated in C (pl-amx-tiles.h),
 * under a name of its own, for the tests (pl-kernel-emulation.h). */
#define PL_AMX_EMULATED_TILES 1
#define pl_stored_gemm_amx pl_stored_gemm_amx_on_emulated_tiles
#include "pl-stored-gemm-amx.c"
