/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-preset.h"
#include "pl-figure-private.h"

/* Small multiples: several figures in a grid, heatmaps on one shared colour
 * scale read from a single colour bar. A panel of another quantity (a
 * difference beside two similarities) keeps its own scale and bar; then each
 * row's shared panels draw the shared bar beside the last of them. The grid
 * takes the number of columns that gives its panels the most room; each
 * column takes the widest margins its panels' labels need, each row the
 * tallest, so every plot is a square of one size whatever the labels. */

#define GAP         6.0
#define BAR_WIDTH  10.0
#define BAR_GAP    12.0

/* What the last render found, to start the next from: on screen the same
 * grid is drawn again and again as the user zooms and pans. */
struct _PlGridCache
{
  double   font_size;       /* the panels' rooms, measured at this text size and face */
  char    *font_family;
  double   room_w;
  double   room_h;
  double   width;           /* the grid below, laid out in WIDTH × HEIGHT of room */
  double   height;
  guint    columns;
  guint    rows;
  double   title_size;      /* the panels' titles' */
  double  *margin;          /* left and right of each column, top and bottom of each row */
  double  *column_w;
  double  *row_h;
};

void
pl_grid_cache_free (PlGridCache *cache)
{
  if (cache == NULL)
    return;
  g_free (cache->font_family);
  g_free (cache->margin);
  g_free (cache->column_w);
  g_free (cache->row_h);
  g_free (cache);
}

PlFigure *
pl_figure_new_multiples (PlFigure * const *panels,
                         guint             n_panels,
                         guint             columns)
{
  PlFigure *self;

  g_return_val_if_fail (panels != NULL || n_panels == 0, NULL);

  self = pl_figure_new_kind (PL_FIGURE_MULTIPLES);
  self->panels = g_ptr_array_new_with_free_func (g_object_unref);
  self->panel_areas = g_array_new (FALSE, TRUE, sizeof (cairo_rectangle_t));
  for (guint i = 0; i < n_panels; i++)
    {
      g_return_val_if_fail (PL_IS_FIGURE (panels[i]), self);
      g_return_val_if_fail (panels[i]->kind != PL_FIGURE_MULTIPLES, self);
      g_ptr_array_add (self->panels, g_object_ref (panels[i]));
      if (i == 0)
        self->value_label = g_strdup (panels[i]->value_label);
    }
  self->n_columns = columns;

  return self;
}

void
pl_figure_set_own_scale (PlFigure *self,
                         gboolean  own_scale)
{
  g_return_if_fail (PL_IS_FIGURE (self));

  self->own_scale = !!own_scale;
}

PlFigure *
pl_figure_get_panel (PlFigure *self,
                     guint     index)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), NULL);
  g_return_val_if_fail (self->kind == PL_FIGURE_MULTIPLES, NULL);
  g_return_val_if_fail (index < self->panels->len, NULL);

  return g_ptr_array_index (self->panels, index);
}

guint
pl_figure_get_n_panels (PlFigure *self)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), 0);

  return self->panels != NULL ? self->panels->len : 0;
}

gboolean
pl_figure_get_panel_area (PlFigure          *self,
                          guint              index,
                          cairo_rectangle_t *area)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  if (self->kind != PL_FIGURE_MULTIPLES || !self->rendered || index >= self->panel_areas->len)
    return FALSE;
  if (area)
    *area = g_array_index (self->panel_areas, cairo_rectangle_t, index);
  return TRUE;
}

int
pl_figure_get_panel_at (PlFigure *self,
                        double    x,
                        double    y,
                        double   *panel_x,
                        double   *panel_y)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), -1);

  if (self->kind != PL_FIGURE_MULTIPLES || !self->rendered)
    return -1;
  for (guint i = 0; i < self->panel_areas->len; i++)
    {
      const cairo_rectangle_t *r = &g_array_index (self->panel_areas, cairo_rectangle_t, i);

      if (x >= r->x && y >= r->y && x < r->x + r->width && y < r->y + r->height)
        {
          if (panel_x)
            *panel_x = x - r->x;
          if (panel_y)
            *panel_y = y - r->y;
          return (int) i;
        }
    }
  return -1;
}

/* One range over every heatmap panel, so equal colours mean equal values. */
static gboolean
shared_range (PlFigure *self,
              double   *lo,
              double   *hi)
{
  double a = INFINITY, b = -INFINITY;
  gboolean any = FALSE;

  for (guint i = 0; i < self->panels->len; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      if (panel->kind != PL_FIGURE_HEATMAP || panel->own_scale)
        continue;
      any = TRUE;
      if (isfinite (panel->data_min))
        {
          a = MIN (a, panel->data_min);
          b = MAX (b, panel->data_max);
        }
    }
  if (!any)
    return FALSE;
  if (!isfinite (a))
    a = 0, b = 1;
  if (self->colormap == PL_COLORMAP_DIVERGING)
    {
      double m = MAX (fabs (a), fabs (b));
      a = -m;
      b = m;
    }
  if (!isnan (self->vmin))
    a = self->vmin;
  if (!isnan (self->vmax))
    b = self->vmax;
  *lo = a;
  *hi = b;
  return TRUE;
}

/* Panels coloured by a value, which a colour bar explains. */
static gboolean
is_coloured (PlFigure *panel)
{
  return panel->kind == PL_FIGURE_HEATMAP || panel->kind == PL_FIGURE_TRAJECTORY ||
         panel->kind == PL_FIGURE_TRAJECTORY_3D;
}

/* Draws panel I in R (in the multiples' units) with the figure's look: a
 * shared panel on the shared scale, with no bar (GRID_BAR), the room for
 * one, or, last of its row's shared panels, the shared bar itself. */
static void
render_panel (PlFigure                *self,
              PlDraw                  *draw,
              guint                    i,
              guint                    columns,
              gboolean                 grid_bar,
              const cairo_rectangle_t *r)
{
  PlFigure *panel = g_ptr_array_index (self->panels, i);
  guint n = self->panels->len, row = i / columns;
  double saved_min = panel->vmin, saved_max = panel->vmax;
  char *saved_label = panel->value_label;

  panel->dark = self->dark;
  pl_figure_set_font (panel, self->font_family, self->font_size);
  panel->panel_bar = PL_PANEL_BAR_OWN;
  if (!panel->own_scale && is_coloured (panel))
    {
      gboolean last_in_row = TRUE;

      /* Shared panels follow the whole figure's look and scale. */
      panel->colormap = self->colormap;
      panel->reversed = self->reversed;
      if (panel->kind == PL_FIGURE_HEATMAP)
        {
          panel->vmin = self->shared_lo;
          panel->vmax = self->shared_hi;
        }
      for (guint j = i + 1; j < (row + 1) * columns && j < n; j++)
        {
          PlFigure *next = g_ptr_array_index (self->panels, j);

          if (!next->own_scale && is_coloured (next))
            last_in_row = FALSE;
        }
      if (grid_bar)
        panel->panel_bar = PL_PANEL_BAR_NONE;
      else
        {
          /* The room is measured with the shared bar's title. */
          panel->panel_bar = last_in_row ? PL_PANEL_BAR_OWN : PL_PANEL_BAR_ROOM;
          panel->value_label = self->value_label;
        }
    }
  panel->slack_x = panel->slack_y = 0;
  pl_figure_render_panel (panel, draw, (int) i, r);
  panel->vmin = saved_min;
  panel->vmax = saved_max;
  panel->value_label = saved_label;
  panel->panel_bar = PL_PANEL_BAR_OWN;
}

/* Cell I of the grid: its column's and row's place, a short last row centred. */
static cairo_rectangle_t
cell_rect (guint         i,
           guint         n,
           guint         columns,
           const double *column_x,
           const double *row_y)
{
  guint row = i / columns, column = i % columns;
  guint in_row = MIN (columns, n - row * columns);
  double shift = (column_x[columns] - column_x[in_row]) / 2;

  return (cairo_rectangle_t) { column_x[column] + shift, row_y[row],
                               column_x[column + 1] - column_x[column], row_y[row + 1] - row_y[row] };
}

/* What the grid needs before it places its panels: the shared colour
 * range, whether one bar beside the grid serves every panel, the room above
 * for the title and beside for that bar, and the room the panels' own
 * labels and bars take around their plots (the most any panel needs). */
typedef struct
{
  double   lo, hi;
  gboolean grid_bar;
  double   top;
  double   right;
  double   room_w;
  double   room_h;
} Frame;

/* Each panel is measured in a square cell this many times the text size. */
#define NOMINAL_CELL 40.0

static void
measure_frame (PlFigure                *self,
               PlDraw                  *draw,
               const cairo_rectangle_t *area,
               Frame                   *frame)
{
  guint n = self->panels->len;
  double title_h = pl_draw_title_height (draw, area->width - 2 * GAP), side = NOMINAL_CELL * self->font_size;
  gboolean has_shared = FALSE, any_own = FALSE;
  PlFigure *first = NULL;
  cairo_surface_t *scratch;
  cairo_t *cr;
  PlDraw measure;

  frame->lo = 0;
  frame->hi = 1;
  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      any_own = any_own || panel->own_scale;
      if (first == NULL && !panel->own_scale)
        first = panel;
    }
  if (shared_range (self, &frame->lo, &frame->hi))
    has_shared = TRUE;
  else if (first != NULL && (first->kind == PL_FIGURE_TRAJECTORY || first->kind == PL_FIGURE_TRAJECTORY_3D))
    {
      pl_figure_value_range (first, &frame->lo, &frame->hi);
      has_shared = TRUE;
    }
  self->shared_lo = frame->lo;
  self->shared_hi = frame->hi;
  /* One bar right of the grid when every panel reads it; else one per row. */
  frame->grid_bar = has_shared && !any_own;
  frame->top = title_h > 0 ? GAP + title_h + GAP : 0;
  frame->right = 0;
  if (frame->grid_bar)
    {
      cairo_rectangle_t probe = { 0, 0, BAR_WIDTH, MAX (area->height - frame->top, 10) };

      frame->right = BAR_GAP + pl_draw_colorbar (draw, &probe, frame->lo, frame->hi, TRUE) + GAP;
    }

  if (self->grid_cache == NULL)
    self->grid_cache = g_new0 (PlGridCache, 1);
  if (self->grid_cache->font_size == self->font_size &&
      g_strcmp0 (self->grid_cache->font_family, self->font_family) == 0)
    {
      frame->room_w = self->grid_cache->room_w;
      frame->room_h = self->grid_cache->room_h;
      return;
    }

  /* Each panel alone in a large square cell, its bar as the grid would give it. */
  scratch = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cr = cairo_create (scratch);
  pl_draw_init (&measure, self, cr, NULL);
  frame->room_w = frame->room_h = 0;
  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      render_panel (self, &measure, i, 1, frame->grid_bar, &(cairo_rectangle_t) { 0, 0, side, side });
      frame->room_w = MAX (frame->room_w, side - panel->plot_area.width - panel->slack_x);
      frame->room_h = MAX (frame->room_h, side - panel->plot_area.height - panel->slack_y);
    }
  pl_draw_clear (&measure);
  cairo_destroy (cr);
  cairo_surface_destroy (scratch);
  self->grid_cache->font_size = self->font_size;
  g_free (self->grid_cache->font_family);
  self->grid_cache->font_family = g_strdup (self->font_family);
  self->grid_cache->room_w = frame->room_w;
  self->grid_cache->room_h = frame->room_h;
}

/* The side of the square plots of a grid of COLUMNS in WIDTH × HEIGHT. */
static double
plot_side (PlFigure    *self,
           const Frame *frame,
           guint        columns,
           double       width,
           double       height)
{
  guint n = MAX (self->panels->len, 1), rows = (n + columns - 1) / columns;

  return MIN (width / columns - frame->room_w, height / rows - frame->room_h);
}

/* The number of columns whose panels get the largest square plot in
 * WIDTH × HEIGHT; ties go to fewer columns (a square grid before a long row). */
static guint
best_columns (PlFigure    *self,
              const Frame *frame,
              double       width,
              double       height)
{
  guint n = MAX (self->panels->len, 1), best = 1;
  double best_side = -INFINITY;

  for (guint columns = 1; columns <= n; columns++)
    {
      double side = plot_side (self, frame, columns, width, height);

      if (side > best_side + 0.5)
        {
          best_side = side;
          best = columns;
        }
    }
  return best;
}

double
pl_figure_multiples_preferred_height (PlFigure *self,
                                      PlDraw   *draw,
                                      double    width,
                                      double    caption_h)
{
  guint n = MAX (self->panels->len, 1), chosen = n;
  cairo_rectangle_t area = { 0, 0, width, PL_FIGURE_PAGE_HEIGHT_PT };
  double avail_w, height = 0;
  Frame frame;

  measure_frame (self, draw, &area, &frame);
  avail_w = MAX (width - frame.right, 1);
  /* The fewest columns, the largest plots, that keep the figure on a page;
   * then the fewest columns that need no more rows than that. */
  for (guint columns = 1; columns <= n; columns++)
    {
      guint rows = (n + columns - 1) / columns;
      double side = MAX (avail_w / columns - frame.room_w, 1);

      height = frame.top + rows * (side + frame.room_h) + caption_h;
      if (height <= PL_FIGURE_PAGE_HEIGHT_PT || columns == n)
        {
          chosen = columns;
          break;
        }
    }
  for (guint columns = 1; columns < chosen; columns++)
    if ((n + columns - 1) / columns == (n + chosen - 1) / chosen)
      {
        chosen = columns;
        break;
      }
  if (self->n_columns > 0)
    chosen = MIN (self->n_columns, n);
  {
    guint rows = (n + chosen - 1) / chosen;
    double side = MAX (avail_w / chosen - frame.room_w, 1);

    /* A point more than the plots need, so the grid is theirs at this height. */
    return ceil (frame.top + rows * (side + frame.room_h) + caption_h) + 1;
  }
}

/* Every panel takes the margins of its column and its row. */
static void
set_floors (PlFigure     *self,
            guint         columns,
            const double *margin)
{
  for (guint i = 0; i < self->panels->len; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);
      guint c = i % columns, r = i / columns;

      panel->margin_floor[0] = margin[2 * c];
      panel->margin_floor[2] = margin[2 * c + 1];
      panel->margin_floor[1] = margin[2 * columns + 2 * r];
      panel->margin_floor[3] = margin[2 * columns + 2 * r + 1];
    }
}

/* Renders every panel into its cell (drawn or, with DRAW's layout NULL,
 * only measured). */
static void
render_cells (PlFigure     *self,
              PlDraw       *draw,
              guint         columns,
              gboolean      grid_bar,
              const double *column_x,
              const double *row_y)
{
  guint n = self->panels->len;

  for (guint i = 0; i < n; i++)
    {
      cairo_rectangle_t r = cell_rect (i, n, columns, column_x, row_y);

      render_panel (self, draw, i, columns, grid_bar, &r);
    }
}

/* One size for the panels' titles: the largest, up to 1.2 × the text size,
 * at which each fits its cell on one line, but not below the tick labels'
 * (a title that needs less wraps). TRUE when it changed. */
static gboolean
set_title_size (PlFigure     *self,
                PlDraw       *draw,
                guint         columns,
                const double *column_w)
{
  double size = self->font_size * 1.2;
  gboolean changed = FALSE;

  for (guint i = 0; i < self->panels->len; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);
      double w;

      if (panel->title == NULL || panel->title[0] == '\0')
        continue;
      pl_draw_text_size (draw, panel->title, self->font_size * 1.2, PL_TEXT_BOLD, &w, NULL);
      /* A little short of the cell, which a face's rounding may need. */
      size = MIN (size, 0.97 * self->font_size * 1.2 * (column_w[i % columns] - 2 * GAP) / MAX (w, 1));
    }
  size = MAX (size, pl_figure_tick_size (self));
  for (guint i = 0; i < self->panels->len; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      changed = changed || fabs (panel->title_size - size) > 0.01;
      panel->title_size = size;
    }
  return changed;
}

/* Column I's and row I's edges from their sizes, the grid centred in AREA
 * below TOP and left of RIGHT. */
static void
place_grid (const cairo_rectangle_t *area,
            const Frame             *frame,
            guint                    columns,
            guint                    rows,
            const double            *column_w,
            const double            *row_h,
            double                  *column_x,
            double                  *row_y)
{
  double used_w = 0, used_h = 0;

  for (guint c = 0; c < columns; c++)
    used_w += column_w[c];
  for (guint r = 0; r < rows; r++)
    used_h += row_h[r];
  column_x[0] = area->x + (area->width - frame->right - used_w) / 2;
  for (guint c = 0; c < columns; c++)
    column_x[c + 1] = column_x[c] + column_w[c];
  row_y[0] = area->y + frame->top + (area->height - frame->top - used_h) / 2;
  for (guint r = 0; r < rows; r++)
    row_y[r + 1] = row_y[r] + row_h[r];
}

void
pl_figure_multiples_render (PlFigure                *self,
                            PlDraw                  *draw,
                            const cairo_rectangle_t *area)
{
  guint n = self->panels->len;
  double avail_w, avail_h;
  guint columns, rows;
  g_autofree double *column_x = NULL;
  g_autofree double *column_w = NULL;
  g_autofree double *row_y = NULL;
  g_autofree double *row_h = NULL;
  g_autofree double *margin = NULL;   /* left and right of each column, top and bottom of each row */
  PlGridCache *cache;
  Frame frame;

  measure_frame (self, draw, area, &frame);
  avail_w = MAX (area->width - frame.right, 1);
  avail_h = MAX (area->height - frame.top, 1);
  columns = self->n_columns > 0 ? self->n_columns : best_columns (self, &frame, avail_w, avail_h);
  columns = MIN (columns, MAX (n, 1));
  rows = (MAX (n, 1) + columns - 1) / columns;

  column_x = g_new0 (double, columns + 1);
  column_w = g_new0 (double, columns);
  row_y = g_new0 (double, rows + 1);
  row_h = g_new0 (double, rows);
  margin = g_new0 (double, 2 * columns + 2 * rows);
  cache = self->grid_cache;
  if (cache->margin != NULL && cache->columns == columns && cache->rows == rows &&
      cache->width == avail_w && cache->height == avail_h)
    {
      /* The last frame's grid, to be checked rather than found again. */
      memcpy (margin, cache->margin, (2 * columns + 2 * rows) * sizeof (double));
      memcpy (column_w, cache->column_w, columns * sizeof (double));
      memcpy (row_h, cache->row_h, rows * sizeof (double));
      for (guint i = 0; i < n; i++)
        ((PlFigure *) g_ptr_array_index (self->panels, i))->title_size = cache->title_size;
    }
  else
    {
      for (guint c = 0; c < columns; c++)
        column_w[c] = avail_w / columns;
      for (guint r = 0; r < rows; r++)
        row_h[r] = avail_h / rows;
    }
  place_grid (area, &frame, columns, rows, column_w, row_h, column_x, row_y);

  /* Passes drawn nowhere find the margins each panel's labels and bars
   * need; each column takes the widest of its panels' left and right
   * margins, each row the tallest top and bottom, every panel those of its
   * column and row, and the plots are squares of one size: the largest
   * the margins leave room for. Narrower cells can wrap a title and ask
   * for more: the passes go on until the margins settle (a single pass
   * when the last frame's grid still holds). */
  if (n > 0)
    {
      cairo_surface_t *scratch = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
      cairo_t *cr = cairo_create (scratch);
      g_autofree double *need = g_new (double, 2 * columns + 2 * rows);
      PlDraw measure;

      pl_draw_init (&measure, self, cr, NULL);
      for (guint pass = 0; pass < 4; pass++)
        {
          gboolean changed = FALSE;
          double side, sum_w = 0, sum_h = 0;

          set_floors (self, columns, margin);
          render_cells (self, &measure, columns, frame.grid_bar, column_x, row_y);
          /* From the second pass on, margins only grow, so the passes end. */
          if (pass == 0)
            memset (need, 0, (2 * columns + 2 * rows) * sizeof (double));
          else
            memcpy (need, margin, (2 * columns + 2 * rows) * sizeof (double));
          for (guint i = 0; i < n; i++)
            {
              PlFigure *panel = g_ptr_array_index (self->panels, i);
              double own[4] = { panel->margins[0], panel->margins[2], panel->margins[1], panel->margins[3] };
              guint slot[4] = { 2 * (i % columns), 2 * (i % columns) + 1,
                                2 * columns + 2 * (i / columns), 2 * columns + 2 * (i / columns) + 1 };

              for (guint k = 0; k < 4; k++)
                need[slot[k]] = MAX (need[slot[k]], own[k]);
            }
          for (guint k = 0; k < 2 * columns + 2 * rows; k++)
            changed = changed || fabs (need[k] - margin[k]) > 0.01;
          memcpy (margin, need, (2 * columns + 2 * rows) * sizeof (double));
          for (guint c = 0; c < columns; c++)
            sum_w += margin[2 * c] + margin[2 * c + 1];
          for (guint r = 0; r < rows; r++)
            sum_h += margin[2 * columns + 2 * r] + margin[2 * columns + 2 * r + 1];
          side = MAX (MIN ((avail_w - sum_w) / columns, (avail_h - sum_h) / rows), 1);
          /* Width the plots cannot use (a grid of short rows) goes to the
           * cells, where titles may use it. */
          for (guint c = 0; c < columns; c++)
            column_w[c] = side + margin[2 * c] + margin[2 * c + 1] + MAX (avail_w - sum_w - side * columns, 0) / columns;
          for (guint r = 0; r < rows; r++)
            row_h[r] = side + margin[2 * columns + 2 * r] + margin[2 * columns + 2 * r + 1];
          place_grid (area, &frame, columns, rows, column_w, row_h, column_x, row_y);
          if (set_title_size (self, &measure, columns, column_w))
            changed = TRUE;
          if (!changed)
            break;
        }
      set_floors (self, columns, margin);
      pl_draw_clear (&measure);
      cairo_destroy (cr);
      cairo_surface_destroy (scratch);
    }
  cache->width = avail_w;
  cache->height = avail_h;
  cache->columns = columns;
  cache->rows = rows;
  cache->title_size = n > 0 ? ((PlFigure *) g_ptr_array_index (self->panels, 0))->title_size : 0;
  g_free (cache->margin);
  g_free (cache->column_w);
  g_free (cache->row_h);
  cache->margin = g_memdup2 (margin, (2 * columns + 2 * rows) * sizeof (double));
  cache->column_w = g_memdup2 (column_w, columns * sizeof (double));
  cache->row_h = g_memdup2 (row_h, rows * sizeof (double));

  g_array_set_size (self->panel_areas, n);
  for (guint i = 0; i < n; i++)
    {
      cairo_rectangle_t r = cell_rect (i, n, columns, column_x, row_y);

      render_panel (self, draw, i, columns, frame.grid_bar, &r);
      g_array_index (self->panel_areas, cairo_rectangle_t, i) = r;
    }
  for (guint i = 0; i < n; i++)
    {
      PlFigure *panel = g_ptr_array_index (self->panels, i);

      memset (panel->margin_floor, 0, sizeof panel->margin_floor);
      panel->title_size = 0;
    }

  /* The grid's plot area: from the first panel's plot to the last row's. */
  if (n > 0)
    {
      PlFigure *first_panel = g_ptr_array_index (self->panels, 0);
      const cairo_rectangle_t *r0 = &g_array_index (self->panel_areas, cairo_rectangle_t, 0);
      double y0 = r0->y + first_panel->plot_area.y;
      PlFigure *last_row = g_ptr_array_index (self->panels, (rows - 1) * columns);
      const cairo_rectangle_t *rl = &g_array_index (self->panel_areas, cairo_rectangle_t, (rows - 1) * columns);
      double y1 = rl->y + last_row->plot_area.y + last_row->plot_area.height;

      self->plot_area = (cairo_rectangle_t) { column_x[0], y0, column_x[columns] - column_x[0], y1 - y0 };
      pl_draw_title (draw, (column_x[0] + column_x[columns]) / 2, row_y[0] - GAP,
                     area->x + GAP, area->x + area->width - GAP);
      if (frame.grid_bar)
        {
          cairo_rectangle_t bar = { column_x[columns] + BAR_GAP - GAP, y0, BAR_WIDTH, y1 - y0 };

          pl_draw_colorbar (draw, &bar, frame.lo, frame.hi, FALSE);
          self->colorbar_area = bar;
          self->has_colorbar = TRUE;
        }
    }
}
