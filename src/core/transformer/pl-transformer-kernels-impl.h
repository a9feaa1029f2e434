/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Included twice by pl-transformer-kernels.c, once per instruction set, with
 * PL_KERNEL (name) naming the copy. No include guard on purpose. Loops run in
 * blocks of 8 with separate accumulators so GCC vectorises the reductions
 * without reassociating float sums behind our back. */

/* exp(x) for x in [−87, 88]: 2^n · p(r), r = x − n ln 2, |r| ≤ ln2 / 2, with
 * Cephes' degree-6 polynomial (about 1 ulp). */
static inline float
PL_KERNEL (exp1) (float x)
{
  union { float f; int32_t i; } scale;
  float n, r, p;

  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
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

static void
PL_KERNEL (exp_array) (float *data,
                       gsize  n)
{
  for (gsize i = 0; i < n; i++)
    data[i] = PL_KERNEL (exp1) (data[i]);
}

static float
PL_KERNEL (row_max) (const float *row,
                     gsize        n)
{
  float acc[8], m;
  gsize j = 0;

  for (int k = 0; k < 8; k++)
    acc[k] = -INFINITY;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; k++)
      acc[k] = row[j + k] > acc[k] ? row[j + k] : acc[k];
  m = -INFINITY;
  for (int k = 0; k < 8; k++)
    m = acc[k] > m ? acc[k] : m;
  for (; j < n; j++)
    m = row[j] > m ? row[j] : m;
  return m;
}

static float
PL_KERNEL (exp_shift_sum) (float *row,
                           gsize  n,
                           float  shift)
{
  float acc[8] = { 0, };
  float sum = 0;
  gsize j = 0;

  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; k++)
      {
        row[j + k] = PL_KERNEL (exp1) (row[j + k] - shift);
        acc[k] += row[j + k];
      }
  for (; j < n; j++)
    {
      row[j] = PL_KERNEL (exp1) (row[j] - shift);
      sum += row[j];
    }
  for (int k = 0; k < 8; k++)
    sum += acc[k];
  return sum;
}

static void
PL_KERNEL (scale_row) (float *row,
                       gsize  n,
                       float  s)
{
  for (gsize j = 0; j < n; j++)
    row[j] *= s;
}

/* erf by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7), odd extension. */
static inline float
PL_KERNEL (erf1) (float x)
{
  float a = fabsf (x);
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  float y;

  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  y = 1.0f - p * t * PL_KERNEL (exp1) (-a * a);
  return copysignf (y, x);
}

static void
PL_KERNEL (gelu_erf) (float *data,
                      gsize  n)
{
  for (gsize i = 0; i < n; i++)
    {
      float x = data[i];
      data[i] = 0.5f * x * (1.0f + PL_KERNEL (erf1) (x * 0.70710678118654752f));
    }
}

/* tanh(y) = 1 − 2 / (exp(2y) + 1); exp1 clamps, so large |y| give ±1. */
static void
PL_KERNEL (gelu_tanh) (float *data,
                       gsize  n)
{
  for (gsize i = 0; i < n; i++)
    {
      float x = data[i];
      float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      float th = 1.0f - 2.0f / (PL_KERNEL (exp1) (2.0f * y) + 1.0f);
      data[i] = 0.5f * x * (1.0f + th);
    }
}

/* x · sigmoid(x) = x / (1 + exp(−x)); exp1 clamps, so large |x| give x or 0. */
static void
PL_KERNEL (silu) (float *data,
                  gsize  n)
{
  for (gsize i = 0; i < n; i++)
    {
      float x = data[i];
      data[i] = x / (1.0f + PL_KERNEL (exp1) (-x));
    }
}

static void
PL_KERNEL (relu) (float *data,
                  gsize  n)
{
  for (gsize i = 0; i < n; i++)
    data[i] = data[i] > 0.0f ? data[i] : 0.0f;
}

/* One row's LayerNorm. Mean and variance in double: BERT's epsilon is
 * 1e-12, so the variance itself must be right; eight partial sums of each,
 * so the loops vectorise. */
static void
PL_KERNEL (layer_norm_row) (const float *x,
                            float       *y,
                            gsize        n,
                            const float *gamma,
                            const float *beta,
                            double       eps)
{
  double acc[8] = { 0, }, mean = 0, var = 0;
  float m, inv;
  gsize j;

  for (j = 0; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; k++)
      acc[k] += x[j + k];
  for (int k = 0; k < 8; k++)
    mean += acc[k];
  for (; j < n; j++)
    mean += x[j];
  mean /= n;
  for (int k = 0; k < 8; k++)
    acc[k] = 0;
  for (j = 0; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; k++)
      {
        double d = x[j + k] - mean;

        acc[k] += d * d;
      }
  for (int k = 0; k < 8; k++)
    var += acc[k];
  for (; j < n; j++)
    {
      double d = x[j] - mean;

      var += d * d;
    }
  var /= n;
  m = (float) mean;
  inv = (float) (1.0 / sqrt (var + eps));
  for (j = 0; j < n; j++)
    y[j] = (x[j] - m) * inv * gamma[j] + beta[j];
}

static const Kernels PL_KERNEL (kernels) = {
  PL_KERNEL (exp_array),
  PL_KERNEL (row_max),
  PL_KERNEL (exp_shift_sum),
  PL_KERNEL (scale_row),
  PL_KERNEL (gelu_erf),
  PL_KERNEL (gelu_tanh),
  PL_KERNEL (relu),
  PL_KERNEL (silu),
  PL_KERNEL (layer_norm_row),
};
