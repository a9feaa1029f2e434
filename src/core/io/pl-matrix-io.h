/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"

G_BEGIN_DECLS

typedef enum
{
  PL_MATRIX_FORMAT_HDF5,   /* .h5, .hdf5: every dataset in one file */
  PL_MATRIX_FORMAT_CSV,    /* .csv: one file per dataset */
  PL_MATRIX_FORMAT_NPY,    /* .npy: one file per dataset */
} PlMatrixFormat;

/* A result to write: NAME is the HDF5 dataset ("/similarity") and, for the
 * one-matrix formats, the suffix of the extra files. VECTOR writes a 1×n or
 * n×1 matrix as a 1-D dataset. DEPTH > 1 writes a rows × cols matrix as a
 * 3-D [rows, cols / DEPTH, DEPTH] dataset in HDF5 and .npy (a grid of
 * colours: [rows, grid columns × 3] as [rows, grid columns, 3]); CSV keeps
 * the rows × cols. */
typedef struct
{
  const char     *name;
  const PlMatrix *matrix;
  gboolean        vector;
  guint           depth;
} PlNamedMatrix;

/* The format named by PATH's extension; an error naming the ones there are. */
gboolean pl_matrix_format_from_path (const char           *path,
                                     PlMatrixFormat       *format,
                                     GError              **error);
/* Where dataset INDEX of a write to PATH lands: PATH itself for HDF5 and for
 * the first dataset, else "STEM-NAME.EXT" beside it ("pca.csv" →
 * "pca-explained_variance_ratio.csv"). */
char    *pl_matrix_io_dataset_path  (const char           *path,
                                     const PlNamedMatrix  *datasets,
                                     guint                 index);
/* Writes float32 DATASETS to PATH in the format of its extension. Each file
 * is written beside its final name and renamed into place, so a reader never
 * sees half a file. */
gboolean pl_matrix_io_write         (const char           *path,
                                     const PlNamedMatrix  *datasets,
                                     guint                 n_datasets,
                                     GError              **error);

/* Token ids from SPEC, "FILE.h5:/DATASET": a 1-D integer dataset, or one
 * row of a 2-D one. */
/* Each row of a 2-D integer dataset (or the one of a 1-D one) as a GArray
 * of int. */
GPtrArray *pl_matrix_io_read_id_rows (const char          *spec,
                                      GError             **error);
GArray  *pl_matrix_io_read_ids      (const char           *spec,
                                     GError              **error);

G_END_DECLS
