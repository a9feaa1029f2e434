/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-kernel-emulation.h"
#include "pl-transformer-kernels.h"

/* The BF16 products of the tuned GEMMs, element by element. Intel's SDM
 * defines VDPBF16PS and TDPBF16PS as a chain of float32 fused multiply-adds,
 * one per BF16 pair, with denormal inputs read as zero, denormal results
 * flushed to zero and rounding to nearest; the product of two BF16 numbers
 * is exact in float32, so each step rounds once. VDPBF16PS adds a lane's
 * odd pair before its even one, TDPBF16PS the even before the odd. */

const char *
pl_kernel_name (PlKernel kernel)
{
  static const char * const names[] = { "avx512bf16", "amx", "avx512f" };

  g_return_val_if_fail (kernel < PL_N_KERNELS, NULL);
  return names[kernel];
}

gboolean
pl_kernel_runs_natively (PlKernel kernel)
{
  switch (kernel)
    {
    case PL_KERNEL_BF16_DOT:
      return pl_cpu_has_avx512_bf16 ();
    case PL_KERNEL_AMX_TILES:
      return pl_cpu_has_amx_bf16 ();
    case PL_KERNEL_FUSED_ATTENTION:
      return pl_cpu_has_avx512f ();
    case PL_N_KERNELS:
    default:
      g_return_val_if_reached (FALSE);
    }
}

static guint32
bits_of (float x)
{
  guint32 bits;

  memcpy (&bits, &x, 4);
  return bits;
}

float
pl_bf16_widen (guint16 b)
{
  guint32 bits = (guint32) b << 16;
  float x;

  memcpy (&x, &bits, 4);
  return x;
}

guint16
pl_bf16_round_as_avx512 (float x)
{
  guint32 bits = bits_of (x);

  if (isnan (x))
    return (guint16) ((bits >> 16) | 0x40);
  if (fpclassify (x) == FP_SUBNORMAL)
    return (guint16) ((bits >> 16) & 0x8000);
  return (guint16) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/* The AMX GEMM's own rounding of the last elements of a row (its scalar
 * loop): the same formula without the cases for denormals and NaNs. */
static guint16
round_bf16_scalar (float x)
{
  guint32 bits = bits_of (x);

  return (guint16) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

static float
flush_denormal (float x)
{
  return fpclassify (x) == FP_SUBNORMAL ? copysignf (0.0f, x) : x;
}

float
pl_bf16_dot_step (float   acc,
                  guint16 a,
                  guint16 b)
{
  return flush_denormal (fmaf (flush_denormal (pl_bf16_widen (a)), flush_denormal (pl_bf16_widen (b)),
                               flush_denormal (acc)));
}

/* W's rows [N, K] as BF16 numbers, row-major (BF16 tiles unpacked) */
static guint16 *
weights_bf16 (const PlStoredMatrix *w)
{
  g_autofree float *wide = g_new (float, w->rows * w->cols);
  guint16 *b = g_new (guint16, w->rows * w->cols);

  g_assert (w->type == PL_STORED_BF16 || w->type == PL_STORED_BF16_TILES);
  pl_stored_matrix_to_float (w, 0, w->rows, wide);
  for (gsize i = 0; i < w->rows * w->cols; i++)
    b[i] = (guint16) (bits_of (wide[i]) >> 16);
  return b;
}

/* pl-stored-gemm-bf16.c's sum of one output: 16 lanes, lane l adding the
 * pairs 32 s + 2 l + 1, then 32 s + 2 l, over the steps s (zero past K);
 * then the lanes l and l + 8 added, those eight in pairs, pairs of pairs,
 * and the two halves. */
static float
dot_bf16 (const guint16 *x,
          const guint16 *w,
          gsize          k)
{
  float lane[16] = { 0 }, h[8];

  for (gsize s = 0; s < k; s += 32)
    for (guint l = 0; l < 16; l++)
      {
        gsize j = s + 2 * l;

        lane[l] = pl_bf16_dot_step (lane[l], j + 1 < k ? x[j + 1] : 0, j + 1 < k ? w[j + 1] : 0);
        lane[l] = pl_bf16_dot_step (lane[l], j < k ? x[j] : 0, j < k ? w[j] : 0);
      }
  for (guint l = 0; l < 8; l++)
    h[l] = lane[l] + lane[l + 8];
  return ((h[0] + h[1]) + (h[2] + h[3])) + ((h[4] + h[5]) + (h[6] + h[7]));
}

/* OUT [T, N] += X · Wᵀ as pl-stored-gemm-bf16.c: X rounded to BF16 */
static void
add_bf16_dot (const PlMatrix *x,
              const guint16  *w,
              gsize           n,
              PlMatrix       *out)
{
  gsize k = x->cols;
  g_autofree guint16 *xb = g_new (guint16, k);

  for (gsize r = 0; r < x->rows; r++)
    {
      for (gsize j = 0; j < k; j++)
        xb[j] = pl_bf16_round_as_avx512 (pl_matrix_row (x, r)[j]);
      for (gsize c = 0; c < n; c++)
        pl_matrix_row (out, r)[c] += dot_bf16 (xb, w + c * k, k);
    }
}

#define TERMS 3

/* pl-stored-gemm-amx.c's split of row X: TERMS BF16 rows, each the rest of
 * X less the ones before, rounded; its vector loop (whole 16s of K) rounds
 * as VCVTNEPS2BF16, its scalar loop (the rest) without denormal cases */
static void
split_row_amx (const float *x,
               gsize        k,
               guint16     *terms)
{
  for (gsize j = 0; j < k; j++)
    {
      float rest = x[j];

      for (guint t = 0; t < TERMS; t++)
        {
          guint16 part = j < k / 16 * 16 ? pl_bf16_round_as_avx512 (rest) : round_bf16_scalar (rest);

          terms[t * k + j] = part;
          rest -= pl_bf16_widen (part);
        }
    }
}

/* pl-stored-gemm-amx.c's sum of one output: per 32 of K (zero past it),
 * the three terms in turn, each a TDPBF16PS row: its 16 pairs, even before
 * odd. */
static float
dot_amx (const guint16 *terms,
         const guint16 *w,
         gsize          k)
{
  float acc = 0.0f;

  for (gsize kb = 0; kb < k; kb += 32)
    for (guint t = 0; t < TERMS; t++)
      for (gsize j = kb; j < kb + 32; j++)
        acc = pl_bf16_dot_step (acc, j < k ? terms[t * k + j] : 0, j < k ? w[j] : 0);
  return acc;
}

static void
add_amx (const PlMatrix *x,
         const guint16  *w,
         gsize           n,
         PlMatrix       *out)
{
  gsize k = x->cols;
  g_autofree guint16 *terms = g_new (guint16, TERMS * k);

  for (gsize r = 0; r < x->rows; r++)
    {
      split_row_amx (pl_matrix_row (x, r), k, terms);
      for (gsize c = 0; c < n; c++)
        pl_matrix_row (out, r)[c] += dot_amx (terms, w + c * k, k);
    }
}

void
pl_stored_gemm_emulated (const PlMatrix       *x,
                         const PlStoredMatrix *w,
                         const PlMatrix       *bias,
                         const PlMatrix       *residual,
                         PlKernel              kernel,
                         PlMatrix             *out)
{
  g_autofree guint16 *wb = NULL;
  gsize n = w->rows;

  g_return_if_fail (kernel == PL_KERNEL_BF16_DOT || kernel == PL_KERNEL_AMX_TILES);
  g_assert (w->cols == x->cols && out->rows == x->rows && out->cols == n);
  /* OUT starts as pl-stored-gemm.c starts it */
  for (gsize r = 0; r < out->rows; r++)
    for (gsize c = 0; c < n; c++)
      {
        float *o = pl_matrix_row (out, r) + c;

        if (bias != NULL && residual != NULL)
          *o = bias->data[c] + pl_matrix_row (residual, r)[c];
        else if (residual != NULL)
          *o = pl_matrix_row (residual, r)[c];
        else
          *o = bias != NULL ? bias->data[c] : 0.0f;
      }
  if (x->rows == 0 || n == 0 || w->cols == 0)
    return;
  wb = weights_bf16 (w);
  if (kernel == PL_KERNEL_BF16_DOT)
    add_bf16_dot (x, wb, n, out);
  else
    add_amx (x, wb, n, out);
}

/* pl-linear-amx.c's split of a float32 number: hi and lo, both rounded as
 * VCVTNEPS2BF16 */
static void
split_hi_lo (float    v,
             guint16 *hi,
             guint16 *lo)
{
  *hi = pl_bf16_round_as_avx512 (v);
  *lo = pl_bf16_round_as_avx512 (v - pl_bf16_widen (*hi));
}

/* pl-linear-amx.c's sum of one output: per 32 of K (zero past it), the
 * products x_hi·w_lo, x_hi·w_hi and x_lo·w_hi, each a TDPBF16PS row. (Its
 * chunks of K go through float32 memory: exact.) */
static float
dot_linear_amx (const guint16 *x_hi,
                const guint16 *x_lo,
                const guint16 *w_hi,
                const guint16 *w_lo,
                gsize          k)
{
  const guint16 *a[3] = { x_hi, x_hi, x_lo }, *b[3] = { w_lo, w_hi, w_hi };
  float acc = 0.0f;

  for (gsize kb = 0; kb < k; kb += 32)
    for (guint p = 0; p < 3; p++)
      for (gsize j = kb; j < kb + 32; j++)
        acc = pl_bf16_dot_step (acc, j < k ? a[p][j] : 0, j < k ? b[p][j] : 0);
  return acc;
}

void
pl_linear_amx_emulated (const PlMatrix *x,
                        const PlMatrix *w,
                        const PlMatrix *b,
                        const PlMatrix *residual,
                        PlActivation    activation,
                        PlMatrix       *out)
{
  gsize k = w->rows, n = w->cols;
  g_autofree guint16 *w_hi = g_new (guint16, MAX (k * n, 1));
  g_autofree guint16 *w_lo = g_new (guint16, MAX (k * n, 1));
  g_autofree guint16 *x_hi = g_new (guint16, MAX (k, 1));
  g_autofree guint16 *x_lo = g_new (guint16, MAX (k, 1));

  g_assert (x->cols == k && out->rows == x->rows && out->cols == n && b->rows * b->cols == n);
  /* W's columns as rows: output c's weights side by side */
  for (gsize j = 0; j < k; j++)
    for (gsize c = 0; c < n; c++)
      split_hi_lo (pl_matrix_row (w, j)[c], &w_hi[c * k + j], &w_lo[c * k + j]);
  for (gsize r = 0; r < x->rows; r++)
    {
      float *o = pl_matrix_row (out, r);
      const float *res = residual != NULL ? pl_matrix_row (residual, r) : NULL;

      for (gsize j = 0; j < k; j++)
        split_hi_lo (pl_matrix_row (x, r)[j], &x_hi[j], &x_lo[j]);
      /* in 32-column blocks, finished as pl-linear-amx.c finishes them: a
       * whole block by vectors, a ragged one element by element */
      for (gsize c0 = 0; c0 < n; c0 += 32)
        {
          gsize cols = MIN (32, n - c0);

          for (gsize c = c0; c < c0 + cols; c++)
            {
              float p = dot_linear_amx (x_hi, x_lo, w_hi + c * k, w_lo + c * k, k);

              if (cols == 32)
                o[c] = res != NULL ? (p + b->data[c]) + res[c] : p + b->data[c];
              else
                o[c] = p + b->data[c] + (res != NULL ? res[c] : 0.0f);
            }
          if (activation != PL_ACTIVATION_NONE)
            pl_kernel_activate (o + c0, cols, activation);
        }
    }
}
