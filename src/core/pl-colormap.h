/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PL_COLORMAP_VIRIDIS,
  PL_COLORMAP_MAGMA,
  PL_COLORMAP_INFERNO,
  PL_COLORMAP_CIVIDIS,
  PL_COLORMAP_DIVERGING,   /* signed values, white at the centre */
} PlColormapId;

const char *pl_colormap_to_string   (PlColormapId  id);
gboolean    pl_colormap_from_string (const char   *name,
                                     PlColormapId *id,
                                     gboolean     *reversed);
/* The colour of t in [0, 1] as 0xRRGGBB; NaN gives the "no value" grey. */
guint32     pl_colormap_lookup      (PlColormapId  id,
                                     gboolean      reversed,
                                     double        t);

G_END_DECLS
