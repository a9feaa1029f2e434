/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "pl-colormap.h"
#include "pl-matrix.h"

G_BEGIN_DECLS

/* One renderer for the screen and for PNG / SVG / PDF: what the window
 * shows is what gets exported. Sizes are in points (1/72 inch): one cairo
 * unit of pl_figure_render is one point in an export, one pixel on screen. */

typedef enum
{
  PL_FIGURE_HEATMAP,
} PlFigureKind;

#define PL_TYPE_FIGURE (pl_figure_get_type ())

G_DECLARE_FINAL_TYPE (PlFigure, pl_figure, PL, FIGURE, GObject)

/* ---- Heatmap ------------------------------------------------------------ */

/* VALUES is n×m; FIRST_POSITION labels the axes (row 0 is that position). */
PlFigure   *pl_figure_new_heatmap     (PlMatrix       *values,
                                       guint           first_position);
/* New data for the same heatmap (another layer, another model); keeps the view
 * when the shape is unchanged, resets it otherwise. */
void        pl_figure_set_values      (PlFigure       *self,
                                       PlMatrix       *values,
                                       guint           first_position);
/* Thin lines between cells once they are large enough to tell apart. */
void        pl_figure_set_grid        (PlFigure       *self,
                                       gboolean        grid);
/* The visible cell window, for zoom and pan: columns [x0, x1), rows [y0, y1) in cell units. */
void        pl_figure_set_view        (PlFigure       *self,
                                       double          x0,
                                       double          y0,
                                       double          x1,
                                       double          y1);
/* Back to the whole matrix. */
void        pl_figure_reset_view      (PlFigure       *self);
/* Cell (column, row) under a point of the last render; FALSE outside the data. */
gboolean    pl_figure_hit_cell        (PlFigure       *self,
                                       double          x,
                                       double          y,
                                       guint          *column,
                                       guint          *row);

/* ---- Common ------------------------------------------------------------- */

PlFigureKind pl_figure_get_kind       (PlFigure       *self);
void        pl_figure_set_title       (PlFigure       *self,
                                       const char     *title);
/* Axis titles; NULL keeps the kind's default ("Position" for heatmaps). */
void        pl_figure_set_axis_labels (PlFigure       *self,
                                       const char     *x_label,
                                       const char     *y_label);
/* The title of the colour bar ("Cosine similarity"); NULL for none. */
void        pl_figure_set_value_label (PlFigure       *self,
                                       const char     *label);
void        pl_figure_set_colormap    (PlFigure       *self,
                                       PlColormapId    colormap);
void        pl_figure_set_reversed    (PlFigure       *self,
                                       gboolean        reversed);
/* Colour scale limits; NaN for automatic (data min / max; symmetric about 0
 * for the diverging map). */
void        pl_figure_set_range       (PlFigure       *self,
                                       double          vmin,
                                       double          vmax);
/* The limits the colour scale used, after automatic ranging. */
void        pl_figure_get_range       (PlFigure       *self,
                                       double         *vmin,
                                       double         *vmax);
/* Dark background and light text, for the screen in dark mode. */
void        pl_figure_set_dark        (PlFigure       *self,
                                       gboolean        dark);
/* Font family list and base size in points (default "Cantarell, Sans" 10). */
void        pl_figure_set_font        (PlFigure       *self,
                                       const char     *family,
                                       double          size_pt);
void        pl_figure_render          (PlFigure       *self,
                                       cairo_t        *cr,
                                       double          width,
                                       double          height);
/* Where the data area landed in the last render, in the cairo units of that render. */
void        pl_figure_get_plot_area   (PlFigure       *self,
                                       cairo_rectangle_t *area);
/* Where the colour bar landed in the last render; FALSE when there is none. */
gboolean    pl_figure_get_colorbar_area (PlFigure     *self,
                                       cairo_rectangle_t *area);
/* PNG, SVG or PDF by the extension; written to a temporary file then renamed. */
gboolean    pl_figure_export          (PlFigure       *self,
                                       const char     *path,
                                       double          width_pt,
                                       double          height_pt,
                                       double          dpi,
                                       GError        **error);

G_END_DECLS
