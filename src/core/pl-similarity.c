/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

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

/* Tiles keep the transposed writes of the mirror in cache. */
#define TILE 64
/* Below this many entries one thread mirrors: a second costs more to start. */
#define MIRROR_THREAD_MIN (512 * 512)

typedef struct
{
  PlMatrix           *g;
  PlSimilarityMetric  metric;
  const float        *sq;       /* the diagonal, for L2 */
  gsize               first;    /* tile rows [first, last) */
  gsize               last;
} MirrorJob;

/* The metric over one row piece of the upper triangle, in place; one loop
 * per metric so each vectorises. */
static void
finish_run (PlSimilarityMetric  metric,
            float              *row,
            gsize               len,
            float               sq_i,
            const float        *sq_j)
{
  switch (metric)
    {
    case PL_SIMILARITY_COSINE:
      /* Clamp rounding just past ±1; NaN rows stay NaN (comparisons with
       * NaN are false, so the value passes through). */
      for (gsize c = 0; c < len; c++)
        {
          float v = row[c];
          v = v > 1.0f ? 1.0f : v;
          row[c] = v < -1.0f ? -1.0f : v;
        }
      break;
    case PL_SIMILARITY_L2:
      /* |a-b|² = |a|² + |b|² - 2 a·b, from the Gram matrix's diagonal. */
      for (gsize c = 0; c < len; c++)
        row[c] = sqrtf (MAX (0.0f, sq_i + sq_j[c] - 2.0f * row[c]));
      break;
    case PL_SIMILARITY_DOT:
    default:
      break;
    }
}

/* Turns tile rows [first, last) of the upper triangle that SSYRK wrote into
 * the metric and mirrors them into the lower one: each 64×64 tile is
 * finished row by row, then written transposed from L1 into its mirror image. */
static void
mirror_tiles (const MirrorJob *job)
{
  PlMatrix *g = job->g;
  gsize n = g->rows;

  for (gsize bi = job->first * TILE; bi < MIN (n, job->last * TILE); bi += TILE)
    {
      gsize ni = MIN (TILE, n - bi);

      /* The tile row's upper part, diagonal tile included, in one run per row. */
      for (gsize a = 0; a < ni; a++)
        {
          gsize i = bi + a;
          finish_run (job->metric, g->data + i * n + i + 1, n - i - 1,
                      job->sq ? job->sq[i] : 0, job->sq ? job->sq + i + 1 : NULL);
        }
      for (gsize bj = bi; bj < n; bj += TILE)
        {
          gsize nj = MIN (TILE, n - bj);

          /* 8×8 blocks: eight source rows feed eight destination rows,
           * so both sides move whole cache-line pieces. */
          for (gsize c0 = 0; c0 < nj; c0 += 8)
            for (gsize a0 = 0; a0 < ni && (bi != bj || a0 <= c0); a0 += 8)
              for (gsize c = c0; c < MIN (c0 + 8, nj); c++)
                {
                  float *dst = g->data + (bj + c) * n + bi;
                  const float *src = g->data + bi * n + bj + c;
                  gsize upto = MIN (a0 + 8, bi == bj ? c : ni);

                  for (gsize a = a0; a < upto; a++)
                    dst[a] = src[a * n];
                }
        }
    }
}

static gpointer
mirror_thread (gpointer data)
{
  mirror_tiles (data);
  return NULL;
}

static void
finish_and_mirror (PlMatrix           *g,
                   PlSimilarityMetric  metric)
{
  gsize n = g->rows;
  gsize tiles = (n + TILE - 1) / TILE;
  g_autofree float *sq = NULL;
  MirrorJob jobs[2];

  if (metric == PL_SIMILARITY_L2)
    {
      sq = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        sq[i] = g->data[i * n + i];
    }

  jobs[0] = (MirrorJob) { g, metric, sq, 0, tiles };
  if (n * n >= MIRROR_THREAD_MIN && g_get_num_processors () > 1)
    {
      /* Tile row t holds about tiles − t tiles: split the triangle's area in
       * two, 1 − (1 − s)² = 1/2 at s = 1 − 1/√2. */
      gsize split = (gsize) (tiles * (1.0 - G_SQRT2 / 2) + 0.5);
      GThread *thread;

      jobs[0].last = split;
      jobs[1] = (MirrorJob) { g, metric, sq, split, tiles };
      thread = g_thread_new ("pl-similarity", mirror_thread, &jobs[1]);
      mirror_tiles (&jobs[0]);
      g_thread_join (thread);
    }
  else
    mirror_tiles (&jobs[0]);

  for (gsize i = 0; i < n; i++)
    {
      float *d = &g->data[i * n + i];
      if (metric == PL_SIMILARITY_L2)
        *d = 0.0f;
      else if (metric == PL_SIMILARITY_COSINE && !isnan (*d))
        *d = 1.0f;
    }
}

/* X's rows into WORK, each scaled to unit length (NaN when it is zero), in one
 * pass that also finds non-finite values: a row's sum of squares in double is
 * finite exactly when all its values are. */
static gboolean
normalised_copy (const PlMatrix *x,
                 PlMatrix       *work)
{
  gsize n = x->rows, d = x->cols;

  for (gsize i = 0; i < n; i++)
    {
      const float *row = pl_matrix_row (x, i);
      float *out = pl_matrix_row (work, i);
      double ss = 0;

      for (gsize k = 0; k < d; k++)
        ss += (double) row[k] * row[k];
      if (!isfinite (ss))
        return FALSE;
      if (ss > 0)
        {
          float inv = (float) (1.0 / sqrt (ss));
          for (gsize k = 0; k < d; k++)
            out[k] = row[k] * inv;
        }
      else
        {
          for (gsize k = 0; k < d; k++)
            out[k] = NAN;
        }
    }
  return TRUE;
}

PlMatrix *
pl_similarity_compute (const PlMatrix      *x,
                       PlSimilarityMetric   metric,
                       gboolean             center,
                       GError             **error)
{
  g_autoptr(PlMatrix) work = NULL;
  g_autoptr(PlMatrix) g = NULL;
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
  if (!(work = pl_matrix_try_new (n, d, error)))
    return NULL;
  if (metric == PL_SIMILARITY_COSINE && !center)
    {
      /* The common case in one pass over X: check, normalise, copy. */
      if (!normalised_copy (x, work))
        goto not_finite;
    }
  else
    {
      if (!pl_matrix_all_finite (x))
        goto not_finite;
      memcpy (work->data, x->data, n * d * sizeof (float));
      if (center)
        {
          g_autofree double *mean = g_new0 (double, d);

          for (gsize i = 0; i < n; i++)
            for (gsize k = 0; k < d; k++)
              mean[k] += work->data[i * d + k];
          for (gsize k = 0; k < d; k++)
            mean[k] /= n;
          for (gsize i = 0; i < n; i++)
            for (gsize k = 0; k < d; k++)
              work->data[i * d + k] -= (float) mean[k];
        }
      /* Normalise first (in double), so one SSYRK gives the cosines directly. */
      if (metric == PL_SIMILARITY_COSINE)
        normalised_copy (work, work);
    }

  if (!(g = pl_matrix_try_new (n, n, error)))
    return NULL;

  cblas_ssyrk (CblasRowMajor, CblasUpper, CblasNoTrans,
               (blasint) n, (blasint) d, 1.0f, work->data, (blasint) d,
               0.0f, g->data, (blasint) n);
  finish_and_mirror (g, metric);

  return g_steal_pointer (&g);

not_finite:
  g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                       "the table holds NaN or infinite values");
  return NULL;
}
