/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "pl-checkpoint-gguf.h"
#include "pl-error.h"
#include "pl-test-util.h"

/* The GGUF reader against files written from the format's specification by
 * tests/fixtures/gguf_tools.py (make-gguf.py), the floats ggml computes for
 * each block format, and a real file read by a second reader (gguf_tools'
 * numpy one); damaged and hostile headers refused with what is wrong. */

static char *
fixture (const char *name)
{
  return pl_test_fixture ("gguf", name, NULL);
}

/* Every block format: the floats of random blocks, bit for bit as ggml's
 * dequantize_row_* gives them (blocks.h5), through pl_stored_convert and a
 * stored matrix's rows. */
static void
test_blocks (void)
{
  static const struct { const char *name; PlStoredType type; } types[] = {
    { "Q4_0", PL_STORED_Q4_0 }, { "Q4_1", PL_STORED_Q4_1 }, { "Q5_0", PL_STORED_Q5_0 },
    { "Q5_1", PL_STORED_Q5_1 }, { "Q8_0", PL_STORED_Q8_0 }, { "Q2_K", PL_STORED_Q2_K },
    { "Q3_K", PL_STORED_Q3_K }, { "Q4_K", PL_STORED_Q4_K }, { "Q5_K", PL_STORED_Q5_K },
    { "Q6_K", PL_STORED_Q6_K },
  };
  g_autofree char *path = fixture ("blocks.h5");

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autofree char *blocks_name = g_strdup_printf ("/%s/blocks", types[t].name);
      g_autofree char *floats_name = g_strdup_printf ("/%s/floats", types[t].name);
      gsize n_bytes, n_floats;
      g_autofree double *bytes = pl_test_read_h5_doubles (path, blocks_name, &n_bytes);
      g_autofree double *expect = pl_test_read_h5_doubles (path, floats_name, &n_floats);
      gsize per_block = pl_stored_type_block_elements (types[t].type);
      gsize block_bytes = pl_stored_type_block_bytes (types[t].type);
      gsize n_blocks = n_floats / per_block;
      g_autoptr(PlStoredMatrix) m = NULL;
      g_autofree float *got = g_new (float, n_floats);
      g_autofree float *row = g_new (float, 2 * per_block);

      g_assert_cmpstr (pl_stored_type_name (types[t].type), ==, types[t].name);
      g_assert_cmpuint (n_bytes, ==, n_blocks * block_bytes);
      g_assert_cmpuint (pl_stored_type_row_bytes (types[t].type, 2 * per_block), ==, 2 * block_bytes);
      /* as a matrix of two blocks a row */
      m = pl_stored_matrix_try_new (types[t].type, n_blocks / 2, 2 * per_block, NULL);
      for (gsize i = 0; i < n_bytes; i++)
        m->data[i] = (guint8) bytes[i];
      pl_stored_convert (types[t].type, m->data, got, n_floats);
      for (gsize i = 0; i < n_floats; i++)
        if (got[i] != (float) expect[i])
          g_error ("%s element %" G_GSIZE_FORMAT ": %.9g, ggml gives %.9g", types[t].name, i, got[i], expect[i]);
      pl_stored_matrix_to_float (m, 7, 1, row);
      for (gsize i = 0; i < 2 * per_block; i++)
        g_assert_cmpfloat (row[i], ==, (float) expect[7 * 2 * per_block + i]);
      g_assert_true (pl_stored_matrix_all_finite (m));
      /* a half of all ones in its exponent is an infinity or a NaN */
      m->data[3 * block_bytes + (types[t].type == PL_STORED_Q2_K ? 81 : types[t].type == PL_STORED_Q3_K ? 109 :
                                 types[t].type == PL_STORED_Q6_K ? 209 : 1)] |= 0x7c;
      g_assert_false (pl_stored_matrix_all_finite (m));
    }
}

/* A value of the header, asserted present. */
static const PlGgufValue *
value (const PlGgufHeader *header,
       const char         *key)
{
  const PlGgufValue *v = pl_gguf_header_lookup (header, key);

  if (v == NULL)
    g_error ("no metadata %s", key);
  return v;
}

static void
assert_numbers (const PlGgufHeader *header,
                const char         *key,
                const double       *expect,
                guint               n)
{
  const PlGgufValue *v = value (header, key);
  double x;

  g_assert_cmpint (v->type, ==, PL_GGUF_ARRAY);
  g_assert_cmpuint (v->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (pl_gguf_array_get_number (v, i, &x));
      g_assert_cmpfloat (x, ==, expect[i]);
    }
  g_assert_false (pl_gguf_array_get_number (v, n, &x));
}

/* Every metadata value type as make-gguf.py wrote it (kinds_metadata). */
static void
check_metadata (const PlGgufHeader *h)
{
  g_auto(GStrv) strings = NULL;
  g_autofree char *text = NULL;
  guint64 u;
  double f;
  gboolean b;

  g_assert_true (pl_gguf_value_get_uint (value (h, "test.u8"), &u) && u == 200);
  g_assert_true (pl_gguf_value_get_double (value (h, "test.i8"), &f) && f == -100);
  g_assert_false (pl_gguf_value_get_uint (value (h, "test.i8"), &u));
  g_assert_true (pl_gguf_value_get_uint (value (h, "test.u16"), &u) && u == 60000);
  g_assert_true (pl_gguf_value_get_double (value (h, "test.i16"), &f) && f == -30000);
  g_assert_true (pl_gguf_value_get_uint (value (h, "test.u32"), &u) && u == 4000000000u);
  g_assert_true (pl_gguf_value_get_double (value (h, "test.i32"), &f) && f == -2000000000);
  g_assert_true (pl_gguf_value_get_double (value (h, "test.f32"), &f) && f == 0.25);
  g_assert_false (pl_gguf_value_get_uint (value (h, "test.f32"), &u));
  g_assert_true (pl_gguf_value_get_bool (value (h, "test.bool"), &b) && b);
  g_assert_true (pl_gguf_value_get_uint (value (h, "test.u64"), &u) && u == G_GUINT64_CONSTANT (9223372036854775813));
  g_assert_true (pl_gguf_value_get_double (value (h, "test.i64"), &f) && f == -4611686018427387904.0);
  g_assert_true (pl_gguf_value_get_double (value (h, "test.f64"), &f) && f == -1.5e300);
  text = pl_gguf_value_dup_string (value (h, "test.string"));
  g_assert_cmpstr (text, ==, "Grüße, ▁GGUF");
  g_assert_null (pl_gguf_value_dup_string (value (h, "test.u8")));
  assert_numbers (h, "test.array.u8", (double[]) { 1, 2, 255 }, 3);
  assert_numbers (h, "test.array.i16", (double[]) { -1, 2, -3 }, 3);
  assert_numbers (h, "test.array.i32", (double[]) { -7, 0, 7, 2147483647 }, 4);
  assert_numbers (h, "test.array.f32", (double[]) { 0.5, -2.0, (float) 1e-3 }, 3);
  assert_numbers (h, "test.array.f64", (double[]) { 1e-300, 2.5 }, 2);
  assert_numbers (h, "test.array.u64", (double[]) { 18446744073709551615.0, 0 }, 2);
  g_assert_cmpuint (value (h, "test.array.bool")->len, ==, 3);
  strings = pl_gguf_array_dup_strings (value (h, "test.array.string"), "kinds", "test.array.string", NULL);
  g_assert_nonnull (strings);
  g_assert_cmpuint (g_strv_length (strings), ==, 4);
  g_assert_cmpstr (strings[1], ==, "");
  g_assert_cmpstr (strings[2], ==, "ünïcödé");
  g_assert_cmpstr (strings[3], ==, "<0x0A>");
  g_clear_pointer (&strings, g_strfreev);
  strings = pl_gguf_array_dup_strings (value (h, "test.array.empty"), "kinds", "test.array.empty", NULL);
  g_assert_cmpuint (g_strv_length (strings), ==, 0);
  g_assert_cmpint (value (h, "test.array.nested")->elem_type, ==, PL_GGUF_ARRAY);
  g_assert_cmpuint (value (h, "test.array.nested")->len, ==, 2);
  g_assert_null (pl_gguf_array_dup_strings (value (h, "test.array.nested"), "kinds", "test.array.nested", NULL));
  /* in the file's order: general.alignment comes last */
  g_assert_cmpstr (pl_gguf_header_get_key (h, 0), ==, "general.architecture");
  g_assert_cmpstr (pl_gguf_header_get_key (h, pl_gguf_header_get_n_keys (h) - 1), ==, "general.alignment");
}

/* kinds-v3.gguf (alignment 64) and kinds-v2.gguf (alignment 8): metadata,
 * the tensors' shapes and types, each read whole, in rows and as stored
 * against gguf_tools' reader (kinds.h5), and the IQ4_NL one refused by
 * name. */
static void
test_kinds (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = fixture (name);
  g_autofree char *reference = fixture ("kinds.h5");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  const PlGgufHeader *header;
  const PlTensorInfo *info;
  g_autoptr(PlMatrix) refused = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (checkpoint), ==, "gguf");
  header = pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (checkpoint));
  g_assert_cmpuint (pl_gguf_header_get_version (header), ==, g_str_has_suffix (name, "v2.gguf") ? 2 : 3);
  g_assert_cmpuint (pl_gguf_header_get_alignment (header), ==, g_str_has_suffix (name, "v2.gguf") ? 8 : 64);
  check_metadata (header);
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (checkpoint), ==, 17);

  info = pl_checkpoint_find_tensor (checkpoint, "bf16.4d");
  g_assert_cmpuint (info->rank, ==, 4);
  g_assert_cmpuint (info->shape[0], ==, 2);
  g_assert_cmpuint (info->shape[2], ==, 3);
  g_assert_cmpuint (info->shape[3], ==, 2);
  g_assert_cmpstr (info->dtype_name, ==, "BF16");
  info = pl_checkpoint_find_tensor (checkpoint, "q4_k.matrix");
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_QUANTIZED);
  g_assert_cmpstr (info->dtype_name, ==, "Q4_K");
  g_assert_cmpuint (info->shape[0], ==, 3);
  g_assert_cmpuint (info->shape[1], ==, 512);

  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *t = pl_checkpoint_get_tensor (checkpoint, i);
      g_autofree char *dataset = NULL;
      g_autoptr(PlMatrix) expect = NULL;
      g_autoptr(PlMatrix) whole = NULL;
      g_autoptr(PlMatrix) tail = NULL;
      g_autoptr(PlStoredMatrix) stored = NULL;
      g_autoptr(PlMatrix) unpacked = NULL;
      guint64 rows, cols;

      if (t->dtype == PL_DTYPE_OTHER)
        continue;
      dataset = g_strconcat ("/", t->name, NULL);
      expect = pl_test_read_h5 (reference, dataset);
      whole = pl_checkpoint_read (checkpoint, t->name, &error);
      g_assert_no_error (error);
      pl_tensor_info_get_matrix_shape (t, &rows, &cols);
      g_assert_cmpuint (whole->rows, ==, rows);
      g_assert_cmpuint (whole->cols, ==, cols);
      g_assert_cmpuint (expect->rows * expect->cols, ==, rows * cols);
      g_assert_cmpmem (whole->data, rows * cols * 4, expect->data, rows * cols * 4);
      tail = pl_checkpoint_read_rows (checkpoint, t->name, rows - 1, 1, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (tail->data, cols * 4, expect->data + (rows - 1) * cols, cols * 4);
      stored = pl_checkpoint_read_stored (checkpoint, t->name, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (stored->rows, ==, rows);
      if (t->dtype != PL_DTYPE_F64)
        {
          /* lent from the mapped file, not copied (alignment 8 and 64 suit every type) */
          g_assert_nonnull (stored->owner);
          g_assert_cmpstr (pl_stored_type_name (stored->type), ==, t->dtype_name);
        }
      unpacked = pl_stored_matrix_to_matrix (stored, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (unpacked->data, rows * cols * 4, expect->data, rows * cols * 4);
    }

  refused = pl_checkpoint_read (checkpoint, "refused.iq4_nl", &error);
  g_assert_null (refused);
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "IQ4_NL"));
  g_assert_nonnull (strstr (error->message, path));
}

/* A real GGUF file (tests/fixtures/gguf/real/README), or one llama.cpp
 * wrote and quantised: every tensor's first and last rows and sums against
 * gguf_tools' reader (real.h5). DATA is its path under gguf/. */
static void
test_real (gconstpointer data)
{
  g_autofree char *path = pl_test_fixture ("gguf", (const char *) data, NULL);
  g_autofree char *name = g_path_get_basename (data);
  g_autofree char *reference = fixture ("real.h5");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  g_autofree char *count_name = g_strdup_printf ("/%s", name);

  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (checkpoint), ==, "gguf");
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *t = pl_checkpoint_get_tensor (checkpoint, i);
      g_autofree char *head_name = g_strdup_printf ("/%s/%s/head", name, t->name);
      g_autofree char *tail_name = g_strdup_printf ("/%s/%s/tail", name, t->name);
      g_autoptr(PlMatrix) head = pl_test_read_h5 (reference, head_name);
      g_autoptr(PlMatrix) tail = pl_test_read_h5 (reference, tail_name);
      g_autoptr(PlMatrix) whole = pl_checkpoint_read (checkpoint, t->name, &error);
      double sum = 0, squares = 0, expect_sum, expect_squares;
      g_autofree char *sum_name = g_strdup_printf ("/%s/%s/sum", name, t->name);
      g_autofree char *squares_name = g_strdup_printf ("/%s/%s/sum_squares", name, t->name);

      g_assert_no_error (error);
      g_assert_cmpuint (head->cols, ==, whole->cols);
      g_assert_cmpmem (whole->data, head->rows * head->cols * 4, head->data, head->rows * head->cols * 4);
      g_assert_cmpmem (whole->data + (whole->rows - tail->rows) * whole->cols, tail->rows * tail->cols * 4,
                       tail->data, tail->rows * tail->cols * 4);
      for (gsize j = 0; j < whole->rows * whole->cols; j++)
        {
          sum += whole->data[j];
          squares += (double) whole->data[j] * whole->data[j];
        }
      expect_sum = pl_test_read_h5_scalar (reference, sum_name);
      expect_squares = pl_test_read_h5_scalar (reference, squares_name);
      g_assert_cmpfloat (fabs (sum - expect_sum), <=, 1e-9 * MAX (1, expect_squares));
      g_assert_cmpfloat (fabs (squares - expect_squares), <=, 1e-9 * MAX (1, expect_squares));
    }
}

/* A GGUF file built byte by byte, for damaged and hostile headers. */
static void
put_u32 (GByteArray *b,
         guint32     v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (b, (guint8 *) &v, 4);
}

static void
put_u64 (GByteArray *b,
         guint64     v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (b, (guint8 *) &v, 8);
}

static void
put_string (GByteArray *b,
            const char *s)
{
  put_u64 (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, strlen (s));
}

/* Header of VERSION with N_TENSORS and N_KV as claimed. */
static GByteArray *
start (guint32 version,
       guint64 n_tensors,
       guint64 n_kv)
{
  GByteArray *b = g_byte_array_new ();

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  put_u32 (b, version);
  put_u64 (b, n_tensors);
  put_u64 (b, n_kv);
  return b;
}

/* One tensor info: NAME, its ggml dims, TYPE and OFFSET. */
static void
put_tensor (GByteArray    *b,
            const char    *name,
            guint          rank,
            const guint64 *dims,
            guint32        type,
            guint64        offset)
{
  put_string (b, name);
  put_u32 (b, rank);
  for (guint i = 0; i < rank; i++)
    put_u64 (b, dims[i]);
  put_u32 (b, type);
  put_u64 (b, offset);
}

/* Pads to 32 and appends N data bytes. */
static void
put_data (GByteArray *b,
          gsize       n)
{
  g_byte_array_set_size (b, (b->len + 31) / 32 * 32 + n);
}

static char *
write_bytes (const char *dir,
             const char *name,
             GByteArray *b)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, NULL));
  return path;
}

/* PATH is refused with PL_ERROR code CODE, and a message naming the file
 * and holding WHAT. */
static void
assert_refused (const char *path,
                int         code,
                const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);

  g_assert_null (checkpoint);
  if (error->code != code || strstr (error->message, path) == NULL || strstr (error->message, what) == NULL)
    g_error ("%s: expected code %d and “%s”, got %d: %s", path, code, what, error->code, error->message);
}

typedef struct
{
  const char *name;
  int         code;
  const char *what;
} Damage;

static void
test_damaged (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *kinds = fixture ("kinds-v3.gguf");
  g_autofree char *contents = NULL;
  gsize length;
  guint64 data_offset;
  const guint64 dims_q8[] = { 64, 2 };
  const guint64 dims_f32[] = { 8, 2 };

  /* every cut of the real header fails cleanly, naming the file */
  {
    g_autoptr(PlCheckpoint) whole = pl_checkpoint_open (kinds, NULL);

    data_offset = pl_gguf_header_get_data_offset (pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (whole)));
  }
  g_assert_true (g_file_get_contents (kinds, &contents, &length, NULL));
  for (gsize cut = 0; cut < data_offset; cut += cut < 200 ? 1 : 7)
    {
      g_autofree char *path = g_build_filename (dir, "cut.gguf", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlCheckpoint) checkpoint = NULL;

      g_assert_true (g_file_set_contents (path, contents, cut, NULL));
      checkpoint = pl_checkpoint_open (path, &error);
      g_assert_null (checkpoint);
      g_assert_nonnull (strstr (error->message, path));
    }

  {
    /* each: what it claims, what must be said */
    g_autoptr(GByteArray) b = NULL;
    g_autofree char *path = NULL;

#define CASE(file, code, what) \
    G_STMT_START { g_clear_pointer (&path, g_free); path = write_bytes (dir, file, b); \
                   assert_refused (path, code, what); g_clear_pointer (&b, g_byte_array_unref); } G_STMT_END

    b = start (3, 0, G_GUINT64_CONSTANT (1) << 60);
    g_byte_array_set_size (b, 4096);
    CASE ("keys.gguf", PL_ERROR_CORRUPT, "metadata keys, more than");

    b = start (3, G_GUINT64_CONSTANT (1) << 60, 0);
    g_byte_array_set_size (b, 4096);
    CASE ("tensors.gguf", PL_ERROR_CORRUPT, "tensors, more than");

    b = start (3, 0, 1);
    put_string (b, "big.array");
    put_u32 (b, PL_GGUF_ARRAY);
    put_u32 (b, PL_GGUF_STRING);
    put_u64 (b, G_GUINT64_CONSTANT (1) << 59);
    g_byte_array_set_size (b, 4096);
    CASE ("array.gguf", PL_ERROR_CORRUPT, "inside an array");

    b = start (3, 0, 1);
    put_string (b, "long.string");
    put_u32 (b, PL_GGUF_STRING);
    put_u64 (b, G_GUINT64_CONSTANT (1) << 62);
    g_byte_array_set_size (b, 4096);
    CASE ("string.gguf", PL_ERROR_CORRUPT, "inside a string");

    b = start (3, 0, 1);
    put_string (b, "deep");
    put_u32 (b, PL_GGUF_ARRAY);
    for (guint i = 0; i < 6; i++)
      {
        put_u32 (b, PL_GGUF_ARRAY);
        put_u64 (b, 1);
      }
    g_byte_array_set_size (b, 4096);
    CASE ("deep.gguf", PL_ERROR_UNSUPPORTED, "nests arrays");

    b = start (3, 0, 1);
    put_string (b, "odd.type");
    put_u32 (b, 13);
    put_u32 (b, 0);
    CASE ("value-type.gguf", PL_ERROR_CORRUPT, "unknown value type 13");

    b = start (3, 0, 2);
    put_string (b, "twice");
    put_u32 (b, PL_GGUF_UINT8);
    g_byte_array_append (b, (const guint8 *) "\1", 1);
    put_string (b, "twice");
    put_u32 (b, PL_GGUF_UINT8);
    g_byte_array_append (b, (const guint8 *) "\2", 1);
    CASE ("key-twice.gguf", PL_ERROR_CORRUPT, "appears twice");

    b = start (3, 0, 1);
    put_string (b, "general.alignment");
    put_u32 (b, PL_GGUF_UINT32);
    put_u32 (b, 24);
    CASE ("alignment.gguf", PL_ERROR_CORRUPT, "power of two");

    b = start (1, 0, 0);
    CASE ("v1.gguf", PL_ERROR_UNSUPPORTED, "version 1");
    b = start (GUINT32_SWAP_LE_BE (3), 0, 0);
    CASE ("big-endian.gguf", PL_ERROR_UNSUPPORTED, "big-endian");
    b = start (4, 0, 0);
    CASE ("v4.gguf", PL_ERROR_UNSUPPORTED, "version 4");

    b = start (3, 1, 0);
    put_tensor (b, "rank5", 5, (const guint64[]) { 1, 1, 1, 1, 1 }, 0, 0);
    put_data (b, 4);
    CASE ("rank.gguf", PL_ERROR_CORRUPT, "5 dimensions");

    b = start (3, 1, 0);
    put_tensor (b, "removed", 2, dims_q8, 4, 0);
    put_data (b, 64);
    CASE ("type4.gguf", PL_ERROR_CORRUPT, "ggml type 4");

    b = start (3, 1, 0);
    put_tensor (b, "ragged", 2, (const guint64[]) { 40, 2 }, 8, 0);
    put_data (b, 128);
    CASE ("ragged.gguf", PL_ERROR_CORRUPT, "blocks of 32");

    b = start (3, 1, 0);
    put_tensor (b, "huge", 4, (const guint64[]) { G_GUINT64_CONSTANT (1) << 40, 1 << 20, 1 << 20, 1 }, 0, 0);
    put_data (b, 4);
    CASE ("overflow.gguf", PL_ERROR_CORRUPT, "overflows");

    b = start (3, 1, 0);
    put_tensor (b, "past", 2, dims_q8, 8, 0);
    put_data (b, 60);
    CASE ("past-end.gguf", PL_ERROR_CORRUPT, "past the end");

    b = start (3, 1, 0);
    put_tensor (b, "odd", 2, dims_f32, 0, 16);
    put_data (b, 128);
    CASE ("misaligned.gguf", PL_ERROR_CORRUPT, "not a multiple of the alignment");

    b = start (3, 2, 0);
    put_tensor (b, "first", 2, dims_f32, 0, 0);
    put_tensor (b, "second", 2, dims_f32, 0, 32);
    put_data (b, 128);
    CASE ("overlap.gguf", PL_ERROR_CORRUPT, "overlap");

    b = start (3, 2, 0);
    put_tensor (b, "same", 2, dims_f32, 0, 0);
    put_tensor (b, "same", 2, dims_f32, 0, 64);
    put_data (b, 128);
    CASE ("tensor-twice.gguf", PL_ERROR_CORRUPT, "appears twice");

    b = start (3, 1, 0);
    put_tensor (b, "bad\xff", 2, dims_f32, 0, 0);
    put_data (b, 64);
    CASE ("name.gguf", PL_ERROR_CORRUPT, "is not a name");

    b = start (3, 0, 0);
    CASE ("empty.gguf", PL_ERROR_NOT_FOUND, "no tensors");
#undef CASE
  }
  pl_test_rmtree (dir);
}

/* A tensor past the reader's 4 MiB chunk (a Q8_0 embedding of 8 MiB), read
 * whole and by rows; and one whose bytes a sparse file never stored,
 * refused before memory is taken for it. */
static void
test_large (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(GByteArray) b = start (3, 1, 0);
  const guint64 cols = 2048, rows = 4096;   /* 64 blocks of 34 bytes a row: 8.5 MiB */
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(PlMatrix) whole = NULL;
  g_autoptr(PlMatrix) some = NULL;
  guint start_at;

  put_tensor (b, "token_embd.weight", 2, (const guint64[]) { cols, rows }, 8, 0);
  start_at = (b->len + 31) / 32 * 32;
  put_data (b, rows * cols / 32 * 34);
  /* block j of row r: d = 1/64 (0x2400), quants (r + j + i) mod 255 − 127 */
  for (guint64 r = 0; r < rows; r++)
    for (guint64 j = 0; j < cols / 32; j++)
      {
        guint8 *block = b->data + start_at + (r * cols / 32 + j) * 34;

        block[0] = 0x00;
        block[1] = 0x24;
        for (guint i = 0; i < 32; i++)
          block[2 + i] = (guint8) (gint8) ((gint) ((r + j + i) % 255) - 127);
      }
  path = write_bytes (dir, "large.gguf", b);
  checkpoint = pl_checkpoint_open (path, &error);
  g_assert_no_error (error);
  whole = pl_checkpoint_read (checkpoint, "token_embd.weight", &error);
  g_assert_no_error (error);
  some = pl_checkpoint_read_rows (checkpoint, "token_embd.weight", 3000, 1000, &error);
  g_assert_no_error (error);
  for (guint64 r = 0; r < rows; r++)
    for (guint64 c = 0; c < cols; c++)
      {
        float expect = (float) ((gint) ((r + c / 32 + c % 32) % 255) - 127) / 64.0f;

        if (whole->data[r * cols + c] != expect)
          g_error ("row %" G_GUINT64_FORMAT " column %" G_GUINT64_FORMAT ": %g, not %g", r, c,
                   whole->data[r * cols + c], expect);
      }
  g_assert_cmpmem (some->data, 1000 * cols * 4, whole->data + 3000 * cols, 1000 * cols * 4);
  g_clear_object (&checkpoint);

  /* the same header over a hole: 8.5 MiB declared, none stored */
  {
    g_autoptr(GByteArray) hollow = start (3, 1, 0);
    g_autoptr(GError) hole_error = NULL;
    g_autoptr(PlMatrix) m = NULL;
    g_autofree char *sparse = g_build_filename (dir, "sparse.gguf", NULL);
    FILE *f;

    put_tensor (hollow, "token_embd.weight", 2, (const guint64[]) { cols, rows }, 8, 0);
    put_data (hollow, 0);
    f = g_fopen (sparse, "wb");
    g_assert_nonnull (f);
    fwrite (hollow->data, 1, hollow->len, f);
    g_assert_cmpint (fseek (f, rows * cols / 32 * 34 - 1, SEEK_CUR), ==, 0);
    fputc (0, f);
    fclose (f);
    checkpoint = pl_checkpoint_open (sparse, &error);
    g_assert_no_error (error);
    m = pl_checkpoint_read (checkpoint, "token_embd.weight", &hole_error);
    g_assert_null (m);
    g_assert_nonnull (strstr (hole_error->message, "stores only"));
  }
  pl_test_rmtree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/gguf/blocks", test_blocks);
  g_test_add_data_func ("/pl/gguf/kinds-v3", "kinds-v3.gguf", test_kinds);
  g_test_add_data_func ("/pl/gguf/kinds-v2", "kinds-v2.gguf", test_kinds);
  g_test_add_data_func ("/pl/gguf/real/llama-2-tiny-random", "real/llama-2-tiny-random.gguf", test_real);
  g_test_add_data_func ("/pl/gguf/real/llama-cpp-q4_k_m", "llama-256-q4_k_m-llamacpp.gguf", test_real);
  g_test_add_func ("/pl/gguf/damaged", test_damaged);
  g_test_add_func ("/pl/gguf/large", test_large);
  return g_test_run ();
}
