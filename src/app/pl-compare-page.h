/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_COMPARE_PAGE (pl_compare_page_get_type ())

G_DECLARE_FINAL_TYPE (PlComparePage, pl_compare_page, PL, COMPARE_PAGE, PlPage)

/* Compares the models at these places in the workspace's list. */
void     pl_compare_page_set_models (PlComparePage *self,
                                     guint          first,
                                     guint          second);
/* The difference on screen (first − second), NULL when the shapes differ. */
PlMatrix *pl_compare_page_get_difference (PlComparePage *self);

G_END_DECLS
