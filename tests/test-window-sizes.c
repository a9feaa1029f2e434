/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-figure-view.h"
#include "pl-page.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* The window at any width, down to 360 px: it shrinks to what it is given,
 * never grows by itself, and every control of every view's toolbar lies
 * inside it (a toolbar too wide folds into a menu). */

static PlApplication *app;
static PlWindow *window;

static const char *views[] = { "similarity", "trajectory", "attention", "probes", "compare", "playground",
                               "patches", "rotary" };

/* A window of WIDTH as the user left it last time: the window starts at the
 * size kept in the settings (GTK cannot resize a mapped window). */
static void
open_at (int width)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));

  g_settings_set_int (settings, "window-width", width);
  g_settings_set_int (settings, "window-height", 700);
  gtk_window_destroy (GTK_WINDOW (window));
  window = pl_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  while (g_list_model_get_n_items (pl_window_get_models (window)) < 4 || !gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  /* A toolbar folds in an idle after the allocation that found it too wide. */
  pl_test_wait_frames (GTK_WIDGET (window), 4);
}

/* Every control shown in WIDGET lies inside LIMIT (the page) and the window. */
static void
assert_inside (GtkWidget  *widget,
               GtkWidget  *limit,
               const char *where)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t in_window, in_limit;
      int window_width = gtk_widget_get_width (GTK_WIDGET (window));

      if (!gtk_widget_get_mapped (child) || gtk_widget_get_width (child) == 0)
        continue;
      g_assert_true (gtk_widget_compute_bounds (child, GTK_WIDGET (window), &in_window));
      g_assert_true (gtk_widget_compute_bounds (child, limit, &in_limit));
      if (in_window.origin.x < -0.5 || in_window.origin.x + in_window.size.width > window_width + 0.5 ||
          in_limit.origin.x + in_limit.size.width > gtk_widget_get_width (limit) + 0.5)
        g_error ("%s: a %s at x = %.0f, %.0f wide, is outside the %d px window or its page",
                 where, G_OBJECT_TYPE_NAME (child), in_window.origin.x, in_window.size.width, window_width);
      assert_inside (child, limit, where);
    }
}

/* No label shown in WIDGET is cut short with an ellipsis. */
static void
assert_no_label_cut (GtkWidget  *widget,
                     const char *where)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child) && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (child))))
        g_error ("%s: the label \"%s\" is cut to %d px", where, gtk_label_get_label (GTK_LABEL (child)),
                 gtk_widget_get_width (child));
      assert_no_label_cut (child, where);
    }
}

/* Every popover of a menu button in WIDGET fits the window: its content,
 * squeezed as far as it goes, no wider than WIDTH less the popover's frame. */
static void
assert_popovers_fit (GtkWidget  *widget,
                     int         width,
                     const char *where)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkPopover *popover = GTK_IS_MENU_BUTTON (child) ? gtk_menu_button_get_popover (GTK_MENU_BUTTON (child)) : NULL;

      if (popover != NULL && !GTK_IS_POPOVER_MENU (popover) && gtk_popover_get_child (popover) != NULL)
        {
          int minimum;

          gtk_widget_measure (gtk_popover_get_child (popover), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL,
                              NULL);
          if (minimum > width - 24)
            g_error ("%s: the popover of a %s needs %d px", where, G_OBJECT_TYPE_NAME (child), minimum);
        }
      assert_popovers_fit (child, width, where);
    }
}

static void
collect_figure_views (GtkWidget *widget,
                      GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (PL_IS_FIGURE_VIEW (child))
      g_ptr_array_add (found, child);
    else
      collect_figure_views (child, found);
}

/* Whether the Playground's second figure lies under its first, not beside it. */
static gboolean
playground_stacked (void)
{
  GtkWidget *page = pl_window_get_page (window, "playground");
  g_autoptr(GPtrArray) figures = g_ptr_array_new ();
  graphene_rect_t first, second;

  collect_figure_views (page, figures);
  g_assert_cmpuint (figures->len, ==, 2);
  g_assert_true (gtk_widget_compute_bounds (figures->pdata[0], page, &first));
  g_assert_true (gtk_widget_compute_bounds (figures->pdata[1], page, &second));
  g_assert_cmpfloat (first.size.width, >, 0);
  return second.origin.y >= first.origin.y + first.size.height - 0.5;
}

/* The Trajectory's path and its explained variance: the path first (left or
 * above) and at least twice the panel's share of the split, whether the
 * panel lies beside it or under it. */
static gboolean
trajectory_stacked (void)
{
  GtkWidget *page = pl_window_get_page (window, "trajectory");
  g_autoptr(GPtrArray) figures = g_ptr_array_new ();
  graphene_rect_t path, variance;
  gboolean stacked;

  pl_window_show_view (window, "trajectory");
  pl_test_wait_frames (GTK_WIDGET (window), 4);
  collect_figure_views (page, figures);
  g_assert_cmpuint (figures->len, ==, 2);
  g_assert_true (gtk_widget_compute_bounds (figures->pdata[0], page, &path));
  g_assert_true (gtk_widget_compute_bounds (figures->pdata[1], page, &variance));
  g_test_message ("trajectory: path %.0f × %.0f at (%.0f, %.0f), variance %.0f × %.0f at (%.0f, %.0f)",
                  path.size.width, path.size.height, path.origin.x, path.origin.y, variance.size.width,
                  variance.size.height, variance.origin.x, variance.origin.y);
  stacked = variance.origin.y >= path.origin.y + path.size.height - 0.5;
  if (stacked)
    {
      g_assert_cmpfloat (variance.size.height * 2, <=, path.size.height);
      g_assert_cmpfloat (path.size.width, ==, variance.size.width);
    }
  else
    {
      g_assert_cmpfloat (variance.origin.x, >=, path.origin.x + path.size.width - 0.5);
      g_assert_cmpfloat (variance.size.width * 2, <=, path.size.width);
    }
  return stacked;
}

static void
check_width (int width)
{
  int given;

  open_at (width);
  /* The window on screen, its frame included, as wide as asked: it can be
   * made that narrow. */
  g_assert_cmpint (gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (window))), ==, width);
  /* What the window got, less its frame: never more than asked for. */
  given = gtk_widget_get_width (GTK_WIDGET (window));
  g_assert_cmpint (given, <=, width);
  g_assert_cmpint (given, >=, width - 20);
  width = given;
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      PlPage *page = PL_PAGE (pl_window_get_page (window, views[i]));
      PlFoldingToolbar *toolbar;
      g_autofree char *where = g_strdup_printf ("%s at %d px", views[i], width);

      pl_window_show_view (window, views[i]);
      pl_test_wait_frames (GTK_WIDGET (window), 4);
      /* Folded or not, the window kept the width it was given. */
      if (gtk_widget_get_width (GTK_WIDGET (window)) != width)
        {
          int minimum;

          gtk_widget_measure (GTK_WIDGET (page), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
          g_error ("%s: the window grew to %d px (the page needs %d)", where,
                   gtk_widget_get_width (GTK_WIDGET (window)), minimum);
        }
      toolbar = pl_page_get_toolbar (page);
      assert_inside (GTK_WIDGET (toolbar), GTK_WIDGET (page), where);
      /* Every view's name reads in full, wherever the views are switched. */
      assert_no_label_cut (gtk_widget_get_ancestor (GTK_WIDGET (window->view_stack), GTK_TYPE_BOX), where);
      assert_popovers_fit (GTK_WIDGET (toolbar), width, where);
      /* A folded toolbar's menu fits the window: its controls, linked
       * groups too, no wider than the window less the menu's margins. */
      if (pl_folding_toolbar_get_folded (toolbar))
        {
          int minimum;

          gtk_widget_measure (pl_folding_toolbar_get_controls (toolbar), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
          if (minimum > width - 24)
            g_error ("%s: the folded toolbar needs %d px", where, minimum);
        }
      g_test_message ("%s: toolbar %s", where, pl_folding_toolbar_get_folded (toolbar) ? "folded" : "in a row");
    }
}

static void
test_wide (void)
{
  check_width (900);
  /* Wide: the Playground's heatmap and trajectory side by side. */
  pl_window_show_view (window, "playground");
  pl_test_wait_frames (GTK_WIDGET (window), 4);
  g_assert_false (playground_stacked ());
}

/* A wide window: the explained variance beside the path. */
static void
test_full (void)
{
  check_width (1600);
  g_assert_false (trajectory_stacked ());
}

static void
test_medium (void)
{
  check_width (600);
}

static void
test_narrow (void)
{
  check_width (360);
  /* The sidebar folds away; the back button leads to it. */
  g_assert_true (adw_leaflet_get_folded (window->leaflet));
  /* The views are switched by the header's drop-down, which follows the
   * view shown however it was chosen. */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->title_stack), ==, "menu");
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (window->switcher_bar)));
  gtk_drop_down_set_selected (window->view_menu, 3);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "probes");
  pl_window_show_view (window, "compare");
  g_assert_cmpuint (gtk_drop_down_get_selected (window->view_menu), ==, 4);
  /* Narrow: one figure above the other, each as wide as the window. */
  pl_window_show_view (window, "playground");
  pl_test_wait_frames (GTK_WIDGET (window), 4);
  g_assert_true (playground_stacked ());
  /* The path first, as wide as the window, its explained variance under it. */
  g_assert_true (trajectory_stacked ());
}

/* Switching model does not change the window's width. */
static void
test_switch_keeps_width (void)
{
  int width;

  open_at (700);
  width = gtk_widget_get_width (GTK_WIDGET (window));
  pl_window_show_view (window, "similarity");
  for (guint i = 0; i < g_list_model_get_n_items (pl_window_get_models (window)); i++)
    {
      pl_window_select_model (window, i);
      pl_test_wait_frames (GTK_WIDGET (window), 6);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, width);
    }
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-sizes/1600", test_full);
  g_test_add_func ("/pl/window-sizes/900", test_wide);
  g_test_add_func ("/pl/window-sizes/600", test_medium);
  g_test_add_func ("/pl/window-sizes/360", test_narrow);
  g_test_add_func ("/pl/window-sizes/switch-keeps-width", test_switch_keeps_width);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
