/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PL_TYPE_APPLICATION (pl_application_get_type ())

G_DECLARE_FINAL_TYPE (PlApplication, pl_application, PL, APPLICATION, AdwApplication)

PlApplication *pl_application_new          (void);
/* The app's settings; NULL only when its schema is nowhere to be found. */
GSettings     *pl_application_get_settings (PlApplication *self);

G_END_DECLS
