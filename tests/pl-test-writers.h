/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <hdf5.h>

G_BEGIN_DECLS

/* Sample checkpoints the checkpoint tests write themselves, with the plain
 * HDF5 API and raw bytes, independently of the readers under test. */
typedef struct
{
  const char  *name;
  const char  *dtype;     /* "F32", "F16", "BF16", "F64" or "I64" */
  guint        rank;
  guint64      shape[4];
  const float *data;      /* converted to DTYPE exactly (asserted) */
} PlTestTensor;

/* A safetensors file as Hugging Face writes it: header padded to 8 bytes. */
void   pl_test_write_safetensors (const char         *path,
                                  const PlTestTensor *tensors,
                                  guint               n_tensors);
/* A safetensors file with a given header text and length field, followed
 * by DATA_LEN bytes of data: for forged headers. */
void   pl_test_write_raw_safetensors (const char *path,
                                      guint64     claimed_header_len,
                                      const char *header,
                                      gsize       data_len);
/* A float32 dataset at PATH (groups created as needed); rank 0..4. */
void   pl_test_h5_put            (hid_t          file,
                                  const char    *path,
                                  guint          rank,
                                  const guint64 *dims,
                                  const float   *data);
void   pl_test_write_text        (const char    *path,
                                  const char    *text);
/* A matrix of shape ROWS×COLS with values (i * 7 + j * 3) % 17 / 8 - 1,
 * exact in F16 and BF16. */
float *pl_test_exact_values      (gsize          rows,
                                  gsize          cols);

G_END_DECLS
