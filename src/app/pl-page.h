/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "pl-figure.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* What the window asks of each of its views: follow the workspace, and hand
 * over the figure on screen for export. */

#define PL_TYPE_PAGE (pl_page_get_type ())

G_DECLARE_INTERFACE (PlPage, pl_page, PL, PAGE, GtkWidget)

struct _PlPageInterface
{
  GTypeInterface parent_iface;

  void       (*set_workspace)   (PlPage      *self,
                                 PlWorkspace *workspace);
  /* The figure as shown, or NULL when there is nothing to export. */
  PlFigure  *(*get_figure)      (PlPage      *self);
  /* A file name stem for exports: "mini-gpt2-cosine-layer-2". */
  char      *(*get_export_name) (PlPage      *self);
};

void       pl_page_set_workspace   (PlPage      *self,
                                    PlWorkspace *workspace);
PlFigure  *pl_page_get_figure      (PlPage      *self);
char      *pl_page_get_export_name (PlPage      *self);

/* A hidden view waits until it is shown: no work and no figures for what
 * nobody looks at. TRUE (and *STALE set) when PAGE is hidden and should stop;
 * the page's map handler asks again when *STALE. */
gboolean   pl_page_defer_until_shown (GtkWidget *page,
                                      gboolean  *stale);

/* For GtkWidget subclasses built from a template: unparents what is left
 * after gtk_widget_dispose_template(), which clears only bound children. */
void       pl_widget_unparent_children (GtkWidget *widget);

G_END_DECLS
