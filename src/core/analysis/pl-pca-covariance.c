/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-executor.h"
#include "pl-pca-private.h"

/* The covariance cross-product and the projections of a large table without
 * a centred copy of it (a write and a read of the whole table): rows are
 * centred a chunk at a time into a buffer that stays in cache, and the
 * chunks are shared among the executor's threads. It runs at the rate of
 * a two-thread SSYRK; what it saves is the copy. */

/* Rows per chunk: a 256×1024 float32 chunk is 1 MiB, and K = 256 is
 * already long enough for SSYRK's inner kernel. */
#define CHUNK_ROWS 256
#define MAX_SLOTS 16

typedef struct
{
  const PlMatrix *x;
  const double   *mean;
  GCancellable   *cancellable;
  guint           n_chunks;
  guint           n_slots;
  gint            next;       /* atomic: the next chunk to take */
  gint            slot;       /* atomic: the next slot to take */
  /* Sums: slot s holds chunks s, s + n_slots, ..., so that each partial
   * sum, and so the total, is the same from run to run whichever thread
   * takes it. Slot 0 of the covariance accumulates into S, the others into
   * their own. */
  float          *partial[MAX_SLOTS];
  double         *column_ss[MAX_SLOTS];
  /* Projection. */
  const PlMatrix *components;
  PlMatrix       *projection;
} ChunkJob;

/* One row minus the mean, in double, into OUT as float, adding its squares
 * to each column's sum: a single running total would chain every addition
 * to the last, and the separate pointers let the loop vectorise. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__ ((optimize ("O3")))
#endif
PL_ALSO_FOR_AVX2 void
pl_pca_centre_row (const float  *restrict row,
                   const double *restrict mean,
                   gsize                  d,
                   float        *restrict out,
                   double       *restrict column_ss)
{
  for (gsize j = 0; j < d; j++)
    {
      double v = (double) row[j] - mean[j];

      out[j] = (float) v;
      column_ss[j] += v * v;
    }
}

/* Chunk C's rows of X, centred, into BUF; returns how many there are. */
static gsize
centre_chunk (const ChunkJob *job,
              guint           c,
              float          *buf,
              double         *column_ss)
{
  gsize n = job->x->rows, d = job->x->cols;
  gsize r0 = (gsize) c * CHUNK_ROWS, rows = MIN (CHUNK_ROWS, n - r0);

  for (gsize r = 0; r < rows; r++)
    pl_pca_centre_row (pl_matrix_row (job->x, r0 + r), job->mean, d, buf + r * d, column_ss);
  return rows;
}

/* How many slots the chunks are dealt into: one per thread that may help. */
static guint
count_slots (guint n_chunks)
{
  return MIN (MIN (pl_executor_get_n_threads (pl_executor_get_default ()), n_chunks), MAX_SLOTS);
}

/* SUM[j] += ROW[j] for j < D. */
PL_ALSO_FOR_AVX2 static void
add_row (double      *restrict sum,
         const float *restrict row,
         gsize                 d)
{
  for (gsize j = 0; j < d; j++)
    sum[j] += row[j];
}

/* Each column's sum over the chunks of each slot this thread takes. */
static gpointer
sums_worker (gpointer data)
{
  ChunkJob *job = data;
  gsize n = job->x->rows, d = job->x->cols;
  guint slot;

  while ((slot = (guint) g_atomic_int_add (&job->slot, 1)) < job->n_slots)
    {
      double *sum = job->column_ss[slot] = g_new0 (double, d);

      for (guint c = slot; c < job->n_chunks; c += job->n_slots)
        for (gsize i = (gsize) c * CHUNK_ROWS; i < MIN (n, ((gsize) c + 1) * CHUNK_ROWS); i++)
          add_row (sum, pl_matrix_row (job->x, i), d);
    }
  return NULL;
}

gboolean
pl_pca_column_means (const PlMatrix *x,
                     double         *mean)
{
  ChunkJob job = { 0 };
  gsize d = x->cols;
  gboolean finite = TRUE;

  job.x = x;
  job.n_chunks = (guint) ((x->rows + CHUNK_ROWS - 1) / CHUNK_ROWS);
  job.n_slots = count_slots (job.n_chunks);
  pl_executor_split (pl_executor_get_default (), job.n_slots, sums_worker, &job);

  memset (mean, 0, d * sizeof (double));
  for (guint t = 0; t < job.n_slots; t++)
    {
      for (gsize j = 0; j < d; j++)
        mean[j] += job.column_ss[t][j];
      g_free (job.column_ss[t]);
    }
  /* Float values cannot overflow a double sum: a sum is finite exactly
   * when its column is. */
  for (gsize j = 0; j < d; j++)
    {
      finite = finite && isfinite (mean[j]);
      mean[j] /= x->rows;
    }
  return finite;
}

static gpointer
covariance_worker (gpointer data)
{
  ChunkJob *job = data;
  gsize d = job->x->cols;
  g_autofree float *buf = g_new (float, CHUNK_ROWS * d);
  guint slot;

  while ((slot = (guint) g_atomic_int_add (&job->slot, 1)) < job->n_slots)
    {
      float beta = 0.0f;
      float *s;

      if (slot > 0)
        job->partial[slot] = g_new (float, d * d);
      s = job->partial[slot];
      job->column_ss[slot] = g_new0 (double, d);
      for (guint c = slot; c < job->n_chunks && !g_cancellable_is_cancelled (job->cancellable); c += job->n_slots)
        {
          gsize rows = centre_chunk (job, c, buf, job->column_ss[slot]);

          /* Row-major upper = column-major lower. */
          cblas_ssyrk (CblasRowMajor, CblasUpper, CblasTrans, (blasint) d, (blasint) rows,
                       1.0f, buf, (blasint) d, beta, s, (blasint) d);
          beta = 1.0f;
        }
      if (beta == 0.0f)
        memset (s, 0, d * d * sizeof (float));
    }
  return NULL;
}

void
pl_pca_covariance (const PlMatrix *x,
                   const double   *mean,
                   float          *s,
                   double         *column_ss,
                   GCancellable   *cancellable)
{
  ChunkJob job = { 0 };
  gsize d = x->cols;

  job.x = x;
  job.mean = mean;
  job.cancellable = cancellable;
  job.n_chunks = (guint) ((x->rows + CHUNK_ROWS - 1) / CHUNK_ROWS);
  job.partial[0] = s;
  job.n_slots = count_slots (job.n_chunks);
  pl_executor_split (pl_executor_get_default (), job.n_slots, covariance_worker, &job);

  memset (column_ss, 0, d * sizeof (double));
  for (guint t = 0; t < job.n_slots; t++)
    {
      for (gsize j = 0; j < d; j++)
        column_ss[j] += job.column_ss[t][j];
      g_free (job.column_ss[t]);
      if (t == 0)
        continue;
      for (gsize i = 0; i < d; i++)
        for (gsize j = i; j < d; j++)
          s[i * d + j] += job.partial[t][i * d + j];
      g_free (job.partial[t]);
    }
}

static gpointer
projection_worker (gpointer data)
{
  ChunkJob *job = data;
  gsize d = job->x->cols, kk = job->components->rows;
  g_autofree float *buf = g_new (float, CHUNK_ROWS * d);
  g_autofree double *unused_ss = g_new0 (double, d);
  guint c;

  while ((c = (guint) g_atomic_int_add (&job->next, 1)) < job->n_chunks)
    {
      gsize rows = centre_chunk (job, c, buf, unused_ss);

      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) rows, (blasint) kk, (blasint) d,
                   1.0f, buf, (blasint) d, job->components->data, (blasint) d,
                   0.0f, pl_matrix_row (job->projection, (gsize) c * CHUNK_ROWS), (blasint) kk);
    }
  return NULL;
}

void
pl_pca_project (const PlMatrix *x,
                const double   *mean,
                const PlMatrix *components,
                PlMatrix       *projection)
{
  ChunkJob job = { 0 };

  job.x = x;
  job.mean = mean;
  job.n_chunks = (guint) ((x->rows + CHUNK_ROWS - 1) / CHUNK_ROWS);
  job.components = components;
  job.projection = projection;
  pl_executor_split (pl_executor_get_default (), job.n_chunks, projection_worker, &job);
}
