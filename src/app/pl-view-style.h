/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-figure.h"
#include "pl-similarity.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* Text sizes: on screen one figure unit is a pixel, where 10 would be small;
 * on paper one unit is a point, and 10 pt is what journals ask for. */
#define PL_VIEW_SCREEN_FONT_SIZE 12.0
#define PL_VIEW_PAPER_FONT_SIZE  10.0

/* The look every view shares: the colour map from the preferences, and the
 * dark background when the desktop is dark. Exports keep their own choice. */
void pl_view_style_apply   (PlFigure    *figure,
                            PlWorkspace *workspace);
/* The shared look for a heatmap of METRIC. Distances turn the map around,
 * so that near positions are bright as similar ones are for cosine. */
void pl_view_style_apply_metric (PlFigure           *figure,
                                 PlWorkspace        *workspace,
                                 PlSimilarityMetric  metric);
/* Calls CALLBACK (swapped, on INSTANCE) when the shared look changes. */
void pl_view_style_connect (PlWorkspace *workspace,
                            GCallback    callback,
                            gpointer     instance);

G_END_DECLS
