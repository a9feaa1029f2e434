/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-figure-private.h"

/* The probe table: one row per model or layer, one column per probe, each
 * value printed in a cell shaded by the colour map. Columns are different
 * measures (an error in positions, an error rate), so each is shaded over its
 * own range unless pl_figure_set_range fixes one for all. */

#define GAP     6.0
#define PAD_X   8.0

static void
row_free (gpointer data)
{
  PlTableRow *row = data;

  g_free (row->name);
  g_free (row->values);
  g_free (row->intervals);
  g_free (row);
}

PlFigure *
pl_figure_new_table (const char * const *columns)
{
  PlFigure *self;

  g_return_val_if_fail (columns != NULL, NULL);

  self = pl_figure_new_kind (PL_FIGURE_TABLE);
  self->columns = g_strdupv ((char **) columns);
  self->rows = g_ptr_array_new_with_free_func (row_free);

  return self;
}

void
pl_figure_add_row_with_intervals (PlFigure     *self,
                                  const char   *name,
                                  const double *values,
                                  const double *half_widths)
{
  PlTableRow *row;
  gsize n;

  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_TABLE);
  g_return_if_fail (values != NULL);

  n = g_strv_length (self->columns);
  row = g_new0 (PlTableRow, 1);
  row->name = g_strdup (name != NULL ? name : "");
  row->values = g_memdup2 (values, n * sizeof (double));
  row->intervals = half_widths ? g_memdup2 (half_widths, n * sizeof (double)) : NULL;
  g_ptr_array_add (self->rows, row);
}

void
pl_figure_add_row (PlFigure     *self,
                   const char   *name,
                   const double *values)
{
  pl_figure_add_row_with_intervals (self, name, values, NULL);
}

void
pl_figure_set_table_breaks (PlFigure    *self,
                            const guint *starts,
                            guint        n_starts)
{
  guint n_cols;

  g_return_if_fail (PL_IS_FIGURE (self));
  g_return_if_fail (self->kind == PL_FIGURE_TABLE);
  g_return_if_fail (starts != NULL || n_starts == 0);

  n_cols = g_strv_length (self->columns);
  self->table_breaks = 0;
  for (guint i = 0; i < n_starts; i++)
    if (starts[i] > 0 && starts[i] < MIN (n_cols, 32))
      self->table_breaks |= 1u << starts[i];
}

static char *
format_number (double v)
{
  if (v < 0)
    return g_strdup_printf ("\xe2\x88\x92%.3f", -v);
  return g_strdup_printf ("%.3f", v);
}

/* "0.068", "0.068 ± 0.012" or "—". */
static char *
format_value (const PlTableRow *row,
              guint             c)
{
  g_autofree char *mean = NULL;
  g_autofree char *half = NULL;

  if (isnan (row->values[c]))
    return g_strdup ("—");
  mean = format_number (row->values[c]);
  if (row->intervals == NULL || isnan (row->intervals[c]))
    return g_steal_pointer (&mean);
  half = format_number (row->intervals[c]);
  return g_strdup_printf ("%s \xc2\xb1 %s", mean, half);
}

/* How much of the table's text may break onto a second line, at a space,
 * to make it narrower: nothing, the column headers, or those and the
 * names of the rows. */
typedef enum
{
  WRAP_NONE,
  WRAP_HEADERS,
  WRAP_NAMES,
  N_WRAPS
} Wrap;

/* What the table takes at its font size: each column's width (the names
 * first) and the rows' heights with text wrapped as WRAP says, and, for
 * the blocks it is laid out in (bit c of STARTS: a block starts at column
 * c), the widest block's width, the whole size with the title and the
 * scale that fits it in the space given. */
typedef struct
{
  Wrap     wrap;
  double  *widths;
  double   text_h;
  double   head_h;
  double   row_h;
  double   title_h;
  guint32  starts;
  guint    n_blocks;
  double   block_h;
  double   table_w;
  double   total_w;
  double   total_h;
  double   scale;
} TableSize;

/* TEXT in two lines broken at the space that makes the wider one narrowest;
 * FALSE (and nothing set) when it has no space. */
static gboolean
split_lines (PlDraw      *draw,
             const char  *text,
             double       size,
             PlTextFlags  flags,
             char       **first,
             char       **second)
{
  double best = INFINITY;

  *first = *second = NULL;
  for (const char *p = strchr (text, ' '); p != NULL; p = strchr (p + 1, ' '))
    {
      g_autofree char *a = g_strndup (text, p - text);
      double wa, wb;

      pl_draw_text_size (draw, a, size, flags, &wa, NULL);
      pl_draw_text_size (draw, p + 1, size, flags, &wb, NULL);
      if (MAX (wa, wb) < best)
        {
          best = MAX (wa, wb);
          g_free (*first);
          g_free (*second);
          *first = g_steal_pointer (&a);
          *second = g_strdup (p + 1);
        }
    }
  return *first != NULL;
}

/* The width TEXT takes, on two lines when WRAPPED and it can break. */
static double
text_width (PlDraw      *draw,
            const char  *text,
            double       size,
            PlTextFlags  flags,
            gboolean     wrapped)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  double w, w2;

  if (wrapped && split_lines (draw, text, size, flags, &first, &second))
    {
      pl_draw_text_size (draw, first, size, flags, &w, NULL);
      pl_draw_text_size (draw, second, size, flags, &w2, NULL);
      return MAX (w, w2);
    }
  pl_draw_text_size (draw, text, size, flags, &w, NULL);
  return w;
}

/* TEXT at (X, Y) anchored at (AX, 0.5) of its box, on two lines when WRAPPED
 * and it can break. */
static void
draw_cell_text (PlDraw       *draw,
                const char   *text,
                double        size,
                PlTextFlags   flags,
                const double  rgb[3],
                double        x,
                double        y,
                double        ax,
                gboolean      wrapped)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  if (wrapped && split_lines (draw, text, size, flags, &first, &second))
    {
      pl_draw_text (draw, first, size, flags, rgb, x, y, ax, 1, 0);
      pl_draw_text (draw, second, size, flags, rgb, x, y, ax, 0, 0);
      return;
    }
  pl_draw_text (draw, text, size, flags, rgb, x, y, ax, 0.5, 0);
}

static void
measure (PlFigure  *self,
         PlDraw    *draw,
         Wrap       wrap,
         TableSize *size)
{
  guint n_cols = g_strv_length (self->columns), n_rows = self->rows->len;
  double font = self->font_size;
  gboolean names_wrap = FALSE, heads_wrap = FALSE;

  size->wrap = wrap;
  g_free (size->widths);
  size->widths = g_new0 (double, n_cols + 1);
  pl_draw_text_size (draw, "Ag", font, 0, NULL, &size->text_h);

  /* Column widths from their widest text: names, then one per probe. */
  for (guint r = 0; r < n_rows; r++)
    {
      PlTableRow *row = g_ptr_array_index (self->rows, r);

      size->widths[0] = MAX (size->widths[0], text_width (draw, row->name, font, 0, wrap >= WRAP_NAMES));
      names_wrap = names_wrap || (wrap >= WRAP_NAMES && strchr (row->name, ' ') != NULL);
      for (guint c = 0; c < n_cols; c++)
        {
          g_autofree char *text = format_value (row, c);

          size->widths[c + 1] = MAX (size->widths[c + 1], text_width (draw, text, font, 0, FALSE));
        }
    }
  for (guint c = 0; c < n_cols; c++)
    {
      size->widths[c + 1] = MAX (size->widths[c + 1],
                                 text_width (draw, self->columns[c], font, PL_TEXT_BOLD, wrap >= WRAP_HEADERS));
      heads_wrap = heads_wrap || (wrap >= WRAP_HEADERS && strchr (self->columns[c], ' ') != NULL);
    }
  for (guint c = 0; c <= n_cols; c++)
    size->widths[c] += 2 * PAD_X;
  size->head_h = size->text_h * (heads_wrap ? 2.7 : 1.7);
  size->row_h = size->text_h * (names_wrap ? 2.7 : 1.7);
  size->block_h = size->head_h + size->row_h * n_rows;
}

/* Lays the columns out in the blocks STARTS gives (bit 0 always set), the
 * title wrapped over the table's width (or the page's, when wider), and
 * the scale that fits them in WIDTH × HEIGHT (at most 1). */
static void
lay_out (PlFigure  *self,
         PlDraw    *draw,
         TableSize *size,
         guint32    starts,
         double     width,
         double     height)
{
  guint n_cols = g_strv_length (self->columns);
  double block_w = size->widths[0];

  size->starts = starts | 1;
  size->n_blocks = 0;
  size->table_w = 0;
  for (guint c = 0; c < n_cols; c++)
    {
      if (size->starts & (1u << c))
        {
          size->n_blocks++;
          block_w = size->widths[0];
        }
      block_w += size->widths[c + 1];
      size->table_w = MAX (size->table_w, block_w);
    }
  size->n_blocks = MAX (size->n_blocks, 1);
  size->table_w = MAX (size->table_w, size->widths[0]);
  size->total_w = size->table_w;
  if (self->title != NULL && self->title[0] != '\0')
    {
      double title_w;

      pl_draw_text_size (draw, self->title, self->font_size * 1.2, PL_TEXT_BOLD, &title_w, NULL);
      size->total_w = MAX (size->table_w, MIN (title_w, width - 2 * GAP));
    }
  size->title_h = pl_draw_title_height (draw, size->total_w);
  size->total_h = size->n_blocks * size->block_h + (size->n_blocks - 1) * 2 * GAP +
                  (size->title_h > 0 ? size->title_h + GAP : 0);
  /* Shrink to fit, never enlarge: the text stays at its size in points when there is room. */
  size->scale = MIN (1, MIN ((width - 2 * GAP) / size->total_w, (height - 2 * GAP) / size->total_h));
  size->scale = MAX (size->scale, 0.05);
}

/* Of the ways to wrap the table's text and its columns at their breaks,
 * the one drawn largest in WIDTH × HEIGHT; among equals the least wrapped
 * text, then the fewest blocks, then the earliest breaks (the first
 * columns stay together in the first block). */
static void
lay_out_best (PlFigure  *self,
              PlDraw    *draw,
              TableSize *size,
              double     width,
              double     height)
{
  guint32 best = 0;
  double best_scale = -1;
  guint best_blocks = G_MAXUINT;
  Wrap best_wrap = WRAP_NONE;

  for (Wrap wrap = WRAP_NONE; wrap < N_WRAPS; wrap++)
    {
      measure (self, draw, wrap, size);
      /* Every subset of the breaks: a handful of columns, so a few layouts. */
      for (guint32 subset = self->table_breaks;; subset = (subset - 1) & self->table_breaks)
        {
          lay_out (self, draw, size, subset, width, height);
          if (size->scale > best_scale + 1e-9 ||
              (size->scale > best_scale - 1e-9 && wrap == best_wrap &&
               (size->n_blocks < best_blocks || (size->n_blocks == best_blocks && subset < best))))
            {
              best = subset;
              best_scale = size->scale;
              best_blocks = size->n_blocks;
              best_wrap = wrap;
            }
          if (subset == 0)
            break;
        }
    }
  measure (self, draw, best_wrap, size);
  lay_out (self, draw, size, best, width, height);
}

/* The table's natural size, its caption wrapped at WIDTH when WIDTH > 0,
 * else at the table's own natural width. */
static gboolean
natural_size (PlFigure *self,
              double    width,
              double   *width_pt,
              double   *height_pt)
{
  cairo_surface_t *scratch;
  cairo_t *cr;
  PlDraw draw;
  TableSize size = { 0 };
  double w, h;

  if (self->kind != PL_FIGURE_TABLE)
    return FALSE;
  /* Text is measured in points whatever the surface: a scratch one will do. */
  scratch = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cr = cairo_create (scratch);
  pl_draw_init (&draw, self, cr, NULL);
  if (width > 0)
    {
      /* As it would be laid out at that width, its text at full size where it can be. */
      lay_out_best (self, &draw, &size, width, G_MAXDOUBLE);
      w = width;
      h = size.total_h * size.scale;
    }
  else
    {
      /* In one block, nothing wrapped. */
      measure (self, &draw, WRAP_NONE, &size);
      lay_out (self, &draw, &size, 0, G_MAXDOUBLE, G_MAXDOUBLE);
      w = size.total_w + 2 * GAP;
      h = size.total_h;
    }
  h += 2 * GAP + pl_figure_caption_room (self, &draw, w, NULL);
  g_free (size.widths);
  pl_draw_clear (&draw);
  cairo_destroy (cr);
  cairo_surface_destroy (scratch);
  if (width_pt)
    *width_pt = w;
  if (height_pt)
    *height_pt = h;
  return TRUE;
}

gboolean
pl_figure_get_natural_size (PlFigure *self,
                            double   *width_pt,
                            double   *height_pt)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);

  return natural_size (self, 0, width_pt, height_pt);
}

gboolean
pl_figure_get_natural_height (PlFigure *self,
                              double    width_pt,
                              double   *height_pt)
{
  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);
  g_return_val_if_fail (width_pt > 0, FALSE);

  return natural_size (self, width_pt, NULL, height_pt);
}

/* The block of the table from column FIRST up to the next block's start,
 * at the origin, each column shaded over COL_LO[c]..COL_HI[c]. */
static void
render_block (PlFigure        *self,
              PlDraw          *draw,
              const TableSize *size,
              guint            first,
              const double    *col_lo,
              const double    *col_hi)
{
  cairo_t *cr = draw->cr;
  guint n_cols = g_strv_length (self->columns), n_rows = self->rows->len;
  const double *widths = size->widths;
  double size_pt = self->font_size, row_h = size->row_h, head_h = size->head_h, x = widths[0];
  guint end = first + 1;

  while (end < n_cols && !(size->starts & (1u << end)))
    end++;
  end = MIN (end, n_cols);

  /* Header. */
  for (guint c = first; c < end; c++)
    {
      draw_cell_text (draw, self->columns[c], size_pt, PL_TEXT_BOLD, draw->fg, x + widths[c + 1] / 2, head_h / 2, 0.5,
                      size->wrap >= WRAP_HEADERS);
      x += widths[c + 1];
    }

  for (guint r = 0; r < n_rows; r++)
    {
      PlTableRow *row = g_ptr_array_index (self->rows, r);
      double y = head_h + row_h * r;

      x = widths[0];
      draw_cell_text (draw, row->name, size_pt, 0, draw->fg, PAD_X, y + row_h / 2, 0, size->wrap >= WRAP_NAMES);
      for (guint c = first; c < end; c++)
        {
          double v = row->values[c];
          double t = col_hi[c] > col_lo[c] ? (v - col_lo[c]) / (col_hi[c] - col_lo[c]) : 0.5;
          double rgb[3], text_rgb[3], luma;
          g_autofree char *text = format_value (row, c);

          pl_rgb_from_hex (pl_colormap_lookup (self->colormap, self->reversed, isnan (v) ? NAN : t), rgb);
          /* One value in the column: nothing to compare, so no colour either. */
          if (!(col_hi[c] > col_lo[c]) && !isnan (v))
            memcpy (rgb, draw->muted, sizeof rgb);
          pl_draw_set_rgb (draw, rgb);
          cairo_rectangle (cr, x + 1, y + 1, widths[c + 1] - 2, row_h - 2);
          cairo_fill (cr);
          /* Dark text on light cells and the other way round (Rec. 709 luma). */
          luma = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
          text_rgb[0] = text_rgb[1] = text_rgb[2] = luma > 0.5 ? 0.08 : 0.97;
          pl_draw_text (draw, text, size_pt, 0, text_rgb, x + widths[c + 1] / 2, y + row_h / 2, 0.5, 0.5, 0);
          x += widths[c + 1];
        }
    }

  /* A rule under the header, as in a printed table. */
  cairo_set_line_width (cr, 0.75);
  pl_draw_set_rgb (draw, draw->axis);
  cairo_move_to (cr, 0, head_h);
  cairo_line_to (cr, x, head_h);
  cairo_stroke (cr);
}

void
pl_figure_table_render (PlFigure                *self,
                        PlDraw                  *draw,
                        const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  guint n_cols = g_strv_length (self->columns), n_rows = self->rows->len;
  TableSize size = { 0 };
  g_autofree double *widths = NULL;
  double scale, x0, y0, title_h, stack_h;
  g_autofree double *col_lo = g_new (double, n_cols + 1);
  g_autofree double *col_hi = g_new (double, n_cols + 1);

  for (guint c = 0; c < n_cols; c++)
    {
      col_lo[c] = INFINITY;
      col_hi[c] = -INFINITY;
      for (guint r = 0; r < n_rows; r++)
        {
          double v = ((PlTableRow *) g_ptr_array_index (self->rows, r))->values[c];

          if (isfinite (v))
            {
              col_lo[c] = MIN (col_lo[c], v);
              col_hi[c] = MAX (col_hi[c], v);
            }
        }
      if (!isnan (self->vmin))
        col_lo[c] = self->vmin;
      if (!isnan (self->vmax))
        col_hi[c] = self->vmax;
    }

  lay_out_best (self, draw, &size, area->width, area->height);
  widths = size.widths;
  scale = size.scale;
  title_h = size.title_h;
  stack_h = size.n_blocks * size.block_h + (size.n_blocks - 1) * 2 * GAP;
  x0 = area->x + (area->width - size.total_w * scale) / 2;
  y0 = area->y + (area->height - size.total_h * scale) / 2;

  cairo_save (cr);
  cairo_translate (cr, x0, y0);
  cairo_scale (cr, scale, scale);
  if (title_h > 0)
    {
      pl_draw_title (draw, size.total_w / 2, title_h, 0, size.total_w);
      cairo_translate (cr, 0, title_h + GAP);
    }
  cairo_translate (cr, (size.total_w - size.table_w) / 2, 0);
  for (guint c = 0; c < MAX (n_cols, 1); c++)
    if (size.starts & (1u << c))
      {
        render_block (self, draw, &size, c, col_lo, col_hi);
        cairo_translate (cr, 0, size.block_h + 2 * GAP);
      }
  cairo_restore (cr);

  self->plot_area = (cairo_rectangle_t) { x0 + (size.total_w - size.table_w) / 2 * scale,
                                          y0 + (title_h > 0 ? (title_h + GAP) * scale : 0),
                                          size.table_w * scale, stack_h * scale };
}
