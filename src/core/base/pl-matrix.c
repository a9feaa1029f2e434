/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib.h>
#include <math.h>
#include <string.h>
#ifdef G_OS_UNIX
# include <sys/mman.h>
#endif

#include "pl-error.h"
#include "pl-matrix.h"

G_DEFINE_BOXED_TYPE (PlMatrix, pl_matrix, pl_matrix_ref, pl_matrix_unref)

/* Anything bigger than this is a hostile or mistaken declared size, not a
 * position table or a weight matrix anyone can look at. */
#define PL_MATRIX_MAX_BYTES ((gsize) 16 << 30)

/* The 2 MiB-aligned part of a large matrix is advised into transparent
 * huge pages: a 4096² similarity, written all over once, then faults 32
 * times instead of 16384. The memory stays malloc's (its own block, mapped
 * fresh and zeroed by the kernel for sizes like these). */
#define HUGE_PAGE ((guintptr) 2 << 20)

static void
advise_huge_pages (void  *data,
                   gsize  n_bytes)
{
#if defined(G_OS_UNIX) && defined(MADV_HUGEPAGE)
  guintptr start = ((guintptr) data + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  guintptr end = ((guintptr) data + n_bytes) & ~(HUGE_PAGE - 1);

  if (end >= start + 2 * HUGE_PAGE)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

gboolean
pl_matrix_check_size (gsize rows, gsize cols, GError **error)
{
  if (rows != 0 && cols > G_MAXSIZE / rows / sizeof (float))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " matrix does not fit in memory",
                   rows, cols);
      return FALSE;
    }
  if (rows * cols * sizeof (float) > PL_MATRIX_MAX_BYTES)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " matrix (%.1f GiB) is too large (at most %"
                   G_GSIZE_FORMAT " GiB)",
                   rows, cols, (double) rows * cols * sizeof (float) / (1 << 30), PL_MATRIX_MAX_BYTES >> 30);
      return FALSE;
    }
  return TRUE;
}

PlMatrix *
pl_matrix_try_new (gsize rows, gsize cols, GError **error)
{
  PlMatrix *self;
  gsize n;

  if (!pl_matrix_check_size (rows, cols, error))
    return NULL;
  n = rows * cols;

  self = g_new0 (PlMatrix, 1);
  self->data = g_try_malloc0 (MAX (n, 1) * sizeof (float));
  if (self->data == NULL)
    {
      g_free (self);
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "out of memory for a %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT " matrix",
                   rows, cols);
      return NULL;
    }
  advise_huge_pages (self->data, n * sizeof (float));
  self->rows = rows;
  self->cols = cols;
  self->ref_count = 1;
  return self;
}

PlMatrix *
pl_matrix_new (gsize rows, gsize cols)
{
  g_autoptr(GError) error = NULL;
  PlMatrix *self = pl_matrix_try_new (rows, cols, &error);

  if (self == NULL)
    g_error ("%s", error->message);
  return self;
}

PlMatrix *
pl_matrix_new_from (gsize rows, gsize cols, const float *data)
{
  PlMatrix *self = pl_matrix_new (rows, cols);

  if (rows * cols > 0)
    memcpy (self->data, data, rows * cols * sizeof (float));
  return self;
}

PlMatrix *
pl_matrix_copy (const PlMatrix *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return pl_matrix_new_from (self->rows, self->cols, self->data);
}

PlMatrix *
pl_matrix_slice_rows (const PlMatrix *self, gsize first, gsize n)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (first <= self->rows && n <= self->rows - first, NULL);
  return pl_matrix_new_from (n, self->cols, self->data + first * self->cols);
}

PlMatrix *
pl_matrix_ref (PlMatrix *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_matrix_unref (PlMatrix *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_int_dec_and_test (&self->ref_count))
    {
      g_free (self->data);
      g_free (self);
    }
}

gboolean
pl_matrix_all_finite (const PlMatrix *self)
{
  gsize n = self->rows * self->cols;

  for (gsize i = 0; i < n; i++)
    if (!isfinite (self->data[i]))
      return FALSE;
  return TRUE;
}

void
pl_matrix_find_bad_rows (const PlMatrix  *self,
                         GArray         **nan_rows,
                         GArray         **inf_rows,
                         GArray         **zero_rows)
{
  GArray *nan = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *inf = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *zero = g_array_new (FALSE, FALSE, sizeof (guint));

  for (gsize i = 0; i < self->rows; i++)
    {
      const guint32 *bits = (const guint32 *) pl_matrix_row (self, i);
      guint32 non_finite = 0, any = 0;
      guint row = (guint) i;

      /* Integer tests on the bit patterns, which the compiler vectorises:
       * an all-ones exponent is NaN or infinity; any bit but the sign is
       * a non-zero value. */
      for (gsize j = 0; j < self->cols; j++)
        {
          non_finite |= (bits[j] & 0x7f800000u) == 0x7f800000u;
          any |= bits[j] & 0x7fffffffu;
        }
      if (non_finite)
        {
          const float *values = pl_matrix_row (self, i);
          gboolean has_nan = FALSE;

          for (gsize j = 0; j < self->cols && !has_nan; j++)
            has_nan = isnan (values[j]);
          g_array_append_val (has_nan ? nan : inf, row);
        }
      else if (!any && self->cols > 0)
        g_array_append_val (zero, row);
    }

  if (nan_rows) *nan_rows = nan; else g_array_unref (nan);
  if (inf_rows) *inf_rows = inf; else g_array_unref (inf);
  if (zero_rows) *zero_rows = zero; else g_array_unref (zero);
}

#define ROWS_NAMED 5

char *
pl_matrix_describe_rows (const GArray *rows,
                         guint         first)
{
  GString *text = g_string_new (NULL);
  guint n = rows->len;
  guint named = n > ROWS_NAMED + 1 ? ROWS_NAMED : n;

  for (guint i = 0; i < named; i++)
    {
      if (i > 0)
        g_string_append (text, i + 1 == named && named == n ? " and " : ", ");
      g_string_append_printf (text, "%u", g_array_index (rows, guint, i) + first);
    }
  if (named < n)
    g_string_append_printf (text, " and %u more", n - named);
  return g_string_free (text, FALSE);
}
