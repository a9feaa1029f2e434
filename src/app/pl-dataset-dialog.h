/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-model.h"

G_BEGIN_DECLS

#define PL_TYPE_DATASET_DIALOG (pl_dataset_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PlDatasetDialog, pl_dataset_dialog, PL, DATASET_DIALOG, AdwWindow)

/* Shows MODEL's file as a tree of its datasets; emits "chosen" (dataset name)
 * when the user picks a 2-D table. */
PlDatasetDialog *pl_dataset_dialog_new       (GtkWindow       *parent,
                                              PlModel         *model);
PlModel         *pl_dataset_dialog_get_model (PlDatasetDialog *self);
/* Picks DATASET as if the user had, for tests; FALSE when it cannot be a table. */
gboolean         pl_dataset_dialog_choose    (PlDatasetDialog *self,
                                              const char      *dataset);

G_END_DECLS
