/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-figure.h"

G_BEGIN_DECLS

/* The sizes figures are made for: a journal's column, the width of its page
 * and a 16:9 slide, each with the text size that reads there. The export
 * dialog offers them and poslens-cli takes them as --width NAME; the
 * figure-layout contract (pl-figure.h) holds at each. */
typedef enum
{
  PL_FIGURE_PRESET_ONE_COLUMN,    /* 3.3 in wide */
  PL_FIGURE_PRESET_TWO_COLUMNS,   /* 7 in wide */
  PL_FIGURE_PRESET_SLIDE,         /* 10 × 5.625 in */
  PL_FIGURE_N_PRESETS
} PlFigurePreset;

typedef struct
{
  const char *name;        /* as --width takes it: "3.3in", "7in", "slide" */
  double      width;       /* points */
  double      height;      /* points; 0: the figure's own height at that width */
  double      font_size;   /* points */
} PlFigurePresetInfo;

/* The tallest a figure is made for a paper: a page's text, 9 in. */
#define PL_FIGURE_PAGE_HEIGHT_PT (9 * 72.0)

const PlFigurePresetInfo *pl_figure_preset_get (PlFigurePreset preset);
/* The preset named NAME ("3.3in", "7in", "slide"); FALSE for none. */
gboolean    pl_figure_preset_from_name   (const char       *name,
                                          PlFigurePreset   *preset);
/* A width as --width takes it: a preset's name, or a length in points
 * ("300", "300pt"), inches ("5in") or centimetres ("8.5cm"). *PRESET is
 * the preset named, or PL_FIGURE_N_PRESETS for a length. */
gboolean    pl_figure_parse_width        (const char       *text,
                                          double           *width_pt,
                                          PlFigurePreset   *preset,
                                          GError          **error);
/* The height FIGURE takes at WIDTH_PT with its font size: a table's own;
 * a square plot's, as wide as the labels leave it; small multiples' grid of
 * square plots, as large as a page allows; or a plot's usual 6 : 5. */
double      pl_figure_get_preferred_height (PlFigure       *figure,
                                          double            width_pt);
/* FIGURE at PRESET: its text size set, and the page it is exported on. */
void        pl_figure_apply_preset       (PlFigure         *figure,
                                          PlFigurePreset    preset,
                                          double           *width_pt,
                                          double           *height_pt);

G_END_DECLS
