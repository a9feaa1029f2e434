/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The probes of Wang & Chen (2020), Table 1, on the rows of a position table
 * (row i is position i): a linear regression from a row to its index
 * (absolute position) and a logistic regression deciding from two rows which
 * comes later (relative order), each cross-validated. Each fails with
 * G_IO_ERROR_CANCELLED soon after its CANCELLABLE is cancelled (checked
 * before each fold). */

typedef enum
{
  /* PE-Study's absolute.py and relative.py, seeded: the rows permuted
   * (np.random.permutation), five unshuffled folds of the permuted rows; the
   * relative probe on the first 512 rows, 512 pairs from all 512² ordered
   * pairs (i = j included, "not after"), five stratified unshuffled folds. */
  PL_PROBE_PAPER,
  /* Fold k = the rows (pairs) whose index % n_folds == k; pairs i ≠ j drawn
   * uniformly with replacement. */
  PL_PROBE_INTERLEAVED,
  /* A seeded permutation of the rows (pairs) cut into n_folds parts; pairs
   * as interleaved. */
  PL_PROBE_SHUFFLED,
} PlProbeProtocol;

#define PL_PROBE_N_PROTOCOLS 3
#define PL_PROBE_MAX_FOLDS   20
/* The paper's relative probe: the first 512 rows, and as many pairs. */
#define PL_PROBE_PAPER_ROWS  512
/* Repeats of the random draws when none are asked for. */
#define PL_PROBE_DEFAULT_REPEATS 20

typedef struct
{
  PlProbeProtocol protocol;
  guint32 seed;           /* the draws: as np.random.seed (seed) for the paper's */
  guint   n_folds;        /* 5 */
  guint   n_pairs;        /* relative probe; 0: pl_probe_default_pairs */
} PlProbeOptions;

typedef struct
{
  gsize   rows;             /* rows the absolute probe used */
  gsize   relative_rows;    /* rows the relative probe drew its pairs from */
  guint   n_pairs;
  guint   n_folds;
  guint32 seed;
  double  absolute_mae;     /* mean over folds of |round(prediction) − position| */
  double  relative_error;   /* mean over folds of the misclassified share of pairs */
  double  absolute_folds[PL_PROBE_MAX_FOLDS];
  double  relative_folds[PL_PROBE_MAX_FOLDS];
} PlProbeResult;

const char *pl_probe_protocol_to_string   (PlProbeProtocol  protocol);
gboolean    pl_probe_protocol_from_string (const char      *name,
                                           PlProbeProtocol *protocol);
void        pl_probe_options_init   (PlProbeOptions  *options);
/* The pairs the relative probe draws when OPTIONS says 0: the paper's count
 * (its rows, 512) for PL_PROBE_PAPER; otherwise enough for the error to stop
 * moving with the pair count at this table WIDTH (see pl-probes-draws.c). */
guint       pl_probe_default_pairs  (const PlProbeOptions *options,
                                     gsize                 rows,
                                     gsize                 width);

/* Absolute position: least squares with intercept from a row to its index,
 * the minimum-norm solution when the rows do not pin it down (as LAPACK's
 * gelsd behind scikit-learn's LinearRegression, cutting singular values below
 * float32 precision), predictions rounded. FOLDS, when given, gets the
 * n_folds errors. */
gboolean    pl_probe_absolute       (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     double                *mae,
                                     double                *folds,
                                     GCancellable          *cancellable,
                                     GError               **error);
/* Relative order: L2 logistic regression (C = 1, intercept not penalised,
 * solved to its optimum) on [p_i ; p_j] predicting j > i. */
gboolean    pl_probe_relative       (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     double                *error_rate,
                                     double                *folds,
                                     GCancellable          *cancellable,
                                     GError               **error);
gboolean    pl_probe_run            (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     PlProbeResult         *result,
                                     GCancellable          *cancellable,
                                     GError               **error);

/* The probes in two dimensions, for the patches of a vision transformer
 * ([ROWS × COLS, width], row by row): the absolute probe's regression of
 * each patch's row and of its column (the MAE of each, in patches), and the
 * relative probe on every ordered pair of distinct patches in one row
 * (which is further right: the order along rows) and in one column (which
 * is lower: the order along columns), each over OPTIONS' folds (the pair
 * count in OPTIONS is not read). An order no line has two patches for (a
 * grid one patch wide), or one with fewer pairs than two per fold, is NaN
 * with no pairs. */
typedef struct
{
  guint   rows;
  guint   cols;
  guint   n_folds;
  guint   row_pairs;          /* pairs in one row */
  guint   column_pairs;       /* pairs in one column */
  double  row_mae;            /* regression of the row */
  double  column_mae;         /* regression of the column */
  double  along_rows_error;   /* which of two patches in one row is further right */
  double  along_columns_error; /* which of two patches in one column is lower */
} PlGridProbeResult;

gboolean    pl_probe_grid           (const PlMatrix        *patches,
                                     guint                  rows,
                                     guint                  cols,
                                     const PlProbeOptions  *options,
                                     PlGridProbeResult     *result,
                                     GCancellable          *cancellable,
                                     GError               **error);

/* The spread of one number over repeated draws: the mean, the half-width of
 * its 95 % confidence interval (Student's t with n − 1 degrees of freedom
 * times the standard error; 0 for one run), the standard deviation of one
 * run (n − 1 in the denominator), the smallest and largest. */
typedef struct
{
  guint  n;
  double mean;
  double half_width;
  double sd;
  double min;
  double max;
} PlProbeSpread;

typedef struct
{
  PlProbeSpread absolute;
  PlProbeSpread relative;
} PlProbeSummary;

/* Whether PROTOCOL's absolute probe draws anything at random: the paper's
 * and the shuffled folds permute the rows, the interleaved folds do not, so
 * every repeat of it gives the same number. The relative probe always draws
 * its pairs. */
gboolean    pl_probe_absolute_is_random (PlProbeProtocol   protocol);
/* N_REPEATS runs with seeds options->seed, options->seed + 1, …: RUNS gets
 * N_REPEATS results. An absolute probe that draws nothing at random
 * (pl_probe_absolute_is_random) runs once, its result in every run. */
gboolean    pl_probe_repeat         (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     guint                  n_repeats,
                                     PlProbeResult         *runs,
                                     GCancellable          *cancellable,
                                     GError               **error);
/* FRACTION (0 … 1] of the runs done. */
typedef void (*PlProbeProgressFunc) (double   fraction,
                                     gpointer data);
/* pl_probe_repeat, calling PROGRESS after each run. */
gboolean    pl_probe_repeat_full    (const PlMatrix        *x,
                                     const PlProbeOptions  *options,
                                     guint                  n_repeats,
                                     PlProbeResult         *runs,
                                     PlProbeProgressFunc    progress,
                                     gpointer               progress_data,
                                     GCancellable          *cancellable,
                                     GError               **error);
/* The mean absolute error of the rounded prediction that knows nothing: the
 * middle of N positions 0 … N − 1. What the absolute probe must beat. */
double      pl_probe_chance_mae     (gsize                  n);
void        pl_probe_spread         (const double          *values,
                                     gsize                  n,
                                     PlProbeSpread         *spread);
void        pl_probe_summarise      (const PlProbeResult   *runs,
                                     guint                  n_runs,
                                     PlProbeSummary        *summary);
/* The summary of pl_probe_repeat's runs under OPTIONS: an absolute probe
 * that draws nothing at random (pl_probe_absolute_is_random) is one run,
 * its spread of n = 1 without an interval, however often it was repeated. */
void        pl_probe_summarise_repeats (const PlProbeResult  *runs,
                                     guint                  n_runs,
                                     const PlProbeOptions  *options,
                                     PlProbeSummary        *summary);
/* t such that P(|T| ≤ t) = 0.95 for Student's T with DF degrees of freedom. */
double      pl_student_t_975        (guint                  df);

/* Minimises C·Σ log(1 + exp(−(2y−1)(x·w + b))) + ½‖w‖² exactly (Newton's
 * method): X is n × p row-major double, Y 0/1, W gets p values. */
gboolean    pl_logistic_fit         (const double          *x,
                                     const guint8          *y,
                                     gsize                  n,
                                     gsize                  p,
                                     double                 c,
                                     double                *w,
                                     double                *b,
                                     GError               **error);

G_END_DECLS
