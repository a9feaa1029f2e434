/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pl-cpu.h"
#include "pl-error.h"
#include "pl-executor.h"
#include "pl-similarity.h"
#include "pl-transpose-private.h"

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

/* Large tables: the Gram matrix's lower triangle in blocks, each by one
 * single-threaded SGEMM (or SSYRK on the diagonal) on our own threads,
 * finished and mirrored while it is still in cache. OpenBLAS's own SSYRK
 * does not scale to two threads (measured 100-107 GFLOP/s on two cores
 * against 61-69 on one, at 4096 × 1024) and leaves the mirror as a second
 * pass over the whole result. Most of the time is still the SGEMM kernel
 * (80% of the samples at 4096 × 1024); OpenBLAS's packing, the kernel
 * zeroing the fresh result and the mirror take 5-6% each. */

/* Row panels of the Gram matrix at most (see split_blocks). */
#define MAX_PANELS 64

/* Columns per tile of the finish-and-mirror: the block's rows are read
 * 64 columns at a time, and the 64 rows they are written to take whole
 * runs of the block's height. */
#define TILE 64

/* Rows [r0, r0 + rows) against rows [c0, c1): below the diagonal when
 * c1 <= r0, the diagonal block itself when c0 == r0. */
typedef struct
{
  gsize r0, rows, c0, c1;
} GramBlock;

typedef struct
{
  const float        *x;        /* the rows the Gram matrix is of */
  gsize               n;
  gsize               d;
  PlMatrix           *g;
  PlSimilarityMetric  metric;
  const float        *scale;    /* cosine: 1/‖row‖ (NaN for zero), or NULL when X is normalised */
  double             *ss;       /* each row's sum of squares, in double */
  gsize               norm_rows;      /* rows per chunk of the norms */
  guint               n_norm_chunks;
  gint                next;     /* atomic: the next chunk of norms or block to take */
  GramBlock          *gram_blocks;   /* the lower triangle's, largest first */
  guint               n_gram_blocks;
  GCancellable       *cancellable;   /* checked before each block */
} GramJob;

/* The finished value of Gram entry (i, j): cosine scales by 1/(‖a‖‖b‖)
 * and clamps rounding just past ±1 (NaN, from zero rows, passes through:
 * comparisons with NaN are false); dot and L2 keep the product, L2 is
 * finished after all blocks from the diagonal (see pl_similarity_compute). */
static inline float
finish_value (const GramJob *job,
              gsize          i,
              gsize          j,
              float          v)
{
  if (job->metric != PL_SIMILARITY_COSINE)
    return v;
  if (job->scale != NULL)
    v *= job->scale[i] * job->scale[j];
  v = v > 1.0f ? 1.0f : v;
  return v < -1.0f ? -1.0f : v;
}

/* Entries (i, j), j < i, of the 8×8 block at (I0, J0) that lie inside the
 * block's rows (< IE): finished in place and copied to (j, i). */
static void
finish_block (const GramJob *job,
              float         *g,
              gsize          i0,
              gsize          j0,
              gsize          ie)
{
  gsize n = job->n;

  for (gsize j = j0; j < j0 + 8 && j < ie; j++)
    for (gsize i = MAX (i0, j + 1); i < MIN (i0 + 8, ie); i++)
      g[j * n + i] = g[i * n + j] = finish_value (job, i, j, g[i * n + j]);
}

#ifdef PL_HAVE_TRANSPOSE8
# define HAVE_BLOCK_AVX2 1

/* The same for a whole 8×8 block below the diagonal: eight rows loaded,
 * finished, stored back, transposed in registers and stored as eight
 * rows above the diagonal, so both sides move whole 32-byte pieces. */
__attribute__ ((target ("avx2")))
static void
finish_block_avx2 (const GramJob *job,
                   float         *g,
                   gsize          i0,
                   gsize          j0)
{
  gsize n = job->n;
  __m256 r[8], t[8];

  for (guint k = 0; k < 8; k++)
    r[k] = _mm256_loadu_ps (g + (i0 + k) * n + j0);
  if (job->metric == PL_SIMILARITY_COSINE)
    {
      const __m256 one = _mm256_set1_ps (1.0f), minus_one = _mm256_set1_ps (-1.0f);
      __m256 sj = job->scale ? _mm256_loadu_ps (job->scale + j0) : one;

      for (guint k = 0; k < 8; k++)
        {
          __m256 v = job->scale ? _mm256_mul_ps (_mm256_mul_ps (r[k], _mm256_set1_ps (job->scale[i0 + k])), sj)
                                : r[k];

          /* min/max return their second operand when one is NaN: NaN stays. */
          v = _mm256_min_ps (one, v);
          r[k] = _mm256_max_ps (minus_one, v);
          _mm256_storeu_ps (g + (i0 + k) * n + j0, r[k]);
        }
    }
  pl_transpose8 (r, t);
  for (guint k = 0; k < 8; k++)
    _mm256_storeu_ps (g + (j0 + k) * n + i0, t[k]);
}
#endif

/* One block of the Gram matrix's lower triangle, then finished and
 * written transposed above the diagonal in 8×8 blocks, a 64-column tile
 * at a time so the blocks come from L2. */
static void
gram_block (const GramJob   *job,
            const GramBlock *b)
{
  gsize n = job->n, d = job->d, r0 = b->r0, ie = b->r0 + b->rows;
  float *g = job->g->data;
#ifdef HAVE_BLOCK_AVX2
  gboolean avx2 = pl_cpu_has_avx2_fma ();
#endif

  /* The result is fresh from pl_matrix_try_new, all zeros: adding to it
   * (β = 1) spares OpenBLAS its pass that clears C for β = 0 (1.4% of the
   * samples). */
  if (b->c0 == r0)
    cblas_ssyrk (CblasRowMajor, CblasLower, CblasNoTrans, (blasint) b->rows, (blasint) d,
                 1.0f, job->x + r0 * d, (blasint) d, 1.0f, g + r0 * n + r0, (blasint) n);
  else
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) b->rows, (blasint) (b->c1 - b->c0),
                 (blasint) d, 1.0f, job->x + r0 * d, (blasint) d, job->x + b->c0 * d, (blasint) d,
                 1.0f, g + r0 * n + b->c0, (blasint) n);

  for (gsize bj = b->c0; bj < b->c1; bj += TILE)
    for (gsize i0 = MAX (r0, bj); i0 < ie; i0 += 8)
      for (gsize j0 = bj; j0 < MIN (bj + TILE, b->c1) && j0 < i0 + 8; j0 += 8)
        {
#ifdef HAVE_BLOCK_AVX2
          if (avx2 && j0 + 8 <= i0 && i0 + 8 <= ie)
            {
              finish_block_avx2 (job, g, i0, j0);
              continue;
            }
#endif
          finish_block (job, g, i0, j0, ie);
        }

  /* A cosine's diagonal is exactly 1, or NaN for a zero row. */
  if (job->metric == PL_SIMILARITY_COSINE && b->c0 == r0)
    for (gsize i = r0; i < ie; i++)
      {
        float *diag = g + i * n + i;

        if (job->scale != NULL)
          *diag = isnan (job->scale[i]) ? NAN : 1.0f;
        else if (!isnan (*diag))
          *diag = 1.0f;
      }
}

/* Each row's sum of squares in double, a block of rows at a time. */
static gpointer
norms_worker (gpointer data)
{
  GramJob *job = data;
  guint b;

  while ((b = (guint) g_atomic_int_add (&job->next, 1)) < job->n_norm_chunks)
    for (gsize i = b * job->norm_rows; i < MIN (job->n, (b + 1) * job->norm_rows); i++)
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

/* Blocks from the largest down, so that the small ones at the end even
 * out the threads' shares. */
static gpointer
gram_worker (gpointer data)
{
  GramJob *job = data;
  guint b;

  while (!g_cancellable_is_cancelled (job->cancellable) &&
         (b = (guint) g_atomic_int_add (&job->next, 1)) < job->n_gram_blocks)
    gram_block (job, &job->gram_blocks[b]);
  return NULL;
}

/* A Gram matrix of this many rows or more is split into blocks over
 * threads: below, one BLAS call is quicker than starting them. */
#define PANEL_MIN_ROWS 256
/* Rows per panel (and columns per block) at most. Each block's SGEMM packs
 * its rows and columns again, so large blocks pack least (measured with
 * whole panels at 4096 × 1024: 256 rows per panel spent 13% of the time
 * packing, 1024 rows 7%); a 1024-row block's 64-column tile (256 KiB)
 * still fits L2 for the mirror. */
#define PANEL_MAX_ROWS 1024
/* Below this, 1/‖row‖ scales the raw Gram matrix: squares of larger or
 * smaller rows leave float32's range, and those rows are normalised first. */
#define SCALE_SS_MAX 1e30
#define SCALE_SS_MIN 1e-30

static gsize
block_cost (const GramBlock *b)
{
  return b->c0 == b->r0 ? b->rows * (b->rows + 1) / 2 : b->rows * (b->c1 - b->c0);
}

/* Largest first; of equal ones the lower first. */
static int
compare_blocks (gconstpointer a,
                gconstpointer b)
{
  const GramBlock *p = a, *q = b;
  gsize cp = block_cost (p), cq = block_cost (q);

  if (cp != cq)
    return cp > cq ? -1 : 1;
  return p->r0 > q->r0 ? -1 : p->r0 < q->r0;
}

/* Row panels of BLOCK rows (multiples of 8, for the 8×8 blocks), each cut
 * into BLOCK-wide column blocks left of the diagonal and its diagonal
 * block, handed out largest first. Whole panels were too coarse: at
 * 4096 × 1024 the two threads drew panels of 3½ and 2½ + 1½ diagonal
 * blocks' area and finished 7-9 ms apart (of 125), because the costs per
 * area differ by panel (page faults, the mirror) and from run to run.
 * Blocks of one or one half let whichever thread is ahead take more; the
 * panel's rows are packed again for each of its blocks (1 ms each). Two
 * panels per thread at least; the top panel, short and cheap, cut into a
 * quarter, a quarter and a half, so that the last blocks are small. */
static void
split_blocks (GramJob *job,
              guint    n_workers)
{
  gsize n = job->n, block, start[MAX_PANELS + 1];
  guint n_panels = 0, k = 0;

  block = (n + 2 * MAX (n_workers, 2) - 1) / (2 * MAX (n_workers, 2));
  block = MIN (PANEL_MAX_ROWS, block);
  /* At most MAX_PANELS − 2 full panels, the top one cut in three. */
  block = MAX (block, (n + MAX_PANELS - 3) / (MAX_PANELS - 2));
  block = (block + 7) / 8 * 8;
  start[n_panels++] = 0;
  if (block >= 64)
    {
      start[n_panels++] = block / 4 / 8 * 8;
      start[n_panels++] = block / 2 / 8 * 8;
    }
  for (gsize r = block; r < n; r += block)
    start[n_panels++] = r;
  start[n_panels] = n;

  job->gram_blocks = g_new (GramBlock, n_panels * (n / block + 2));
  for (guint p = 0; p < n_panels; p++)
    {
      gsize r0 = start[p], rows = start[p + 1] - r0;

      for (gsize c0 = 0; c0 < r0; c0 += block)
        job->gram_blocks[k++] = (GramBlock) { r0, rows, c0, MIN (c0 + block, r0) };
      job->gram_blocks[k++] = (GramBlock) { r0, rows, r0, r0 + rows };
    }
  job->n_gram_blocks = k;
  qsort (job->gram_blocks, k, sizeof (GramBlock), compare_blocks);
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

PlMatrix *
pl_similarity_compute (const PlMatrix      *x,
                       PlSimilarityMetric   metric,
                       gboolean             center,
                       GCancellable        *cancellable,
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
  /* Before any pass over X: the result is what can be too large. */
  if (!pl_similarity_check_size (n, error))
    return NULL;
  n_workers = n < PANEL_MIN_ROWS ? 1 : pl_executor_get_n_threads (pl_executor_get_default ());

  job.x = x->data;
  job.n = n;
  job.d = d;
  job.metric = metric;
  job.cancellable = cancellable;
  job.ss = ss = g_new (double, n);
  job.norm_rows = 64;
  job.n_norm_chunks = (guint) ((n + job.norm_rows - 1) / job.norm_rows);
  /* The sums of squares double as the check for NaN and infinities: float
   * values cannot overflow a double sum, so a sum is finite exactly when
   * its row is. */
  pl_executor_split (pl_executor_get_default (), n_workers, norms_worker, &job);
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
      pl_executor_split (pl_executor_get_default (), n_workers, norms_worker, &job);
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
  job.g = g;
  split_blocks (&job, n_workers);
  job.next = 0;
  pl_executor_split (pl_executor_get_default (), n_workers, gram_worker, &job);
  g_free (job.gram_blocks);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

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
