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
  PL_COLORMAP_DIVERGING,   /* signed values, (near-)white at the centre */
} PlColormapId;

#define PL_COLORMAP_N_ENTRIES 256
/* The colour of NaN ("no value"): a neutral grey none of the maps contains. */
#define PL_COLORMAP_NO_VALUE  0x8c8c8c

const char *pl_colormap_to_string   (PlColormapId  id);
/* "viridis", "magma", "inferno", "cividis", "diverging" (or "rdbu"), any case,
 * with a "_r" or "-r" suffix for the reversed map. */
gboolean    pl_colormap_from_string (const char   *name,
                                     PlColormapId *id,
                                     gboolean     *reversed);
/* The names pl_colormap_from_string accepts (without the suffix), NULL-ended. */
const char * const *pl_colormap_list_names (void);
/* The colour of t in [0, 1] as 0xRRGGBB; NaN gives the "no value" grey.
 * Values outside [0, 1] clamp to the ends. Like matplotlib's listed maps,
 * t picks entry floor (t × 256), so entry 0 is t = 0 and entry 255 is t = 1. */
guint32     pl_colormap_lookup      (PlColormapId  id,
                                     gboolean      reversed,
                                     double        t);
/* The whole table as opaque cairo ARGB32 pixels (0xFFRRGGBB), for colouring
 * images without a lookup per call. */
void        pl_colormap_fill_argb   (PlColormapId  id,
                                     gboolean      reversed,
                                     guint32       lut[PL_COLORMAP_N_ENTRIES]);

G_END_DECLS
