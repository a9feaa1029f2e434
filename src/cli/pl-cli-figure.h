/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-figure.h"
#include "pl-pca.h"

G_BEGIN_DECLS

/* The figure options every analysis command shares: --colormap, --size WxH
 * (points), --dpi, --title, --azimuth, --elevation. A command keeps one of
 * these on its stack, adds the options to its context before parsing, and
 * writes a figure when --out ends in .png, .svg or .pdf:
 *
 *   PlCliFigureOptions figure = PL_CLI_FIGURE_OPTIONS_INIT;
 *   pl_cli_figure_add_options (context, &figure);
 *   ...
 *   if (pl_cli_figure_is_figure_path (out))
 *     return pl_cli_figure_write_heatmap (sim, first_position, title, "Cosine similarity", out, &figure);
 */
typedef struct
{
  char   *colormap;    /* "viridis", "magma_r", ... */
  char   *size;        /* "WxH" in points */
  double  dpi;         /* PNG only */
  char   *title;
  double  azimuth;     /* NaN unless given; either one makes a PCA figure 3-D */
  double  elevation;
} PlCliFigureOptions;

#define PL_CLI_FIGURE_OPTIONS_INIT { NULL, NULL, 150.0, NULL, NAN, NAN }

void     pl_cli_figure_add_options     (GOptionContext           *context,
                                        PlCliFigureOptions       *options);
void     pl_cli_figure_options_clear   (PlCliFigureOptions       *options);
/* TRUE when PATH names a figure: it ends in .png, .svg or .pdf (any case). */
gboolean pl_cli_figure_is_figure_path  (const char               *path);
/* Applies the options to FIGURE (colour map, title when given, rotation) and
 * writes it to OUT. Returns the command's exit code: 0, 1 for a bad option
 * value or 2 for a file that cannot be written, with one line on stderr. */
int      pl_cli_figure_write           (PlFigure                 *figure,
                                        const char               *out,
                                        const PlCliFigureOptions *options);
/* The usual figures of the analyses, built and written in one call. TITLE is
 * the default, replaced by --title. */
int      pl_cli_figure_write_heatmap   (PlMatrix                 *values,
                                        guint                     first_position,
                                        const char               *title,
                                        const char               *value_label,
                                        const char               *out,
                                        const PlCliFigureOptions *options);
/* PC1 against PC2, or PC1–PC3 in 3-D when --azimuth or --elevation is given. */
int      pl_cli_figure_write_pca       (PlPca                    *pca,
                                        guint                     first_position,
                                        const char               *title,
                                        const char               *out,
                                        const PlCliFigureOptions *options);

G_END_DECLS
