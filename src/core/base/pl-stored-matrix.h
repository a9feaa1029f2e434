/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The element types a weight may be kept in, as its file stores it. */
typedef enum
{
  PL_STORED_F32,
  PL_STORED_F16,
  PL_STORED_BF16,
} PlStoredType;

/* A dense row-major matrix in the precision its file stores: a BF16 or F16
 * weight stays two bytes an element in memory and becomes float32 a block of
 * rows at a time where it is used. Immutable once built, shared by reference
 * count like PlMatrix. Elements are in the host's byte order. */
typedef struct _PlStoredMatrix
{
  PlStoredType  type;
  gsize         rows;
  gsize         cols;
  guint8       *data;
  /*< private >*/
  gint          ref_count;
} PlStoredMatrix;

#define PL_TYPE_STORED_MATRIX (pl_stored_matrix_get_type ())

GType            pl_stored_matrix_get_type   (void) G_GNUC_CONST;
gsize            pl_stored_type_size         (PlStoredType           type);
const char      *pl_stored_type_name         (PlStoredType           type);
/* Uninitialised; NULL and PL_ERROR_TOO_LARGE when it cannot be had. */
PlStoredMatrix  *pl_stored_matrix_try_new    (PlStoredType           type,
                                              gsize                  rows,
                                              gsize                  cols,
                                              GError               **error);
/* A float32 copy of M. */
PlStoredMatrix  *pl_stored_matrix_new_from_matrix (const PlMatrix    *m);
PlStoredMatrix  *pl_stored_matrix_ref        (PlStoredMatrix        *self);
void             pl_stored_matrix_unref      (PlStoredMatrix        *self);

static inline guint8 *
pl_stored_matrix_row (const PlStoredMatrix *self,
                      gsize                 i)
{
  return self->data + i * self->cols * pl_stored_type_size (self->type);
}

/* Rows [FIRST, FIRST + N) as float32 into OUT (N × cols, row-major), exactly. */
void             pl_stored_matrix_to_float   (const PlStoredMatrix  *self,
                                              gsize                  first,
                                              gsize                  n,
                                              float                 *out);
/* No NaN or infinity anywhere (tested on the bits, all elements). */
gboolean         pl_stored_matrix_all_finite (const PlStoredMatrix  *self);
/* The whole matrix as float32. */
PlMatrix        *pl_stored_matrix_to_matrix  (const PlStoredMatrix  *self,
                                              GError               **error);
/* N elements of TYPE at SRC as float32 into DST. */
void             pl_stored_convert           (PlStoredType           type,
                                              const void            *src,
                                              float                 *dst,
                                              gsize                  n);
/* IEEE half to float32, exactly (every half is a float). */
float            pl_stored_half_to_float     (guint16                h);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlStoredMatrix, pl_stored_matrix_unref)

G_END_DECLS
