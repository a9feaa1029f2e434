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

/* What the table takes at its font size: each column's width (the names
 * first), the row height, the table's width and the whole size with the
 * title. */
typedef struct
{
  double *widths;
  double  row_h;
  double  table_w;
  double  total_w;
  double  total_h;
  double  title_h;
} TableSize;

static void
measure (PlFigure  *self,
         PlDraw    *draw,
         TableSize *size)
{
  guint n_cols = g_strv_length (self->columns), n_rows = self->rows->len;
  double font = self->font_size, text_h, total_w = 0;

  size->widths = g_new0 (double, n_cols + 1);
  pl_draw_text_size (draw, "Ag", font, 0, NULL, &text_h);
  size->row_h = text_h * 1.7;
  size->title_h = pl_draw_title_height (draw);

  /* Column widths from their widest text: names, then one per probe. */
  for (guint r = 0; r < n_rows; r++)
    {
      PlTableRow *row = g_ptr_array_index (self->rows, r);
      double w;

      pl_draw_text_size (draw, row->name, font, 0, &w, NULL);
      size->widths[0] = MAX (size->widths[0], w);
      for (guint c = 0; c < n_cols; c++)
        {
          g_autofree char *text = format_value (row, c);

          pl_draw_text_size (draw, text, font, 0, &w, NULL);
          size->widths[c + 1] = MAX (size->widths[c + 1], w);
        }
    }
  for (guint c = 0; c < n_cols; c++)
    {
      double w;

      pl_draw_text_size (draw, self->columns[c], font, PL_TEXT_BOLD, &w, NULL);
      size->widths[c + 1] = MAX (size->widths[c + 1], w);
    }
  for (guint c = 0; c <= n_cols; c++)
    total_w += size->widths[c] += 2 * PAD_X;
  size->table_w = total_w;
  size->total_h = size->row_h * (n_rows + 1) + (size->title_h > 0 ? size->title_h + GAP : 0);
  if (size->title_h > 0)
    {
      double title_w;

      pl_draw_text_size (draw, self->title, self->font_size * 1.2, PL_TEXT_BOLD, &title_w, NULL);
      total_w = MAX (total_w, title_w);
    }
  size->total_w = total_w;
}

void
pl_figure_table_natural_size (PlFigure *self,
                              PlDraw   *draw,
                              double   *width,
                              double   *height)
{
  TableSize size;

  measure (self, draw, &size);
  *width = size.total_w + 2 * GAP;
  *height = size.total_h + 2 * GAP;
  g_free (size.widths);
}

void
pl_figure_table_render (PlFigure                *self,
                        PlDraw                  *draw,
                        const cairo_rectangle_t *area)
{
  cairo_t *cr = draw->cr;
  guint n_cols = g_strv_length (self->columns), n_rows = self->rows->len;
  TableSize size;
  g_autofree double *widths = NULL;
  double size_pt = self->font_size, row_h, total_w, table_w, total_h, title_h, scale, x0, y0;
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

  measure (self, draw, &size);
  widths = size.widths;
  row_h = size.row_h;
  total_w = size.total_w;
  table_w = size.table_w;
  total_h = size.total_h;
  title_h = size.title_h;

  /* Shrink to fit, never enlarge: the text stays at its size in points when there is room. */
  scale = MIN (1, MIN ((area->width - 2 * GAP) / total_w, (area->height - 2 * GAP) / total_h));
  scale = MAX (scale, 0.05);
  x0 = area->x + (area->width - total_w * scale) / 2;
  y0 = area->y + (area->height - total_h * scale) / 2;

  cairo_save (cr);
  cairo_translate (cr, x0, y0);
  cairo_scale (cr, scale, scale);
  if (title_h > 0)
    {
      pl_draw_title (draw, total_w / 2, title_h, 0, total_w);
      cairo_translate (cr, (total_w - table_w) / 2, title_h + GAP);
    }

  /* Header. */
  {
    double x = widths[0];

    for (guint c = 0; c < n_cols; c++)
      {
        pl_draw_text (draw, self->columns[c], size_pt, PL_TEXT_BOLD, draw->fg,
                      x + widths[c + 1] / 2, row_h / 2, 0.5, 0.5, 0);
        x += widths[c + 1];
      }
  }

  for (guint r = 0; r < n_rows; r++)
    {
      PlTableRow *row = g_ptr_array_index (self->rows, r);
      double y = row_h * (r + 1), x = widths[0];

      pl_draw_text (draw, row->name, size_pt, 0, draw->fg, PAD_X, y + row_h / 2, 0, 0.5, 0);
      for (guint c = 0; c < n_cols; c++)
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
  cairo_move_to (cr, 0, row_h);
  cairo_line_to (cr, table_w, row_h);
  cairo_stroke (cr);
  cairo_restore (cr);

  self->plot_area = (cairo_rectangle_t) { x0 + (total_w - table_w) / 2 * scale,
                                          y0 + (title_h > 0 ? (title_h + GAP) * scale : 0),
                                          table_w * scale, row_h * (n_rows + 1) * scale };
}
