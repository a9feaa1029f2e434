/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-bias-view.h"
#include "pl-dataset-dialog.h"
#include "pl-figure-view.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window.h"
#include "pl-workspace.h"

/* The other ways models learn position, in the real window: T5 and the
 * ALiBi models have no table but open as models (never as a file whose
 * dataset the user must pick), and their table views draw the bias each
 * head adds by offset, against the bias Hugging Face's code computed (T5's
 * reference.h5) or the closed form (ALiBi); DeBERTa's relative table is
 * numbered by bucket, its zero offset marked and named in the readout. */

static PlApplication *app;
static PlWindow *window;

static PlWorkspace *
workspace (void)
{
  return pl_window_get_workspace (window);
}

static PlModel *
current_model (void)
{
  return pl_workspace_get_model (workspace ());
}

static gboolean
dataset_dialog_shown (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* owned by GTK */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (PL_IS_DATASET_DIALOG (item))
        return TRUE;
    }
  return FALSE;
}

static guint wanted_models;

/* Listed, or the dataset picker shown instead. */
static gboolean
listed_or_picker (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= wanted_models || dataset_dialog_shown ();
}

/* Opens PATH (a fixture folder or a builtin: name), unless listed, and selects it. */
static void
open_model (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GListModel *models = pl_window_get_models (window);
  guint index = g_list_model_get_n_items (models);

  /* listed by an earlier test: selected again */
  for (guint i = 0; i < index; i++)
    {
      g_autoptr(PlModel) listed = g_list_model_get_item (models, i);

      if (g_strcmp0 (pl_model_get_path (listed), path) == 0)
        {
          pl_window_select_model (window, i);
          return;
        }
    }
  wanted_models = index + 1;
  if (g_str_has_prefix (path, "builtin:"))
    pl_test_activate (window, "win.open-analytic", g_variant_new_string (path));
  else
    pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (listed_or_picker, NULL, path);
  g_assert_false (dataset_dialog_shown ());
  pl_window_select_model (window, index);
}

/* Whether a label showing TEXT is under WIDGET with every widget between
 * them visible. */
static gboolean
shows_visible_label (GtkWidget  *widget,
                     const char *text)
{
  if (!gtk_widget_get_visible (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (shows_visible_label (child, text))
      return TRUE;
  return FALSE;
}

static gboolean
bias_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_bias_view_get_bias (page) != NULL &&
         g_strcmp0 (pl_page_get_shown (page), "figure") == 0;
}

static gboolean
similarity_ready (gpointer page)
{
  return pl_test_page_ready (page) && pl_bias_view_get_bias (page) == NULL;
}

/* The readout at the centre of cell (COLUMN, ROW) of the heatmap PAGE shows,
 * drawn at the page's size first. */
static char *
describe_cell (PlPage *page,
               guint   column,
               guint   row,
               guint   columns,
               guint   rows)
{
  PlFigureView *view = pl_page_get_figure_view (page);
  cairo_rectangle_t plot;

  pl_test_wait_frames (GTK_WIDGET (view), 2);
  pl_figure_get_plot_area (pl_figure_view_get_figure (view), &plot);
  g_assert_cmpfloat (plot.width, >, 0);
  return pl_figure_view_describe_at (view, plot.x + (column + 0.5) / columns * plot.width,
                                     plot.y + (row + 0.5) / rows * plot.height);
}

/* T5: both table views draw the encoder's bias, which is the reference's
 * over the offsets it holds; the controls that act on a table are hidden. */
static void
test_t5 (void)
{
  g_autofree char *path = pl_test_fixture ("relpos", "t5", NULL);
  g_autofree char *reference_file = pl_test_fixture ("relpos", "t5", "reference.h5", NULL);
  g_autoptr(PlMatrix) reference = pl_test_read_h5 (reference_file, "position_bias/encoder");
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  PlPage *trajectory = PL_PAGE (pl_test_page (window, "trajectory"));
  g_autofree char *readout = NULL;
  PlPositionBias *bias;
  PlFigure *figure;
  guint centre, ref_centre;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  open_model (path);
  g_assert_cmpint (pl_model_get_family (current_model ()), ==, PL_FAMILY_T5);
  g_assert_cmpint (pl_workspace_get_layer (workspace ()), ==, PL_LAYER_TABLE);
  pl_test_wait_until (bias_ready, similarity, "T5's bias in Similarity");
  figure = pl_figure_view_get_figure (pl_page_get_figure_view (similarity));
  g_assert_cmpint (pl_figure_get_kind (figure), ==, PL_FIGURE_POSITION_BIAS);

  bias = pl_bias_view_get_bias (similarity);
  g_assert_cmpuint (bias->n_heads, ==, reference->rows);
  g_assert_false (bias->causal);
  /* offsets −(T − 1) … T − 1 around the centre column, the reference's fewer */
  centre = bias->length - 1;
  ref_centre = (guint) (reference->cols - 1) / 2;
  g_assert_cmpuint (centre, >=, ref_centre);
  for (guint h = 0; h < reference->rows; h++)
    for (guint c = 0; c < reference->cols; c++)
      g_assert_cmpfloat_with_epsilon (pl_matrix_get (bias->bias, h, centre - ref_centre + c),
                                      pl_matrix_get (reference, h, c), 1e-6);

  /* Head 2 at offset 0: T5's bucket 0 */
  readout = describe_cell (similarity, centre, 1, bias->bias->cols, bias->n_heads);
  g_assert_nonnull (readout);
  g_assert_true (g_str_has_prefix (readout, "Head 2, offset 0\n"));
  g_assert_nonnull (strstr (readout, ", bucket 0"));
  g_assert_false (shows_visible_label (GTK_WIDGET (similarity), "Centred"));

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (1));
  pl_test_wait_until (bias_ready, trajectory, "T5's bias in Trajectory");
  g_assert_cmpint (pl_figure_get_kind (pl_figure_view_get_figure (pl_page_get_figure_view (trajectory))), ==,
                   PL_FIGURE_POSITION_BIAS);
  g_assert_null (pl_page_get_export_companion (trajectory, &(const char *) { NULL }));
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
}

static gboolean
attention_ready (gpointer page)
{
  return !pl_page_get_busy (page) && pl_attention_page_get_stats (page) != NULL;
}

/* The Attention view runs T5's forward pass (its offsets and distances),
 * with no position-only term to fail on: T5's position is inside attention
 * (before, the failed term replaced the whole view with an error). */
static void
test_t5_attention (void)
{
  g_autofree char *path = pl_test_fixture ("relpos", "t5", NULL);
  PlPage *attention = PL_PAGE (pl_test_page (window, "attention"));
  PlAttentionStats *stats;

  open_model (path);
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_test_wait_until (attention_ready, attention, "T5's attention statistics");
  g_assert_cmpstr (pl_page_get_shown (attention), ==, "figure");
  stats = pl_attention_page_get_stats (PL_ATTENTION_PAGE (attention));
  g_assert_nonnull (stats);
  g_assert_false (shows_visible_label (GTK_WIDGET (attention), "Position Only"));
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
}

/* builtin:alibi: slope 2^(−8h/H) of head h from 1 times the offset, NaN for
 * the later keys a causal model never sees; the sidebar says what it is. */
static void
test_alibi (void)
{
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  PlPositionBias *bias;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  open_model ("builtin:alibi:32x8");
  pl_test_wait_until (bias_ready, similarity, "ALiBi's bias");
  bias = pl_bias_view_get_bias (similarity);
  g_assert_cmpuint (bias->n_heads, ==, 8);
  g_assert_cmpuint (bias->length, ==, 32);
  for (guint h = 0; h < 8; h++)
    for (int offset = -31; offset <= 31; offset++)
      {
        float value = pl_matrix_get (bias->bias, h, (guint) (offset + 31));

        if (offset > 0)
          g_assert_true (isnan (value));
        else
          g_assert_cmpfloat_with_epsilon (value, pow (2.0, -8.0 * (h + 1) / 8) * offset, 1e-5);
      }
  g_assert_true (pl_test_shows_label (GTK_WIDGET (window), "Analytic · position bias · 8 heads"));
}

/* BLOOM opens as a model too, and a model with a table afterwards shows
 * its similarity again, with its controls. */
static void
test_bloom_then_table (void)
{
  g_autofree char *path = pl_test_fixture ("relpos", "bloom", NULL);
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  open_model (path);
  g_assert_cmpint (pl_model_get_family (current_model ()), ==, PL_FAMILY_BLOOM);
  pl_test_wait_until (bias_ready, similarity, "BLOOM's bias");
  g_assert_true (pl_bias_view_get_bias (similarity)->causal);

  pl_window_select_model (window, 0);
  pl_test_wait_until (similarity_ready, similarity, "the first demo's similarity");
  g_assert_cmpint (pl_figure_get_kind (pl_figure_view_get_figure (pl_page_get_figure_view (similarity))), ==,
                   PL_FIGURE_HEATMAP);
  g_assert_true (shows_visible_label (GTK_WIDGET (similarity), "Centred"));
}

/* DeBERTa-v3's 16 rows are buckets −8 … 7: the ticks run through negative
 * buckets, and the readout names what the rows stand for. */
static void
test_deberta (void)
{
  g_autofree char *path = pl_test_fixture ("relpos", "deberta-v3", NULL);
  PlPage *similarity = PL_PAGE (pl_test_page (window, "similarity"));
  g_autofree char *readout = NULL;
  const double *ticks;
  gboolean negative = FALSE, zero = FALSE;
  guint n;

  pl_test_activate (window, "win.show-view", g_variant_new_int32 (0));
  open_model (path);
  pl_test_wait_until (similarity_ready, similarity, "DeBERTa's similarity");
  readout = describe_cell (similarity, 8, 10, 16, 16);
  g_assert_nonnull (readout);
  g_assert_true (g_str_has_prefix (readout, "bucket +2: i − j = +2\nbucket 0: i = j, the query itself\n"));
  ticks = pl_figure_get_ticks (pl_figure_view_get_figure (pl_page_get_figure_view (similarity)), TRUE, &n);
  g_assert_nonnull (ticks);
  for (guint i = 0; i < n; i++)
    {
      negative |= ticks[i] < 0;
      zero |= ticks[i] == 0;
    }
  g_assert_true (negative);
  g_assert_true (zero);
}

/* The ⓘ paragraphs give each family's scheme with the model's own numbers,
 * which agree with the bucket function (T5's, as Hugging Face computes it)
 * and the table; a model with a plain table gets none. */
static void
test_explanations (void)
{
  g_autofree char *t5_path = pl_test_fixture ("relpos", "t5", NULL);
  g_autofree char *deberta_path = pl_test_fixture ("relpos", "deberta-v3", NULL);
  g_autofree char *gpt2_path = pl_test_fixture ("mini-gpt2", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) t5 = pl_model_open (t5_path, NULL, NULL, &error);
  g_autoptr(PlModel) deberta = pl_model_open (deberta_path, NULL, NULL, &error);
  g_autoptr(PlModel) alibi = pl_model_open ("builtin:alibi:32x8", NULL, NULL, &error);
  g_autoptr(PlModel) gpt2 = pl_model_open (gpt2_path, NULL, NULL, &error);
  g_autofree char *t5_text = NULL;
  g_autofree char *deberta_text = NULL;
  g_autofree char *alibi_text = NULL;
  g_autofree char *none = NULL;

  g_assert_no_error (error);
  t5_text = pl_bias_view_explain (t5);
  /* 32 buckets, max_distance 20: 16 a side, offsets 0 … 7 exact */
  g_assert_nonnull (strstr (t5_text, "Of the 16 buckets for keys on one side of the query, the first 8 are one "
                                     "offset each; the rest cover offsets up to 20"));
  /* earlier keys: offset −d in bucket d while exact (d < 8), then log-spaced
   * (HF's formula in float64, away from any edge), the last (15) from −20 on */
  for (int d = 0; d < 8; d++)
    g_assert_cmpuint (pl_t5_bucket (-d, TRUE, 32, 20), ==, (guint) d);
  g_assert_cmpuint (pl_t5_bucket (-8, TRUE, 32, 20), ==, 8);
  g_assert_cmpuint (pl_t5_bucket (-9, TRUE, 32, 20), ==, 9);   /* 8 + ⌊log(9/8) / log(20/8) · 8⌋ */
  g_assert_cmpuint (pl_t5_bucket (-15, TRUE, 32, 20), ==, 13);  /* 8 + ⌊5.49⌋ */
  g_assert_cmpuint (pl_t5_bucket (-20, TRUE, 32, 20), ==, 15);
  g_assert_cmpuint (pl_t5_bucket (-500, TRUE, 32, 20), ==, 15);

  deberta_text = pl_bias_view_explain (deberta);
  g_assert_nonnull (strstr (deberta_text, "DeBERTa’s two relative terms"));
  g_assert_nonnull (strstr (deberta_text, ": 16 rows,"));
  alibi_text = pl_bias_view_explain (alibi);
  g_assert_nonnull (strstr (alibi_text, "2<sup>−8h/H</sup>"));
  none = pl_bias_view_explain (gpt2);
  g_assert_null (none);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window/relpos/t5", test_t5);
  g_test_add_func ("/pl/window/relpos/t5-attention", test_t5_attention);
  g_test_add_func ("/pl/window/relpos/alibi", test_alibi);
  g_test_add_func ("/pl/window/relpos/bloom-then-table", test_bloom_then_table);
  g_test_add_func ("/pl/window/relpos/deberta", test_deberta);
  g_test_add_func ("/pl/window/relpos/explanations", test_explanations);
  status = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
