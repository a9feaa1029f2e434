/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "pl-colormap.h"
#include "pl-matrix.h"

G_BEGIN_DECLS

/* One renderer for the screen and for PNG / SVG / PDF: what the window
 * shows is what gets exported. Sizes are in points (1/72 inch): one cairo
 * unit of pl_figure_render is one point in an export, one pixel on screen.
 * A figure keeps a cache (the heatmap's coloured image) and the geometry of
 * its last render, so use it from one thread at a time. */

typedef enum
{
  PL_FIGURE_HEATMAP,
  PL_FIGURE_TRAJECTORY,
  PL_FIGURE_TRAJECTORY_3D,
  PL_FIGURE_LINES,
  PL_FIGURE_SCATTER,
  PL_FIGURE_BARS,
  PL_FIGURE_TABLE,
  PL_FIGURE_MULTIPLES,
  PL_FIGURE_PATCH_GRID,
  PL_FIGURE_GRID_COLORS,
  PL_FIGURE_POSITION_BIAS,
} PlFigureKind;

#define PL_TYPE_FIGURE (pl_figure_get_type ())

G_DECLARE_FINAL_TYPE (PlFigure, pl_figure, PL, FIGURE, GObject)

/* ---- Heatmap ------------------------------------------------------------ */

/* VALUES is n×m; FIRST_POSITION labels the axes (row 0 is that position). */
PlFigure   *pl_figure_new_heatmap     (PlMatrix       *values,
                                       guint           first_position);
/* One layer of a rotary model's mean query or key norms (heads × planes,
 * as pl_rope_profile_get_layer gives them), titled "MODEL_NAME — layer
 * LAYER: …" with LAYER counted from 1, its axes and values labelled. */
PlFigure   *pl_figure_new_rotary_norms (PlMatrix     *norms,
                                        const char   *model_name,
                                        guint         layer,
                                        gboolean      keys);
/* New data for the same heatmap (another layer, another model); keeps the view
 * when the shape is unchanged, resets it otherwise. */
void        pl_figure_set_values      (PlFigure       *self,
                                       PlMatrix       *values,
                                       guint           first_position);
/* Positions numbered from FIRST, which may be negative (the rows of a
 * relative table: DeBERTa's buckets −k … k − 1), on a heatmap's axes and
 * along a trajectory (its labels and colour bar). When FIRST is below 0,
 * position 0 is marked: a dotted line through its row and column of a
 * heatmap, its point of a trajectory always labelled. Set after the data
 * (pl_figure_set_values numbers from its FIRST_POSITION again). */
void        pl_figure_set_first_position (PlFigure     *self,
                                       int             first);
/* Rows numbered from FIRST_ROW, the columns still from the first position:
 * heads counted from 1 against distances or planes counted from 0. */
void        pl_figure_set_first_row   (PlFigure       *self,
                                       guint           first_row);
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
/* Names for the cells instead of position numbers, on both axes (the tokens
 * of a sentence): LABELS[i] names column i and row i. Column labels stand
 * rotated under the columns, row labels level beside the rows; when cells are
 * too small for all of them, only every k-th is drawn, so none overlap, and
 * zooming in with pl_figure_set_view shows more. Blank and control
 * characters are shown as visible symbols (␣, ↵, ⇥), long labels shortened
 * with "…". LABELS NULL or N 0: position numbers again. */
void        pl_figure_set_tick_labels (PlFigure       *self,
                                       const char * const *labels,
                                       gsize           n);
/* Where label INDEX of the columns (X_AXIS) or of the rows was drawn in the
 * last render, as the box its text takes up; FALSE when it was not drawn. */
gboolean    pl_figure_get_tick_label_box (PlFigure    *self,
                                       gboolean        x_axis,
                                       guint           index,
                                       cairo_rectangle_t *box);
/* Cell (column, row) under a point of the last render; FALSE outside the data.
 * On small multiples, the cell of the heatmap panel under the point. */
gboolean    pl_figure_hit_cell        (PlFigure       *self,
                                       double          x,
                                       double          y,
                                       guint          *column,
                                       guint          *row);

/* ---- Trajectories of positions in PCA space -------------------------------- */

/* PROJECTION is positions × components (row 0 is FIRST_POSITION);
 * EXPLAINED_RATIO has one entry per component (NULL to leave it out of the
 * axis titles). Components are counted from 0: 0 and 1 are "PC1" and "PC2".
 * The line runs through the positions, coloured by position. */
PlFigure   *pl_figure_new_trajectory    (PlMatrix     *projection,
                                         guint         first_position,
                                         const double *explained_ratio,
                                         guint         comp_a,
                                         guint         comp_b);
/* Three components under a rotation, with perspective and depth cues. At
 * azimuth 0 and elevation 0 the view looks down COMP_C: COMP_A to the right,
 * COMP_B up, as in the 2-D view of COMP_A and COMP_B. */
PlFigure   *pl_figure_new_trajectory_3d (PlMatrix     *projection,
                                         guint         first_position,
                                         const double *explained_ratio,
                                         guint         comp_a,
                                         guint         comp_b,
                                         guint         comp_c);
/* Degrees: azimuth turns about the vertical axis, elevation tilts towards the viewer. */
void        pl_figure_set_rotation      (PlFigure     *self,
                                         double        azimuth,
                                         double        elevation);
void        pl_figure_get_rotation      (PlFigure     *self,
                                         double       *azimuth,
                                         double       *elevation);
/* Perspective on (default) or a parallel projection. */
void        pl_figure_set_perspective   (PlFigure     *self,
                                         gboolean      perspective);
/* A labelled marker every K positions; 0 picks K for about ten labels. */
void        pl_figure_set_label_every   (PlFigure     *self,
                                         guint         k);
/* Where point INDEX (a position of a trajectory, a point of a scatter) landed
 * in the last render; FALSE when it was not drawn. */
gboolean    pl_figure_get_point         (PlFigure     *self,
                                         guint         index,
                                         double       *x,
                                         double       *y);
/* The point nearest to (x, y) within RADIUS in the last render, or -1. */
int         pl_figure_hit_point         (PlFigure     *self,
                                         double        x,
                                         double        y,
                                         double        radius);

/* ---- Lines, scatter, bars ------------------------------------------------- */

/* Shared x values for every series (offsets, layers). */
PlFigure   *pl_figure_new_lines         (const double *x,
                                         gsize         n);
/* One line of N values (NaN leaves a gap), with its name in the legend. */
void        pl_figure_add_series        (PlFigure     *self,
                                         const char   *name,
                                         const double *y);
/* The x axis counts whole things (layers, heads): ticks on whole numbers
 * only, even where points sit between them to stand apart. */
void        pl_figure_set_x_integers    (PlFigure     *self,
                                         gboolean      integers);
/* Lines: series INDEX drawn over the others, which fade. Scatter: point
 * INDEX ringed in the text's colour (a head picked among all). -1 for none. */
void        pl_figure_set_highlight_series (PlFigure  *self,
                                         int           index);
/* The value of a line nearest to (x, y) within RADIUS in the last render:
 * *SERIES and *INDEX (of the x values); or a legend entry, with *INDEX set to
 * G_MAXUINT. FALSE when there is neither. */
gboolean    pl_figure_hit_line          (PlFigure     *self,
                                         double        x,
                                         double        y,
                                         double        radius,
                                         guint        *series,
                                         guint        *index);
/* Points (x[i], y[i]); pl_figure_set_point_values colours them with the map. */
PlFigure   *pl_figure_new_scatter       (const double *x,
                                         const double *y,
                                         gsize         n);
void        pl_figure_set_point_values  (PlFigure     *self,
                                         const double *values);
/* N bars; LABELS (N strings, or NULL for 1 … N) under them. */
PlFigure   *pl_figure_new_bars          (const double *values,
                                         gsize         n,
                                         const char * const *labels);
/* The bar whose column (its slot on the x axis, the gaps included) holds
 * (x, y) inside the plot area of the last render, or -1. */
int         pl_figure_hit_bar           (PlFigure     *self,
                                         double        x,
                                         double        y);
/* A running total over the bars, on the same axis (explained variance). */
void        pl_figure_set_cumulative    (PlFigure     *self,
                                         gboolean      cumulative);

/* ---- Probe table ---------------------------------------------------------- */

/* COLUMNS is NULL-terminated; each row gives one value per column (NaN = "—"),
 * cells shaded with the colour map over their column's range (the columns
 * are different measures), or over pl_figure_set_range's for all. */
PlFigure   *pl_figure_new_table         (const char * const *columns);
void        pl_figure_add_row           (PlFigure     *self,
                                         const char   *name,
                                         const double *values);
/* A row of means with the half-widths of their intervals, printed
 * "0.068 ± 0.012" (NaN half-width: the mean alone); cells are shaded by the
 * means. */
void        pl_figure_add_row_with_intervals (PlFigure     *self,
                                         const char   *name,
                                         const double *values,
                                         const double *half_widths);
/* The table may wrap before each of these columns (N_STARTS of them, in
 * order): its columns then stand in blocks one above the other, each with
 * the row names, whenever that draws the text larger in the space given. */
void        pl_figure_set_table_breaks  (PlFigure     *self,
                                         const guint  *starts,
                                         guint         n_starts);

/* ---- Small multiples ---------------------------------------------------- */

/* Several figures in a grid of COLUMNS (0: the count that gives the panels
 * the most room at each size), heatmaps on one shared colour scale with one
 * colour bar; zooming (pl_figure_set_view) zooms every panel alike. Takes a
 * reference to each panel; their titles name the panels. */
PlFigure   *pl_figure_new_multiples     (PlFigure * const *panels,
                                         guint         n_panels,
                                         guint         columns);
/* A panel of another quantity than its neighbours (a difference beside two
 * similarities) keeps its own colour map, range and colour bar. */
void        pl_figure_set_own_scale     (PlFigure     *self,
                                         gboolean      own_scale);
/* The panel under a point of the last render, or -1; PANEL_X / PANEL_Y get
 * the point in that panel's own units, for its hit tests. */
int         pl_figure_get_panel_at      (PlFigure     *self,
                                         double        x,
                                         double        y,
                                         double       *panel_x,
                                         double       *panel_y);
PlFigure   *pl_figure_get_panel         (PlFigure     *self,
                                         guint         index);
guint       pl_figure_get_n_panels      (PlFigure     *self);
/* Where panel INDEX landed in the last render; its own plot area and points
 * are relative to this rectangle's corner. */
gboolean    pl_figure_get_panel_area    (PlFigure     *self,
                                         guint         index,
                                         cairo_rectangle_t *area);

/* ---- Patches of an image in their grid ----------------------------------- */

/* The grid of grids (Dosovitskiy et al. 2021, Figure 7) for a table of
 * ROWS × COLS patches numbered row by row: in patch p's place, a small
 * ROWS × COLS map of SIMILARITY's row p, its similarity with every patch.
 * SIMILARITY is [ROWS × COLS, ROWS × COLS]. pl_figure_hit_cell gives the
 * patch whose map is under the point as ROW and the patch of that map's
 * cell as COLUMN. */
PlFigure   *pl_figure_new_patch_grid    (PlMatrix     *similarity,
                                         guint         rows,
                                         guint         cols);
/* The special tokens' similarity with every patch ([K, ROWS × COLS]) as K
 * maps named NAMES, in a column of their own beside the grid (their cells
 * hit as ROW ROWS × COLS + k); NULL for none. */
void        pl_figure_set_special_maps  (PlFigure     *self,
                                         PlMatrix     *values,
                                         const char * const *names);
/* Each patch of a ROWS × COLS grid a square of its colour: RGB is
 * [ROWS × COLS, 3] in [0, 1], EXPLAINED_RATIO (3 values, or NULL) the share
 * of variance each channel's component explains, for the key.
 * pl_figure_hit_cell gives the patch's column and row. */
PlFigure   *pl_figure_new_grid_colors   (PlMatrix     *rgb,
                                         guint         rows,
                                         guint         cols,
                                         const double *explained_ratio);
/* The key's label for colour K (0 red, 1 green, 2 blue) of a figure from
 * pl_figure_new_grid_colors: "PC1 (42.0 %)", translated. */
char       *pl_figure_get_key_label     (PlFigure     *self,
                                         guint         k);

/* ---- Position bias ------------------------------------------------------- */

/* A bias on attention scores by offset (pl-position-bias.h): BIAS is
 * [heads, 2T − 1], column c the offset FIRST_OFFSET + c; a heatmap of heads
 * × offset (NaN cells left blank), and below it the curves of the N_HEADS
 * HEADS on the same offset axis. BUCKETS (one per column, −1 where hidden;
 * NULL for none) marks where T5's bucket changes. pl_figure_hit_cell gives
 * the map's column (offset index) and row (head). */
PlFigure   *pl_figure_new_position_bias (PlMatrix     *bias,
                                         int           first_offset,
                                         const int    *buckets,
                                         const guint  *heads,
                                         guint         n_heads);
/* The curve under a point of the last render: *SERIES indexes the HEADS
 * the figure was made with, *COLUMN the offset; FALSE elsewhere. */
gboolean    pl_figure_hit_bias_curve    (PlFigure     *self,
                                         double        x,
                                         double        y,
                                         guint        *series,
                                         guint        *column);

/* ---- Common ------------------------------------------------------------- */

PlFigureKind pl_figure_get_kind       (PlFigure       *self);
void        pl_figure_set_title       (PlFigure       *self,
                                       const char     *title);
const char *pl_figure_get_title       (PlFigure       *self);
/* A paragraph under the figure, wrapped to its width (what was computed and
 * how, for a figure that leaves the program); NULL for none. */
void        pl_figure_set_caption     (PlFigure       *self,
                                       const char     *caption);
/* Axis titles; NULL keeps the kind's default ("Position" for heatmaps,
 * "PC1 (42.0 % of variance)" for trajectories). */
void        pl_figure_set_axis_labels (PlFigure       *self,
                                       const char     *x_label,
                                       const char     *y_label);
/* The title of the colour bar ("Cosine similarity"); NULL for none
 * (trajectories label theirs "Position"). */
void        pl_figure_set_value_label (PlFigure       *self,
                                       const char     *label);
const char *pl_figure_get_value_label (PlFigure       *self);
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
/* Draws as pl_figure_render does, but keeps the geometry of the last
 * render (plot area, hit tests) as it was: a preview of an export beside
 * the figure on screen. */
void        pl_figure_render_detached (PlFigure       *self,
                                       cairo_t        *cr,
                                       double          width,
                                       double          height);
/* Where the data area landed in the last render, in the cairo units of that render. */
void        pl_figure_get_plot_area   (PlFigure       *self,
                                       cairo_rectangle_t *area);
/* The values at the ticks of the last render along the x axis (X_AXIS) or
 * the y axis: positions on a heatmap, data values on numeric axes, with N
 * set to how many; NULL when that axis had no numeric ticks (named cells,
 * categories). */
const double *pl_figure_get_ticks     (PlFigure     *self,
                                       gboolean      x_axis,
                                       guint        *n);
/* Where the colour bar landed in the last render; FALSE when there is none. */
gboolean    pl_figure_get_colorbar_area (PlFigure     *self,
                                       cairo_rectangle_t *area);
/* The size a figure needs at its font size, in points with its margins
 * and its caption, for kinds that have one (a table); FALSE for kinds that
 * fill whatever room they are given. Exported at this size a table has no
 * blank margins. */
gboolean    pl_figure_get_natural_size (PlFigure      *self,
                                       double         *width_pt,
                                       double         *height_pt);
/* The height such a figure needs at WIDTH_PT, its caption wrapped there. */
gboolean    pl_figure_get_natural_height (PlFigure    *self,
                                       double         width_pt,
                                       double        *height_pt);
/* ---- Layout: what the last render put where ------------------------------ */

/* The figure-layout contract. Every figure kind, exported as PDF at every
 * preset (pl-figure-preset.h: 3.3 in, 7 in, a 16:9 slide) and drawn on
 * screen at the window's sizes, keeps these, as pl_figure_check_layout
 * checks them on the last render:
 *   - every text at least PL_FIGURE_MIN_TEXT_PT (6.5 pt) at the size drawn;
 *   - no text and no panel outside the page, no two texts overlapping, no
 *     two panels overlapping, each panel's text inside its panel;
 *   - the plots of the panels of small multiples the same size, and level
 *     when side by side;
 *   - titles no larger than 1.3 × the axis titles (or, with none, the text).
 * A new figure kind passes it too: add its builder, with the titles, labels
 * and data shapes the window gives it, to the table of kinds in
 * tests/test-figure-layout-kinds.c; tests/test-figure-layout.c checks each
 * kind at each preset, in the sans and the serif face, from the PDF itself
 * (poppler) and from this layout, and tests/test-window-layout.c every
 * view's figures as the window draws them at 1600, 900, 800 and 360 px. */

#define PL_FIGURE_MIN_TEXT_PT     6.5
#define PL_FIGURE_MAX_TITLE_RATIO 1.3

typedef enum
{
  PL_LAYOUT_TEXT,         /* tick labels, legends, table cells, notes */
  PL_LAYOUT_TITLE,        /* a figure's or a panel's title */
  PL_LAYOUT_AXIS_TITLE,   /* an axis's or a colour bar's title */
  PL_LAYOUT_CAPTION,      /* one line of the caption */
  PL_LAYOUT_PANEL,        /* the room a panel of small multiples was given */
  PL_LAYOUT_PLOT,         /* a figure's or a panel's data area */
} PlLayoutRole;

typedef struct
{
  PlLayoutRole       role;
  int                panel;   /* the panel of small multiples it is part of, −1: the figure's own */
  PlFigureKind       kind;    /* the kind of the (panel) figure that drew it */
  cairo_rectangle_t  box;     /* in the units of the render, axis-aligned (rotated text's too) */
  double             size;    /* a text's size in those units; 0 for areas */
  char              *text;    /* NULL for areas */
} PlLayoutItem;

/* What the last render drew where, N_ITEMS of them (NULL before any), and
 * the size it was drawn at in WIDTH and HEIGHT. */
const PlLayoutItem *pl_figure_get_layout (PlFigure       *self,
                                       guint          *n_items,
                                       double         *width,
                                       double         *height);
/* Checks the last render against the contract above with texts at least
 * MIN_TEXT (in the render's units: points in an export, pixels on screen);
 * FALSE with an error listing what breaks it. */
gboolean    pl_figure_check_layout    (PlFigure       *self,
                                       double          min_text,
                                       GError        **error);
/* The smallest text of the last render (its role in ROLE), 0 when none. */
double      pl_figure_get_min_text_size (PlFigure     *self,
                                       PlLayoutRole   *role);

/* Whether the figure's images (a heatmap's cells, a patch grid's maps, one
 * pixel each) fit in what cairo can draw, 32767 pixels a side; FALSE with
 * PL_ERROR_TOO_LARGE saying what is too large otherwise. A figure that does
 * not fit draws blank: callers check before they show or export it. */
gboolean    pl_figure_check_size      (PlFigure       *self,
                                       GError        **error);

/* PNG, SVG or PDF by the extension, WIDTH_PT × HEIGHT_PT points; a PNG is
 * round (points × DPI / 72) pixels and records its DPI, SVG and PDF are
 * vectors with text as text and heatmaps as images at one pixel per cell.
 * Written to a temporary file in the same folder and renamed over PATH, so a
 * failure leaves no partial file and an existing file untouched. */
gboolean    pl_figure_export          (PlFigure       *self,
                                       const char     *path,
                                       double          width_pt,
                                       double          height_pt,
                                       double          dpi,
                                       GError        **error);

G_END_DECLS
