/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean pl_renderer_choose (const char *dri_dir);

G_END_DECLS
