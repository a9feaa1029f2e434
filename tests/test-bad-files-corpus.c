/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-test-util.h"
#include "pl-test-writers.h"
#include "test-bad-files-corpus.h"

/* The folder of bad inputs test-bad-files.c opens: each file damaged in one
 * way a real download, a converter or a hostile author could damage it. */

static const char *corpus;

static void
write_bytes (const char *name,
             const void *data,
             gsize       len)
{
  g_autofree char *path = g_build_filename (corpus, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
}

static void
write_prefix_of (const char *name,
                 const char *source,
                 gsize       len)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize full;

  g_file_get_contents (source, &contents, &full, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, <, full);
  write_bytes (name, contents, len);
}

hid_t
bad_files_create_h5 (const char *name)
{
  g_autofree char *path = g_build_filename (corpus, name, NULL);
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

  g_assert_cmpint (file, >=, 0);
  return file;
}

static void
write_table_h5 (const char *name,
                guint       bad_row,
                float       bad_value)
{
  hid_t file = bad_files_create_h5 (name);
  guint64 dims[2] = { 16, 8 };
  g_autofree float *v = pl_test_exact_values (16, 8);

  for (guint j = 0; j < 8; j++)
    v[bad_row * 8 + j] = isnan (bad_value) || isinf (bad_value) ? (j == 3 ? bad_value : v[bad_row * 8 + j]) : 0.0f;
  pl_test_h5_put (file, "/position_embeddings", 2, dims, v);
  H5Fclose (file);
}

static void
write_safetensors_header (const char *name,
                          const char *header,
                          gsize       data_len)
{
  g_autofree char *path = g_build_filename (corpus, name, NULL);

  pl_test_write_raw_safetensors (path, strlen (header), header, data_len);
}

/* A header, a few bytes of data, then a hole up to DECLARED bytes of data:
 * a sparse file, kilobytes on disk. */
static void
write_sparse_safetensors (const char *name,
                          const char *header,
                          guint64     declared)
{
  g_autofree char *path = g_build_filename (corpus, name, NULL);

  pl_test_write_raw_safetensors (path, strlen (header), header, 64);
  g_assert_cmpint (truncate (path, 8 + strlen (header) + declared), ==, 0);
}

static void
make_link (const char *target,
           const char *name)
{
  g_autofree char *path = g_build_filename (corpus, name, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

/* A float32 table SHAPE whose storage is set up by DCPL and never written. */
static void
write_unwritten_h5 (const char *name,
                    hsize_t     rows,
                    hsize_t     cols,
                    hid_t       dcpl,
                    gboolean    write_first_row)
{
  hid_t file = bad_files_create_h5 (name);
  hsize_t dims[2] = { rows, cols };
  hid_t space = H5Screate_simple (2, dims, NULL);
  hid_t dset = H5Dcreate2 (file, "/position_embeddings", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);

  g_assert_cmpint (dset, >=, 0);
  if (write_first_row)
    {
      g_autofree float *row = pl_test_exact_values (1, cols);
      hsize_t start[2] = { 0, 0 }, count[2] = { 1, cols };
      hid_t mem = H5Screate_simple (1, &cols, NULL);

      H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL);
      g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, row), >=, 0);
      H5Sclose (mem);
    }
  H5Dclose (dset);
  H5Sclose (space);
  H5Fclose (file);
}

void
bad_files_build_corpus (const char *folder)
{
  g_autofree char *bert = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autofree char *gpt2 = pl_test_fixture ("mini-gpt2", "model.safetensors", NULL);
  g_autofree char *outside = NULL;
  g_autofree guint8 *random = g_malloc (4096);
  GRand *rand = g_rand_new_with_seed (42);
  hid_t file;

  corpus = folder;
  for (guint i = 0; i < 4096; i++)
    random[i] = g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);

  write_bytes ("pytorch_model.bin", "PK\x03\x04 not really a zip", sizeof ("PK\x03\x04 not really a zip") - 1);
  write_bytes ("model.gguf", "GGUF\x03\0\0\0", 8);
  write_bytes ("empty.h5", "", 0);
  write_bytes ("empty.safetensors", "", 0);
  write_bytes ("random.bin", random, 4096);
  write_bytes ("random.h5", random, 4096);
  write_bytes ("random.safetensors", random, 4096);
  /* HDF5's signature, then noise. */
  memcpy (random, "\x89HDF\r\n\x1a\n", 8);
  write_bytes ("signature-then-noise.h5", random, 4096);
  write_prefix_of ("truncated-half.h5", bert, 13804568 / 2);
  write_prefix_of ("truncated-head.h5", bert, 3000);
  write_prefix_of ("truncated.safetensors", gpt2, 13434840 / 2);
  write_prefix_of ("truncated-header.safetensors", gpt2, 2000);

  /* Forged safetensors headers. */
  {
    g_autofree char *path = g_build_filename (corpus, "absurd-header-length.safetensors", NULL);
    pl_test_write_raw_safetensors (path, G_GUINT64_CONSTANT (1) << 62, "{\"a\":{}}", 64);
  }
  {
    g_autofree char *path = g_build_filename (corpus, "header-past-end.safetensors", NULL);
    pl_test_write_raw_safetensors (path, 4096, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", 16);
  }
  write_safetensors_header ("offsets-past-end.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[64,64],\"data_offsets\":[0,16384]}}", 64);
  write_safetensors_header ("overflowing-shape.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,4611686018427387904],"
                            "\"data_offsets\":[0,16]}}", 16);
  write_safetensors_header ("shape-size-mismatch.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[3,3],\"data_offsets\":[0,16]}}", 64);
  write_safetensors_header ("overlapping.safetensors",
                            "{\"a\":{\"dtype\":\"F32\",\"shape\":[4,4],\"data_offsets\":[0,64]},"
                            "\"b\":{\"dtype\":\"F32\",\"shape\":[4,4],\"data_offsets\":[32,96]}}", 96);
  write_safetensors_header ("negative-offset.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[-16,0]}}", 16);
  write_safetensors_header ("reversed-offsets.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[16,0]}}", 16);
  write_safetensors_header ("not-json.safetensors", "{\"t\": [1, 2", 16);
  write_safetensors_header ("not-object.safetensors", "[1, 2, 3]", 16);
  write_safetensors_header ("unknown-dtype.safetensors",
                            "{\"t\":{\"dtype\":\"Q4\",\"shape\":[2,2],\"data_offsets\":[0,4]}}", 16);
  write_safetensors_header ("no-tensors.safetensors", "{\"__metadata__\":{}}", 0);
  write_safetensors_header ("too-many-dims.safetensors",
                            "{\"t\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4);
  write_safetensors_header ("int-table.safetensors",
                            "{\"t\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", 16);
  {
    /* Some bytes that are not UTF-8 inside the header. */
    static const char header[] = "{\"t\xff\xfe\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    g_autofree char *path = g_build_filename (corpus, "binary-header.safetensors", NULL);
    pl_test_write_raw_safetensors (path, strlen (header), header, 4);
  }

  {
    /* Nesting that would overflow a recursive JSON parser's stack. */
    gsize depth = 200000;
    g_autofree char *deep = g_malloc (2 * depth + 1);

    memset (deep, '[', depth);
    memset (deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    write_safetensors_header ("deep-header.safetensors", deep, 0);
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "deep-config", NULL);
    g_autofree char *config = g_build_filename (dir, "config.json", NULL);
    g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);
    g_autofree char *text = g_strnfill (100000, '{');
    g_autofree float *v = pl_test_exact_values (4, 4);
    const PlTestTensor table = { "position_embeddings", "F32", 2, { 4, 4 }, v };

    g_mkdir (dir, 0700);
    pl_test_write_text (config, text);
    pl_test_write_safetensors (weights, &table, 1);
  }

  /* Tables with bad values: NaN, infinity, an all-zero row. */
  write_table_h5 ("nan-row.h5", 5, NAN);
  write_table_h5 ("inf-row.h5", 9, INFINITY);
  write_table_h5 ("zero-row.h5", 3, 0.0f);

  /* Wrong ranks and dtypes. */
  file = bad_files_create_h5 ("shapes.h5");
  {
    guint64 d1[1] = { 16 }, d3[3] = { 2, 4, 8 };
    g_autofree float *v = pl_test_exact_values (8, 8);
    hid_t space = H5Screate_simple (2, (hsize_t[]) { 4, 4 }, NULL);
    hid_t dset = H5Dcreate2 (file, "/ints", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int ints[16] = { 0 };

    pl_test_h5_put (file, "/vector", 1, d1, v);
    pl_test_h5_put (file, "/cube", 3, d3, v);
    pl_test_h5_put (file, "/scalar", 0, NULL, v);
    H5Dwrite (dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
    H5Dclose (dset);
    H5Sclose (space);
  }
  H5Fclose (file);

  /* An absurdly large declared table (chunked, never written). */
  file = bad_files_create_h5 ("huge.h5");
  {
    hsize_t dims[2] = { G_GUINT64_CONSTANT (1) << 36, G_GUINT64_CONSTANT (1) << 20 };
    hsize_t chunk[2] = { 16, 16 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hid_t dset;

    H5Pset_chunk (dcpl, 2, chunk);
    dset = H5Dcreate2 (file, "/position_embeddings", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    g_assert_cmpint (dset, >=, 0);
    H5Dclose (dset);
    H5Pclose (dcpl);
    H5Sclose (space);
  }
  H5Fclose (file);

  /* Chunks so large that reading one row would inflate gigabytes. */
  file = bad_files_create_h5 ("huge-chunks.h5");
  {
    hsize_t dims[2] = { 1 << 20, 1 << 10 };
    hsize_t chunk[2] = { 300000, 1 << 10 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hid_t dset;

    H5Pset_chunk (dcpl, 2, chunk);
    dset = H5Dcreate2 (file, "/position_embeddings", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    g_assert_cmpint (dset, >=, 0);
    H5Dclose (dset);
    H5Pclose (dcpl);
    H5Sclose (space);
  }
  H5Fclose (file);

  /* Links that lead out of the file or round in circles. */
  write_table_h5 ("target.h5", 0, 1.0f);
  file = bad_files_create_h5 ("external-link.h5");
  g_assert_cmpint (H5Lcreate_external ("target.h5", "/position_embeddings", file,
                                       "/position_embeddings", H5P_DEFAULT, H5P_DEFAULT), >=, 0);
  H5Fclose (file);
  file = bad_files_create_h5 ("cycles.h5");
  {
    hid_t g = H5Gcreate2 (file, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

    H5Lcreate_soft ("/b", file, "/a", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft ("/a", file, "/b", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft ("/g", g, "loop", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_hard (file, "/g", g, "self", H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose (g);
  }
  H5Fclose (file);

  /* Data kept in a file beside the HDF5 file (external storage). */
  file = bad_files_create_h5 ("external-storage.h5");
  {
    hsize_t dims[2] = { 16, 8 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hid_t dset;
    g_autofree char *raw = g_build_filename (corpus, "target.h5", NULL);

    H5Pset_external (dcpl, raw, 0, 16 * 8 * 4);
    dset = H5Dcreate2 (file, "/position_embeddings", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    g_assert_cmpint (dset, >=, 0);
    H5Dclose (dset);
    H5Pclose (dcpl);
    H5Sclose (space);
  }
  H5Fclose (file);

  /* Sharded indexes naming shards elsewhere, or missing ones. */
  outside = g_build_filename (corpus, "escape", NULL);
  g_mkdir (outside, 0700);
  {
    g_autofree char *index = g_build_filename (outside, "model.safetensors.index.json", NULL);
    pl_test_write_text (index, "{\"weight_map\": {\"a\": \"../random.safetensors\"}}");
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "missing-shard", NULL);
    g_autofree char *index = g_build_filename (dir, "model.safetensors.index.json", NULL);

    g_mkdir (dir, 0700);
    pl_test_write_text (index, "{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\"}}");
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "bad-config", NULL);
    g_autofree char *config = g_build_filename (dir, "config.json", NULL);
    g_autofree char *weights = g_build_filename (dir, "tf_model.h5", NULL);
    g_autofree char *src = g_build_filename (corpus, "target.h5", NULL);
    g_autofree char *contents = NULL;
    gsize len;

    g_mkdir (dir, 0700);
    pl_test_write_text (config, "{\"num_attention_heads\": 4,");
    g_file_get_contents (src, &contents, &len, NULL);
    g_file_set_contents (weights, contents, len, NULL);
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "empty-folder", NULL);
    g_mkdir (dir, 0700);
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "two-files", NULL);
    g_autofree char *a = g_build_filename (dir, "a.h5", NULL);
    g_autofree char *b = g_build_filename (dir, "b.safetensors", NULL);

    g_mkdir (dir, 0700);
    pl_test_write_text (a, "x");
    pl_test_write_text (b, "y");
  }
  /* For `check`: what the window can and cannot show. */
  write_table_h5 ("zero-first.h5", 0, 0.0f);
  write_table_h5 ("nan-first.h5", 0, NAN);
  file = bad_files_create_h5 ("cube-only.h5");
  {
    guint64 d3[3] = { 2, 3, 4 };
    g_autofree float *v = pl_test_exact_values (6, 4);

    pl_test_h5_put (file, "/x", 3, d3, v);
  }
  H5Fclose (file);
  file = bad_files_create_h5 ("empty-table.h5");
  {
    guint64 d2[2] = { 0, 8 };

    pl_test_h5_put (file, "/position_embeddings", 2, d2, NULL);
  }
  H5Fclose (file);
  {
    /* A virtual dataset of shape 0 × 18 × 8 that maps nothing, as in
     * HDF5's own test files. */
    g_autofree char *path = g_build_filename (corpus, "vds-empty.h5", NULL);
    hid_t fapl = H5Pcreate (H5P_FILE_ACCESS);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hsize_t dims[3] = { 0, 18, 8 };
    hid_t space = H5Screate_simple (3, dims, NULL);
    hid_t dset;

    H5Pset_libver_bounds (fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pset_layout (dcpl, H5D_VIRTUAL);
    dset = H5Dcreate2 (file, "/vds", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    g_assert_cmpint (dset, >=, 0);
    H5Dclose (dset);
    H5Sclose (space);
    H5Pclose (dcpl);
    H5Pclose (fapl);
    H5Fclose (file);
  }
  /* Valid files with datasets Poslens never reads beside a sound table. */
  file = bad_files_create_h5 ("table-and-others.h5");
  {
    guint64 d2[2] = { 16, 8 }, d3[3] = { 2, 3, 4 };
    g_autofree float *v = pl_test_exact_values (16, 8);
    hsize_t four = 4;
    hid_t null_space = H5Screate (H5S_NULL);
    hid_t space = H5Screate_simple (1, &four, NULL);
    hid_t a = H5Dcreate2 (file, "/nothing", H5T_IEEE_F32LE, null_space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t b = H5Dcreate2 (file, "/never_written", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t c = H5Dcreate2 (file, "/step", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    gint64 steps[4] = { 1, 2, 3, 4 };

    g_assert_cmpint (H5Dwrite (c, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps), >=, 0);
    H5Dclose (a);
    H5Dclose (b);
    H5Dclose (c);
    H5Sclose (space);
    H5Sclose (null_space);
    pl_test_h5_put (file, "/position_embeddings", 2, d2, v);
    pl_test_h5_put (file, "/kernel", 3, d3, v);
  }
  H5Fclose (file);
  {
    g_autofree char *path = g_build_filename (corpus, "table-and-ids.safetensors", NULL);
    g_autofree float *v = pl_test_exact_values (16, 8);
    const PlTestTensor tensors[] = {
      { "bert.embeddings.position_embeddings.weight", "F32", 2, { 16, 8 }, v },
      { "bert.embeddings.position_ids", "I64", 2, { 1, 16 }, v },
    };

    pl_test_write_safetensors (path, tensors, G_N_ELEMENTS (tensors));
  }

  /* Kilobytes on disk that declare gigabytes: a sparse file. */
  write_sparse_safetensors ("sparse-table.safetensors",
                            "{\"position_embeddings\":{\"dtype\":\"F32\",\"shape\":[20000,20000],"
                            "\"data_offsets\":[0,1600000000]}}", 1600000000);
  write_sparse_safetensors ("sparse-bf16.safetensors",
                            "{\"position_embeddings\":{\"dtype\":\"BF16\",\"shape\":[45000,45000],"
                            "\"data_offsets\":[0,4050000000]}}", 4050000000);
  {
    /* A header of 64 MiB that is a hole. */
    g_autofree char *path = g_build_filename (corpus, "sparse-header.safetensors", NULL);

    pl_test_write_raw_safetensors (path, 64 << 20, "{\"t\": ", 0);
    g_assert_cmpint (truncate (path, 8 + (64 << 20)), ==, 0);
  }
  {
    /* Contiguous storage allocated (the file grows by a hole) but never
     * written. */
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);

    H5Pset_alloc_time (dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER);
    write_unwritten_h5 ("sparse-table.h5", 20000, 20000, dcpl, FALSE);
    H5Pclose (dcpl);
  }
  /* Datasets never written: contiguous (no storage yet), and chunked with
   * one row's chunk of a large table. */
  write_unwritten_h5 ("unwritten.h5", 16, 8, H5P_DEFAULT, FALSE);
  {
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hsize_t chunk[2] = { 16, 512 };

    H5Pset_chunk (dcpl, 2, chunk);
    write_unwritten_h5 ("chunks-unwritten.h5", 20000, 512, dcpl, TRUE);
    H5Pclose (dcpl);
  }

  /* Links followed only to regular files. */
  make_link ("/dev/zero", "link-to-device.safetensors");
  {
    g_autofree char *dir = g_build_filename (corpus, "folder-weights", NULL);

    g_mkdir (dir, 0700);
    make_link (".", "folder-weights/model.safetensors");
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "fifo-folder", NULL);
    g_autofree char *fifo = g_build_filename (dir, "pipe", NULL);
    g_autofree char *link = g_build_filename (dir, "model.safetensors", NULL);

    g_mkdir (dir, 0700);
    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    g_assert_cmpint (symlink ("pipe", link), ==, 0);
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "fifo-shard", NULL);
    g_autofree char *index = g_build_filename (dir, "model.safetensors.index.json", NULL);
    g_autofree char *fifo = g_build_filename (dir, "model-00001-of-00001.safetensors", NULL);

    g_mkdir (dir, 0700);
    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    pl_test_write_text (index, "{\"weight_map\": {\"a\": \"model-00001-of-00001.safetensors\"}}");
  }
  {
    g_autofree char *dir = g_build_filename (corpus, "fifo-config", NULL);
    g_autofree char *config = g_build_filename (dir, "config.json", NULL);
    g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);
    g_autofree float *v = pl_test_exact_values (4, 4);
    const PlTestTensor table = { "position_embeddings", "F32", 2, { 4, 4 }, v };

    g_mkdir (dir, 0700);
    pl_test_write_safetensors (weights, &table, 1);
    g_assert_cmpint (symlink ("/dev/zero", config), ==, 0);
  }

  {
    /* Found by fuzzing: a compact table with no bytes stored, which
     * libhdf5 1.10 reads through a NULL buffer (a crash) unless refused. */
    g_autofree char *src = g_test_build_filename (G_TEST_DIST, "fuzz", "regressions", "hdf5",
                                                  "compact-without-data", NULL);
    g_autofree char *contents = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
    write_bytes ("compact-without-data.h5", contents, len);
  }
}
