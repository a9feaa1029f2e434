/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-test-util.h"
#include "pl-test-writers.h"

static guint16
to_half (float value)
{
  guint32 bits;
  guint32 sign, mantissa;
  int exponent;

  memcpy (&bits, &value, 4);
  sign = (bits >> 16) & 0x8000;
  if ((bits & 0x7fffffff) == 0)
    return sign;
  exponent = (int) ((bits >> 23) & 0xff) - 127 + 15;
  mantissa = bits & 0x7fffff;
  /* Only normal numbers with 10 mantissa bits: the tests use exact values. */
  g_assert_cmpint (exponent, >, 0);
  g_assert_cmpint (exponent, <, 31);
  g_assert_cmpuint (mantissa & 0x1fff, ==, 0);
  return sign | (exponent << 10) | (mantissa >> 13);
}

static guint16
to_bfloat16 (float value)
{
  guint32 bits;

  memcpy (&bits, &value, 4);
  g_assert_cmpuint (bits & 0xffff, ==, 0);
  return bits >> 16;
}

static guint
dtype_size (const char *dtype)
{
  if (g_str_equal (dtype, "F16") || g_str_equal (dtype, "BF16"))
    return 2;
  if (g_str_equal (dtype, "F64") || g_str_equal (dtype, "I64"))
    return 8;
  return 4;
}

void
pl_test_write_safetensors (const char         *path,
                           const PlTestTensor *tensors,
                           guint               n_tensors)
{
  g_autoptr(GString) header = g_string_new ("{\"__metadata__\":{\"format\":\"pt\"}");
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  guint64 len;

  for (guint t = 0; t < n_tensors; t++)
    {
      const PlTestTensor *tensor = &tensors[t];
      guint size = dtype_size (tensor->dtype);
      guint64 count = 1;
      guint64 begin = data->len;

      g_string_append_printf (header, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", tensor->name, tensor->dtype);
      for (guint d = 0; d < tensor->rank; d++)
        {
          g_string_append_printf (header, "%s%" G_GUINT64_FORMAT, d ? "," : "", tensor->shape[d]);
          count *= tensor->shape[d];
        }
      for (guint64 i = 0; i < count; i++)
        {
          guint8 bytes[8];
          float v = tensor->data[i];

          if (size == 2)
            {
              guint16 h = g_str_equal (tensor->dtype, "F16") ? to_half (v) : to_bfloat16 (v);
              bytes[0] = h & 0xff;
              bytes[1] = h >> 8;
            }
          else if (g_str_equal (tensor->dtype, "F64"))
            {
              double d = v;
              guint64 b;
              memcpy (&b, &d, 8);
              b = GUINT64_TO_LE (b);
              memcpy (bytes, &b, 8);
            }
          else if (g_str_equal (tensor->dtype, "I64"))
            {
              gint64 n = (gint64) v;
              n = GINT64_TO_LE (n);
              memcpy (bytes, &n, 8);
            }
          else
            {
              guint32 b;
              memcpy (&b, &v, 4);
              b = GUINT32_TO_LE (b);
              memcpy (bytes, &b, 4);
            }
          g_byte_array_append (data, bytes, size);
        }
      g_string_append_printf (header, "],\"data_offsets\":[%" G_GUINT64_FORMAT ",%u]}", begin, data->len);
    }
  g_string_append_c (header, '}');
  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');

  len = GUINT64_TO_LE ((guint64) header->len);
  g_byte_array_append (file, (const guint8 *) &len, 8);
  g_byte_array_append (file, (const guint8 *) header->str, header->len);
  g_byte_array_append (file, data->data, data->len);
  g_file_set_contents (path, (const char *) file->data, file->len, &error);
  g_assert_no_error (error);
}

void
pl_test_write_raw_safetensors (const char *path,
                               guint64     claimed_header_len,
                               const char *header,
                               gsize       data_len)
{
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  guint64 len = GUINT64_TO_LE (claimed_header_len);
  g_autofree guint8 *zeros = g_malloc0 (data_len + 1);

  g_byte_array_append (file, (const guint8 *) &len, 8);
  g_byte_array_append (file, (const guint8 *) header, strlen (header));
  g_byte_array_append (file, zeros, data_len);
  g_file_set_contents (path, (const char *) file->data, file->len, &error);
  g_assert_no_error (error);
}

void
pl_test_h5_put (hid_t          file,
                const char    *path,
                guint          rank,
                const guint64 *dims,
                const float   *data)
{
  hsize_t h_dims[4];
  hid_t lcpl = H5Pcreate (H5P_LINK_CREATE);
  hid_t space, dset;

  g_assert_cmpuint (rank, <=, 4);
  for (guint i = 0; i < rank; i++)
    h_dims[i] = dims[i];
  H5Pset_create_intermediate_group (lcpl, 1);
  space = rank ? H5Screate_simple (rank, h_dims, NULL) : H5Screate (H5S_SCALAR);
  dset = H5Dcreate2 (file, path, H5T_IEEE_F32LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (dset, >=, 0);
  if (data != NULL)
    g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Dclose (dset);
  H5Sclose (space);
  H5Pclose (lcpl);
}

void
pl_test_write_text (const char *path,
                    const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

float *
pl_test_exact_values (gsize rows,
                      gsize cols)
{
  float *v = g_new (float, MAX (rows * cols, 1));

  for (gsize i = 0; i < rows; i++)
    for (gsize j = 0; j < cols; j++)
      v[i * cols + j] = (float) ((i * 7 + j * 3) % 17) / 8.0f - 1.0f;
  return v;
}

float
pl_seeded_draw (guint64 seed,
                guint   tensor,
                guint64 i,
                double  center,
                double  scale)
{
  guint64 z = ((seed << 40) | ((guint64) tensor << 24)) + i;
  double u;

  z *= G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  z ^= z >> 31;
  u = (double) (z >> 40) / (double) (1 << 24);
  return (float) (center + scale * (2.0 * u - 1.0));
}

PlSeededTensor *
pl_seeded_tensor_new (guint64       seed,
                      guint         number,
                      PlSeededKind  kind,
                      guint         rows,
                      guint         cols,
                      char         *pt,
                      char         *tf)
{
  PlSeededTensor *t = g_new0 (PlSeededTensor, 1);
  guint n = rows * MAX (cols, 1);
  double center = kind == PL_SEEDED_GAMMA ? 1.0 : 0.0;
  double scale = kind == PL_SEEDED_EMBEDDING ? 1.0 : kind == PL_SEEDED_LINEAR ? 0.375
               : kind == PL_SEEDED_GAMMA ? 0.25 : 0.125;

  t->pt = pt;
  t->tf = tf;
  t->rows = rows;
  t->cols = cols;
  t->linear = kind == PL_SEEDED_LINEAR;
  t->values = g_new (float, n);
  for (guint i = 0; i < n; i++)
    t->values[i] = pl_seeded_draw (seed, number, i, center, scale);
  return t;
}

PlSeededTensor *
pl_seeded_tensor_from_spec (guint64             seed,
                            guint               number,
                            const PlSeededSpec *spec,
                            const char         *pt_prefix,
                            const char         *tf_prefix)
{
  return pl_seeded_tensor_new (seed, number, spec->kind, spec->rows, spec->cols,
                               g_strconcat (pt_prefix, spec->pt, NULL), g_strconcat (tf_prefix, spec->tf, NULL));
}

void
pl_seeded_tensor_free (gpointer data)
{
  PlSeededTensor *t = data;

  g_free (t->pt);
  g_free (t->tf);
  g_free (t->values);
  g_free (t);
}

PlSeededTensor *
pl_seeded_find (GPtrArray  *list,
                const char *pt)
{
  for (guint i = 0; i < list->len; i++)
    if (g_str_equal (((PlSeededTensor *) list->pdata[i])->pt, pt))
      return list->pdata[i];
  g_assert_not_reached ();
}

/* nn.Linear keeps [out, in]; everything else as is. */
void
pl_seeded_write_safetensors (const char *path,
                             GPtrArray  *list)
{
  g_autoptr(GArray) tensors = g_array_new (FALSE, TRUE, sizeof (PlTestTensor));
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < list->len; i++)
    {
      const PlSeededTensor *t = list->pdata[i];
      PlTestTensor out = { t->pt, "F32", t->cols ? 2 : 1, { t->rows, t->cols }, t->values };

      if (t->linear)
        {
          float *tr = g_new (float, t->rows * t->cols);

          for (guint r = 0; r < t->rows; r++)
            for (guint c = 0; c < t->cols; c++)
              tr[c * t->rows + r] = t->values[r * t->cols + c];
          g_ptr_array_add (owned, tr);
          out.data = tr;
          out.shape[0] = t->cols;
          out.shape[1] = t->rows;
        }
      g_array_append_val (tensors, out);
    }
  pl_test_write_safetensors (path, (PlTestTensor *) tensors->data, tensors->len);
}

void
pl_seeded_write_tf (const char *path,
                    GPtrArray  *list)
{
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

  g_assert_cmpint (file, >=, 0);
  for (guint i = 0; i < list->len; i++)
    {
      const PlSeededTensor *t = list->pdata[i];
      guint64 dims[2] = { t->rows, t->cols };

      pl_test_h5_put (file, t->tf, t->cols ? 2 : 1, dims, t->values);
    }
  H5Fclose (file);
}

char *
pl_seeded_write_model (GPtrArray  *list,
                       const char *format,
                       const char *config)
{
  char *dir = pl_test_tmpdir ();
  gboolean tf = g_str_equal (format, "tf");
  g_autofree char *path = g_build_filename (dir, tf ? "tf_model.h5" : "model.safetensors", NULL);
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);

  if (tf)
    pl_seeded_write_tf (path, list);
  else
    pl_seeded_write_safetensors (path, list);
  pl_test_write_text (config_path, config);
  return dir;
}

void
pl_seeded_add_head (GPtrArray  *list,
                    guint64     seed,
                    guint       h,
                    const char *pt,
                    const char *tf)
{
  g_ptr_array_add (list, pl_seeded_tensor_new (seed, 100, PL_SEEDED_LINEAR, h, h, g_strdup (pt), g_strdup (tf)));
}
