/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-transformer-kernels.h"

typedef struct
{
  void  (*exp_array)     (float *data, gsize n);
  float (*row_max)       (const float *row, gsize n);
  float (*exp_shift_sum) (float *row, gsize n, float shift);
  void  (*scale_row)     (float *row, gsize n, float s);
  void  (*gelu_erf)      (float *data, gsize n);
  void  (*gelu_tanh)     (float *data, gsize n);
  void  (*relu)          (float *data, gsize n);
  void  (*silu)          (float *data, gsize n);
  void  (*layer_norm_row) (const float *x, float *y, gsize n, const float *gamma, const float *beta, double eps);
} Kernels;

/* The same loops twice: plain x86-64 (SSE2) and AVX2 + FMA, picked once at
 * run time. Vectorised at -O3 whatever the build type. */
#pragma GCC push_options
#pragma GCC optimize ("O3", "no-trapping-math", "no-math-errno")
#define PL_KERNEL(name) name##_generic
#include "pl-transformer-kernels-impl.h"
#undef PL_KERNEL
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
# pragma GCC target ("avx2,fma")
# define PL_KERNEL(name) name##_avx2
# include "pl-transformer-kernels-impl.h"
# undef PL_KERNEL
# define HAVE_AVX2_KERNELS 1
#endif
#pragma GCC pop_options

static gint force_generic;

void
pl_kernel_force_generic (gboolean generic)
{
  g_atomic_int_set (&force_generic, generic);
}

static const Kernels *
kernels (void)
{
  static gsize chosen = 0;

  if (g_atomic_int_get (&force_generic))
    return &kernels_generic;
  if (g_once_init_enter (&chosen))
    {
      const Kernels *k = &kernels_generic;
#ifdef HAVE_AVX2_KERNELS
      if (pl_cpu_has_avx2_fma ())
        k = &kernels_avx2;
#endif
      g_once_init_leave (&chosen, (gsize) k);
    }
  return (const Kernels *) chosen;
}

void
pl_kernel_exp (float *data,
               gsize  n)
{
  kernels ()->exp_array (data, n);
}

void
pl_kernel_softmax_row (float *row,
                       gsize  n_valid,
                       gsize  n)
{
  float m, sum;

  g_assert (n_valid >= 1 && n_valid <= n);

  m = kernels ()->row_max (row, n_valid);
  sum = kernels ()->exp_shift_sum (row, n_valid, m);
  /* sum ≥ 1: the maximum contributes exp(0) */
  kernels ()->scale_row (row, n_valid, 1.0f / sum);
  if (n > n_valid)
    memset (row + n_valid, 0, (n - n_valid) * sizeof (float));
}

void
pl_kernel_activate (float        *data,
                    gsize         n,
                    PlActivation  activation)
{
  switch (activation)
    {
    case PL_ACTIVATION_GELU:
      kernels ()->gelu_erf (data, n);
      break;
    case PL_ACTIVATION_GELU_TANH:
      kernels ()->gelu_tanh (data, n);
      break;
    case PL_ACTIVATION_RELU:
      kernels ()->relu (data, n);
      break;
    case PL_ACTIVATION_SILU:
      kernels ()->silu (data, n);
      break;
    case PL_ACTIVATION_NONE:
    default:
      break;
    }
}

void
pl_kernel_layer_norm (const float *in,
                      float       *out,
                      gsize        rows,
                      gsize        cols,
                      const float *gamma,
                      const float *beta,
                      double       eps)
{
  const Kernels *k = kernels ();

  for (gsize r = 0; r < rows; r++)
    k->layer_norm_row (in + r * cols, out + r * cols, cols, gamma, beta, eps);
}

/* Mean square in double, as for the LayerNorm above. */
void
pl_kernel_rms_norm (const float *in,
                    float       *out,
                    gsize        rows,
                    gsize        cols,
                    const float *gamma,
                    double       eps)
{
  for (gsize r = 0; r < rows; r++)
    {
      const float *x = in + r * cols;
      float *y = out + r * cols;
      double squares = 0;
      float inv;

      for (gsize j = 0; j < cols; j++)
        squares += (double) x[j] * x[j];
      inv = (float) (1.0 / sqrt (squares / cols + eps));
      for (gsize j = 0; j < cols; j++)
        y[j] = gamma[j] * (x[j] * inv);
    }
}
