/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-error.h"
#include "pl-figure-private.h"

/* What a render drew where: each text with its size and box, each panel's
 * room and plot, in the units of the figure rendered (points in an export,
 * pixels on screen), and the figure-layout contract checked on them. */

/* Boxes touching within this are not overlapping (pango's logical boxes of
 * neighbouring lines meet exactly). */
#define TOUCH      0.1
/* Plots of panels differ by less than this. */
#define SAME_SIZE  0.5

static void
clear_item (gpointer data)
{
  PlLayoutItem *item = data;

  g_clear_pointer (&item->text, g_free);
}

GArray *
pl_layout_new (void)
{
  GArray *layout = g_array_new (FALSE, TRUE, sizeof (PlLayoutItem));

  g_array_set_clear_func (layout, clear_item);
  return layout;
}

void
pl_layout_clear (GArray *layout)
{
  g_array_set_size (layout, 0);
}

/* BOX in the current user space as an axis-aligned box in the figure's units. */
static cairo_rectangle_t
to_figure (PlDraw                  *draw,
           const cairo_rectangle_t *box,
           double                  *scale)
{
  double xs[4] = { box->x, box->x + box->width, box->x, box->x + box->width };
  double ys[4] = { box->y, box->y, box->y + box->height, box->y + box->height };
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  cairo_matrix_t m;

  for (guint i = 0; i < 4; i++)
    {
      cairo_user_to_device (draw->cr, &xs[i], &ys[i]);
      cairo_matrix_transform_point (&draw->to_figure, &xs[i], &ys[i]);
      x0 = MIN (x0, xs[i]);
      y0 = MIN (y0, ys[i]);
      x1 = MAX (x1, xs[i]);
      y1 = MAX (y1, ys[i]);
    }
  if (scale != NULL)
    {
      cairo_get_matrix (draw->cr, &m);
      cairo_matrix_multiply (&m, &m, &draw->to_figure);
      *scale = sqrt (fabs (m.xx * m.yy - m.xy * m.yx));
    }
  return (cairo_rectangle_t) { x0, y0, x1 - x0, y1 - y0 };
}

void
pl_layout_add_text (PlDraw                  *draw,
                    PlLayoutRole             role,
                    const char              *text,
                    double                   size,
                    const cairo_rectangle_t *box)
{
  PlLayoutItem item = { role, draw->panel, draw->figure->kind, { 0 }, 0, NULL };
  double scale = 1;

  if (draw->layout == NULL)
    return;
  item.box = to_figure (draw, box, &scale);
  item.size = size * scale;
  item.text = g_strdup (text);
  g_array_append_val (draw->layout, item);
}

void
pl_layout_add_area (PlDraw                  *draw,
                    PlLayoutRole             role,
                    PlFigureKind             kind,
                    const cairo_rectangle_t *box)
{
  PlLayoutItem item = { role, draw->panel, kind, { 0 }, 0, NULL };

  if (draw->layout == NULL)
    return;
  item.box = to_figure (draw, box, NULL);
  g_array_append_val (draw->layout, item);
}

const PlLayoutItem *
pl_figure_get_layout (PlFigure *self,
                      guint    *n_items,
                      double   *width,
                      double   *height)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);

  if (n_items != NULL)
    *n_items = self->layout != NULL ? self->layout->len : 0;
  if (width != NULL)
    *width = self->layout_width;
  if (height != NULL)
    *height = self->layout_height;
  return self->layout != NULL ? (const PlLayoutItem *) (gpointer) self->layout->data : NULL;
}

static gboolean
is_text (const PlLayoutItem *item)
{
  return item->text != NULL;
}

double
pl_figure_get_min_text_size (PlFigure     *self,
                             PlLayoutRole *role)
{
  double smallest = 0;
  guint n;
  const PlLayoutItem *items = pl_figure_get_layout (self, &n, NULL, NULL);

  for (guint i = 0; i < n; i++)
    if (is_text (&items[i]) && (smallest == 0 || items[i].size < smallest))
      {
        smallest = items[i].size;
        if (role != NULL)
          *role = items[i].role;
      }
  return smallest;
}

static const char *
describe (const PlLayoutItem *item,
          char               *buf,
          gsize               len)
{
  static const char *roles[] = { "text", "title", "axis title", "caption line", "panel", "plot" };

  if (item->text != NULL)
    g_snprintf (buf, len, "%s “%.40s%s” (%.1f at %.1f, %.1f, %.1f × %.1f)", roles[item->role], item->text,
                g_utf8_strlen (item->text, -1) > 40 ? "…" : "", item->size,
                item->box.x, item->box.y, item->box.width, item->box.height);
  else
    g_snprintf (buf, len, "%s %d (%.1f, %.1f, %.1f × %.1f)", roles[item->role], item->panel,
                item->box.x, item->box.y, item->box.width, item->box.height);
  return buf;
}

static gboolean
overlap (const cairo_rectangle_t *a,
         const cairo_rectangle_t *b)
{
  return MIN (a->x + a->width, b->x + b->width) - MAX (a->x, b->x) > TOUCH &&
         MIN (a->y + a->height, b->y + b->height) - MAX (a->y, b->y) > TOUCH;
}

static gboolean
inside (const cairo_rectangle_t *a,
        const cairo_rectangle_t *outer)
{
  return a->x >= outer->x - TOUCH && a->y >= outer->y - TOUCH &&
         a->x + a->width <= outer->x + outer->width + TOUCH &&
         a->y + a->height <= outer->y + outer->height + TOUCH;
}

typedef struct
{
  GString *text;
  guint    count;
} Problems;

static void G_GNUC_PRINTF (2, 3)
problem (Problems   *problems,
         const char *format,
         ...)
{
  va_list args;

  /* The first few say enough; the count says how many more. */
  if (problems->count++ < 12)
    {
      va_start (args, format);
      g_string_append (problems->text, "\n  ");
      g_string_append_vprintf (problems->text, format, args);
      va_end (args);
    }
}

static const PlLayoutItem *
find_area (const PlLayoutItem *items,
           guint               n,
           PlLayoutRole        role,
           int                 panel)
{
  for (guint i = 0; i < n; i++)
    if (items[i].role == role && items[i].panel == panel)
      return &items[i];
  return NULL;
}

gboolean
pl_figure_check_layout (PlFigure  *self,
                        double     min_text,
                        GError   **error)
{
  Problems problems = { g_string_new (NULL), 0 };
  double width, height, largest_title = 0, smallest_axis = INFINITY, largest_text = 0;
  cairo_rectangle_t page;
  const PlLayoutItem *items;
  char a[160], b[160];
  guint n;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  items = pl_figure_get_layout (self, &n, &width, &height);
  page = (cairo_rectangle_t) { 0, 0, width, height };
  if (items == NULL)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_FAILED, "the figure was not rendered");
      g_string_free (problems.text, TRUE);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      const PlLayoutItem *item = &items[i];

      if (!inside (&item->box, &page))
        problem (&problems, "%s is outside the %.1f × %.1f page", describe (item, a, sizeof a), width, height);
      if (is_text (item))
        {
          const PlLayoutItem *room = item->panel >= 0 ? find_area (items, n, PL_LAYOUT_PANEL, item->panel) : NULL;

          if (item->size < min_text - 1e-6)
            problem (&problems, "%s is smaller than %.1f", describe (item, a, sizeof a), min_text);
          if (room != NULL && !inside (&item->box, &room->box))
            problem (&problems, "%s is outside its %s", describe (item, a, sizeof a), describe (room, b, sizeof b));
          if (item->role == PL_LAYOUT_TITLE)
            largest_title = MAX (largest_title, item->size);
          else if (item->role == PL_LAYOUT_AXIS_TITLE)
            smallest_axis = MIN (smallest_axis, item->size);
          else
            largest_text = MAX (largest_text, item->size);
        }
      for (guint j = i + 1; j < n; j++)
        {
          const PlLayoutItem *other = &items[j];

          if (((is_text (item) && is_text (other)) ||
               (item->role == PL_LAYOUT_PANEL && other->role == PL_LAYOUT_PANEL)) &&
              overlap (&item->box, &other->box))
            problem (&problems, "%s overlaps %s", describe (item, a, sizeof a), describe (other, b, sizeof b));
          /* The panels' plots are the same size, and level when side by side. */
          if (item->panel >= 0 && other->panel >= 0 &&
              item->role == PL_LAYOUT_PLOT && other->role == PL_LAYOUT_PLOT)
            {
              if (fabs (item->box.width - other->box.width) > SAME_SIZE ||
                  fabs (item->box.height - other->box.height) > SAME_SIZE)
                problem (&problems, "%s and %s differ in size", describe (item, a, sizeof a),
                         describe (other, b, sizeof b));
              if (MIN (item->box.y + item->box.height, other->box.y + other->box.height) >
                  MAX (item->box.y, other->box.y) && fabs (item->box.y - other->box.y) > SAME_SIZE)
                problem (&problems, "%s and %s are side by side but not level", describe (item, a, sizeof a),
                         describe (other, b, sizeof b));
            }
        }
    }
  /* Titles against the axis titles, or against the text when there are none. */
  if (largest_title > 0)
    {
      double reference = isfinite (smallest_axis) ? smallest_axis : largest_text;

      if (reference > 0 && largest_title > PL_FIGURE_MAX_TITLE_RATIO * reference + 1e-6)
        problem (&problems, "a title of %.2f is more than %.1f × the %s of %.2f", largest_title,
                 PL_FIGURE_MAX_TITLE_RATIO, isfinite (smallest_axis) ? "smallest axis title" : "largest text",
                 reference);
    }

  if (problems.count > 0)
    {
      if (problems.count > 12)
        g_string_append_printf (problems.text, "\n  and %u more", problems.count - 12);
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "%u layout problems at %.1f × %.1f:%s",
                   problems.count, width, height, problems.text->str);
    }
  g_string_free (problems.text, TRUE);
  return problems.count == 0;
}
