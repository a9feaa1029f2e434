/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-encodings.h"
#include "pl-rope.h"

/* Hugging Face computes the frequencies as float32 tensors; each line below
 * is one torch operation of modeling_rope_utils.py, rounded to float32 where
 * torch rounds. A Python number divided by a tensor is, in torch, the
 * tensor's reciprocal times the number (Tensor.__rtruediv__), hence the
 * reciprocals. */

const char *
pl_rope_scaling_name (PlRopeScaling scaling)
{
  switch (scaling)
    {
    case PL_ROPE_SCALING_LINEAR:
      return "linear";
    case PL_ROPE_SCALING_DYNAMIC:
      return "dynamic";
    case PL_ROPE_SCALING_LLAMA3:
      return "llama3";
    case PL_ROPE_SCALING_YARN:
      return "yarn";
    case PL_ROPE_SCALING_FACTORS:
      return "rope_freqs";
    case PL_ROPE_SCALING_NONE:
    default:
      return "default";
    }
}

/* 1 / base^(arange(0, dim, 2) / dim) */
static void
default_inv_freq (float  base,
                  guint  dim,
                  float *out)
{
  for (guint i = 0; i < dim / 2; i++)
    {
      float exponent = (float) (2 * i) / (float) dim;

      out[i] = 1.0f / powf (base, exponent);
    }
}

/* Llama 3.1: wavelengths longer than original / low_freq_factor are divided
 * by factor, shorter than original / high_freq_factor kept, and those between
 * interpolated smoothly by where original / wavelength falls between the two
 * factors. */
static void
llama3_inv_freq (const PlRopeSpec *spec,
                 float            *inv)
{
  float factor = (float) spec->factor;
  double low_wavelen = spec->original_max_positions / spec->low_freq_factor;
  double high_wavelen = spec->original_max_positions / spec->high_freq_factor;

  default_inv_freq ((float) spec->theta, spec->dim, inv);
  for (guint i = 0; i < spec->dim / 2; i++)
    {
      float wavelen = (1.0f / inv[i]) * (float) (2 * G_PI);
      float llama = wavelen > low_wavelen ? inv[i] / factor : inv[i];
      float smooth = ((1.0f / wavelen) * (float) spec->original_max_positions - (float) spec->low_freq_factor) /
                     (float) (spec->high_freq_factor - spec->low_freq_factor);
      float smoothed = (1.0f - smooth) * llama / factor + smooth * llama;
      gboolean medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);

      inv[i] = medium ? smoothed : llama;
    }
}

static double
yarn_mscale (double scale,
             double mscale)
{
  return scale <= 1 ? 1.0 : 0.1 * mscale * log (scale) + 1.0;
}

/* The dimension (of DIM) below which a frequency turns NUM_ROTATIONS times
 * or more over ORIGINAL positions. */
static double
yarn_correction_dim (double rotations,
                     guint  dim,
                     double base,
                     double original)
{
  return dim * log (original / (rotations * 2 * G_PI)) / (2 * log (base));
}

/* YaRN: frequencies below the ramp keep their value (extrapolation), above
 * it are divided by factor (interpolation), and between move linearly. */
static double
yarn_inv_freq (const PlRopeSpec *spec,
               float            *inv)
{
  guint dim = spec->dim;
  double original = spec->original_max_positions;
  double low = yarn_correction_dim (spec->beta_fast, dim, spec->theta, original);
  double high = yarn_correction_dim (spec->beta_slow, dim, spec->theta, original);
  double attention;

  if (spec->has_attention_factor)
    attention = spec->attention_factor;
  else if (spec->mscale != 0 && spec->mscale_all_dim != 0)
    attention = yarn_mscale (spec->factor, spec->mscale) / yarn_mscale (spec->factor, spec->mscale_all_dim);
  else
    attention = yarn_mscale (spec->factor, 1.0);

  if (spec->truncate)
    {
      low = floor (low);
      high = ceil (high);
    }
  low = MAX (low, 0);
  high = MIN (high, dim - 1);
  if (low == high)
    high += 0.001;
  for (guint i = 0; i < dim / 2; i++)
    {
      float pos_freq = powf ((float) spec->theta, (float) (2 * i) / (float) dim);
      float extrapolation = 1.0f / pos_freq;
      float interpolation = 1.0f / ((float) spec->factor * pos_freq);
      float ramp = ((float) i - (float) low) / (float) (high - low);
      float keep;

      ramp = CLAMP (ramp, 0.0f, 1.0f);
      keep = 1.0f - ramp;
      inv[i] = interpolation * (1.0f - keep) + extrapolation * keep;
    }
  return attention;
}

void
pl_rope_inv_freq (const PlRopeSpec *spec,
                  guint             n_tokens,
                  float            *inv_freq,
                  float            *attention_scaling)
{
  double attention = 1.0;

  g_return_if_fail (spec != NULL && spec->dim % 2 == 0 && spec->dim > 0);

  switch (spec->scaling)
    {
    case PL_ROPE_SCALING_LINEAR:
      default_inv_freq ((float) spec->theta, spec->dim, inv_freq);
      for (guint i = 0; i < spec->dim / 2; i++)
        inv_freq[i] /= (float) spec->factor;
      break;
    case PL_ROPE_SCALING_DYNAMIC:
      /* HF's dynamic_rope_update: a fresh model keeps the plain frequencies
       * up to max_position_embeddings and recomputes them with seq_len =
       * max(position_ids) + 1 (a tensor, so float32) for longer inputs. */
      if (n_tokens > spec->max_positions && spec->dim > 2)
        {
          float grown = (float) spec->factor * (float) n_tokens / (float) spec->max_positions -
                        (float) (spec->factor - 1);
          float base = (float) spec->theta * powf (grown, (float) ((double) spec->dim / (spec->dim - 2)));

          default_inv_freq (base, spec->dim, inv_freq);
        }
      else
        default_inv_freq ((float) spec->theta, spec->dim, inv_freq);
      break;
    case PL_ROPE_SCALING_LLAMA3:
      llama3_inv_freq (spec, inv_freq);
      break;
    case PL_ROPE_SCALING_YARN:
      attention = yarn_inv_freq (spec, inv_freq);
      break;
    case PL_ROPE_SCALING_FACTORS:
      default_inv_freq ((float) spec->theta, spec->dim, inv_freq);
      for (guint i = 0; i < spec->dim / 2; i++)
        inv_freq[i] /= spec->freq_factors[i];
      break;
    case PL_ROPE_SCALING_NONE:
    default:
      default_inv_freq ((float) spec->theta, spec->dim, inv_freq);
      break;
    }
  if (attention_scaling != NULL)
    *attention_scaling = (float) attention;
}

void
pl_rope_cos_sin (const float *inv_freq,
                 guint        half_dim,
                 float        attention_scaling,
                 guint        n_tokens,
                 float       *cos_out,
                 float       *sin_out)
{
  for (guint p = 0; p < n_tokens; p++)
    for (guint i = 0; i < half_dim; i++)
      {
        float angle = (float) p * inv_freq[i];

        cos_out[(gsize) p * half_dim + i] = (float) cos ((double) angle) * attention_scaling;
        sin_out[(gsize) p * half_dim + i] = (float) sin ((double) angle) * attention_scaling;
      }
}

void
pl_rope_rotate_row (float       *x,
                    guint        n_heads,
                    gsize        head_stride,
                    guint        half_dim,
                    const float *cos_row,
                    const float *sin_row)
{
  for (guint h = 0; h < n_heads; h++)
    {
      float *v = x + h * head_stride;

      for (guint d = 0; d < half_dim; d++)
        {
          float a = v[d], b = v[d + half_dim];

          v[d] = a * cos_row[d] - b * sin_row[d];
          v[d + half_dim] = b * cos_row[d] + a * sin_row[d];
        }
    }
}

PlMatrix *
pl_rope_decay_bound (guint  width,
                     double base,
                     guint  max_offset)
{
  guint half = width / 2;
  g_autofree double *theta = g_new (double, MAX (half, 1));
  PlMatrix *bound;

  g_return_val_if_fail (width >= 2 && width % 2 == 0, NULL);

  pl_encoding_rope_frequencies (width, base, theta);
  bound = pl_matrix_new (1, (gsize) max_offset + 1);
  for (guint m = 0; m <= max_offset; m++)
    {
      double re = 0, im = 0, sum = 0;

      /* S_i for i = 1 … d/2, each adding the next e^{i m θ_j} */
      for (guint j = 0; j < half; j++)
        {
          re += cos ((double) m * theta[j]);
          im += sin ((double) m * theta[j]);
          sum += sqrt (re * re + im * im);
        }
      bound->data[m] = (float) (sum / half);
    }
  return bound;
}
