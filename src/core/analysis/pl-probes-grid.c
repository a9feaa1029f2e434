/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-probes.h"
#include "pl-probes-private.h"

/* The paper's probes asked of a grid: a patch's place is two numbers, its
 * row and its column, and an order runs along each. The regressions are
 * the absolute probe with the row (the column) as target; the orders are
 * the relative probe on fixed pairs, every ordered pair of two patches of
 * one line, so no draw is random but the folds. */

/* The most pairs an order probe fits: a 58 × 58 grid has 191 748 along
 * each direction. */
#define MAX_LINE_PAIRS 200000u

/* The pairs of one order: ALONG_ROWS, every (r, a) → (r, b), a ≠ b, in
 * that order, labelled b > a; else every (a, c) → (b, c). */
static gsize
line_pairs (guint      rows,
            guint      cols,
            gboolean   along_rows,
            guint32  **pair_i,
            guint32  **pair_j,
            guint8   **labels)
{
  guint lines = along_rows ? rows : cols, length = along_rows ? cols : rows;
  gsize n = (gsize) lines * length * (length - 1), s = 0;

  *pair_i = g_new (guint32, MAX (n, 1));
  *pair_j = g_new (guint32, MAX (n, 1));
  *labels = g_new (guint8, MAX (n, 1));
  for (guint line = 0; line < lines; line++)
    for (guint a = 0; a < length; a++)
      for (guint b = 0; b < length; b++)
        if (a != b)
          {
            (*pair_i)[s] = along_rows ? line * cols + a : a * cols + line;
            (*pair_j)[s] = along_rows ? line * cols + b : b * cols + line;
            (*labels)[s] = b > a;
            s++;
          }
  return n;
}

static gboolean
order_probe (const PlMatrix        *patches,
             guint                  rows,
             guint                  cols,
             gboolean               along_rows,
             const PlProbeOptions  *options,
             guint                 *n_pairs,
             double                *error_rate,
             GCancellable          *cancellable,
             GError               **error)
{
  g_autofree guint32 *pair_i = NULL;
  g_autofree guint32 *pair_j = NULL;
  g_autofree guint8 *labels = NULL;
  guint length = along_rows ? cols : rows;
  guint64 count = (guint64) rows * cols * (length - 1);
  gsize n;

  *error_rate = NAN;
  *n_pairs = 0;
  if (count < 2 * options->n_folds)
    return TRUE;
  if (count > MAX_LINE_PAIRS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a %u × %u grid has %" G_GUINT64_FORMAT " pairs along its %s, more than the order probes "
                   "take (%u)", rows, cols, count, along_rows ? "rows" : "columns", MAX_LINE_PAIRS);
      return FALSE;
    }
  n = line_pairs (rows, cols, along_rows, &pair_i, &pair_j, &labels);
  *n_pairs = (guint) n;
  return pl_probe_relative_pairs (patches, pair_i, pair_j, labels, n, options, error_rate, NULL, cancellable,
                                  error);
}

gboolean
pl_probe_grid (const PlMatrix        *patches,
               guint                  rows,
               guint                  cols,
               const PlProbeOptions  *options,
               PlGridProbeResult     *result,
               GCancellable          *cancellable,
               GError               **error)
{
  g_autofree double *row_of = NULL;
  g_autofree double *column_of = NULL;
  gsize n;

  g_return_val_if_fail (patches != NULL && options != NULL && result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  n = (gsize) rows * cols;
  if (rows == 0 || cols == 0 || patches->rows != n)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "a %u × %u grid has %" G_GSIZE_FORMAT " patches, not the table's %" G_GSIZE_FORMAT " rows",
                   rows, cols, n, patches->rows);
      return FALSE;
    }
  result->rows = rows;
  result->cols = cols;
  result->n_folds = options->n_folds;
  row_of = g_new (double, n);
  column_of = g_new (double, n);
  for (gsize p = 0; p < n; p++)
    {
      row_of[p] = (double) (p / cols);
      column_of[p] = (double) (p % cols);
    }
  return pl_probe_absolute_targets (patches, row_of, options, &result->row_mae, NULL, cancellable, error) &&
         pl_probe_absolute_targets (patches, column_of, options, &result->column_mae, NULL, cancellable, error) &&
         order_probe (patches, rows, cols, TRUE, options, &result->row_pairs, &result->along_rows_error,
                      cancellable, error) &&
         order_probe (patches, rows, cols, FALSE, options, &result->column_pairs, &result->along_columns_error,
                      cancellable, error);
}
