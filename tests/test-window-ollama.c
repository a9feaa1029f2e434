/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-attention-stats.h"
#include "pl-attention-text.h"
#include "pl-compare-page.h"
#include "pl-playground-page.h"
#include "pl-probes-page.h"
#include "pl-similarity-page.h"
#include "pl-text-attention.h"
#include "pl-ollama-dialog.h"
#include "pl-questions.h"
#include "pl-rope-profile.h"
#include "pl-rotary-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-transformer.h"
#include "pl-trajectory-page.h"
#include "pl-window.h"
#include "pl-workspace.h"

/* GGUF files and Ollama's models in the real window: Open Ollama Model…
 * lists a store's models by name (OLLAMA_MODELS points at one built from
 * the GGUF fixtures), picking one opens it named so, and its views work as
 * for a Hugging Face folder: a rotary Llama's Rotary and Attention views
 * (against the core) and a typed sentence through its own tokenizer, a
 * GPT-2's table views; "ollama:NAME" on the
 * command line; an empty store says where it looked. A quantised GGUF
 * file opened as a file and a quantised model of the store each show every
 * view, as the core computes it on the same model. */

static PlApplication *app;
static PlWindow *window;
static char *store;

static gboolean
rotary_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_rotary_page_get_profile (p) != NULL;
}

static gboolean
attention_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_attention_page_get_stats (p) != NULL;
}

static int
find_path (const char *path)
{
  GListModel *models = pl_window_get_models (window);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_str_equal (pl_model_get_path (model), path))
        return (int) i;
    }
  return -1;
}

/* The error dialog the window shows for files it could not open, or NULL. */
static AdwMessageDialog *
find_error_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

/* PATH is listed; a refusal fails the test at once, with the window's
 * reason, rather than waiting out pl_test_wait_until's bound. */
static gboolean
path_listed (gpointer path)
{
  AdwMessageDialog *refused = find_error_dialog ();

  if (refused != NULL)
    g_error ("%s was not opened: %s — %s", (const char *) path, adw_message_dialog_get_heading (refused),
             adw_message_dialog_get_body (refused));
  return find_path (path) >= 0;
}

/* The Ollama dialog the window shows now. */
static PlOllamaDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (PL_IS_OLLAMA_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return PL_OLLAMA_DIALOG (w);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog () != NULL;
}

static PlModel *
current_model (void)
{
  return pl_workspace_get_model (pl_window_get_workspace (window));
}

/* Picks NAME in the dialog and waits for its model, selected. */
static void
open_from_dialog (const char *name)
{
  g_autofree char *path = g_strconcat ("ollama:", name, NULL);
  PlOllamaDialog *dialog;
  guint i;

  pl_test_activate (window, "win.open-ollama", NULL);
  pl_test_wait_until (dialog_shown, NULL, "the Ollama dialog");
  dialog = find_dialog ();
  g_assert_cmpuint (pl_ollama_dialog_get_n_models (dialog), ==, 3);
  g_assert_cmpstr (pl_ollama_dialog_get_name (dialog, 0), ==, "example.org/team/gpt2:small");
  g_assert_cmpstr (pl_ollama_dialog_get_name (dialog, 1), ==, "llama3.2:1b");
  g_assert_cmpstr (pl_ollama_dialog_get_name (dialog, 2), ==, "tiny:latest");
  for (i = 0; g_strcmp0 (pl_ollama_dialog_get_name (dialog, i), name) != 0; i++)
    g_assert_cmpuint (i, <, 3);
  pl_ollama_dialog_choose (dialog, i);
  pl_test_wait_until (path_listed, path, name);
  g_assert_cmpstr (pl_model_get_name (current_model ()), ==, name);
  g_assert_cmpstr (pl_model_get_path (current_model ()), ==, path);
}

/* A Llama from the store: its Rotary and Attention views as the core
 * computes them on the same model. */
static void
test_llama (void)
{
  PlRotaryPage *rotary = PL_ROTARY_PAGE (pl_test_page (window, "rotary"));
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlRopeProfile) expected = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;

  pl_window_show_view (window, "rotary");
  open_from_dialog ("llama3.2:1b");
  g_assert_cmpint (pl_model_get_family (current_model ()), ==, PL_FAMILY_LLAMA);
  pl_test_wait_until (rotary_ready, rotary, "the rotary profile");
  transformer = pl_transformer_new (current_model (), NULL, NULL);
  expected = pl_rope_profile_compute (transformer, 8, 32, 1, NULL, NULL, NULL, NULL);
  g_assert_cmpfloat (pl_test_max_abs_diff (pl_rotary_page_get_profile (rotary)->query_norm, expected->query_norm),
                     ==, 0);
  pl_window_show_view (window, "attention");
  pl_test_wait_until (attention_ready, attention, "the attention statistics");
  stats = pl_attention_stats_compute (transformer, 8, pl_question_sample_length (current_model ()), 1,
                                      NULL, NULL, NULL, NULL);
  g_assert_cmpfloat (pl_test_max_abs_diff (pl_attention_page_get_stats (attention)->offset_profile,
                                           stats->offset_profile), ==, 0);
}

static gboolean
text_idle (gpointer text)
{
  return !pl_page_get_busy (PL_PAGE (text)) && pl_attention_text_get_result (text) != NULL;
}

/* A sentence typed for the Llama from the store runs through the tokenizer
 * its GGUF file carries: the ids and every attention map of the folder it
 * was converted from (rope/llama/reference.h5; F32 weights: within 1e-5). */
static void
test_llama_text (void)
{
  g_autofree char *reference = pl_test_fixture ("rope", "llama", "reference.h5", NULL);
  g_autoptr(PlMatrix) ids = pl_test_read_h5 (reference, "/text/input_ids");
  g_autoptr(PlMatrix) expected = pl_test_read_h5 (reference, "/text/attentions");
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  PlAttentionText *text = pl_attention_page_get_text (attention);
  GtkEditable *entry;
  PlTextAttention *result;
  int listed = find_path ("ollama:llama3.2:1b");
  guint t;

  g_assert_cmpint (listed, >=, 0);
  pl_window_select_model (window, listed);
  pl_window_show_view (window, "attention");
  pl_attention_page_show (attention, "text");
  entry = pl_attention_text_get_entry (text);
  gtk_editable_set_text (entry, "the cat sat on the mat.");
  g_signal_emit_by_name (entry, "activate");
  pl_test_wait_until (text_idle, text, "the sentence's forward pass");
  result = pl_attention_text_get_result (text);
  t = result->n_tokens;
  g_assert_cmpuint (t, ==, ids->cols);
  for (guint i = 0; i < t; i++)
    g_assert_cmpint (g_array_index (result->ids, int, i), ==, (int) ids->data[i]);
  g_assert_cmpstr (result->labels[2], ==, " cat");
  for (guint l = 0; l < result->n_layers; l++)
    for (guint h = 0; h < result->n_heads; h++)
      for (guint i = 0; i < t; i++)
        for (guint j = 0; j < t; j++)
          g_assert_cmpfloat (fabs (pl_matrix_get (result->attentions[l], h * t + i, j) -
                                   expected->data[(((gsize) l * result->n_heads + h) * t + i) * t + j]), <, 1e-5);
}

/* Opens PATH (a file, a folder or "ollama:NAME", as the command line gives
 * them) unless listed, and selects it; its index. */
static int
open_and_select (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  int listed = find_path (path);

  if (listed < 0)
    {
      g_application_open (G_APPLICATION (app), &file, 1, "");
      pl_test_wait_until (path_listed, (gpointer) path, path);
      listed = find_path (path);
    }
  pl_window_select_model (window, listed);
  g_assert_cmpstr (pl_model_get_path (current_model ()), ==, path);
  return listed;
}

static gboolean
similarity_ready (gpointer p)
{
  return pl_test_page_ready (p) && pl_similarity_page_get_matrix (p) != NULL;
}

static gboolean
playground_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_playground_page_get_matrix (p) != NULL;
}

static gboolean
compare_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_compare_page_get_difference (p) != NULL;
}

static gboolean
status_shown (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && g_strcmp0 (pl_page_get_shown (p), "status") == 0;
}

static gboolean
page_idle (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p);
}

/* Every view on the rotary GGUF model at INDEX: the layers' similarity
 * (layer 1, against pl_similarity_compute of the core's positional
 * components over the same random inputs), trajectory, the attention by
 * offset and the rotary profile against the core on the same model (the
 * core against the Hugging Face folder: test-gguf-models); the views that
 * take each model's position table (Probes, Compare, Patches) say this one
 * has none, and the Playground, which draws analytic encodings, draws. */
static void
check_every_view (int index)
{
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  PlPage *trajectory = PL_PAGE (pl_test_page (window, "trajectory"));
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  PlRotaryPage *rotary = PL_ROTARY_PAGE (pl_test_page (window, "rotary"));
  PlPage *probes = PL_PAGE (pl_test_page (window, "probes"));
  PlPage *compare = PL_PAGE (pl_test_page (window, "compare"));
  PlPage *playground = PL_PAGE (pl_test_page (window, "playground"));
  PlPage *patches = PL_PAGE (pl_test_page (window, "patches"));
  PlWorkspace *workspace = pl_window_get_workspace (window);
  PlModel *model;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(GPtrArray) layers = NULL;
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(PlRopeProfile) profile = NULL;
  guint length;
  double a, r;

  pl_window_select_model (window, index);
  model = current_model ();
  length = pl_question_sample_length (model);
  transformer = pl_transformer_new (model, NULL, NULL);
  /* the workspace takes the layers over 8 inputs, seeds 1 … 8 */
  layers = pl_attention_positional_components (transformer, pl_model_get_n_layers (model), 8, length, 1,
                                               NULL, NULL, NULL, NULL);
  cosine = pl_similarity_compute (g_ptr_array_index (layers, 1), PL_SIMILARITY_COSINE,
                                  g_settings_get_boolean (pl_workspace_get_settings (workspace), "center"),
                                  NULL, NULL);
  stats = pl_attention_stats_compute (transformer, PL_FORWARD_SEQUENCES, length, PL_FORWARD_SEED, NULL, NULL, NULL, NULL);
  profile = pl_rope_profile_compute (transformer, PL_FORWARD_SEQUENCES, length, PL_FORWARD_SEED, NULL, NULL, NULL, NULL);

  pl_workspace_set_layer (workspace, 1);
  pl_window_show_view (window, "similarity");
  pl_similarity_page_set_metric (PL_SIMILARITY_PAGE (similarity), PL_SIMILARITY_COSINE);
  pl_test_wait_until (similarity_ready, similarity, "layer 1's similarity");
  g_assert_cmpfloat (pl_test_max_abs_diff (pl_similarity_page_get_matrix (PL_SIMILARITY_PAGE (similarity)), cosine),
                     <, 1e-6);
  pl_window_show_view (window, "trajectory");
  pl_test_wait_until (pl_test_page_ready, trajectory, "layer 1's trajectory");
  pl_window_show_view (window, "attention");
  pl_attention_page_show (attention, "offsets");
  pl_test_wait_until (attention_ready, attention, "the attention by offset");
  g_assert_cmpfloat (pl_test_max_abs_diff (pl_attention_page_get_stats (attention)->offset_profile,
                                           stats->offset_profile), ==, 0);
  pl_window_show_view (window, "rotary");
  pl_test_wait_until (rotary_ready, rotary, "the rotary profile");
  g_assert_cmpfloat (pl_test_max_abs_diff (pl_rotary_page_get_profile (rotary)->query_norm, profile->query_norm),
                     ==, 0);

  pl_window_show_view (window, "compare");
  pl_compare_page_set_models (PL_COMPARE_PAGE (compare), (guint) index, 0);
  pl_test_wait_until (page_idle, compare, "the comparison");
  g_assert_null (pl_compare_page_get_difference (PL_COMPARE_PAGE (compare)));
  g_assert_cmpstr (pl_page_get_shown (compare), !=, "figure");
  pl_window_show_view (window, "probes");
  pl_test_wait_until (page_idle, probes, "the probes' table");
  g_assert_false (pl_probes_page_get_result (PL_PROBES_PAGE (probes), model, &a, &r));
  pl_window_show_view (window, "patches");
  pl_test_wait_until (status_shown, patches, "why there are no patches");
  g_assert_nonnull (strstr (adw_status_page_get_description (pl_page_get_status (patches)),
                            pl_model_get_name (model)));
  pl_window_show_view (window, "playground");
  pl_test_wait_until (playground_ready, playground, "the playground");
}

/* A GGUF file in K-quants (Q4_K and Q6_K) opened as a file. */
static void
test_file_views (void)
{
  g_autofree char *gguf = pl_test_fixture ("gguf", "llama-256-q4_k_m.gguf", NULL);

  check_every_view (open_and_select (gguf));
}

/* A Q8_0 model of the store, by its name. */
static void
test_store_views (void)
{
  check_every_view (open_and_select ("ollama:tiny:latest"));
}

/* A GPT-2 of the store in Q8_0 and the F32 file it was quantised from: the
 * Compare view shows how far apart their tables' cosine similarities are
 * as the core computes them, within the bound Q8_0's rounding sets; the
 * Probes fit the quantised table. */
static void
test_table_views (void)
{
  g_autofree char *f32 = pl_test_fixture ("gguf", "gpt2-f32.gguf", NULL);
  PlPage *compare = PL_PAGE (pl_test_page (window, "compare"));
  PlPage *probes = PL_PAGE (pl_test_page (window, "probes"));
  int first = open_and_select ("ollama:example.org/team/gpt2:small");
  g_autoptr(PlModel) quantised = g_list_model_get_item (pl_window_get_models (window), first);
  int second = open_and_select (f32);
  g_autoptr(PlMatrix) table_q = pl_model_read_positions (quantised, NULL);
  g_autoptr(PlMatrix) table_f = pl_model_read_positions (current_model (), NULL);
  g_autoptr(PlMatrix) cos_q = pl_similarity_compute (table_q, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  g_autoptr(PlMatrix) cos_f = pl_similarity_compute (table_f, PL_SIMILARITY_COSINE, FALSE, NULL, NULL);
  g_autofree double *moved = NULL;
  PlMatrix *difference;
  double worst = 0, a, r;

  pl_workspace_set_layer (pl_window_get_workspace (window), PL_LAYER_TABLE);
  pl_window_show_view (window, "compare");
  pl_compare_page_set_models (PL_COMPARE_PAGE (compare), (guint) first, (guint) second);
  pl_test_wait_until (compare_ready, compare, "the comparison");
  difference = pl_compare_page_get_difference (PL_COMPARE_PAGE (compare));
  g_assert_cmpuint (difference->rows, ==, 48);
  g_assert_cmpuint (difference->cols, ==, 48);
  g_assert_cmpuint (table_f->cols % 32, ==, 0);
  /* Q8_0 moves each value by at most half its block's step (the block's
   * largest |x| / 127): row i by e_i <= sqrt (sum (step / 2)^2) in norm, its
   * unit vector by 2 e_i / |x_i|, a cosine by the sum of two of those. */
  moved = g_new0 (double, table_f->rows);
  for (gsize i = 0; i < table_f->rows; i++)
    {
      const float *x = pl_matrix_row (table_f, i);
      double squares = 0, norm = 0;

      for (gsize b = 0; b < table_f->cols; b += 32)
        {
          double largest = 0;

          for (gsize j = b; j < b + 32; j++)
            largest = MAX (largest, fabs (x[j]));
          /* the step is kept as a half: 2^-11 more at most */
          squares += 32 * pow (largest / 127 / 2 * (1 + 0x1p-11), 2);
        }
      for (gsize j = 0; j < table_f->cols; j++)
        norm += (double) x[j] * x[j];
      moved[i] = 2 * sqrt (squares) / sqrt (norm);
    }
  for (gsize i = 0; i < difference->rows; i++)
    for (gsize j = 0; j < difference->cols; j++)
      {
        double d = pl_matrix_get (difference, i, j);

        g_assert_cmpfloat (fabs (d - (pl_matrix_get (cos_q, i, j) - pl_matrix_get (cos_f, i, j))), <, 1e-6);
        g_assert_cmpfloat (fabs (d), <=, moved[i] + moved[j]);
        worst = MAX (worst, fabs (d) / (moved[i] + moved[j]));
      }
  g_test_message ("Q8_0 moves the table's cosines by up to %.2g of the bound", worst);
  g_assert_cmpfloat (worst, >, 0);

  g_settings_set_int (pl_workspace_get_settings (pl_window_get_workspace (window)), "probe-repeats", 1);
  pl_window_show_view (window, "probes");
  pl_probes_page_run (PL_PROBES_PAGE (probes));
  pl_test_wait_until (page_idle, probes, "the probes");
  g_assert_true (pl_probes_page_get_result (PL_PROBES_PAGE (probes), quantised, &a, &r));
  g_assert_true (isfinite (a) && isfinite (r));
  g_settings_reset (pl_workspace_get_settings (pl_window_get_workspace (window)), "probe-repeats");
}

/* A GPT-2 from the store: its learned table in the similarity and
 * trajectory views. */
static void
test_gpt2 (void)
{
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  PlPage *trajectory = PL_PAGE (pl_test_page (window, "trajectory"));

  pl_window_show_view (window, "similarity");
  open_from_dialog ("example.org/team/gpt2:small");
  g_assert_cmpint (pl_model_get_family (current_model ()), ==, PL_FAMILY_GPT2);
  pl_workspace_set_layer (pl_window_get_workspace (window), PL_LAYER_TABLE);
  pl_test_wait_until (pl_test_page_ready, similarity, "the table's similarity");
  pl_window_show_view (window, "trajectory");
  pl_test_wait_until (pl_test_page_ready, trajectory, "the table's trajectory");
}

/* "ollama:tiny" as the command line gives it opens the model tiny:latest. */
static void
test_command_line (void)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg ("ollama:tiny");

  g_application_open (G_APPLICATION (app), &file, 1, "");
  pl_test_wait_until (path_listed, (gpointer) "ollama:tiny", "ollama:tiny");
}

/* With no store the dialog says where it looked. */
static void
test_empty (void)
{
  PlOllamaDialog *dialog;

  g_setenv ("OLLAMA_MODELS", "/nonexistent/ollama", TRUE);
  pl_test_activate (window, "win.open-ollama", NULL);
  pl_test_wait_until (dialog_shown, NULL, "the Ollama dialog");
  dialog = find_dialog ();
  g_assert_cmpuint (pl_ollama_dialog_get_n_models (dialog), ==, 0);
  g_assert_true (pl_test_shows_label (GTK_WIDGET (dialog), "No Ollama Models"));
  gtk_window_close (GTK_WINDOW (dialog));
  g_setenv ("OLLAMA_MODELS", store, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = NULL;
  g_autofree char *llama = NULL;
  g_autofree char *q8 = NULL;
  g_autofree char *gpt2 = NULL;
  int status;

  pl_test_window_init (&argc, &argv);
  dir = pl_test_tmpdir ();
  store = g_build_filename (dir, "models", NULL);
  llama = pl_test_fixture ("gguf", "llama-f32.gguf", NULL);
  q8 = pl_test_fixture ("gguf", "llama-q8_0.gguf", NULL);
  gpt2 = pl_test_fixture ("gguf", "gpt2-q8_0.gguf", NULL);
  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "llama3.2", "1b", llama, NULL);
  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "tiny", "latest", q8, NULL);
  pl_test_add_ollama_model (store, "example.org", "team", "gpt2", "small", gpt2, NULL);
  g_setenv ("OLLAMA_MODELS", store, TRUE);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-ollama/llama", test_llama);
  g_test_add_func ("/pl/window-ollama/llama-text", test_llama_text);
  g_test_add_func ("/pl/window-ollama/gpt2", test_gpt2);
  g_test_add_func ("/pl/window-ollama/command-line", test_command_line);
  g_test_add_func ("/pl/window-ollama/empty", test_empty);
  g_test_add_func ("/pl/window-ollama/file-views", test_file_views);
  g_test_add_func ("/pl/window-ollama/store-views", test_store_views);
  g_test_add_func ("/pl/window-ollama/table-views", test_table_views);
  status = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  pl_test_rmtree (dir);
  return status;
}
