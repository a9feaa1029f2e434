/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "pl-blas.h"
#include "pl-error.h"
#include "pl-similarity.h"

const char *
pl_similarity_metric_to_string (PlSimilarityMetric metric)
{
  switch (metric)
    {
    case PL_SIMILARITY_COSINE: return "cosine";
    case PL_SIMILARITY_DOT:    return "dot";
    case PL_SIMILARITY_L2:     return "l2";
    default:                   g_return_val_if_reached (NULL);
    }
}

gboolean
pl_similarity_metric_from_string (const char         *name,
                                  PlSimilarityMetric *metric)
{
  for (PlSimilarityMetric m = PL_SIMILARITY_COSINE; m <= PL_SIMILARITY_L2; m++)
    if (g_strcmp0 (name, pl_similarity_metric_to_string (m)) == 0)
      {
        *metric = m;
        return TRUE;
      }
  return FALSE;
}

/* Large tables: the Gram matrix in panels of rows, each panel's lower part
 * by one single-threaded SGEMM on our own threads, finished and mirrored
 * while it is still in cache. OpenBLAS's own SSYRK splits the triangle
 * unevenly between threads (measured 107 GFLOP/s on two cores against
 * 2 × 68 single-threaded) and leaves the mirror as a second pass over
 * the whole result. */

/* Columns per tile of the finish-and-mirror: 64 floats of a row are one
 * run for the vectorised metric, and a 64×64 tile transposes within L1. */
#define TILE 64

typedef struct
{
  const float        *x;        /* the rows the Gram matrix is of */
  gsize               n;
  gsize               d;
  PlMatrix           *g;
  PlSimilarityMetric  metric;
  const float        *scale;    /* cosine: 1/‖row‖ (NaN for zero), or NULL when X is normalised */
  double             *ss;       /* each row's sum of squares, in double */
  gsize               block;    /* rows per panel (and per chunk of the norms) */
  guint               n_blocks;
  gint                next;     /* atomic: the next block to take */
} GramJob;

/* The metric over one run of row I of the lower triangle, in place; one loop
 * per metric so each vectorises. L2 is finished after all panels, from the
 * Gram matrix's diagonal (see pl_similarity_compute). */
static void
finish_run (const GramJob *job,
            gsize          i,
            float         *row,
            gsize          first,
            gsize          len)
{
  if (job->metric != PL_SIMILARITY_COSINE)
    return;
  if (job->scale != NULL)
    {
      const float *s = job->scale + first;
      float si = job->scale[i];

      /* Clamp rounding just past ±1; NaN (zero rows) passes through, as
       * comparisons with NaN are false. */
      for (gsize c = 0; c < len; c++)
        {
          float v = row[first + c] * si * s[c];
          v = v > 1.0f ? 1.0f : v;
          row[first + c] = v < -1.0f ? -1.0f : v;
        }
    }
  else
    for (gsize c = 0; c < len; c++)
      {
        float v = row[first + c];
        v = v > 1.0f ? 1.0f : v;
        row[first + c] = v < -1.0f ? -1.0f : v;
      }
}

/* Rows [r0, r0 + rows) of the Gram matrix, left of the diagonal and on it,
 * then finished and written transposed above the diagonal, tile by tile so
 * the transposed writes come from L1. */
static void
gram_panel (const GramJob *job,
            gsize          r0,
            gsize          rows)
{
  gsize n = job->n, d = job->d;
  float *g = job->g->data;

  /* The diagonal block by SSYRK (lower), the rest by SGEMM. */
  if (r0 > 0)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) rows, (blasint) r0, (blasint) d,
                 1.0f, job->x + r0 * d, (blasint) d, job->x, (blasint) d, 0.0f, g + r0 * n, (blasint) n);
  cblas_ssyrk (CblasRowMajor, CblasLower, CblasNoTrans, (blasint) rows, (blasint) d,
               1.0f, job->x + r0 * d, (blasint) d, 0.0f, g + r0 * n + r0, (blasint) n);

  for (gsize bj = 0; bj < r0 + rows; bj += TILE)
    for (gsize bi = r0; bi < r0 + rows; bi += TILE)
      {
        gsize ie = MIN (bi + TILE, r0 + rows);
        gsize je = MIN (bj + TILE, r0 + rows);

        if (bj >= ie)
          continue;
        for (gsize i = bi; i < ie; i++)
          if (MIN (je, i) > bj)
            finish_run (job, i, g + i * n, bj, MIN (je, i) - bj);
        /* 8×8 blocks: eight source rows feed eight destination rows, so
         * both sides move whole cache-line pieces. */
        for (gsize i0 = bi; i0 < ie; i0 += 8)
          for (gsize j = bj; j < MIN (je, i0 + 8); j++)
            {
              float *dst = g + j * n;

              for (gsize i = MAX (i0, j + 1); i < MIN (i0 + 8, ie); i++)
                dst[i] = g[i * n + j];
            }
      }
  for (gsize i = r0; i < r0 + rows; i++)
    {
      float *diag = g + i * n + i;

      if (job->metric == PL_SIMILARITY_COSINE)
        *diag = job->scale == NULL ? (isnan (*diag) ? NAN : 1.0f) : (isnan (job->scale[i]) ? NAN : 1.0f);
    }
}

/* Each row's sum of squares in double, a block of rows at a time. */
static gpointer
norms_worker (gpointer data)
{
  GramJob *job = data;
  guint b;

  while ((b = (guint) g_atomic_int_add (&job->next, 1)) < job->n_blocks)
    for (gsize i = b * job->block; i < MIN (job->n, (b + 1) * job->block); i++)
      {
        const float *row = job->x + i * job->d;
        gsize d4 = job->d / 4 * 4;
        double acc[4] = { 0 };

        /* Four running sums: one would chain every addition to the last. */
        for (gsize k = 0; k < d4; k += 4)
          for (guint u = 0; u < 4; u++)
            acc[u] += (double) row[k + u] * row[k + u];
        for (gsize k = d4; k < job->d; k++)
          acc[0] += (double) row[k] * row[k];
        job->ss[i] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
      }
  return NULL;
}

/* Panels from the longest (the bottom) up, so that the short ones at the
 * end even out the threads' shares. */
static gpointer
gram_worker (gpointer data)
{
  GramJob *job = data;
  guint p;

  while ((p = (guint) g_atomic_int_add (&job->next, 1)) < job->n_blocks)
    {
      gsize r0 = (gsize) (job->n_blocks - 1 - p) * job->block;

      gram_panel (job, r0, MIN (job->block, job->n - r0));
    }
  return NULL;
}

/* A Gram matrix of this many rows or more is split into panels over
 * threads: below, one BLAS call is quicker than starting them. */
#define PANEL_MIN_ROWS 256
/* Rows per panel: about an eighth of the table, at most 256 so a panel's
 * tile column (256×64 floats) stays in L2 while it is mirrored. */
#define PANEL_MAX_ROWS 256
/* Below this, 1/‖row‖ scales the raw Gram matrix: squares of larger or
 * smaller rows leave float32's range, and those rows are normalised first. */
#define SCALE_SS_MAX 1e30
#define SCALE_SS_MIN 1e-30

/* Huge pages for a large result, as numpy takes for its arrays: writing a
 * 4096² result then takes 32 page faults instead of 16384 (measured 10% of
 * the cosine's time). Only advice; the buffer is fresh from calloc, not
 * yet touched. */
static void
advise_huge_pages (float *data,
                   gsize  n_bytes)
{
#ifdef MADV_HUGEPAGE
  const guintptr huge = 2 << 20;
  guintptr start = ((guintptr) data + huge - 1) & ~(huge - 1);
  guintptr end = ((guintptr) data + n_bytes) & ~(huge - 1);

  if (end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

/* X minus its column means, into WORK. */
static void
centred_copy (const PlMatrix *x,
              PlMatrix       *work)
{
  gsize n = x->rows, d = x->cols;
  g_autofree double *mean = g_new0 (double, d);

  for (gsize i = 0; i < n; i++)
    for (gsize k = 0; k < d; k++)
      mean[k] += x->data[i * d + k];
  for (gsize k = 0; k < d; k++)
    mean[k] /= n;
  for (gsize i = 0; i < n; i++)
    for (gsize k = 0; k < d; k++)
      work->data[i * d + k] = (float) (x->data[i * d + k] - mean[k]);
}

PlMatrix *
pl_similarity_compute (const PlMatrix      *x,
                       PlSimilarityMetric   metric,
                       gboolean             center,
                       GError             **error)
{
  g_autoptr(PlMatrix) work = NULL;
  g_autoptr(PlMatrix) g = NULL;
  g_autofree double *ss = NULL;
  g_autofree float *scale = NULL;
  GramJob job = { 0 };
  guint n_workers;
  gsize n, d;

  g_return_val_if_fail (x != NULL, NULL);

  n = x->rows;
  d = x->cols;
  if (n == 0 || d == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "cannot compare the rows of an empty %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " table",
                   n, d);
      return NULL;
    }
  n_workers = n < PANEL_MIN_ROWS ? 1 : pl_blas_split_threads ();

  job.x = x->data;
  job.n = n;
  job.d = d;
  job.metric = metric;
  job.ss = ss = g_new (double, n);
  job.block = 64;
  job.n_blocks = (guint) ((n + job.block - 1) / job.block);
  /* The sums of squares double as the check for NaN and infinities: float
   * values cannot overflow a double sum, so a sum is finite exactly when
   * its row is. */
  pl_blas_run_split (n_workers, norms_worker, &job);
  for (gsize i = 0; i < n; i++)
    if (!isfinite (ss[i]))
      {
        g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                             "the table holds NaN or infinite values");
        return NULL;
      }

  if (center)
    {
      if (!(work = pl_matrix_try_new (n, d, error)))
        return NULL;
      centred_copy (x, work);
      job.x = work->data;
      job.next = 0;
      pl_blas_run_split (n_workers, norms_worker, &job);
    }

  if (metric == PL_SIMILARITY_COSINE)
    {
      /* The Gram matrix of the raw rows scaled by 1/(‖a‖‖b‖) in the finish
       * costs no pass over X; rows whose squares leave float32's range are
       * normalised in a copy first. */
      gboolean in_range = TRUE;

      scale = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        {
          scale[i] = ss[i] > 0 ? (float) (1.0 / sqrt (ss[i])) : NAN;
          if (ss[i] > SCALE_SS_MAX || (ss[i] > 0 && ss[i] < SCALE_SS_MIN))
            in_range = FALSE;
        }
      if (!in_range)
        {
          if (work == NULL && !(work = pl_matrix_try_new (n, d, error)))
            return NULL;
          for (gsize i = 0; i < n; i++)
            {
              const float *row = job.x + i * d;
              float *out = pl_matrix_row (work, i);

              for (gsize k = 0; k < d; k++)
                out[k] = ss[i] > 0 ? (float) (row[k] / sqrt (ss[i])) : NAN;
            }
          job.x = work->data;
          g_clear_pointer (&scale, g_free);
        }
      job.scale = scale;
    }

  if (!(g = pl_matrix_try_new (n, n, error)))
    return NULL;
  advise_huge_pages (g->data, n * n * sizeof (float));
  job.g = g;
  job.block = MIN (PANEL_MAX_ROWS, MAX ((n + 7) / 8, 32));
  job.n_blocks = (guint) ((n + job.block - 1) / job.block);
  job.next = 0;
  pl_blas_run_split (n_workers, gram_worker, &job);

  if (metric == PL_SIMILARITY_L2)
    {
      /* |a-b|² = |a|² + |b|² - 2 a·b, with |a|² from the same Gram matrix:
       * a row's distance to itself is then exactly zero. */
      g_autofree float *sq = g_new (float, n);

      for (gsize i = 0; i < n; i++)
        sq[i] = g->data[i * n + i];
      for (gsize i = 0; i < n; i++)
        {
          float *row = pl_matrix_row (g, i);

          for (gsize j = 0; j < n; j++)
            row[j] = sqrtf (MAX (0.0f, sq[i] + sq[j] - 2.0f * row[j]));
          row[i] = 0.0f;
        }
    }

  return g_steal_pointer (&g);
}
