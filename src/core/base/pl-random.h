/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The Mersenne Twister MT19937 seeded as numpy's legacy generator seeds it
 * (np.random.seed(SEED): Matsumoto and Nishimura's init_genrand), and its
 * permutation drawn as numpy's, so that a seed here is the same draw as
 * np.random.seed(seed) there: pl_random_permutation (r, perm, n) right after
 * pl_random_init (r, s) equals np.random.seed(s); np.random.permutation(n).
 * That is the generator the probes' random protocols use, so PE-Study's own
 * code, seeded, draws what Poslens draws. */

#define PL_RANDOM_STATE_WORDS 624

typedef struct
{
  guint32 state[PL_RANDOM_STATE_WORDS];
  guint   next;
} PlRandom;

void    pl_random_init        (PlRandom *self,
                               guint32   seed);
/* The next 32 bits of the stream (numpy's next_uint32). */
guint32 pl_random_next        (PlRandom *self);
/* Uniform in 0 … MAX (both included): 32-bit draws masked to MAX's bit
 * width, the ones above MAX rejected (numpy's random_interval). */
guint32 pl_random_interval    (PlRandom *self,
                               guint32   max);
/* PERM = a random permutation of 0 … N − 1: Fisher–Yates from the last
 * element down, swapping element i with pl_random_interval (i), as numpy's
 * RandomState.shuffle of np.arange (n). N < 2³². */
void    pl_random_permutation (PlRandom *self,
                               guint32  *perm,
                               gsize     n);

G_END_DECLS
