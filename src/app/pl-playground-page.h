/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_PLAYGROUND_PAGE (pl_playground_page_get_type ())

G_DECLARE_FINAL_TYPE (PlPlaygroundPage, pl_playground_page, PL, PLAYGROUND_PAGE, PlPage)

void      pl_playground_page_set_encoding (PlPlaygroundPage *self,
                                           guint             length,
                                           guint             width,
                                           double            base);
/* The cosine matrix on screen. */
PlMatrix *pl_playground_page_get_matrix   (PlPlaygroundPage *self);

G_END_DECLS
