/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-figure-preset.h"
#include "pl-figure-private.h"

/* The export presets, one table for the window's export dialog and the
 * command line. Text sizes: 8 pt under a one-column figure (tick labels
 * 6.8 pt, the smallest a journal prints), 9 pt across the page, 16 pt on a
 * slide seen from the back of a room. */

static const PlFigurePresetInfo presets[PL_FIGURE_N_PRESETS] = {
  [PL_FIGURE_PRESET_ONE_COLUMN]  = { "3.3in", 3.3 * 72, 0, 8 },
  [PL_FIGURE_PRESET_TWO_COLUMNS] = { "7in", 7.0 * 72, 0, 9 },
  [PL_FIGURE_PRESET_SLIDE]       = { "slide", 10.0 * 72, 5.625 * 72, 16 },
};

/* A plot's usual proportions, as the command line's default 6 × 5 in. */
#define PLOT_ASPECT (5.0 / 6.0)

const PlFigurePresetInfo *
pl_figure_preset_get (PlFigurePreset preset)
{
  g_return_val_if_fail (preset < PL_FIGURE_N_PRESETS, NULL);

  return &presets[preset];
}

gboolean
pl_figure_preset_from_name (const char     *name,
                            PlFigurePreset *preset)
{
  for (guint i = 0; name != NULL && i < PL_FIGURE_N_PRESETS; i++)
    if (g_ascii_strcasecmp (name, presets[i].name) == 0)
      {
        if (preset != NULL)
          *preset = i;
        return TRUE;
      }
  return FALSE;
}

gboolean
pl_figure_parse_width (const char      *text,
                       double          *width_pt,
                       PlFigurePreset  *preset,
                       GError         **error)
{
  static const struct { const char *unit; double points; } units[] = {
    { "", 1 }, { "pt", 1 }, { "in", 72 }, { "cm", 72 / 2.54 }, { "mm", 72 / 25.4 },
  };
  PlFigurePreset found;
  char *end = NULL;
  double value;

  g_return_val_if_fail (text != NULL, FALSE);

  if (pl_figure_preset_from_name (text, &found))
    {
      *width_pt = presets[found].width;
      if (preset != NULL)
        *preset = found;
      return TRUE;
    }
  value = g_ascii_strtod (text, &end);
  for (guint i = 0; end != text && i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (end, units[i].unit) == 0 && value > 0 && isfinite (value))
      {
        *width_pt = value * units[i].points;
        if (preset != NULL)
          *preset = PL_FIGURE_N_PRESETS;
        return TRUE;
      }
  g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
               "--width wants 3.3in, 7in, slide or a length like 300pt, 5in or 8.5cm, not “%s”", text);
  return FALSE;
}

/* Kinds whose plot is square: a matrix of cells, a grid of patches. */
static gboolean
has_square_plot (PlFigure *figure)
{
  return figure->kind == PL_FIGURE_HEATMAP || figure->kind == PL_FIGURE_PATCH_GRID ||
         figure->kind == PL_FIGURE_GRID_COLORS;
}

double
pl_figure_get_preferred_height (PlFigure *figure,
                                double    width_pt)
{
  cairo_surface_t *scratch;
  cairo_t *cr;
  double height;

  g_return_val_if_fail (PL_IS_FIGURE (figure), 0);
  g_return_val_if_fail (width_pt > 0, 0);

  if (pl_figure_get_natural_height (figure, width_pt, &height))
    return height;
  if (figure->kind != PL_FIGURE_MULTIPLES && !has_square_plot (figure))
    return width_pt * PLOT_ASPECT;

  /* Measured on a scratch surface, the screen's hit tests left as they are. */
  scratch = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cr = cairo_create (scratch);
  pl_figure_save_render_state (figure);
  if (figure->kind == PL_FIGURE_MULTIPLES)
    {
      PlDraw draw;

      pl_draw_init (&draw, figure, cr, NULL);
      height = pl_figure_multiples_preferred_height (figure, &draw, width_pt,
                                                     pl_figure_caption_room (figure, &draw, width_pt, NULL));
      pl_draw_clear (&draw);
    }
  else
    {
      /* Square, as wide as the labels and the bar leave it: drawn on a
       * square page, the room the plot leaves beside it is added below it,
       * the room left below it taken away. */
      pl_figure_render_full (figure, cr, width_pt, width_pt, NULL);
      height = ceil (width_pt + figure->slack_x - figure->slack_y);
    }
  pl_figure_restore_render_state (figure);
  cairo_destroy (cr);
  cairo_surface_destroy (scratch);
  return MIN (height, PL_FIGURE_PAGE_HEIGHT_PT);
}

void
pl_figure_apply_preset (PlFigure       *figure,
                        PlFigurePreset  preset,
                        double         *width_pt,
                        double         *height_pt)
{
  const PlFigurePresetInfo *info = pl_figure_preset_get (preset);

  g_return_if_fail (info != NULL);

  pl_figure_set_font (figure, NULL, info->font_size);
  *width_pt = info->width;
  *height_pt = info->height > 0 ? info->height : pl_figure_get_preferred_height (figure, info->width);
}
