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

G_END_DECLS
