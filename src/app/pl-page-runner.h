/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "pl-workspace.h"

G_BEGIN_DECLS

/* How a view asks its questions: one line of them, answered from the
 * workspace's cache at once or by a worker. Asking again cancels the
 * question in flight, and a cancelled question is never answered. Three
 * kinds of question:
 *   - ask_table: about a model's table at a layer (read, or computed from
 *     forward passes, by the workspace), e.g. its similarity;
 *   - ask_forward: about a model's forward pass (its PlTransformer, built
 *     once per model and kept in the cache), e.g. attention statistics;
 *   - ask: about an input the page makes itself (a tokenizer's folder, an
 *     analytic encoding's size).
 * A page holds one runner (pl_page_get_runner) and adds one for each line
 * of questions that runs beside it (pl_page_add_runner); the page is busy
 * while any of them is, shows a worker's progress, and stops them all. */

typedef struct _PlPageRunner PlPageRunner;
typedef struct _PlPage       PlPage;

/* The worker's input, made on the main thread from what the first step got. */
typedef gpointer (*PlPageTableInputFunc)   (PlPage        *page,
                                            PlMatrix      *table);
typedef gpointer (*PlPageForwardInputFunc) (PlPage        *page,
                                            PlModel       *model,
                                            PlTransformer *transformer);
/* The answer, on the main thread: ANSWER, or NULL with ERROR set. */
typedef void     (*PlPageAnswerFunc)       (PlPage        *page,
                                            const GValue  *answer,
                                            const GError  *error);

/* Answers KEY with FUNC (MAKE_INPUT (page, table)) for the table of MODEL
 * at LAYER. */
void          pl_page_runner_ask_table   (PlPageRunner          *runner,
                                          const char            *key,
                                          PlModel               *model,
                                          int                    layer,
                                          PlPageTableInputFunc   make_input,
                                          PlAnalysisFunc         func,
                                          GDestroyNotify         input_free,
                                          PlPageAnswerFunc       answer);
/* Answers KEY with FUNC (MAKE_INPUT (page, model, transformer)) for MODEL's
 * forward pass. When the model cannot run, ANSWER gets why. */
void          pl_page_runner_ask_forward (PlPageRunner          *runner,
                                          const char            *key,
                                          PlModel               *model,
                                          PlPageForwardInputFunc make_input,
                                          PlAnalysisFunc         func,
                                          GDestroyNotify         input_free,
                                          PlPageAnswerFunc       answer);
/* Answers KEY with FUNC (INPUT); INPUT is freed with INPUT_FREE. */
void          pl_page_runner_ask         (PlPageRunner          *runner,
                                          const char            *key,
                                          PlAnalysisFunc         func,
                                          gpointer               input,
                                          GDestroyNotify         input_free,
                                          PlPageAnswerFunc       answer);
/* Cancels the question in flight, if any. */
void          pl_page_runner_cancel      (PlPageRunner          *runner);
/* Whether a question is in flight. */
gboolean      pl_page_runner_get_busy    (PlPageRunner          *runner);

/* For PlPage: a runner asking for PAGE, which CHANGED (PAGE) hears of every
 * start and end of a question, and PROGRESS (PAGE, fraction) of a worker's
 * progress. */
PlPageRunner *pl_page_runner_new         (PlPage                *page,
                                          void                 (*changed)  (PlPage *page),
                                          void                 (*progress) (PlPage *page,
                                                                            double  fraction));
void          pl_page_runner_free        (PlPageRunner          *runner);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPageRunner, pl_page_runner_free)

G_END_DECLS
