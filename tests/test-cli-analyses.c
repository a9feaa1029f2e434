/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "pl-test-util.h"

/* Runs poslens-cli (POSLENS_CLI) with the NULL-terminated arguments; returns
 * its exit status, with stdout and stderr when asked for. */
static int
run_cli (char **out,
         char **err,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  const char *cli = g_getenv ("POSLENS_CLI");
  int status = -1;
  va_list ap;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  va_start (ap, err);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &stdout_text, &stderr_text, &status, &error);
  g_assert_no_error (error);
  if (out)
    *out = g_steal_pointer (&stdout_text);
  if (err)
    *err = g_steal_pointer (&stderr_text);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* Cosine of mini-gpt2 against the fixture's float64 cosines (1e-5), whole
 * and as a sub-range. */
static void
test_similarity (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-gpt2", "reference.h5", NULL);
  g_autofree char *out = g_build_filename (dir, "sim.h5", NULL);
  g_autofree char *part = g_build_filename (dir, "part.h5", NULL);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (reference, "/position_table/cosine");
  g_autoptr(PlMatrix) sim = NULL;
  g_autoptr(PlMatrix) sub = NULL;
  double worst = 0;

  g_assert_cmpint (run_cli (NULL, NULL, "similarity", model, "--out", out, NULL), ==, 0);
  sim = pl_test_read_h5 (out, "/similarity");
  g_assert_cmpfloat (pl_test_max_abs_diff (sim, ref), <, 1e-5);

  g_assert_cmpint (run_cli (NULL, NULL, "similarity", model, "--rows", "100:228", "--out", part, NULL), ==, 0);
  sub = pl_test_read_h5 (part, "/similarity");
  g_assert_cmpuint (sub->rows, ==, 128);
  g_assert_cmpuint (sub->cols, ==, 128);
  for (gsize i = 0; i < 128; i++)
    for (gsize j = 0; j < 128; j++)
      worst = MAX (worst, fabs (pl_matrix_get (sub, i, j) - pl_matrix_get (ref, 100 + i, 100 + j)));
  g_assert_cmpfloat (worst, <, 1e-5);

  /* Open-ended ranges, as Python slices. */
  {
    g_autoptr(PlMatrix) head = NULL;
    g_autoptr(PlMatrix) tail = NULL;

    g_assert_cmpint (run_cli (NULL, NULL, "similarity", model, "--rows", ":64", "--out", part, NULL), ==, 0);
    head = pl_test_read_h5 (part, "/similarity");
    g_assert_cmpuint (head->rows, ==, 64);
    g_assert_cmpfloat_with_epsilon (pl_matrix_get (head, 3, 60), pl_matrix_get (ref, 3, 60), 1e-5);
    g_assert_cmpint (run_cli (NULL, NULL, "similarity", model, "--rows", "500:", "--out", part, NULL), ==, 0);
    tail = pl_test_read_h5 (part, "/similarity");
    g_assert_cmpuint (tail->rows, ==, 12);
    g_assert_cmpfloat_with_epsilon (pl_matrix_get (tail, 0, 11), pl_matrix_get (ref, 500, 511), 1e-5);
  }
  pl_test_rmtree (dir);
}

/* The other formats and metrics: an .npy of the Euclidean distances of a
 * builtin table (zero diagonal, symmetric) and a CSV of dot products. */
static void
test_similarity_formats (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *npy = g_build_filename (dir, "l2.npy", NULL);
  g_autofree char *csv = g_build_filename (dir, "dot.csv", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len;
  guint header;
  float d01, d10, d00;

  g_assert_cmpint (run_cli (NULL, NULL, "similarity", "builtin:sinusoidal:40x16", "--metric", "l2",
                            "--out", npy, NULL), ==, 0);
  g_assert_true (g_file_get_contents (npy, &bytes, &len, NULL));
  header = (guint8) bytes[8] | ((guint) (guint8) bytes[9] << 8);
  g_assert_cmpuint (len, ==, 10 + header + 40 * 40 * 4);
  memcpy (&d00, bytes + 10 + header, 4);
  memcpy (&d01, bytes + 10 + header + 4, 4);
  memcpy (&d10, bytes + 10 + header + 40 * 4, 4);
  g_assert_cmpfloat (d00, ==, 0);
  g_assert_cmpfloat_with_epsilon (d01, d10, 1e-6);
  /* |PE_0 − PE_1|² = 2 Σ_k (1 − cos ω_k) over the 8 frequencies of width 16. */
  {
    double expect = 0;
    for (int k = 0; k < 8; k++)
      expect += 2 * (1 - cos (pow (10000.0, -2.0 * k / 16)));
    g_assert_cmpfloat_with_epsilon (d01, sqrt (expect), 1e-5);
  }

  g_assert_cmpint (run_cli (NULL, NULL, "similarity", "builtin:sinusoidal:40x16", "--metric", "dot",
                            "--out", csv, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 41);
  /* Each row of the table has norm² = width / 2. */
  {
    g_auto(GStrv) cells = g_strsplit (lines[5], ",", -1);
    g_assert_cmpuint (g_strv_length (cells), ==, 40);
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cells[5], NULL), 8.0, 1e-5);
  }
  pl_test_rmtree (dir);
}

/* PCA of mini-bert: ratios within 1e-4 relative, |projections| within 1e-3. */
static void
test_pca (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *model = pl_test_demo ("mini-bert", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-bert", "reference.h5", NULL);
  g_autofree char *out = g_build_filename (dir, "pca.h5", NULL);
  g_autoptr(PlMatrix) ref_ratio = pl_test_read_h5 (reference, "/position_table/pca_explained_variance_ratio");
  g_autoptr(PlMatrix) ref_proj = pl_test_read_h5 (reference, "/position_table/pca_projection_abs");
  g_autoptr(PlMatrix) ratio = NULL;
  g_autoptr(PlMatrix) proj = NULL;

  g_assert_cmpint (run_cli (NULL, NULL, "pca", model, "--components", "16", "--out", out, NULL), ==, 0);
  ratio = pl_test_read_h5 (out, "/explained_variance_ratio");
  proj = pl_test_read_h5 (out, "/projection");
  g_assert_cmpuint (ratio->rows * ratio->cols, ==, 16);
  g_assert_cmpuint (proj->rows, ==, 512);
  g_assert_cmpuint (proj->cols, ==, 16);
  for (guint c = 0; c < 16; c++)
    g_assert_cmpfloat (fabs (ratio->data[c] - ref_ratio->data[c]), <=, 1e-4 * ref_ratio->data[c]);
  for (gsize i = 0; i < 512; i++)
    for (guint c = 0; c < 3; c++)
      g_assert_cmpfloat (fabs (fabs (pl_matrix_get (proj, i, c)) - pl_matrix_get (ref_proj, i, c)), <, 1e-3);
  pl_test_rmtree (dir);
}

/* The probe on mini-roberta (its real rows 2..513): the fixture's MAE to 1e-6. */
static void
test_probe (void)
{
  g_autofree char *model = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-roberta", "reference.h5", NULL);
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  double want = pl_test_read_h5_scalar (reference, "/position_table/position_regression_mae_interleaved");
  JsonObject *obj;

  g_assert_cmpint (run_cli (&out, NULL, "probe", model, "--json", NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  obj = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (obj, "rows"), ==, 512);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (obj, "absolute_mae"), want, 1e-6);
  g_assert_cmpfloat (json_object_get_double_member (obj, "relative_error"), >=, 0);
  g_assert_cmpfloat (json_object_get_double_member (obj, "relative_error"), <=, 1);
}

/* Usage errors exit 1, unusable input 2, each with one line on stderr. */
static void
test_errors (void)
{
  struct { int status; const char *args[6]; } cases[] = {
    { 1, { "similarity", "builtin:sinusoidal:64x16", NULL } },
    { 1, { "similarity", "builtin:sinusoidal:64x16", "--metric", "jaccard", "--out", "x.h5" } },
    { 1, { "pca", "builtin:sinusoidal:64x16", "--out", "x.txt", NULL } },
    { 1, { "pca", "builtin:sinusoidal:64x16", "--components", "17", "--out", "x.h5" } },
    { 1, { "probe", "builtin:sinusoidal:64x16", "--folds", "random", NULL } },
    { 2, { "similarity", "/nonexistent/model.h5", "--out", "x.h5", NULL } },
    { 2, { "pca", "builtin:sinusoidal:64x16", "--rows", "50:70", "--out", "x.h5" } },
    { 2, { "probe", "builtin:alibi:64x4", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      const char **a = cases[i].args;
      int status = run_cli (NULL, &err, a[0], a[1], a[2], a[3], a[4], a[5], NULL);

      g_assert_cmpint (status, ==, cases[i].status);
      g_assert_cmpuint (strlen (err), >, 0);
      g_assert_nonnull (g_str_has_prefix (err, "poslens-cli") ? err : NULL);
      g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pl/cli-analyses/similarity", test_similarity);
  g_test_add_func ("/pl/cli-analyses/similarity-formats", test_similarity_formats);
  g_test_add_func ("/pl/cli-analyses/pca", test_pca);
  g_test_add_func ("/pl/cli-analyses/probe", test_probe);
  g_test_add_func ("/pl/cli-analyses/errors", test_errors);
  return g_test_run ();
}
