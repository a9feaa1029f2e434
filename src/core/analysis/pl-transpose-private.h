/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* An 8×8 block of floats transposed in AVX registers, for the PCA's mirror
 * of its symmetric cross-product (pl-pca-lanczos): both sides of the copy
 * then move whole 32-byte rows. The caller checks for AVX2 at run time and
 * has a scalar path. */
#if defined(__x86_64__) && defined(__GNUC__)
# include <immintrin.h>
# define PL_HAVE_TRANSPOSE8 1

/* OUT[k] is column k of the rows R[0..7]. */
__attribute__ ((target ("avx2")))
static inline void
pl_transpose8 (const __m256 r[8],
               __m256       out[8])
{
  __m256 t[8], u[8];

  for (unsigned k = 0; k < 8; k += 2)
    {
      t[k] = _mm256_unpacklo_ps (r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps (r[k], r[k + 1]);
    }
  for (unsigned k = 0; k < 8; k += 4)
    {
      u[k] = _mm256_shuffle_ps (t[k], t[k + 2], _MM_SHUFFLE (1, 0, 1, 0));
      u[k + 1] = _mm256_shuffle_ps (t[k], t[k + 2], _MM_SHUFFLE (3, 2, 3, 2));
      u[k + 2] = _mm256_shuffle_ps (t[k + 1], t[k + 3], _MM_SHUFFLE (1, 0, 1, 0));
      u[k + 3] = _mm256_shuffle_ps (t[k + 1], t[k + 3], _MM_SHUFFLE (3, 2, 3, 2));
    }
  for (unsigned k = 0; k < 4; k++)
    {
      out[k] = _mm256_permute2f128_ps (u[k], u[k + 4], 0x20);
      out[k + 4] = _mm256_permute2f128_ps (u[k], u[k + 4], 0x31);
    }
}

/* The rows of the 8×8 block at ROW × COL of the row-major N-wide matrix A,
 * stored transposed at COL × ROW. */
__attribute__ ((target ("avx2")))
static inline void
pl_transpose8_copy (float  *a,
                    size_t  n,
                    size_t  row,
                    size_t  col)
{
  __m256 r[8], t[8];

  for (unsigned k = 0; k < 8; k++)
    r[k] = _mm256_loadu_ps (a + (row + k) * n + col);
  pl_transpose8 (r, t);
  for (unsigned k = 0; k < 8; k++)
    _mm256_storeu_ps (a + (col + k) * n + row, t[k]);
}
#endif
