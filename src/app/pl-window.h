/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-application.h"
#include "pl-model.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

#define PL_TYPE_WINDOW (pl_window_get_type ())

G_DECLARE_FINAL_TYPE (PlWindow, pl_window, PL, WINDOW, AdwApplicationWindow)

PlWindow   *pl_window_new            (PlApplication *application);
/* Opens a checkpoint on a worker thread and adds it to the sidebar; errors become toasts. */
void        pl_window_open_file      (PlWindow      *self,
                                      GFile         *file,
                                      gboolean       select);
GListModel *pl_window_get_models     (PlWindow      *self);
PlModel    *pl_window_get_selected_model (PlWindow  *self);
void        pl_window_select_model   (PlWindow      *self,
                                      guint          position);
void        pl_window_show_error     (PlWindow      *self,
                                      const char    *message);
PlWorkspace *pl_window_get_workspace (PlWindow *self);
/* Shows the view named NAME ("similarity", "trajectory", …); FALSE when there is none. */
gboolean     pl_window_show_view     (PlWindow   *self,
                                      const char *name);
/* Figure 1 and Table 1 for the models in the sidebar into FOLDER, as the
 * "Reproduce the Paper" action does after asking for the folder; busy until
 * they are written (a toast says so, or why not). */
void        pl_window_reproduce_paper_in (PlWindow  *self,
                                      const char    *folder);
gboolean    pl_window_get_paper_busy (PlWindow      *self);
/* The view named NAME, for tests and for actions that reach into them. */
GtkWidget  *pl_window_get_page       (PlWindow      *self,
                                      const char    *name);

G_END_DECLS
