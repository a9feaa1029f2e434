/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "pl-workspace.h"

G_BEGIN_DECLS

#define PL_TYPE_LAYER_PICKER (pl_layer_picker_get_type ())

G_DECLARE_FINAL_TYPE (PlLayerPicker, pl_layer_picker, PL, LAYER_PICKER, GtkWidget)

void pl_layer_picker_set_workspace (PlLayerPicker *self,
                                    PlWorkspace   *workspace);

G_END_DECLS
