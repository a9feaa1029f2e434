/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <cairo.h>
#include <string.h>

#include "pl-application.h"
#include "pl-figure-preset.h"
#include "pl-probes-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window.h"
#include "pl-window-private.h"

/* "Reproduce the Paper" in the real window: Figure 1 and Table 1 for the
 * models in the sidebar land in the folder as PDF and PNG, sized as the
 * paper's layout asks; a folder that cannot be made is an error toast and
 * leaves the action usable. The numbers are checked by test-cli-analyses
 * (the same pl-paper code) against scikit-learn. */

static PlApplication *app;
static PlWindow *window;

static gboolean
paper_done (gpointer data)
{
  return !pl_window_get_paper_busy (data);
}

static void
assert_png (const char *path,
            int         width,
            guint       min_colours)
{
  cairo_surface_t *png = cairo_image_surface_create_from_png (path);
  GBytes *bytes;

  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, width);
  cairo_surface_flush (png);
  bytes = g_bytes_new (cairo_image_surface_get_data (png),
                       (gsize) cairo_image_surface_get_stride (png) * cairo_image_surface_get_height (png));
  g_assert_cmpuint (pl_test_count_colours (bytes), >, min_colours);
  g_bytes_unref (bytes);
  cairo_surface_destroy (png);
}

/* The sidebar's models whose names are not NAME. */
static guint
count_models_but (const char *name)
{
  GListModel *models = pl_window_get_models (window);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      n += g_strcmp0 (pl_model_get_name (model), name) != 0;
    }
  return n;
}

static void
test_reproduce (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "paper", "figures", NULL);
  const PlFigurePresetInfo *page = pl_figure_preset_get (PL_FIGURE_PRESET_TWO_COLUMNS);
  g_autofree char *figure_png = g_build_filename (out, "figure1.png", NULL);
  g_autofree char *table_png = g_build_filename (out, "table1.png", NULL);

  g_settings_set_int (pl_application_get_settings (app), "probe-repeats", 2);
  pl_window_reproduce_paper_in (window, out);
  g_assert_true (pl_window_get_paper_busy (window));
  pl_test_wait_until (paper_done, window, "the paper's figures");

  /* Whole PDF and PNG files; the captions name the protocol and seeds 0–1. */
  pl_test_assert_paper_files (out, 0, 2);
  /* At 300 DPI, both as wide as two columns (7 in): Figure 1 is a grid. */
  assert_png (figure_png, (int) (page->width * 300 / 72 + 0.5), 200);
  assert_png (table_png, (int) (page->width * 300 / 72 + 0.5), 10);

  /* A folder under a file cannot be made: a toast, and the action stays. */
  {
    g_autofree char *bad = g_build_filename (figure_png, "inside", NULL);

    pl_window_reproduce_paper_in (window, bad);
    pl_test_wait_until (paper_done, window, "the failed attempt");
    g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (window)));
    g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  }
  pl_test_rmtree (dir);
}

/* With a grid model in the sidebar the action first names it and why in a
 * dialog; Cancel there stops, and no folder is asked for. */
static void
test_left_out (void)
{
  const char *body;

  g_assert_cmpuint (count_models_but ("mini-vit"), <, g_list_model_get_n_items (pl_window_get_models (window)));
  pl_test_activate (window, "win.reproduce-paper", NULL);
  g_assert_nonnull (window->paper_dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->paper_dialog)));
  g_assert_cmpstr (adw_message_dialog_get_heading (window->paper_dialog), ==, "Some Models Are Left Out");
  body = adw_message_dialog_get_body (window->paper_dialog);
  g_test_message ("%s", body);
  g_assert_nonnull (strstr (body, "mini-vit — its positions form a grid of 8 × 8 image patches"));
  g_assert_null (strstr (body, "mini-gpt2"));
  g_assert_true (adw_message_dialog_has_response (window->paper_dialog, "continue"));
  /* Asked again while shown: still the one dialog. */
  pl_test_activate (window, "win.reproduce-paper", NULL);
  adw_message_dialog_response (window->paper_dialog, "cancel");
  g_assert_null (window->paper_dialog);
  g_assert_false (pl_window_get_paper_busy (window));
}

static PlProbeProtocol
shown_protocol (PlWindow *shown)
{
  return pl_probes_page_get_protocol (PL_PROBES_PAGE (pl_window_get_page (shown, "probes")));
}

/* The probes' protocol is a setting: what the drop-down chooses is written,
 * a window opened later (as in the next session) starts with it, and a
 * change of the setting moves the drop-downs. */
static void
test_protocol_remembered (void)
{
  GSettings *settings = pl_application_get_settings (app);
  g_autofree char *saved = NULL;
  PlWindow *later;

  g_assert_cmpint (shown_protocol (window), ==, PL_PROBE_PAPER);
  pl_probes_page_set_protocol (PL_PROBES_PAGE (pl_window_get_page (window, "probes")), PL_PROBE_INTERLEAVED);
  saved = g_settings_get_string (settings, "probe-protocol");
  g_assert_cmpstr (saved, ==, "interleaved");

  later = pl_window_new (app);
  g_assert_cmpint (shown_protocol (later), ==, PL_PROBE_INTERLEAVED);
  g_settings_set_string (settings, "probe-protocol", "shuffled");
  g_assert_cmpint (shown_protocol (later), ==, PL_PROBE_SHUFFLED);
  g_assert_cmpint (shown_protocol (window), ==, PL_PROBE_SHUFFLED);
  g_settings_reset (settings, "probe-protocol");
  g_assert_cmpint (shown_protocol (later), ==, PL_PROBE_PAPER);
  gtk_window_destroy (GTK_WINDOW (later));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  g_test_add_func ("/pl/window/reproduce-paper", test_reproduce);
  g_test_add_func ("/pl/window/reproduce-paper-left-out", test_left_out);
  g_test_add_func ("/pl/window/probe-protocol-remembered", test_protocol_remembered);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return status;
}
