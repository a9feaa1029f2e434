/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"
#include "pl-model.h"
#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_SIMILARITY_PAGE (pl_similarity_page_get_type ())

G_DECLARE_FINAL_TYPE (PlSimilarityPage, pl_similarity_page, PL, SIMILARITY_PAGE, PlPage)

/* The widget the figure is drawn in. */
GtkWidget *pl_similarity_page_get_figure_view (PlSimilarityPage *self);

G_END_DECLS
