/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"
#include "pl-model.h"
#include "pl-page.h"
#include "pl-similarity.h"

G_BEGIN_DECLS

#define PL_TYPE_SIMILARITY_PAGE (pl_similarity_page_get_type ())

G_DECLARE_FINAL_TYPE (PlSimilarityPage, pl_similarity_page, PL, SIMILARITY_PAGE, PlPage)

/* The matrix on screen, or NULL. */
PlMatrix  *pl_similarity_page_get_matrix      (PlSimilarityPage *self);
/* Asks for METRIC, as choosing it in the view does. */
void       pl_similarity_page_set_metric      (PlSimilarityPage   *self,
                                               PlSimilarityMetric  metric);

G_END_DECLS
