/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "pl-attention-page.h"
#include "pl-compare-page.h"
#include "pl-enum-labels.h"
#include "pl-error.h"
#include "pl-figure-private.h"
#include "pl-figure-view.h"
#include "pl-page.h"
#include "pl-preferences-window.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* What every view has from PlPage, and the window's choices as enum types. */

static PlApplication *app;
static PlWindow *window;

static gboolean
attention_ready (gpointer data)
{
  return !pl_page_get_busy (data) && pl_attention_page_get_stats (data) != NULL;
}

/* The PlFigureViews under WIDGET that show a figure, in order. */
static void
collect_views (GtkWidget *widget,
               GPtrArray *views)
{
  if (PL_IS_FIGURE_VIEW (widget) && gtk_widget_get_mapped (widget) &&
      pl_figure_view_get_figure (PL_FIGURE_VIEW (widget)) != NULL)
    g_ptr_array_add (views, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_views (child, views);
}

/* The middle of bar INDEX of a bar chart, as last drawn. */
static void
middle_of_bar (PlFigure *figure,
               guint     index,
               double   *x,
               double   *y)
{
  cairo_rectangle_t area;

  pl_figure_get_plot_area (figure, &area);
  /* The axis runs from −0.6 to N − 0.4. */
  *x = area.x + (index + 0.6) / figure->n_xs * area.width;
  *y = area.y + area.height / 2;
}

/* A place on VIEW's figure where something is: the middle of a heatmap (of
 * its first panel), of the first bar, or the first point of a trajectory,
 * scatter or line. */
static void
somewhere_on (PlFigureView *view,
              double       *x,
              double       *y)
{
  PlFigure *figure = pl_figure_view_get_figure (view);
  cairo_rectangle_t area, panel;

  switch ((int) pl_figure_get_kind (figure))
    {
    case PL_FIGURE_HEATMAP:
      pl_figure_get_plot_area (figure, &area);
      *x = area.x + area.width / 2;
      *y = area.y + area.height / 3;
      return;
    case PL_FIGURE_MULTIPLES:
      g_assert_true (pl_figure_get_panel_area (figure, 0, &panel));
      pl_figure_get_plot_area (pl_figure_get_panel (figure, 0), &area);
      *x = panel.x + area.x + area.width / 2;
      *y = panel.y + area.y + area.height / 3;
      return;
    case PL_FIGURE_BARS:
      middle_of_bar (figure, 0, x, y);
      return;
    default:
      g_assert_true (pl_figure_get_point (figure, 0, x, y));
    }
}

/* Every figure with data tells what is under the pointer. */
static void
assert_views_describe (GtkWidget  *page_widget,
                       const char *what,
                       guint       at_least)
{
  g_autoptr(GPtrArray) views = g_ptr_array_new ();

  pl_test_wait_frames (page_widget, 3);
  collect_views (page_widget, views);
  g_assert_cmpuint (views->len, >=, at_least);
  for (guint i = 0; i < views->len; i++)
    {
      PlFigureView *view = views->pdata[i];
      g_autofree char *text = NULL;
      double x, y;

      somewhere_on (view, &x, &y);
      text = pl_figure_view_describe_at (view, x, y);
      g_test_message ("%s, view %u: %s", what, i, text);
      g_assert_nonnull (text);
      g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (view)));
    }
}

/* The hover readout of every figure of every view, Compare's included. */
static void
test_hover_everywhere (void)
{
  const char *sub_views[] = { "offsets", "distances", "position-only" };
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));

  pl_window_select_model (window, 0);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_test_wait_until (pl_test_page_ready, pl_test_page (window, "similarity"), "the heatmap");
  assert_views_describe (pl_test_page (window, "similarity"), "similarity", 1);

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (1));
  pl_test_wait_until (pl_test_page_ready, pl_test_page (window, "trajectory"), "the trajectory");
  assert_views_describe (pl_test_page (window, "trajectory"), "trajectory", 2);
  {
    /* The explained variance: PC2's share and PC1's and PC2's together,
     * in per cent, as the bars and the cumulative line draw them. */
    g_autoptr(GPtrArray) views = g_ptr_array_new ();
    g_autofree char *text = NULL;
    g_autofree char *share = NULL;
    g_autofree char *together = NULL;
    PlFigure *bars;
    double x, y;

    collect_views (pl_test_page (window, "trajectory"), views);
    g_assert_cmpuint (views->len, ==, 2);
    bars = pl_figure_view_get_figure (views->pdata[1]);
    g_assert_cmpint (pl_figure_get_kind (bars), ==, PL_FIGURE_BARS);
    g_assert_cmpuint (bars->n_xs, >=, 2);
    middle_of_bar (bars, 1, &x, &y);
    text = pl_figure_view_describe_at (views->pdata[1], x, y);
    share = g_strdup_printf ("PC2: %.1f %%", 100 * bars->ys[1]);
    together = g_strdup_printf ("PC1 to PC2: %.1f %%", 100 * (bars->ys[0] + bars->ys[1]));
    g_test_message ("explained variance: %s", text);
    g_assert_nonnull (text);
    g_assert_nonnull (strstr (text, share));
    g_assert_nonnull (strstr (text, together));
  }

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_test_wait_until (attention_ready, attention, "the attention statistics");
  for (guint i = 0; i < G_N_ELEMENTS (sub_views); i++)
    {
      pl_attention_page_show (attention, sub_views[i]);
      pl_test_wait_until (pl_test_page_ready, attention, sub_views[i]);
      assert_views_describe (GTK_WIDGET (attention), sub_views[i], 1);
    }
  pl_attention_page_show (attention, "offsets");

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (4));
  pl_compare_page_set_models (PL_COMPARE_PAGE (pl_test_page (window, "compare")), 0, 2);
  pl_test_wait_until (pl_test_page_ready, pl_test_page (window, "compare"), "the comparison");
  assert_views_describe (pl_test_page (window, "compare"), "compare", 1);

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (5));
  pl_test_wait_until (pl_test_page_ready, pl_test_page (window, "playground"), "the playground");
  assert_views_describe (pl_test_page (window, "playground"), "playground", 1);
}

/* A click on a head's value in Offsets, on its legend entry, or on its
 * point in Distances chooses that layer and head; Offsets draws the chosen
 * head over the others. */
static void
test_click_heads (void)
{
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  PlWorkspace *workspace = pl_window_get_workspace (window);
  PlAttentionStats *stats;
  g_autoptr(GPtrArray) views = g_ptr_array_new ();
  PlFigureView *view;
  cairo_rectangle_t area;
  guint n_heads;
  double x, y;
  gboolean found_legend = FALSE;

  pl_window_select_model (window, 0);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_test_wait_until (attention_ready, attention, "the attention statistics");
  stats = pl_attention_page_get_stats (attention);
  n_heads = stats->n_heads;
  g_assert_cmpuint (n_heads, >=, 2);
  pl_workspace_set_layer (workspace, 1);
  pl_workspace_set_head (workspace, 0);

  /* Offsets: the second head's first value. */
  pl_attention_page_show (attention, "offsets");
  pl_test_wait_frames (GTK_WIDGET (attention), 3);
  collect_views (GTK_WIDGET (attention), views);
  g_assert_cmpuint (views->len, ==, 1);
  view = views->pdata[0];
  {
    PlFigure *figure = pl_figure_view_get_figure (view);
    guint n = 0;

    /* The values run head by head: the last is the last head's (on a tie,
     * the head drawn later wins). */
    while (pl_figure_get_point (figure, n, &x, &y))
      n++;
    g_assert_cmpuint (n, >, 0);
    g_assert_true (pl_figure_get_point (figure, n - 1, &x, &y));
  }
  g_assert_true (pl_figure_view_activate_at (view, x, y));
  g_assert_cmpuint (pl_workspace_get_head (workspace), ==, n_heads - 1);

  /* Its legend: right of the plot, one row per head. */
  pl_test_wait_frames (GTK_WIDGET (attention), 2);
  view = views->pdata[0];
  pl_figure_get_plot_area (pl_figure_view_get_figure (view), &area);
  for (y = area.y; y < area.y + area.height && !found_legend; y += 1)
    {
      g_autofree char *text = pl_figure_view_describe_at (view, area.x + area.width + 30, y);

      if (text != NULL && strstr (text, "head 1\n") != NULL)
        {
          g_assert_true (pl_figure_view_activate_at (view, area.x + area.width + 30, y));
          found_legend = TRUE;
        }
    }
  g_assert_true (found_legend);
  g_assert_cmpuint (pl_workspace_get_head (workspace), ==, 0);

  /* Distances: the point of the last layer's last head. */
  pl_attention_page_show (attention, "distances");
  pl_test_wait_frames (GTK_WIDGET (attention), 3);
  g_ptr_array_set_size (views, 0);
  collect_views (GTK_WIDGET (attention), views);
  view = views->pdata[0];
  g_assert_true (pl_figure_get_point (pl_figure_view_get_figure (view), stats->n_layers * n_heads - 1, &x, &y));
  g_assert_true (pl_figure_view_activate_at (view, x, y));
  g_assert_cmpint (pl_workspace_get_layer (workspace), ==, (int) stats->n_layers);
  g_assert_cmpuint (pl_workspace_get_head (workspace), ==, n_heads - 1);
  pl_attention_page_show (attention, "offsets");
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
}

static GtkWidget *
find_visible_type (GtkWidget *widget,
                   GType      type,
                   guint      skip)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (!gtk_widget_get_visible (child))
        continue;
      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type) && skip-- == 0)
        return child;
      if ((found = find_visible_type (child, type, skip)) != NULL)
        return found;
    }
  return NULL;
}

/* Controls that do not act on what is shown are hidden: the offsets' range
 * outside Offsets, layers and heads for a model without them. */
static void
test_controls_that_apply (void)
{
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  GtkWidget *header = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (attention)));

  pl_window_select_model (window, 0);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_attention_page_show (attention, "offsets");
  g_assert_nonnull (find_visible_type (header, GTK_TYPE_SPIN_BUTTON, 0));
  g_assert_nonnull (find_visible_type (header, GTK_TYPE_DROP_DOWN, 1));
  pl_attention_page_show (attention, "text");
  g_assert_null (find_visible_type (header, GTK_TYPE_SPIN_BUTTON, 0));
  pl_attention_page_show (attention, "distances");
  g_assert_null (find_visible_type (header, GTK_TYPE_SPIN_BUTTON, 0));
  pl_attention_page_show (attention, "offsets");

  /* The sinusoid has no layers or heads. */
  pl_window_select_model (window, 3);
  g_assert_null (find_visible_type (header, GTK_TYPE_DROP_DOWN, 0));
  g_assert_null (find_visible_type (header, GTK_TYPE_SPIN_BUTTON, 0));
  pl_window_select_model (window, 0);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
}

static void
assert_highlight (GtkWidget *page_widget,
                  guint      start,
                  guint      end)
{
  g_autoptr(GPtrArray) views = g_ptr_array_new ();
  guint a, b, n = 0;

  pl_test_wait_frames (page_widget, 2);
  collect_views (page_widget, views);
  for (guint i = 0; i < views->len; i++)
    {
      PlFigure *figure = pl_figure_view_get_figure (views->pdata[i]);

      if (pl_figure_get_kind (figure) != PL_FIGURE_HEATMAP && pl_figure_get_kind (figure) != PL_FIGURE_MULTIPLES)
        continue;
      pl_figure_view_get_highlight (views->pdata[i], &a, &b);
      g_assert_cmpuint (a, ==, start);
      g_assert_cmpuint (b, ==, end);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

static gboolean
has_one_more_model (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= PL_TEST_N_DEMOS + 1;
}

/* The Shift-drag selection shows in every view of positions (Compare's
 * difference, Position Only and Text too), and stays when another model
 * has those positions. */
static void
test_selection_everywhere (void)
{
  PlWorkspace *workspace = pl_window_get_workspace (window);
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  guint start, end;

  pl_window_select_model (window, 0);
  pl_workspace_set_selection (workspace, 10, 20);

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_test_wait_until (attention_ready, attention, "the attention statistics");
  pl_attention_page_show (attention, "position-only");
  pl_test_wait_until (pl_test_page_ready, attention, "position only");
  assert_highlight (GTK_WIDGET (attention), 10, 20);
  pl_attention_page_show (attention, "offsets");

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (4));
  pl_compare_page_set_models (PL_COMPARE_PAGE (pl_test_page (window, "compare")), 0, 1);
  pl_test_wait_until (pl_test_page_ready, pl_test_page (window, "compare"), "the comparison");
  assert_highlight (pl_test_page (window, "compare"), 10, 20);

  /* Another model with those positions keeps them; one without drops them. */
  pl_window_select_model (window, 1);
  pl_workspace_get_selection (workspace, &start, &end);
  g_assert_cmpuint (start, ==, 10);
  g_assert_cmpuint (end, ==, 20);
  pl_window_open_paths (window, (const char * const[]) { "builtin:sinusoidal:64x16", NULL },
                        (const char * const[]) { "builtin:sinusoidal:64x16", NULL }, NULL, FALSE, FALSE);
  pl_test_wait_until (has_one_more_model, NULL, "the short encoding");
  pl_workspace_set_selection (workspace, 100, 120);
  pl_window_select_model (window, PL_TEST_N_DEMOS);   /* 64 positions */
  pl_workspace_get_selection (workspace, &start, &end);
  g_assert_cmpuint (end, ==, 0);
  pl_window_select_model (window, 0);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
}

/* The ⓘ popover in WIDGET's toolbar, or NULL. */
static GtkPopover *
help_popover (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget) &&
      g_strcmp0 (gtk_menu_button_get_icon_name (GTK_MENU_BUTTON (widget)), "help-about-symbolic") == 0)
    return gtk_menu_button_get_popover (GTK_MENU_BUTTON (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkPopover *popover = help_popover (child);

      if (popover != NULL)
        return popover;
    }
  return NULL;
}

/* The text of the ⓘ popover in WIDGET's toolbar, or NULL. */
static const char *
help_text (GtkWidget *widget)
{
  GtkPopover *popover = help_popover (widget);
  GtkWidget *child = popover != NULL ? gtk_popover_get_child (popover) : NULL;

  /* The label, inside the window that scrolls it. */
  while (child != NULL && !GTK_IS_LABEL (child))
    child = gtk_widget_get_first_child (child);
  return child != NULL ? gtk_label_get_text (GTK_LABEL (child)) : NULL;
}

/* The ⓘ texts say what is drawn: the trajectory's running total is a line,
 * the similarity's layer view says what it averages over, and the grid
 * views tell a learned 2-D grid from a 1-D table read row by row. Each
 * text's popover is no taller than a phone's screen leaves it (it scrolls
 * what does not fit). */
static void
test_help_texts (void)
{
  static const char *views[] = { "similarity", "trajectory", "attention", "compare", "patches", "rotary" };
  const char *trajectory = help_text (pl_test_page (window, "trajectory"));
  const char *similarity = help_text (pl_test_page (window, "similarity"));
  const char *patches = help_text (pl_test_page (window, "patches"));

  g_assert_nonnull (trajectory);
  g_assert_nonnull (similarity);
  g_assert_nonnull (patches);
  g_assert_null (strstr (trajectory, "bars on the right add"));
  g_assert_nonnull (strstr (trajectory, "the line adds them up"));
  g_assert_nonnull (strstr (similarity, "averaged over 8 sequences of random tokens"));
  g_assert_nonnull (strstr (patches, "A learned 2-D grid"));
  g_assert_nonnull (strstr (patches, "A 1-D table read row by row"));
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      GtkWidget *child = gtk_popover_get_child (help_popover (pl_test_page (window, views[i])));
      int width, height;

      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
      g_test_message ("%s: the ⓘ text asks %d × %d px", views[i], width, height);
      if (height > 480)
        g_error ("%s: the ⓘ popover is %d px tall", views[i], height);
    }
}

/* An error whose text would be markup ("<data>" from GLib's JSON parser, a
 * path with "&") shows as written, not as an empty page. */
static void
test_error_plain_text (void)
{
  const char *message = "config.json: <data>:1:72: Parse error & more";
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, message);
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));

  pl_page_show_error (similarity, NULL, error);
  g_assert_cmpstr (pl_page_get_shown (similarity), ==, "error");
  g_assert_true (pl_test_shows_label (GTK_WIDGET (pl_page_get_status (similarity)), message));

  pl_page_show_status (similarity, "dialog-warning-symbolic", "Title", "a < b && c > d");
  g_assert_true (pl_test_shows_label (GTK_WIDGET (pl_page_get_status (similarity)), "a < b && c > d"));
  pl_page_refresh (similarity);
}

/* Errors read as sentences where the window shows them (the core's words,
 * which the command line prints, stay as they are); a name that starts one
 * keeps its case. */
static void
test_error_sentence (void)
{
  const struct { const char *message, *shown; } cases[] = {
    { "positions 3 and 17 are all zeros", "Positions 3 and 17 are all zeros" },
    { "row 5 holds NaN", "Row 5 holds NaN" },
    { "élan vital is a phrase", "Élan vital is a phrase" },
    { "gpt: a name and a colon", "gpt: a name and a colon" },
    { "Already a sentence", "Already a sentence" },
    { "mini-gpt2: the table holds NaN", "mini-gpt2: the table holds NaN" },
    { "a&b.safetensors: the header is not valid JSON", "a&b.safetensors: the header is not valid JSON" },
    { "model.h5 is empty", "model.h5 is empty" },
    { "/tmp/x.h5: not HDF5", "/tmp/x.h5: not HDF5" },
    { "", "" },
  };
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "the table holds <NaN> & more");
  AdwToastOverlay *overlay = window->toast_overlay;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = pl_error_sentence (cases[i].message);

      g_assert_cmpstr (shown, ==, cases[i].shown);
    }

  pl_page_show_error (similarity, NULL, error);
  g_assert_true (pl_test_shows_label (GTK_WIDGET (pl_page_get_status (similarity)),
                                      "The table holds <NaN> & more"));
  g_assert_cmpstr (error->message, ==, "the table holds <NaN> & more");
  pl_page_refresh (similarity);

  pl_window_show_error (window, "a <b> & c went wrong");
  g_assert_true (pl_test_shows_label (GTK_WIDGET (overlay), "A <b> & c went wrong"));
}

static gboolean
has_enum_drop_down (GtkWidget *widget,
                    GType      type)
{
  if (GTK_IS_DROP_DOWN (widget))
    {
      GListModel *model = gtk_drop_down_get_model (GTK_DROP_DOWN (widget));

      if (ADW_IS_ENUM_LIST_MODEL (model) &&
          adw_enum_list_model_get_enum_type (ADW_ENUM_LIST_MODEL (model)) == type)
        return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (has_enum_drop_down (child, type))
      return TRUE;
  return FALSE;
}

/* The drop-downs list an enum type's values under their names. */
static void
test_enum_drop_downs (void)
{
  g_autoptr(GEnumClass) metrics = g_type_class_ref (PL_TYPE_SIMILARITY_METRIC);
  g_autoptr(GtkDropDown) drop_down = GTK_DROP_DOWN (g_object_ref_sink (gtk_drop_down_new (NULL, NULL)));

  g_assert_true (has_enum_drop_down (pl_test_page (window, "similarity"), PL_TYPE_SIMILARITY_METRIC));
  g_assert_true (has_enum_drop_down (pl_test_page (window, "compare"), PL_TYPE_SIMILARITY_METRIC));
  g_assert_true (has_enum_drop_down (pl_test_page (window, "probes"), PL_TYPE_PROBE_PROTOCOL));

  /* Every value has a name of its own, and the drop-down answers values. */
  g_assert_cmpuint (metrics->n_values, ==, 3);
  g_assert_cmpstr (pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_L2), ==, "Euclidean distance");
  g_assert_cmpstr (g_enum_get_value (metrics, PL_SIMILARITY_L2)->value_nick, ==,
                   pl_similarity_metric_to_string (PL_SIMILARITY_L2));
  pl_drop_down_set_enum (drop_down, PL_TYPE_ENCODING_KIND);
  pl_drop_down_set_value (drop_down, PL_ENCODING_ALIBI);
  g_assert_cmpint (pl_drop_down_get_value (drop_down), ==, PL_ENCODING_ALIBI);
  pl_drop_down_set_value (drop_down, PL_ENCODING_SINUSOIDAL);
  g_assert_cmpint (pl_drop_down_get_value (drop_down), ==, PL_ENCODING_SINUSOIDAL);
}

static AdwComboRow *
find_combo_row (GtkWidget *widget,
                GType      type)
{
  if (ADW_IS_COMBO_ROW (widget))
    {
      GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (widget));

      if (ADW_IS_ENUM_LIST_MODEL (model) && adw_enum_list_model_get_enum_type (ADW_ENUM_LIST_MODEL (model)) == type)
        return ADW_COMBO_ROW (widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      AdwComboRow *row = find_combo_row (child, type);
      if (row != NULL)
        return row;
    }
  return NULL;
}

/* The preferences' choices are the enum types' values, stored by nick. */
static void
test_preferences_enums (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  GtkWidget *preferences;
  AdwComboRow *colormaps, *metrics;
  g_autoptr(AdwEnumListItem) item = NULL;
  g_autofree char *metric = NULL;

  g_settings_set_string (settings, "colormap", "cividis");
  preferences = pl_preferences_window_new (GTK_WINDOW (window), settings);
  colormaps = find_combo_row (preferences, PL_TYPE_COLORMAP_ID);
  metrics = find_combo_row (preferences, PL_TYPE_SIMILARITY_METRIC);
  g_assert_nonnull (colormaps);
  g_assert_nonnull (metrics);

  item = g_object_ref (adw_combo_row_get_selected_item (colormaps));
  g_assert_cmpint (adw_enum_list_item_get_value (item), ==, PL_COLORMAP_CIVIDIS);
  adw_combo_row_set_selected (metrics, adw_enum_list_model_find_position (
                                ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (metrics)), PL_SIMILARITY_L2));
  metric = g_settings_get_string (settings, "similarity-metric");
  g_assert_cmpstr (metric, ==, "l2");

  g_settings_reset (settings, "colormap");
  g_settings_reset (settings, "similarity-metric");
  gtk_window_destroy (GTK_WINDOW (preferences));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/page/error-plain-text", test_error_plain_text);
  g_test_add_func ("/pl/page/error-sentence", test_error_sentence);
  g_test_add_func ("/pl/page/enum-drop-downs", test_enum_drop_downs);
  g_test_add_func ("/pl/page/preferences-enums", test_preferences_enums);
  g_test_add_func ("/pl/page/hover-everywhere", test_hover_everywhere);
  g_test_add_func ("/pl/page/click-heads", test_click_heads);
  g_test_add_func ("/pl/page/controls-that-apply", test_controls_that_apply);
  g_test_add_func ("/pl/page/selection-everywhere", test_selection_everywhere);
  g_test_add_func ("/pl/page/help-texts", test_help_texts);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
