/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <string.h>

#include "pl-stored-gemm.h"

/* float32 copies of W's rows are made this many bytes at a time */
#define BLOCK_BYTES ((gsize) 8 << 20)

/* OUT's rows start as BIAS (+ RESIDUAL), or zero */
static void
start_rows (const PlMatrix *bias,
            const PlMatrix *residual,
            PlMatrix       *out)
{
  gsize n = out->cols;

  for (gsize r = 0; r < out->rows; r++)
    {
      float *o = pl_matrix_row (out, r);

      if (residual != NULL && bias != NULL)
        {
          const float *res = pl_matrix_row (residual, r);

          for (gsize j = 0; j < n; j++)
            o[j] = bias->data[j] + res[j];
        }
      else if (residual != NULL)
        {
          if (residual != out)
            memcpy (o, pl_matrix_row (residual, r), n * sizeof (float));
        }
      else if (bias != NULL)
        memcpy (o, bias->data, n * sizeof (float));
      else
        memset (o, 0, n * sizeof (float));
    }
}

void
pl_stored_gemm_plain (const PlMatrix       *x,
                      const PlStoredMatrix *w,
                      const PlMatrix       *bias,
                      const PlMatrix       *residual,
                      PlMatrix             *out)
{
  gsize t = x->rows, k = x->cols, n = w->rows;
  g_autofree float *block = NULL;
  gsize block_rows;

  g_assert (w->cols == k && out->rows == t && out->cols == n);
  g_assert (bias == NULL || bias->rows * bias->cols == n);
  g_assert (residual == NULL || (residual->rows == t && residual->cols == n));

  start_rows (bias, residual, out);
  if (t == 0 || n == 0 || k == 0)
    return;
  if (w->type == PL_STORED_F32)
    {
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, t, n, k,
                   1.0f, x->data, k, (const float *) w->data, k, 1.0f, out->data, n);
      return;
    }
  block_rows = CLAMP (BLOCK_BYTES / (k * sizeof (float)), 1, n);
  block = g_new (float, block_rows * k);
  for (gsize first = 0; first < n; first += block_rows)
    {
      gsize rows = MIN (block_rows, n - first);

      pl_stored_matrix_to_float (w, first, rows, block);
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, t, rows, k,
                   1.0f, x->data, k, block, k, 1.0f, out->data + first, n);
    }
}

void
pl_stored_gemm (const PlMatrix       *x,
                const PlStoredMatrix *w,
                const PlMatrix       *bias,
                const PlMatrix       *residual,
                PlMatrix             *out)
{
  pl_stored_gemm_plain (x, w, bias, residual, out);
}
