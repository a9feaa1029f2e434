/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-matrix.h"

G_DEFINE_BOXED_TYPE (PlMatrix, pl_matrix, pl_matrix_ref, pl_matrix_unref)

/* Anything bigger than this is a hostile or mistaken declared size, not a
 * position table or a weight matrix anyone can look at. */
#define PL_MATRIX_MAX_BYTES ((gsize) 16 << 30)

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
