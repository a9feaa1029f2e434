/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "pl-cpu.h"
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
 * minus the column means (zero when not centring), divided by their norm
 * for cosine (a zero row becomes NaN: its cosines are undefined), in
 * double and rounded once. */
#define ROW_CHUNK 64

typedef struct
{
  const PlMatrix *x;
  float          *work;
  const double   *mean;
  gboolean        normalise;
  gint            not_finite;  /* atomic: a row held NaN or an infinity */
} RowsJob;

/* The sum of (V[k] − MEAN[k])² over k < D, in eight partial sums that the
 * compiler keeps in vector registers. */
PL_ALSO_FOR_AVX2 static double
sum_of_squares (const float  *v,
                const double *mean,
                gsize         d)
{
  double s[8] = { 0 }, ss = 0;
  gsize k = 0;

  for (; k + 8 <= d; k += 8)
    {
      double t[8];

      for (guint l = 0; l < 8; l++)
        t[l] = v[k + l] - mean[k + l];
      for (guint l = 0; l < 8; l++)
        s[l] += t[l] * t[l];
    }
  for (; k < d; k++)
    ss += (v[k] - mean[k]) * (v[k] - mean[k]);
  return ss + ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* OUT[k] = (IN[k] − MEAN[k]) × SCALE for k < D, eight at a time as above. */
PL_ALSO_FOR_AVX2 static void
scale_row (float        *restrict out,
           const float  *restrict in,
           const double *mean,
           gsize         d,
           double        scale)
{
  gsize k = 0;

  for (; k + 8 <= d; k += 8)
    for (guint l = 0; l < 8; l++)
      out[k + l] = (float) ((in[k + l] - mean[k + l]) * scale);
  for (; k < d; k++)
    out[k] = (float) ((in[k] - mean[k]) * scale);
}

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
      double ss = sum_of_squares (in, job->mean, d);

      /* Float values cannot overflow a double sum: it is finite exactly
       * when the row is. */
      if (!isfinite (ss))
        g_atomic_int_set (&job->not_finite, 1);
      scale_row (job->work + i * d, in, job->mean, d, !job->normalise ? 1.0 : ss > 0 ? 1.0 / sqrt (ss) : NAN);
    }
}

/* The Gram matrix of the rows (normalised for cosine, centred when asked)
 * by square blocks of its lower triangle: one SGEMM for each block left of
 * the diagonal, one SSYRK for each block on it, each block finished and
 * mirrored above the diagonal by the thread that computed it while it is
 * still in that thread's cache. The blocks are pieces on the executor's
 * threads, the whole ones first, each a single-threaded BLAS call; the
 * cancellable is looked at before each. Larger blocks spend less of their
 * time in BLAS's packing of the operands, smaller ones balance the threads
 * and answer a cancel sooner. */
#define BLOCK_MIN 128
#define BLOCK_MAX 512
#define TILE      64

typedef struct
{
  const float        *x;         /* normalised, centred or as given: n × d */
  gsize               d;
  PlMatrix           *g;
  PlSimilarityMetric  metric;
  gsize               block;     /* rows and columns per block */
  guint               n_rows;    /* blocks down the diagonal */
  GCancellable       *cancellable;
  gint                skipped;   /* atomic: a block was left out, cancelled */
} GramJob;

/* Rows per block: a quarter of N rounded up to 64, within BLOCK_MIN …
 * BLOCK_MAX. */
static gsize
gram_block_size (gsize n)
{
  return CLAMP ((n / 4 + 63) / 64 * 64, BLOCK_MIN, BLOCK_MAX);
}

/* Entries [J0, J1) of row I clamped to ±1: the cosine of normalised rows
 * can round just past them (NaN, from a zero row, passes). */
static void
clamp_row (float *row,
           gsize  j0,
           gsize  j1)
{
  gsize j = j0;

  /* Eight at a time, so that the compiler keeps them in vector registers. */
  for (; j + 8 <= j1; j += 8)
    for (guint l = 0; l < 8; l++)
      row[j + l] = row[j + l] > 1.0f ? 1.0f : row[j + l] < -1.0f ? -1.0f : row[j + l];
  for (; j < j1; j++)
    row[j] = row[j] > 1.0f ? 1.0f : row[j] < -1.0f ? -1.0f : row[j];
}

/* Rows [I0, I1) × columns [J0, J1) of the lower triangle (J1 ≤ I0) copied
 * across the diagonal, by BLAS's transposing copy. */
static void
mirror (float *g,
        gsize  n,
        gsize  i0,
        gsize  i1,
        gsize  j0,
        gsize  j1)
{
  if (i1 > i0 && j1 > j0)
    cblas_somatcopy (CblasRowMajor, CblasTrans, (blasint) (i1 - i0), (blasint) (j1 - j0), 1.0f,
                     g + i0 * n + j0, (blasint) n, g + j0 * n + i0, (blasint) n);
}

/* The block of rows [I0, I1) and columns [J0, J1) of the lower triangle
 * (J1 ≤ I0, or J0 = I0 for a block on the diagonal, whose entries past it
 * are not computed), finished in place and copied across the diagonal
 * while it is still in the cache: cosine clamps and sets its diagonal to 1
 * (NaN stays). A block on the diagonal goes by strips of TILE rows, the
 * part left of the strip's own square by BLAS, the triangle of that square
 * by hand. */
static void
finish_block (const GramJob *job,
              gsize          i0,
              gsize          i1,
              gsize          j0,
              gsize          j1)
{
  float *g = job->g->data;
  gsize n = job->g->cols;
  gboolean cosine = job->metric == PL_SIMILARITY_COSINE;

  if (cosine)
    for (gsize i = i0; i < i1; i++)
      clamp_row (g + i * n, j0, MIN (j1, i));
  if (j0 < i0)
    {
      mirror (g, n, i0, i1, j0, j1);
      return;
    }
  for (gsize s = i0; s < i1; s += TILE)
    {
      gsize s1 = MIN (i1, s + TILE);

      mirror (g, n, s, s1, i0, s);
      for (gsize i = s; i < s1; i++)
        for (gsize j = s; j < i; j++)
          g[j * n + i] = g[i * n + j];
    }
  if (cosine)
    for (gsize i = i0; i < i1; i++)
      if (!isnan (g[i * n + i]))
        g[i * n + i] = 1.0f;
}

/* Block PIECE: the blocks left of the diagonal first, row by row (block
 * row r holds r of them), then the diagonal ones. */
static void
gram_block (guint    piece,
            guint    slot,
            gpointer data)
{
  GramJob *job = data;
  gsize n = job->g->cols, d = job->d, b = job->block;
  guint n_left = job->n_rows * (job->n_rows - 1) / 2, r = 1, c;
  gsize i0, i1, j0;
  float *g = job->g->data;

  if (g_cancellable_is_cancelled (job->cancellable))
    {
      g_atomic_int_set (&job->skipped, 1);
      return;
    }
  /* β = 0: BLAS writes each block before it reads it. With β = 1 on the
   * fresh result it would read first, mapping the zero page, and each page's
   * copy on the write after would flush the other cores' TLBs. */
  if (piece >= n_left)
    {
      i0 = (piece - n_left) * b;
      i1 = MIN (n, i0 + b);
      cblas_ssyrk (CblasRowMajor, CblasLower, CblasNoTrans, (blasint) (i1 - i0), (blasint) d,
                   1.0f, job->x + i0 * d, (blasint) d, 0.0f, g + i0 * n + i0, (blasint) n);
      finish_block (job, i0, i1, i0, i1);
      return;
    }
  for (c = piece; c >= r; c -= r++)
    ;
  i0 = r * b;
  i1 = MIN (n, i0 + b);
  j0 = c * b;
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) (i1 - i0), (blasint) b, (blasint) d,
               1.0f, job->x + i0 * d, (blasint) d, job->x + j0 * d, (blasint) d,
               0.0f, g + i0 * n + j0, (blasint) n);
  finish_block (job, i0, i1, j0, j0 + b);
}

/* Row PIECE of the Euclidean distances, both triangles: |a − b| =
 * √(|a|² + |b|² − 2 a·b), the squared norms SQ from the Gram matrix's
 * diagonal, so that a row's distance to itself is 0. */
typedef struct
{
  PlMatrix    *g;
  const float *sq;
} DistanceJob;

static void
distance_row (guint    piece,
              guint    slot,
              gpointer data)
{
  DistanceJob *job = data;
  gsize n = job->g->cols;
  float *row = pl_matrix_row (job->g, piece), sq = job->sq[piece];

  for (gsize j = 0; j < n; j++)
    row[j] = sqrtf (MAX (0.0f, sq + job->sq[j] - 2.0f * row[j]));
  row[piece] = 0.0f;
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
  g_autofree float *work = NULL;
  g_autoptr(PlMatrix) g = NULL;
  g_autofree double *mean = NULL;
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
  if (!(work = g_try_malloc (n * d * sizeof (float))))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "out of memory for a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " matrix", n, d);
      return NULL;
    }
  rows.mean = mean = g_new0 (double, d);
  if (center)
    {
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
  job.d = d;
  job.g = g;
  job.metric = metric;
  job.cancellable = cancellable;
  job.block = gram_block_size (n);
  job.n_rows = (guint) ((n + job.block - 1) / job.block);
  pl_executor_for (executor, job.n_rows * (job.n_rows + 1) / 2, gram_block, &job);
  /* Cancelled only if a block was left out: a cancel that comes after the
   * last block started leaves a whole answer. */
  if (job.skipped)
    {
      g_cancellable_set_error_if_cancelled (cancellable, error);
      return NULL;
    }
  if (metric == PL_SIMILARITY_L2)
    {
      g_autofree float *sq = g_new (float, n);
      DistanceJob distances = { g, sq };

      for (gsize i = 0; i < n; i++)
        sq[i] = g->data[i * n + i];
      pl_executor_for (executor, (guint) n, distance_row, &distances);
    }
  return g_steal_pointer (&g);
}
