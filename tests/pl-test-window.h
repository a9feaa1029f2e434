/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-application.h"
#include "pl-window.h"

G_BEGIN_DECLS

/* Helpers for tests that drive the real window. */

/* pl_test_init for a window test: OpenBLAS's kernels chosen, then GTK and
 * libadwaita started, without the accessibility bus (there is none under
 * Xvfb). */
void      pl_test_window_init (int            *argc,
                               char         ***argv);
/* The models a new window lists: three text checkpoints, the sinusoid and
 * the vision transformer (pl_paths_list_demo_models). */
#define PL_TEST_N_DEMOS 5

/* A registered, activated application in *APP, and its window once the
 * demo models are listed. */
PlWindow *pl_test_window_open (PlApplication **app);
/* The view NAME of WINDOW ("similarity", "compare", …), which must exist. */
GtkWidget *pl_test_page      (PlWindow      *window,
                              const char    *name);
/* Activates the window's ACTION with PARAM, as its keys and menus do. */
void      pl_test_activate    (PlWindow      *window,
                               const char    *action,
                               GVariant      *param);
/* Whether the view PAGE has finished and shows a figure. */
gboolean  pl_test_page_ready  (gpointer       page);

/* Turns the main loop until CHECK (DATA) holds; fails the test after 400 s. */
void     pl_test_wait_until  (gboolean   (*check) (gpointer data),
                              gpointer     data,
                              const char  *what);
/* Turns the main loop for MS milliseconds: for benches (bench/
 * pl-bench-stepping), never tests, which wait for events. */
void     pl_test_run_for     (guint        ms);
/* Waits until every task on the default executor has ended and the main
 * loop has run what each queued when it ended (its answer callback). */
void     pl_test_wait_tasks_answered (void);
/* Lets WIDGET draw N frames. */
void     pl_test_wait_frames (GtkWidget   *widget,
                              guint        n);
/* WIDGET as drawn, through its window's renderer: RGBA bytes, 4 per pixel. */
GBytes  *pl_test_render      (GtkWidget   *widget,
                              int         *width,
                              int         *height);
/* Whether a visible label under WIDGET shows TEXT. */
gboolean pl_test_shows_label (GtkWidget   *widget,
                              const char  *text);
/* How many different colours a sample of the image holds. */
guint    pl_test_count_colours (GBytes    *image);
/* The mean luminance (0 … 1) of the image. */
double   pl_test_mean_luminance (GBytes   *image);

G_END_DECLS
