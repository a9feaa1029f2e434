/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "pl-workspace.h"

G_BEGIN_DECLS

/* How a view asks a question of a position table: the answer comes from the
 * workspace's cache at once, or from a worker after the table of the model's
 * layer is read; asking again cancels the question in flight. One per view. */

typedef struct _PlPageRunner PlPageRunner;

/* Builds the worker's input from the table (on the main thread). */
typedef gpointer (*PlPageInputFunc)  (PlMatrix     *table,
                                      gpointer      page);
/* The answer, on the main thread; ERROR set when there is none. */
typedef void     (*PlPageAnswerFunc) (gpointer      page,
                                      const GValue *answer,
                                      const GError *error);

PlPageRunner *pl_page_runner_new      (gpointer          page,
                                       GtkSpinner       *spinner);
void          pl_page_runner_free     (PlPageRunner     *runner);
void          pl_page_runner_cancel   (PlPageRunner     *runner);
gboolean      pl_page_runner_get_busy (PlPageRunner     *runner);
/* Answers KEY for the table of MODEL at LAYER with FUNC (make_input (table)). */
void          pl_page_runner_ask      (PlPageRunner     *runner,
                                       PlWorkspace      *workspace,
                                       const char       *key,
                                       PlModel          *model,
                                       int               layer,
                                       PlPageInputFunc   make_input,
                                       PlAnalysisFunc    func,
                                       GDestroyNotify    input_free,
                                       PlPageAnswerFunc  answer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPageRunner, pl_page_runner_free)

G_END_DECLS
