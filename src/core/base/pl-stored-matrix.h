/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The element types a weight may be kept in, as its file stores it. */
typedef enum
{
  PL_STORED_F32,
  PL_STORED_F16,
  PL_STORED_BF16,
  PL_STORED_BF16_TILES,   /* BF16 in AMX tile order: pl_stored_matrix_to_tiles */
  /* ggml's block formats, as GGUF stores them (pl-stored-blocks.c): each row
   * is cols / pl_stored_type_block_elements () blocks of
   * pl_stored_type_block_bytes () bytes, little-endian whatever the host. */
  PL_STORED_Q4_0,
  PL_STORED_Q4_1,
  PL_STORED_Q5_0,
  PL_STORED_Q5_1,
  PL_STORED_Q8_0,
  PL_STORED_Q2_K,
  PL_STORED_Q3_K,
  PL_STORED_Q4_K,
  PL_STORED_Q5_K,
  PL_STORED_Q6_K,
  PL_STORED_N_TYPES
} PlStoredType;

/* A dense row-major matrix in the precision its file stores: a BF16 or F16
 * weight stays two bytes an element in memory, a block-quantised one its
 * blocks, and becomes float32 a block of rows at a time where it is used.
 * Immutable once built, shared by reference count like PlMatrix. Elements are
 * in the host's byte order (block formats: little-endian). DATA is its own,
 * or borrowed from OWNER (a mapped file), which it holds until freed. */
typedef struct _PlStoredMatrix
{
  PlStoredType    type;
  gsize           rows;
  gsize           cols;
  guint8         *data;
  /*< private >*/
  gint            ref_count;
  gpointer        owner;
  GDestroyNotify  owner_release;
} PlStoredMatrix;

#define PL_TYPE_STORED_MATRIX (pl_stored_matrix_get_type ())

GType            pl_stored_matrix_get_type   (void) G_GNUC_CONST;
/* Bytes per element of the element types (F32, F16, BF16, BF16 tiles). */
gsize            pl_stored_type_size         (PlStoredType           type);
/* "F32", "Q4_K", … as ggml names them */
const char      *pl_stored_type_name         (PlStoredType           type);
/* Elements and bytes of one block: 1 and the element size for the element
 * types, ggml's block for the others. */
gsize            pl_stored_type_block_elements (PlStoredType         type);
gsize            pl_stored_type_block_bytes  (PlStoredType           type);
gboolean         pl_stored_type_is_blocks    (PlStoredType           type);
/* Bytes of a row of COLS elements (COLS a multiple of the block). */
static inline gsize
pl_stored_type_row_bytes (PlStoredType type,
                          gsize        cols)
{
  return cols / pl_stored_type_block_elements (type) * pl_stored_type_block_bytes (type);
}
/* Uninitialised; NULL and PL_ERROR_TOO_LARGE when it cannot be had. */
PlStoredMatrix  *pl_stored_matrix_try_new    (PlStoredType           type,
                                              gsize                  rows,
                                              gsize                  cols,
                                              GError               **error);
/* ROWS × COLS of TYPE at DATA, which stays OWNER's: OWNER_RELEASE (OWNER)
 * is called when the matrix is freed. COLS must be a whole number of blocks. */
PlStoredMatrix  *pl_stored_matrix_new_borrowed (PlStoredType         type,
                                              gsize                  rows,
                                              gsize                  cols,
                                              const guint8          *data,
                                              gpointer               owner,
                                              GDestroyNotify         owner_release);
/* Whether SELF's data is borrowed (a mapped file's) rather than its own. */
gboolean         pl_stored_matrix_is_borrowed (const PlStoredMatrix *self);
/* A float32 copy of M. */
PlStoredMatrix  *pl_stored_matrix_new_from_matrix (const PlMatrix    *m);
PlStoredMatrix  *pl_stored_matrix_ref        (PlStoredMatrix        *self);
void             pl_stored_matrix_unref      (PlStoredMatrix        *self);

/* Row I of a matrix stored row by row (every type but BF16 tiles). */
static inline guint8 *
pl_stored_matrix_row (const PlStoredMatrix *self,
                      gsize                 i)
{
  g_assert (self->type != PL_STORED_BF16_TILES);
  return self->data + i * pl_stored_type_row_bytes (self->type, self->cols);
}

/* A BF16 matrix in the order Intel AMX's TDPBF16PS reads its second
 * operand, so a product by it loads its tiles straight from memory: the
 * rows in panels of 32 (zero rows past the last), the columns rounded up to
 * KP, a multiple of 32 (zeros past the last); panel P holds 32 × KP
 * elements, first KP / 32 tiles for its rows 0–15, then KP / 32 for its rows
 * 16–31. Tile b of a half covers columns 32 b … 32 b + 31: its 16 tile rows
 * of 16 pairs, pair c of tile row r holding row 32 P + 16 half + c at
 * columns 32 b + 2 r (first) and 32 b + 2 r + 1. As many bytes as SELF's
 * BF16 when rows and cols are multiples of 32. NULL and PL_ERROR_TOO_LARGE
 * when it cannot be had, G_IO_ERROR_CANCELLED when CANCELLABLE is cancelled
 * (looked at per panel). */
PlStoredMatrix  *pl_stored_matrix_to_tiles   (const PlStoredMatrix  *self,
                                              GCancellable          *cancellable,
                                              GError               **error);

/* Rows [FIRST, FIRST + N) as float32 into OUT (N × cols, row-major), exactly
 * (BF16 tiles included). */
void             pl_stored_matrix_to_float   (const PlStoredMatrix  *self,
                                              gsize                  first,
                                              gsize                  n,
                                              float                 *out);
/* No NaN or infinity in rows [FIRST, FIRST + N) (tested on the bits, or on
 * a block format's scales; every type but BF16 tiles). */
gboolean         pl_stored_matrix_rows_finite (const PlStoredMatrix *self,
                                               gsize                 first,
                                               gsize                 n);
/* No NaN or infinity anywhere (tested on the bits, all elements). */
gboolean         pl_stored_matrix_all_finite (const PlStoredMatrix  *self);
/* The whole matrix as float32. */
PlMatrix        *pl_stored_matrix_to_matrix  (const PlStoredMatrix  *self,
                                              GError               **error);
/* N elements of TYPE at SRC as float32 into DST (a block format: N a
 * multiple of its block, SRC at a block's start). */
void             pl_stored_convert           (PlStoredType           type,
                                              const void            *src,
                                              float                 *dst,
                                              gsize                  n);
/* pl-stored-blocks.c: N_BLOCKS blocks of a block format as float32, as
 * ggml's dequantize_row_* computes them; whether their scales are finite
 * (then so is every element). */
void             pl_stored_blocks_to_float   (PlStoredType           type,
                                              const void            *src,
                                              float                 *dst,
                                              gsize                  n_blocks);
gboolean         pl_stored_blocks_all_finite (PlStoredType           type,
                                              const void            *src,
                                              gsize                  n_blocks);
/* IEEE half to float32, exactly (every half is a float). */
float            pl_stored_half_to_float     (guint16                h);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlStoredMatrix, pl_stored_matrix_unref)

G_END_DECLS
