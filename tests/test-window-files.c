/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "pl-dataset-dialog.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-test-writers.h"

/* Files opened in the real window: a checkpoint joins the list, a broken
 * file is reported, any HDF5 file offers its tables, and a table with
 * all-zero rows gets an answer or a clear refusal from each analysis. */

static PlApplication *app;
static PlWindow *window;

static gboolean
one_more_model (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= PL_TEST_N_DEMOS + 1;
}

static gboolean
toast_shown (gpointer data)
{
  return *(gboolean *) data;
}

/* Notes the window's message about broken.h5, and logs everything as usual. */
static GLogWriterOutput
catch_message (GLogLevelFlags log_level, const GLogField *fields, gsize n_fields, gpointer data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && strstr (fields[i].value, "broken.h5") != NULL)
      {
        *(gboolean *) data = TRUE;
        return G_LOG_WRITER_HANDLED;
      }
  return g_log_writer_default (log_level, fields, n_fields, NULL);
}

/* A good file joins the list; a bad one is reported and the window lives on. */
static void
test_open_files (void)
{
  g_autofree char *safetensors = pl_test_fixture ("mini-gpt2", "model.safetensors", NULL);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *broken = g_build_filename (dir, "broken.h5", NULL);
  g_autoptr(GFile) good = g_file_new_for_path (safetensors);
  g_autoptr(GFile) bad = g_file_new_for_path (broken);
  gboolean reported = FALSE;

  g_assert_true (g_file_set_contents (broken, "\x89HDF\r\n\x1a\nnot really", -1, NULL));
  pl_window_open_file (window, good, TRUE);
  pl_test_wait_until (one_more_model, NULL, "the safetensors file");
  g_assert_cmpuint (g_list_model_get_n_items (pl_window_get_models (window)), ==, PL_TEST_N_DEMOS + 1);

  g_log_set_writer_func (catch_message, &reported, NULL);
  pl_window_open_file (window, bad, FALSE);
  pl_test_wait_until (toast_shown, &reported, "the error about broken.h5");
  g_assert_cmpuint (g_list_model_get_n_items (pl_window_get_models (window)), ==, PL_TEST_N_DEMOS + 1);
  pl_test_rmtree (dir);
}

static PlDatasetDialog *
find_dataset_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* owned by GTK */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);
      if (PL_IS_DATASET_DIALOG (item))
        return PL_DATASET_DIALOG (item);
    }
  return NULL;
}

static gboolean
dataset_dialog_shown (gpointer data)
{
  return find_dataset_dialog () != NULL;
}

static gboolean
models_more_than (gpointer n)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) > GPOINTER_TO_UINT (n);
}

/* Any HDF5 file: the user picks the table from a tree of its datasets, and
 * the file joins the recent list. */
static void
test_generic_hdf5 (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "runs.h5", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree float *values = pl_test_exact_values (40, 12);
  const guint64 dims[2] = { 40, 12 };
  g_autoptr(PlModel) model = NULL;
  g_auto(GStrv) recent = NULL;
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  guint before = g_list_model_get_n_items (pl_window_get_models (window));
  hid_t h5 = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space, ints;

  /* Names that say nothing, so Poslens cannot guess and has to ask. */
  pl_test_h5_put (h5, "/experiments/run1/table", 2, dims, values);
  pl_test_h5_put (h5, "/experiments/run1/other", 2, dims, values);
  pl_test_h5_put (h5, "/experiments/run1/bias", 1, dims + 1, values);
  space = H5Screate_simple (2, (const hsize_t[]) { 4, 3 }, NULL);
  ints = H5Dcreate2 (h5, "/experiments/run1/steps", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite (ints, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, (const gint32[12]) { 0 });
  H5Dclose (ints);
  H5Sclose (space);
  H5Fclose (h5);

  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (dataset_dialog_shown, NULL, "the dataset picker");
  /* The greyed-out datasets say why they cannot be chosen. */
  pl_test_wait_frames (GTK_WIDGET (find_dataset_dialog ()), 2);
  g_assert_true (pl_test_shows_label (GTK_WIDGET (find_dataset_dialog ()), "One dimension: a table has rows and columns"));
  g_assert_true (pl_test_shows_label (GTK_WIDGET (find_dataset_dialog ()), "Holds int32 values: a table holds floating-point numbers"));
  /* A vector is no table; the 2-D dataset is. */
  g_assert_false (pl_dataset_dialog_choose (find_dataset_dialog (), "/experiments/run1/bias"));
  g_assert_false (pl_dataset_dialog_choose (find_dataset_dialog (), "/experiments/run1/steps"));
  g_assert_true (pl_dataset_dialog_choose (find_dataset_dialog (), "/experiments/run1/table"));
  pl_test_wait_until (models_more_than, GUINT_TO_POINTER (before), "the chosen table");
  model = g_list_model_get_item (pl_window_get_models (window), before);
  g_assert_cmpuint (pl_model_get_n_positions (model), ==, 40);
  g_assert_cmpuint (pl_model_get_hidden_size (model), ==, 12);

  g_assert_nonnull (settings);
  recent = g_settings_get_strv (settings, "recent-files");
  g_assert_cmpstr (recent[0], ==, path);
  pl_test_rmtree (dir);
}

static gboolean
page_settled (gpointer page)
{
  const char *shown = pl_page_get_shown (page);

  return !pl_page_get_busy (page) && (g_strcmp0 (shown, "figure") == 0 || g_strcmp0 (shown, "error") == 0);
}

/* A table with all-zero rows: the cosine refuses it naming every such
 * position; the dot product (zero beside them) and PCA show it. */
static void
test_zero_rows_per_analysis (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "zeros.h5", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree float *values = pl_test_exact_values (40, 12);
  const guint64 dims[2] = { 40, 12 };
  guint before = g_list_model_get_n_items (pl_window_get_models (window));
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  PlPage *trajectory = PL_PAGE (pl_test_page (window, "trajectory"));
  const char *description;
  PlMatrix *shown;
  hid_t h5 = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

  for (guint j = 0; j < 12; j++)
    values[3 * 12 + j] = values[17 * 12 + j] = 0.0f;
  pl_test_h5_put (h5, "/position_embeddings", 2, dims, values);
  H5Fclose (h5);

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_similarity_page_set_metric (PL_SIMILARITY_PAGE (similarity), PL_SIMILARITY_COSINE);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (models_more_than, GUINT_TO_POINTER (before), "the table with zero rows");
  pl_window_select_model (window, before);
  pl_test_wait_until (page_settled, similarity, "the cosine");
  g_assert_cmpstr (pl_page_get_shown (similarity), ==, "error");
  description = adw_status_page_get_description (pl_page_get_status (similarity));
  g_test_message ("%s", description);
  /* The core's "positions 3 and 17 are all zeros", as a sentence. */
  g_assert_true (g_str_has_prefix (description, "Positions 3 and 17 are all zeros"));

  pl_similarity_page_set_metric (PL_SIMILARITY_PAGE (similarity), PL_SIMILARITY_DOT);
  pl_test_wait_until (page_settled, similarity, "the dot product");
  g_assert_cmpstr (pl_page_get_shown (similarity), ==, "figure");
  shown = pl_similarity_page_get_matrix (PL_SIMILARITY_PAGE (similarity));
  g_assert_cmpuint (shown->rows, ==, 40);
  g_assert_cmpfloat (pl_matrix_get (shown, 3, 5), ==, 0.0f);
  g_assert_cmpfloat (pl_matrix_get (shown, 17, 17), ==, 0.0f);
  g_assert_cmpfloat (pl_matrix_get (shown, 5, 5), >, 0.0f);

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (1));
  pl_test_wait_until (page_settled, trajectory, "the trajectory");
  g_assert_cmpstr (pl_page_get_shown (trajectory), ==, "figure");

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_similarity_page_set_metric (PL_SIMILARITY_PAGE (similarity), PL_SIMILARITY_COSINE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-model", NULL));
  pl_window_select_model (window, 0);
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  pl_test_wait_until (pl_test_page_ready, pl_window_get_page (window, "similarity"), "the first heatmap");

  g_test_add_func ("/pl/window/open-files", test_open_files);
  g_test_add_func ("/pl/window/generic-hdf5", test_generic_hdf5);
  g_test_add_func ("/pl/window/zero-rows-per-analysis", test_zero_rows_per_analysis);
  status = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
