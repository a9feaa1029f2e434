/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"
#include "pl-figure-view.h"
#include "pl-folding-toolbar.h"
#include "pl-page-runner.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* A view of the window: a toolbar over a stack of a status page (no model,
 * or an error), a spinner while the first answer comes, and the figure. The
 * base class follows the workspace, holds the view's runners (how it asks
 * its questions, pl-page-runner.h), is busy while they work (a spinner in
 * the corner, a worker's progress along the top), stops them, shows their
 * errors, and asks a hidden view's question only once it is shown. A
 * subclass says what it asks (refresh) and what it exports (get_export_name)
 * and fills the toolbar and the figure from its template; its figure view
 * gives the figure exported and shows the selected positions:
 *
 *   <template class="PlSimilarityPage" parent="PlPage">
 *     <property name="figure-view">figure_view</property>
 *     <child type="toolbar"> … </child>
 *     <child> <object class="PlFigureView" id="figure_view"/> </child>
 *   </template>
 */

#define PL_TYPE_PAGE (pl_page_get_type ())

G_DECLARE_DERIVABLE_TYPE (PlPage, pl_page, PL, PAGE, GtkWidget)

/* What of the workspace a page answers: a change to one refreshes it. */
typedef enum /*< flags >*/
{
  PL_PAGE_FOLLOWS_NOTHING = 0,
  PL_PAGE_FOLLOWS_MODEL   = 1 << 0,
  PL_PAGE_FOLLOWS_LAYER   = 1 << 1,
  PL_PAGE_FOLLOWS_HEAD    = 1 << 2,
  PL_PAGE_FOLLOWS_MODELS  = 1 << 3,   /* the sidebar's list */
  PL_PAGE_FOLLOWS_SELECTION = 1 << 4, /* highlighted on the figure view */
} PlPageFollows;

struct _PlPageClass
{
  GtkWidgetClass parent_class;

  PlPageFollows follows;

  /* Asks the page's question for what the workspace shows now. Called only
   * while the page is on screen: a hidden page is refreshed when shown. */
  void       (*refresh)           (PlPage *self);
  /* The workspace was set: connect to anything else the page follows. */
  void       (*workspace_changed) (PlPage *self);
  /* The colour map or dark mode changed: restyle what is on screen. */
  void       (*style_changed)     (PlPage *self);
  /* The workspace's selected positions changed (the figure view shows
   * them by itself when the page follows the selection). */
  void       (*selection_changed) (PlPage *self);
  /* The figure as shown, or NULL when there is nothing to export; the
   * default: the figure view's. */
  PlFigure  *(*get_figure)        (PlPage *self);
  /* A file name stem for exports: "mini-gpt2-cosine-layer-2". */
  char      *(*get_export_name)   (PlPage *self);
  /* A figure an export can put beside the main one (the explained variance
   * beside a trajectory), or NULL; *LABEL names the choice. */
  PlFigure  *(*get_export_companion) (PlPage      *self,
                                      const char **label);
  /* TRUE while work is in flight; the default: any of the page's runners
   * (a page with work of its own calls pl_page_update_busy when it starts
   * or ends). */
  gboolean   (*get_busy)          (PlPage *self);
};

PlWorkspace   *pl_page_get_workspace   (PlPage        *self);
void           pl_page_set_workspace   (PlPage        *self,
                                        PlWorkspace   *workspace);
PlFigure      *pl_page_get_figure      (PlPage        *self);
char          *pl_page_get_export_name (PlPage        *self);
PlFigure      *pl_page_get_export_companion (PlPage   *self,
                                        const char   **label);
/* Whether the page's questions are in flight ("busy", notified). */
gboolean       pl_page_get_busy        (PlPage        *self);
/* The fraction of a worker's progress shown, or -1 when none is. */
double         pl_page_get_progress    (PlPage        *self);
/* Cancels every question of the page in flight. */
void           pl_page_stop            (PlPage        *self);
/* The view holding the page's main figure, or NULL ("figure-view"). */
PlFigureView  *pl_page_get_figure_view (PlPage        *self);
void           pl_page_set_figure_view (PlPage        *self,
                                        PlFigureView  *view);

/* For subclasses. */
PlPageRunner  *pl_page_get_runner      (PlPage        *self);
/* A runner of its own for a line of questions beside the page's first,
 * freed with the page. */
PlPageRunner  *pl_page_add_runner      (PlPage        *self);
/* The page's busy state may have changed (get_busy overridden). */
void           pl_page_update_busy     (PlPage        *self);
/* The model the page's own results belong to (a ref is held), or NULL. */
PlModel       *pl_page_get_model       (PlPage        *self);
void           pl_page_set_model       (PlPage        *self,
                                        PlModel       *model);
/* Runs the refresh vfunc now when shown; otherwise stops the page and runs
 * it when the page is next shown. */
void           pl_page_refresh         (PlPage        *self);
/* What a template's <child type="toolbar"> and <child> do, for subclasses
 * built in code. */
void           pl_page_add_toolbar_child (PlPage      *self,
                                        GtkWidget     *child);
void           pl_page_set_content     (PlPage        *self,
                                        GtkWidget     *content);
/* The figure, or why the figure view's cannot be drawn. */
void           pl_page_show_figure     (PlPage        *self);
/* The spinner, unless a figure or a message is already shown. */
void           pl_page_show_loading    (PlPage        *self);
/* "No Model Selected", with the page's empty-icon-name. */
void           pl_page_show_empty      (PlPage        *self);
/* A message in the status page; DESCRIPTION is plain text, not markup. */
void           pl_page_show_status     (PlPage        *self,
                                        const char    *icon_name,
                                        const char    *title,
                                        const char    *description);
/* Why a rotary model (pl_model_get_rotary_decoder) has no position table, with a
 * button that opens the analytic RoPE of its base and size (win.open-analytic). */
void           pl_page_show_no_table   (PlPage        *self,
                                        PlModel       *model);
/* The start of a view's refresh when it asks about the workspace's model at
 * its layer: the model, with the spinner shown; or NULL, the question in
 * flight cancelled and the reason shown (no model, or a rotary model's
 * table, which it does not have). */
PlModel       *pl_page_begin_layer_question (PlPage   *self);
/* For a runner's answer: its boxed value, or NULL with ERROR shown (as
 * pl_page_show_error with the default title). */
gpointer       pl_page_answer_or_error (PlPage        *self,
                                        const GValue  *answer,
                                        const GError  *error);
/* ERROR's message, as plain text and a sentence (pl_error_sentence), under
 * TITLE ("Cannot Show This Model" when NULL). */
void           pl_page_show_error      (PlPage        *self,
                                        const char    *title,
                                        const GError  *error);
/* The row above the figure: the toolbar, folded into a menu when the page is
 * too narrow for it. */
PlFoldingToolbar *pl_page_get_toolbar  (PlPage        *self);
/* The status page on screen (the error's when one is shown), for tests. */
AdwStatusPage *pl_page_get_status      (PlPage        *self);
/* The name of the stack child shown: "status", "error", "loading" or "figure". */
const char    *pl_page_get_shown       (PlPage        *self);

G_END_DECLS
