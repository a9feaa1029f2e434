/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-figure.h"

G_BEGIN_DECLS

/* Every kind of figure Poslens makes, for the figure-layout contract: a
 * name and a builder that makes it as the window or the command line does,
 * with realistic data, titles and labels. A new kind adds a line to the
 * table in test-figure-layout-kinds.c. */
typedef struct
{
  const char  *name;
  PlFigure  *(*build) (void);
} PlLayoutKind;

const PlLayoutKind *pl_layout_kinds (guint *n);

G_END_DECLS
