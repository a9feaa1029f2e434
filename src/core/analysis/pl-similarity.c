/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-executor.h"
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

/* X's rows as the product takes them, in chunks on the executor's threads:
 * minus the column means (in double) when centring, divided by their norm
 * for cosine (a zero row becomes NaN: its cosines are undefined). */
#define ROW_CHUNK 64

typedef struct
{
  const PlMatrix *x;
  PlMatrix       *work;
  const double   *mean;        /* or NULL */
  gboolean        normalise;
  gint            not_finite;  /* atomic: a row held NaN or an infinity */
} RowsJob;

static void
prepare_rows (guint    piece,
              guint    slot,
              gpointer data)
{
  RowsJob *job = data;
  gsize d = job->x->cols, r0 = (gsize) piece * ROW_CHUNK;

  for (gsize i = r0; i < MIN (job->x->rows, r0 + ROW_CHUNK); i++)
    {
      const float *in = pl_matrix_row (job->x, i);
      float *out = pl_matrix_row (job->work, i);
      double ss = 0, scale;

      for (gsize k = 0; k < d; k++)
        {
          out[k] = job->mean != NULL ? (float) (in[k] - job->mean[k]) : in[k];
          ss += (double) out[k] * out[k];
        }
      /* Float values cannot overflow a double sum: it is finite exactly
       * when the row is. */
      if (!isfinite (ss))
        g_atomic_int_set (&job->not_finite, 1);
      if (!job->normalise)
        continue;
      scale = ss > 0 ? 1.0 / sqrt (ss) : NAN;
      for (gsize k = 0; k < d; k++)
        out[k] = (float) (out[k] * scale);
    }
}

/* The Gram matrix of the rows (normalised for cosine, centred when asked):
 * its lower triangle by row panels, each one SSYRK on the diagonal and one
 * SGEMM left of it, then finished and mirrored above the diagonal by bands
 * of rows; both are pieces on the executor's threads, the largest panels
 * first. The cancellable is looked at before each panel. */

/* Row panels of the Gram matrix, at least PANEL_MIN_ROWS rows each (a
 * multiple of 8), and rows per band of the mirror. */
#define N_PANELS       16
#define PANEL_MIN_ROWS 64
#define BAND           64

typedef struct
{
  const PlMatrix     *x;         /* normalised, centred or as given */
  PlMatrix           *g;
  PlSimilarityMetric  metric;
  gsize               panel;     /* rows per panel */
  guint               n_panels;
  const float        *sq;        /* L2: each row's squared norm */
  GCancellable       *cancellable;
} GramJob;

/* Panel PIECE from the bottom (the largest first): its rows against every
 * row up to its own. */
static void
gram_panel (guint    piece,
            guint    slot,
            gpointer data)
{
  GramJob *job = data;
  gsize n = job->g->cols, d = job->x->cols;
  gsize r0 = (job->n_panels - 1 - piece) * job->panel, rows = MIN (job->panel, n - r0);

  if (g_cancellable_is_cancelled (job->cancellable))
    return;
  /* G is fresh from pl_matrix_try_new, all zeros: adding to it (β = 1)
   * spares BLAS a pass that clears it first. */
  cblas_ssyrk (CblasRowMajor, CblasLower, CblasNoTrans, (blasint) rows, (blasint) d,
               1.0f, pl_matrix_row (job->x, r0), (blasint) d, 1.0f, pl_matrix_row (job->g, r0) + r0, (blasint) n);
  if (r0 > 0)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) rows, (blasint) r0, (blasint) d,
                 1.0f, pl_matrix_row (job->x, r0), (blasint) d, job->x->data, (blasint) d,
                 1.0f, pl_matrix_row (job->g, r0), (blasint) n);
}

/* Entries [J0, J1) of row I of the lower triangle, finished in place:
 * cosine clamps rounding just past ±1 (NaN, from a zero row, passes); L2
 * is |a − b| = √(|a|² + |b|² − 2 a·b), |a|² from the same Gram matrix. */
static void
finish_row (const GramJob *job,
            gsize          i,
            float         *row,
            gsize          j0,
            gsize          j1)
{
  if (job->metric == PL_SIMILARITY_COSINE)
    for (gsize j = j0; j < j1; j++)
      row[j] = row[j] > 1.0f ? 1.0f : row[j] < -1.0f ? -1.0f : row[j];
  else if (job->metric == PL_SIMILARITY_L2)
    for (gsize j = j0; j < j1; j++)
      row[j] = sqrtf (MAX (0.0f, job->sq[i] + job->sq[j] - 2.0f * row[j]));
}

/* Rows [BAND·piece, …) finished and mirrored above the diagonal, a
 * BAND × BAND tile at a time: the tile's rows are read and finished in
 * place, kept transposed in a buffer and written out as rows, so both sides
 * move contiguous runs. The diagonal is set last. */
static void
finish_band (guint    piece,
             guint    slot,
             gpointer data)
{
  GramJob *job = data;
  float *g = job->g->data;
  gsize n = job->g->cols, r0 = (gsize) piece * BAND, r1 = MIN (n, r0 + BAND);
  float tile[BAND][BAND];

  for (gsize j0 = 0; j0 < r1; j0 += BAND)
    {
      gsize j1 = MIN (j0 + BAND, r1);

      for (gsize i = r0; i < r1; i++)
        {
          float *row = g + i * n;
          gsize end = MIN (j1, i);

          finish_row (job, i, row, j0, end);
          for (gsize j = j0; j < end; j++)
            tile[j - j0][i - r0] = row[j];
        }
      for (gsize j = j0; j < j1; j++)
        if (j + 1 < r1)
          {
            gsize first = MAX (r0, j + 1);

            memcpy (g + j * n + first, &tile[j - j0][first - r0], (r1 - first) * sizeof (float));
          }
    }
  for (gsize i = r0; i < r1; i++)
    {
      float *diag = g + i * n + i;

      if (job->metric == PL_SIMILARITY_L2)
        *diag = 0.0f;
      else if (job->metric == PL_SIMILARITY_COSINE && !isnan (*diag))
        *diag = 1.0f;
    }
}

gboolean
pl_similarity_check_size (gsize    n,
                          GError **error)
{
  if (!pl_matrix_check_size (n, n, error))
    {
      g_prefix_error (error, "the similarity of %" G_GSIZE_FORMAT " positions: ", n);
      return FALSE;
    }
  return TRUE;
}

gboolean
pl_similarity_check_rows (const PlMatrix      *x,
                          guint                first,
                          PlSimilarityMetric   metric,
                          gboolean             center,
                          GError             **error)
{
  g_autoptr(GArray) zero_rows = NULL;
  g_autofree char *list = NULL;

  g_return_val_if_fail (x != NULL, FALSE);

  if (metric != PL_SIMILARITY_COSINE || center)
    return TRUE;
  pl_matrix_find_bad_rows (x, NULL, NULL, &zero_rows);
  if (zero_rows->len == 0)
    return TRUE;
  list = pl_matrix_describe_rows (zero_rows, first);
  g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES,
               "%s %s %s all zeros, so %s no direction and no cosine: the dot product and the Euclidean "
               "distance can compare %s, and so can the cosine of the centred table",
               zero_rows->len == 1 ? "position" : "positions", list, zero_rows->len == 1 ? "is" : "are",
               zero_rows->len == 1 ? "it has" : "they have", zero_rows->len == 1 ? "it" : "them");
  return FALSE;
}

PlMatrix *
pl_similarity_compute (const PlMatrix      *x,
                       PlSimilarityMetric   metric,
                       gboolean             center,
                       GCancellable        *cancellable,
                       GError             **error)
{
  PlExecutor *executor = pl_executor_get_default ();
  g_autoptr(PlMatrix) work = NULL;
  g_autoptr(PlMatrix) g = NULL;
  g_autofree double *mean = NULL;
  g_autofree float *sq = NULL;
  gsize n, d;
  RowsJob rows = { x, NULL, NULL, metric == PL_SIMILARITY_COSINE };
  GramJob job = { 0 };

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
  /* Before any pass over X: the result is what can be too large. */
  if (!pl_similarity_check_size (n, error))
    return NULL;
  if (!(work = pl_matrix_try_new (n, d, error)))
    return NULL;
  if (center)
    {
      rows.mean = mean = g_new0 (double, d);
      for (gsize i = 0; i < n; i++)
        for (gsize k = 0; k < d; k++)
          mean[k] += x->data[i * d + k];
      for (gsize k = 0; k < d; k++)
        mean[k] /= n;
    }
  rows.work = work;
  pl_executor_for (executor, (guint) ((n + ROW_CHUNK - 1) / ROW_CHUNK), prepare_rows, &rows);
  if (rows.not_finite)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_BAD_VALUES, "the table holds NaN or infinite values");
      return NULL;
    }
  if (!(g = pl_matrix_try_new (n, n, error)))
    return NULL;

  job.x = work;
  job.g = g;
  job.metric = metric;
  job.cancellable = cancellable;
  job.panel = (MAX (PANEL_MIN_ROWS, (n + N_PANELS - 1) / N_PANELS) + 7) / 8 * 8;
  job.n_panels = (guint) ((n + job.panel - 1) / job.panel);
  pl_executor_for (executor, job.n_panels, gram_panel, &job);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (metric == PL_SIMILARITY_L2)
    {
      job.sq = sq = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        sq[i] = g->data[i * n + i];
    }
  pl_executor_for (executor, (guint) ((n + BAND - 1) / BAND), finish_band, &job);
  return g_steal_pointer (&g);
}
