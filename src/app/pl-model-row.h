/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-model.h"

G_BEGIN_DECLS

#define PL_TYPE_MODEL_ROW (pl_model_row_get_type ())

G_DECLARE_FINAL_TYPE (PlModelRow, pl_model_row, PL, MODEL_ROW, AdwActionRow)

PlModelRow *pl_model_row_new       (PlModel    *model);
PlModel    *pl_model_row_get_model (PlModelRow *self);

G_END_DECLS
