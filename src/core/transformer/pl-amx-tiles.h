/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

/* The AMX tile configuration the tile kernels load (pl-stored-gemm-amx.c,
 * pl-linear-amx.c), each thread its own: palette 1, eight tiles of 16 rows
 * of 64 bytes. */
typedef struct
{
  guint8   palette;
  guint8   start_row;
  guint8   reserved[14];
  guint16  colsb[16];
  guint8   rows[16];
} PlAmxTileConfig;

/* Static and whole in memory: GCC's _tile_loadconfig tells the compiler it
 * reads only the first 8 bytes, so a configuration filled in on the stack
 * can lose its other stores. */
static const PlAmxTileConfig pl_amx_tile_config = {
  .palette = 1,
  .colsb = { 64, 64, 64, 64, 64, 64, 64, 64 },
  .rows = { 16, 16, 16, 16, 16, 16, 16, 16 },
};

#endif

/* The tile instructions the kernels use. Built with PL_AMX_EMULATED_TILES
 * (pl-*-amx-emulated-tiles.c), the kernels' own code runs on tiles
 * emulated in C (pl-amx-emulated-tiles.c: eight tiles a thread, TDPBF16PS
 * as pl_bf16_dot_step), so that the tests run their blocking, packing and
 * splitting on a processor with AVX-512 BF16 and no AMX. */
#ifdef PL_AMX_EMULATED_TILES
void pl_amx_emulated_zero     (int          tile);
void pl_amx_emulated_load     (int          tile,
                               const void  *base,
                               gsize        stride);
void pl_amx_emulated_store    (int          tile,
                               void        *base,
                               gsize        stride);
void pl_amx_emulated_dpbf16ps (int          c,
                               int          a,
                               int          b);
# define PL_TILE_ZERO(t)               pl_amx_emulated_zero (t)
# define PL_TILE_LOAD(t, base, stride) pl_amx_emulated_load (t, base, stride)
# define PL_TILE_STORE(t, base, stride) pl_amx_emulated_store (t, base, stride)
# define PL_TILE_DPBF16PS(c, a, b)     pl_amx_emulated_dpbf16ps (c, a, b)
# define PL_TILE_CONFIGURE()           ((void) 0)
# define PL_TILE_RELEASE()             ((void) 0)
# define PL_AMX_USABLE()               pl_cpu_has_avx512_bf16 ()
#else
# define PL_TILE_ZERO(t)               _tile_zero (t)
# define PL_TILE_LOAD(t, base, stride) _tile_loadd (t, base, stride)
# define PL_TILE_STORE(t, base, stride) _tile_stored (t, base, stride)
# define PL_TILE_DPBF16PS(c, a, b)     _tile_dpbf16ps (c, a, b)
# define PL_TILE_CONFIGURE()           _tile_loadconfig (&pl_amx_tile_config)
# define PL_TILE_RELEASE()             _tile_release ()
# define PL_AMX_USABLE()               pl_cpu_has_amx_bf16 ()
#endif

G_END_DECLS
