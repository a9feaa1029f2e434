/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The folder of the demo checkpoints shipped with Poslens: $POSLENS_DEMO_DIR,
 * else the installed copy, else the source tree's (for the build tree). */
const char  *pl_paths_get_demo_dir     (void);
/* The built-in demo models, as paths pl_model_open() takes, in display order:
 * the text checkpoints, the sinusoid, then the vision transformer. */
char       **pl_paths_list_demo_models (void);
/* TRUE for PATH inside the demo folder: files Poslens ships, trusted. */
gboolean     pl_paths_is_demo          (const char *path);
/* poslens-cli, the helper that opens untrusted files in a process of its
 * own: $POSLENS_CLI, else the one beside this program (installed, Flatpak),
 * else the build tree's; NULL when there is none. */
const char  *pl_paths_get_cli          (void);

G_END_DECLS
