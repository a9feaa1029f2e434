/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-error.h"
#include "pl-stored-matrix.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
# include <immintrin.h>
# define HAVE_F16C_PATH 1
#endif

/* The same bound as PlMatrix's: larger is a hostile or mistaken size. */
#define MAX_BYTES ((gsize) 16 << 30)

G_DEFINE_BOXED_TYPE (PlStoredMatrix, pl_stored_matrix, pl_stored_matrix_ref, pl_stored_matrix_unref)

gsize
pl_stored_type_size (PlStoredType type)
{
  g_assert (!pl_stored_type_is_blocks (type));
  return type == PL_STORED_F32 ? 4 : 2;
}

/* Tiles: panels of 32 rows, columns rounded up to 32 */
#define TILE_PANEL 32

static gsize
padded (gsize n,
        PlStoredType type)
{
  return type == PL_STORED_BF16_TILES ? (n + TILE_PANEL - 1) / TILE_PANEL * TILE_PANEL : n;
}

PlStoredMatrix *
pl_stored_matrix_try_new (PlStoredType   type,
                          gsize          rows,
                          gsize          cols,
                          GError       **error)
{
  PlStoredMatrix *self;
  gsize block = pl_stored_type_block_elements (type), elem = pl_stored_type_block_bytes (type);
  gsize stored_rows = padded (rows, type), stored_cols = padded (cols, type) / block;
  guint8 *data = NULL;

  g_return_val_if_fail (cols % block == 0, NULL);

  if (rows > MAX_BYTES || cols > MAX_BYTES ||
      (stored_rows != 0 && stored_cols > MAX_BYTES / elem / stored_rows) ||
      (rows * cols > 0 &&
       !(data = (type == PL_STORED_BF16_TILES ? g_try_malloc0 : g_try_malloc) (stored_rows * stored_cols * elem))))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "a %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT " %s matrix does not fit in memory",
                   rows, cols, pl_stored_type_name (type));
      return NULL;
    }
  self = g_new0 (PlStoredMatrix, 1);
  self->type = type;
  self->rows = rows;
  self->cols = cols;
  self->data = data;
  self->ref_count = 1;
  return self;
}

PlStoredMatrix *
pl_stored_matrix_new_borrowed (PlStoredType    type,
                               gsize           rows,
                               gsize           cols,
                               const guint8   *data,
                               gpointer        owner,
                               GDestroyNotify  owner_release)
{
  PlStoredMatrix *self;

  g_return_val_if_fail (type != PL_STORED_BF16_TILES, NULL);
  g_return_val_if_fail (cols % pl_stored_type_block_elements (type) == 0, NULL);
  g_return_val_if_fail (owner != NULL && owner_release != NULL, NULL);

  self = g_new0 (PlStoredMatrix, 1);
  self->type = type;
  self->rows = rows;
  self->cols = cols;
  self->data = (guint8 *) data;
  self->ref_count = 1;
  self->owner = owner;
  self->owner_release = owner_release;
  return self;
}

gboolean
pl_stored_matrix_is_borrowed (const PlStoredMatrix *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->owner != NULL;
}

PlStoredMatrix *
pl_stored_matrix_new_from_matrix (const PlMatrix *m)
{
  PlStoredMatrix *self;

  g_return_val_if_fail (m != NULL, NULL);

  self = pl_stored_matrix_try_new (PL_STORED_F32, m->rows, m->cols, NULL);
  g_assert (self != NULL);
  if (m->rows * m->cols > 0)
    memcpy (self->data, m->data, m->rows * m->cols * sizeof (float));
  return self;
}

PlStoredMatrix *
pl_stored_matrix_ref (PlStoredMatrix *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_stored_matrix_unref (PlStoredMatrix *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_int_dec_and_test (&self->ref_count))
    {
      if (self->owner != NULL)
        self->owner_release (self->owner);
      else
        g_free (self->data);
      g_free (self);
    }
}

float
pl_stored_half_to_float (guint16 h)
{
  guint sign = h >> 15;
  guint exponent = (h >> 10) & 0x1f;
  guint mantissa = h & 0x3ff;
  float value;

  if (exponent == 0)
    value = ldexpf ((float) mantissa, -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = ldexpf ((float) (mantissa | 0x400), (int) exponent - 25);
  return sign ? -value : value;
}

#ifdef HAVE_F16C_PATH
__attribute__ ((target ("avx2,f16c"))) static void
half_to_float_f16c (const guint16 *src,
                    float         *dst,
                    gsize          n)
{
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (dst + i, _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) (src + i))));
  for (; i < n; i++)
    dst[i] = _cvtsh_ss (src[i]);
}
#endif

/* Vectorised by the compiler: a BF16 is the top half of a float32. */
#pragma GCC push_options
#pragma GCC optimize ("O3")
static void
bfloat16_to_float (const guint16 *src,
                   float         *dst,
                   gsize          n)
{
  guint32 *out = (guint32 *) dst;

  for (gsize i = 0; i < n; i++)
    out[i] = (guint32) src[i] << 16;
}
#pragma GCC pop_options

void
pl_stored_convert (PlStoredType  type,
                   const void   *src,
                   float        *dst,
                   gsize         n)
{
  /* An empty matrix has no data: memcpy may not be given NULL. */
  if (n == 0)
    return;
  switch (type)
    {
    case PL_STORED_F32:
      memcpy (dst, src, n * sizeof (float));
      break;
    case PL_STORED_BF16:
      bfloat16_to_float (src, dst, n);
      break;
    case PL_STORED_F16:
#ifdef HAVE_F16C_PATH
      if (pl_cpu_has_avx2_fma () && __builtin_cpu_supports ("f16c"))
        {
          half_to_float_f16c (src, dst, n);
          break;
        }
#endif
      for (gsize i = 0; i < n; i++)
        dst[i] = pl_stored_half_to_float (((const guint16 *) src)[i]);
      break;
    default:
      g_assert (pl_stored_type_is_blocks (type) && n % pl_stored_type_block_elements (type) == 0);
      pl_stored_blocks_to_float (type, src, dst, n / pl_stored_type_block_elements (type));
    }
}

void
pl_stored_matrix_to_float (const PlStoredMatrix *self,
                           gsize                 first,
                           gsize                 n,
                           float                *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (first <= self->rows && n <= self->rows - first);

  if (self->type == PL_STORED_BF16_TILES)
    {
      gsize kp = padded (self->cols, self->type), tiles = kp / 32;
      const guint16 *data = (const guint16 *) self->data;
      guint32 *o = (guint32 *) out;

      for (gsize i = 0; i < n; i++)
        {
          gsize row = first + i, half = row % 32 / 16, c = row % 16;
          const guint16 *panel = data + row / 32 * 32 * kp;

          for (gsize k = 0; k < self->cols; k++)
            {
              const guint16 *tile = panel + (half * tiles + k / 32) * 512;

              o[i * self->cols + k] = (guint32) tile[(k % 32 / 2 * 16 + c) * 2 + k % 2] << 16;
            }
        }
      return;
    }
  pl_stored_convert (self->type, pl_stored_matrix_row (self, first), out, n * self->cols);
}

PlStoredMatrix *
pl_stored_matrix_to_tiles (const PlStoredMatrix  *self,
                           GCancellable          *cancellable,
                           GError               **error)
{
  PlStoredMatrix *tiles;
  gsize kp, n_tiles;

  g_return_val_if_fail (self != NULL && self->type == PL_STORED_BF16, NULL);

  if (!(tiles = pl_stored_matrix_try_new (PL_STORED_BF16_TILES, self->rows, self->cols, error)))
    return NULL;
  kp = padded (self->cols, PL_STORED_BF16_TILES);
  n_tiles = kp / 32;
  /* zero-filled: only the real elements are written */
  for (gsize row = 0; row < self->rows; row++)
    {
      const guint16 *src = (const guint16 *) pl_stored_matrix_row (self, row);
      gsize half = row % 32 / 16, c = row % 16;
      guint16 *panel = (guint16 *) tiles->data + row / 32 * 32 * kp;

      if (row % 32 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          pl_stored_matrix_unref (tiles);
          return NULL;
        }
      for (gsize k = 0; k < self->cols; k++)
        panel[(half * n_tiles + k / 32) * 512 + (k % 32 / 2 * 16 + c) * 2 + k % 2] = src[k];
    }
  return tiles;
}

/* An all-ones exponent is NaN or infinity; integer tests the compiler
 * vectorises. */
#pragma GCC push_options
#pragma GCC optimize ("O3")
static gboolean
elements_finite (PlStoredType  type,
                 const guint8 *data,
                 gsize         n)
{
  guint32 bad = 0;

  if (pl_stored_type_is_blocks (type))
    return pl_stored_blocks_all_finite (type, data, n / pl_stored_type_block_elements (type));
  if (type == PL_STORED_F32)
    {
      const guint32 *v = (const guint32 *) data;

      for (gsize i = 0; i < n; i++)
        bad |= (v[i] & 0x7f800000u) == 0x7f800000u;
    }
  else
    {
      const guint16 *v = (const guint16 *) data;
      guint16 mask = type == PL_STORED_F16 ? 0x7c00 : 0x7f80;

      for (gsize i = 0; i < n; i++)
        bad |= (v[i] & mask) == mask;
    }
  return !bad;
}
#pragma GCC pop_options

gboolean
pl_stored_matrix_rows_finite (const PlStoredMatrix *self,
                              gsize                 first,
                              gsize                 n)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (first <= self->rows && n <= self->rows - first, FALSE);

  return n == 0 || self->cols == 0 || elements_finite (self->type, pl_stored_matrix_row (self, first), n * self->cols);
}

gboolean
pl_stored_matrix_all_finite (const PlStoredMatrix *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  /* tiles: their zero padding too */
  return self->rows * self->cols == 0 ||
         elements_finite (self->type, self->data, padded (self->rows, self->type) * padded (self->cols, self->type));
}

PlMatrix *
pl_stored_matrix_to_matrix (const PlStoredMatrix  *self,
                            GError               **error)
{
  PlMatrix *m;

  g_return_val_if_fail (self != NULL, NULL);

  if (!(m = pl_matrix_try_new (self->rows, self->cols, error)))
    return NULL;
  pl_stored_matrix_to_float (self, 0, self->rows, m->data);
  return m;
}
