/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The folder of the demo checkpoints shipped with Poslens: $POSLENS_DEMO_DIR,
 * else the installed copy, else the source tree's (for the build tree). */
const char  *pl_paths_get_demo_dir     (void);
/* The built-in demo models, as paths pl_model_open() takes, in display order. */
char       **pl_paths_list_demo_models (void);

G_END_DECLS
