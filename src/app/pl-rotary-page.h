/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"
#include "pl-rope-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_ROTARY_PAGE (pl_rotary_page_get_type ())

G_DECLARE_FINAL_TYPE (PlRotaryPage, pl_rotary_page, PL, ROTARY_PAGE, PlPage)

/* The profile on screen, NULL before it arrives. */
PlRopeProfile *pl_rotary_page_get_profile (PlRotaryPage *self);

G_END_DECLS
