/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-page.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* A view's toolbar folds into its ⋮ menu exactly when its controls do not fit
 * in one row, after every change of the window's width and of what the view
 * shows, and the ⋮ always opens its menu. */

static PlApplication *app;
static PlWindow *window;

static gboolean
has_width (gpointer data)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));

  return gtk_widget_get_mapped (GTK_WIDGET (window)) && gdk_surface_get_width (surface) == GPOINTER_TO_INT (data);
}

/* Mapped and laid out at the size its surface was given. */
static gboolean
is_laid_out (gpointer widget)
{
  return gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0;
}

/* The window resized to WIDTH as a user drags its edge, once GTK has laid it
 * out at that width and the toolbars have had their say. */
static void
resize_to (int width)
{
  gtk_window_set_default_size (GTK_WINDOW (window), width, 700);
  pl_test_wait_until (has_width, GINT_TO_POINTER (width), "the window's new width");
  pl_test_wait_frames (GTK_WIDGET (window), 4);
}

/* The width of WIDGET's visible children in one row: a linked group of
 * buttons (a column in the menu) is as wide as its buttons side by side. */
static int
row_width (GtkWidget *box,
           int        spacing)
{
  int width = 0, n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (box); child; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_visible (child))
      {
        int natural;

        if (GTK_IS_BOX (child) && gtk_widget_has_css_class (child, "linked"))
          natural = row_width (child, 0);
        else
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
        width += natural;
        n++;
      }
  return width + spacing * MAX (n - 1, 0);
}

/* Whether WIDGET and everything shown in it lies inside PAGE. */
static void
assert_inside (GtkWidget  *widget,
               GtkWidget  *page,
               const char *where)
{
  graphene_rect_t bounds;

  if (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) == 0)
    return;
  g_assert_true (gtk_widget_compute_bounds (widget, page, &bounds));
  if (bounds.origin.x < -0.5 || bounds.origin.x + bounds.size.width > gtk_widget_get_width (page) + 0.5)
    g_error ("%s: a %s at x = %.0f, %.0f wide, is outside its %d px page", where, G_OBJECT_TYPE_NAME (widget),
             bounds.origin.x, bounds.size.width, gtk_widget_get_width (page));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    assert_inside (child, page, where);
}

static GtkWidget *
find_menu_button (GtkWidget *toolbar)
{
  /* The ⋮ is the toolbar's first button, before the controls' row. */
  GtkWidget *row = gtk_widget_get_first_child (toolbar);

  return gtk_widget_get_first_child (row);
}

static gboolean
page_settled (gpointer page)
{
  return !pl_page_get_busy (page);
}

static gboolean
popover_shown (gpointer popover)
{
  return gtk_widget_get_mapped (popover);
}

/* The toolbar of VIEW as the user finds it: folded exactly when its controls
 * are wider than its row, every control inside the page, and, folded, a ⋮
 * whose menu opens and stays open. */
static void
check_toolbar (const char *view,
               const char *where)
{
  PlPage *page = PL_PAGE (pl_test_page (window, view));
  PlFoldingToolbar *toolbar = pl_page_get_toolbar (page);
  GtkWidget *controls = pl_folding_toolbar_get_controls (toolbar);
  int needed, room;
  gboolean folded;

  /* A view still computing fills its controls (the heads of a layer) when
   * its answer comes, which may rightly fold or unfold the toolbar: the
   * toolbar is judged once the view has its answer. */
  pl_test_wait_until (page_settled, page, where);
  pl_test_wait_frames (GTK_WIDGET (window), 2);
  needed = row_width (controls, 6);
  room = gtk_widget_get_width (GTK_WIDGET (toolbar));
  folded = pl_folding_toolbar_get_folded (toolbar);

  g_test_message ("%s: controls %d px in a row of %d: %s", where, needed, room, folded ? "folded" : "in a row");
  if (folded != (needed > room))
    g_error ("%s: the toolbar is %s, but its controls need %d px of %d", where, folded ? "folded" : "in a row",
             needed, room);
  assert_inside (GTK_WIDGET (toolbar), GTK_WIDGET (page), where);
  if (folded)
    {
      GtkMenuButton *button = GTK_MENU_BUTTON (find_menu_button (GTK_WIDGET (toolbar)));
      GtkPopover *popover = gtk_menu_button_get_popover (button);

      g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (button)));
      /* Three tries, as the user made them: each opens the menu, which stays. */
      for (int i = 0; i < 3; i++)
        {
          gtk_menu_button_popup (button);
          pl_test_wait_until (popover_shown, popover, "the ⋮ menu");
          pl_test_wait_frames (GTK_WIDGET (window), 4);
          if (!gtk_widget_get_mapped (GTK_WIDGET (popover)) || !pl_folding_toolbar_get_folded (toolbar))
            g_error ("%s: the ⋮ menu closed by itself (try %d)", where, i + 1);
          g_assert_true (gtk_widget_is_ancestor (controls, GTK_WIDGET (popover)));
          gtk_menu_button_popdown (button);
          pl_test_wait_frames (GTK_WIDGET (window), 2);
          g_assert_true (pl_folding_toolbar_get_folded (toolbar));
        }
    }
}

/* The issue's steps: Compare at 650 px, wider to 1150, Alt+3 (Attention),
 * then narrower to 1000 and 800. */
static void
test_issue_steps (void)
{
  pl_window_show_view (window, "compare");
  resize_to (650);
  resize_to (1150);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "attention");
  pl_test_wait_frames (GTK_WIDGET (window), 4);
  check_toolbar ("attention", "attention at 1150 px");
  resize_to (1000);
  check_toolbar ("attention", "attention at 1000 px");
  resize_to (800);
  check_toolbar ("attention", "attention at 800 px");
}

/* Every width from wide to narrow, on the views with the widest toolbars. */
static void
test_mid_widths (void)
{
  static const char *views[] = { "attention", "similarity", "trajectory", "probes" };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      pl_window_show_view (window, views[i]);
      for (int width = 1200; width >= 700; width -= 100)
        {
          g_autofree char *where = g_strdup_printf ("%s at %d px", views[i], width);

          resize_to (width);
          check_toolbar (views[i], where);
        }
    }
}

static void
switch_attention_view (const char *name)
{
  PlPage *page = PL_PAGE (pl_test_page (window, "attention"));
  GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (page));
  GtkWidget *switcher = gtk_widget_get_first_child (controls);

  for (GtkWidget *button = gtk_widget_get_first_child (switcher); button; button = gtk_widget_get_next_sibling (button))
    if (g_strcmp0 (gtk_widget_get_name (button), name) == 0)
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);
  pl_test_wait_frames (GTK_WIDGET (window), 4);
}

/* Switching Attention between Offsets (with its ± control) and Distances
 * (without) at each width: the folding follows what the toolbar holds. */
static void
test_view_switches (void)
{
  pl_window_show_view (window, "attention");
  for (int width = 1100; width >= 700; width -= 50)
    {
      g_autofree char *offsets = g_strdup_printf ("Offsets at %d px", width);
      g_autofree char *distances = g_strdup_printf ("Distances at %d px", width);

      resize_to (width);
      switch_attention_view ("offsets");
      check_toolbar ("attention", offsets);
      switch_attention_view ("distances");
      check_toolbar ("attention", distances);
    }
  switch_attention_view ("offsets");
}

/* The popover CONTROL opens (a menu button's, a drop-down's list), or NULL. */
static GtkPopover *
control_popover (GtkWidget *control)
{
  if (GTK_IS_MENU_BUTTON (control))
    return gtk_menu_button_get_popover (GTK_MENU_BUTTON (control));
  if (GTK_IS_DROP_DOWN (control))
    for (GtkWidget *child = gtk_widget_get_first_child (control); child; child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_POPOVER (child))
        return GTK_POPOVER (child);
  return NULL;
}

static gboolean
toolbar_folded (gpointer toolbar)
{
  return pl_folding_toolbar_get_folded (toolbar);
}

static gboolean
popover_hidden (gpointer popover)
{
  return !gtk_widget_get_visible (popover);
}

/* CONTROL's tooltip is away while its popover is open, where it would cover
 * the first items, and back once it closes. */
static void
check_quiet_tooltip (GtkWidget  *control,
                     const char *view)
{
  GtkPopover *popover = control_popover (control);

  if (popover == NULL || gtk_widget_get_tooltip_text (control) == NULL)
    return;
  g_test_message ("%s: %s", view, gtk_widget_get_tooltip_text (control));
  g_assert_true (gtk_widget_get_has_tooltip (control));
  gtk_popover_popup (popover);
  pl_test_wait_until (popover_shown, popover, "the popover open");
  g_assert_false (gtk_widget_get_has_tooltip (control));
  gtk_popover_popdown (popover);
  pl_test_wait_until (popover_hidden, popover, "the popover closed");
  g_assert_true (gtk_widget_get_has_tooltip (control));
}

/* Every view's drop-downs and menu buttons, and the ⋮ of a folded toolbar. */
static void
test_quiet_tooltips (void)
{
  static const char *views[] = { "similarity", "trajectory", "attention", "probes", "compare", "playground",
                                 "patches", "rotary" };

  resize_to (1400);
  pl_window_select_model (window, 0);
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      PlPage *page = PL_PAGE (pl_test_page (window, views[v]));
      GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (page));

      pl_window_show_view (window, views[v]);
      pl_test_wait_until (page_settled, page, "the view");
      pl_test_wait_frames (GTK_WIDGET (window), 2);
      for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
        if (gtk_widget_get_visible (child))
          check_quiet_tooltip (child, views[v]);
    }
  pl_window_show_view (window, "attention");
  resize_to (500);
  pl_test_wait_until (toolbar_folded, pl_page_get_toolbar (PL_PAGE (pl_test_page (window, "attention"))),
                      "Attention's toolbar folded");
  check_quiet_tooltip (find_menu_button (GTK_WIDGET (pl_page_get_toolbar (PL_PAGE (pl_test_page (window,
                                                                                                   "attention"))))),
                       "the ⋮");
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  pl_test_wait_until (is_laid_out, window, "the window on screen");

  g_test_add_func ("/pl/window-folding/issue-steps", test_issue_steps);
  g_test_add_func ("/pl/window-folding/mid-widths", test_mid_widths);
  g_test_add_func ("/pl/window-folding/view-switches", test_view_switches);
  g_test_add_func ("/pl/window-folding/quiet-tooltips", test_quiet_tooltips);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
