/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-executor.h"
#include "pl-stored-gemm-private.h"

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

/* The product is split over the executor's threads by blocks of W's rows
 * (OUT's columns): each piece makes its block float32 (unless W is) in
 * the scratch of its thread and runs one single-threaded SGEMM. */
typedef struct
{
  const PlMatrix       *x;
  const PlStoredMatrix *w;
  float                *out;
  gsize                 ldo;
  gsize                 block_rows;
  float                *scratch;   /* block_rows × K per executor thread, or NULL for float32 W */
} GemmJob;

static void
gemm_piece (guint    piece,
            guint    slot,
            gpointer data)
{
  GemmJob *job = data;
  gsize k = job->x->cols, n = job->w->rows, first = piece * job->block_rows;
  gsize rows = MIN (job->block_rows, n - first);
  const float *block = (const float *) job->w->data + first * k;

  if (job->scratch != NULL)
    {
      float *own = job->scratch + slot * job->block_rows * k;

      pl_stored_matrix_to_float (job->w, first, rows, own);
      block = own;
    }
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, job->x->rows, rows, k,
               1.0f, job->x->data, k, block, k, 1.0f, job->out + first, job->ldo);
}

/* OUT [T, LDO] += X · Wᵀ by single-threaded SGEMMs over the executor's
 * threads */
static void
add_product_plain (const PlMatrix       *x,
                   const PlStoredMatrix *w,
                   float                *out,
                   gsize                 ldo)
{
  PlExecutor *executor = pl_executor_get_default ();
  guint n_threads = pl_executor_get_n_threads (executor);
  gsize n = w->rows, k = x->cols;
  g_autofree float *scratch = NULL;
  GemmJob job = { x, w, out, ldo };

  /* A block per thread at least, and none past BLOCK_BYTES of float32. */
  job.block_rows = CLAMP (MIN (BLOCK_BYTES / (k * sizeof (float)), (n + n_threads - 1) / n_threads), 1, n);
  if (w->type != PL_STORED_F32)
    job.scratch = scratch = g_new (float, n_threads * job.block_rows * k);
  pl_executor_for (executor, (guint) ((n + job.block_rows - 1) / job.block_rows), gemm_piece, &job);
}

/* OUT [T, LDO] += X · Wᵀ, on the tuned paths unless PLAIN */
static void
add_product (const PlMatrix       *x,
             const PlStoredMatrix *w,
             float                *out,
             gsize                 ldo,
             gboolean              plain)
{
  if (x->rows == 0 || w->rows == 0 || w->cols == 0)
    return;
  if (!plain && (pl_stored_gemm_amx (x, w, out, ldo) || pl_stored_gemm_bf16 (x, w, out, ldo)))
    return;
  add_product_plain (x, w, out, ldo);
}

static void
check_shapes (const PlMatrix       *x,
              const PlStoredMatrix *w,
              const PlMatrix       *bias,
              const PlMatrix       *residual,
              PlMatrix             *out)
{
  g_assert (w->cols == x->cols && out->rows == x->rows && out->cols == w->rows);
  g_assert (bias == NULL || bias->rows * bias->cols == w->rows);
  g_assert (residual == NULL || (residual->rows == x->rows && residual->cols == w->rows));
}

void
pl_stored_gemm_plain (const PlMatrix       *x,
                      const PlStoredMatrix *w,
                      const PlMatrix       *bias,
                      const PlMatrix       *residual,
                      PlMatrix             *out)
{
  check_shapes (x, w, bias, residual, out);
  start_rows (bias, residual, out);
  add_product (x, w, out->data, out->cols, TRUE);
}

void
pl_stored_gemm (const PlMatrix       *x,
                const PlStoredMatrix *w,
                const PlMatrix       *bias,
                const PlMatrix       *residual,
                PlMatrix             *out)
{
  check_shapes (x, w, bias, residual, out);
  start_rows (bias, residual, out);
  add_product (x, w, out->data, out->cols, FALSE);
}

static void
columns (const PlMatrix       *x,
         const PlStoredMatrix *w,
         const float          *bias,
         PlMatrix             *out,
         gsize                 first,
         gboolean              plain)
{
  gsize n = w->rows;

  g_assert (w->cols == x->cols && out->rows == x->rows && first <= out->cols && n <= out->cols - first);
  for (gsize r = 0; r < out->rows; r++)
    {
      float *o = pl_matrix_row (out, r) + first;

      if (bias != NULL)
        memcpy (o, bias, n * sizeof (float));
      else
        memset (o, 0, n * sizeof (float));
    }
  add_product (x, w, out->data + first, out->cols, plain);
}

void
pl_stored_gemm_columns (const PlMatrix       *x,
                        const PlStoredMatrix *w,
                        const float          *bias,
                        PlMatrix             *out,
                        gsize                 first)
{
  columns (x, w, bias, out, first, FALSE);
}

void
pl_stored_gemm_columns_plain (const PlMatrix       *x,
                              const PlStoredMatrix *w,
                              const float          *bias,
                              PlMatrix             *out,
                              gsize                 first)
{
  columns (x, w, bias, out, first, TRUE);
}

gboolean
pl_stored_gemm_rounds_activations (const PlStoredMatrix *w)
{
  g_return_val_if_fail (w != NULL, FALSE);
  return (w->type == PL_STORED_BF16 || pl_stored_type_is_blocks (w->type)) && pl_cpu_has_avx512_bf16 ();
}

PlStoredMatrix *
pl_stored_gemm_prepare (PlStoredMatrix  *w,
                        GCancellable    *cancellable,
                        GError         **error)
{
  g_return_val_if_fail (w != NULL, NULL);

  if (w->type == PL_STORED_BF16 && pl_cpu_has_amx_bf16 ())
    return pl_stored_matrix_to_tiles (w, cancellable, error);
  return pl_stored_matrix_ref (w);
}
