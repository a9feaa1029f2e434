/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-colormap.h"
#include "pl-encodings.h"
#include "pl-export-dialog.h"
#include "pl-playground-page.h"
#include "pl-enums.h"
#include "pl-probes.h"
#include "pl-similarity.h"

G_BEGIN_DECLS

/* The window's choices are enum types (pl-enums.h, made by glib-mkenums):
 * a drop-down lists the type's values under their translated names and
 * answers with a value, never a position. */

/* The translated name of VALUE of TYPE: "Cosine similarity". */
const char *pl_enum_label            (GType        type,
                                      int          value);
/* For a list of TYPE's values (AdwEnumListModel): what names its items. */
GtkExpression *pl_enum_label_expression_new (GType type);

/* Fills DROP_DOWN with TYPE's values. */
void        pl_drop_down_set_enum    (GtkDropDown *drop_down,
                                      GType        type);
int         pl_drop_down_get_value   (GtkDropDown *drop_down);
void        pl_drop_down_set_value   (GtkDropDown *drop_down,
                                      int          value);
/* Makes NAMES (a drop-down's list) "Layer 1" … "Layer N", or "Head 1" …
 * "Head N", unless it holds N names already. */
void        pl_string_list_set_layers (GtkStringList *names,
                                       guint          n);
void        pl_string_list_set_heads  (GtkStringList *names,
                                       guint          n);
/* Binds KEY of SETTINGS (a string: a nick of LIST's enum type) both ways
 * to OBJECT's "selected" position in LIST (a drop-down's or a combo row's
 * model). */
void        pl_settings_bind_enum    (GSettings        *settings,
                                      const char       *key,
                                      gpointer          object,
                                      AdwEnumListModel *list);

G_END_DECLS
