/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pl-transformer-kernels.h"

/* The loops below are branch-free so GCC vectorises them; AVX2 + FMA clones
 * are picked at load time on machines that have them. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
# define PL_VECTOR __attribute__((target_clones ("arch=haswell", "default"), optimize ("O3")))
#else
# define PL_VECTOR
#endif

#define EXP_BLOCK 256

/* exp(x) for x in [−87, 88]: 2^n · p(r), r = x − n ln 2, |r| ≤ ln2 / 2, with
 * Cephes' degree-6 polynomial (about 1 ulp). */
static inline float
exp_approx (float x)
{
  union { float f; int32_t i; } scale;
  float n, r, p;

  x = fminf (fmaxf (x, -87.0f), 88.0f);
  /* round to nearest without libm: the 1.5 · 2^23 trick */
  n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  scale.i = ((int32_t) n + 127) << 23;
  return p * scale.f;
}

PL_VECTOR void
pl_kernel_exp (float *data,
               gsize  n)
{
  for (gsize i = 0; i < n; i++)
    data[i] = exp_approx (data[i]);
}

PL_VECTOR static float
row_max (const float *row,
         gsize        n)
{
  float m = -INFINITY;

  for (gsize j = 0; j < n; j++)
    m = fmaxf (m, row[j]);
  return m;
}

PL_VECTOR static float
exp_shift_sum (float *row,
               gsize  n,
               float  shift)
{
  float sum = 0;

  for (gsize j = 0; j < n; j++)
    {
      row[j] = exp_approx (row[j] - shift);
      sum += row[j];
    }
  return sum;
}

PL_VECTOR static void
scale_row (float *row,
           gsize  n,
           float  s)
{
  for (gsize j = 0; j < n; j++)
    row[j] *= s;
}

void
pl_kernel_softmax_row (float *row,
                       gsize  n_valid,
                       gsize  n)
{
  float m, sum;

  g_assert (n_valid >= 1 && n_valid <= n);

  m = row_max (row, n_valid);
  sum = exp_shift_sum (row, n_valid, m);
  /* sum ≥ 1: the maximum contributes exp(0) */
  scale_row (row, n_valid, 1.0f / sum);
  if (n > n_valid)
    memset (row + n_valid, 0, (n - n_valid) * sizeof (float));
}

/* erf by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7), odd extension. */
static inline float
erf_approx (float x)
{
  float a = fabsf (x);
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  float y;

  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  y = 1.0f - p * t * exp_approx (-a * a);
  return copysignf (y, x);
}

PL_VECTOR static void
gelu_erf (float *data,
          gsize  n)
{
  for (gsize i = 0; i < n; i++)
    {
      float x = data[i];
      data[i] = 0.5f * x * (1.0f + erf_approx (x * 0.70710678118654752f));
    }
}

/* tanh(y) = 1 − 2 / (exp(2y) + 1); exp_approx clamps, so large |y| give ±1. */
PL_VECTOR static void
gelu_tanh (float *data,
           gsize  n)
{
  for (gsize i = 0; i < n; i++)
    {
      float x = data[i];
      float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      float th = 1.0f - 2.0f / (exp_approx (2.0f * y) + 1.0f);
      data[i] = 0.5f * x * (1.0f + th);
    }
}

PL_VECTOR static void
relu (float *data,
      gsize  n)
{
  for (gsize i = 0; i < n; i++)
    data[i] = fmaxf (data[i], 0.0f);
}

void
pl_kernel_activate (float        *data,
                    gsize         n,
                    PlActivation  activation)
{
  switch (activation)
    {
    case PL_ACTIVATION_GELU:
      gelu_erf (data, n);
      break;
    case PL_ACTIVATION_GELU_TANH:
      gelu_tanh (data, n);
      break;
    case PL_ACTIVATION_RELU:
      relu (data, n);
      break;
    case PL_ACTIVATION_NONE:
    default:
      break;
    }
}

/* Mean and variance in double: BERT's epsilon is 1e-12, so the variance
 * itself must be right. */
void
pl_kernel_layer_norm (const float *in,
                      float       *out,
                      gsize        rows,
                      gsize        cols,
                      const float *gamma,
                      const float *beta,
                      double       eps)
{
  for (gsize r = 0; r < rows; r++)
    {
      const float *x = in + r * cols;
      float *y = out + r * cols;
      double mean = 0, var = 0;
      float m, inv;

      for (gsize j = 0; j < cols; j++)
        mean += x[j];
      mean /= cols;
      for (gsize j = 0; j < cols; j++)
        {
          double d = x[j] - mean;
          var += d * d;
        }
      var /= cols;
      m = (float) mean;
      inv = (float) (1.0 / sqrt (var + eps));
      for (gsize j = 0; j < cols; j++)
        y[j] = (x[j] - m) * inv * gamma[j] + beta[j];
    }
}
