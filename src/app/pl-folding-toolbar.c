/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-folding-toolbar.h"

#define SPACING 6

struct _PlFoldingToolbar
{
  GtkWidget    parent_instance;

  GtkWidget   *row;            /* the menu button, then the controls' room */
  GtkWidget   *controls;
  GtkWidget   *room;           /* the controls' row: may be narrower than the controls */
  GtkViewport *port;
  GtkWidget   *fold_button;    /* the controls as a menu, when the room is too narrow */
  GtkPopover  *fold_popover;
  gboolean     folded;
  int          width;          /* as last allocated */
  guint        fold_idle;
};

G_DEFINE_FINAL_TYPE (PlFoldingToolbar, pl_folding_toolbar, GTK_TYPE_WIDGET)

/* The width BOX's shown children take side by side, SPACING apart. A linked
 * group of buttons is a column in the menu: in the row its buttons sit side
 * by side, so it is measured as they would be there, whatever its
 * orientation now (measured as a column, the toolbar would unfold into a row
 * too narrow for it, fold again, and close its menu as it opened). */
static int
row_width (GtkWidget *box,
           int        spacing)
{
  int width = 0, n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (box); child != NULL; child = gtk_widget_get_next_sibling (child))
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

/* Linked button groups along ORIENTATION: in the menu, one under another. */
static void
orient_linked (GtkWidget      *controls,
               GtkOrientation  orientation)
{
  for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BOX (child) && gtk_widget_has_css_class (child, "linked"))
      gtk_orientable_set_orientation (GTK_ORIENTABLE (child), orientation);
}

static gboolean
refold (gpointer data)
{
  PlFoldingToolbar *self = data;
  gboolean fold = self->width > 0 && row_width (self->controls, SPACING) > self->width;

  self->fold_idle = 0;
  if (fold == self->folded)
    return G_SOURCE_REMOVE;
  self->folded = fold;
  g_object_ref (self->controls);
  if (fold)
    {
      gtk_viewport_set_child (self->port, NULL);
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->controls), GTK_ORIENTATION_VERTICAL);
      orient_linked (self->controls, GTK_ORIENTATION_VERTICAL);
      gtk_popover_set_child (self->fold_popover, self->controls);
    }
  else
    {
      gtk_popover_popdown (self->fold_popover);
      gtk_popover_set_child (self->fold_popover, NULL);
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->controls), GTK_ORIENTATION_HORIZONTAL);
      orient_linked (self->controls, GTK_ORIENTATION_HORIZONTAL);
      gtk_viewport_set_child (self->port, self->controls);
    }
  g_object_unref (self->controls);
  gtk_widget_set_visible (self->fold_button, fold);
  gtk_widget_set_visible (self->room, !fold);
  return G_SOURCE_REMOVE;
}

static void
queue_refold (PlFoldingToolbar *self)
{
  if (self->fold_idle == 0)
    self->fold_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, refold, self, NULL);
}

/* A control shown or hidden changes the row's width. Folded, the controls
 * live in the menu's popover, so the toolbar sees no new allocation for it:
 * it looks again itself. */
static void
follow_visibility (PlFoldingToolbar *self,
                   GtkWidget        *control)
{
  g_signal_connect_object (control, "notify::visible", G_CALLBACK (queue_refold), self, G_CONNECT_SWAPPED);
  if (GTK_IS_BOX (control) && gtk_widget_has_css_class (control, "linked"))
    for (GtkWidget *child = gtk_widget_get_first_child (control); child; child = gtk_widget_get_next_sibling (child))
      follow_visibility (self, child);
}

GtkWidget *
pl_folding_toolbar_new (void)
{
  return g_object_new (PL_TYPE_FOLDING_TOOLBAR, NULL);
}

static void
on_popover_visible (GtkWidget  *popover,
                    GParamSpec *pspec,
                    GtkWidget  *control)
{
  gtk_widget_set_has_tooltip (control, !gtk_widget_get_visible (popover));
  gtk_widget_trigger_tooltip_query (control);
}

/* While CONTROL's popover (a menu button's, a drop-down's list) is open, its
 * tooltip stays away: under the pointer that opened it, it would cover the
 * popover's first items. */
static void
quiet_tooltip_while_open (GtkWidget *control)
{
  GtkWidget *popover = NULL;

  if (GTK_IS_MENU_BUTTON (control))
    popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (control)));
  else if (GTK_IS_DROP_DOWN (control))
    for (GtkWidget *child = gtk_widget_get_first_child (control); child; child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_POPOVER (child))
        popover = child;
  if (popover != NULL && gtk_widget_get_has_tooltip (control))
    g_signal_connect_object (popover, "notify::visible", G_CALLBACK (on_popover_visible), control, 0);
}

void
pl_folding_toolbar_append (PlFoldingToolbar *self,
                           GtkWidget        *child)
{
  g_return_if_fail (PL_IS_FOLDING_TOOLBAR (self));
  g_return_if_fail (GTK_IS_WIDGET (child));
  gtk_box_append (GTK_BOX (self->controls), child);
  quiet_tooltip_while_open (child);
  follow_visibility (self, child);
  queue_refold (self);
}

gboolean
pl_folding_toolbar_get_folded (PlFoldingToolbar *self)
{
  g_return_val_if_fail (PL_IS_FOLDING_TOOLBAR (self), FALSE);
  return self->folded;
}

GtkWidget *
pl_folding_toolbar_get_controls (PlFoldingToolbar *self)
{
  g_return_val_if_fail (PL_IS_FOLDING_TOOLBAR (self), NULL);
  return self->controls;
}

static void
pl_folding_toolbar_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  PlFoldingToolbar *self = PL_FOLDING_TOOLBAR (widget);

  gtk_widget_measure (self->row, orientation, for_size, minimum, natural, minimum_baseline, natural_baseline);
}

static void
pl_folding_toolbar_size_allocate (GtkWidget *widget,
                                  int        width,
                                  int        height,
                                  int        baseline)
{
  PlFoldingToolbar *self = PL_FOLDING_TOOLBAR (widget);

  gtk_widget_allocate (self->row, width, height, baseline, NULL);
  self->width = width;
  queue_refold (self);
}

static void
pl_folding_toolbar_dispose (GObject *object)
{
  PlFoldingToolbar *self = PL_FOLDING_TOOLBAR (object);

  g_clear_handle_id (&self->fold_idle, g_source_remove);
  g_clear_pointer (&self->row, gtk_widget_unparent);
  G_OBJECT_CLASS (pl_folding_toolbar_parent_class)->dispose (object);
}

static void
pl_folding_toolbar_class_init (PlFoldingToolbarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pl_folding_toolbar_dispose;
  widget_class->measure = pl_folding_toolbar_measure;
  widget_class->size_allocate = pl_folding_toolbar_size_allocate;
}

static void
pl_folding_toolbar_init (PlFoldingToolbar *self)
{
  self->row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, SPACING);
  gtk_widget_set_parent (self->row, GTK_WIDGET (self));

  self->fold_popover = GTK_POPOVER (gtk_popover_new ());
  self->fold_button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (self->fold_button), "view-more-symbolic");
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (self->fold_button), GTK_WIDGET (self->fold_popover));
  gtk_widget_set_tooltip_text (self->fold_button, _("View Options"));
  quiet_tooltip_while_open (self->fold_button);
  gtk_widget_set_visible (self->fold_button, FALSE);
  gtk_box_append (GTK_BOX (self->row), self->fold_button);

  /* The room scrolls nowhere: it only lets the row be narrower than the
   * controls for the moment before they fold. */
  self->controls = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, SPACING);
  self->port = GTK_VIEWPORT (gtk_viewport_new (NULL, NULL));
  gtk_viewport_set_scroll_to_focus (self->port, FALSE);
  gtk_viewport_set_child (self->port, self->controls);
  self->room = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->room), GTK_POLICY_EXTERNAL, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (self->room), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->room), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->room), GTK_WIDGET (self->port));
  gtk_widget_set_hexpand (self->room, TRUE);
  gtk_box_append (GTK_BOX (self->row), self->room);
}
