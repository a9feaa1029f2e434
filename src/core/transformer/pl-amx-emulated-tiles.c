/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#define PL_AMX_EMULATED_TILES 1
#include "pl-amx-tiles.h"
#include "pl-kernel-emulation.h"

/* The eight tile registers of palette 1 (16 rows of 64 bytes), each thread
 * its own as the hardware's are, and the instructions the kernels use on
 * them. TDPBF16PS as Intel's SDM defines it: for each row m of C, each
 * pair k of A's row and each column n, C[m][n] += A[m][2k]·B[k][2n], then
 * += A[m][2k + 1]·B[k][2n + 1] (pl_bf16_dot_step: float32 FMA, denormals
 * read as zero and flushed). */

typedef union
{
  guint8  bytes[16][64];
  float   f32[16][16];
  guint16 bf16[16][32];
} Tile;

static __thread Tile tiles[8];

void
pl_amx_emulated_zero (int tile)
{
  memset (&tiles[tile], 0, sizeof (Tile));
}

void
pl_amx_emulated_load (int         tile,
                      const void *base,
                      gsize       stride)
{
  for (guint r = 0; r < 16; r++)
    memcpy (tiles[tile].bytes[r], (const guint8 *) base + r * stride, 64);
}

void
pl_amx_emulated_store (int    tile,
                       void  *base,
                       gsize  stride)
{
  for (guint r = 0; r < 16; r++)
    memcpy ((guint8 *) base + r * stride, tiles[tile].bytes[r], 64);
}

void
pl_amx_emulated_dpbf16ps (int c,
                          int a,
                          int b)
{
  Tile *tc = &tiles[c];
  const Tile *ta = &tiles[a], *tb = &tiles[b];

  for (guint m = 0; m < 16; m++)
    for (guint k = 0; k < 16; k++)
      for (guint n = 0; n < 16; n++)
        {
          float acc = pl_bf16_dot_step (tc->f32[m][n], ta->bf16[m][2 * k], tb->bf16[k][2 * n]);

          tc->f32[m][n] = pl_bf16_dot_step (acc, ta->bf16[m][2 * k + 1], tb->bf16[k][2 * n + 1]);
        }
}
