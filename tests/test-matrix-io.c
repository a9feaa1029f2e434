/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-matrix-io.h"
#include "pl-test-util.h"

static PlMatrix *
sample (gsize rows, gsize cols)
{
  PlMatrix *m = pl_matrix_new (rows, cols);

  for (gsize i = 0; i < rows * cols; i++)
    m->data[i] = (float) (sin (i * 0.37) * pow (10, (double) (i % 7) - 3));
  m->data[1] = NAN;
  return m;
}

/* Both datasets land in one HDF5 file, read back by the raw HDF5 reader. */
static void
test_hdf5 (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "out.h5", NULL);
  g_autoptr(PlMatrix) a = sample (5, 3);
  g_autoptr(PlMatrix) v = sample (1, 4);
  g_autoptr(PlMatrix) ra = NULL;
  g_autoptr(PlMatrix) rv = NULL;
  g_autoptr(GError) error = NULL;
  const PlNamedMatrix ds[] = { { "/projection", a, FALSE }, { "/explained_variance_ratio", v, TRUE } };

  g_assert_true (pl_matrix_io_write (path, ds, 2, &error));
  g_assert_no_error (error);
  ra = pl_test_read_h5 (path, "/projection");
  rv = pl_test_read_h5 (path, "/explained_variance_ratio");
  g_assert_cmpuint (ra->rows, ==, 5);
  g_assert_cmpuint (ra->cols, ==, 3);
  g_assert_cmpuint (rv->cols, ==, 4);
  g_assert_true (isnan (ra->data[1]));
  ra->data[1] = a->data[1] = 0;
  g_assert_cmpfloat (pl_test_max_abs_diff (ra, a), ==, 0.0);
  rv->data[1] = v->data[1] = 0;
  g_assert_cmpfloat (pl_test_max_abs_diff (rv, v), ==, 0.0);
  /* Writing again replaces the file. */
  g_assert_true (pl_matrix_io_write (path, ds, 1, &error));
  g_assert_no_error (error);
  pl_test_rmtree (dir);
}

/* The streaming writer: a 3-D dataset written one entry of its first
 * dimension at a time (in reverse, so order cannot hide a wrong offset),
 * a nested group, and int64 ids read back as token ids; nothing at PATH
 * until it is finished, and nothing left behind when it is not. */
static void
test_h5_writer (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "forward.h5", NULL);
  g_autofree char *abandoned = g_build_filename (dir, "abandoned.h5", NULL);
  g_autofree char *spec = g_strdup_printf ("%s:/input_ids", path);
  g_autoptr(PlMatrix) whole = sample (3 * 4, 5);
  g_autoptr(PlMatrix) back = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 dims[3] = { 3, 4, 5 };
  const int input[4] = { 7, 0, 65535, 2 };
  PlH5Writer *writer;

  writer = pl_h5_writer_new (path, &error);
  g_assert_no_error (error);
  g_assert_true (pl_h5_writer_write_ints (writer, "/input_ids", input, 4, &error));
  g_assert_true (pl_h5_writer_add (writer, "/layers/hidden", 3, dims, &error));
  for (int k = 2; k >= 0; k--)
    g_assert_true (pl_h5_writer_put (writer, "/layers/hidden", k, pl_matrix_row (whole, 4 * k), &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (pl_h5_writer_finish (writer, &error));
  g_assert_no_error (error);
  pl_h5_writer_free (writer);

  back = pl_test_read_h5 (path, "/layers/hidden");
  g_assert_cmpuint (back->rows, ==, 12);
  g_assert_true (isnan (back->data[1]));
  back->data[1] = whole->data[1] = 0;
  g_assert_cmpfloat (pl_test_max_abs_diff (back, whole), ==, 0.0);
  ids = pl_matrix_io_read_ids (spec, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ids->len, ==, 4);
  g_assert_cmpmem (ids->data, 4 * sizeof (int), input, sizeof input);

  /* The same name twice is refused; a writer freed unfinished leaves nothing. */
  writer = pl_h5_writer_new (abandoned, &error);
  g_assert_true (pl_h5_writer_add (writer, "/a", 3, dims, &error));
  g_assert_false (pl_h5_writer_add (writer, "/a", 3, dims, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, abandoned));
  pl_h5_writer_free (writer);
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    guint n = 0;

    while (g_dir_read_name (d) != NULL)
      n++;
    g_assert_cmpuint (n, ==, 1);
  }
  pl_test_rmtree (dir);
}

/* CSV: one file per dataset, nine digits that read back to the same floats. */
static void
test_csv (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "pca.csv", NULL);
  g_autofree char *extra = g_build_filename (dir, "pca-explained_variance_ratio.csv", NULL);
  g_autoptr(PlMatrix) a = sample (4, 3);
  g_autoptr(PlMatrix) v = sample (1, 2);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;
  g_auto(GStrv) lines = NULL;
  const PlNamedMatrix ds[] = { { "/projection", a, FALSE }, { "/explained_variance_ratio", v, TRUE } };
  g_autofree char *named = pl_matrix_io_dataset_path (path, ds, 1);

  g_assert_cmpstr (named, ==, extra);
  g_assert_true (pl_matrix_io_write (path, ds, 2, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  for (gsize i = 0; i < 4; i++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[i], ",", -1);

      g_assert_cmpuint (g_strv_length (cells), ==, 3);
      for (gsize j = 0; j < 3; j++)
        {
          float got = (float) g_ascii_strtod (cells[j], NULL);
          if (i == 0 && j == 1)
            g_assert_true (isnan (got));
          else
            g_assert_cmpfloat (got, ==, pl_matrix_get (a, i, j));
        }
    }
  g_assert_true (g_file_get_contents (extra, &text2, NULL, NULL));
  g_assert_cmpuint (strlen (text2), >, 0);
  g_assert_nonnull (strchr (text2, '\n'));
  g_assert_null (strchr (text2, ','));
  pl_test_rmtree (dir);
}

/* NPY 1.0: magic, header on a 64-byte boundary, shape, little-endian f4. */
static void
test_npy (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "sim.npy", NULL);
  g_autoptr(PlMatrix) a = sample (6, 5);
  g_autoptr(GError) error = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *header = NULL;
  gsize len;
  guint header_len;
  const PlNamedMatrix ds[] = { { "/similarity", a, FALSE } };

  g_assert_true (pl_matrix_io_write (path, ds, 1, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  g_assert_cmpmem (bytes, 8, "\x93NUMPY\x01\x00", 8);
  header_len = (guint8) bytes[8] | ((guint) (guint8) bytes[9] << 8);
  g_assert_cmpuint ((10 + header_len) % 64, ==, 0);
  g_assert_cmpuint (len, ==, 10 + header_len + 6 * 5 * 4);
  header = g_strndup (bytes + 10, header_len);
  g_assert_nonnull (strstr (header, "'descr': '<f4'"));
  g_assert_nonnull (strstr (header, "'fortran_order': False"));
  g_assert_nonnull (strstr (header, "'shape': (6, 5)"));
  g_assert_cmpint (header[header_len - 1], ==, '\n');
  for (gsize i = 0; i < 30; i++)
    {
      float f;
      memcpy (&f, bytes + 10 + header_len + 4 * i, 4);
      if (i == 1)
        g_assert_true (isnan (f));
      else
        g_assert_cmpfloat (f, ==, a->data[i]);
    }
  pl_test_rmtree (dir);
}

static void
test_errors (void)
{
  g_autoptr(PlMatrix) a = sample (2, 2);
  const PlNamedMatrix ds[] = { { "/x", a, FALSE } };
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;

  g_assert_false (pl_matrix_io_write ("/tmp/out.txt", ds, 1, &e1));
  g_assert_error (e1, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (e1->message, "out.txt"));
  g_assert_false (pl_matrix_io_write ("/nonexistent-dir/out.h5", ds, 1, &e2));
  g_assert_nonnull (e2);
  g_assert_nonnull (strstr (e2->message, "/nonexistent-dir/out.h5"));
  g_assert_false (pl_matrix_io_write ("/nonexistent-dir/out.csv", ds, 1, &e3));
  g_assert_nonnull (e3);
}

/* A large matrix and a small one: zeroed, every byte writable up to the
 * last one (AddressSanitizer builds check the bounds), copied and freed. */
static void
test_large_matrix (void)
{
  const gsize rows = 2053, cols = 1031;   /* 8.07 MiB, not a whole number of pages */
  g_autoptr(PlMatrix) m = pl_matrix_new (rows, cols);
  g_autoptr(PlMatrix) copy = NULL;
  g_autoptr(PlMatrix) small = pl_matrix_new (3, 3);

  for (gsize i = 0; i < rows * cols; i++)
    g_assert_cmpfloat (m->data[i], ==, 0.0f);
  for (gsize i = 0; i < rows * cols; i++)
    m->data[i] = (float) (i % 1009);
  copy = pl_matrix_copy (m);
  g_assert_cmpmem (copy->data, rows * cols * sizeof (float), m->data, rows * cols * sizeof (float));
  g_assert_cmpfloat (pl_matrix_get (copy, rows - 1, cols - 1), ==, (float) ((rows * cols - 1) % 1009));
  for (gsize i = 0; i < 9; i++)
    g_assert_cmpfloat (small->data[i], ==, 0.0f);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/matrix-io/hdf5", test_hdf5);
  g_test_add_func ("/pl/matrix-io/h5-writer", test_h5_writer);
  g_test_add_func ("/pl/matrix-io/csv", test_csv);
  g_test_add_func ("/pl/matrix-io/npy", test_npy);
  g_test_add_func ("/pl/matrix-io/errors", test_errors);
  g_test_add_func ("/pl/matrix/large", test_large_matrix);
  return g_test_run ();
}
