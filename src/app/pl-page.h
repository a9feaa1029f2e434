/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"
#include "pl-folding-toolbar.h"
#include "pl-page-runner.h"
#include "pl-workspace.h"

G_BEGIN_DECLS

/* A view of the window: a toolbar over a stack of a status page (no model,
 * or an error), a spinner while the first answer comes, and the figure. The
 * base class follows the workspace, holds the view's runner, and asks a
 * hidden view's question only once it is shown; a subclass says what it
 * asks (refresh), what it exports (get_figure, get_export_name) and fills the
 * toolbar and the figure from its template:
 *
 *   <template class="PlSimilarityPage" parent="PlPage">
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
  /* The workspace's selected positions changed. */
  void       (*selection_changed) (PlPage *self);
  /* The figure as shown, or NULL when there is nothing to export. */
  PlFigure  *(*get_figure)        (PlPage *self);
  /* A file name stem for exports: "mini-gpt2-cosine-layer-2". */
  char      *(*get_export_name)   (PlPage *self);
  /* A figure an export can put beside the main one (the explained variance
   * beside a trajectory), or NULL; *LABEL names the choice. */
  PlFigure  *(*get_export_companion) (PlPage      *self,
                                      const char **label);
  /* TRUE while work is in flight; the default: the page's own work or the
   * runner's. */
  gboolean   (*get_busy)          (PlPage *self);
};

PlWorkspace   *pl_page_get_workspace   (PlPage        *self);
void           pl_page_set_workspace   (PlPage        *self,
                                        PlWorkspace   *workspace);
PlFigure      *pl_page_get_figure      (PlPage        *self);
char          *pl_page_get_export_name (PlPage        *self);
PlFigure      *pl_page_get_export_companion (PlPage   *self,
                                        const char   **label);
gboolean       pl_page_get_busy        (PlPage        *self);

/* For subclasses. */
PlPageRunner  *pl_page_get_runner      (PlPage        *self);
/* The page's own work, beside the runner's questions (a forward pass, a
 * run of the probes): start cancels any in flight and returns the
 * cancellable of the new one (the page's); stop cancels it; the page is busy
 * while one is held, and dispose cancels it. */
GCancellable  *pl_page_start_work      (PlPage        *self);
void           pl_page_stop_work       (PlPage        *self);
/* The work in flight, or NULL. */
GCancellable  *pl_page_get_work        (PlPage        *self);
/* The model the page's own results belong to (a ref is held), or NULL. */
PlModel       *pl_page_get_model       (PlPage        *self);
void           pl_page_set_model       (PlPage        *self,
                                        PlModel       *model);
/* Runs the refresh vfunc now when shown; otherwise cancels the runner and
 * runs it when the page is next shown. */
void           pl_page_refresh         (PlPage        *self);
/* What a template's <child type="toolbar"> and <child> do, for subclasses
 * built in code. */
void           pl_page_add_toolbar_child (PlPage      *self,
                                        GtkWidget     *child);
void           pl_page_set_content     (PlPage        *self,
                                        GtkWidget     *content);
void           pl_page_set_busy        (PlPage        *self,
                                        gboolean       busy);
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
/* Why a rotary model (pl_model_get_decoder) has no position table, with a
 * button that opens the analytic RoPE of its base and size (win.open-analytic). */
void           pl_page_show_no_table   (PlPage        *self,
                                        PlModel       *model);
/* The start of a view's refresh when it asks about the workspace's model at
 * its layer: the model, with the spinner shown; or NULL, the question in
 * flight cancelled and the reason shown (no model, or a rotary model's
 * table, which it does not have). */
PlModel       *pl_page_begin_layer_question (PlPage   *self);
/* For a runner's answer: its boxed value, or NULL with ERROR shown. */
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
