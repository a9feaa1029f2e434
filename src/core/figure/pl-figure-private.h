/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <pango/pangocairo.h>

#include "pl-figure.h"

G_BEGIN_DECLS

/* A figure's colour bar: its own, or, as a panel of small multiples, none
 * (the grid's bar serves it) or only the room for one (a neighbour in its
 * row draws the shared bar, and the plots stay the same size). */
typedef enum
{
  PL_PANEL_BAR_OWN,
  PL_PANEL_BAR_NONE,
  PL_PANEL_BAR_ROOM,
} PlPanelBar;

/* Everything a figure kind needs while drawing one frame. */
typedef struct
{
  PlFigure     *figure;
  cairo_t      *cr;
  PangoContext *pango;
  /* Non-NULL while rendering for SVG: text is collected here and written as
   * real <text> elements after cairo is done (cairo would draw glyph outlines). */
  GString      *svg_text;
  double        fg[3];        /* text */
  double        axis[3];      /* frames, ticks */
  double        muted[3];     /* grid, secondary lines */
  double        bg[3];
  double        width;        /* the whole figure, for text that must stay inside */
  double        height;
  /* Where the render records what it draws (pl_figure_get_layout), or
   * NULL; device units to the top figure's, and the panel being drawn. */
  GArray       *layout;
  cairo_matrix_t to_figure;
  int           panel;
  /* The smallest axis title drawn so far; the title, drawn last, is at
   * most PL_FIGURE_MAX_TITLE_RATIO times it. */
  double        axis_title_min;
  gboolean      has_title;       /* pl_draw_title asked for, drawn at the end */
  double        title_at[4];     /* its centre x, bottom y, min x, max x */
  cairo_matrix_t title_matrix;   /* in the user space it was asked in */
} PlDraw;

struct _PlFigure
{
  GObject            parent_instance;

  PlFigureKind       kind;
  char              *title;
  char              *caption;         /* a paragraph under the figure, or NULL */
  char              *x_label;
  char              *y_label;
  char              *value_label;
  char              *auto_x_label;    /* the kind's defaults */
  char              *auto_y_label;
  char              *font_family;
  double             font_size;
  PlColormapId       colormap;
  gboolean           reversed;
  gboolean           dark;
  double             vmin;            /* requested; NaN = automatic */
  double             vmax;

  /* What the last render produced, for hit tests and the app. */
  gboolean           rendered;
  cairo_rectangle_t  plot_area;
  cairo_rectangle_t  colorbar_area;
  gboolean           has_colorbar;
  struct _PlRenderState *saved;       /* during an export */
  GArray            *layout;          /* PlLayoutItem of the last render */
  double             layout_width;    /* its size */
  double             layout_height;
  gboolean           integer_scale;   /* colour bar ticks on whole numbers */
  GArray            *ticks[2];        /* x and y tick values of the last render */

  /* Heatmap */
  PlMatrix          *values;
  int                first_position;  /* what row 0 is numbered; below 0 for relative buckets */
  guint              first_row;       /* what row 0 is numbered, when own_first_row */
  gboolean           own_first_row;
  double             data_min;        /* finite extremes, NaN when none */
  double             data_max;
  gboolean           grid;
  double             view_x0, view_y0, view_x1, view_y1;
  gboolean           has_view;
  cairo_surface_t   *image;           /* one pixel per cell, coloured */
  PlColormapId       image_colormap;
  gboolean           image_reversed;
  double             image_lo;
  double             image_hi;
  char             **tick_labels;     /* names of cells on both axes, or NULL */
  gsize              n_tick_labels;
  GArray            *label_boxes;     /* PlLabelBox of the last render */
  cairo_surface_t   *bar_image;       /* 1 × 256 colour bar */
  PlColormapId       bar_colormap;
  gboolean           bar_reversed;

  /* Trajectories (2-D and 3-D) */
  PlMatrix          *projection;      /* positions × components */
  double            *explained;       /* one ratio per component, or NULL */
  guint              comp[3];
  double             azimuth;         /* degrees */
  double             elevation;
  gboolean           perspective;
  guint              label_every;     /* 0 = automatic */
  double            *points;          /* x, y of each point in the last render */
  gsize              n_points;

  /* Lines, scatter, bars */
  double            *xs;
  gsize              n_xs;
  GPtrArray         *series;          /* PlSeries */
  double            *ys;              /* scatter y, bar heights */
  double            *point_values;    /* scatter colours, or NULL */
  char             **categories;      /* bar labels, or NULL */
  gboolean           cumulative;
  gboolean           x_integers;      /* whole-number x ticks whatever the points */
  int                highlight_series; /* lines: drawn over the others, or -1 */

  /* Probe table */
  char             **columns;
  GPtrArray         *rows;            /* PlTableRow */
  guint32            table_breaks;    /* bit c: the table may wrap before column c */

  /* Patch grids (values: the similarity, or the colours) */
  guint              grid_rows;
  guint              grid_cols;
  double             map_scale;       /* device units per image pixel in the last render */
  PlMatrix          *special_values;  /* [k, patches], or NULL */
  char             **special_names;
  cairo_surface_t   *special_image;
  double             special_scale;
  double             special_pitch;   /* from one special map's name to the next's */
  double             special_offset;  /* from a name to its map */
  cairo_rectangle_t  special_area;

  /* Small multiples */
  GPtrArray         *panels;          /* PlFigure */
  guint              n_columns;
  GArray            *panel_areas;     /* cairo_rectangle_t of each panel in the last render */
  PlPanelBar         panel_bar;       /* set by the multiples for each render */
  gboolean           own_scale;       /* a panel with its own map, range and bar */
  double             title_size;      /* a panel's title size, set by its multiples; 0: its own */
  double             axis_title_min;  /* the smallest axis title of its last render */
  double             margins[4];      /* left, top, right, bottom its labels needed last */
  double             margin_floor[4]; /* and the least it takes, set by the multiples */
  double             slack_x;         /* room the last render left unused around */
  double             slack_y;         /* its square plot (heatmaps), 0 for others */
  double             shared_lo;
  double             shared_hi;
  struct _PlGridCache *grid_cache;    /* what the last render of the grid found */

  /* Position bias (values: the bias; xs: the offsets; series: the chosen
   * heads' curves) */
  int               *bias_buckets;    /* T5: each column's bucket, or NULL */
  cairo_rectangle_t  lines_area;      /* the curves' panel in the last render */
};

/* A tick label drawn by the last render: axis 0 = columns, 1 = rows. */
typedef struct
{
  guint              axis;
  guint              index;
  cairo_rectangle_t  box;
} PlLabelBox;

typedef struct
{
  char   *name;
  double *y;
} PlSeries;

typedef struct
{
  char   *name;
  double *values;
  double *intervals;   /* ± half-widths, or NULL */
} PlTableRow;

/* A numeric frame: data limits mapped onto a plot rectangle with ticks. */
typedef struct
{
  cairo_rectangle_t   plot;
  double              x0, x1, y0, y1;     /* data values at the plot's edges */
  gboolean            x_integers;
  gboolean            y_integers;
  char              **x_categories;       /* labels at x = 0 … n − 1, or NULL */
  GArray             *xticks;
  GArray             *yticks;
  double              xstep, ystep;
  double              y_title_x;          /* left edge of the rotated y title */
} PlAxes;

/* pl-figure-draw.c: colours, text, titles; pl-figure-axes.c: ticks, frames,
 * the colour bar and numeric axes. */
typedef enum
{
  PL_TEXT_NORMAL = 0,
  PL_TEXT_BOLD   = 1 << 0,
  PL_TEXT_HALO   = 1 << 1,   /* outlined in the background colour, to read over lines */
  /* The text's role in the layout (pl_figure_get_layout), not drawn
   * differently; titles are drawn by pl_draw_title. */
  PL_TEXT_AXIS_TITLE = 1 << 2,  /* an axis's or a colour bar's title */
} PlTextFlags;

void     pl_draw_init            (PlDraw            *draw,
                                  PlFigure          *figure,
                                  cairo_t           *cr,
                                  GString           *svg_text);
void     pl_draw_clear           (PlDraw            *draw);
void     pl_draw_set_rgb         (PlDraw            *draw,
                                  const double       rgb[3]);
/* Size of TEXT at SIZE points (width, height of its logical box). */
void     pl_draw_text_size       (PlDraw            *draw,
                                  const char        *text,
                                  double             size,
                                  PlTextFlags        flags,
                                  double            *width,
                                  double            *height);
/* Draws TEXT so that the point (ax, ay) of its box (0 = left/top,
 * 1 = right/bottom) sits at (x, y), rotated by ANGLE radians about it. */
void     pl_draw_text            (PlDraw            *draw,
                                  const char        *text,
                                  double             size,
                                  PlTextFlags        flags,
                                  const double       rgb[3],
                                  double             x,
                                  double             y,
                                  double             ax,
                                  double             ay,
                                  double             angle);
/* Round tick values in [lo, hi], at most about MAX_TICKS of them; returns the step. */
double   pl_nice_ticks           (double             lo,
                                  double             hi,
                                  guint              max_ticks,
                                  gboolean           integers,
                                  GArray            *ticks);
/* The multiples of STEP in [lo, hi]. */
void     pl_ticks_at_step        (double             lo,
                                  double             hi,
                                  double             step,
                                  GArray            *ticks);
/* A tick label with the decimals STEP needs and a real minus sign. */
char    *pl_format_tick          (double             value,
                                  double             step);
void     pl_draw_frame           (PlDraw            *draw,
                                  const cairo_rectangle_t *area);
/* A vertical colour bar with its scale on the right. Returns the width it used. */
double   pl_draw_colorbar        (PlDraw            *draw,
                                  const cairo_rectangle_t *bar,
                                  double             lo,
                                  double             hi,
                                  gboolean           measure_only);
double   pl_figure_tick_size     (PlFigure          *self);

void     pl_axes_init            (PlAxes            *axes);
void     pl_axes_clear           (PlAxes            *axes);
/* Pads [lo, hi] by MARGIN of its span on each side (a point range gets ±0.5). */
void     pl_pad_range            (double            *lo,
                                  double            *hi,
                                  double             margin);
/* Places the plot inside AREA, leaving RIGHT units free on its right for a
 * legend or a colour bar, and room for ticks, axis titles and the title. */
void     pl_axes_layout          (PlDraw            *draw,
                                  PlAxes            *axes,
                                  const cairo_rectangle_t *area,
                                  double             right);
/* Grid lines (under the data): call before drawing data. */
void     pl_axes_draw_grid       (PlDraw            *draw,
                                  PlAxes            *axes);
/* Frame, ticks, tick labels, axis titles and the figure title. */
void     pl_axes_draw            (PlDraw            *draw,
                                  PlAxes            *axes);
double   pl_axes_px              (const PlAxes      *axes,
                                  double             x);
double   pl_axes_py              (const PlAxes      *axes,
                                  double             y);
/* The room above a plot for the title set within MAX_WIDTH and, below it,
 * for the top tick label (TICK_H high) centred on the plot's top edge. */
double   pl_draw_top_room        (PlDraw            *draw,
                                  double             max_width,
                                  double             tick_h);
/* From the title's bottom to the plot's top. */
double   pl_draw_title_gap       (double             tick_h);
void     pl_draw_pending_title   (PlDraw            *draw);
/* The title, its bottom at BOTTOM_Y, centred on CENTER_X but kept within
 * [MIN_X, MAX_X]: shrunk a little, then wrapped, to fit there. Drawn when
 * the frame is done (pl_draw_pending_title), no larger than 1.3 × the
 * smallest axis title drawn. */
void     pl_draw_title           (PlDraw            *draw,
                                  double             center_x,
                                  double             bottom_y,
                                  double             min_x,
                                  double             max_x);
/* How far text of SIZE may shrink to fit: to 60 %, never below the
 * smallest text the layout contract allows (unless SIZE is). */
double   pl_draw_shrink_floor    (double             size);
/* SIZE, or smaller (down to pl_draw_shrink_floor) so that TEXT is at most
 * MAX_WIDTH wide. */
double   pl_draw_fit_size        (PlDraw            *draw,
                                  const char        *text,
                                  double             size,
                                  PlTextFlags        flags,
                                  double             max_width);
/* The height of the title set within MAX_WIDTH (one line, or wrapped), as
 * pl_draw_title draws it there; 0 without one. */
double   pl_draw_title_height    (PlDraw            *draw,
                                  double             max_width);
/* TEXT wrapped to WIDTH at SIZE, its top left at (X, Y) when DRAW_IT, else
 * only measured; returns its height. */
double   pl_draw_paragraph       (PlDraw            *draw,
                                  const char        *text,
                                  double             size,
                                  double             x,
                                  double             y,
                                  double             width,
                                  gboolean           draw_it);
/* The default x / y axis titles, with the figure's own when set. */
const char *pl_figure_x_label    (PlFigure          *self);
const char *pl_figure_y_label    (PlFigure          *self);
/* A colour for series I of N from the figure's map, readable on its background. */
void     pl_figure_series_rgb    (PlFigure          *self,
                                  guint              i,
                                  guint              n,
                                  double             rgb[3]);
/* On a dark background the dark end of a colour map melts into it: marks
 * coloured by value keep their true colour but get a light casing. TRUE,
 * with CASING set, when a mark of colour RGB needs one. */
gboolean pl_draw_casing          (PlDraw            *draw,
                                  const double       rgb[3],
                                  double             casing[3]);
/* WCAG contrast ratio of two sRGB colours, 1 … 21. */
double   pl_figure_contrast      (const double       a[3],
                                  const double       b[3]);
void     pl_rgb_from_hex         (guint32            hex,
                                  double             rgb[3]);

/* pl-figure.c */
PlFigure *pl_figure_new_kind     (PlFigureKind       kind);
/* Keeps MARGINS (left, top, right, bottom: the room a render's labels and
 * bar need around its plot) as the figure's margins and widens them to the
 * floor small multiples set, so the panels' plots come out the same size. */
void     pl_figure_take_margins  (PlFigure          *self,
                                  double             margins[4]);
/* Keeps the tick values an axis was drawn with (AXIS 0 = x, 1 = y) for
 * pl_figure_get_ticks; NULL: that axis has no numeric ticks. */
void     pl_figure_record_ticks  (PlFigure          *self,
                                  guint              axis,
                                  GArray            *ticks);
/* An export renders at another size; these keep what the last on-screen
 * render left (areas, points, panels) across it. */
void     pl_figure_save_render_state    (PlFigure   *self);
void     pl_figure_restore_render_state (PlFigure   *self);
/* data_min and data_max over the values (and a patch grid's special maps). */
void     pl_figure_scan_extremes (PlFigure          *self);
/* Finite minimum and maximum of N values; FALSE when there are none. */
gboolean pl_finite_range         (const double      *values,
                                  gsize              n,
                                  double            *lo,
                                  double            *hi);
/* The colour range of kinds that colour by value, after the requested limits. */
void     pl_figure_value_range   (PlFigure          *self,
                                  double            *lo,
                                  double            *hi);
void     pl_figure_render_full   (PlFigure          *self,
                                  cairo_t           *cr,
                                  double             width,
                                  double             height,
                                  GString           *svg_text);
/* Panel INDEX of small multiples drawn in R of PARENT's frame, its layout
 * recorded into PARENT's when that records one. */
void     pl_figure_render_panel  (PlFigure          *self,
                                  PlDraw            *parent,
                                  int                index,
                                  const cairo_rectangle_t *r);

/* pl-figure-layout.c: recording what a render draws where. */
void     pl_layout_clear         (GArray            *layout);
GArray  *pl_layout_new           (void);
/* A text of SIZE whose box, in the current cairo user space, is BOX. */
void     pl_layout_add_text      (PlDraw            *draw,
                                  PlLayoutRole       role,
                                  const char        *text,
                                  double             size,
                                  const cairo_rectangle_t *box);
/* An area (a panel's room, its plot) given in the current user space. */
void     pl_layout_add_area      (PlDraw            *draw,
                                  PlLayoutRole       role,
                                  PlFigureKind       kind,
                                  const cairo_rectangle_t *box);

/* pl-figure-png.c: an opaque image as a PNG file with its DPI, taken in
 * bands of rows from the top and streamed to WRITE (FALSE on failure). */
typedef gboolean (*PlFigureWriteFunc) (gpointer      closure,
                                       const guint8 *data,
                                       gsize         len);
typedef struct _PlPngWriter PlPngWriter;
PlPngWriter *pl_png_writer_new   (int                width,
                                  int                height,
                                  double             dpi,
                                  PlFigureWriteFunc  write,
                                  gpointer           closure,
                                  GError           **error);
/* The first N_ROWS rows of IMAGE (as wide as the PNG) are the next rows. */
gboolean pl_png_writer_add_rows  (PlPngWriter      *self,
                                  cairo_surface_t  *image,
                                  int               n_rows,
                                  GError          **error);
gboolean pl_png_writer_finish    (PlPngWriter      *self,
                                  GError          **error);
void     pl_png_writer_free      (PlPngWriter      *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPngWriter, pl_png_writer_free)

/* pl-figure-heatmap.c */
void     pl_figure_heatmap_render (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);
void     pl_figure_heatmap_auto_range (PlFigure     *self,
                                       double       *lo,
                                       double       *hi);
void     pl_figure_heatmap_clear  (PlFigure         *self);

/* pl-figure-trajectory.c */
void     pl_figure_trajectory_render (PlFigure      *self,
                                      PlDraw        *draw,
                                      const cairo_rectangle_t *area);
char    *pl_figure_component_label   (PlFigure      *self,
                                      guint          k);

/* pl-figure-lines.c: lines, scatter and bars */
void     pl_figure_lines_render   (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);
void     pl_figure_scatter_render (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);
void     pl_figure_bars_render    (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);

/* pl-figure.c: the caption's room under the figure at WIDTH (its wrapped
 * height, set in TEXT_HEIGHT when given, and a font size of margin); 0
 * without a caption. */
double   pl_figure_caption_room   (PlFigure         *self,
                                   PlDraw           *draw,
                                   double            width,
                                   double           *text_height);

/* pl-figure-bias.c */
void     pl_figure_bias_render    (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);
gboolean pl_figure_bias_hit       (PlFigure         *self,
                                   double            x,
                                   double            y,
                                   guint            *column,
                                   guint            *row);

/* pl-figure-table.c */
void     pl_figure_table_render   (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);

/* pl-figure-patch-grid.c: the grid of grids, and the axes of every
 * figure of patches in a grid (numbered rows and columns). */
void     pl_figure_patch_grid_render (PlFigure      *self,
                                      PlDraw        *draw,
                                      const cairo_rectangle_t *area);
/* The size of the image a patch grid paints its maps into (the special
 * tokens' maps: SPECIAL_*, 0 × 0 without them). */
void     pl_figure_patch_grid_image_size (PlFigure  *self,
                                          guint64   *width,
                                          guint64   *height,
                                          guint64   *special_width,
                                          guint64   *special_height);
gboolean pl_figure_patch_grid_hit    (PlFigure      *self,
                                      double         x,
                                      double         y,
                                      guint         *column,
                                      guint         *row);
/* The room the patch axes need left of, below and above the plot. */
void     pl_patch_axes_measure       (PlFigure      *self,
                                      PlDraw        *draw,
                                      double        *left,
                                      double        *bottom,
                                      double        *top);
/* Ticks for the grid's columns and rows, PITCH apart, each at the centre of
 * its first INNER units; the axis titles and the figure's title. */
void     pl_patch_axes_draw          (PlFigure      *self,
                                      PlDraw        *draw,
                                      const cairo_rectangle_t *plot,
                                      double         pitch_x,
                                      double         pitch_y,
                                      double         inner_x,
                                      double         inner_y,
                                      double         left);

/* pl-figure-grid-colors.c */
void     pl_figure_grid_colors_render (PlFigure     *self,
                                       PlDraw       *draw,
                                       const cairo_rectangle_t *area);
gboolean pl_figure_grid_colors_hit    (PlFigure     *self,
                                       double        x,
                                       double        y,
                                       guint        *column,
                                       guint        *row);

/* pl-figure-multiples.c */
typedef struct _PlGridCache PlGridCache;
void     pl_grid_cache_free        (PlGridCache    *cache);
void     pl_figure_multiples_render (PlFigure       *self,
                                     PlDraw         *draw,
                                     const cairo_rectangle_t *area);
/* The height that gives the panels of small multiples WIDTH wide square
 * plots, as large as a page's height allows, with CAPTION_H under them. */
double   pl_figure_multiples_preferred_height (PlFigure *self,
                                     PlDraw         *draw,
                                     double          width,
                                     double          caption_h);

G_END_DECLS
