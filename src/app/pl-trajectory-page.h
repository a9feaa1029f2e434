/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-page.h"

G_BEGIN_DECLS

#define PL_TYPE_TRAJECTORY_PAGE (pl_trajectory_page_get_type ())

G_DECLARE_FINAL_TYPE (PlTrajectoryPage, pl_trajectory_page, PL, TRAJECTORY_PAGE, PlPage)

void       pl_trajectory_page_set_3d          (PlTrajectoryPage *self,
                                               gboolean          three_d);

G_END_DECLS
