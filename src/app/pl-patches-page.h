/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-grid.h"
#include "pl-page.h"
#include "pl-similarity.h"

G_BEGIN_DECLS

#define PL_TYPE_PATCHES_PAGE (pl_patches_page_get_type ())

G_DECLARE_FINAL_TYPE (PlPatchesPage, pl_patches_page, PL, PATCHES_PAGE, PlPage)

/* What the page shows of a vision transformer's patches. */
typedef enum
{
  PL_PATCHES_GRID_OF_GRIDS,   /* each patch's similarity with every patch, in its place */
  PL_PATCHES_COLOURS,         /* the first three principal components as RGB */
} PlPatchesShow;

void       pl_patches_page_show               (PlPatchesPage *self,
                                               PlPatchesShow  show);
/* The measure of the grid of grids (cosine at first). */
void       pl_patches_page_set_metric         (PlPatchesPage      *self,
                                               PlSimilarityMetric  metric);
/* SHOW: the table resized to ROWS × COLS (1 to 64 each) beside the
 * original, as poslens-cli resize resizes it with RESAMPLE. */
void       pl_patches_page_set_resize         (PlPatchesPage      *self,
                                               gboolean            show,
                                               guint               rows,
                                               guint               cols,
                                               PlGridResample      resample);
/* The widget the resized table is drawn in (the table's: pl_page_get_figure_view). */
GtkWidget *pl_patches_page_get_resized_view   (PlPatchesPage *self);
/* The patch whose map is shown large (a click on it), or -1 for the grid. */
int        pl_patches_page_get_focus          (PlPatchesPage *self);

G_END_DECLS
