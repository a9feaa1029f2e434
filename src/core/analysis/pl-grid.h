/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"
#include "pl-pca.h"
#include "pl-similarity.h"

G_BEGIN_DECLS

/* Tables whose rows are the patches of an image in a grid of ROWS × COLS,
 * row by row (patch p in row p / COLS, column p % COLS), as vision
 * transformers keep them after their special tokens' rows. */

/* How Hugging Face's interpolate_pos_encoding resizes the grid of a ViT,
 * DeiT, DINOv2, CLIP or SigLIP table for another image size: bicubic
 * (a = −0.75), align_corners=False, on the [1, width, rows, cols] grid, with
 * either of two sets of arguments to F.interpolate. */
typedef enum
{
  PL_GRID_RESAMPLE_SIZE,   /* size=(new_rows, new_cols): transformers 4.45 and later */
  PL_GRID_RESAMPLE_TENTH,  /* scale_factor=((new_rows + 0.1) / rows, (new_cols + 0.1) / cols):
                            * transformers before 4.45, as DINO's original code */
} PlGridResample;

const char *pl_grid_resample_to_string   (PlGridResample  resample);
gboolean    pl_grid_resample_from_string (const char     *name,
                                          PlGridResample *resample);

/* The largest side a resized grid may have. */
#define PL_GRID_MAX_SIDE 1024

/* PATCHES [ROWS × COLS, width] resized to NEW_ROWS × NEW_COLS as torch's
 * upsample_bicubic2d computes it (float32, source index
 * (i + ½)·s − ½ with s = 1 / scale factor or ROWS / NEW_ROWS, the four taps
 * clamped at the edges, rows of taps weighted after columns), so the result
 * is what F.interpolate gives with RESAMPLE's arguments. As
 * interpolate_pos_encoding, a square grid asked for at its own size comes
 * back unchanged. [NEW_ROWS × NEW_COLS, width]. */
PlMatrix   *pl_grid_interpolate         (const PlMatrix  *patches,
                                         guint            rows,
                                         guint            cols,
                                         guint            new_rows,
                                         guint            new_cols,
                                         PlGridResample   resample,
                                         GCancellable    *cancellable,
                                         GError         **error);

/* The values of the grid of grids: METRIC between every two of PATCHES
 * ([ROWS × COLS, width], [n, n]) and, when SPECIAL ([k, width]) is given,
 * between each special row and every patch in *SPECIAL_OUT ([k, n]), both
 * from one computation over the rows stacked, so they share its scale. */
PlMatrix   *pl_grid_similarity          (const PlMatrix     *patches,
                                         const PlMatrix     *special,
                                         PlSimilarityMetric  metric,
                                         PlMatrix          **special_out,
                                         GCancellable       *cancellable,
                                         GError            **error);

/* The first three principal components of PCA's rows as red, green and
 * blue: each component's values scaled over the rows to [0, 1],
 * (v − min) / (max − min), so the lowest value of each is 0 and the highest
 * 1 (a constant component, or one PCA did not compute, is 0.5 throughout).
 * [n_rows, 3]. */
PlMatrix   *pl_grid_pca_colors          (const PlPca     *pca);

G_END_DECLS
