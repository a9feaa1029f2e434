/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_PROBES_PAGE (pl_probes_page_get_type ())

G_DECLARE_FINAL_TYPE (PlProbesPage, pl_probes_page, PL, PROBES_PAGE, PlPage)

/* Fits both probes on every model that has no answer yet. */
void     pl_probes_page_run      (PlProbesPage *self);
/* The numbers shown for MODEL under the current options; FALSE while unknown. */
gboolean pl_probes_page_get_result (PlProbesPage *self,
                                    PlModel      *model,
                                    double       *absolute_mae,
                                    double       *relative_error);

G_END_DECLS
