/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-model-isolated.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"
#include "test-bad-files-corpus.h"

/* Each bad input must give a clear error naming the file, through the
 * library and through poslens-cli (exit 2, one line on stderr), quickly. */
#define TIME_LIMIT_S 1.0

typedef struct
{
  const char *file;      /* in the corpus folder */
  const char *dataset;   /* --dataset, or NULL */
  const char *why;       /* a word the message must contain, or NULL */
} BadCase;

static char *corpus;

static const BadCase cases[] = {
  { "pytorch_model.bin", NULL, "zip" },
  { "model.gguf", NULL, "GGUF" },
  { "empty.h5", NULL, "empty" },
  { "empty.safetensors", NULL, "empty" },
  { "random.bin", NULL, "neither" },
  { "random.h5", NULL, "HDF5" },
  { "random.safetensors", NULL, "header" },
  { "signature-then-noise.h5", NULL, "HDF5" },
  { "truncated-half.h5", NULL, "truncated" },
  { "truncated-head.h5", NULL, "truncated" },
  { "truncated.safetensors", NULL, "past the end" },
  { "truncated-header.safetensors", NULL, "header" },
  { "absurd-header-length.safetensors", NULL, "header" },
  { "header-past-end.safetensors", NULL, "header" },
  { "offsets-past-end.safetensors", NULL, "past the end" },
  { "overflowing-shape.safetensors", NULL, "overflows" },
  { "shape-size-mismatch.safetensors", NULL, "bytes" },
  { "overlapping.safetensors", NULL, "overlap" },
  { "negative-offset.safetensors", NULL, "malformed" },
  { "reversed-offsets.safetensors", NULL, "malformed" },
  { "not-json.safetensors", NULL, "JSON" },
  { "not-object.safetensors", NULL, "object" },
  { "unknown-dtype.safetensors", NULL, "Q4" },
  { "no-tensors.safetensors", NULL, "no tensors" },
  { "too-many-dims.safetensors", NULL, "dimensions" },
  { "int-table.safetensors", "t", "I32" },
  { "binary-header.safetensors", NULL, "UTF-8" },
  { "deep-header.safetensors", NULL, "nests deeper" },
  { "deep-config", NULL, "nests deeper" },
  { "nan-row.h5", NULL, "NaN" },
  { "inf-row.h5", NULL, "infinity" },
  { "nan-row.h5", "/missing", "no dataset" },
  { "shapes.h5", "/vector", "2-D" },
  { "shapes.h5", "/cube", "2-D" },
  { "shapes.h5", "/scalar", "2-D" },
  { "shapes.h5", "/ints", "int32" },
  { "huge.h5", NULL, "large" },
  { "huge-chunks.h5", NULL, "chunks" },
  { "external-link.h5", NULL, "not followed" },
  { "external-link.h5", "/position_embeddings", "not followed" },
  { "cycles.h5", NULL, "no datasets" },
  { "cycles.h5", "/a", "no dataset" },
  { "external-storage.h5", NULL, "external files" },
  { "compact-without-data.h5", NULL, "stores 0 of the 96 bytes" },
  { "sparse-table.safetensors", NULL, "holes of a sparse file" },
  { "sparse-bf16.safetensors", NULL, "declares 3.8" },
  { "sparse-header.safetensors", NULL, "“the safetensors header” declares 64" },
  { "sparse-table.h5", NULL, "holes of a sparse file" },
  { "unwritten.h5", NULL, "never written" },
  { "chunks-unwritten.h5", NULL, "never written" },
  { "link-to-device.safetensors", NULL, "a link to a device" },
  { "folder-weights", NULL, "a link to a folder" },
  { "fifo-folder", NULL, "a link to a pipe" },
  { "fifo-shard", NULL, "is a pipe" },
  { "fifo-config", NULL, "a link to a device" },
  { "escape/model.safetensors.index.json", NULL, "plain file name" },
  { "missing-shard", NULL, "missing" },
  { "bad-config", NULL, "config.json" },
  { "empty-folder", NULL, "has no" },
  { "two-files", NULL, "several" },
  { "does-not-exist.h5", NULL, "does not exist" },
};

/* `check` answers for what the window does: exit 0 when it can show the
 * file, 2 with the reason when the analyses would refuse it. */
typedef struct
{
  const char *file;
  gboolean    ok;
  const char *why;       /* a word the refusal must contain */
} CheckCase;

static const CheckCase check_cases[] = {
  { "zero-first.h5", TRUE, NULL },
  { "nan-first.h5", FALSE, "position 0 holds NaN" },
  { "inf-row.h5", FALSE, "infinity" },
  { "cube-only.h5", FALSE, "holds no table to show" },
  { "empty-table.h5", FALSE, "“/position_embeddings” 0×8" },
  { "vds-empty.h5", FALSE, "“/vds” 0×18×8" },
  { "table-and-others.h5", TRUE, NULL },
  { "table-and-ids.safetensors", TRUE, NULL },
};

static void
test_check (gconstpointer data)
{
  const CheckCase *c = data;
  g_autofree char *path = g_build_filename (corpus, c->file, NULL);
  const char *args[] = { "check", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  gboolean ok = model != NULL && pl_model_check_readable (model, &error);

  g_assert_true (ok == c->ok);
  if (!ok)
    {
      g_test_message ("%s: %s", c->file, error->message);
      if (strstr (error->message, c->why) == NULL)
        g_error ("%s: “%s” does not say “%s”", c->file, error->message, c->why);
    }
  if (g_getenv ("POSLENS_CLI") == NULL)
    return;
  g_assert_cmpint (pl_test_cli_output (NULL, args, &out, &err), ==, c->ok ? 0 : 2);
  if (!c->ok)
    g_assert_nonnull (strstr (err, c->file));
}

static void
test_library (gconstpointer data)
{
  const BadCase *c = data;
  g_autofree char *path = g_build_filename (corpus, c->file, NULL);
  g_autofree char *base = g_path_get_basename (c->file);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();

  model = pl_model_open (path, c->dataset, NULL, &error);
  if (model != NULL)
    positions = pl_model_read_positions (model, &error);
  g_assert_null (positions);
  g_assert_nonnull (error);
  g_assert_true (error->domain == PL_ERROR);
  g_test_message ("%s: %s", c->file, error->message);
  /* The file (or its folder) is named, and the reason. */
  g_assert_nonnull (strstr (error->message, base));
  if (c->why != NULL && strstr (error->message, c->why) == NULL)
    g_error ("%s: “%s” does not say “%s”", c->file, error->message, c->why);
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, TIME_LIMIT_S);
}

static void
test_cli (gconstpointer data)
{
  const BadCase *c = data;
  g_autofree char *path = g_build_filename (corpus, c->file, NULL);
  g_autofree char *base = g_path_get_basename (c->file);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();
  const char *cli = g_getenv ("POSLENS_CLI");
  const char *argv[] = { cli, "info", path, c->dataset ? "--dataset" : NULL, c->dataset, NULL };
  int status;

  if (cli == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set");
      return;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_cmpstr (out, ==, "");
  /* One line: the only newline ends it. */
  g_assert_true (g_str_has_suffix (err, "\n"));
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
  g_assert_nonnull (strstr (err, base));
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, TIME_LIMIT_S);
}

/* All-zero rows read (the dot product and PCA take them); NaN and
 * infinities are refused with every row that holds one named, and the
 * zero rows beside them. */
static void
test_every_bad_row_named (void)
{
  g_autofree char *zero_path = g_build_filename (corpus, "zero-row.h5", NULL);
  g_autofree char *path = g_build_filename (corpus, "nan-and-zeros.h5", NULL);
  g_autofree float *v = pl_test_exact_values (16, 8);
  guint64 dims[2] = { 16, 8 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) zero_model = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  hid_t file;

  zero_model = pl_model_open (zero_path, NULL, NULL, &error);
  g_assert_no_error (error);
  positions = pl_model_read_positions (zero_model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, 16);
  for (guint j = 0; j < 8; j++)
    g_assert_cmpfloat (pl_matrix_get (positions, 3, j), ==, 0.0f);

  for (guint j = 0; j < 8; j++)
    {
      v[6 * 8 + j] = 0.0f;
      v[7 * 8 + j] = 0.0f;
    }
  v[2 * 8 + 5] = NAN;
  v[9 * 8 + 0] = NAN;
  v[4 * 8 + 7] = -INFINITY;
  file = bad_files_create_h5 ("nan-and-zeros.h5");
  pl_test_h5_put (file, "/position_embeddings", 2, dims, v);
  H5Fclose (file);

  model = pl_model_open (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&positions, pl_matrix_unref);
  positions = pl_model_read_positions (model, &error);
  g_assert_null (positions);
  g_assert_error (error, PL_ERROR, PL_ERROR_BAD_VALUES);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "nan-and-zeros.h5"));
  g_assert_nonnull (strstr (error->message, "positions 2 and 9 hold NaN"));
  g_assert_nonnull (strstr (error->message, "position 4 holds an infinity"));
  g_assert_nonnull (strstr (error->message, "positions 6 and 7 are all zeros"));
}

/* A file with a hard-link cycle and a real table opens, and the table reads. */
static void
test_hard_link_cycle_with_table (void)
{
  g_autofree char *path = g_build_filename (corpus, "hard-cycle-ok.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autofree float *v = pl_test_exact_values (16, 8);
  guint64 dims[2] = { 16, 8 };
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2 (file, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  H5Lcreate_hard (file, "/g", g, "again", H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose (g);
  pl_test_h5_put (file, "/g/position_embeddings", 2, dims, v);
  H5Fclose (file);

  model = pl_model_open (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (pl_model_get_checkpoint (model)), ==, 1);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, 16);
  g_assert_cmpfloat (pl_matrix_get (positions, 3, 5), ==, v[3 * 8 + 5]);
}

/* Whole tensors read as stored (the forward pass's weights) get the same
 * check against holes as rows do. */
static void
test_sparse_stored (void)
{
  g_autofree char *path = g_build_filename (corpus, "sparse-table.safetensors", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  g_autoptr(PlStoredMatrix) stored = NULL;

  g_assert_no_error (error);
  stored = pl_checkpoint_read_stored (checkpoint, "position_embeddings", &error);
  g_assert_null (stored);
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "holes of a sparse file"));
}

/* Hugging Face's cache: a snapshot's files are relative links into blobs/. */
static void
test_hf_cache_links (void)
{
  g_autofree char *repo = g_build_filename (corpus, "models--test--tiny", NULL);
  g_autofree char *blobs = g_build_filename (repo, "blobs", NULL);
  g_autofree char *snapshot = g_build_filename (repo, "snapshots", "0123abcd", NULL);
  g_autofree char *blob = g_build_filename (blobs, "5f2a9e", NULL);
  g_autofree char *config_blob = g_build_filename (blobs, "77c1d0", NULL);
  g_autofree char *weights = g_build_filename (snapshot, "model.safetensors", NULL);
  g_autofree char *config = g_build_filename (snapshot, "config.json", NULL);
  g_autofree float *v = pl_test_exact_values (16, 8);
  const PlTestTensor table = { "transformer.wpe.weight", "F32", 2, { 16, 8 }, v };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  const char *args[] = { "check", snapshot, NULL };

  g_assert_cmpint (g_mkdir_with_parents (blobs, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (snapshot, 0700), ==, 0);
  pl_test_write_safetensors (blob, &table, 1);
  pl_test_write_text (config_blob, "{\"model_type\": \"gpt2\"}");
  g_assert_cmpint (symlink ("../../blobs/5f2a9e", weights), ==, 0);
  g_assert_cmpint (symlink ("../../blobs/77c1d0", config), ==, 0);

  model = pl_model_open (snapshot, NULL, NULL, &error);
  g_assert_no_error (error);
  positions = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (positions->rows, ==, 16);
  for (guint i = 0; i < 16 * 8; i++)
    g_assert_cmpfloat (positions->data[i], ==, v[i]);
  if (g_getenv ("POSLENS_CLI") != NULL)
    g_assert_cmpint (pl_test_run_cli (args), ==, 0);
}

/* No control character of a file reaches the terminal: tensor names with a
 * newline, a carriage return, an ESC sequence and a C1 CSI are listed
 * escaped, one line each, by `info` and `info --json`; an error quoting one
 * escapes it too. */
static void
test_info_escapes_names (void)
{
  g_autofree char *path = g_build_filename (corpus, "control-names.safetensors", NULL);
  g_autofree float *v = pl_test_exact_values (4, 4);
  const PlTestTensor tensors[] = {
    { "a\nb\rc\x1b[31mred\x1b[0m", "F32", 2, { 4, 4 }, v },
    { "x\xc2\x9b" "2J\x7f", "F32", 3, { 2, 1, 2 }, v },  /* 3-D, not a table: [1, n, d] would be one */
  };
  const char *text[] = { "info", path, "--tensors", NULL };
  const char *json[] = { "info", path, "--tensors", "--json", NULL };
  const char *refused[] = { "similarity", path, "--dataset", "x\xc2\x9b" "2J\x7f", "--out", "/nonexistent/x.h5", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
  g_auto(GStrv) lines = NULL;

  if (g_getenv ("POSLENS_CLI") == NULL)
    {
      g_test_skip ("POSLENS_CLI is not set");
      return;
    }
  pl_test_write_safetensors (path, tensors, G_N_ELEMENTS (tensors));

  g_assert_cmpint (pl_test_cli_output (NULL, text, &out, &err), ==, 0);
  for (const char *p = out; *p; p++)
    g_assert_true ((guchar) *p >= 0x20 || *p == '\n');
  g_assert_null (strstr (out, "\xc2\x9b"));
  g_assert_null (strchr (out, 0x7f));
  g_assert_nonnull (strstr (out, "Position table:  a\\nb\\rc\\e[31mred\\e[0m\n"));
  g_assert_nonnull (strstr (out, "\n  x\\u009b2J\\x7f  [2 × 1 × 2] F32\n"));
  g_assert_nonnull (strstr (out, "\n  a\\nb\\rc\\e[31mred\\e[0m  [4 × 4] F32\n  x"));
  lines = g_strsplit (out, "\n", -1);
  /* Model, format, family, table and its shape, count, two tensors. */
  g_assert_cmpuint (g_strv_length (lines), ==, 8 + 1);

  g_assert_cmpint (pl_test_cli_output (NULL, json, &out2, &err2), ==, 0);
  g_assert_null (strchr (out2, 0x1b));
  g_assert_null (strchr (out2, '\r'));
  g_assert_null (strstr (out2, "\xc2\x9b"));
  g_assert_null (strchr (out2, 0x7f));
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    JsonArray *list;

    json_parser_load_from_data (parser, out2, -1, &error);
    g_assert_no_error (error);
    list = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "tensors");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (list, 0), "name"), ==,
                     tensors[0].name);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (list, 1), "name"), ==,
                     tensors[1].name);
  }

  /* The 3-D dataset refused as a table: its name escaped in the one line. */
  g_assert_cmpint (pl_test_cli_output (NULL, refused, &out3, &err3), ==, 2);
  g_test_message ("%s", err3);
  g_assert_nonnull (strstr (err3, "“x\\u009b2J\\x7f” is 3-D"));
  g_assert_true (strchr (err3, '\n') == err3 + strlen (err3) - 1);
}

/* An empty path names no file, and is not taken for the demo folder. */
static void
test_empty_path (void)
{
  const char *args[] = { "check", "", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_null (pl_model_open ("", NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  if (g_getenv ("POSLENS_CLI") == NULL)
    return;
  g_assert_cmpint (pl_test_cli_output (NULL, args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "empty"));
  g_assert_null (strstr (err, "demo"));
}

/* Bit-flipped copies of small valid files: each opens to a table or fails
 * with an error, none crashes or hangs. Deterministic seeds. */
static void
test_mutations (gconstpointer data)
{
  gboolean hdf5 = GPOINTER_TO_INT (data);
  g_autofree char *source = g_build_filename (corpus, hdf5 ? "mutate-src.h5" : "mutate-src.safetensors", NULL);
  g_autofree char *target = g_build_filename (corpus, hdf5 ? "mutated.h5" : "mutated.safetensors", NULL);
  g_autofree float *v = pl_test_exact_values (16, 8);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (hdf5 ? 11 : 12);
  guint opened = 0, refused = 0;
  gsize len;

  if (hdf5)
    {
      hid_t file = H5Fcreate (source, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      guint64 dims[2] = { 16, 8 };

      pl_test_h5_put (file, "/model/tf_model/model/wpe/embeddings:0", 2, dims, v);
      pl_test_h5_put (file, "/model/tf_model/model/h_._0/ln_1/gamma:0", 1, dims + 1, v);
      H5Fclose (file);
    }
  else
    {
      const PlTestTensor tensors[] = {
        { "transformer.wpe.weight", "F32", 2, { 16, 8 }, v },
        { "transformer.h.0.ln_1.weight", "BF16", 1, { 8 }, v },
      };

      pl_test_write_safetensors (source, tensors, G_N_ELEMENTS (tensors));
    }
  g_file_get_contents (source, &contents, &len, &error);
  g_assert_no_error (error);

  for (guint k = 0; k < 150; k++)
    {
      g_autofree char *mutated = g_memdup2 (contents, len);
      g_autoptr(PlModel) model = NULL;
      g_autoptr(PlMatrix) positions = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GTimer) timer = g_timer_new ();
      guint flips = g_rand_int_range (rand, 1, 8);

      for (guint f = 0; f < flips; f++)
        mutated[g_rand_int_range (rand, 0, len)] ^= 1 << g_rand_int_range (rand, 0, 8);
      g_file_set_contents_full (target, mutated, len, G_FILE_SET_CONTENTS_NONE, 0600, &error);
      g_assert_no_error (error);

      model = pl_model_open (target, NULL, NULL, &local_error);
      if (model != NULL)
        positions = pl_model_read_positions (model, &local_error);
      if (positions != NULL)
        opened++;
      else
        {
          g_assert_nonnull (local_error);
          g_assert_true (local_error->domain == PL_ERROR);
          refused++;
        }
      g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, TIME_LIMIT_S);
    }
  g_rand_free (rand);
  g_test_message ("%u opened, %u refused", opened, refused);
  g_assert_cmpuint (refused, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  pl_test_init (&argc, &argv);

  corpus = pl_test_tmpdir ();
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  bad_files_build_corpus (corpus);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s%s%s", cases[i].file,
                                               cases[i].dataset ? "@" : "",
                                               cases[i].dataset ? cases[i].dataset : "");
      g_autofree char *lib = NULL;
      g_autofree char *cli = NULL;

      g_strdelimit (name, "/", '_');
      lib = g_strdup_printf ("/pl/bad-files/library/%s", name);
      cli = g_strdup_printf ("/pl/bad-files/cli/%s", name);
      g_test_add_data_func (lib, &cases[i], test_library);
      g_test_add_data_func (cli, &cases[i], test_cli);
    }
  for (guint i = 0; i < G_N_ELEMENTS (check_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/bad-files/check/%s", check_cases[i].file);

      g_test_add_data_func (name, &check_cases[i], test_check);
    }
  g_test_add_func ("/pl/bad-files/every-bad-row-named", test_every_bad_row_named);
  g_test_add_func ("/pl/bad-files/hard-link-cycle-with-table", test_hard_link_cycle_with_table);
  g_test_add_func ("/pl/bad-files/hf-cache-links", test_hf_cache_links);
  g_test_add_func ("/pl/bad-files/sparse-stored", test_sparse_stored);
  g_test_add_func ("/pl/bad-files/info-escapes-names", test_info_escapes_names);
  g_test_add_func ("/pl/bad-files/empty-path", test_empty_path);
  g_test_add_data_func ("/pl/bad-files/mutations/hdf5", GINT_TO_POINTER (TRUE), test_mutations);
  g_test_add_data_func ("/pl/bad-files/mutations/safetensors", GINT_TO_POINTER (FALSE), test_mutations);

  ret = g_test_run ();
  pl_test_rmtree (corpus);
  g_free (corpus);
  return ret;
}
