/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "pl-export-dialog.h"
#include "pl-page.h"
#include "pl-probes-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* The Probes view as a long run meets it: a Stop button and the run's
 * progress, a model without a table footnoted in the table (never in the
 * toolbar), a probe with no random draw said to run once, the chance
 * levels and the results worse than them, and an export that keeps all of
 * it. */

static PlApplication *app;
static PlWindow *window;

static GSettings *
settings (void)
{
  return pl_workspace_get_settings (pl_window_get_workspace (window));
}

static gboolean
models_at_least (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= GPOINTER_TO_UINT (data);
}

static gboolean
is_busy (gpointer page)
{
  return pl_page_get_busy (page);
}

static gboolean
is_idle (gpointer page)
{
  return !pl_page_get_busy (page);
}

static gboolean
progress_shown (gpointer page)
{
  return pl_page_get_progress (page) > 0;
}

/* The toolbar's Run / Stop button. */
static GtkButton *
run_button (PlProbesPage *probes)
{
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (probes)));

  for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child) && !GTK_IS_MENU_BUTTON (child) && gtk_button_get_use_underline (GTK_BUTTON (child)))
      return GTK_BUTTON (child);
  g_assert_not_reached ();
}

/* Every label shown in the toolbar, joined. */
static void
collect_labels (GtkWidget *widget,
                GString   *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child) && gtk_widget_get_visible (child))
        g_string_append_printf (text, "%s\n", gtk_label_get_text (GTK_LABEL (child)));
      collect_labels (child, text);
    }
}

/* A long run (every pair the sinusoid's width asks for) stops at Stop: the
 * button reads Stop while the probes run, the run's progress shows first,
 * and after Stop the page is idle at once, Run Probes again. */
static void
test_stop (void)
{
  PlProbesPage *probes = PL_PROBES_PAGE (pl_test_page (window, "probes"));
  GtkButton *button = run_button (probes);

  pl_window_show_view (window, "probes");
  g_settings_set_int (settings (), "probe-repeats", 20);
  pl_probes_page_set_protocol (probes, PL_PROBE_SHUFFLED);
  pl_probes_page_set_pairs (probes, 0);
  g_assert_cmpstr (gtk_button_get_label (button), ==, "_Run Probes");
  g_signal_emit_by_name (button, "clicked");
  pl_test_wait_until (is_busy, probes, "the probes to start");
  g_assert_cmpstr (gtk_button_get_label (button), ==, "_Stop");
  pl_test_wait_until (progress_shown, probes, "the run's progress");
  g_test_message ("progress %.3f", pl_page_get_progress (PL_PAGE (probes)));
  g_assert_cmpfloat (pl_page_get_progress (PL_PAGE (probes)), <, 1);
  g_signal_emit_by_name (button, "clicked");
  g_assert_false (pl_page_get_busy (PL_PAGE (probes)));
  g_assert_cmpstr (gtk_button_get_label (button), ==, "_Run Probes");
  pl_test_wait_frames (GTK_WIDGET (window), 2);
  g_assert_false (pl_page_get_busy (PL_PAGE (probes)));
  g_settings_reset (settings (), "probe-repeats");
}

/* One interleaved run of few pairs over the demos and a rotary model: the
 * rotary model's reason is a footnote under its name in the table, the
 * toolbar at 1600 px holds only its controls and stays in a row; the
 * chance levels are given and mini-vit's absolute probe, worse than its
 * 16.0, is footnoted; an export holds the caption. Then two runs: the
 * absolute probe of interleaved folds is said to run once. */
static void
test_footnotes_and_chance (void)
{
  PlProbesPage *probes = PL_PROBES_PAGE (pl_test_page (window, "probes"));
  g_autofree char *llama = pl_test_fixture ("rope", "llama", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (llama);
  g_autoptr(GString) toolbar_text = g_string_new (NULL);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "probes.svg", NULL);
  g_autofree char *written = NULL;
  g_autoptr(GError) error = NULL;
  PlExportDialog *dialog;
  const char *note;

  pl_window_open_file (window, file, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (PL_TEST_N_DEMOS + 1), "the rotary model");
  pl_window_show_view (window, "probes");
  g_settings_set_int (settings (), "probe-repeats", 1);
  pl_probes_page_set_protocol (probes, PL_PROBE_INTERLEAVED);
  pl_probes_page_set_pairs (probes, 200);
  pl_probes_page_run (probes);
  pl_test_wait_until (is_idle, probes, "the probes");
  pl_test_wait_frames (GTK_WIDGET (window), 3);

  note = pl_probes_page_get_note (probes);
  g_test_message ("%s", note);
  g_assert_nonnull (strstr (note, "Chance: the middle position predicted for every row has an MAE of 128.000 for "
                                  "512 positions"));
  g_assert_nonnull (strstr (note, "16.000 for 64 positions"));
  g_assert_nonnull (strstr (note, "mini-vit does worse than chance: Absolute position MAE"));
  g_assert_nonnull (strstr (note, " llama: "));
  g_assert_null (strstr (note, llama));
  /* The reason is in the table, not the toolbar, which keeps its row. */
  collect_labels (GTK_WIDGET (pl_page_get_toolbar (PL_PAGE (probes))), toolbar_text);
  g_assert_null (strstr (toolbar_text->str, "llama"));
  g_assert_false (pl_folding_toolbar_get_folded (pl_page_get_toolbar (PL_PAGE (probes))));

  /* The export keeps the caption: the chance levels and the footnotes. */
  dialog = pl_export_dialog_new (GTK_WINDOW (window), pl_page_get_figure (PL_PAGE (probes)), "probes", NULL);
  g_assert_true (pl_export_dialog_export (dialog, svg, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_true (g_file_get_contents (svg, &written, NULL, NULL));
  g_assert_nonnull (strstr (written, "Chance"));
  g_assert_nonnull (strstr (written, "worse than chance"));

  /* Two runs of interleaved folds: the absolute probe once, said so. */
  g_settings_set_int (settings (), "probe-repeats", 2);
  pl_test_wait_frames (GTK_WIDGET (window), 2);
  g_assert_nonnull (strstr (pl_probes_page_get_note (probes), "the absolute probe draws nothing at random and runs "
                                                                "once"));
  g_settings_reset (settings (), "probe-repeats");
  pl_probes_page_set_pairs (probes, 0);
  pl_probes_page_set_protocol (probes, PL_PROBE_PAPER);
  pl_test_rmtree (dir);
}

static gboolean
is_laid_out (gpointer widget)
{
  return gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0;
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 900);
  pl_test_wait_until (is_laid_out, window, "the window on screen");

  g_test_add_func ("/pl/window-probes/stop", test_stop);
  g_test_add_func ("/pl/window-probes/footnotes-and-chance", test_footnotes_and_chance);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
