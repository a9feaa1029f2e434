/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-grid.h"

/* Keys' cubic convolution with a = −0.75, torch's choice for bicubic. */
#define CUBIC_A (-0.75f)

const char *
pl_grid_resample_to_string (PlGridResample resample)
{
  switch (resample)
    {
    case PL_GRID_RESAMPLE_SIZE:  return "size";
    case PL_GRID_RESAMPLE_TENTH: return "tenth";
    default:                     g_return_val_if_reached (NULL);
    }
}

gboolean
pl_grid_resample_from_string (const char     *name,
                              PlGridResample *resample)
{
  for (PlGridResample r = PL_GRID_RESAMPLE_SIZE; r <= PL_GRID_RESAMPLE_TENTH; r++)
    if (g_strcmp0 (name, pl_grid_resample_to_string (r)) == 0)
      {
        *resample = r;
        return TRUE;
      }
  return FALSE;
}

/* The kernel's weight at distance x ≤ 1 and at 1 < x < 2. */
static inline float
cubic_near (float x)
{
  return ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1;
}

static inline float
cubic_far (float x)
{
  return ((CUBIC_A * x - 5 * CUBIC_A) * x + 8 * CUBIC_A) * x - 4 * CUBIC_A;
}

/* The four source indices (clamped to the edges) and weights for each of
 * OUT_SIZE outputs along one side of IN_SIZE. STEP is the source distance
 * between outputs, in float as torch keeps it. */
static void
taps (guint   in_size,
      guint   out_size,
      float   step,
      guint  *index,
      float  *weight)
{
  for (guint o = 0; o < out_size; o++)
    {
      float real = step * ((float) o + 0.5f) - 0.5f;
      gint64 base = MIN ((gint64) floorf (real), (gint64) in_size - 1);
      float t = CLAMP (real - (float) base, 0.0f, 1.0f);
      float u = 1.0f - t;

      weight[4 * o + 0] = cubic_far (t + 1.0f);
      weight[4 * o + 1] = cubic_near (t);
      weight[4 * o + 2] = cubic_near (u);
      weight[4 * o + 3] = cubic_far (u + 1.0f);
      for (guint k = 0; k < 4; k++)
        index[4 * o + k] = (guint) CLAMP (base - 1 + (gint64) k, 0, (gint64) in_size - 1);
    }
}

/* Source distance between outputs: 1 / scale_factor when F.interpolate gets
 * one (computed in double, kept in float), else in / out in float. */
static float
step_for (guint           in_size,
          guint           out_size,
          PlGridResample  resample)
{
  if (resample == PL_GRID_RESAMPLE_TENTH)
    {
      double scale = ((double) out_size + 0.1) / (double) in_size;

      return (float) (1.0 / scale);
    }
  return (float) in_size / (float) out_size;
}

PlMatrix *
pl_grid_interpolate (const PlMatrix  *patches,
                     guint            rows,
                     guint            cols,
                     guint            new_rows,
                     guint            new_cols,
                     PlGridResample   resample,
                     GCancellable    *cancellable,
                     GError         **error)
{
  g_autoptr(PlMatrix) out = NULL;
  g_autofree guint *y_index = NULL, *x_index = NULL;
  g_autofree float *y_weight = NULL, *x_weight = NULL;
  g_autofree float *part = NULL;
  gsize width;

  g_return_val_if_fail (patches != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (rows == 0 || cols == 0 || patches->rows != (gsize) rows * cols)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a table of %" G_GSIZE_FORMAT " patches is not a %u × %u grid", patches->rows, rows, cols);
      return NULL;
    }
  if (new_rows == 0 || new_cols == 0 || new_rows > PL_GRID_MAX_SIDE || new_cols > PL_GRID_MAX_SIDE)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a %u × %u grid: each side must be 1 to %u patches", new_rows, new_cols, PL_GRID_MAX_SIDE);
      return NULL;
    }
  /* interpolate_pos_encoding returns the table itself for the image size it
   * was trained on. */
  if (new_rows == rows && new_cols == cols && rows == cols)
    return pl_matrix_copy (patches);

  width = patches->cols;
  if (!(out = pl_matrix_try_new ((gsize) new_rows * new_cols, width, error)))
    return NULL;
  y_index = g_new (guint, 4 * (gsize) new_rows);
  x_index = g_new (guint, 4 * (gsize) new_cols);
  y_weight = g_new (float, 4 * (gsize) new_rows);
  x_weight = g_new (float, 4 * (gsize) new_cols);
  part = g_new (float, MAX (width, 1));
  taps (rows, new_rows, step_for (rows, new_rows, resample), y_index, y_weight);
  taps (cols, new_cols, step_for (cols, new_cols, resample), x_index, x_weight);

  for (guint oy = 0; oy < new_rows; oy++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      for (guint ox = 0; ox < new_cols; ox++)
        {
          float *dst = pl_matrix_row (out, (gsize) oy * new_cols + ox);
          const float *wx = x_weight + 4 * ox, *wy = y_weight + 4 * oy;

          /* Along the row first, then the four rows weighted, in torch's order. */
          for (guint i = 0; i < 4; i++)
            {
              gsize line = (gsize) y_index[4 * oy + i] * cols;
              const float *s0 = pl_matrix_row (patches, line + x_index[4 * ox + 0]);
              const float *s1 = pl_matrix_row (patches, line + x_index[4 * ox + 1]);
              const float *s2 = pl_matrix_row (patches, line + x_index[4 * ox + 2]);
              const float *s3 = pl_matrix_row (patches, line + x_index[4 * ox + 3]);

              for (gsize c = 0; c < width; c++)
                part[c] = s0[c] * wx[0] + s1[c] * wx[1] + s2[c] * wx[2] + s3[c] * wx[3];
              if (i == 0)
                for (gsize c = 0; c < width; c++)
                  dst[c] = part[c] * wy[0];
              else
                for (gsize c = 0; c < width; c++)
                  dst[c] += part[c] * wy[i];
            }
        }
    }
  return g_steal_pointer (&out);
}

PlMatrix *
pl_grid_similarity (const PlMatrix      *patches,
                    const PlMatrix      *special,
                    PlSimilarityMetric   metric,
                    PlMatrix           **special_out,
                    GCancellable        *cancellable,
                    GError             **error)
{
  g_autoptr(PlMatrix) stacked = NULL;
  g_autoptr(PlMatrix) all = NULL;
  PlMatrix *out;
  gsize n, k;

  g_return_val_if_fail (patches != NULL, NULL);
  g_return_val_if_fail (special == NULL || special->cols == patches->cols, NULL);
  g_return_val_if_fail (special == NULL || special_out != NULL, NULL);

  if (special == NULL || special->rows == 0)
    {
      if (special_out != NULL)
        *special_out = NULL;
      return pl_similarity_compute (patches, metric, FALSE, cancellable, error);
    }

  n = patches->rows;
  k = special->rows;
  if (!pl_similarity_check_size (n + k, error) || !(stacked = pl_matrix_try_new (n + k, patches->cols, error)))
    return NULL;
  memcpy (stacked->data, patches->data, n * patches->cols * sizeof (float));
  memcpy (stacked->data + n * patches->cols, special->data, k * special->cols * sizeof (float));
  if (!(all = pl_similarity_compute (stacked, metric, FALSE, cancellable, error)))
    return NULL;

  out = pl_matrix_new (n, n);
  *special_out = pl_matrix_new (k, n);
  for (gsize i = 0; i < n; i++)
    memcpy (out->data + i * n, pl_matrix_row (all, i), n * sizeof (float));
  for (gsize i = 0; i < k; i++)
    memcpy ((*special_out)->data + i * n, pl_matrix_row (all, n + i), n * sizeof (float));
  return out;
}

PlMatrix *
pl_grid_pca_colors (const PlPca *pca)
{
  PlMatrix *rgb;
  gsize n;

  g_return_val_if_fail (pca != NULL, NULL);

  n = pca->projection->rows;
  rgb = pl_matrix_new (n, 3);
  for (guint k = 0; k < 3; k++)
    {
      double lo = INFINITY, hi = -INFINITY;

      if (k < pca->n_components)
        for (gsize i = 0; i < n; i++)
          {
            double v = pl_matrix_get (pca->projection, i, k);

            lo = MIN (lo, v);
            hi = MAX (hi, v);
          }
      for (gsize i = 0; i < n; i++)
        rgb->data[i * 3 + k] = k < pca->n_components && hi > lo
                                 ? (float) ((pl_matrix_get (pca->projection, i, k) - lo) / (hi - lo))
                                 : 0.5f;
    }
  return rgb;
}
