/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-compare-page.h"
#include "pl-executor.h"
#include "pl-playground-page.h"
#include "pl-probes-page.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-trajectory-page.h"
#include "pl-window.h"

/* The thousandth click in a row: models, layers, heads and views
 * switched while workers are in flight, the same file opened twice, a file
 * truncated while open, the window closed during a forward pass. Run under
 * AddressSanitizer (build-aux/setup.sh sanitize) this also checks for uses
 * after free and leaks. */

#define N_SWITCHES 1000

static PlApplication *app;
static PlWindow *window;

static guint
n_models (void)
{
  return g_list_model_get_n_items (pl_window_get_models (window));
}

static gboolean
models_at_least (gpointer data)
{
  return n_models () >= GPOINTER_TO_UINT (data);
}

static gboolean
all_idle (gpointer data)
{
  return !pl_page_get_busy ((PlPage *) PL_SIMILARITY_PAGE (pl_test_page (window, "similarity"))) &&
         !pl_page_get_busy ((PlPage *) PL_TRAJECTORY_PAGE (pl_test_page (window, "trajectory"))) &&
         !pl_page_get_busy ((PlPage *) PL_ATTENTION_PAGE (pl_test_page (window, "attention"))) &&
         !pl_page_get_busy ((PlPage *) PL_PROBES_PAGE (pl_test_page (window, "probes"))) &&
         !pl_page_get_busy ((PlPage *) PL_COMPARE_PAGE (pl_test_page (window, "compare"))) &&
         !pl_page_get_busy ((PlPage *) PL_PLAYGROUND_PAGE (pl_test_page (window, "playground")));
}

static gboolean
similarity_ready (gpointer data)
{
  return !pl_page_get_busy ((PlPage *) PL_SIMILARITY_PAGE (pl_test_page (window, "similarity"))) &&
         pl_page_get_figure ((PlPage *) PL_SIMILARITY_PAGE (pl_test_page (window, "similarity"))) != NULL;
}

/* Lets workers start (and be cancelled by the next click) without waiting
 * for them: what a user leaning on a key does. */
static void
spin (void)
{
  for (guint i = 0; i < 4 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

static void
test_switch_a_thousand_times (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  guint models = n_models ();   /* the demo checkpoints and the built-in table */
  g_autoptr(PlModel) expected = NULL;
  guint last_model = 0;
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < N_SWITCHES; i++)
    {
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0:
          last_model = g_rand_int_range (rand, 0, models);
          pl_window_select_model (window, last_model);
          break;
        case 1:
          pl_test_activate (window, "win.show-view", g_variant_new_int32 (g_rand_int_range (rand, 0, 6)));
          break;
        case 2:
          pl_test_activate (window, "win.step-layer", g_variant_new_int32 (g_rand_boolean (rand) ? 1 : -1));
          break;
        default:
          pl_test_activate (window, "win.step-head", g_variant_new_int32 (g_rand_boolean (rand) ? 1 : -1));
          break;
        }
      spin ();
    }
  /* Every cancelled question settles, and the last one asked is answered. */
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_test_wait_until (all_idle, NULL, "every view to settle");
  pl_test_wait_until (similarity_ready, NULL, "the last heatmap");
  expected = g_list_model_get_item (pl_window_get_models (window), last_model);
  g_assert_true (pl_window_get_selected_model (window) == expected);
  g_test_message ("%u switches in %.1f s", N_SWITCHES, (g_get_monotonic_time () - start) / 1e6);
}

/* The same file opened twice before either open ends: both end, whichever
 * first, and the file is listed once, selected as the second open asked. */
static void
test_open_same_file_twice (void)
{
  g_autofree char *path = pl_test_fixture ("mini-gpt2", "model.safetensors", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  guint before = n_models ();
  PlModel *selected;

  pl_window_open_file (window, file, FALSE);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_tasks_answered ();
  g_assert_cmpuint (n_models (), ==, before + 1);
  selected = pl_window_get_selected_model (window);
  g_assert_nonnull (selected);
  g_assert_cmpstr (pl_model_get_path (selected), ==, path);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_test_wait_until (similarity_ready, NULL, "the safetensors heatmap");
}

/* The GtkStack of a view shows its "error" child. */
static gboolean
shows_error (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_STACK (child) &&
          g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (child)), "error") == 0)
        return TRUE;
      if (shows_error (child))
        return TRUE;
    }
  return FALSE;
}

static gboolean
similarity_error_shown (gpointer data)
{
  return !pl_page_get_busy ((PlPage *) PL_SIMILARITY_PAGE (pl_test_page (window, "similarity"))) &&
         shows_error (pl_test_page (window, "similarity"));
}

static void
copy_file (const char *from, const char *dir, const char *name)
{
  g_autofree char *contents = NULL;
  g_autofree char *to = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  gsize len;

  g_file_get_contents (from, &contents, &len, &error);
  g_assert_no_error (error);
  g_file_set_contents (to, contents, len, &error);
  g_assert_no_error (error);
}

/* A checkpoint cut short after it was opened (a download still running, a
 * disk that filled up): asking for its analyses gives an error on the view,
 * the window lives on and the other models still work. */
static void
open_then_damage (const char *fixture_dir, const char *file_name, gboolean remove)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *weights = g_build_filename (dir, file_name, NULL);
  g_autofree char *source = pl_test_fixture (fixture_dir, file_name, NULL);
  g_autoptr(GFile) file = NULL;
  guint before = n_models ();

  if (!g_file_test (source, G_FILE_TEST_EXISTS))
    {
      g_free (source);
      source = pl_test_demo (fixture_dir, file_name, NULL);
    }
  copy_file (source, dir, file_name);
  file = g_file_new_for_path (weights);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  pl_window_open_file (window, file, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the copied checkpoint");

  if (remove)
    g_assert_cmpint (g_unlink (weights), ==, 0);
  else
    g_assert_cmpint (truncate (weights, 4096), ==, 0);

  pl_window_select_model (window, n_models () - 1);
  if (remove)
    {
      /* An open file outlives its name on Unix: either its table or an error. */
      pl_test_wait_until (all_idle, NULL, "the removed file's views");
    }
  else
    pl_test_wait_until (similarity_error_shown, NULL, "the error about the truncated file");

  /* The demos still work. */
  pl_window_select_model (window, 0);
  pl_test_wait_until (similarity_ready, NULL, "the first demo again");
  pl_test_rmtree (dir);
}

static void
test_truncated_hdf5 (void)
{
  open_then_damage ("mini-gpt2", "tf_model.h5", FALSE);
}

static void
test_truncated_safetensors (void)
{
  open_then_damage ("mini-gpt2", "model.safetensors", FALSE);
}

static void
test_removed_safetensors (void)
{
  open_then_damage ("mini-gpt2", "model.safetensors", TRUE);
}

/* What the window told the user (pl_window_show_error logs each toast). */
static GPtrArray *messages;

static GLogWriterOutput
record_messages (GLogLevelFlags   level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
      g_ptr_array_add (messages, g_strdup (fields[i].value));
  return g_log_writer_default (level, fields, n_fields, data);
}

static gboolean
message_names (gpointer name)
{
  for (guint i = 0; i < messages->len; i++)
    if (strstr (messages->pdata[i], name) != NULL)
      return TRUE;
  return FALSE;
}

/* Damaged files opened in the window: each is refused with a message naming
 * it, and the list of models stays as it was. */
static void
test_bad_files_in_window (void)
{
#define BYTES(name, literal) { name, literal, sizeof (literal) - 1 }
  static const struct { const char *name; const char *data; gssize len; } files[] = {
    BYTES ("empty.safetensors", ""),
    BYTES ("huge-header.safetensors", "\xff\xff\xff\xff\xff\xff\xff\xff{"),
    BYTES ("not-json.safetensors", "\x08\0\0\0\0\0\0\0not json"),
    BYTES ("signature-only.h5", "\x89HDF\r\n\x1a\n\0\0\0\0\0\x08\x08\0\x04\0\x10\0"),
    { "random.h5", NULL, 4096 },
  };
#undef BYTES
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  guint before = n_models ();

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);
      g_autofree guint8 *noise = g_malloc (files[i].len + 1);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;

      for (gssize j = 0; j < files[i].len; j++)
        noise[j] = g_rand_int_range (rand, 0, 256);
      g_file_set_contents (path, files[i].data ? files[i].data : (const char *) noise, files[i].len, &error);
      g_assert_no_error (error);
      pl_window_open_file (window, file, TRUE);
      pl_test_wait_until (message_names, (gpointer) files[i].name, files[i].name);
    }
  g_assert_cmpuint (n_models (), ==, before);
  pl_test_rmtree (dir);
}

/* The files after which Debian's libhdf5 1.10 reads freed memory when they
 * are written one over the other at one path and opened in one process
 * (tests/fuzz/known-libhdf5/): the window lets its helper process open them
 * first, so the 12 damaged ones are refused by name and nothing of them
 * reaches the window's libhdf5 (05 and 06 are sound HDF5 whose first
 * position is all zeros: they open, and are taken out again). Under AddressSanitizer
 * (build-aux/setup.sh sanitize) this fails when the window opens them
 * itself. */
static void
test_known_libhdf5_sequence (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tf_model.h5", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  guint before = n_models ();

  for (guint i = 1; i <= 14; i++)
    {
      g_autofree char *known = pl_test_write_known_libhdf5 (i, path);

      g_ptr_array_set_size (messages, 0);
      pl_window_open_file (window, file, FALSE);
      if (i == 5 || i == 6)
        {
          /* Sound files whose first position is all zeros: they open (the
           * dot product and PCA can show them), and are taken out before
           * the next file is written over them. */
          pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), known);
          pl_window_select_model (window, before);
          pl_test_wait_until (all_idle, NULL, "the views");
          g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-model", NULL));
          g_assert_cmpuint (n_models (), ==, before);
          continue;
        }
      pl_test_wait_until (message_names, path, known);
    }
  g_assert_cmpuint (n_models (), ==, before);
  pl_test_rmtree (dir);
}

static gboolean
attention_busy (gpointer data)
{
  return pl_page_get_busy ((PlPage *) PL_ATTENTION_PAGE (pl_test_page (window, "attention")));
}

/* The statistics' forward passes are under way (a layer done, most to go)
 * and are the only thing running. */
static gboolean
forward_under_way (gpointer data)
{
  double fraction = pl_page_get_progress (data);

  return fraction > 0 && fraction < 0.5 && pl_executor_get_n_running (pl_executor_get_default ()) == 1;
}

static double
uncancelled_cpu_time (void)
{
  double total, cancelled;

  pl_executor_get_cpu_time (pl_executor_get_default (), &total, &cancelled);
  return total - cancelled;
}

/* Closing the window while a forward pass runs: the pass is cancelled (the
 * attention view that asked for it outlives the window while its question
 * is in flight, so the window cancels it), and once the window is gone no
 * thread computes, as OpenBLAS and HDF5 free their state at exit under any
 * thread still using it. Last, as the window is gone afterwards. */
static void
test_close_during_forward (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *weights = g_build_filename (dir, "tf_model.h5", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (weights);
  guint before = n_models ();
  double uncancelled;

  /* A fresh copy of a demo: nothing of it is in the cache yet. */
  for (guint i = 0; i < 3; i++)
    {
      const char *names[] = { "tf_model.h5", "config.json", "tokenizer_config.json" };
      g_autofree char *source = pl_test_demo ("mini-bert", names[i], NULL);

      if (g_file_test (source, G_FILE_TEST_EXISTS))
        copy_file (source, dir, names[i]);
    }
  pl_window_open_file (window, file, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the copied demo");
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_window_select_model (window, n_models () - 1);
  g_assert_true (attention_busy (NULL));
  pl_test_wait_until (forward_under_way, pl_test_page (window, "attention"),
                      "the forward passes to start");

  uncancelled = uncancelled_cpu_time ();
  gtk_window_destroy (GTK_WINDOW (window));
  window = NULL;
  g_assert_cmpuint (pl_executor_get_n_running (pl_executor_get_default ()), ==, 0);
  /* Every task that ended since was cancelled. */
  g_assert_cmpfloat_with_epsilon (uncancelled_cpu_time (), uncancelled, 1e-6);
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  int status;

  messages = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (record_messages, NULL, NULL);
  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  pl_test_wait_until (similarity_ready, NULL, "the first heatmap");

  g_test_add_func ("/pl/stress/switch-a-thousand-times", test_switch_a_thousand_times);
  g_test_add_func ("/pl/stress/open-same-file-twice", test_open_same_file_twice);
  g_test_add_func ("/pl/stress/truncated-hdf5", test_truncated_hdf5);
  g_test_add_func ("/pl/stress/truncated-safetensors", test_truncated_safetensors);
  g_test_add_func ("/pl/stress/removed-safetensors", test_removed_safetensors);
  g_test_add_func ("/pl/stress/bad-files-in-window", test_bad_files_in_window);
  g_test_add_func ("/pl/stress/known-libhdf5-sequence", test_known_libhdf5_sequence);
  g_test_add_func ("/pl/stress/close-during-forward", test_close_during_forward);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_clear_pointer (&messages, g_ptr_array_unref);
  return status;
}
