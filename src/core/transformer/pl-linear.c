/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <string.h>

#include "pl-error.h"
#include "pl-executor.h"
#include "pl-linear.h"
#include "pl-transformer-kernels.h"

/* How a linear layer is split over the executor's threads. OpenBLAS packs
 * both operands of every SGEMM into its own layout before multiplying, and
 * a piece packs what it reads: split by rows of X, each of P pieces packs
 * T/P rows of X and all of W; split by columns of W, all of X and N/P
 * columns of W. The pieces go by columns when W has more columns than X
 * rows (N > T: BERT-base at 512 tokens everywhere, GPT-2 at 1024 tokens
 * except its second feed-forward product), by rows otherwise; either way
 * one piece per thread, so each packs its share once.
 *
 * Each piece also starts its block of OUT (bias, residual) before its SGEMM
 * and applies the activation after it, so those passes run on every
 * thread too. */

/* Rows or columns per piece at least: thinner products pack as much for
 * less work. Column blocks are whole AVX-512 vectors of OUT. */
#define MIN_ROWS 64
#define MIN_COLUMNS 64

typedef struct
{
  const PlMatrix *x;
  const PlMatrix *w;
  const PlMatrix *b;
  const PlMatrix *residual;
  PlActivation    activation;
  PlMatrix       *out;
  gboolean        by_columns;
  gsize           size;      /* rows or columns per piece */
} LinearJob;

/* OUT[R0 … R1)[C0 … C1) = ACTIVATION (X · W + B (+ RESIDUAL)) over that block */
static void
linear_block (const LinearJob *job,
              gsize            r0,
              gsize            r1,
              gsize            c0,
              gsize            c1)
{
  const PlMatrix *x = job->x, *w = job->w;
  PlMatrix *out = job->out;
  gsize n = out->cols, cols = c1 - c0;

  if (r1 <= r0 || cols == 0)
    return;
  for (gsize r = r0; r < r1; r++)
    {
      float *o = pl_matrix_row (out, r) + c0;
      const float *bias = job->b->data + c0;

      if (job->residual != NULL)
        {
          const float *res = pl_matrix_row (job->residual, r) + c0;

          for (gsize j = 0; j < cols; j++)
            o[j] = bias[j] + res[j];
        }
      else
        memcpy (o, bias, cols * sizeof (float));
    }
  if (x->cols > 0)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans,
                 r1 - r0, cols, x->cols,
                 1.0f, pl_matrix_row (x, r0), x->cols, w->data + c0, n,
                 1.0f, pl_matrix_row (out, r0) + c0, n);
  if (job->activation != PL_ACTIVATION_NONE)
    for (gsize r = r0; r < r1; r++)
      pl_kernel_activate (pl_matrix_row (out, r) + c0, cols, job->activation);
}

static void
linear_piece (guint    piece,
              guint    slot,
              gpointer data)
{
  const LinearJob *job = data;
  gsize first = piece * job->size;

  if (job->by_columns)
    linear_block (job, 0, job->x->rows, first, MIN (job->out->cols, first + job->size));
  else
    linear_block (job, first, MIN (job->x->rows, first + job->size), 0, job->out->cols);
}

static void
check_shapes (const PlMatrix *x,
              const PlMatrix *w,
              const PlMatrix *b,
              const PlMatrix *residual,
              PlMatrix       *out)
{
  g_assert (x->cols == w->rows && out->rows == x->rows && out->cols == w->cols);
  g_assert (b->rows * b->cols == w->cols);
  g_assert (residual == NULL || (residual->rows == x->rows && residual->cols == w->cols));
}

gboolean
pl_linear (const PlMatrix      *x,
           const PlMatrix      *w,
           const PlLinearTiles *tiles,
           const PlMatrix      *b,
           const PlMatrix      *residual,
           PlActivation         activation,
           PlMatrix            *out,
           GError             **error)
{
  PlExecutor *executor = pl_executor_get_default ();
  guint n_threads = pl_executor_get_n_threads (executor);
  LinearJob job = { x, w, b, residual, activation, out };
  gsize t = x->rows, n = out->cols, pieces;

  g_assert (w != NULL || tiles != NULL);
  if (tiles != NULL && pl_linear_amx (x, tiles, b, residual, activation, out))
    return TRUE;
  if (w == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "out of memory for a linear layer's %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " input", t, x->cols);
      return FALSE;
    }
  check_shapes (x, w, b, residual, out);
  if (t == 0 || n == 0)
    return TRUE;
  job.by_columns = n > t;
  if (job.by_columns)
    {
      job.size = MAX (MIN_COLUMNS, (n + n_threads - 1) / n_threads);
      job.size = (job.size + 15) / 16 * 16;
      pieces = (n + job.size - 1) / job.size;
    }
  else
    {
      job.size = MAX (MIN_ROWS, (t + n_threads - 1) / n_threads);
      pieces = (t + job.size - 1) / job.size;
    }
  pl_executor_for (executor, (guint) pieces, linear_piece, &job);
  return TRUE;
}

void
pl_linear_plain (const PlMatrix *x,
                 const PlMatrix *w,
                 const PlMatrix *b,
                 const PlMatrix *residual,
                 PlActivation    activation,
                 PlMatrix       *out)
{
  LinearJob job = { x, w, b, residual, activation, out };

  check_shapes (x, w, b, residual, out);
  linear_block (&job, 0, x->rows, 0, w->cols);
}

typedef struct
{
  const PlMatrix *in;
  PlMatrix       *out;
  const float    *gamma;
  const float    *beta;
  double          eps;
  gsize           rows;    /* per piece */
} NormJob;

static void
norm_piece (guint    piece,
            guint    slot,
            gpointer data)
{
  const NormJob *job = data;
  gsize r0 = piece * job->rows, r1 = MIN (job->in->rows, r0 + job->rows);

  pl_kernel_layer_norm (pl_matrix_row (job->in, r0), pl_matrix_row (job->out, r0), r1 - r0, job->in->cols,
                        job->gamma, job->beta, job->eps);
}

void
pl_layer_norm_rows (const PlMatrix *in,
                    PlMatrix       *out,
                    const float    *gamma,
                    const float    *beta,
                    double          eps)
{
  PlExecutor *executor = pl_executor_get_default ();
  guint n_threads = pl_executor_get_n_threads (executor);
  NormJob job = { in, out, gamma, beta, eps };

  g_assert (in->rows == out->rows && in->cols == out->cols);
  if (in->rows == 0)
    return;
  job.rows = MAX (MIN_ROWS, (in->rows + n_threads - 1) / n_threads);
  pl_executor_for (executor, (guint) ((in->rows + job.rows - 1) / job.rows), norm_piece, &job);
}
