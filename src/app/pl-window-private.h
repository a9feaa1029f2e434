/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-window.h"

G_BEGIN_DECLS

struct _PlWindow
{
  AdwApplicationWindow  parent_instance;

  GListStore           *models;
  GSettings            *settings;     /* construct-only, may be NULL */
  PlWorkspace          *workspace;
  GMenu                *recent_menu;
  AdwMessageDialog     *error_dialog;  /* files that did not open, while shown */
  GString              *load_errors;   /* their full messages */
  guint                 n_load_errors;
  guint                 next_order;    /* of the next path opened */
  GCancellable         *paper_cancellable;  /* while the paper's figures are made */
  GCancellable         *open_cancellable;   /* every file being opened: the window closing stops them */
  AdwToast             *paper_toast;        /* its progress */
  char                 *paper_folder;       /* where they were written last */
  guint                 switcher_idle;      /* places the views' switcher */
  AdwMessageDialog     *paper_dialog;       /* names the models left out, while shown */
  PlModel              *removed;            /* the model Delete took out, while Undo is offered */
  guint                 removed_at;
  AdwToast             *remove_toast;       /* offers Undo, while shown */
  char                 *restore_selection;  /* the model selected when the window last closed, until listed */
  gboolean              starting;           /* opening the models of the last session */
  guint                 start_pending;      /* their requests not yet answered */

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkListBox           *model_list;
  AdwViewStack         *view_stack;
  GtkStack             *content_stack;
  GtkStack             *title_stack;      /* the header's switcher, or view_menu */
  GtkDropDown          *view_menu;
  AdwSqueezer          *bottom_squeezer;  /* switcher_bar while its labels fit */
  AdwViewSwitcherBar   *switcher_bar;
};

/* pl-window-open.c: opening checkpoints, recent files, drag and drop */
void pl_window_open_paths          (PlWindow           *self,
                                    const char * const *paths,
                                    const char * const *labels,
                                    const char         *dataset,
                                    gboolean            select,
                                    gboolean            remember);
void pl_window_load_demo_models    (PlWindow           *self);
void pl_window_forget_demo         (PlWindow           *self,
                                    PlModel            *model);
void pl_window_keep_demo           (PlWindow           *self,
                                    PlModel            *model);
void pl_window_restore_demos_action (GtkWidget         *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_save_models         (PlWindow           *self);
void pl_window_restore_models      (PlWindow           *self);
void pl_window_show_load_error     (PlWindow           *self,
                                    const char         *label,
                                    const GError       *error);
void pl_window_update_recent_menu  (PlWindow           *self);
void pl_window_open_action         (GtkWidget          *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_open_ollama_action  (GtkWidget          *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_open_folder_action  (GtkWidget          *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_new_encoding_action (GtkWidget          *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_open_recent_action  (GtkWidget          *widget,
                                    const char         *action_name,
                                    GVariant           *param);
void pl_window_open_analytic_action (GtkWidget        *widget,
                                    const char         *action_name,
                                    GVariant           *param);
/* pl-window-paper.c: "Reproduce the Paper" */
void pl_window_reproduce_paper_action   (GtkWidget   *widget,
                                         const char  *action_name,
                                         GVariant    *param);
void pl_window_open_paper_folder_action (GtkWidget   *widget,
                                         const char  *action_name,
                                         GVariant    *param);
gboolean pl_window_on_drop         (GtkDropTarget      *target,
                                    const GValue       *value,
                                    double              x,
                                    double              y,
                                    PlWindow           *self);

G_END_DECLS
