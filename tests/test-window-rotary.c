/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-activations-writer.h"
#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-attention-stats.h"
#include "pl-encodings.h"
#include "pl-figure-view.h"
#include "pl-playground-page.h"
#include "pl-questions.h"
#include "pl-rope.h"
#include "pl-rope-profile.h"
#include "pl-rotary-page.h"
#include "pl-similarity-page.h"
#include "pl-test-transformer.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-transformer.h"
#include "pl-window.h"
#include "pl-workspace.h"

/* Rotary models in the real window: a tiny Llama and a tiny GPT-NeoX open on
 * their first layer's positional component, say why they have no table and
 * open the analytic RoPE instead, run the attention views, and show the
 * rotary profile the core computes; the Playground's RoPE and ALiBi against
 * their closed forms. */

static PlApplication *app;
static PlWindow *window;

static PlWorkspace *
workspace (void)
{
  return pl_window_get_workspace (window);
}

static gboolean
status_shown (gpointer p)
{
  return g_strcmp0 (pl_page_get_shown (p), "status") == 0;
}

static gboolean
attention_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_attention_page_get_stats (p) != NULL;
}

static gboolean
rotary_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_rotary_page_get_profile (p) != NULL;
}

static gboolean
playground_ready (gpointer p)
{
  return !pl_page_get_busy ((PlPage *) p) && pl_playground_page_get_matrix (p) != NULL;
}

static guint wanted_models;

static gboolean
models_listed (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= wanted_models;
}

/* The sidebar's row of the file at PATH, or -1. */
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

/* Opens tests/fixtures/rope/NAME (opened again, the row already listed is
 * selected) and selects it; returns its index. */
static guint
open_fixture (const char *name)
{
  g_autofree char *path = pl_test_fixture ("rope", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  int listed = find_path (path);
  guint index = g_list_model_get_n_items (pl_window_get_models (window));

  if (listed >= 0)
    {
      PlModel *selected;

      /* Another row selected first: opening the file selects its row at
       * once, without reading it or listing it twice. */
      if (index > 1)
        pl_window_select_model (window, listed == 0 ? 1 : 0);
      pl_window_open_file (window, file, TRUE);
      g_assert_cmpuint (g_list_model_get_n_items (pl_window_get_models (window)), ==, index);
      selected = pl_window_get_selected_model (window);
      g_assert_nonnull (selected);
      g_assert_cmpstr (pl_model_get_path (selected), ==, path);
      return (guint) listed;
    }
  wanted_models = index + 1;
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (models_listed, NULL, name);
  pl_window_select_model (window, index);
  return index;
}

static PlModel *
current_model (void)
{
  return pl_workspace_get_model (workspace ());
}

/* The model opens on layer 1; its table layer explains itself and offers the
 * analytic RoPE, which opens as a model of its own. */
static void
test_opens_on_layers (void)
{
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  g_autofree char *spec = NULL;
  AdwStatusPage *status;
  guint n;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  open_fixture ("llama");
  g_assert_cmpint (pl_model_get_family (current_model ()), ==, PL_FAMILY_LLAMA);
  g_assert_cmpint (pl_workspace_get_layer (workspace ()), ==, 1);
  pl_test_wait_until (pl_test_page_ready, similarity, "layer 1's similarity");

  pl_workspace_set_layer (workspace (), PL_LAYER_TABLE);
  pl_test_wait_until (status_shown, similarity, "why there is no table");
  status = pl_page_get_status (similarity);
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "No Position Table");
  g_assert_nonnull (strstr (adw_status_page_get_description (status), "base 500"));
  g_assert_true (GTK_IS_BUTTON (adw_status_page_get_child (status)));
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (adw_status_page_get_child (status))), ==,
                   "win.open-analytic");

  spec = pl_question_analytic_rope (current_model ());
  g_assert_cmpstr (spec, ==, "builtin:rope:32x12:500");
  n = g_list_model_get_n_items (pl_window_get_models (window));
  wanted_models = n + 1;
  gtk_widget_activate (adw_status_page_get_child (status));
  pl_test_wait_until (models_listed, NULL, "the analytic RoPE");
  pl_test_wait_until (pl_test_page_ready, similarity, "the analytic RoPE's similarity");
  g_assert_nonnull (pl_model_get_encoding (current_model ()));
  g_assert_cmpint (pl_model_get_encoding (current_model ())->kind, ==, PL_ENCODING_ROPE);
}

/* The attention statistics of a rotary model over its sample length, as the
 * core computes them; no position-only term. */
static void
check_attention (const char *name)
{
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlAttentionStats) expected = NULL;
  PlAttentionStats *stats;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  open_fixture (name);
  pl_test_wait_until (attention_ready, attention, "the attention statistics");
  stats = pl_attention_page_get_stats (attention);
  transformer = pl_transformer_new (current_model (), NULL, NULL);
  expected = pl_attention_stats_compute (transformer, 8, pl_question_sample_length (current_model ()), 1,
                                         NULL, NULL, NULL, NULL);
  g_assert_cmpuint (stats->n_tokens, ==, 32);
  g_assert_cmpfloat (pl_test_max_abs_diff (stats->offset_profile, expected->offset_profile), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (stats->first_token, expected->first_token), ==, 0);
  pl_attention_page_show (attention, "distances");
  g_assert_nonnull (pl_page_get_figure (PL_PAGE (attention)));
}

static PlFigureView *
find_figure_view (GtkWidget *widget,
                  PlFigure  *figure)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      PlFigureView *found;

      if (PL_IS_FIGURE_VIEW (child) && pl_figure_view_get_figure (PL_FIGURE_VIEW (child)) == figure)
        return PL_FIGURE_VIEW (child);
      if ((found = find_figure_view (child, figure)) != NULL)
        return found;
    }
  return NULL;
}

/* Heads count from 1, as everywhere (the Attention view, the command line):
 * PAGE's heatmap of heads, as drawn, has its head axis ticked from 1 up and
 * reads its first row out as READOUT_START. */
static void
assert_heads_from_one (GtkWidget  *page,
                       const char *readout_start)
{
  PlFigure *figure = pl_page_get_figure (PL_PAGE (page));
  PlFigureView *view = find_figure_view (page, figure);
  g_autofree char *text = NULL;
  g_autoptr(GBytes) image = NULL;
  const double *ticks;
  cairo_rectangle_t plot;
  guint n;
  int w, h;

  g_assert_nonnull (view);
  image = pl_test_render (page, &w, &h);
  ticks = pl_figure_get_ticks (figure, FALSE, &n);
  g_assert_nonnull (ticks);
  g_assert_cmpuint (n, >=, 2);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (ticks[i], >=, 1);
  pl_figure_get_plot_area (figure, &plot);
  text = pl_figure_view_describe_at (view, plot.x + 1, plot.y + 1);
  g_test_message ("heads ticked %g … %g; first row: %s", ticks[0], ticks[n - 1], text);
  g_assert_nonnull (text);
  g_assert_true (g_str_has_prefix (text, readout_start));
}

/* The Rotary view shows the profile pl_rope_profile_compute gives. */
static void
check_rotary (const char *name)
{
  PlRotaryPage *rotary = PL_ROTARY_PAGE (pl_test_page (window, "rotary"));
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlRopeProfile) expected = NULL;
  PlRopeProfile *profile;
  PlFigure *figure;
  int w, h;
  g_autoptr(GBytes) image = NULL;

  pl_window_show_view (window, "rotary");
  open_fixture (name);
  pl_test_wait_until (rotary_ready, rotary, "the rotary profile");
  profile = pl_rotary_page_get_profile (rotary);
  transformer = pl_transformer_new (current_model (), NULL, NULL);
  expected = pl_rope_profile_compute (transformer, 8, 32, 1, NULL, NULL, NULL, NULL);
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->query_norm, expected->query_norm), ==, 0);
  g_assert_cmpfloat (pl_test_max_abs_diff (profile->key_norm, expected->key_norm), ==, 0);
  figure = pl_page_get_figure (PL_PAGE (rotary));
  g_assert_nonnull (figure);
  g_assert_cmpint (pl_figure_get_kind (figure), ==, PL_FIGURE_HEATMAP);
  image = pl_test_render (GTK_WIDGET (rotary), &w, &h);
  g_assert_cmpuint (pl_test_count_colours (image), >, 10);
  assert_heads_from_one (GTK_WIDGET (rotary), "Head 1, plane 0\n");
  /* The ⓘ says what the profile averaged over, for this model. */
  {
    g_autofree char *here = g_strdup_printf ("Here: %u random inputs of %u tokens", profile->n_sequences,
                                             profile->n_tokens);
    GtkWidget *controls = pl_folding_toolbar_get_controls (pl_page_get_toolbar (PL_PAGE (rotary)));
    gboolean found = FALSE;

    for (GtkWidget *child = gtk_widget_get_first_child (controls); child; child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_MENU_BUTTON (child))
        {
          GtkWidget *label = gtk_popover_get_child (gtk_menu_button_get_popover (GTK_MENU_BUTTON (child)));

          while (label != NULL && !GTK_IS_LABEL (label))
            label = gtk_widget_get_first_child (label);
          g_assert_nonnull (label);
          g_test_message ("%s", gtk_label_get_text (GTK_LABEL (label)));
          found = found || strstr (gtk_label_get_text (GTK_LABEL (label)), here) != NULL;
        }
    g_assert_true (found);
    g_assert_cmpuint (profile->n_tokens, <, 256);
  }
}

static void
test_llama (void)
{
  check_attention ("llama");
  check_rotary ("llama");
}

static void
test_neox (void)
{
  check_attention ("gpt-neox");
  check_rotary ("gpt-neox");
}

/* An activations file of a rotary model shows the norms it recorded, with
 * no weights to run; one of a model with a table says it has none. */
static void
check_rotary_file (const char *fixture,
                   const char *name,
                   gboolean    rotary_model)
{
  PlRotaryPage *rotary = PL_ROTARY_PAGE (pl_test_page (window, "rotary"));
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "activations.h5", NULL);
  g_autofree char *folder = rotary_model ? pl_test_fixture ("rope", fixture, NULL) : pl_test_demo (fixture, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) source = pl_model_open (folder, NULL, NULL, &error);
  g_autoptr(PlTransformer) transformer = pl_transformer_new (source, NULL, &error);
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  PlActivationsInputs inputs = { name, NULL, "test", sequences, NULL, NULL };
  guint index = g_list_model_get_n_items (pl_window_get_models (window));

  g_assert_no_error (error);
  for (guint s = 0; s < 2; s++)
    g_ptr_array_add (sequences, pl_transformer_random_ids (transformer, 16, 3 + s));
  g_assert_true (pl_activations_write (transformer, &inputs, path, NULL, &error));
  g_assert_no_error (error);

  pl_window_show_view (window, "rotary");
  wanted_models = index + 1;
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (models_listed, NULL, name);
  pl_window_select_model (window, index);
  g_assert_nonnull (pl_model_get_activations (current_model ()));
  if (rotary_model)
    {
      g_autoptr(PlRopeProfile) expected = pl_rope_profile_compute_for_ids (transformer, sequences, NULL, NULL,
                                                                           NULL, &error);
      PlRopeProfile *profile;
      g_autoptr(GBytes) image = NULL;
      int w, h;

      g_assert_no_error (error);
      pl_test_wait_until (rotary_ready, rotary, "the file's rotary norms");
      profile = pl_rotary_page_get_profile (rotary);
      g_assert_cmpuint (profile->n_tokens, ==, 16);
      g_assert_cmpfloat (pl_test_max_abs_diff (profile->query_norm, expected->query_norm), ==, 0);
      g_assert_cmpfloat (pl_test_max_abs_diff (profile->key_norm, expected->key_norm), ==, 0);
      g_assert_cmpfloat (pl_test_max_abs_diff (profile->frequency, expected->frequency), ==, 0);
      g_assert_cmpint (pl_figure_get_kind (pl_page_get_figure (PL_PAGE (rotary))), ==, PL_FIGURE_HEATMAP);
      image = pl_test_render (GTK_WIDGET (rotary), &w, &h);
      g_assert_cmpuint (pl_test_count_colours (image), >, 10);
    }
  else
    {
      pl_test_wait_until (status_shown, rotary, "the Rotary view's message");
      g_assert_cmpstr (adw_status_page_get_title (pl_page_get_status (PL_PAGE (rotary))), ==,
                       "No Rotary Norms in This File");
    }
  pl_test_rmtree (dir);
}

static void
test_activations_file (void)
{
  check_rotary_file ("phi3", "phi3 (activations)", TRUE);
  check_rotary_file ("mini-gpt2", "mini-gpt2 (activations)", FALSE);
}

static gboolean
text_idle (gpointer text)
{
  return !pl_page_get_busy (PL_PAGE (text)) && pl_attention_text_get_result (text) != NULL;
}

/* A sentence typed for the tiny Llama runs through its tokenizer.json and
 * its forward pass: the ids and every attention map of the fixture's
 * reference (make-rope-decoders.py, 1e-5; its reference-bf16.h5 within 1e-3
 * where the BF16 weights are multiplied with BF16 dot products, as
 * test-rope-decoders says), rows causal. */
static void
test_llama_text (void)
{
  g_autofree char *reference = pl_test_rope_reference ("llama", "llama");
  double tol = g_str_has_suffix (reference, "reference-bf16.h5") ? 1e-3 : 1e-5;
  g_autoptr(PlMatrix) ids = pl_test_read_h5 (reference, "/text/input_ids");
  g_autoptr(PlMatrix) expected = pl_test_read_h5 (reference, "/text/attentions");
  PlAttentionPage *attention = PL_ATTENTION_PAGE (pl_test_page (window, "attention"));
  PlAttentionText *text = pl_attention_page_get_text (attention);
  GtkEditable *entry;
  PlTextAttention *result;
  guint t;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_attention_page_show (attention, "text");
  open_fixture ("llama");
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
          {
            double v = pl_matrix_get (result->attentions[l], h * t + i, j);

            g_assert_cmpfloat (fabs (v - expected->data[(((gsize) l * result->n_heads + h) * t + i) * t + j]), <, tol);
            if (j > i)
              g_assert_cmpfloat (v, ==, 0);
          }
  g_assert_nonnull (pl_page_get_figure (PL_PAGE (attention)));
}

/* A model with a table has no rotary profile to show. */
static void
test_rotary_needs_rope (void)
{
  PlRotaryPage *rotary = PL_ROTARY_PAGE (pl_test_page (window, "rotary"));

  pl_window_show_view (window, "rotary");
  pl_window_select_model (window, 0);
  pl_test_wait_until (status_shown, rotary, "the Rotary view's message");
  g_assert_cmpstr (adw_status_page_get_title (pl_page_get_status (PL_PAGE (rotary))), ==, "No Rotary Embedding");
}

/* RoPE's score of q = k = 1 is (2/d) Σ cos(m θ_k) and ALiBi's biases are
 * −m_h·d: the Playground against both. */
static void
test_playground (void)
{
  PlPlaygroundPage *playground = PL_PLAYGROUND_PAGE (pl_test_page (window, "playground"));
  g_autoptr(PlMatrix) alibi = pl_encoding_alibi_bias (8, 64);
  PlMatrix *m, *curves;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (5));
  pl_playground_page_set_encoding (playground, 64, 16, 100.0);
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_ROPE);
  pl_test_wait_until (playground_ready, playground, "the RoPE playground");
  m = pl_playground_page_get_matrix (playground);
  /* the phases' cosine: the same closed form */
  for (guint i = 0; i < 64; i += 7)
    for (guint j = 0; j < 64; j += 5)
      {
        double expect = 0;

        for (guint k = 0; k < 8; k++)
          expect += cos (((double) i - j) * pow (100.0, -2.0 * k / 16));
        g_assert_cmpfloat_with_epsilon (pl_matrix_get (m, i, j), expect / 8, 1e-5);
      }
  /* The score of q = k = 1 and RoFormer's bound on it, in one unit (the
   * score at offset 0): (2/d) Σ_k cos(m θ_k) and (2/d) Σ_{i=1}^{d/2}
   * |Σ_{j<i} e^{i m θ_j}|, the bound above the score at every offset. */
  curves = pl_playground_page_get_curves (playground);
  g_assert_cmpuint (curves->rows, ==, 2);
  g_assert_cmpuint (curves->cols, ==, 64);
  for (guint o = 0; o < 64; o++)
    {
      double score = 0, bound = 0, re = 0, im = 0;

      for (guint k = 0; k < 8; k++)
        {
          double angle = o * pow (100.0, -2.0 * k / 16);

          score += cos (angle);
          re += cos (angle);
          im += sin (angle);
          bound += hypot (re, im);
        }
      g_assert_cmpfloat_with_epsilon (pl_matrix_get (curves, 0, o), score / 8, 1e-5);
      g_assert_cmpfloat_with_epsilon (pl_matrix_get (curves, 1, o), bound / 8, 1e-5);
      g_assert_cmpfloat (pl_matrix_get (curves, 1, o), >=, fabs (pl_matrix_get (curves, 0, o)));
    }
  g_assert_cmpfloat_with_epsilon (pl_matrix_get (curves, 1, 0), (8 + 1) / 2.0, 1e-5);

  pl_playground_page_set_encoding (playground, 64, 8, 100.0);
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_ALIBI);
  pl_test_wait_until (playground_ready, playground, "the ALiBi playground");
  m = pl_playground_page_get_matrix (playground);
  g_assert_cmpfloat (pl_test_max_abs_diff (m, alibi), ==, 0);
  assert_heads_from_one (GTK_WIDGET (playground), "Head 1, distance 0\n");
  pl_playground_page_set_kind (playground, PL_PLAYGROUND_SINUSOIDAL);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window/rotary/opens-on-layers", test_opens_on_layers);
  g_test_add_func ("/pl/window/rotary/llama", test_llama);
  g_test_add_func ("/pl/window/rotary/neox", test_neox);
  g_test_add_func ("/pl/window/rotary/llama-text", test_llama_text);
  g_test_add_func ("/pl/window/rotary/needs-rope", test_rotary_needs_rope);
  g_test_add_func ("/pl/window/rotary/playground", test_playground);
  g_test_add_func ("/pl/window/rotary/activations-file", test_activations_file);
  status = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
