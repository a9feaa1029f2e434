/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <string.h>

#include "pl-blas-core.h"
#include "pl-model.h"
#include "pl-test-util.h"

void
pl_test_init (int    *argc,
              char ***argv)
{
  pl_blas_core_choose (*argv);
  g_test_init (argc, argv, NULL);
}

static char *
build_path (const char *env, const char *fallback, const char *first, va_list ap)
{
  const char *root = g_getenv (env);
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();

  g_ptr_array_add (parts, (gpointer) (root ? root : fallback));
  for (const char *p = first; p != NULL; p = va_arg (ap, const char *))
    g_ptr_array_add (parts, (gpointer) p);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

char *
pl_test_fixture (const char *first, ...)
{
  g_autofree char *fixtures = NULL;
  va_list ap;
  char *path;

  fixtures = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                               "fixtures", NULL);
  va_start (ap, first);
  path = build_path ("POSLENS_TEST_FIXTURES", fixtures, first, ap);
  va_end (ap);
  return path;
}

char *
pl_test_demo (const char *first, ...)
{
  va_list ap;
  char *path;

  va_start (ap, first);
  path = build_path ("POSLENS_DEMO_DIR", DEMO_DIR_SOURCE, first, ap);
  va_end (ap);
  return path;
}

/* DATASET of FILE, open, with its file in *F: the test fails when either is missing. */
static hid_t
open_dataset (const char *file,
              const char *dataset,
              hid_t      *f)
{
  hid_t d;

  *f = H5Fopen (file, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (*f, >=, 0);
  d = H5Dopen2 (*f, dataset, H5P_DEFAULT);
  if (d < 0)
    g_error ("%s has no dataset %s", file, dataset);
  return d;
}

PlMatrix *
pl_test_read_h5 (const char *file,
                 const char *dataset)
{
  hid_t f, d, s;
  hsize_t dims[8] = { 0 };
  int rank;
  gsize rows = 1, cols = 1;
  PlMatrix *m;

  d = open_dataset (file, dataset, &f);
  s = H5Dget_space (d);
  rank = H5Sget_simple_extent_ndims (s);
  g_assert_cmpint (rank, <=, 8);
  H5Sget_simple_extent_dims (s, dims, NULL);
  if (rank >= 1)
    cols = dims[rank - 1];
  for (int i = 0; i < rank - 1; i++)
    rows *= dims[i];
  m = pl_matrix_new (rows, cols);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, m->data), >=, 0);
  H5Sclose (s);
  H5Dclose (d);
  H5Fclose (f);
  return m;
}

PlMatrix *
pl_test_vision_reference (const char *group,
                          const char *dataset)
{
  g_autofree char *reference = pl_test_fixture ("vision", "reference.h5", NULL);
  g_autofree char *path = g_strdup_printf ("/%s/%s", group, dataset);

  return pl_test_read_h5 (reference, path);
}

PlModel *
pl_test_open_vision (const char *name)
{
  g_autofree char *path = pl_test_fixture ("vision", name, NULL);
  g_autoptr(GError) error = NULL;
  PlModel *model = pl_model_open (path, NULL, NULL, &error);

  g_assert_no_error (error);
  return model;
}

double *
pl_test_read_h5_doubles (const char *file,
                         const char *dataset,
                         gsize      *n)
{
  hid_t f, d, s;
  double *values;

  d = open_dataset (file, dataset, &f);
  s = H5Dget_space (d);
  *n = (gsize) H5Sget_simple_extent_npoints (s);
  values = g_new (double, MAX (*n, 1));
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
  H5Sclose (s);
  H5Dclose (d);
  H5Fclose (f);
  return values;
}

double
pl_test_read_h5_scalar (const char *file,
                        const char *dataset)
{
  gsize n;
  g_autofree double *values = pl_test_read_h5_doubles (file, dataset, &n);

  g_assert_cmpuint (n, ==, 1);
  return values[0];
}

double
pl_test_max_abs_diff (const PlMatrix *a,
                      const PlMatrix *b)
{
  double worst = 0;

  if (a->rows != b->rows || a->cols != b->cols)
    return NAN;
  for (gsize i = 0; i < a->rows * a->cols; i++)
    {
      double d = fabs ((double) a->data[i] - b->data[i]);
      if (isnan (a->data[i]) != isnan (b->data[i]))
        return INFINITY;
      if (!isnan (d))
        worst = MAX (worst, d);
    }
  return worst;
}

PlMatrix *
pl_test_random_matrix (GRand *rand,
                       gsize  rows,
                       gsize  cols,
                       double scale)
{
  PlMatrix *m = pl_matrix_new (rows, cols);

  for (gsize i = 0; i < rows * cols; i++)
    m->data[i] = (float) (g_rand_double_range (rand, -1, 1) * scale);
  return m;
}

double
pl_test_max_abs (const PlMatrix *m)
{
  double worst = 0;

  for (gsize i = 0; i < m->rows * m->cols; i++)
    worst = MAX (worst, fabs (m->data[i]));
  return worst;
}

char *
pl_test_tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("poslens-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
pl_test_rmtree (const char *path)
{
  GDir *dir;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR) || g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      pl_test_rmtree (child);
    }
  if (dir)
    g_dir_close (dir);
  g_rmdir (path);
}

static const PlTestTable tables[] = {
  { "mini-gpt2/reference.h5", "/position_table", "mini-gpt2" },
  { "mini-bert/reference.h5", "/position_table", "mini-bert" },
  { "mini-roberta/reference.h5", "/position_table", "mini-roberta" },   /* rows 2..513 */
  { "sinusoid-512x768.h5", "/reference", NULL },
};

void
pl_test_add_table_tests (const char    *prefix,
                         GTestDataFunc  func)
{
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *name = g_strdup (tables[i].reference);
      g_autofree char *path = NULL;

      *strchr (name, strchr (name, '/') ? '/' : '.') = '\0';
      path = g_strdup_printf ("%s/%s", prefix, name);
      g_test_add_data_func (path, &tables[i], func);
    }
}

PlMatrix *
pl_test_read_table (const PlTestTable *t)
{
  g_autofree char *path = t->model ? pl_test_demo (t->model, NULL)
                                   : pl_test_fixture (t->reference, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, t->model ? NULL : "/position_embeddings", NULL, &error);
  PlMatrix *table;

  g_assert_no_error (error);
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (table->rows, ==, 512);
  return table;
}

int
pl_test_run_cli (const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) g_getenv ("POSLENS_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    {
      /* usage and input errors are one line on stderr */
      g_test_message ("poslens-cli %s: %s", args[0], err);
      g_assert_cmpuint (strlen (err), >, 0);
      g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

int
pl_test_cli_output (const char         *command,
                    const char * const *args,
                    char              **out,
                    char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status;

  g_ptr_array_add (argv, (gpointer) g_getenv ("POSLENS_CLI"));
  g_assert_nonnull (g_ptr_array_index (argv, 0));
  if (command != NULL)
    g_ptr_array_add (argv, (gpointer) command);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

int
pl_test_cli (char **out,
             char **err,
             ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  int status;
  va_list ap;

  va_start (ap, err);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  /* Captured even when not asked for: the test's stdout is its TAP stream. */
  status = pl_test_cli_output (NULL, (const char * const *) args->pdata, &stdout_text, &stderr_text);
  if (out)
    *out = g_steal_pointer (&stdout_text);
  if (err)
    *err = g_steal_pointer (&stderr_text);
  return status;
}

char *
pl_test_write_known_libhdf5 (guint       i,
                             const char *path)
{
  g_autofree char *name = g_strdup_printf ("%02u", i);
  char *known = g_test_build_filename (G_TEST_DIST, "fuzz", "known-libhdf5", "uaf-sequence", name, NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize size;

  g_file_get_contents (known, &data, &size, &error);
  g_assert_no_error (error);
  g_file_set_contents_full (path, data, size, G_FILE_SET_CONTENTS_NONE, 0600, &error);
  g_assert_no_error (error);
  return known;
}

/* pdftotext's reading of PDF, its lines joined by spaces, or NULL when
 * poppler-utils is not installed. */
static char *
pdf_text (const char *pdf)
{
  g_autofree char *program = g_find_program_in_path ("pdftotext");
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  char *argv[] = { program, (char *) "-enc", (char *) "UTF-8", (char *) pdf, (char *) "-", NULL };

  if (program == NULL)
    return NULL;
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &text, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_strdelimit (text, "\n\f", ' ');
  return g_steal_pointer (&text);
}

void
pl_test_assert_paper_files (const char *folder,
                            guint       first_seed,
                            guint       n_repeats)
{
  static const char png_signature[] = "\x89PNG\r\n\x1a\n";
  const char *names[] = { "figure1.pdf", "figure1.png", "table1.pdf", "table1.png" };
  g_autofree char *figure_text = NULL;
  g_autofree char *table_text = NULL;
  g_autofree char *seeds = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (folder, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      if (g_str_has_suffix (names[i], ".pdf"))
        {
          /* A whole PDF: its header, and its trailer's end-of-file mark. */
          g_assert_cmpuint (length, >, 1000);
          g_assert_true (g_str_has_prefix (contents, "%PDF-1."));
          g_assert_nonnull (g_strstr_len (contents + length - 32, 32, "%%EOF"));
        }
      else
        {
          /* A whole PNG: the signature, the header chunk first, the end chunk last. */
          g_assert_cmpuint (length, >, 1000);
          g_assert_cmpmem (contents, 8, png_signature, 8);
          g_assert_cmpmem (contents + 12, 4, "IHDR", 4);
          g_assert_cmpmem (contents + length - 8, 4, "IEND", 4);
        }
    }

  /* The captions, as a reader of the PDF sees them. */
  {
    g_autofree char *figure_pdf = g_build_filename (folder, "figure1.pdf", NULL);
    g_autofree char *table_pdf = g_build_filename (folder, "table1.pdf", NULL);

    figure_text = pdf_text (figure_pdf);
    table_text = pdf_text (table_pdf);
  }
  if (figure_text == NULL || table_text == NULL)
    {
      g_test_message ("pdftotext (poppler-utils) is not installed: the captions are not read back");
      return;
    }
  g_assert_nonnull (strstr (figure_text, "Figure 1 of Wang and Chen (2020)"));
  g_assert_nonnull (strstr (figure_text, "without random draws"));
  g_assert_nonnull (strstr (table_text, "by the paper’s protocol"));
  g_assert_nonnull (strstr (table_text, "MiuLab/PE-Study"));
  if (n_repeats == 1)
    seeds = g_strdup_printf ("One run, seed %u:", first_seed);
  else
    seeds = g_strdup_printf ("over %u runs, seeds %u–%u.", n_repeats, first_seed, first_seed + n_repeats - 1);
  g_test_message ("looking for \"%s\" in %s", seeds, table_text);
  g_assert_nonnull (strstr (table_text, seeds));
}

/* Writes a manifest for HOST/NS/MODEL/TAG in STORE whose model layer is
 * BLOB (a path whose bytes are copied in under their sha256, unless DIGEST
 * is given). */
void
pl_test_add_ollama_model (const char *store,
                          const char *host,
                          const char *ns,
                          const char *model,
                          const char *tag,
                          const char *blob,
                          const char *digest)
{
  g_autofree char *dir = g_build_filename (store, "manifests", host, ns, model, NULL);
  g_autofree char *manifest = g_build_filename (dir, tag, NULL);
  g_autofree char *blobs = g_build_filename (store, "blobs", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *sum = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (blobs, 0755), ==, 0);
  if (blob != NULL)
    {
      g_autofree char *target = NULL;

      g_assert_true (g_file_get_contents (blob, &contents, &length, NULL));
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
      target = g_strdup_printf ("%s/sha256-%s", blobs, sum);
      g_assert_true (g_file_set_contents (target, contents, length, NULL));
    }
  text = g_strdup_printf ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
                          "\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\","
                          "\"digest\":\"sha256:%064d\",\"size\":12},\"layers\":["
                          "{\"mediaType\":\"application/vnd.ollama.image.license\",\"digest\":\"sha256:%064d\",\"size\":5},"
                          "{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"%s%s\",\"size\":%"
                          G_GSIZE_FORMAT "}]}", 0, 1, digest ? "" : "sha256:", digest ? digest : sum, length);
  g_assert_true (g_file_set_contents (manifest, text, -1, NULL));
}
