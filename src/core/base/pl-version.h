/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The version the window's About and poslens-cli --version show: the
 * release ("0.2.0"), and in a build from a git checkout the commit it was
 * built from ("0.2.0+dcf971d"). */
const char *pl_version (void);

G_END_DECLS
