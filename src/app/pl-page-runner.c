/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-page.h"
#include "pl-page-runner.h"

struct _PlPageRunner
{
  PlPage       *page;        /* not owned: the runner lives inside it */
  GCancellable *cancellable; /* the question in flight, or NULL */
  void        (*changed)  (PlPage *page);
  void        (*progress) (PlPage *page,
                           double  fraction);
};

/* What one question carries from step to step. */
typedef struct
{
  PlPageRunner          *runner;
  GCancellable          *cancellable;
  PlWorkspace           *workspace;
  PlModel               *model;       /* of a forward question */
  char                  *key;
  PlPageTableInputFunc   make_table_input;
  PlPageForwardInputFunc make_forward_input;
  PlAnalysisFunc         func;
  GDestroyNotify         input_free;
  PlPageAnswerFunc       answer;
} Question;

static void
question_free (Question *q)
{
  g_clear_object (&q->cancellable);
  g_clear_object (&q->workspace);
  g_clear_object (&q->model);
  g_free (q->key);
  g_free (q);
}

PlPageRunner *
pl_page_runner_new (PlPage  *page,
                    void   (*changed)  (PlPage *page),
                    void   (*progress) (PlPage *page,
                                        double  fraction))
{
  PlPageRunner *runner = g_new0 (PlPageRunner, 1);

  runner->page = page;
  runner->changed = changed;
  runner->progress = progress;
  return runner;
}

void
pl_page_runner_free (PlPageRunner *runner)
{
  if (runner == NULL)
    return;
  g_cancellable_cancel (runner->cancellable);
  g_clear_object (&runner->cancellable);
  g_free (runner);
}

static void
set_cancellable (PlPageRunner *runner,
                 GCancellable *cancellable)
{
  gboolean was_busy = runner->cancellable != NULL;

  g_cancellable_cancel (runner->cancellable);
  g_clear_object (&runner->cancellable);
  runner->cancellable = cancellable;
  if (runner->changed != NULL && (was_busy || cancellable != NULL))
    runner->changed (runner->page);
}

void
pl_page_runner_cancel (PlPageRunner *runner)
{
  g_return_if_fail (runner != NULL);
  set_cancellable (runner, NULL);
}

gboolean
pl_page_runner_get_busy (PlPageRunner *runner)
{
  g_return_val_if_fail (runner != NULL, FALSE);
  return runner->cancellable != NULL;
}

/* Whether Q still is the runner's question. Its cancellable is looked at
 * first: a runner freed with its page cancelled it. */
static gboolean
is_current (Question *q)
{
  return !g_cancellable_is_cancelled (q->cancellable) && q->runner->cancellable == q->cancellable;
}

/* Ends Q's step with its answer, or with ERROR when ANSWER is NULL. */
static void
finish (Question     *q,
        const GValue *answer,
        const GError *error)
{
  PlPageRunner *runner = q->runner;

  /* The page may ask again from its answer: the runner is free first. */
  g_clear_object (&runner->cancellable);
  if (runner->changed != NULL)
    runner->changed (runner->page);
  q->answer (runner->page, answer, error);
}

static void
on_progress (double   fraction,
             gpointer data)
{
  Question *q = data;

  if (is_current (q) && q->runner->progress != NULL)
    q->runner->progress (q->runner->page, fraction);
}

static void
answer_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Question *q = user_data;
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);

  if (is_current (q))
    finish (q, answer, error);
  question_free (q);
}

/* Q's question, INPUT made: to the cache. */
static void
run (Question *q,
     gpointer  input)
{
  pl_analysis_cache_run_async (pl_workspace_get_cache (q->workspace), q->key, q->func, input, q->input_free,
                               on_progress, q, q->cancellable, answer_done, q);
}

static void
table_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Question *q = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_workspace_get_table_finish (PL_WORKSPACE (object), result, &error);

  if (!is_current (q))
    question_free (q);
  else if (table == NULL)
    {
      finish (q, NULL, error);
      question_free (q);
    }
  else
    run (q, q->make_table_input (q->runner->page, table));
}

static void
transformer_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Question *q = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTransformer) transformer = pl_workspace_get_transformer_finish (PL_WORKSPACE (object), result,
                                                                              &error);

  if (!is_current (q))
    question_free (q);
  else if (transformer == NULL)
    {
      finish (q, NULL, error);
      question_free (q);
    }
  else
    run (q, q->make_forward_input (q->runner->page, q->model, transformer));
}

/* A new question for KEY, the one in flight cancelled; NULL when the cache
 * had the answer, which ANSWER has had. */
static Question *
begin (PlPageRunner     *runner,
       const char       *key,
       PlAnalysisFunc    func,
       GDestroyNotify    input_free,
       PlPageAnswerFunc  answer)
{
  PlWorkspace *workspace = pl_page_get_workspace (runner->page);
  const GValue *cached;
  Question *q;

  g_return_val_if_fail (PL_IS_WORKSPACE (workspace), NULL);

  pl_page_runner_cancel (runner);
  if ((cached = pl_analysis_cache_lookup (pl_workspace_get_cache (workspace), key)))
    {
      answer (runner->page, cached, NULL);
      return NULL;
    }
  q = g_new0 (Question, 1);
  q->runner = runner;
  q->cancellable = g_cancellable_new ();
  q->workspace = g_object_ref (workspace);
  q->key = g_strdup (key);
  q->func = func;
  q->input_free = input_free;
  q->answer = answer;
  set_cancellable (runner, g_object_ref (q->cancellable));
  return q;
}

void
pl_page_runner_ask_table (PlPageRunner         *runner,
                          const char           *key,
                          PlModel              *model,
                          int                   layer,
                          PlPageTableInputFunc  make_input,
                          PlAnalysisFunc        func,
                          GDestroyNotify        input_free,
                          PlPageAnswerFunc      answer)
{
  Question *q;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (PL_IS_MODEL (model));

  if (!(q = begin (runner, key, func, input_free, answer)))
    return;
  q->make_table_input = make_input;
  pl_workspace_get_table_async (q->workspace, model, layer, q->cancellable, table_done, q);
}

void
pl_page_runner_ask_forward (PlPageRunner           *runner,
                            const char             *key,
                            PlModel                *model,
                            PlPageForwardInputFunc  make_input,
                            PlAnalysisFunc          func,
                            GDestroyNotify          input_free,
                            PlPageAnswerFunc        answer)
{
  Question *q;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (PL_IS_MODEL (model));

  if (!(q = begin (runner, key, func, input_free, answer)))
    return;
  q->make_forward_input = make_input;
  q->model = g_object_ref (model);
  pl_workspace_get_transformer_async (q->workspace, model, q->cancellable, transformer_done, q);
}

void
pl_page_runner_ask (PlPageRunner     *runner,
                    const char       *key,
                    PlAnalysisFunc    func,
                    gpointer          input,
                    GDestroyNotify    input_free,
                    PlPageAnswerFunc  answer)
{
  Question *q;

  g_return_if_fail (runner != NULL);

  if (!(q = begin (runner, key, func, input_free, answer)))
    {
      if (input_free != NULL)
        input_free (input);
      return;
    }
  run (q, input);
}
