/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "pl-test-util.h"

/* poslens-cli probe and paper: the numbers against scikit-learn's
 * (fixtures), the protocol and rows in words, the warnings. */

/* The probe on mini-roberta with interleaved folds (its real rows 2..513):
 * the fixture's MAE to 1e-6; --folds is the option's old name. */
static void
test_probe (void)
{
  g_autofree char *model = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *reference = pl_test_fixture ("mini-roberta", "reference.h5", NULL);
  double want = pl_test_read_h5_scalar (reference, "/position_table/position_regression_mae_interleaved");
  const char *spellings[2][2] = { { "--protocol", "interleaved" }, { "--folds", "interleaved" } };

  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autofree char *out = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *obj;

      g_assert_cmpint (pl_test_cli (&out, NULL, "probe", model, spellings[i][0], spellings[i][1], "--seed", "0",
                                    "--pairs", "100", "--json", NULL), ==, 0);
      json_parser_load_from_data (parser, out, -1, &error);
      g_assert_no_error (error);
      obj = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (obj, "protocol"), ==, "interleaved");
      g_assert_cmpint (json_object_get_int_member (obj, "rows"), ==, 512);
      g_assert_cmpint (json_object_get_int_member (obj, "repeats"), ==, 1);
      g_assert_cmpint (json_object_get_int_member (obj, "pairs"), ==, 100);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (obj, "absolute_mae"), want, 1e-6);
      g_assert_cmpfloat (json_object_get_double_member (obj, "relative_error"), >=, 0);
      g_assert_cmpfloat (json_object_get_double_member (obj, "relative_error"), <=, 1);
    }
}

/* Repeats of interleaved folds: the absolute probe draws nothing at random,
 * so its line is one number said to be one run, not "± 0.000" over runs;
 * the chance levels are printed (predicting the middle of mini-vit's 64
 * positions: an MAE of 16; a coin: 0.5) and its absolute probe, worse than
 * that, is marked. JSON gives the same. */
static void
test_probe_deterministic_and_chance (void)
{
  g_autofree char *text = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  JsonObject *obj;
  double mae;

  g_assert_cmpint (pl_test_cli (&text, NULL, "probe", "mini-vit", "--protocol", "interleaved", "--repeats", "3",
                                "--pairs", "200", NULL), ==, 0);
  g_test_message ("%s", text);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "Absolute position"))
      {
        g_assert_null (strstr (lines[i], "±"));
        g_assert_nonnull (strstr (lines[i], "one run"));
        g_assert_nonnull (strstr (lines[i], "worse than chance"));
      }
    else if (g_str_has_prefix (lines[i], "Relative order"))
      g_assert_nonnull (strstr (lines[i], "±"));
  g_assert_nonnull (strstr (text, "Chance (middle position, coin):    16.000, 0.5"));

  g_assert_cmpint (pl_test_cli (&json, NULL, "probe", "mini-vit", "--protocol", "interleaved", "--repeats", "3",
                                "--pairs", "200", "--json", NULL), ==, 0);
  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  obj = json_node_get_object (json_parser_get_root (parser));
  g_assert_false (json_object_get_boolean_member (obj, "absolute_random"));
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (obj, "chance"), "absolute_mae"),
                     ==, 16.0);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (obj, "chance"), "relative_error"),
                     ==, 0.5);
  mae = json_object_get_double_member (obj, "absolute_mae");
  g_assert_cmpfloat (mae, >, 16.0);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (obj, "absolute"),
                                                    "ci95_half_width"), ==, 0);
}

/* probe --grid on MAE's 2-D sine-cosine table: scikit-learn's numbers
 * (fixtures/grid-probes.h5), in JSON and in words; a table without a grid,
 * or --grid with --repeats, is refused. */
static void
test_probe_grid (void)
{
  g_autofree char *reference = pl_test_fixture ("grid-probes.h5", NULL);
  g_autofree char *gpt2 = pl_test_demo ("mini-gpt2", NULL);
  const char *names[] = { "row_mae", "column_mae", "along_rows_error", "along_columns_error" };
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *obj;
  JsonArray *grid;

  g_assert_cmpint (pl_test_cli (&out, NULL, "probe", "builtin:sincos2d:6x6x16", "--grid", "--protocol", "interleaved",
                                "--json", NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  obj = json_node_get_object (json_parser_get_root (parser));
  grid = json_object_get_array_member (obj, "grid");
  g_assert_cmpint (json_array_get_int_element (grid, 0), ==, 6);
  g_assert_cmpint (json_array_get_int_element (grid, 1), ==, 6);
  g_assert_cmpint (json_object_get_int_member (obj, "row_pairs"), ==, 180);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *name = g_strdup_printf ("/sincos2d-6x6x16/%s", names[k]);

      g_assert_cmpfloat (fabs (json_object_get_double_member (obj, names[k]) -
                               pl_test_read_h5_scalar (reference, name)), <=, 1e-9);
    }
  g_assert_cmpint (pl_test_cli (&text, NULL, "probe", "builtin:sincos2d:6x6x16", "--grid", "--protocol", "interleaved",
                                NULL), ==, 0);
  g_assert_nonnull (strstr (text, "Order along columns, error rate:"));
  g_assert_nonnull (strstr (text, "0.2000 (180 pairs)"));
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", gpt2, "--grid", NULL), ==, 2);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "probe", "builtin:sincos2d:6x6x16", "--grid", "--repeats", "3",
                                NULL), ==, 1);
}

/* The paper's protocol by default: RoBERTa's whole stored table (514 rows,
 * said so), and every fold of seeds 2 and 3 as PE-Study's code with
 * scikit-learn gets them (fixtures/paper-probes.h5). */
static void
test_probe_paper (void)
{
  g_autofree char *model = pl_test_demo ("mini-roberta", NULL);
  g_autofree char *reference = pl_test_fixture ("paper-probes.h5", NULL);
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  gsize n_abs, n_rel;
  g_autofree double *want_abs = pl_test_read_h5_doubles (reference, "/mini-roberta/absolute_folds", &n_abs);
  g_autofree double *want_rel = pl_test_read_h5_doubles (reference, "/mini-roberta/relative_folds", &n_rel);
  JsonObject *obj, *spread;
  JsonArray *runs;

  g_assert_cmpint (pl_test_cli (&out, NULL, "probe", model, "--seed", "2", "--repeats", "2", "--json", NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  obj = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (obj, "protocol"), ==, "paper");
  g_assert_cmpint (json_object_get_int_member (obj, "rows"), ==, 514);
  g_assert_cmpint (json_object_get_int_member (obj, "relative_rows"), ==, 512);
  g_assert_cmpint (json_object_get_int_member (obj, "pairs"), ==, 512);
  g_assert_nonnull (strstr (json_object_get_string_member (obj, "rows_used"), "rows 0–1"));
  runs = json_object_get_array_member (obj, "runs");
  g_assert_cmpuint (json_array_get_length (runs), ==, 2);
  for (guint r = 0; r < 2; r++)
    {
      JsonObject *run = json_array_get_object_element (runs, r);
      JsonArray *abs_folds = json_object_get_array_member (run, "absolute_folds");
      JsonArray *rel_folds = json_object_get_array_member (run, "relative_folds");

      g_assert_cmpint (json_object_get_int_member (run, "seed"), ==, 2 + r);
      g_assert_cmpuint (json_array_get_length (abs_folds), ==, 5);
      for (guint k = 0; k < 5; k++)
        {
          g_assert_cmpfloat_with_epsilon (json_array_get_double_element (abs_folds, k),
                                          want_abs[(2 + r) * 5 + k], 1e-6);
          g_assert_cmpfloat_with_epsilon (json_array_get_double_element (rel_folds, k),
                                          want_rel[(2 + r) * 5 + k], 1e-6);
        }
    }
  spread = json_object_get_object_member (obj, "relative");
  g_assert_cmpfloat (json_object_get_double_member (spread, "ci95_half_width"), >, 0);

  /* In words: the protocol, the rows and the seeds. */
  g_assert_cmpint (pl_test_cli (&text, NULL, "probe", model, "--repeats", "2", NULL), ==, 0);
  g_assert_nonnull (strstr (text, "absolute.py"));
  g_assert_nonnull (strstr (text, "all 514 rows"));
  g_assert_nonnull (strstr (text, "seeds 0–1"));
  g_assert_nonnull (strstr (text, " ± "));
}

/* Fewer pairs than features: a warning on stderr naming the model, as the
 * Probes view gives; none at as many pairs as features. Seen by `paper`
 * too, for the sinusoid of the paper's width (512 pairs, 1536 features). */
static void
test_probe_few_pairs (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out_dir = g_build_filename (dir, "figures", NULL);
  g_autofree char *err = NULL;
  g_autofree char *enough = NULL;
  g_autofree char *paper = NULL;

  g_assert_cmpint (pl_test_cli (NULL, &err, "probe", "builtin:sinusoidal:64x32", "--protocol", "shuffled",
                                "--seed", "0", "--pairs", "63", NULL), ==, 0);
  g_test_message ("%s", err);
  g_assert_true (g_str_has_prefix (err, "poslens-cli probe: warning: "));
  g_assert_nonnull (strstr (err, "Sinusoidal 64 × 32: 63 pairs, fewer than its 64 features"));
  g_assert_cmpint (pl_test_cli (NULL, &enough, "probe", "builtin:sinusoidal:64x32", "--protocol", "shuffled",
                                "--seed", "0", "--pairs", "64", NULL), ==, 0);
  g_assert_cmpstr (enough, ==, "");

  g_assert_cmpint (pl_test_cli (NULL, &paper, "paper", "--repeats", "1", "--out", out_dir,
                                "builtin:sinusoidal:512x768", NULL), ==, 0);
  g_test_message ("%s", paper);
  g_assert_nonnull (strstr (paper, "poslens-cli paper: warning: Sinusoidal 512 × 768: 512 pairs, fewer than its "
                                   "1536 features"));
  pl_test_rmtree (dir);
}

/* The page size of a PDF cairo wrote, from its /MediaBox. */
static void
pdf_page_size (const char *path,
               double     *width,
               double     *height)
{
  static const char key[] = "/MediaBox [ 0 0 ";
  g_autofree char *contents = NULL;
  const char *box = NULL;
  char *end;
  gsize length;

  /* Binary streams come first: the whole file is searched, NULs and all. */
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  for (gsize i = 0; box == NULL && i + strlen (key) <= length; i++)
    if (memcmp (contents + i, key, strlen (key)) == 0)
      box = contents + i;
  g_assert_nonnull (box);
  *width = g_ascii_strtod (box + strlen (key), &end);
  *height = g_ascii_strtod (end, NULL);
}

/* `paper --width`: Figure 1 and Table 1 as wide as asked, Figure 1 a grid
 * of its panels no taller than a page (9 in), and not the row of panels
 * 14.4 in wide it was for five models; the width refused when it is none. */
static void
test_paper_width (void)
{
  const struct { const char *width; double points; } widths[] = {
    { NULL, 504 }, { "3.3in", 237.6 }, { "slide", 720 }, { "400pt", 400 },
  };
  g_autofree char *dir = pl_test_tmpdir ();

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_autofree char *out_dir = g_build_filename (dir, widths[i].width ? widths[i].width : "default", NULL);
      g_autofree char *figure = g_build_filename (out_dir, "figure1.pdf", NULL);
      g_autofree char *table = g_build_filename (out_dir, "table1.pdf", NULL);
      double w, h;

      if (widths[i].width != NULL)
        g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "--repeats", "1", "--width", widths[i].width, "--out",
                                      out_dir, "mini-gpt2", "mini-bert", "mini-roberta",
                                      "builtin:sinusoidal:512x768", "builtin:rope:1024x64", NULL), ==, 0);
      else
        g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "--repeats", "1", "--out", out_dir, "mini-gpt2",
                                      "mini-bert", "mini-roberta", "builtin:sinusoidal:512x768",
                                      "builtin:rope:1024x64", NULL), ==, 0);
      pdf_page_size (figure, &w, &h);
      g_test_message ("%s: Figure 1 %.1f × %.1f pt", widths[i].width ? widths[i].width : "default", w, h);
      g_assert_cmpfloat_with_epsilon (w, widths[i].points, 0.01);
      g_assert_cmpfloat (h, <=, 9 * 72);
      /* A grid of rows, not one row of five. */
      g_assert_cmpfloat (h, >, 0.5 * w);
      pdf_page_size (table, &w, &h);
      g_assert_cmpfloat_with_epsilon (w, widths[i].points, 0.01);
    }
  g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "--width", "wide", "--out", dir, "mini-gpt2", NULL), ==, 1);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "--font-size", "0.0001x", "--out", dir, "mini-gpt2", NULL), ==,
                   1);
  pl_test_rmtree (dir);
}

/* `paper`: the four files, whole, with their captions, and Table 1 on the
 * terminal for one seed as PE-Study's code gives it (the mean of seed 0's
 * five folds). */
static void
test_paper (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out_dir = g_build_filename (dir, "figures", NULL);
  g_autofree char *reference = pl_test_fixture ("paper-probes.h5", NULL);
  g_autofree char *text = NULL;
  g_autofree char *cell = NULL;
  gsize n;
  g_autofree double *folds = pl_test_read_h5_doubles (reference, "/mini-gpt2/absolute_folds", &n);
  double mae = 0;

  for (guint k = 0; k < 5; k++)
    mae += folds[k] / 5;
  g_assert_cmpint (pl_test_cli (&text, NULL, "paper", "--repeats", "1", "--out", out_dir, "mini-gpt2", NULL), ==, 0);
  pl_test_assert_paper_files (out_dir, 0, 1);
  cell = g_strdup_printf ("%9.3f", mae);
  g_assert_nonnull (strstr (text, cell));
  g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "mini-gpt2", NULL), ==, 1);
  g_assert_cmpint (pl_test_cli (NULL, NULL, "paper", "--repeats", "0", "--out", out_dir, NULL), ==, 1);
  pl_test_rmtree (dir);
}

/* Models the paper cannot read are refused up front by name, nothing
 * written: a vision transformer's grid, a rotary model without a table. */
static void
test_paper_refuses (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out_dir = g_build_filename (dir, "figures", NULL);
  g_autofree char *llama = pl_test_fixture ("rope", "llama", NULL);
  struct { const char *model; const char *says; } cases[] = {
    { "mini-vit", "mini-vit: its positions form a grid of 8 × 8 image patches" },
    { llama, "has no learned position table" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;

      g_assert_cmpint (pl_test_cli (NULL, &err, "paper", "--repeats", "1", "--out", out_dir,
                                    "mini-gpt2", cases[i].model, NULL), ==, 2);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].says));
      g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
    }
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/cli-probes/probe", test_probe);
  g_test_add_func ("/pl/cli-probes/probe-paper", test_probe_paper);
  g_test_add_func ("/pl/cli-probes/paper-refuses", test_paper_refuses);
  g_test_add_func ("/pl/cli-probes/paper", test_paper);
  g_test_add_func ("/pl/cli-probes/paper-width", test_paper_width);
  g_test_add_func ("/pl/cli-probes/probe-few-pairs", test_probe_few_pairs);
  g_test_add_func ("/pl/cli-probes/probe-grid", test_probe_grid);
  g_test_add_func ("/pl/cli-probes/deterministic-and-chance", test_probe_deterministic_and_chance);
  return g_test_run ();
}
