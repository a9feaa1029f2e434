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

/* The final value of an entry from its Gram value. */
static inline float
finish_entry (PlSimilarityMetric  metric,
              float               g,
              const float        *sq,
              gsize               i,
              gsize               j)
{
  switch (metric)
    {
    case PL_SIMILARITY_COSINE:
      /* Clamp rounding just past ±1; NaN rows stay NaN. */
      return isnan (g) ? g : CLAMP (g, -1.0f, 1.0f);
    case PL_SIMILARITY_L2:
      /* |a-b|² = |a|² + |b|² - 2 a·b, from the Gram matrix's diagonal. */
      return sqrtf (MAX (0.0f, sq[i] + sq[j] - 2.0f * g));
    case PL_SIMILARITY_DOT:
    default:
      return g;
    }
}

/* Turns the upper triangle that SSYRK wrote into the metric and mirrors it
 * into the lower one, one pass, tile by tile. */
static void
finish_and_mirror (PlMatrix           *g,
                   PlSimilarityMetric  metric)
{
  gsize n = g->rows;
  g_autofree float *sq = NULL;

  if (metric == PL_SIMILARITY_L2)
    {
      sq = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        sq[i] = g->data[i * n + i];
    }

  /* Each upper tile goes through a small buffer, so both the tile and its
   * mirror image are written row by row (strided stores thrash the TLB). */
  for (gsize bi = 0; bi < n; bi += TILE)
    for (gsize bj = bi; bj < n; bj += TILE)
      {
        float buf[TILE][TILE];
        gsize ni = MIN (TILE, n - bi), nj = MIN (TILE, n - bj);

        for (gsize a = 0; a < ni; a++)
          {
            float *row = g->data + (bi + a) * n + bj;
            for (gsize c = 0; c < nj; c++)
              {
                /* The diagonal tile's lower half is filled from its upper half. */
                if (bi == bj && c <= a)
                  continue;
                buf[a][c] = row[c] = finish_entry (metric, row[c], sq, bi + a, bj + c);
              }
          }
        for (gsize c = 0; c < nj; c++)
          {
            float *row = g->data + (bj + c) * n + bi;
            for (gsize a = 0; a < ni; a++)
              if (bi != bj || a < c)
                row[a] = buf[a][c];
          }
      }

  for (gsize i = 0; i < n; i++)
    {
      float *d = &g->data[i * n + i];
      if (metric == PL_SIMILARITY_L2)
        *d = 0.0f;
      else if (metric == PL_SIMILARITY_COSINE && !isnan (*d))
        *d = 1.0f;
    }
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
  if (!pl_matrix_all_finite (x))
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                           "the table holds NaN or infinite values");
      return NULL;
    }

  work = pl_matrix_copy (x);
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

  if (metric == PL_SIMILARITY_COSINE)
    {
      /* Normalise first (in double), so one SSYRK gives the cosines directly. */
      for (gsize i = 0; i < n; i++)
        {
          float *row = pl_matrix_row (work, i);
          double ss = 0;

          for (gsize k = 0; k < d; k++)
            ss += (double) row[k] * row[k];
          if (ss > 0)
            {
              float inv = (float) (1.0 / sqrt (ss));
              for (gsize k = 0; k < d; k++)
                row[k] *= inv;
            }
          else
            {
              for (gsize k = 0; k < d; k++)
                row[k] = NAN;
            }
        }
    }

  if (!(g = pl_matrix_try_new (n, n, error)))
    return NULL;

  cblas_ssyrk (CblasRowMajor, CblasUpper, CblasNoTrans,
               (blasint) n, (blasint) d, 1.0f, work->data, (blasint) d,
               0.0f, g->data, (blasint) n);
  finish_and_mirror (g, metric);

  return g_steal_pointer (&g);
}
