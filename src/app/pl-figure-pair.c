/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-figure-pair.h"

/* Side by side each of two figures gets a square of min (width / 2,
 * height), stacked one of min (width, height / 2): the pair takes the
 * arrangement with the larger square, decided in each allocation, so a
 * 360 × 800 window stacks them and a wide one sets them side by side.
 *
 * With a side width, the second figure is a side panel beside the first:
 * side-width pixels wide beside it, or under it as a strip of at most
 * side-width pixels and a third of the height. The first figure's square
 * decides again: side by side it is min (width − side, height), stacked
 * min (width, height − strip).
 *
 * It asks for the sum of its children's sizes both ways, so either
 * arrangement fits what it is given. */
struct _PlFigurePair
{
  GtkWidget parent_instance;

  int       side_width;
  gboolean  stacked;     /* as last allocated */
};

G_DEFINE_FINAL_TYPE (PlFigurePair, pl_figure_pair, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SIDE_WIDTH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

/* Where the first figure (0) and the second (1) go in WIDTH × HEIGHT. */
static void
place (PlFigurePair *self,
       int           width,
       int           height,
       GdkRectangle  at[2])
{
  int first, second;

  if (self->side_width > 0)
    {
      int side = MIN (self->side_width, width / 2);
      int strip = MIN (self->side_width, height / 3);

      self->stacked = MIN (width, height - strip) > MIN (width - side, height);
      second = self->stacked ? strip : side;
    }
  else
    {
      self->stacked = MIN (width, height / 2) > MIN (width / 2, height);
      second = self->stacked ? height / 2 : width / 2;
    }
  first = (self->stacked ? height : width) - second;
  if (self->stacked)
    {
      at[0] = (GdkRectangle) { 0, 0, width, first };
      at[1] = (GdkRectangle) { 0, first, width, second };
    }
  else
    {
      at[0] = (GdkRectangle) { 0, 0, first, height };
      at[1] = (GdkRectangle) { first, 0, second, height };
    }
}

static void
pl_figure_pair_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  GtkWidget *shown[2] = { NULL, NULL };
  GdkRectangle at[2];
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL && n < 2;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      shown[n++] = child;
  if (n == 1)
    gtk_widget_allocate (shown[0], width, height, -1, NULL);
  if (n < 2)
    return;

  place (PL_FIGURE_PAIR (widget), width, height, at);
  for (guint i = 0; i < 2; i++)
    gtk_widget_allocate (shown[i], at[i].width, at[i].height, -1,
                         gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (at[i].x, at[i].y)));
}

int
pl_figure_pair_get_side_width (PlFigurePair *self)
{
  g_return_val_if_fail (PL_IS_FIGURE_PAIR (self), 0);
  return self->side_width;
}

void
pl_figure_pair_set_side_width (PlFigurePair *self,
                               int           side_width)
{
  g_return_if_fail (PL_IS_FIGURE_PAIR (self));
  g_return_if_fail (side_width >= 0);

  if (self->side_width == side_width)
    return;
  self->side_width = side_width;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIDE_WIDTH]);
}

gboolean
pl_figure_pair_get_stacked (PlFigurePair *self)
{
  g_return_val_if_fail (PL_IS_FIGURE_PAIR (self), FALSE);
  return self->stacked;
}

static void
pl_figure_pair_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PlFigurePair *self = PL_FIGURE_PAIR (object);

  switch (prop_id)
    {
    case PROP_SIDE_WIDTH:
      g_value_set_int (value, self->side_width);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_figure_pair_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  PlFigurePair *self = PL_FIGURE_PAIR (object);

  switch (prop_id)
    {
    case PROP_SIDE_WIDTH:
      pl_figure_pair_set_side_width (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
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
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pl_figure_pair_dispose;
  object_class->get_property = pl_figure_pair_get_property;
  object_class->set_property = pl_figure_pair_set_property;
  GTK_WIDGET_CLASS (klass)->measure = pl_figure_pair_measure;
  GTK_WIDGET_CLASS (klass)->size_allocate = pl_figure_pair_size_allocate;

  properties[PROP_SIDE_WIDTH] =
    g_param_spec_int ("side-width", NULL, NULL, 0, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
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
