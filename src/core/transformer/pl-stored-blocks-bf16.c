/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-stored-gemm-private.h"

/* Rows of a block-quantised weight (ggml's formats, pl-stored-blocks.c) as
 * BF16, for the BF16 dot-product kernel (pl-stored-gemm-bf16.c) to multiply
 * by a block of rows at a time: each element is first the float32 that
 * ggml's dequantize_row_* computes (the same operations in the same order,
 * so pl_stored_matrix_to_float's value), then rounded to BF16 to nearest.
 * Q8_0, Q4_K and Q6_K (what llama.cpp's Q8_0 and Q4_K_M files hold) are
 * unpacked 16 elements a step with AVX-512; the other formats go through
 * pl_stored_blocks_to_float a row at a time. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>
#include <string.h>

#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,f16c")

static inline float
half_at (const guint8 *p)
{
  guint16 h;

  memcpy (&h, p, 2);
  return _cvtsh_ss (GUINT16_FROM_LE (h));
}

/* 32 float32 as BF16 at OUT */
static inline void
store_bf16 (guint16 *out,
            __m512   lo,
            __m512   hi)
{
  _mm512_storeu_si512 (out, (__m512i) _mm512_cvtne2ps_pbh (hi, lo));
}

/* 16 signed bytes at P as float32 */
static inline __m512
signed_bytes (const void *p)
{
  return _mm512_cvtepi32_ps (_mm512_cvtepi8_epi32 (_mm_loadu_si128 (p)));
}

static inline __m512
int_lanes (__m512i v)
{
  return _mm512_cvtepi32_ps (v);
}

/* d, then 32 signed bytes: q · d */
static void
q8_0_row (const guint8 *b,
          gsize         n_blocks,
          guint16      *out)
{
  for (gsize i = 0; i < n_blocks; i++, b += 34, out += 32)
    {
      __m512 d = _mm512_set1_ps (half_at (b));

      store_bf16 (out, _mm512_mul_ps (signed_bytes (b + 2), d), _mm512_mul_ps (signed_bytes (b + 18), d));
    }
}

/* Q4_K's and Q5_K's eight 6-bit scales and mins in 12 bytes */
static inline void
scale_min_k4 (int           j,
              const guint8 *q,
              guint8       *d,
              guint8       *m)
{
  if (j < 4)
    {
      *d = q[j] & 63;
      *m = q[j + 4] & 63;
    }
  else
    {
      *d = (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4);
      *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/* d, dmin, 12 bytes of scales and mins for 8 groups of 32, 128 bytes of
 * nibbles: each 32 bytes hold a group in their low nibbles and the next in
 * their high ones; (d · scale) · q − dmin · min */
static void
q4_k_row (const guint8 *b,
          gsize         n_blocks,
          guint16      *out)
{
  const __m512i low = _mm512_set1_epi32 (0x0f);

  for (gsize i = 0; i < n_blocks; i++, b += 144)
    {
      float d = half_at (b), min = half_at (b + 2);
      const guint8 *scales = b + 4, *q = b + 16;

      for (int g = 0; g < 8; g += 2, q += 32, out += 64)
        {
          guint8 sc, m;
          __m512 d1, m1, d2, m2;
          __m512i q0 = _mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) q));
          __m512i q1 = _mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) (q + 16)));

          scale_min_k4 (g, scales, &sc, &m);
          d1 = _mm512_set1_ps (d * sc), m1 = _mm512_set1_ps (min * m);
          scale_min_k4 (g + 1, scales, &sc, &m);
          d2 = _mm512_set1_ps (d * sc), m2 = _mm512_set1_ps (min * m);
          store_bf16 (out, _mm512_sub_ps (_mm512_mul_ps (d1, int_lanes (_mm512_and_si512 (q0, low))), m1),
                      _mm512_sub_ps (_mm512_mul_ps (d1, int_lanes (_mm512_and_si512 (q1, low))), m1));
          store_bf16 (out + 32, _mm512_sub_ps (_mm512_mul_ps (d2, int_lanes (_mm512_srli_epi32 (q0, 4))), m2),
                      _mm512_sub_ps (_mm512_mul_ps (d2, int_lanes (_mm512_srli_epi32 (q1, 4))), m2));
        }
    }
}

/* 128 bytes of low nibbles, 64 of high two bits, 16 signed scales, d. Each
 * half of 128: element l (l + 32, + 64, + 96) from the low (low, high, high)
 * nibble of low byte l (l + 32, l, l + 32) and bits 0 (2, 4, 6) of high
 * byte l, less 32, times d · scale of its group of 16. */
static void
q6_k_row (const guint8 *b,
          gsize         n_blocks,
          guint16      *out)
{
  const __m512i low = _mm512_set1_epi32 (0x0f), two = _mm512_set1_epi32 (3), bias = _mm512_set1_epi32 (32);

  for (gsize i = 0; i < n_blocks; i++, b += 210)
    {
      const guint8 *ql = b, *qh = b + 128;
      const gint8 *sc = (const gint8 *) (b + 192);
      float d = half_at (b + 208);

      for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8, out += 128)
        {
          __m512 y[8];

          for (int l = 0; l < 32; l += 16)
            {
              int is = l / 16;
              __m512i a = _mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) (ql + l)));
              __m512i c = _mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) (ql + l + 32)));
              __m512i h = _mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) (qh + l)));
              __m512i q1 = _mm512_sub_epi32 (_mm512_or_si512 (_mm512_and_si512 (a, low),
                                                              _mm512_slli_epi32 (_mm512_and_si512 (h, two), 4)), bias);
              __m512i q2 = _mm512_sub_epi32 (_mm512_or_si512 (_mm512_and_si512 (c, low),
                                                              _mm512_slli_epi32 (_mm512_and_si512 (_mm512_srli_epi32 (h, 2), two), 4)), bias);
              __m512i q3 = _mm512_sub_epi32 (_mm512_or_si512 (_mm512_srli_epi32 (a, 4),
                                                              _mm512_slli_epi32 (_mm512_and_si512 (_mm512_srli_epi32 (h, 4), two), 4)), bias);
              __m512i q4 = _mm512_sub_epi32 (_mm512_or_si512 (_mm512_srli_epi32 (c, 4),
                                                              _mm512_slli_epi32 (_mm512_srli_epi32 (h, 6), 4)), bias);

              /* ggml: d * sc[is] * q, left to right */
              y[is] = _mm512_mul_ps (_mm512_set1_ps (d * sc[is]), int_lanes (q1));
              y[2 + is] = _mm512_mul_ps (_mm512_set1_ps (d * sc[is + 2]), int_lanes (q2));
              y[4 + is] = _mm512_mul_ps (_mm512_set1_ps (d * sc[is + 4]), int_lanes (q3));
              y[6 + is] = _mm512_mul_ps (_mm512_set1_ps (d * sc[is + 6]), int_lanes (q4));
            }
          for (int k = 0; k < 4; k++)
            store_bf16 (out + 32 * k, y[2 * k], y[2 * k + 1]);
        }
    }
}

/* N float32 at SRC as BF16 at OUT */
static void
floats_to_bf16 (const float *src,
                gsize        n,
                guint16     *out)
{
  gsize j = 0;

  for (; j + 16 <= n; j += 16)
    _mm256_storeu_si256 ((__m256i *) (out + j), (__m256i) _mm512_cvtneps_pbh (_mm512_loadu_ps (src + j)));
  if (j < n)
    {
      __mmask16 m = (__mmask16) ((1u << (n - j)) - 1);

      _mm256_mask_storeu_epi16 (out + j, m, (__m256i) _mm512_cvtneps_pbh (_mm512_maskz_loadu_ps (m, src + j)));
    }
}

void
pl_stored_blocks_to_bf16 (const PlStoredMatrix *w,
                          gsize                 first,
                          gsize                 n,
                          guint16              *out,
                          float                *floats)
{
  gsize n_blocks = w->cols / pl_stored_type_block_elements (w->type);

  for (gsize r = first; r < first + n; r++, out += w->cols)
    {
      const guint8 *row = pl_stored_matrix_row (w, r);

      switch (w->type)
        {
        case PL_STORED_Q8_0:
          q8_0_row (row, n_blocks, out);
          break;
        case PL_STORED_Q4_K:
          q4_k_row (row, n_blocks, out);
          break;
        case PL_STORED_Q6_K:
          q6_k_row (row, n_blocks, out);
          break;
        default:
          pl_stored_blocks_to_float (w->type, row, floats, n_blocks);
          floats_to_bf16 (floats, w->cols, out);
          break;
        }
    }
}

#pragma GCC pop_options

#else

void
pl_stored_blocks_to_bf16 (const PlStoredMatrix *w,
                          gsize                 first,
                          gsize                 n,
                          guint16              *out,
                          float                *floats)
{
  g_assert_not_reached ();
}

#endif
