/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <pango/pangocairo.h>

#include "pl-figure.h"

G_BEGIN_DECLS

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
} PlDraw;

struct _PlFigure
{
  GObject            parent_instance;

  PlFigureKind       kind;
  char              *title;
  char              *x_label;
  char              *y_label;
  char              *value_label;
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

  /* Heatmap */
  PlMatrix          *values;
  guint              first_position;
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
  cairo_surface_t   *bar_image;       /* 1 × 256 colour bar */
  PlColormapId       bar_colormap;
  gboolean           bar_reversed;
};

/* pl-figure-axes.c: text, ticks, frames, colour bar. */
typedef enum
{
  PL_TEXT_NORMAL = 0,
  PL_TEXT_BOLD   = 1 << 0,
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

/* pl-figure.c */
void     pl_figure_render_full   (PlFigure          *self,
                                  cairo_t           *cr,
                                  double             width,
                                  double             height,
                                  GString           *svg_text);

/* pl-figure-heatmap.c */
void     pl_figure_heatmap_render (PlFigure         *self,
                                   PlDraw           *draw,
                                   const cairo_rectangle_t *area);
void     pl_figure_heatmap_auto_range (PlFigure     *self,
                                       double       *lo,
                                       double       *hi);
void     pl_figure_heatmap_clear  (PlFigure         *self);

G_END_DECLS
