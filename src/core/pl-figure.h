/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "pl-colormap.h"
#include "pl-matrix.h"

G_BEGIN_DECLS

/* One renderer for the screen and for PNG / SVG / PDF: what the window
 * shows is what gets exported. Sizes are in points (1/72 inch). */

typedef enum
{
  PL_FIGURE_HEATMAP,
} PlFigureKind;

#define PL_TYPE_FIGURE (pl_figure_get_type ())

G_DECLARE_FINAL_TYPE (PlFigure, pl_figure, PL, FIGURE, GObject)

/* VALUES is n×m; FIRST_POSITION labels the axes (row 0 is that position). */
PlFigure   *pl_figure_new_heatmap     (PlMatrix       *values,
                                       guint           first_position);
void        pl_figure_set_title       (PlFigure       *self,
                                       const char     *title);
void        pl_figure_set_colormap    (PlFigure       *self,
                                       PlColormapId    colormap);
/* Colour scale limits; NaN for automatic (data min / max). */
void        pl_figure_set_range       (PlFigure       *self,
                                       double          vmin,
                                       double          vmax);
/* Dark background and light text, for the screen in dark mode. */
void        pl_figure_set_dark        (PlFigure       *self,
                                       gboolean        dark);
/* The visible cell window, for zoom and pan: columns [x0, x1), rows [y0, y1) in cell units. */
void        pl_figure_set_view        (PlFigure       *self,
                                       double          x0,
                                       double          y0,
                                       double          x1,
                                       double          y1);
void        pl_figure_render          (PlFigure       *self,
                                       cairo_t        *cr,
                                       double          width,
                                       double          height);
/* Where the data area landed in the last render, in the cairo units of that render. */
void        pl_figure_get_plot_area   (PlFigure       *self,
                                       cairo_rectangle_t *area);
/* Cell (column, row) under a point of the last render; FALSE outside the data. */
gboolean    pl_figure_hit_cell        (PlFigure       *self,
                                       double          x,
                                       double          y,
                                       guint          *column,
                                       guint          *row);
/* PNG, SVG or PDF by the extension; written to a temporary file then renamed. */
gboolean    pl_figure_export          (PlFigure       *self,
                                       const char     *path,
                                       double          width_pt,
                                       double          height_pt,
                                       double          dpi,
                                       GError        **error);

G_END_DECLS
