/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-checkpoint.h"

G_BEGIN_DECLS

/* A GGUF file's header, as ggml's docs/gguf.md specifies it (versions 2 and
 * 3, little-endian): its metadata keys and values and its tensor infos,
 * every count and size checked against the bytes there are before anything
 * is allocated, so a file costs memory in proportion to its real size.
 * Values point into the file's bytes, which must outlive the header. */

typedef enum
{
  PL_GGUF_UINT8,
  PL_GGUF_INT8,
  PL_GGUF_UINT16,
  PL_GGUF_INT16,
  PL_GGUF_UINT32,
  PL_GGUF_INT32,
  PL_GGUF_FLOAT32,
  PL_GGUF_BOOL,
  PL_GGUF_STRING,
  PL_GGUF_ARRAY,
  PL_GGUF_UINT64,
  PL_GGUF_INT64,
  PL_GGUF_FLOAT64,
  PL_GGUF_N_TYPES
} PlGgufType;

typedef struct
{
  PlGgufType     type;
  gboolean       is_signed;   /* numbers: read as i, else u or f */
  guint64        u;
  gint64         i;
  double         f;
  /* STRING: its bytes (not NUL-terminated) and length; ARRAY: its first
   * element, count and type, and the bytes its elements span */
  const guint8  *bytes;
  guint64        len;
  PlGgufType     elem_type;
  guint64        array_bytes;
} PlGgufValue;

typedef struct
{
  char          *name;
  guint          rank;
  guint64        dims[4];     /* ggml's order: dims[0] is the row */
  guint32        ggml_type;
  guint64        offset;      /* from the start of the data section */
  guint64        nbytes;
} PlGgufTensor;

typedef struct _PlGgufHeader PlGgufHeader;

/* DATA (SIZE bytes) as a GGUF file named PATH in messages. */
PlGgufHeader       *pl_gguf_header_parse        (const guint8        *data,
                                                 gsize                size,
                                                 const char          *path,
                                                 GError             **error);
void                pl_gguf_header_free         (PlGgufHeader        *self);

guint32             pl_gguf_header_get_version  (const PlGgufHeader  *self);
guint64             pl_gguf_header_get_alignment (const PlGgufHeader *self);
/* Where the data section starts in the file. */
guint64             pl_gguf_header_get_data_offset (const PlGgufHeader *self);
guint               pl_gguf_header_get_n_keys   (const PlGgufHeader  *self);
/* Key I in the file's order. */
const char         *pl_gguf_header_get_key      (const PlGgufHeader  *self,
                                                 guint                i);
const PlGgufValue  *pl_gguf_header_lookup       (const PlGgufHeader  *self,
                                                 const char          *key);
guint               pl_gguf_header_get_n_tensors (const PlGgufHeader *self);
const PlGgufTensor *pl_gguf_header_get_tensor   (const PlGgufHeader  *self,
                                                 guint                i);

/* ggml's tensor types: "Q4_K" for GGML_TYPE_Q4_K, NULL for a number ggml
 * does not define (or no longer allows in files). */
const char         *pl_gguf_type_name           (guint32              ggml_type);
/* How Poslens keeps a tensor of this type: TRUE with its stored type and
 * dtype when it reads it (F32, F16, BF16, F64 as float32, and the block
 * formats Q4_0 … Q6_K). */
gboolean            pl_gguf_type_is_readable    (guint32              ggml_type,
                                                 PlStoredType        *stored,
                                                 PlDType             *dtype);
/* The ggml types Poslens reads, for messages: "F32, F16, …". */
const char         *pl_gguf_readable_types      (void);

/* Values: an integer of any type that is at least 0 (and fits in 64 bits);
 * any number as a double; a boolean; a string without NUL bytes, valid
 * UTF-8, newly allocated (else NULL). */
gboolean            pl_gguf_value_get_uint      (const PlGgufValue   *value,
                                                 guint64             *out);
gboolean            pl_gguf_value_get_double    (const PlGgufValue   *value,
                                                 double              *out);
gboolean            pl_gguf_value_get_bool      (const PlGgufValue   *value,
                                                 gboolean            *out);
char               *pl_gguf_value_dup_string    (const PlGgufValue   *value);
/* Element I of an array of numbers, as a double; FALSE when VALUE is not
 * one or I is past its end. */
gboolean            pl_gguf_array_get_number    (const PlGgufValue   *value,
                                                 guint64              i,
                                                 double              *out);
/* An array of strings as a NULL-terminated vector; NULL with ERROR (naming
 * PATH, KEY and the element) when it is not one or an element is not text
 * (invalid UTF-8 or a NUL byte). */
GStrv               pl_gguf_array_dup_strings   (const PlGgufValue   *value,
                                                 const char          *path,
                                                 const char          *key,
                                                 GError             **error);

G_END_DECLS
