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

/* Synthetic transformers whose weights a Python reference script draws the
 * same way (tests/fixtures/make-*.py: splitmix64 of seed, tensor number and
 * element index, a 24-bit fraction u, center + scale (2u − 1) in double,
 * rounded once to float32). */
typedef enum
{
  PL_SEEDED_EMBEDDING,   /* scale 1 */
  PL_SEEDED_LINEAR,      /* scale 0.375; canonical [in, out] */
  PL_SEEDED_VECTOR,      /* scale 0.125 */
  PL_SEEDED_GAMMA,       /* 1 ± 0.25 */
} PlSeededKind;

typedef struct
{
  char     *pt;          /* PyTorch / safetensors name */
  char     *tf;          /* HF TensorFlow HDF5 path */
  guint     rows;
  guint     cols;        /* 0 for a vector */
  gboolean  linear;      /* nn.Linear: stored [out, in] in safetensors */
  float    *values;      /* canonical: linear weights [in, out] */
} PlSeededTensor;

float           pl_seeded_draw             (guint64         seed,
                                            guint           tensor,
                                            guint64         i,
                                            double          center,
                                            double          scale);
/* Tensor number NUMBER of the model SEED, named PT and TF (taken over). */
PlSeededTensor *pl_seeded_tensor_new       (guint64         seed,
                                            guint           number,
                                            PlSeededKind    kind,
                                            guint           rows,
                                            guint           cols,
                                            char           *pt,
                                            char           *tf);
void            pl_seeded_tensor_free      (gpointer        tensor);

/* A row of a synthetic model's table of tensors: its names after the
 * prefixes the model gives, its canonical shape and how it is drawn. */
typedef struct
{
  const char   *pt;
  const char   *tf;
  guint         rows;     /* canonical: linear weights [in, out] */
  guint         cols;     /* 0 for a vector */
  PlSeededKind  kind;
} PlSeededSpec;

/* Tensor NUMBER of the model SEED as SPEC says, named PT_PREFIX + its pt
 * and TF_PREFIX + its tf. */
PlSeededTensor *pl_seeded_tensor_from_spec (guint64             seed,
                                            guint               number,
                                            const PlSeededSpec *spec,
                                            const char         *pt_prefix,
                                            const char         *tf_prefix);
/* The tensor of LIST (PlSeededTensor) named PT; fails the test if none. */
PlSeededTensor *pl_seeded_find             (GPtrArray      *list,
                                            const char     *pt);
/* LIST as PyTorch writes it (model.safetensors) and as HF's TensorFlow
 * classes write it (tf_model.h5, Keras kernels [in, out]). */
void            pl_seeded_write_safetensors (const char    *path,
                                             GPtrArray     *list);
void            pl_seeded_write_tf          (const char    *path,
                                             GPtrArray     *list);
/* A new temporary checkpoint folder: LIST as FORMAT writes it ("tf":
 * tf_model.h5, "safetensors": model.safetensors) and CONFIG as its
 * config.json. */
char           *pl_seeded_write_model       (GPtrArray     *list,
                                             const char    *format,
                                             const char    *config);
/* Adds to LIST the head real checkpoints carry and Poslens never reads: an
 * H × H linear weight, tensor 100 of the model SEED, named PT and TF. */
void            pl_seeded_add_head          (GPtrArray     *list,
                                             guint64        seed,
                                             guint          h,
                                             const char    *pt,
                                             const char    *tf);

G_END_DECLS
