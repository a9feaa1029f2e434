/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-compare-page.h"
#include "pl-figure-view.h"
#include "pl-test-util.h"
#include "pl-test-window.h"

/* The Compare view in the real window: two models' similarities and their
 * difference as one figure, against the fixtures' cosines and the
 * sinusoid's closed form, also for models of different lengths. */

static PlApplication *app;
static PlWindow *window;

static gboolean
compare_ready (gpointer page)
{
  return !pl_page_get_busy ((PlPage *) page) && pl_compare_page_get_difference (page) != NULL;
}

/* GPT-2 against the sinusoid: the difference is the reference cosine minus
 * the sinusoid's closed form. */
static void
test_compare_difference (void)
{
  PlComparePage *compare = PL_COMPARE_PAGE (pl_test_page (window, "compare"));
  g_autofree char *reference = pl_test_fixture ("mini-gpt2", "reference.h5", NULL);
  g_autoptr(PlMatrix) cosine = pl_test_read_h5 (reference, "/position_table/cosine");
  PlMatrix *difference;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (4));
  pl_compare_page_set_models (compare, 0, 3);
  pl_test_wait_until (compare_ready, compare, "the comparison");
  difference = pl_compare_page_get_difference (compare);
  g_assert_cmpuint (difference->rows, ==, 512);
  for (guint i = 0; i < 512; i += 37)
    for (guint j = 0; j < 512; j += 41)
      {
        double sinusoid = 0;
        for (guint k = 0; k < 384; k++)
          sinusoid += cos (((double) i - j) * pow (10000.0, -2.0 * k / 768));
        sinusoid /= 384;
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (difference, i, j),
                                        pl_matrix_get (cosine, i, j) - sinusoid, 2e-5);
      }
}

/* The plot of panel K of FIGURE, in its view's coordinates. */
static void
panel_plot (PlFigure          *figure,
            guint              k,
            cairo_rectangle_t *plot)
{
  cairo_rectangle_t cell;

  g_assert_true (pl_figure_get_panel_area (figure, k, &cell));
  pl_figure_get_plot_area (pl_figure_get_panel (figure, k), plot);
  plot->x += cell.x;
  plot->y += cell.y;
}

/* Compare is one figure that fills its pane: both similarities and their
 * difference, none of the plots small; it exports whole; zooming one panel
 * zooms all three; hovering any panel reads all three values. */
static void
test_compare_one_figure (void)
{
  PlComparePage *compare = PL_COMPARE_PAGE (pl_test_page (window, "compare"));
  GtkWidget *view = GTK_WIDGET (pl_page_get_figure_view (PL_PAGE (compare)));
  PlFigure *figure = pl_page_get_figure (PL_PAGE (compare));
  g_autoptr(GBytes) image = NULL;
  g_autofree char *text = NULL;
  cairo_rectangle_t plot;
  guint want_column = 0, want_row = 0;
  int w, h;

  g_assert_cmpint (pl_figure_get_kind (figure), ==, PL_FIGURE_MULTIPLES);
  g_assert_cmpuint (pl_figure_get_n_panels (figure), ==, 3);
  g_assert_nonnull (strstr (pl_figure_get_title (pl_figure_get_panel (figure, 2)), " − "));
  image = pl_test_render (view, &w, &h);
  for (guint k = 0; k < 3; k++)
    {
      panel_plot (figure, k, &plot);
      g_test_message ("panel %u: %.0f × %.0f in %d × %d", k, plot.width, plot.height, w, h);
      g_assert_cmpfloat (MIN (plot.width, plot.height), >=, 0.35 * MIN (w, h));
    }

  /* Four times closer around the middle of the first panel. */
  panel_plot (figure, 0, &plot);
  pl_figure_view_zoom (PL_FIGURE_VIEW (view), 4, plot.x + plot.width / 2, plot.y + plot.height / 2);
  pl_test_wait_frames (view, 2);
  for (guint k = 0; k < 3; k++)
    {
      guint column, row;

      panel_plot (figure, k, &plot);
      g_assert_true (pl_figure_hit_cell (figure, plot.x + plot.width * 0.3, plot.y + plot.height * 0.7,
                                         &column, &row));
      if (k == 0)
        {
          want_column = column;
          want_row = row;
          /* 512 positions in view before, 128 now, around the middle. */
          g_assert_cmpuint (column, >, 192 + 20);
          g_assert_cmpuint (column, <, 320 - 20);
        }
      g_assert_cmpuint (column, ==, want_column);
      g_assert_cmpuint (row, ==, want_row);
    }

  panel_plot (figure, 2, &plot);
  text = pl_figure_view_describe_at (PL_FIGURE_VIEW (view), plot.x + plot.width / 2, plot.y + plot.height / 2);
  g_assert_nonnull (strstr (text, "mini-gpt2"));
  g_assert_nonnull (strstr (text, "Sinusoidal"));
  g_assert_nonnull (strstr (text, "Difference"));
  pl_figure_view_reset_zoom (PL_FIGURE_VIEW (view));
}

static gboolean
compare_shows_two (gpointer page)
{
  PlFigure *figure = pl_page_get_figure (page);

  return !pl_page_get_busy ((PlPage *) page) && figure != NULL && pl_figure_get_n_panels (figure) == 2;
}

static gboolean
lists_n_models (gpointer n)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= GPOINTER_TO_UINT (n);
}

/* The value the Compare readout TEXT gives for MODEL, or NAN when none. */
static double
readout_value (const char *text,
               const char *model)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], model) && lines[i][strlen (model)] == ',')
      return g_ascii_strtod (strrchr (lines[i], ':') + 1, NULL);
  return NAN;
}

/* Cosine of sinusoidal positions I and J, 64 wide, base 10000: the mean of
 * cos ((I − J) ω) over the 32 frequencies. */
static double
sinusoid_cosine (guint i, guint j)
{
  double sum = 0;

  for (guint k = 0; k < 32; k++)
    sum += cos (((double) i - j) * pow (10000.0, -2.0 * k / 64));
  return sum / 32;
}

/* Compare of two models with 512 and 300 positions: each panel selects and
 * reads its own positions, zoomed or not. */
static void
test_compare_different_lengths (void)
{
  PlComparePage *compare = PL_COMPARE_PAGE (pl_test_page (window, "compare"));
  PlFigureView *view = pl_page_get_figure_view (PL_PAGE (compare));
  PlWorkspace *workspace = pl_window_get_workspace (window);
  g_autofree char *reference = pl_test_fixture ("mini-gpt2", "reference.h5", NULL);
  g_autoptr(PlMatrix) cosine = pl_test_read_h5 (reference, "/position_table/cosine");
  g_autoptr(GFile) file = g_file_new_for_commandline_arg ("builtin:sinusoidal:300x64");
  guint n = g_list_model_get_n_items (pl_window_get_models (window));
  const guint lengths[2] = { 512, 300 };
  g_autoptr(PlModel) gpt2 = g_list_model_get_item (pl_window_get_models (window), 0);
  g_autoptr(PlModel) sinusoid = NULL;
  const char *names[2];
  PlFigure *figure;

  g_application_open (G_APPLICATION (app), &file, 1, "");
  pl_test_wait_until (lists_n_models, GUINT_TO_POINTER (n + 1), "the 300-position sinusoid");
  sinusoid = g_list_model_get_item (pl_window_get_models (window), n);
  names[0] = pl_model_get_name (gpt2);
  names[1] = pl_model_get_name (sinusoid);
  g_assert_cmpstr (names[0], ==, "mini-gpt2");

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (4));
  pl_compare_page_set_models (compare, 0, n);
  pl_test_wait_until (compare_shows_two, compare, "the comparison");
  pl_test_wait_frames (GTK_WIDGET (view), 2);
  figure = pl_page_get_figure (PL_PAGE (compare));

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *text = NULL;
      g_autofree char *positions = NULL;
      cairo_rectangle_t plot;
      guint start, end, row, column;
      double x, y;

      /* Shift-drag from about a quarter to 60 % of the panel's height. */
      panel_plot (figure, k, &plot);
      g_assert_true (pl_figure_view_select_drag (view, plot.x + plot.width / 2, plot.y + 0.253 * plot.height,
                                                 plot.x + plot.width / 2, plot.y + 0.603 * plot.height));
      pl_workspace_get_selection (workspace, &start, &end);
      g_assert_cmpuint (start, ==, (guint) (0.253 * lengths[k]));
      g_assert_cmpuint (end, ==, (guint) (0.603 * lengths[k]) + 1);
      pl_figure_view_get_highlight (view, &start, &end);
      g_assert_cmpuint (start, ==, (guint) (0.253 * lengths[k]));

      /* The readout at the middle of cell (row, column) of this panel. */
      row = lengths[k] * 7 / 10;
      column = lengths[k] / 5;
      x = plot.x + (column + 0.5) * plot.width / lengths[k];
      y = plot.y + (row + 0.5) * plot.height / lengths[k];
      text = pl_figure_view_describe_at (view, x, y);
      g_assert_nonnull (text);
      g_test_message ("panel %u: %s", k, text);
      positions = g_strdup_printf ("Positions %u and %u", row, column);
      g_assert_true (g_str_has_prefix (text, positions));
      g_assert_cmpfloat_with_epsilon (readout_value (text, names[0]), pl_matrix_get (cosine, row, column), 1e-4);
      if (row < 300 && column < 300)
        g_assert_cmpfloat_with_epsilon (readout_value (text, names[1]), sinusoid_cosine (row, column), 1e-4);
      else
        g_assert_true (isnan (readout_value (text, names[1])));
    }

  /* Zoomed four times around the middle of the 512 positions (192–320):
   * the 300-position panel shows its last 128 (172–300). */
  {
    cairo_rectangle_t plot;
    guint start, end;

    panel_plot (figure, 0, &plot);
    pl_figure_view_zoom (view, 4, plot.x + plot.width / 2, plot.y + plot.height / 2);
    pl_test_wait_frames (GTK_WIDGET (view), 2);
    panel_plot (figure, 1, &plot);
    g_assert_true (pl_figure_view_select_drag (view, plot.x + 1, plot.y + plot.height * (0.5 / 128),
                                               plot.x + 1, plot.y + plot.height - 1));
    pl_workspace_get_selection (workspace, &start, &end);
    g_assert_cmpuint (start, ==, 172);
    g_assert_cmpuint (end, ==, 300);
    pl_figure_view_reset_zoom (view);
  }
  pl_workspace_set_selection (workspace, 0, 0);
  pl_window_select_model (window, n);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-model", NULL));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window/compare-difference", test_compare_difference);
  g_test_add_func ("/pl/window/compare-one-figure", test_compare_one_figure);
  g_test_add_func ("/pl/window/compare-different-lengths", test_compare_different_lengths);
  status = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
