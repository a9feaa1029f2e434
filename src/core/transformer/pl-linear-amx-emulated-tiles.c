/* SPDX-License-Identifier: GPL-3.0-or-later */

/* pl-linear-amx.c built again on tiles emulated in C (pl-amx-tiles.h),
 * under names of its own, for the tests (pl-kernel-emulation.h). */
#define PL_AMX_EMULATED_TILES 1
#define pl_linear_tiles_new pl_linear_tiles_new_on_emulated_tiles
#define pl_linear_amx pl_linear_amx_on_emulated_tiles
#include "pl-linear-amx.c"
