/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-application.h"
#include "pl-executor.h"
#include "pl-questions.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-test-writers.h"
#include "pl-window.h"

/* Holding Page Down through the layers of a model: every step asks the
 * similarity of the next layer's positional component, which needs the
 * forward passes of all layers first. The steps share that computation
 * and cancel each other's questions; none piles up on the executor. */

#define N_LAYERS    12
#define N_POSITIONS 1024
#define HIDDEN      32
#define VOCAB       64

static PlApplication *app;
static PlWindow *window;

/* A GPT-2 of N_LAYERS layers and N_POSITIONS positions, one head, drawn by
 * the seeded writers, as model.safetensors with its config.json. */
static char *
write_gpt2 (void)
{
  static const PlSeededSpec globals[] = {
    { "wte.weight", "wte", VOCAB, HIDDEN, PL_SEEDED_EMBEDDING },
    { "wpe.weight", "wpe", N_POSITIONS, HIDDEN, PL_SEEDED_EMBEDDING },
    { "ln_f.weight", "ln_f/gamma", HIDDEN, 0, PL_SEEDED_GAMMA },
    { "ln_f.bias", "ln_f/beta", HIDDEN, 0, PL_SEEDED_VECTOR },
  };
  static const PlSeededSpec layer[] = {
    { "ln_1.weight", "ln_1/gamma", HIDDEN, 0, PL_SEEDED_GAMMA },
    { "ln_1.bias", "ln_1/beta", HIDDEN, 0, PL_SEEDED_VECTOR },
    { "attn.c_attn.weight", "c_attn/weight", HIDDEN, 3 * HIDDEN, PL_SEEDED_LINEAR },
    { "attn.c_attn.bias", "c_attn/bias", 3 * HIDDEN, 0, PL_SEEDED_VECTOR },
    { "attn.c_proj.weight", "c_proj/weight", HIDDEN, HIDDEN, PL_SEEDED_LINEAR },
    { "attn.c_proj.bias", "c_proj/bias", HIDDEN, 0, PL_SEEDED_VECTOR },
    { "ln_2.weight", "ln_2/gamma", HIDDEN, 0, PL_SEEDED_GAMMA },
    { "ln_2.bias", "ln_2/beta", HIDDEN, 0, PL_SEEDED_VECTOR },
    { "mlp.c_fc.weight", "c_fc/weight", HIDDEN, 4 * HIDDEN, PL_SEEDED_LINEAR },
    { "mlp.c_fc.bias", "c_fc/bias", 4 * HIDDEN, 0, PL_SEEDED_VECTOR },
    { "mlp.c_proj.weight", "mlp_proj/weight", 4 * HIDDEN, HIDDEN, PL_SEEDED_LINEAR },
    { "mlp.c_proj.bias", "mlp_proj/bias", HIDDEN, 0, PL_SEEDED_VECTOR },
  };
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (pl_seeded_tensor_free);
  char *dir = pl_test_tmpdir ();
  g_autofree char *weights = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"model_type\": \"gpt2\", \"n_embd\": %d, \"n_layer\": %d, \"n_head\": 1, "
                                           "\"n_positions\": %d, \"vocab_size\": %d, \"layer_norm_epsilon\": 1e-5, "
                                           "\"activation_function\": \"gelu_new\"}",
                                           HIDDEN, N_LAYERS, N_POSITIONS, VOCAB);
  guint number = 0;

  for (guint i = 0; i < G_N_ELEMENTS (globals); i++)
    g_ptr_array_add (list, pl_seeded_tensor_from_spec (1, number++, &globals[i], "", ""));
  for (guint l = 0; l < N_LAYERS; l++)
    {
      g_autofree char *prefix = g_strdup_printf ("h.%u.", l);

      for (guint i = 0; i < G_N_ELEMENTS (layer); i++)
        {
          PlSeededTensor *t = pl_seeded_tensor_from_spec (1, number++, &layer[i], prefix, prefix);

          /* GPT-2's Conv1D stores [in, out], as the canonical form is. */
          t->linear = FALSE;
          g_ptr_array_add (list, t);
        }
    }
  pl_seeded_write_safetensors (weights, list);
  pl_test_write_text (config, text);
  return dir;
}

static gboolean
model_selected (gpointer data)
{
  PlModel *model = pl_workspace_get_model (pl_window_get_workspace (window));

  return model != NULL && pl_workspace_get_n_layers (pl_window_get_workspace (window)) == N_LAYERS;
}

static gboolean
page_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_page_get_figure (page) != NULL;
}

/* Whether the similarity of LAYER, as the page asks it, is answered. */
static gboolean
answered (PlWorkspace *workspace,
          int          layer)
{
  GSettings *settings = pl_workspace_get_settings (workspace);
  g_autofree char *metric_name = g_settings_get_string (settings, "similarity-metric");
  g_autofree char *key = NULL;
  PlSimilarityMetric metric;

  g_assert_true (pl_similarity_metric_from_string (metric_name, &metric));
  key = pl_similarity_question_key (pl_workspace_get_model (workspace), layer, metric,
                                    g_settings_get_boolean (settings, "center"));
  return pl_analysis_cache_lookup (pl_workspace_get_cache (workspace), key) != NULL;
}

/* Page Down held from the table to the last layer, one turn of the main
 * loop between presses (no clock: how fast the presses come changes only
 * how many questions are superseded while they compute). Each press asks
 * the next layer and cancels the question of the layer it leaves; the view
 * ends on the last layer's answer and the executor on nothing. How much work superseded questions
 * cost at a keyboard's repeat rate is measured by bench/pl-bench-stepping. */
static void
test_hold_page_down (void)
{
  g_autofree char *dir = write_gpt2 ();
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  PlWorkspace *workspace = pl_window_get_workspace (window);
  PlPage *similarity = PL_PAGE (pl_window_get_page (window, "similarity"));
  PlExecutor *executor = pl_executor_get_default ();
  guint superseded = 0, late = 0;
  gboolean answered_at_press[N_LAYERS + 1];

  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (model_selected, NULL, "the model to open");
  pl_window_show_view (window, "similarity");
  g_assert_cmpint (pl_workspace_get_layer (workspace), ==, PL_LAYER_TABLE);
  pl_test_wait_until (page_ready, similarity, "the table's heatmap");

  for (int layer = PL_LAYER_TABLE; layer < N_LAYERS; layer++)
    {
      g_assert_cmpint (pl_workspace_get_layer (workspace), ==, layer);
      if (layer >= 0)
        answered_at_press[layer] = answered (workspace, layer);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-layer", "i", 1));
      /* The press's question is asked: the page waits for it. */
      g_assert_true (pl_page_get_busy (similarity));
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpint (pl_workspace_get_layer (workspace), ==, N_LAYERS);

  pl_test_wait_until (page_ready, similarity, "the last layer's heatmap");
  g_assert_true (answered (workspace, N_LAYERS));
  g_assert_cmpint (pl_workspace_get_layer (workspace), ==, N_LAYERS);
  /* Nothing piles up: what the presses left running ends. */
  pl_executor_wait_idle (executor);
  g_assert_cmpuint (pl_executor_get_n_running (executor), ==, 0);
  for (int layer = 0; layer < N_LAYERS; layer++)
    if (!answered_at_press[layer])
      {
        superseded++;
        late += answered (workspace, layer);
      }
  g_test_message ("%u questions superseded before their answer, %u of them answered later", superseded, late);
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);
  g_test_add_func ("/pl/window/hold-page-down", test_hold_page_down);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return status;
}
