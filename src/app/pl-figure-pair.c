/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-figure-pair.h"

/* Side by side each of two figures gets a square of min (width / 2,
 * height), stacked one of min (width, height / 2): the pair takes the
 * arrangement with the larger square, decided in each allocation, so a
 * 360 × 800 window stacks them and a wide one sets them side by side. It
 * asks for the sum of its children's sizes both ways, so either
 * arrangement fits what it is given. */
struct _PlFigurePair
{
  GtkWidget parent_instance;
};

G_DEFINE_FINAL_TYPE (PlFigurePair, pl_figure_pair, GTK_TYPE_WIDGET)

static void
pl_figure_pair_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  *minimum = *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      {
        int child_min, child_nat;

        gtk_widget_measure (child, orientation, -1, &child_min, &child_nat, NULL, NULL);
        *minimum += child_min;
        *natural += child_nat;
      }
}

static void
pl_figure_pair_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  GtkWidget *shown[2] = { NULL, NULL };
  guint n = 0;
  gboolean stacked;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL && n < 2;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      shown[n++] = child;
  if (n == 1)
    gtk_widget_allocate (shown[0], width, height, -1, NULL);
  if (n < 2)
    return;

  stacked = MIN (width, height / 2) > MIN (width / 2, height);
  for (guint i = 0; i < 2; i++)
    {
      int w = stacked ? width : (i == 0 ? width / 2 : width - width / 2);
      int h = stacked ? (i == 0 ? height / 2 : height - height / 2) : height;
      graphene_point_t at = GRAPHENE_POINT_INIT (stacked || i == 0 ? 0 : width / 2,
                                                 !stacked || i == 0 ? 0 : height / 2);

      gtk_widget_allocate (shown[i], w, h, -1, gsk_transform_translate (NULL, &at));
    }
}

static void
pl_figure_pair_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (pl_figure_pair_parent_class)->dispose (object);
}

static void
pl_figure_pair_class_init (PlFigurePairClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pl_figure_pair_dispose;
  GTK_WIDGET_CLASS (klass)->measure = pl_figure_pair_measure;
  GTK_WIDGET_CLASS (klass)->size_allocate = pl_figure_pair_size_allocate;
}

static void
pl_figure_pair_init (PlFigurePair *self)
{
}

GtkWidget *
pl_figure_pair_new (void)
{
  return g_object_new (PL_TYPE_FIGURE_PAIR, NULL);
}
