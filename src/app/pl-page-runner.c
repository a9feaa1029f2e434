/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-page-runner.h"

struct _PlPageRunner
{
  gpointer      page;        /* not owned: the runner lives inside it */
  GtkSpinner   *spinner;
  GCancellable *cancellable;
};

/* What one question carries from step to step. */
typedef struct
{
  PlPageRunner     *runner;
  GCancellable     *cancellable;
  PlWorkspace      *workspace;
  char             *key;
  PlPageInputFunc   make_input;
  PlAnalysisFunc    func;
  GDestroyNotify    input_free;
  PlPageAnswerFunc  answer;
} Question;

static void
question_free (Question *q)
{
  g_clear_object (&q->cancellable);
  g_clear_object (&q->workspace);
  g_free (q->key);
  g_free (q);
}

PlPageRunner *
pl_page_runner_new (gpointer    page,
                    GtkSpinner *spinner)
{
  PlPageRunner *runner = g_new0 (PlPageRunner, 1);

  runner->page = page;
  runner->spinner = spinner;
  return runner;
}

static void
set_busy (PlPageRunner *runner,
          gboolean      busy)
{
  if (runner->spinner == NULL)
    return;
  gtk_widget_set_visible (GTK_WIDGET (runner->spinner), busy);
  gtk_spinner_set_spinning (runner->spinner, busy);
}

void
pl_page_runner_cancel (PlPageRunner *runner)
{
  g_cancellable_cancel (runner->cancellable);
  g_clear_object (&runner->cancellable);
  set_busy (runner, FALSE);
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

gboolean
pl_page_runner_get_busy (PlPageRunner *runner)
{
  return runner->cancellable != NULL;
}

/* The question in flight still is the one being answered. */
static gboolean
is_current (Question *q)
{
  return !g_cancellable_is_cancelled (q->cancellable) && q->runner->cancellable == q->cancellable;
}

static void
finish (Question     *q,
        const GValue *answer,
        const GError *error)
{
  PlPageRunner *runner = q->runner;

  g_clear_object (&runner->cancellable);
  set_busy (runner, FALSE);
  q->answer (runner->page, answer, error);
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

static void
table_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Question *q = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_workspace_get_table_finish (PL_WORKSPACE (object), result, &error);

  if (!is_current (q))
    {
      question_free (q);
      return;
    }
  if (table == NULL)
    {
      finish (q, NULL, error);
      question_free (q);
      return;
    }
  pl_analysis_cache_run_async (pl_workspace_get_cache (q->workspace), q->key, q->func,
                               q->make_input (table, q->runner->page), q->input_free,
                               NULL, NULL, q->cancellable, answer_done, q);
}

void
pl_page_runner_ask (PlPageRunner     *runner,
                    PlWorkspace      *workspace,
                    const char       *key,
                    PlModel          *model,
                    int               layer,
                    PlPageInputFunc   make_input,
                    PlAnalysisFunc    func,
                    GDestroyNotify    input_free,
                    PlPageAnswerFunc  answer)
{
  const GValue *cached;
  Question *q;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (PL_IS_WORKSPACE (workspace));
  g_return_if_fail (PL_IS_MODEL (model));

  pl_page_runner_cancel (runner);

  if ((cached = pl_analysis_cache_lookup (pl_workspace_get_cache (workspace), key)))
    {
      answer (runner->page, cached, NULL);
      return;
    }

  runner->cancellable = g_cancellable_new ();
  set_busy (runner, TRUE);

  q = g_new0 (Question, 1);
  q->runner = runner;
  q->cancellable = g_object_ref (runner->cancellable);
  q->workspace = g_object_ref (workspace);
  q->key = g_strdup (key);
  q->make_input = make_input;
  q->func = func;
  q->input_free = input_free;
  q->answer = answer;
  pl_workspace_get_table_async (workspace, model, layer, q->cancellable, table_done, q);
}
