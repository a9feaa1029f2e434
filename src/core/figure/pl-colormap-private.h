/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The published 256-entry tables, in pl-colormap-data.c (generated once). */
extern const guint8 pl_colormap_viridis_data[256][3];
extern const guint8 pl_colormap_magma_data[256][3];
extern const guint8 pl_colormap_inferno_data[256][3];
extern const guint8 pl_colormap_cividis_data[256][3];
extern const guint8 pl_colormap_diverging_data[256][3];

G_END_DECLS
