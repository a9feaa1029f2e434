/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-error.h"
#include "pl-transformer.h"
#include "pl-test-util.h"
#include "pl-test-transformer.h"

/* Running a forward pass: cancelling it, its progress and early stop, the
 * ids it makes and refuses, and two threads sharing one transformer. */

typedef struct
{
  GCancellable *cancellable;
  guint         calls;
  PlMatrix     *kept;
} CancelState;

static void
cancel_on_progress (double   fraction,
                    gpointer user_data)
{
  CancelState *state = user_data;

  state->calls++;
  g_assert_cmpfloat (fraction, >, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  g_cancellable_cancel (state->cancellable);
}

static gboolean
keep_first_attention (guint     k,
                      PlMatrix *attention,
                      PlMatrix *hidden,
                      gpointer  user_data)
{
  CancelState *state = user_data;

  if (k == 1)
    state->kept = pl_matrix_ref (attention);
  return TRUE;
}

/* Cancelling from the progress callback stops after that layer with
 * G_IO_ERROR_CANCELLED, and the run holds no reference to what it gave. */
static void
test_cancel (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[1]);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GArray) ids = pl_transformer_random_ids (t, 64, 3);
  g_autoptr(GError) error = NULL;
  CancelState state = { cancellable, 0, NULL };
  gboolean ok;

  ok = pl_transformer_run (t, (int *) ids->data, ids->len, TRUE, keep_first_attention, &state,
                           cancellable, cancel_on_progress, &state, &error);
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (state.calls, ==, 1);
  g_assert_nonnull (state.kept);
  g_assert_cmpint (state.kept->ref_count, ==, 1);
  pl_matrix_unref (state.kept);
  g_clear_error (&error);

  /* The convenience wrapper frees what it had collected. */
  g_assert_null (pl_transformer_forward (t, (int *) ids->data, ids->len, PL_FORWARD_ATTENTIONS,
                                         cancellable, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Progress is reported once per layer, ending at 1, and stopping early from
 * the layer callback is not an error. */
static gboolean
stop_after_two (guint     k,
                PlMatrix *attention,
                PlMatrix *hidden,
                gpointer  user_data)
{
  guint *seen = user_data;

  *seen = k;
  return k < 2;
}

static void
count_progress (double   fraction,
                gpointer user_data)
{
  double *last = user_data;

  g_assert_cmpfloat (fraction, >, *last);
  *last = fraction;
}

static void
test_progress_and_stop (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(GArray) ids = pl_transformer_random_ids (t, 32, 5);
  g_autoptr(PlForwardResult) result = NULL;
  g_autoptr(GError) error = NULL;
  double last = 0;
  guint seen = 0;

  result = pl_transformer_forward (t, (int *) ids->data, ids->len, PL_FORWARD_HIDDEN_STATES,
                                   NULL, count_progress, &last, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (last, ==, 1.0);
  g_assert_null (result->attentions);
  for (guint k = 0; k <= 4; k++)
    g_assert_cmpuint (result->hidden_states[k]->rows, ==, 32);

  g_assert_true (pl_transformer_run (t, (int *) ids->data, ids->len, FALSE, stop_after_two, &seen,
                                     NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seen, ==, 2);
}

static void
test_inputs (void)
{
  g_autoptr(PlTransformer) gpt2 = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(PlTransformer) roberta = pl_test_raw_transformer (&pl_test_fixtures[2]);
  g_autoptr(GArray) a = pl_transformer_random_ids (roberta, 100, 42);
  g_autoptr(GArray) b = pl_transformer_random_ids (roberta, 100, 42);
  g_autoptr(GArray) c = pl_transformer_random_ids (roberta, 100, 43);
  g_autoptr(GArray) g = pl_transformer_random_ids (gpt2, 50, 1);
  g_autoptr(GArray) rep = pl_transformer_repeated_ids (roberta, 21, 6, 9);
  g_autoptr(GArray) wrapped = NULL;
  int raw[] = { 10, 11, 12 };
  int *v;
  gboolean differ = FALSE;

  g_assert_cmpuint (a->len, ==, 100);
  g_assert_cmpmem (a->data, 100 * sizeof (int), b->data, 100 * sizeof (int));
  for (guint i = 0; i < 100; i++)
    differ |= g_array_index (a, int, i) != g_array_index (c, int, i);
  g_assert_true (differ);
  /* RoBERTa: <s> … </s>, no special token inside */
  g_assert_cmpint (g_array_index (a, int, 0), ==, 0);
  g_assert_cmpint (g_array_index (a, int, 99), ==, 2);
  for (guint i = 1; i < 99; i++)
    {
      g_assert_cmpint (g_array_index (a, int, i), >, 2);
      g_assert_cmpint (g_array_index (a, int, i), <, 260);
    }
  /* GPT-2: not wrapped, no end-of-text id */
  for (guint i = 0; i < g->len; i++)
    {
      g_assert_cmpint (g_array_index (g, int, i), !=, 2);
      g_assert_true (pl_transformer_is_regular_id (gpt2, g_array_index (g, int, i)));
    }
  /* a period of 6 between the wrappers */
  v = (int *) rep->data;
  g_assert_cmpint (v[0], ==, 0);
  g_assert_cmpint (v[20], ==, 2);
  for (guint i = 7; i < 20; i++)
    g_assert_cmpint (v[i], ==, v[i - 6]);

  wrapped = pl_transformer_wrap_ids (roberta, raw, 3);
  g_assert_cmpuint (wrapped->len, ==, 5);
  v = (int *) wrapped->data;
  g_assert_cmpint (v[0], ==, 0);
  g_assert_cmpint (v[1], ==, 10);
  g_assert_cmpint (v[4], ==, 2);
  g_array_unref (g_steal_pointer (&wrapped));
  wrapped = pl_transformer_wrap_ids (gpt2, raw, 3);
  g_assert_cmpuint (wrapped->len, ==, 3);
}

static void
test_bad_inputs (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[1]);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) long_ids = pl_transformer_random_ids (t, 513, 1);
  int bad[] = { 1, 260, 2 };

  g_assert_false (pl_transformer_run (t, bad, 3, FALSE, NULL, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (pl_transformer_run (t, (int *) long_ids->data, long_ids->len, FALSE,
                                      NULL, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
}


typedef struct
{
  PlTransformer   *transformer;
  GArray          *ids;
  PlForwardResult *result;
} ThreadRun;

static gpointer
run_in_thread (gpointer data)
{
  ThreadRun *run = data;

  run->result = pl_transformer_forward (run->transformer, (int *) run->ids->data, run->ids->len,
                                        PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                        NULL, NULL, NULL, NULL);
  return NULL;
}

/* Two workers sharing one transformer (as the app's pages do) get what a
 * lone run gets. */
static void
test_threads (void)
{
  g_autoptr(PlTransformer) t = pl_test_raw_transformer (&pl_test_fixtures[0]);
  g_autoptr(GArray) a = pl_transformer_random_ids (t, 96, 1);
  g_autoptr(GArray) b = pl_transformer_random_ids (t, 80, 2);
  ThreadRun runs[2] = { { t, a, NULL }, { t, b, NULL } };
  GThread *threads[2];

  for (guint i = 0; i < 2; i++)
    threads[i] = g_thread_new ("forward", run_in_thread, &runs[i]);
  for (guint i = 0; i < 2; i++)
    g_thread_join (threads[i]);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PlForwardResult) alone = NULL;

      g_assert_nonnull (runs[i].result);
      alone = pl_transformer_forward (t, (int *) runs[i].ids->data, runs[i].ids->len,
                                      PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                      NULL, NULL, NULL, NULL);
      for (guint l = 0; l < 4; l++)
        g_assert_cmpfloat (pl_test_max_abs_diff (alone->attentions[l], runs[i].result->attentions[l]), <, 1e-6);
      for (guint l = 0; l <= 4; l++)
        g_assert_cmpfloat (pl_test_max_abs_diff (alone->hidden_states[l], runs[i].result->hidden_states[l]), <, 1e-5);
      pl_forward_result_free (runs[i].result);
    }
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/transformer/threads", test_threads);
  g_test_add_func ("/pl/transformer/cancel", test_cancel);
  g_test_add_func ("/pl/transformer/progress-and-stop", test_progress_and_stop);
  g_test_add_func ("/pl/transformer/inputs", test_inputs);
  g_test_add_func ("/pl/transformer/bad-inputs", test_bad_inputs);

  return g_test_run ();
}
