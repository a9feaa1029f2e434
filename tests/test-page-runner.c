/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib-unix.h>
#include <poll.h>
#include <string.h>

#include "pl-error.h"
#include "pl-executor.h"
#include "pl-page.h"
#include "pl-questions.h"
#include "pl-test-util.h"
#include "pl-test-window.h"

/* How every view asks (PlPageRunner through PlPage): a question about a
 * model's forward pass, errors shown, the page busy while any of its
 * runners works and told when that changes, a worker's progress shown,
 * stopping, and only the newest question answered. A page of the test's
 * own asks questions whose workers wait for events the test sends, so
 * nothing here depends on how fast the machine is. */

#define TEST_TYPE_PAGE (test_page_get_type ())
G_DECLARE_FINAL_TYPE (TestPage, test_page, TEST, PAGE, PlPage)

struct _TestPage
{
  PlPage   parent_instance;

  guint    n_answers;
  GValue   last;           /* the last answer */
  GError  *error;          /* or why there was none */
  guint    n_busy_changes;
};

G_DEFINE_FINAL_TYPE (TestPage, test_page, PL_TYPE_PAGE)

static void
test_page_finalize (GObject *object)
{
  TestPage *self = TEST_PAGE (object);

  if (G_IS_VALUE (&self->last))
    g_value_unset (&self->last);
  g_clear_error (&self->error);
  G_OBJECT_CLASS (test_page_parent_class)->finalize (object);
}

static void
test_page_class_init (TestPageClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_page_finalize;
}

static void
on_busy (TestPage *self)
{
  self->n_busy_changes++;
}

static void
test_page_init (TestPage *self)
{
  g_signal_connect (self, "notify::busy", G_CALLBACK (on_busy), NULL);
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  TestPage *self = TEST_PAGE (page);

  self->n_answers++;
  if (G_IS_VALUE (&self->last))
    g_value_unset (&self->last);
  g_clear_error (&self->error);
  if (answer != NULL)
    {
      g_value_init (&self->last, G_VALUE_TYPE (answer));
      g_value_copy (answer, &self->last);
    }
  else
    {
      self->error = g_error_copy (error);
      g_assert_null (pl_page_answer_or_error (page, answer, error));
    }
}

static TestPage *
new_page (void)
{
  g_autoptr(PlWorkspace) workspace = pl_workspace_new (NULL);
  TestPage *page = g_object_ref_sink (g_object_new (TEST_TYPE_PAGE, NULL));

  pl_page_set_workspace (PL_PAGE (page), workspace);
  return page;
}

static gboolean
answered (gpointer page)
{
  return TEST_PAGE (page)->n_answers > 0;
}

/* ---- Workers ---------------------------------------------------------------- */

static gpointer
make_forward_input (PlPage        *page,
                    PlModel       *model,
                    PlTransformer *transformer)
{
  return g_object_ref (transformer);
}

/* The forward pass's layer count. */
static gboolean
count_layers (PlAnalysisJob  *job,
              gpointer        transformer,
              GValue         *result,
              GError        **error)
{
  g_value_init (result, G_TYPE_UINT);
  g_value_set_uint (result, pl_transformer_get_config (transformer)->n_layers);
  return TRUE;
}

static gboolean
fail (PlAnalysisJob  *job,
      gpointer        input,
      GValue         *result,
      GError        **error)
{
  g_set_error_literal (error, PL_ERROR, PL_ERROR_CORRUPT, "/x/model.safetensors: the header is cut short");
  return FALSE;
}

static gboolean
answer_seven (PlAnalysisJob  *job,
              gpointer        input,
              GValue         *result,
              GError        **error)
{
  g_value_init (result, G_TYPE_UINT);
  g_value_set_uint (result, 7);
  return TRUE;
}

static gboolean
set_flag (gpointer flag)
{
  *(gboolean *) flag = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
flag_set (gpointer flag)
{
  return *(gboolean *) flag;
}

static gboolean
shows_a_quarter (gpointer page)
{
  return pl_page_get_progress (page) == 0.25;
}

/* Reports a quarter done, tells the main loop it started (setting the
 * gboolean INPUT there), then blocks until the job is cancelled: a worker
 * that only a cancel ends. */
static gboolean
block_until_cancelled (PlAnalysisJob  *job,
                       gpointer        started,
                       GValue         *result,
                       GError        **error)
{
  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);
  struct pollfd fd = { g_cancellable_get_fd (cancellable), POLLIN, 0 };

  pl_analysis_job_set_progress (job, 0.25);
  g_idle_add (set_flag, started);
  while (!g_cancellable_is_cancelled (cancellable))
    poll (&fd, 1, -1);
  g_cancellable_release_fd (cancellable);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* Turns the main loop until nothing more is pending. */
static void
drain_main_loop (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* After a stop: the cache cancels its job in an idle (nobody waits for it
 * any more), the worker returns, and what it could still deliver is
 * delivered. Hangs if the worker never sees the cancel. */
static void
wait_for_workers (void)
{
  drain_main_loop ();
  pl_executor_wait_idle (pl_executor_get_default ());
  drain_main_loop ();
}

/* ---- Tests ------------------------------------------------------------------ */

/* The transformer first, then the question on it; the page busy between,
 * and told twice. */
static void
test_forward_question (void)
{
  g_autoptr(TestPage) page = new_page ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("mini-gpt2", NULL, NULL, &error);
  g_autoptr(PlModel) table = pl_model_open ("builtin:sinusoidal:64x16", NULL, NULL, &error);
  g_autofree char *key = g_strdup_printf ("test/layers/%s", pl_question_model_key (model));
  g_autofree char *table_key = g_strdup_printf ("test/layers/%s", pl_question_model_key (table));

  g_assert_no_error (error);
  g_assert_false (pl_page_get_busy (PL_PAGE (page)));
  pl_page_runner_ask_forward (pl_page_get_runner (PL_PAGE (page)), key, model, make_forward_input, count_layers,
                              g_object_unref, on_answer);
  g_assert_true (pl_page_get_busy (PL_PAGE (page)));
  g_assert_cmpuint (page->n_busy_changes, ==, 1);
  pl_test_wait_until (answered, page, "the layer count");
  g_assert_false (pl_page_get_busy (PL_PAGE (page)));
  g_assert_cmpuint (page->n_busy_changes, ==, 2);
  g_assert_no_error (page->error);
  /* data/demo/mini-gpt2/config.json: "n_layer": 4 */
  g_assert_cmpuint (g_value_get_uint (&page->last), ==, 4);

  /* Asked again: from the cache, at once, without a busy spell. */
  pl_page_runner_ask_forward (pl_page_get_runner (PL_PAGE (page)), key, model, make_forward_input, count_layers,
                              g_object_unref, on_answer);
  g_assert_cmpuint (page->n_answers, ==, 2);
  g_assert_cmpuint (page->n_busy_changes, ==, 2);

  /* A table has no forward pass: the answer says so. */
  page->n_answers = 0;
  pl_page_runner_ask_forward (pl_page_get_runner (PL_PAGE (page)), table_key, table, make_forward_input,
                              count_layers, g_object_unref, on_answer);
  pl_test_wait_until (answered, page, "the table's refusal");
  g_assert_error (page->error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (page)), ==, "error");
}

/* A failure reaches the page's error status, as a sentence. */
static void
test_error_shown (void)
{
  g_autoptr(TestPage) page = new_page ();
  AdwStatusPage *status;

  pl_page_runner_ask (pl_page_get_runner (PL_PAGE (page)), "test/fail", fail, NULL, NULL, on_answer);
  pl_test_wait_until (answered, page, "the failure");
  g_assert_error (page->error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_false (pl_page_get_busy (PL_PAGE (page)));
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (page)), ==, "error");
  status = pl_page_get_status (PL_PAGE (page));
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "Cannot Show This Model");
  g_assert_nonnull (strstr (adw_status_page_get_description (status), "/x/model.safetensors: the header is cut short"));
}

/* Stopped, a question is never answered, its worker ends, and the page is
 * idle at once. The worker shows its progress until then. */
static void
test_stop (void)
{
  g_autoptr(TestPage) page = new_page ();
  gboolean started = FALSE;

  g_assert_cmpfloat (pl_page_get_progress (PL_PAGE (page)), ==, -1);
  pl_page_runner_ask (pl_page_get_runner (PL_PAGE (page)), "test/block", block_until_cancelled, &started, NULL,
                      on_answer);
  pl_test_wait_until (flag_set, &started, "the blocking worker");
  pl_test_wait_until (shows_a_quarter, page, "the worker's progress");
  g_assert_true (pl_page_get_busy (PL_PAGE (page)));

  pl_page_stop (PL_PAGE (page));
  g_assert_false (pl_page_get_busy (PL_PAGE (page)));
  g_assert_cmpfloat (pl_page_get_progress (PL_PAGE (page)), ==, -1);
  g_assert_cmpuint (page->n_busy_changes, ==, 2);
  wait_for_workers ();
  g_assert_cmpuint (page->n_answers, ==, 0);
}

/* Asking again cancels the question in flight: only the newest is
 * answered, and the older's worker stops. Two runners of one page ask side
 * by side, and the page is busy while either is. */
static void
test_newest_only (void)
{
  g_autoptr(TestPage) page = new_page ();
  PlPageRunner *runner = pl_page_get_runner (PL_PAGE (page));
  PlPageRunner *other = pl_page_add_runner (PL_PAGE (page));
  gboolean started = FALSE, other_started = FALSE;

  pl_page_runner_ask (runner, "test/block", block_until_cancelled, &started, NULL, on_answer);
  pl_page_runner_ask (other, "test/block-other", block_until_cancelled, &other_started, NULL, on_answer);
  pl_test_wait_until (flag_set, &started, "the blocking worker");
  pl_page_runner_ask (runner, "test/seven", answer_seven, NULL, NULL, on_answer);
  pl_test_wait_until (answered, page, "the newer question");
  g_assert_cmpuint (g_value_get_uint (&page->last), ==, 7);
  g_assert_false (pl_page_runner_get_busy (runner));
  g_assert_true (pl_page_runner_get_busy (other));
  g_assert_true (pl_page_get_busy (PL_PAGE (page)));

  pl_test_wait_until (flag_set, &other_started, "the other blocking worker");
  pl_page_stop (PL_PAGE (page));
  g_assert_false (pl_page_get_busy (PL_PAGE (page)));
  wait_for_workers ();
  g_assert_cmpuint (page->n_answers, ==, 1);
}

/* A page freed with its questions in flight cancels them. */
static void
test_dispose_cancels (void)
{
  TestPage *page = new_page ();
  gboolean started = FALSE;

  pl_page_runner_ask (pl_page_get_runner (PL_PAGE (page)), "test/block", block_until_cancelled, &started, NULL,
                      on_answer);
  pl_test_wait_until (flag_set, &started, "the blocking worker");
  g_object_run_dispose (G_OBJECT (page));
  g_object_unref (page);
  wait_for_workers ();
}

/* A figure cairo cannot draw shows as an error, not a blank figure. */
static void
test_figure_too_large (void)
{
  g_autoptr(TestPage) page = new_page ();
  g_autoptr(PlMatrix) long_row = pl_matrix_new (1, 40000);
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (long_row, 0);
  PlFigureView *view = PL_FIGURE_VIEW (pl_figure_view_new ());

  pl_page_set_content (PL_PAGE (page), GTK_WIDGET (view));
  pl_page_set_figure_view (PL_PAGE (page), view);
  pl_figure_view_set_figure (view, heatmap, 40000, 1);
  pl_page_show_figure (PL_PAGE (page));
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (page)), ==, "error");
  g_assert_cmpstr (adw_status_page_get_title (pl_page_get_status (PL_PAGE (page))), ==, "Cannot Draw This Figure");
}

int
main (int argc, char *argv[])
{
  pl_test_window_init (&argc, &argv);
  g_test_add_func ("/pl/page-runner/forward-question", test_forward_question);
  g_test_add_func ("/pl/page-runner/error-shown", test_error_shown);
  g_test_add_func ("/pl/page-runner/stop", test_stop);
  g_test_add_func ("/pl/page-runner/newest-only", test_newest_only);
  g_test_add_func ("/pl/page-runner/dispose-cancels", test_dispose_cancels);
  g_test_add_func ("/pl/page-runner/figure-too-large", test_figure_too_large);
  return g_test_run ();
}
