/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* A dense row-major float32 matrix. Results handed between threads are
 * immutable once built and shared by reference count. */
typedef struct _PlMatrix
{
  gsize  rows;
  gsize  cols;
  float *data;
  /*< private >*/
  gint   ref_count;
} PlMatrix;

#define PL_TYPE_MATRIX (pl_matrix_get_type ())

GType     pl_matrix_get_type  (void) G_GNUC_CONST;
PlMatrix *pl_matrix_new       (gsize rows, gsize cols);
PlMatrix *pl_matrix_try_new   (gsize rows, gsize cols, GError **error);
/* Whether a ROWS×COLS matrix is within what pl_matrix_try_new allocates:
 * FALSE with its size in ERROR when not, so a caller can refuse before it
 * reads or computes anything for it. */
gboolean  pl_matrix_check_size (gsize rows, gsize cols, GError **error);
PlMatrix *pl_matrix_new_from  (gsize rows, gsize cols, const float *data);
PlMatrix *pl_matrix_copy      (const PlMatrix *self);
PlMatrix *pl_matrix_slice_rows (const PlMatrix *self, gsize first, gsize n);
PlMatrix *pl_matrix_ref       (PlMatrix *self);
void      pl_matrix_unref     (PlMatrix *self);
gboolean  pl_matrix_all_finite (const PlMatrix *self);
/* The rows of SELF that hold a NaN, an infinity (and no NaN), or only zeros,
 * each as a GArray of guint row numbers (empty when there are none). Any
 * out-argument may be NULL. */
void      pl_matrix_find_bad_rows (const PlMatrix  *self,
                                   GArray         **nan_rows,
                                   GArray         **inf_rows,
                                   GArray         **zero_rows);
/* ROWS (guint) plus FIRST in words, for an error message: "3", "3 and 7",
 * "3, 7 and 9"; past six, the first five and "and 12 more". */
char     *pl_matrix_describe_rows (const GArray    *rows,
                                   guint            first);

static inline float *
pl_matrix_row (const PlMatrix *self, gsize i)
{
  return self->data + i * self->cols;
}

static inline float
pl_matrix_get (const PlMatrix *self, gsize i, gsize j)
{
  return self->data[i * self->cols + j];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlMatrix, pl_matrix_unref)

G_END_DECLS
