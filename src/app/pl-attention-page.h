/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-attention-stats.h"
#include "pl-attention-text.h"
#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_ATTENTION_PAGE (pl_attention_page_get_type ())

G_DECLARE_FINAL_TYPE (PlAttentionPage, pl_attention_page, PL, ATTENTION_PAGE, PlPage)

/* The statistics on screen, NULL before they arrive. */
PlAttentionStats *pl_attention_page_get_stats (PlAttentionPage *self);
/* "offsets", "distances", "position-only" or "text". */
void              pl_attention_page_show      (PlAttentionPage *self,
                                               const char      *view);
/* The sub-view of a typed sentence's attention. */
PlAttentionText  *pl_attention_page_get_text  (PlAttentionPage *self);

G_END_DECLS
