/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-random.h"

/* MT19937's constants (Matsumoto and Nishimura 1998). */
#define N_WORDS     PL_RANDOM_STATE_WORDS
#define M_OFFSET    397
#define MATRIX_A    0x9908b0dfu
#define UPPER_MASK  0x80000000u
#define LOWER_MASK  0x7fffffffu

void
pl_random_init (PlRandom *self,
                guint32   seed)
{
  g_return_if_fail (self != NULL);

  self->state[0] = seed;
  for (guint i = 1; i < N_WORDS; i++)
    self->state[i] = 1812433253u * (self->state[i - 1] ^ (self->state[i - 1] >> 30)) + i;
  self->next = N_WORDS;
}

/* The next N_WORDS words of the state at once. */
static void
regenerate (PlRandom *self)
{
  guint32 *mt = self->state;

  for (guint k = 0; k < N_WORDS; k++)
    {
      guint32 y = (mt[k] & UPPER_MASK) | (mt[(k + 1) % N_WORDS] & LOWER_MASK);

      mt[k] = mt[(k + M_OFFSET) % N_WORDS] ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
    }
  self->next = 0;
}

guint32
pl_random_next (PlRandom *self)
{
  guint32 y;

  if (self->next >= N_WORDS)
    regenerate (self);
  y = self->state[self->next++];
  /* Tempering. */
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

guint32
pl_random_interval (PlRandom *self,
                    guint32   max)
{
  guint32 mask = max, value;

  if (max == 0)
    return 0;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  do
    value = pl_random_next (self) & mask;
  while (value > max);
  return value;
}

void
pl_random_permutation (PlRandom *self,
                       guint32  *perm,
                       gsize     n)
{
  g_return_if_fail (self != NULL && (perm != NULL || n == 0));
  g_return_if_fail (n <= G_MAXUINT32);

  for (gsize i = 0; i < n; i++)
    perm[i] = (guint32) i;
  for (gsize i = n > 0 ? n - 1 : 0; i > 0; i--)
    {
      guint32 j = pl_random_interval (self, (guint32) i);
      guint32 t = perm[i];

      perm[i] = perm[j];
      perm[j] = t;
    }
}
