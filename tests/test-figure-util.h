/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-figure.h"
#include "pl-pca.h"
#include "pl-test-util.h"

G_BEGIN_DECLS

/* FIGURE rendered onto a fresh WIDTH × HEIGHT image at one unit a pixel. */
cairo_surface_t *fig_render         (PlFigure        *figure,
                                     int              width,
                                     int              height);
/* The 0xRRGGBB of the pixel containing (x, y). */
guint32          fig_pixel          (cairo_surface_t *surface,
                                     double           x,
                                     double           y);
cairo_surface_t *fig_load_png       (const char      *path);
/* Mean absolute channel difference (0–255) of two same-sized images and the
 * share of pixels where some channel differs by more than 64, over the
 * pixels outside SKIP (NULL: all of them). */
void             fig_compare_images (cairo_surface_t         *a,
                                     cairo_surface_t         *b,
                                     const cairo_rectangle_t *skip,
                                     double                  *mean,
                                     double                  *bad);
/* The demo GPT-2's position table: its cosine matrix, its first three components. */
PlMatrix        *fig_gpt2_cosine    (void);
PlPca           *fig_gpt2_pca       (void);
/* ROWS × COLS values from −0.5 to 1.5, with a NaN at (1, 1). */
PlMatrix        *fig_ramp           (gsize            rows,
                                     gsize            cols);
gboolean         fig_have_program   (const char      *name);
/* Runs ARGV and asserts it succeeded. */
void             fig_run            (const char * const *argv);

G_END_DECLS
