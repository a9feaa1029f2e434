/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-activations-writer.h"
#include "pl-attention-page.h"
#include "pl-compare-page.h"
#include "pl-encoding-dialog.h"
#include "pl-enum-labels.h"
#include "pl-probes.h"
#include "pl-probes-page.h"
#include "pl-questions.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window-private.h"

/* Opening, listing and closing models; the keys and the errors of the window. */

static PlApplication *app;
static PlWindow *window;

static guint
n_models (void)
{
  return g_list_model_get_n_items (pl_window_get_models (window));
}

static gboolean
models_at_least (gpointer n)
{
  return n_models () >= GPOINTER_TO_UINT (n);
}

static char *
model_name (guint i)
{
  g_autoptr(PlModel) model = g_list_model_get_item (pl_window_get_models (window), i);

  return g_strdup (pl_model_get_name (model));
}

static gint
find_model (const char *name)
{
  for (guint i = 0; i < n_models (); i++)
    {
      g_autofree char *each = model_name (i);

      if (g_strcmp0 (each, name) == 0)
        return (gint) i;
    }
  return -1;
}

static gint
find_path (const char *path)
{
  for (guint i = 0; i < n_models (); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (pl_window_get_models (window), i);

      if (g_strcmp0 (pl_model_get_path (model), path) == 0)
        return (gint) i;
    }
  return -1;
}

/* builtin: names on the command line open as analytic encodings. */
static void
test_builtin_command_line (void)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg ("builtin:sinusoidal:1024x512");
  guint before = n_models ();

  g_application_open (G_APPLICATION (app), &file, 1, "");
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the encoding");
  g_assert_cmpint (find_path ("builtin:sinusoidal:1024x512"), ==, (gint) before);
}

/* Models are listed in the order they were opened, not the order their
 * loading finished: a copied checkpoint opens in a helper process, an
 * encoding at once, yet the checkpoint opened first stays first. */
static void
test_order_opened (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *source = pl_test_demo ("mini-bert", "tf_model.h5", NULL);
  g_autofree char *copy = g_build_filename (dir, "first.h5", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  guint before = n_models ();
  gsize len;

  g_file_get_contents (source, &contents, &len, &error);
  g_assert_no_error (error);
  g_file_set_contents (copy, contents, len, &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (copy);
  pl_window_open_file (window, file, FALSE);
  pl_window_open_paths (window, (const char * const[]) { "builtin:rope:64x16", NULL },
                        (const char * const[]) { "builtin:rope:64x16", NULL }, NULL, FALSE, FALSE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 2), "both models");
  g_assert_cmpint (find_path (copy), ==, (gint) before);
  g_assert_cmpint (find_path ("builtin:rope:64x16"), ==, (gint) before + 1);
  pl_test_rmtree (dir);
}

static gboolean
shows_model (gpointer model)
{
  return pl_workspace_get_model (pl_window_get_workspace (window)) == model;
}

/* A file opened again (by another spelling of its path) is not listed
 * twice: the row already there is selected. */
static void
test_open_again (void)
{
  g_autoptr(PlModel) first = g_list_model_get_item (pl_window_get_models (window), 0);
  g_autoptr(PlModel) other = g_list_model_get_item (pl_window_get_models (window), 1);
  g_autofree char *dir = g_path_get_dirname (pl_model_get_path (first));
  g_autofree char *base = g_path_get_basename (pl_model_get_path (first));
  g_autofree char *spelled = g_build_filename (dir, ".", base, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (spelled);
  guint before = n_models ();

  pl_window_select_model (window, 1);
  pl_test_wait_until (shows_model, other, "the second model");
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (shows_model, first, "the first model, selected again");
  g_assert_cmpuint (n_models (), ==, before);
}

/* The user takes a model out; the next one is selected. */
static void
test_remove_model (void)
{
  guint before = n_models ();
  g_autofree char *second = model_name (1);
  g_autoptr(PlModel) removed = g_list_model_get_item (pl_window_get_models (window), 0);

  pl_window_select_model (window, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-model", NULL));
  g_assert_cmpuint (n_models (), ==, before - 1);
  g_assert_cmpint (find_model (pl_model_get_name (removed)), ==, -1);
  g_assert_true (pl_workspace_get_model (pl_window_get_workspace (window)) ==
                 pl_window_get_selected_model (window));
  g_assert_cmpstr (pl_model_get_name (pl_window_get_selected_model (window)), ==, second);
}

static gboolean
has_sinusoid (gpointer data)
{
  GListModel *models = pl_window_get_models (data);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_strcmp0 (pl_model_get_path (model), "builtin:sinusoidal:1024x512") == 0)
        return TRUE;
    }
  return FALSE;
}

/* What was open when the window closed opens again (the demos aside). */
static void
test_restore_models (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_autoptr(GVariant) saved = NULL;
  PlWindow *second;

  pl_window_save_models (window);
  saved = g_settings_get_value (settings, "open-models");
  g_assert_true (g_variant_is_of_type (saved, G_VARIANT_TYPE ("a(ss)")));
  g_assert_cmpuint (g_variant_n_children (saved), >=, 2);
  {
    const char *path, *dataset;

    g_variant_get_child (saved, 0, "(&s&s)", &path, &dataset);
    g_assert_cmpstr (path, ==, "builtin:sinusoidal:1024x512");
  }

  second = pl_window_new (app);
  pl_test_wait_until (has_sinusoid, second, "the restored encoding");
  gtk_window_destroy (GTK_WINDOW (second));
  g_settings_reset (settings, "open-models");
}

typedef struct
{
  PlWindow *window;
  guint     n;
} Expected;

static gboolean
lists_at_least (gpointer data)
{
  Expected *expected = data;

  return g_list_model_get_n_items (pl_window_get_models (expected->window)) >= expected->n;
}

static gboolean
lists_model (PlWindow   *in,
             const char *name)
{
  GListModel *models = pl_window_get_models (in);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_strcmp0 (pl_model_get_name (model), name) == 0)
        return TRUE;
    }
  return FALSE;
}

/* A new window with every demo not removed (they arrive together). */
static PlWindow *
open_window (guint n_demos)
{
  Expected expected = { pl_window_new (app), n_demos };

  pl_test_wait_until (lists_at_least, &expected, "the demos");
  g_assert_cmpuint (g_list_model_get_n_items (pl_window_get_models (expected.window)), ==, n_demos);
  return expected.window;
}

/* A demo the user removed stays out at the next start, until "Bring Back
 * Demo Models" opens it again. */
static void
test_removed_demo_stays_out (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_auto(GStrv) removed = NULL;
  Expected expected;
  PlWindow *other;

  g_settings_reset (settings, "removed-demos");
  other = open_window (PL_TEST_N_DEMOS);
  g_assert_true (lists_model (other, "mini-bert"));
  pl_window_select_model (other, 1);
  g_assert_cmpstr (pl_model_get_name (pl_window_get_selected_model (other)), ==, "mini-bert");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (other), "win.remove-model", NULL));
  g_assert_false (lists_model (other, "mini-bert"));
  gtk_window_destroy (GTK_WINDOW (other));
  removed = g_settings_get_strv (settings, "removed-demos");
  g_assert_true (g_strv_contains ((const char * const *) removed, "mini-bert"));

  other = open_window (PL_TEST_N_DEMOS - 1);
  g_assert_false (lists_model (other, "mini-bert"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (other), "win.restore-demos", NULL));
  expected = (Expected) { other, PL_TEST_N_DEMOS };
  pl_test_wait_until (lists_at_least, &expected, "the demo brought back");
  g_assert_true (lists_model (other, "mini-bert"));
  g_clear_pointer (&removed, g_strfreev);
  removed = g_settings_get_strv (settings, "removed-demos");
  g_assert_cmpuint (g_strv_length (removed), ==, 0);
  gtk_window_destroy (GTK_WINDOW (other));
}

/* "New Analytic Encoding…" adds the encoding the user described. */
static void
test_new_encoding (void)
{
  PlEncodingDialog *dialog = pl_encoding_dialog_new (GTK_WINDOW (window));
  g_autofree char *sinusoid = NULL;
  g_autofree char *alibi = NULL;
  g_autofree char *none = NULL;
  guint before = n_models ();

  pl_encoding_dialog_set (dialog, PL_ENCODING_SINUSOIDAL, 300, 64, 500);
  sinusoid = pl_encoding_dialog_get_spec (dialog);
  g_assert_cmpstr (sinusoid, ==, "builtin:sinusoidal:300x64:500");
  pl_encoding_dialog_set (dialog, PL_ENCODING_ALIBI, 128, 8, 10000);
  alibi = pl_encoding_dialog_get_spec (dialog);
  g_assert_cmpstr (alibi, ==, "builtin:alibi:128x8");
  pl_encoding_dialog_set (dialog, PL_ENCODING_NONE, 16, 8, 10000);
  none = pl_encoding_dialog_get_spec (dialog);
  g_assert_cmpstr (none, ==, "builtin:none:16");
  gtk_window_destroy (GTK_WINDOW (dialog));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-encoding", NULL));
  dialog = NULL;
  for (GList *l = gtk_window_list_toplevels (); l != NULL; l = g_list_delete_link (l, l))
    if (PL_IS_ENCODING_DIALOG (l->data))
      dialog = l->data;
  g_assert_nonnull (dialog);
  pl_encoding_dialog_set (dialog, PL_ENCODING_SINUSOIDAL, 300, 64, 500);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "add");
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the new encoding");
  g_assert_cmpint (find_path ("builtin:sinusoidal:300x64:500"), >=, 0);
}

static gboolean
error_dialog_shown (gpointer data)
{
  return window->error_dialog != NULL && gtk_widget_get_visible (GTK_WIDGET (window->error_dialog));
}

/* The dialog's extra child: the list of failures, then the details. */
static GtkLabel *
error_details (void)
{
  GtkWidget *box = adw_message_dialog_get_extra_child (window->error_dialog);

  return GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (gtk_widget_get_last_child (box))));
}

static GtkWidget *
error_list (void)
{
  return gtk_widget_get_first_child (adw_message_dialog_get_extra_child (window->error_dialog));
}

static void
close_error_dialog (void)
{
  adw_message_dialog_response (window->error_dialog, "close");
  while (window->error_dialog != NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (window->n_load_errors, ==, 0);
}

/* A file that does not open gets one dialog: the heading names it, the body
 * says what happened in plain words (markup characters as written), the
 * diagnosis included, the full message is selectable; a second failure joins
 * the same dialog, each failure in a row of its own. */
static void
test_load_error_dialog (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *bad = g_build_filename (dir, "a&b.safetensors", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty.safetensors", NULL);
  g_autofree char *claims = g_build_filename (dir, "claims.safetensors", NULL);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad);
  g_autoptr(GFile) empty_file = g_file_new_for_path (empty);
  g_autoptr(GFile) claims_file = g_file_new_for_path (claims);
  g_autoptr(GError) error = NULL;
  const char *body;
  GtkWidget *row;

  g_file_set_contents (bad, "\x08\0\0\0\0\0\0\0not json", 16, &error);
  g_assert_no_error (error);
  g_file_set_contents (empty, "", 0, &error);
  g_assert_no_error (error);
  g_file_set_contents (claims, "garbage!garbage", -1, &error);
  g_assert_no_error (error);

  /* The diagnosis is in the visible line, not only under Details. */
  pl_window_open_file (window, claims_file, FALSE);
  pl_test_wait_until (error_dialog_shown, NULL, "the error dialog");
  body = adw_message_dialog_get_body (window->error_dialog);
  g_test_message ("%s", body);
  g_assert_true (g_str_has_prefix (body, "claims.safetensors: "));
  g_assert_nonnull (strstr (body, "(truncated or not safetensors)"));
  g_assert_false (gtk_widget_get_visible (error_list ()));
  close_error_dialog ();

  pl_window_open_file (window, bad_file, FALSE);
  pl_test_wait_until (error_dialog_shown, NULL, "the error dialog");
  g_assert_cmpstr (adw_message_dialog_get_heading (window->error_dialog), ==, "Could Not Open “a&b.safetensors”");
  g_assert_false (adw_message_dialog_get_heading_use_markup (window->error_dialog));
  body = adw_message_dialog_get_body (window->error_dialog);
  g_assert_true (g_str_has_prefix (body, "a&b.safetensors: the safetensors header is not valid JSON"));
  g_assert_null (strstr (body, dir));
  /* json-glib's own words are left to the details. */
  g_assert_null (strstr (body, "expected value"));
  g_test_message ("%s", gtk_label_get_text (error_details ()));
  g_assert_true (gtk_label_get_selectable (error_details ()));
  g_assert_nonnull (strstr (gtk_label_get_text (error_details ()), "expected value"));
  g_assert_nonnull (strstr (gtk_label_get_text (error_details ()), bad));

  pl_window_open_file (window, empty_file, FALSE);
  while (window->n_load_errors < 2)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (adw_message_dialog_get_heading (window->error_dialog), ==, "Could Not Open 2 Files");
  /* One row a file, its name over what went wrong. */
  g_assert_true (gtk_widget_get_visible (error_list ()));
  row = GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (error_list ()), 0));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "a&b.safetensors");
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)),
                                   "the safetensors header is not valid JSON"));
  row = GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (error_list ()), 1));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "empty.safetensors");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "empty"));
  g_assert_null (gtk_list_box_get_row_at_index (GTK_LIST_BOX (error_list ()), 2));

  close_error_dialog ();
  pl_test_rmtree (dir);
}

/* Layers and heads step from anywhere: the keys are caught before the
 * focused widget (the sidebar's list took Page Down) and carry a modifier
 * no list, entry or spin button moves with. */
static void
test_stepping_keys (void)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GtkShortcutController *keys = NULL;
  guint n_layer = 0, n_head = 0;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (g_strcmp0 (gtk_event_controller_get_name (controller), "pl-stepping-keys") == 0)
        keys = GTK_SHORTCUT_CONTROLLER (controller);
    }
  g_assert_nonnull (keys);
  g_assert_cmpint (gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (keys)), ==, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (keys)); i++)
    {
      g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (keys), i);
      GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
      const char *action = gtk_named_action_get_action_name (GTK_NAMED_ACTION (gtk_shortcut_get_action (shortcut)));

      g_assert_true (GTK_IS_KEYVAL_TRIGGER (trigger));
      g_assert_cmpuint (gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) &
                        (GDK_CONTROL_MASK | GDK_ALT_MASK), !=, 0);
      n_layer += g_strcmp0 (action, "win.step-layer") == 0;
      n_head += g_strcmp0 (action, "win.step-head") == 0;
    }
  g_assert_cmpuint (n_layer, ==, 2);
  g_assert_cmpuint (n_head, ==, 2);
}

static gboolean
attention_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_attention_page_get_stats (page) != NULL;
}

static gboolean
figure_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_page_get_figure (page) != NULL &&
         g_strcmp0 (pl_page_get_shown (page), "figure") == 0;
}

static gboolean
not_busy (gpointer page)
{
  return !pl_page_get_busy (page);
}

static gboolean
difference_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_compare_page_get_difference (page) != NULL;
}

/* Cosine similarity of the rows of X, in double. */
static double *
cosine_similarity (const PlMatrix *x)
{
  double *sim = g_new0 (double, x->rows * x->rows);

  for (gsize i = 0; i < x->rows; i++)
    for (gsize j = 0; j < x->rows; j++)
      {
        double dot = 0, ni = 0, nj = 0;

        for (gsize d = 0; d < x->cols; d++)
          {
            double a = pl_matrix_get (x, i, d), b = pl_matrix_get (x, j, d);

            dot += a * b;
            ni += a * a;
            nj += b * b;
          }
        sim[i * x->rows + j] = dot / sqrt (ni * nj);
      }
  return sim;
}

/* Probes and Compare put an activations file, which has no table, beside
 * the models by its embedding output: the Probes row is the probes of the
 * file's layer-0 mean hidden states, and Compare's difference of two files
 * is the difference of those states' cosine similarities, computed here. */
static void
check_across_models (PlTransformer *transformer,
                     const char    *dir,
                     const char    *name)
{
  g_autofree char *path = g_build_filename (dir, "gpt2-activations-b.h5", NULL);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  PlActivationsInputs inputs = { "mini-gpt2 (activations b)", NULL, "test", sequences, NULL, NULL };
  PlProbesPage *probes = PL_PROBES_PAGE (pl_window_get_page (window, "probes"));
  PlComparePage *compare = PL_COMPARE_PAGE (pl_window_get_page (window, "compare"));
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_autoptr(PlModel) first = g_list_model_get_item (pl_window_get_models (window), (guint) find_model (name));
  g_autoptr(PlModel) second = NULL;
  g_autoptr(PlMatrix) embedding_a = NULL;
  g_autoptr(PlMatrix) embedding_b = NULL;
  g_autofree double *sim_a = NULL;
  g_autofree double *sim_b = NULL;
  g_autofree char *label = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  PlProbeOptions options;
  PlProbeResult run;
  PlMatrix *difference;
  double mae, rel, worst = 0;
  guint before = n_models ();

  for (guint s = 0; s < 2; s++)
    g_ptr_array_add (sequences, pl_transformer_random_ids (transformer, 32, 20 + s));
  g_assert_true (pl_activations_write (transformer, &inputs, path, NULL, &error));
  g_assert_no_error (error);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the second activations file");
  second = g_list_model_get_item (pl_window_get_models (window), (guint) find_model (inputs.model_name));
  embedding_a = pl_activations_file_read_position_mean (pl_model_get_activations (first), 0, &error);
  embedding_b = pl_activations_file_read_position_mean (pl_model_get_activations (second), 0, &error);
  g_assert_no_error (error);
  label = pl_question_table_name (first);
  g_assert_cmpstr (label, ==, "mini-gpt2 (activations) · embedding output");

  pl_window_show_view (window, "compare");
  pl_compare_page_set_models (compare, (guint) find_model (name), (guint) find_model (inputs.model_name));
  pl_test_wait_until (difference_ready, compare, "the two files' difference");
  difference = pl_compare_page_get_difference (compare);
  sim_a = cosine_similarity (embedding_a);
  sim_b = cosine_similarity (embedding_b);
  g_assert_cmpuint (difference->rows, ==, 32);
  g_assert_cmpuint (difference->cols, ==, 32);
  for (gsize i = 0; i < 32 * 32; i++)
    worst = MAX (worst, fabs (difference->data[i] - (sim_a[i] - sim_b[i])));
  g_assert_cmpfloat (worst, <, 1e-5);
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (compare)), ==, "figure");

  /* One interleaved run of the probes of the two files alone (the demos'
   * take minutes; only quitting runs after this test): the file's row is
   * the probes of its embedding output. */
  for (guint i = n_models (); i-- > 0;)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (pl_window_get_models (window), i);

      if (pl_model_get_activations (model) != NULL)
        continue;
      pl_window_select_model (window, i);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-model", NULL));
    }
  g_assert_cmpuint (n_models (), ==, 2);
  g_settings_set_int (settings, "probe-repeats", 1);
  pl_window_show_view (window, "probes");
  pl_probes_page_set_protocol (probes, PL_PROBE_INTERLEAVED);
  pl_probes_page_run (probes);
  pl_test_wait_until (not_busy, probes, "the probes");
  g_assert_true (pl_probes_page_get_result (probes, first, &mae, &rel));
  pl_probe_options_init (&options);
  options.protocol = PL_PROBE_INTERLEAVED;
  g_assert_true (pl_probe_repeat (embedding_a, &options, 1, &run, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (mae, ==, (float) run.absolute_mae);
  g_assert_cmpfloat (rel, ==, (float) run.relative_error);
  g_settings_reset (settings, "probe-repeats");
  pl_probes_page_set_protocol (probes, PL_PROBE_PAPER);
}

/* An activations file opens like a model: the layers start at the
 * embedding output, attention shows the file's statistics as they were
 * written, and what needs weights says so. */
static void
test_activations_file (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "gpt2-activations.h5", NULL);
  g_autofree char *demo = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) source = pl_model_open (demo, NULL, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, NULL, &error);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(PlAttentionStats) expected = NULL;
  g_autoptr(GFile) file = NULL;
  PlActivationsInputs inputs = { "mini-gpt2 (activations)", NULL, "test", sequences, NULL, NULL };
  PlWorkspace *workspace = pl_window_get_workspace (window);
  GtkWidget *attention = pl_window_get_page (window, "attention");
  GtkWidget *similarity = pl_window_get_page (window, "similarity");
  PlAttentionStats *shown;
  guint before = n_models ();

  g_assert_no_error (error);
  for (guint s = 0; s < 2; s++)
    g_ptr_array_add (sequences, pl_transformer_random_ids (transformer, 32, 7 + s));
  g_assert_true (pl_activations_write (transformer, &inputs, path, NULL, &error));
  g_assert_no_error (error);
  expected = pl_attention_stats_compute_for_ids (transformer, sequences, NULL, NULL, NULL, &error);

  file = g_file_new_for_path (path);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (models_at_least, GUINT_TO_POINTER (before + 1), "the activations file");
  pl_window_select_model (window, (guint) find_model ("mini-gpt2 (activations)"));
  g_assert_cmpint (pl_workspace_get_layer (workspace), ==, 0);
  g_assert_cmpuint (pl_workspace_get_n_layers (workspace), ==, 4);

  pl_window_show_view (window, "similarity");
  pl_test_wait_until (figure_ready, similarity, "layer 0's heatmap");

  pl_window_show_view (window, "attention");
  pl_test_wait_until (attention_ready, attention, "the file's attention statistics");
  shown = pl_attention_page_get_stats (PL_ATTENTION_PAGE (attention));
  g_assert_cmpuint (shown->n_tokens, ==, 32);
  g_assert_cmpfloat (pl_test_max_abs_diff (shown->offset_profile, expected->offset_profile), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (shown->mean_distance, expected->mean_distance), ==, 0);
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (attention)), ==, "figure");

  pl_attention_page_show (PL_ATTENTION_PAGE (attention), "position-only");
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (attention)), ==, "status");
  g_assert_cmpstr (adw_status_page_get_title (pl_page_get_status (PL_PAGE (attention))), ==,
                   "Needs the Model’s Weights");
  pl_attention_page_show (PL_ATTENTION_PAGE (attention), "offsets");
  g_assert_cmpstr (pl_page_get_shown (PL_PAGE (attention)), ==, "figure");
  check_across_models (transformer, dir, "mini-gpt2 (activations)");
  pl_window_show_view (window, "similarity");
  pl_test_rmtree (dir);
}

/* The About dialog's icon comes with the app, installed or not. */
static void
test_app_icon (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (window)));

  g_assert_true (gtk_icon_theme_has_icon (theme, APP_ID));
}

/* The content's back button leads to the folded sidebar. */
static void
test_back_to_models (void)
{
  g_autoptr(GtkSelectionModel) pages = adw_leaflet_get_pages (window->leaflet);
  g_autoptr(AdwLeafletPage) first = g_list_model_get_item (G_LIST_MODEL (pages), 0);
  GtkWidget *sidebar = adw_leaflet_page_get_child (first);

  adw_leaflet_navigate (window->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  g_assert_false (adw_leaflet_get_visible_child (window->leaflet) == sidebar);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-models", NULL));
  g_assert_true (adw_leaflet_get_visible_child (window->leaflet) == sidebar);
}

static gboolean
window_gone (gpointer data)
{
  return window == NULL;
}

/* Ctrl+Q saves what the close button saves: the window's size and state
 * and the models the user opened. */
static void
test_quit_saves_state (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  g_autoptr(GVariant) saved = NULL;
  gboolean found = FALSE;

  g_settings_reset (settings, "open-models");
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_settings_set_boolean (settings, "window-maximized", TRUE);
  if (find_path ("builtin:sinusoidal:1024x512") < 0)
    test_builtin_command_line ();
  gtk_window_unmaximize (GTK_WINDOW (window));
  gtk_window_set_default_size (GTK_WINDOW (window), 1013, 707);
  pl_test_wait_frames (GTK_WIDGET (window), 3);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  pl_test_wait_until (window_gone, NULL, "the window to close");

  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1013);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 707);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));
  saved = g_settings_get_value (settings, "open-models");
  for (gsize i = 0; i < g_variant_n_children (saved); i++)
    {
      const char *path, *dataset;

      g_variant_get_child (saved, i, "(&s&s)", &path, &dataset);
      found |= g_strcmp0 (path, "builtin:sinusoidal:1024x512") == 0;
    }
  g_assert_true (found);
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-open/builtin-command-line", test_builtin_command_line);
  g_test_add_func ("/pl/window-open/order-opened", test_order_opened);
  g_test_add_func ("/pl/window-open/open-again", test_open_again);
  g_test_add_func ("/pl/window-open/restore-models", test_restore_models);
  g_test_add_func ("/pl/window-open/remove-model", test_remove_model);
  g_test_add_func ("/pl/window-open/removed-demo-stays-out", test_removed_demo_stays_out);
  g_test_add_func ("/pl/window-open/new-encoding", test_new_encoding);
  g_test_add_func ("/pl/window-open/load-error-dialog", test_load_error_dialog);
  g_test_add_func ("/pl/window-open/stepping-keys", test_stepping_keys);
  g_test_add_func ("/pl/window-open/app-icon", test_app_icon);
  g_test_add_func ("/pl/window-open/back-to-models", test_back_to_models);
  /* Last but for quitting: it leaves only the activations files open. */
  g_test_add_func ("/pl/window-open/activations-file", test_activations_file);
  /* Last: it closes the window. */
  g_test_add_func ("/pl/window-open/quit-saves-state", test_quit_saves_state);
  status = g_test_run ();
  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
