/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-stored-matrix.h"

/* ggml's block formats (ggml-common.h, ggml-quants.c), as a GGUF file stores
 * them: a row of a matrix is cols / elements blocks of the bytes below, each
 * block a run of consecutive elements of that row. Halves are IEEE half
 * floats, little-endian, read with memcpy since a block starts anywhere.
 * Every element is computed with the operations ggml's dequantize_row_*
 * uses, in its order, so the floats are ggml's to the bit. */

typedef struct
{
  const char *name;
  guint       elements;   /* per block */
  guint       bytes;      /* per block */
} BlockFormat;

#define QK   32
#define QK_K 256

static const BlockFormat formats[] = {
  [PL_STORED_F32] = { "F32", 1, 4 },
  [PL_STORED_F16] = { "F16", 1, 2 },
  [PL_STORED_BF16] = { "BF16", 1, 2 },
  [PL_STORED_BF16_TILES] = { "BF16 tiles", 1, 2 },
  [PL_STORED_Q4_0] = { "Q4_0", QK, 2 + QK / 2 },
  [PL_STORED_Q4_1] = { "Q4_1", QK, 4 + QK / 2 },
  [PL_STORED_Q5_0] = { "Q5_0", QK, 2 + 4 + QK / 2 },
  [PL_STORED_Q5_1] = { "Q5_1", QK, 4 + 4 + QK / 2 },
  [PL_STORED_Q8_0] = { "Q8_0", QK, 2 + QK },
  [PL_STORED_Q2_K] = { "Q2_K", QK_K, QK_K / 16 + QK_K / 4 + 4 },
  [PL_STORED_Q3_K] = { "Q3_K", QK_K, QK_K / 8 + QK_K / 4 + 12 + 2 },
  [PL_STORED_Q4_K] = { "Q4_K", QK_K, 4 + 12 + QK_K / 2 },
  [PL_STORED_Q5_K] = { "Q5_K", QK_K, 4 + 12 + QK_K / 8 + QK_K / 2 },
  [PL_STORED_Q6_K] = { "Q6_K", QK_K, QK_K / 2 + QK_K / 4 + QK_K / 16 + 2 },
};

G_STATIC_ASSERT (G_N_ELEMENTS (formats) == PL_STORED_N_TYPES);

const char *
pl_stored_type_name (PlStoredType type)
{
  g_return_val_if_fail (type < PL_STORED_N_TYPES, "?");
  return formats[type].name;
}

gsize
pl_stored_type_block_elements (PlStoredType type)
{
  g_return_val_if_fail (type < PL_STORED_N_TYPES, 1);
  return formats[type].elements;
}

gsize
pl_stored_type_block_bytes (PlStoredType type)
{
  g_return_val_if_fail (type < PL_STORED_N_TYPES, 4);
  return formats[type].bytes;
}

gboolean
pl_stored_type_is_blocks (PlStoredType type)
{
  return type < PL_STORED_N_TYPES && formats[type].elements > 1;
}

static inline float
half_at (const guint8 *p)
{
  guint16 h;

  memcpy (&h, p, 2);
  return pl_stored_half_to_float (GUINT16_FROM_LE (h));
}

static inline guint32
u32_at (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

/* d (half), then 16 bytes: element j in the low nibble of byte j, element
 * j + 16 in its high nibble, both less 8 */
static void
q4_0 (const guint8 *b,
      float        *y)
{
  float d = half_at (b);
  const guint8 *qs = b + 2;

  for (int j = 0; j < QK / 2; j++)
    {
      y[j] = ((qs[j] & 0x0f) - 8) * d;
      y[j + QK / 2] = ((qs[j] >> 4) - 8) * d;
    }
}

/* d, m (halves), then nibbles as Q4_0's: q · d + m */
static void
q4_1 (const guint8 *b,
      float        *y)
{
  float d = half_at (b), m = half_at (b + 2);
  const guint8 *qs = b + 4;

  for (int j = 0; j < QK / 2; j++)
    {
      y[j] = (qs[j] & 0x0f) * d + m;
      y[j + QK / 2] = (qs[j] >> 4) * d + m;
    }
}

/* d, then 32 fifth bits (bit j of a little-endian u32 for element j), then
 * nibbles as Q4_0's; less 16 */
static void
q5_0 (const guint8 *b,
      float        *y)
{
  float d = half_at (b);
  guint32 qh = u32_at (b + 2);
  const guint8 *qs = b + 6;

  for (int j = 0; j < QK / 2; j++)
    {
      int x0 = ((qs[j] & 0x0f) | (((qh >> j) << 4) & 0x10)) - 16;
      int x1 = ((qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16;

      y[j] = x0 * d;
      y[j + QK / 2] = x1 * d;
    }
}

static void
q5_1 (const guint8 *b,
      float        *y)
{
  float d = half_at (b), m = half_at (b + 2);
  guint32 qh = u32_at (b + 4);
  const guint8 *qs = b + 8;

  for (int j = 0; j < QK / 2; j++)
    {
      int x0 = (qs[j] & 0x0f) | (((qh >> j) << 4) & 0x10);
      int x1 = (qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);

      y[j] = x0 * d + m;
      y[j + QK / 2] = x1 * d + m;
    }
}

/* d, then 32 signed bytes */
static void
q8_0 (const guint8 *b,
      float        *y)
{
  float d = half_at (b);
  const gint8 *qs = (const gint8 *) (b + 2);

  for (int j = 0; j < QK; j++)
    y[j] = qs[j] * d;
}

/* 16 bytes of scales (low nibble) and mins (high nibble) for 16 groups of
 * 16, 64 bytes of 2-bit quants, d and dmin. The quants of each half of 128
 * elements: byte l of its 32 holds elements l, l + 32, l + 64, l + 96 at
 * bits 0, 2, 4, 6 (groups of 16 in turn). */
static void
q2_k (const guint8 *b,
      float        *y)
{
  const guint8 *scales = b, *q = b + 16;
  float d = half_at (b + 80), min = half_at (b + 82);
  int is = 0;

  for (int n = 0; n < QK_K; n += 128)
    {
      for (int shift = 0; shift < 8; shift += 2)
        for (int half = 0; half < 2; half++)
          {
            guint8 sc = scales[is++];
            float dl = d * (sc & 0x0f), ml = min * (sc >> 4);

            for (int l = 0; l < 16; l++)
              *y++ = dl * ((q[l + 16 * half] >> shift) & 3) - ml;
          }
      q += 32;
    }
}

/* 32 bytes of high bits (bit k of byte l: element 32 k + l), 64 bytes of
 * low two bits as Q2_K's, 12 bytes of sixteen 6-bit signed scales (less
 * 32), d. A clear high bit subtracts 4. */
static void
q3_k (const guint8 *b,
      float        *y)
{
  const guint8 *hm = b, *q = b + 32, *packed = b + 96;
  float d_all = half_at (b + 108);
  int scales[16];
  guint8 m = 1;
  int is = 0;

  /* scale j: its low four bits from byte j (j < 8, low nibble) or byte
   * j − 8 (high nibble), its high two from byte 8 + j % 4 at bit 2 (j / 4) */
  for (int j = 0; j < 16; j++)
    {
      int low = j < 8 ? packed[j] & 0x0f : packed[j - 8] >> 4;
      int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;

      scales[j] = (low | (high << 4)) - 32;
    }
  for (int n = 0; n < QK_K; n += 128)
    {
      for (int shift = 0; shift < 8; shift += 2)
        {
          for (int half = 0; half < 2; half++)
            {
              float dl = d_all * scales[is++];

              for (int l = 16 * half; l < 16 * half + 16; l++)
                *y++ = dl * (((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
            }
          m <<= 1;
        }
      q += 32;
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
 * their high ones. */
static void
q4_k (const guint8 *b,
      float        *y)
{
  float d = half_at (b), min = half_at (b + 2);
  const guint8 *scales = b + 4, *q = b + 16;
  int is = 0;

  for (int j = 0; j < QK_K; j += 64)
    {
      guint8 sc, m;
      float d1, m1, d2, m2;

      scale_min_k4 (is, scales, &sc, &m);
      d1 = d * sc, m1 = min * m;
      scale_min_k4 (is + 1, scales, &sc, &m);
      d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; l++)
        *y++ = d1 * (q[l] & 0x0f) - m1;
      for (int l = 0; l < 32; l++)
        *y++ = d2 * (q[l] >> 4) - m2;
      q += 32;
      is += 2;
    }
}

/* Q4_K's layout with 32 bytes of fifth bits after the scales: bit 2 g (and
 * 2 g + 1) of byte l for element l of group 2 g (2 g + 1) */
static void
q5_k (const guint8 *b,
      float        *y)
{
  float d = half_at (b), min = half_at (b + 2);
  const guint8 *scales = b + 4, *qh = b + 16, *ql = b + 48;
  guint8 u1 = 1, u2 = 2;
  int is = 0;

  for (int j = 0; j < QK_K; j += 64)
    {
      guint8 sc, m;
      float d1, m1, d2, m2;

      scale_min_k4 (is, scales, &sc, &m);
      d1 = d * sc, m1 = min * m;
      scale_min_k4 (is + 1, scales, &sc, &m);
      d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; l++)
        *y++ = d1 * ((ql[l] & 0x0f) + (qh[l] & u1 ? 16 : 0)) - m1;
      for (int l = 0; l < 32; l++)
        *y++ = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
      ql += 32;
      is += 2;
      u1 <<= 2;
      u2 <<= 2;
    }
}

/* 128 bytes of low nibbles, 64 of high two bits, 16 signed 8-bit scales for
 * groups of 16, d; less 32. Each half of 128: element l (l + 32, + 64, + 96)
 * from the low (low, high, high) nibble of low byte l (l + 32, l, l + 32)
 * and bits 0 (2, 4, 6) of high byte l. */
static void
q6_k (const guint8 *b,
      float        *y)
{
  const guint8 *ql = b, *qh = b + 128;
  const gint8 *sc = (const gint8 *) (b + 192);
  float d = half_at (b + 208);

  for (int n = 0; n < QK_K; n += 128)
    {
      for (int l = 0; l < 32; l++)
        {
          int is = l / 16;
          int q1 = ((ql[l] & 0x0f) | (((qh[l] >> 0) & 3) << 4)) - 32;
          int q2 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
          int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
          int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;

          y[l] = d * sc[is] * q1;
          y[l + 32] = d * sc[is + 2] * q2;
          y[l + 64] = d * sc[is + 4] * q3;
          y[l + 96] = d * sc[is + 6] * q4;
        }
      y += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
}

typedef void (*BlockFunc) (const guint8 *block, float *out);

static BlockFunc
block_func (PlStoredType type)
{
  switch (type)
    {
    case PL_STORED_Q4_0: return q4_0;
    case PL_STORED_Q4_1: return q4_1;
    case PL_STORED_Q5_0: return q5_0;
    case PL_STORED_Q5_1: return q5_1;
    case PL_STORED_Q8_0: return q8_0;
    case PL_STORED_Q2_K: return q2_k;
    case PL_STORED_Q3_K: return q3_k;
    case PL_STORED_Q4_K: return q4_k;
    case PL_STORED_Q5_K: return q5_k;
    case PL_STORED_Q6_K: return q6_k;
    default: g_assert_not_reached ();
    }
}

void
pl_stored_blocks_to_float (PlStoredType  type,
                           const void   *src,
                           float        *dst,
                           gsize         n_blocks)
{
  BlockFunc func = block_func (type);
  gsize bytes = formats[type].bytes, elements = formats[type].elements;
  const guint8 *b = src;

  for (gsize i = 0; i < n_blocks; i++)
    func (b + i * bytes, dst + i * elements);
}

/* Where each format keeps its halves, as byte offsets in a block. */
static guint
block_halves (PlStoredType type,
              guint        offsets[2])
{
  switch (type)
    {
    case PL_STORED_Q4_0:
    case PL_STORED_Q5_0:
    case PL_STORED_Q8_0:
      offsets[0] = 0;
      return 1;
    case PL_STORED_Q4_1:
    case PL_STORED_Q5_1:
    case PL_STORED_Q4_K:
    case PL_STORED_Q5_K:
      offsets[0] = 0, offsets[1] = 2;
      return 2;
    case PL_STORED_Q2_K:
      offsets[0] = 80, offsets[1] = 82;
      return 2;
    case PL_STORED_Q3_K:
      offsets[0] = 108;
      return 1;
    case PL_STORED_Q6_K:
      offsets[0] = 208;
      return 1;
    default:
      g_assert_not_reached ();
    }
}

gboolean
pl_stored_blocks_all_finite (PlStoredType  type,
                             const void   *src,
                             gsize         n_blocks)
{
  guint offsets[2];
  guint n = block_halves (type, offsets);
  gsize bytes = formats[type].bytes;
  const guint8 *b = src;
  guint bad = 0;

  /* Every element is a finite half times small integers (plus a finite
   * half), so it is finite exactly when the block's halves are. */
  for (gsize i = 0; i < n_blocks; i++)
    for (guint k = 0; k < n; k++)
      {
        guint16 h;

        memcpy (&h, b + i * bytes + offsets[k], 2);
        bad |= (GUINT16_FROM_LE (h) & 0x7c00) == 0x7c00;
      }
  return !bad;
}
