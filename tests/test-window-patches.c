/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-compare-page.h"
#include "pl-figure-private.h"
#include "pl-figure-view.h"
#include "pl-folding-toolbar.h"
#include "pl-model-row.h"
#include "pl-page.h"
#include "pl-patches-page.h"
#include "pl-playground-page.h"
#include "pl-probes-page.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-trajectory-page.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* The Patches view in the real window, on the DeiT fixture (a 3 × 3 grid,
 * class and distillation tokens): the grid of grids reads out numpy's
 * cosine of the two patches under the pointer, a click opens a map large
 * and a second, the Back button or Escape goes back, the Euclidean distance chosen reads out numpy's,
 * the table resized beside it reads out the cosine of torch's resized table, the principal colours name the patch, and a model
 * without a grid gets a status page instead; the sidebar names each grid. */

static PlApplication *app;
static PlWindow *window;

static PlPatchesPage *
patches_page (void)
{
  return PL_PATCHES_PAGE (pl_window_get_page (window, "patches"));
}

static PlFigureView *
figure_view (void)
{
  return pl_page_get_figure_view (PL_PAGE (patches_page ()));
}

static gboolean
page_shows (gpointer kind)
{
  PlPage *page = PL_PAGE (patches_page ());
  PlFigure *figure = pl_page_get_figure (page);

  return !pl_page_get_busy (page) && figure != NULL && pl_figure_get_kind (figure) == GPOINTER_TO_INT (kind) &&
         g_str_equal (pl_page_get_shown (page), "figure");
}

static gboolean
grid_measures (gpointer label)
{
  PlFigure *figure = pl_page_get_figure (PL_PAGE (patches_page ()));

  return page_shows (GINT_TO_POINTER (PL_FIGURE_PATCH_GRID)) &&
         g_strcmp0 (pl_figure_get_value_label (figure), label) == 0;
}

static gboolean
resized_shows (gpointer title)
{
  PlFigure *figure = pl_figure_view_get_figure (PL_FIGURE_VIEW (pl_patches_page_get_resized_view (patches_page ())));

  return figure != NULL && pl_figure_get_kind (figure) == PL_FIGURE_PATCH_GRID &&
         strstr (pl_figure_get_title (figure), title) != NULL;
}

/* The cosine of rows A and B of TABLE, in double. */
static double
cosine_of (const PlMatrix *table,
           gsize           a,
           gsize           b)
{
  double xy = 0, xx = 0, yy = 0;

  for (gsize c = 0; c < table->cols; c++)
    {
      xy += (double) pl_matrix_get (table, a, c) * pl_matrix_get (table, b, c);
      xx += (double) pl_matrix_get (table, a, c) * pl_matrix_get (table, a, c);
      yy += (double) pl_matrix_get (table, b, c) * pl_matrix_get (table, b, c);
    }
  return xy / sqrt (xx * yy);
}

/* The number after "NAME: " in TEXT. */
static double
value_in (const char *text,
          const char *name)
{
  const char *at = text != NULL ? strstr (text, name) : NULL;

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (name), NULL);
}

/* PAGE shows the figure of its current question. */
static gboolean
page_shows_figure (gpointer page)
{
  return !pl_page_get_busy (page) && pl_page_get_figure (page) != NULL &&
         g_str_equal (pl_page_get_shown (page), "figure");
}

static gboolean
page_shows_status (gpointer data)
{
  return g_str_equal (pl_page_get_shown (PL_PAGE (patches_page ())), "status");
}

static gboolean
models_at_least (gpointer n)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= GPOINTER_TO_UINT (n);
}

/* How many of the Patches toolbar's controls are shown. */
static guint
n_controls_shown (void)
{
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (patches_page ())));
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (controls); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += gtk_widget_get_visible (child);
  return n;
}

/* The toolbar's button back to the grid. */
static GtkWidget *
back_button (void)
{
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (patches_page ())));

  for (GtkWidget *child = gtk_widget_get_first_child (controls); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (child)),
                                            "patches.back") == 0)
      return child;
  g_assert_not_reached ();
}

/* The action Escape triggers on the page, or NULL. */
static char *
escape_action (void)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (patches_page ()));
  g_autoptr(GtkShortcutTrigger) escape = gtk_keyval_trigger_new (GDK_KEY_Escape, 0);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), escape) &&
              GTK_IS_NAMED_ACTION (action))
            return g_strdup (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)));
        }
    }
  return NULL;
}

static char *
describe (double x,
          double y)
{
  pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
  return pl_figure_view_describe_at (figure_view (), x, y);
}

static void
test_patches_view (void)
{
  g_autofree char *deit = pl_test_fixture ("vision", "deit", NULL);
  g_autoptr(PlMatrix) cosine = pl_test_vision_reference ("deit", "cosine");
  g_autoptr(PlMatrix) euclidean = pl_test_vision_reference ("deit", "euclidean");
  g_autoptr(PlMatrix) special_euclidean = pl_test_vision_reference ("deit", "special_euclidean");
  GListModel *models = pl_window_get_models (window);
  guint before = g_list_model_get_n_items (models);
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  PlFigure *figure;
  cairo_rectangle_t plot;
  double s;

  /* A language model has no grid: the view says so, and of its controls
   * only the explanation stays; they come back with a grid. */
  pl_window_select_model (window, 0);
  g_assert_true (pl_window_show_view (window, "patches"));
  pl_test_wait_until (page_shows_status, NULL, "the status page");
  g_assert_cmpuint (n_controls_shown (), ==, 1);

  pl_window_open_paths (window, (const char * const[]) { deit, NULL }, (const char * const[]) { deit, NULL },
                        NULL, TRUE, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the DeiT fixture");
  pl_window_select_model (window, before);
  pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_PATCH_GRID), "the grid of grids");
  g_assert_cmpuint (n_controls_shown (), ==, 4);

  /* 3 × 3 maps of 3 × 3 cells, a pixel between maps: 11 image pixels
   * across, S device units each. Map 0's cell (0, 1) is patch (0, 0)
   * against patch (0, 1). */
  pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
  figure = pl_figure_view_get_figure (figure_view ());
  pl_figure_get_plot_area (figure, &plot);
  s = plot.width / 11;
  text = describe (plot.x + 1.5 * s, plot.y + 0.5 * s);
  expected = g_strdup_printf ("%.4f", pl_matrix_get (cosine, 0, 1));
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "(0, 0)"));
  g_assert_nonnull (strstr (text, "(0, 1)"));
  g_assert_nonnull (strstr (text, expected));

  /* Map 4 (patch (1, 1)) clicked: its map large; hovering its cell (2, 0)
   * gives numpy's cosine of patches 4 and 6. */
  g_assert_true (pl_figure_view_activate_at (figure_view (), plot.x + 5.5 * s, plot.y + 5.5 * s));
  g_assert_cmpint (pl_patches_page_get_focus (patches_page ()), ==, 4);
  pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_HEATMAP), "the map large");
  pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
  pl_figure_get_plot_area (pl_figure_view_get_figure (figure_view ()), &plot);
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&expected, g_free);
  text = describe (plot.x + plot.width / 6, plot.y + plot.height * 5 / 6);
  expected = g_strdup_printf ("%.4f", pl_matrix_get (cosine, 4, 6));
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "(1, 1)"));
  g_assert_nonnull (strstr (text, "(2, 0)"));
  g_assert_nonnull (strstr (text, expected));
  g_assert_true (pl_figure_view_activate_at (figure_view (), plot.x + plot.width / 2, plot.y + plot.height / 2));
  g_assert_cmpint (pl_patches_page_get_focus (patches_page ()), ==, -1);
  pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_PATCH_GRID), "the grid again");
  g_assert_false (gtk_widget_get_visible (back_button ()));

  /* The large map has a way back besides a second click: a Back button,
   * and Escape; neither is there over the grid. */
  {
    g_autofree char *escape = escape_action ();

    g_assert_cmpstr (escape, ==, "patches.back");
  }
  for (guint way = 0; way < 2; way++)
    {
      pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
      pl_figure_get_plot_area (pl_figure_view_get_figure (figure_view ()), &plot);
      s = plot.width / 11;
      g_assert_true (pl_figure_view_activate_at (figure_view (), plot.x + 5.5 * s, plot.y + 5.5 * s));
      pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_HEATMAP), "the map large");
      g_assert_true (gtk_widget_get_visible (back_button ()));
      g_assert_true (gtk_widget_is_sensitive (back_button ()));
      if (way == 0)
        g_signal_emit_by_name (back_button (), "clicked");
      else
        g_assert_true (gtk_widget_activate_action (GTK_WIDGET (patches_page ()), "patches.back", NULL));
      g_assert_cmpint (pl_patches_page_get_focus (patches_page ()), ==, -1);
      pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_PATCH_GRID), "the grid again");
      g_assert_false (gtk_widget_get_visible (back_button ()));
    }
  g_assert_cmpuint (n_controls_shown (), ==, 4);

  /* The Euclidean distance: numpy's for two patches, and for the class
   * token's map (found right of the grid by the hit test) and a patch. */
  pl_patches_page_set_metric (patches_page (), PL_SIMILARITY_L2);
  pl_test_wait_until (grid_measures, (gpointer) "Euclidean distance", "the grid of Euclidean distances");
  pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
  figure = pl_figure_view_get_figure (figure_view ());
  pl_figure_get_plot_area (figure, &plot);
  s = plot.width / 11;
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&expected, g_free);
  text = describe (plot.x + 8.5 * s, plot.y + 6.5 * s);
  expected = g_strdup_printf ("Euclidean distance: %.4f", pl_matrix_get (euclidean, 5, 6));
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "(1, 2) and (2, 0)"));
  g_assert_nonnull (strstr (text, expected));
  {
    int width = gtk_widget_get_width (GTK_WIDGET (figure_view ()));
    int height = gtk_widget_get_height (GTK_WIDGET (figure_view ()));
    gboolean found = FALSE;

    for (int y = (int) plot.y; y < height && !found; y++)
      for (int x = (int) (plot.x + plot.width); x < width && !found; x++)
        {
          guint column, row;

          if (pl_figure_hit_cell (figure, x + 0.5, y + 0.5, &column, &row) && row == 9 && column == 7)
            {
              g_clear_pointer (&text, g_free);
              g_clear_pointer (&expected, g_free);
              text = describe (x + 0.5, y + 0.5);
              expected = g_strdup_printf ("Euclidean distance: %.4f", pl_matrix_get (special_euclidean, 0, 7));
              found = TRUE;
            }
        }
    g_assert_true (found);
    g_test_message ("%s", text);
    g_assert_nonnull (strstr (text, "patch (2, 1)"));
    g_assert_nonnull (strstr (text, expected));
  }
  pl_patches_page_set_metric (patches_page (), PL_SIMILARITY_COSINE);
  pl_test_wait_until (grid_measures, (gpointer) "Cosine similarity", "the grid of cosines again");

  /* Resized to 5 × 5 with transformers' old arguments, beside the
   * original: hovering the resized grid of grids reads out the cosine of
   * torch's F.interpolate of the table (make-vision.py), within 1e-4 (the
   * read-out's 4 decimals, the resize within 16 float32 epsilons). Its
   * patch (1, 3) against patch (4, 0): 5 maps of 5 cells, a pixel between
   * maps, 29 pixels across. */
  {
    g_autoptr(PlMatrix) resized = pl_test_vision_reference ("interpolate", "deit-5x5-tenth");
    PlFigureView *view = PL_FIGURE_VIEW (pl_patches_page_get_resized_view (patches_page ()));
    PlFigure *right;

    pl_patches_page_set_resize (patches_page (), TRUE, 5, 5, PL_GRID_RESAMPLE_TENTH);
    pl_test_wait_until (resized_shows, (gpointer) "resized to 5 × 5", "the resized grid of grids");
    pl_test_wait_frames (GTK_WIDGET (view), 3);
    right = pl_figure_view_get_figure (view);
    pl_figure_get_plot_area (right, &plot);
    s = plot.width / 29;
    g_clear_pointer (&text, g_free);
    text = pl_figure_view_describe_at (view, plot.x + 18.5 * s, plot.y + 10.5 * s);
    g_test_message ("%s", text);
    g_assert_nonnull (text);
    g_assert_nonnull (strstr (text, "(1, 3) and (4, 0)"));
    g_assert_cmpfloat (fabs (value_in (text, "Cosine similarity: ") - cosine_of (resized, 2 + 8, 2 + 20)), <=, 1e-4);
    /* The original beside it still reads out the 3 × 3 grid. */
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (figure_view ())));
    g_assert_cmpint (pl_figure_get_kind (pl_figure_view_get_figure (figure_view ())), ==, PL_FIGURE_PATCH_GRID);

    pl_patches_page_set_resize (patches_page (), FALSE, 5, 5, PL_GRID_RESAMPLE_TENTH);
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (view)));
  }

  /* The principal colours: the patch under the pointer, by row and column. */
  pl_patches_page_show (patches_page (), PL_PATCHES_COLOURS);
  pl_test_wait_until (page_shows, GINT_TO_POINTER (PL_FIGURE_GRID_COLORS), "the colours");
  pl_test_wait_frames (GTK_WIDGET (figure_view ()), 3);
  pl_figure_get_plot_area (pl_figure_view_get_figure (figure_view ()), &plot);
  g_clear_pointer (&text, g_free);
  text = describe (plot.x + plot.width * 5 / 6, plot.y + plot.height / 6);
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "(0, 2)"));
  g_assert_nonnull (strstr (text, "PC1"));
  pl_patches_page_show (patches_page (), PL_PATCHES_GRID_OF_GRIDS);

  /* The Similarity view of the same table says its positions are the
   * patches read row by row: positions 1 and 7 are patches (0, 1) and
   * (2, 1), with numpy's cosine. */
  {
    PlPage *similarity = PL_PAGE (pl_window_get_page (window, "similarity"));
    PlFigureView *view = pl_page_get_figure_view (PL_PAGE (similarity));

    g_assert_true (pl_window_show_view (window, "similarity"));
    pl_test_wait_until (page_shows_figure, similarity, "the similarity of DeiT's patches");
    pl_test_wait_frames (GTK_WIDGET (view), 3);
    figure = pl_figure_view_get_figure (view);
    pl_figure_get_plot_area (figure, &plot);
    g_clear_pointer (&text, g_free);
    g_clear_pointer (&expected, g_free);
    text = pl_figure_view_describe_at (view, plot.x + plot.width * 7.5 / 9, plot.y + plot.height * 1.5 / 9);
    expected = g_strdup_printf ("%.4f", pl_matrix_get (cosine, 1, 7));
    g_test_message ("%s", text);
    g_assert_nonnull (text);
    g_assert_nonnull (strstr (text, "= patches ("));
    g_assert_nonnull (strstr (text, "(0, 1)"));
    g_assert_nonnull (strstr (text, "(2, 1)"));
    g_assert_nonnull (strstr (text, expected));
    g_assert_true (pl_window_show_view (window, "patches"));
  }
}

static gboolean
compare_shows (gpointer page)
{
  PlFigure *figure = pl_page_get_figure (page);

  return !pl_page_get_busy (page) && pl_compare_page_get_difference (page) != NULL && figure != NULL &&
         pl_figure_get_n_panels (figure) == 3;
}

/* The 1-D views of DeiT's table (opened by the test before) say that its
 * positions are the patches read row by row: the Similarity's axes, the
 * Trajectory's colour key and hover (position 7 is patch (2, 1)), and
 * Compare's axes and hover (positions 1 and 7 are patches (0, 1) and
 * (2, 1)); a language model's Trajectory still says "Position". */
static void
test_flattened_views (void)
{
  GListModel *models = pl_window_get_models (window);
  PlPage *similarity = PL_PAGE (pl_window_get_page (window, "similarity"));
  PlPage *trajectory = PL_PAGE (pl_window_get_page (window, "trajectory"));
  PlPage *compare = PL_PAGE (pl_window_get_page (window, "compare"));
  PlFigureView *view;
  PlFigure *figure, *panel;
  cairo_rectangle_t area, plot;
  g_autofree char *text = NULL;
  guint deit = G_MAXUINT;
  double x, y;

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_str_equal (pl_model_get_name (model), "deit"))
        deit = i;
    }
  g_assert_cmpuint (deit, <, g_list_model_get_n_items (models));
  pl_window_select_model (window, deit);

  g_assert_true (pl_window_show_view (window, "similarity"));
  pl_test_wait_until (page_shows_figure, similarity, "the similarity of DeiT's patches");
  figure = pl_page_get_figure (similarity);
  g_assert_cmpstr (pl_figure_x_label (figure), ==, "Patch, row by row");
  g_assert_cmpstr (pl_figure_y_label (figure), ==, "Patch, row by row");

  g_assert_true (pl_window_show_view (window, "trajectory"));
  pl_test_wait_until (page_shows_figure, trajectory, "the trajectory of DeiT's patches");
  view = pl_page_get_figure_view (PL_PAGE (trajectory));
  pl_test_wait_frames (GTK_WIDGET (view), 3);
  figure = pl_figure_view_get_figure (view);
  g_assert_cmpstr (pl_figure_get_value_label (figure), ==, "Patch, row by row");
  g_assert_true (pl_figure_get_point (figure, 7, &x, &y));
  text = pl_figure_view_describe_at (view, x, y);
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "Position 7 = patch (2, 1), read row by row"));

  g_assert_true (pl_window_show_view (window, "compare"));
  pl_compare_page_set_models (PL_COMPARE_PAGE (compare), deit, deit);
  pl_test_wait_until (compare_shows, compare, "DeiT compared with itself");
  view = pl_page_get_figure_view (PL_PAGE (compare));
  pl_test_wait_frames (GTK_WIDGET (view), 3);
  figure = pl_figure_view_get_figure (view);
  for (guint k = 0; k < 3; k++)
    {
      g_assert_cmpstr (pl_figure_x_label (pl_figure_get_panel (figure, k)), ==, "Patch, row by row");
      g_assert_cmpstr (pl_figure_y_label (pl_figure_get_panel (figure, k)), ==, "Patch, row by row");
    }
  g_assert_true (pl_figure_get_panel_area (figure, 0, &area));
  panel = pl_figure_get_panel (figure, 0);
  pl_figure_get_plot_area (panel, &plot);
  g_clear_pointer (&text, g_free);
  text = pl_figure_view_describe_at (view, area.x + plot.x + plot.width * 7.5 / 9,
                                     area.y + plot.y + plot.height * 1.5 / 9);
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "Positions 1 and 7"));
  g_assert_nonnull (strstr (text, "= patches (0, 1) and (2, 1), read row by row"));

  /* A language model's positions are positions. */
  pl_window_select_model (window, 0);
  g_assert_true (pl_window_show_view (window, "trajectory"));
  pl_test_wait_until (page_shows_figure, trajectory, "the trajectory of a language model");
  g_assert_cmpstr (pl_figure_get_value_label (pl_page_get_figure (trajectory)), ==, "Position");
  g_assert_true (pl_window_show_view (window, "patches"));
}

static gboolean
probes_ready (gpointer page)
{
  return !pl_page_get_busy ((PlPage *) page);
}

/* The Probes view with a vision transformer alone in the sidebar (the CLIP
 * fixture, 5 × 5 patches), interleaved folds, one run: the grid probes'
 * four numbers are scikit-learn's (fixtures/grid-probes.h5, kept as
 * float32 in the table). */
static void
test_grid_probes (void)
{
  g_autofree char *clip = pl_test_fixture ("vision", "clip", NULL);
  g_autofree char *reference = pl_test_fixture ("grid-probes.h5", NULL);
  const char *names[] = { "row_mae", "column_mae", "along_rows_error", "along_columns_error" };
  GListModel *models = pl_window_get_models (window);
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  PlProbesPage *probes = PL_PROBES_PAGE (pl_window_get_page (window, "probes"));
  g_autoptr(PlModel) model = NULL;
  double values[4];

  pl_window_open_paths (window, (const char * const[]) { clip, NULL }, (const char * const[]) { clip, NULL },
                        NULL, TRUE, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (g_list_model_get_n_items (models) + 1), "the CLIP fixture");
  while (g_list_model_get_n_items (models) > 1)
    {
      pl_window_select_model (window, 0);
      g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), "win.remove-model", NULL));
    }
  model = g_list_model_get_item (models, 0);
  g_assert_cmpstr (pl_model_get_name (model), ==, "clip");

  g_assert_true (pl_window_show_view (window, "probes"));
  g_settings_set_int (settings, "probe-repeats", 1);
  pl_probes_page_set_protocol (probes, PL_PROBE_INTERLEAVED);
  pl_probes_page_run (probes);
  pl_test_wait_until (probes_ready, probes, "the grid probes");
  g_assert_true (pl_probes_page_get_grid_result (probes, model, values));
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *name = g_strdup_printf ("/clip-5x5/%s", names[k]);
      double want = pl_test_read_h5_scalar (reference, name);

      g_test_message ("%s: %.6f, scikit-learn %.6f", names[k], values[k], want);
      g_assert_cmpfloat (fabs (values[k] - want), <=, 1e-6 * MAX (1, want));
    }
  g_settings_reset (settings, "probe-repeats");
}

static gboolean
playground_shows_grid (gpointer page)
{
  PlFigure *figure = pl_page_get_figure (page);

  return !pl_page_get_busy (page) && figure != NULL && pl_figure_get_kind (figure) == PL_FIGURE_PATCH_GRID &&
         pl_playground_page_get_matrix (page) != NULL && pl_playground_page_get_matrix (page)->rows == 196;
}

/* The Playground's 2-D sine–cosine table at 14 × 14 × 64, base 10 000:
 * its grid of grids is the cosine (in float64) of numpy's closed form of
 * MAE's get_2d_sincos_pos_embed (make-vision.py's /sincos2d/14x14x64),
 * every pair within 1e-5. */
static void
test_playground_sincos2d (void)
{
  PlPlaygroundPage *playground = PL_PLAYGROUND_PAGE (pl_window_get_page (window, "playground"));
  g_autoptr(PlMatrix) table = pl_test_vision_reference ("sincos2d", "14x14x64");
  PlMatrix *shown;
  double worst = 0;

  g_assert_true (pl_window_show_view (window, "playground"));
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_SINCOS2D);
  pl_playground_page_set_encoding (playground, 14, 64, 10000);
  pl_test_wait_until (playground_shows_grid, playground, "the 2-D sine–cosine table");
  shown = pl_playground_page_get_matrix (playground);
  g_assert_cmpuint (shown->cols, ==, 196);
  for (gsize a = 0; a < 196; a++)
    for (gsize b = 0; b < 196; b++)
      worst = MAX (worst, fabs (pl_matrix_get (shown, a, b) - cosine_of (table, a, b)));
  g_test_message ("largest difference from numpy: %.2g", worst);
  g_assert_cmpfloat (worst, <=, 1e-5);
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_SINUSOIDAL);
}

/* The sidebar names a vision table by its grid of patches; the 1-D
 * tables by positions × width, each demo as a researcher reads it. */
static void
test_sidebar_names_grid (void)
{
  static const struct { const char *name; const char *subtitle; } demos[] = {
    { "mini-gpt2", "GPT-2 · 512 × 256" },
    { "mini-bert", "BERT · 512 × 256" },
    { "mini-roberta", "RoBERTa · 512 × 256 · from row 2" },
    { "Sinusoidal 512 × 768", "Analytic · 512 × 768" },
    { "mini-vit", "ViT · 8 × 8 patches × 48 · from row 1" },
  };
  guint found = 0;

  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (G_N_ELEMENTS (demos)), "the demo models");
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (window->model_list)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      PlModel *model = pl_model_row_get_model (PL_MODEL_ROW (row));

      for (guint i = 0; i < G_N_ELEMENTS (demos); i++)
        if (g_str_equal (pl_model_get_name (model), demos[i].name))
          {
            g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, demos[i].subtitle);
            found++;
          }
    }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (demos));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-patches/sidebar", test_sidebar_names_grid);
  g_test_add_func ("/pl/window-patches/view", test_patches_view);
  g_test_add_func ("/pl/window-patches/flattened", test_flattened_views);
  g_test_add_func ("/pl/window-patches/grid-probes", test_grid_probes);
  g_test_add_func ("/pl/window-patches/playground-sincos2d", test_playground_sincos2d);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
