/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <math.h>   /* NAN in PL_CLI_FIGURE_OPTIONS_INIT */

#include "pl-attention-stats.h"
#include "pl-figure.h"
#include "pl-pca.h"
#include "pl-probes.h"
#include "pl-similarity.h"

G_BEGIN_DECLS

/* The figure options every analysis command shares: --colormap, --size WxH
 * (points) or --width (a preset of pl-figure-preset.h: 3.3in, 7in, slide,
 * or a length) with --font-size, --dpi, --title, --azimuth, --elevation,
 * and writing the figure when --out ends in .png, .svg or .pdf. In a
 * command:
 *
 *   g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
 *   if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
 *     return pl_cli_usage ("similarity", error->message);
 *   ...
 *   pl_cli_figure_is_figure_path (out)
 *     ? pl_cli_figure_write_similarity (similarity, metric, rows, out, &figure, &error)
 *     : write_similarity (...)
 */
typedef struct
{
  char   *colormap;    /* "viridis", "magma_r", ... */
  char   *size;        /* "WxH" in points */
  double  dpi;         /* PNG only */
  char   *title;
  double  azimuth;     /* NaN unless given; either one makes a PCA figure 3-D */
  double  elevation;
  char   *width;       /* "3.3in", "7in", "slide" or a length; the height is the figure's own */
  double  font_size;   /* points; 0: the preset's, or 10 */
} PlCliFigureOptions;

#define PL_CLI_FIGURE_OPTIONS_INIT { NULL, NULL, 150.0, NULL, NAN, NAN, NULL, 0 }

/* Adds the figure options to CONTEXT (after the command's own), parses the
 * command line and checks the figure options' values; the error is a usage
 * message. */
gboolean pl_cli_figure_parse            (GOptionContext           *context,
                                         PlCliFigureOptions       *options,
                                         int                      *argc,
                                         char                   ***argv,
                                         GError                  **error);
void     pl_cli_figure_options_clear    (PlCliFigureOptions       *options);
/* The values make sense (a size like 432x360, a known colour map, a positive DPI);
 * the error is a usage message. */
gboolean pl_cli_figure_check_options    (const PlCliFigureOptions *options,
                                         GError                  **error);
/* The page --width WIDTH (NULL: none) and --font-size FONT_SIZE (0: none)
 * ask for: its width in points, its height (0: the figure's own at that
 * width) and the text size (a preset's, else FONT_SIZE, else 10 pt); the
 * error is a usage message naming OPTION ("--width"). Also for `paper`. */
gboolean pl_cli_figure_page             (const char               *width,
                                         double                    font_size,
                                         double                   *width_pt,
                                         double                   *height_pt,
                                         double                   *text_pt,
                                         GError                  **error);
/* TRUE when PATH names a figure: it ends in .png, .svg or .pdf (any case). */
gboolean pl_cli_figure_is_figure_path   (const char               *path);
/* Applies the options to FIGURE (colour map, title when given, rotation) and
 * writes it to OUT (temporary file, then renamed). */
gboolean pl_cli_figure_write            (PlFigure                 *figure,
                                         const char               *out,
                                         const PlCliFigureOptions *options,
                                         GError                  **error);
/* FIGURE's value label for METRIC; Euclidean distance reversed, so near
 * positions are bright as similar ones are for cosine (a --colormap given is
 * taken as it is). */
void     pl_cli_figure_show_metric      (PlFigure                 *figure,
                                         PlSimilarityMetric        metric);
/* The analyses' figures in one call each. ROWS is the command's --rows
 * ("FIRST:END" or NULL), so the axes count positions from FIRST. */
gboolean pl_cli_figure_write_similarity (PlMatrix                 *similarity,
                                         PlSimilarityMetric        metric,
                                         const char               *rows,
                                         const char               *out,
                                         const PlCliFigureOptions *options,
                                         GError                  **error);
/* PC1 against PC2, or PC1–PC3 in 3-D when --azimuth or --elevation is given;
 * the explained variance as bars when there is one component. */
gboolean pl_cli_figure_write_pca        (PlPca                    *pca,
                                         const char               *rows,
                                         const char               *out,
                                         const PlCliFigureOptions *options,
                                         GError                  **error);

/* Attention by position. LAYER is 1-based (0: all), HEAD an index from 0
 * (−1: all); the figure names both counted from 1, as the attention
 * command's --layer and --head take them: with a layer, the attention mass by
 * offset, one line per head (or the one head); without, the mean attention
 * distance of every head against its layer, coloured by head. */
gboolean pl_cli_figure_write_attention  (PlAttentionStats         *stats,
                                         int                       layer,
                                         int                       head,
                                         const char               *out,
                                         const PlCliFigureOptions *options,
                                         GError                  **error);
/* The probe results of one table as a one-row probe table, the means with
 * their 95 % intervals when there were repeats; NAME labels the row (the
 * model's name). Without --size or --width, the table's own size, no blank
 * margins. */
gboolean pl_cli_figure_write_probe      (const PlProbeSummary     *summary,
                                         const char               *name,
                                         const char               *out,
                                         const PlCliFigureOptions *options,
                                         GError                  **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlCliFigureOptions, pl_cli_figure_options_clear)

G_END_DECLS
