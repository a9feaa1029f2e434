/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"
#include "pl-probes.h"

G_BEGIN_DECLS

#define PL_TYPE_PROBES_PAGE (pl_probes_page_get_type ())

G_DECLARE_FINAL_TYPE (PlProbesPage, pl_probes_page, PL, PROBES_PAGE, PlPage)

/* Fits both probes on every model that has no answer yet. */
void     pl_probes_page_run      (PlProbesPage *self);
void     pl_probes_page_set_protocol (PlProbesPage    *self,
                                      PlProbeProtocol  protocol);
PlProbeProtocol pl_probes_page_get_protocol (PlProbesPage *self);
/* The relative probe's pairs; 0: the protocol's own count ("Auto"). */
void     pl_probes_page_set_pairs (PlProbesPage *self,
                                   guint         n_pairs);
/* The caption under the table, which its exports keep: the protocol and
 * the runs, the chance levels, a warning naming the models whose relative
 * probe had fewer pairs than features, and the footnotes on the models'
 * names (why one has no answer, which results are worse than chance). */
const char *pl_probes_page_get_note (PlProbesPage *self);
/* The numbers shown for MODEL under the current options; FALSE while unknown. */
gboolean pl_probes_page_get_result (PlProbesPage *self,
                                    PlModel      *model,
                                    double       *absolute_mae,
                                    double       *relative_error);
/* The grid probes shown for MODEL: row MAE, column MAE, the error of the
 * order along rows and along columns (NaN for a model without a grid);
 * FALSE while unknown. */
gboolean pl_probes_page_get_grid_result (PlProbesPage *self,
                                         PlModel      *model,
                                         double       *values);

G_END_DECLS
