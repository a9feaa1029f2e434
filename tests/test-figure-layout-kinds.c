/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-encodings.h"
#include "pl-grid.h"
#include "pl-paper.h"
#include "pl-pca.h"
#include "pl-rope.h"
#include "pl-similarity.h"
#include "pl-test-util.h"
#include "test-figure-layout-kinds.h"
#include "test-figure-util.h"

/* The figure kinds of the layout contract, each built with the titles,
 * labels and data shapes the window gives it (src/app's pages) or the
 * command line (src/cli), on the demo models where the data matters to
 * the layout (tick labels' widths, tokens) and on closed forms elsewhere. */

static PlMatrix *
cosine_of (PlMatrix *table)
{
  g_autoptr(GError) error = NULL;
  PlMatrix *cosine = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, &error);

  g_assert_no_error (error);
  return cosine;
}

static PlMatrix *
demo_cosine (const char *name)
{
  g_autofree char *path = pl_test_demo (name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlMatrix) table = NULL;

  g_assert_no_error (error);
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  return cosine_of (table);
}

/* Similarity: the demo GPT-2's position table (the Similarity view). */
static PlFigure *
build_similarity (void)
{
  g_autoptr(PlMatrix) cosine = fig_gpt2_cosine ();
  PlFigure *figure = pl_figure_new_heatmap (cosine, 0);

  pl_figure_set_range (figure, -1, 1);
  pl_figure_set_title (figure, "mini-gpt2 — Position table");
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

/* The first layer's attention from positions alone (the Attention view). */
static PlFigure *
build_position_only (void)
{
  g_autoptr(PlMatrix) cosine = fig_gpt2_cosine ();
  PlFigure *figure = pl_figure_new_heatmap (cosine, 0);

  pl_figure_set_title (figure, "mini-gpt2 — layer 1, head 1: attention from positions alone");
  pl_figure_set_axis_labels (figure, "Key position", "Query position");
  pl_figure_set_value_label (figure, "Attention");
  return figure;
}

/* Attention by offset: four heads of a causal model over 64 offsets. */
static PlFigure *
build_offsets (void)
{
  double x[65], y[65];
  PlFigure *figure;

  for (guint i = 0; i < 65; i++)
    x[i] = (double) i - 64;
  figure = pl_figure_new_lines (x, 65);
  for (guint h = 0; h < 4; h++)
    {
      g_autofree char *name = g_strdup_printf ("Head %u", h + 1);

      for (guint i = 0; i < 65; i++)
        y[i] = exp (-(64.0 - i) / (2.0 + 6 * h)) / (1 + h);
      pl_figure_add_series (figure, name, y);
    }
  pl_figure_set_title (figure, "mini-gpt2 — layer 4: attention by offset");
  pl_figure_set_axis_labels (figure, "Offset j − i (key − query)", "Attention mass");
  pl_figure_set_highlight_series (figure, 1);
  return figure;
}

/* Mean attention distance of every head of four layers. */
static PlFigure *
build_distances (void)
{
  double x[16], y[16], mass[16];
  PlFigure *figure;

  for (guint l = 0; l < 4; l++)
    for (guint h = 0; h < 4; h++)
      {
        guint i = l * 4 + h;

        x[i] = l + 1 + 0.3 * ((h + 0.5) / 4 - 0.5);
        y[i] = 3 + 40.0 * ((i * 7) % 16) / 16;
        mass[i] = ((i * 5) % 16) / 16.0;
      }
  figure = pl_figure_new_scatter (x, y, 16);
  pl_figure_set_x_integers (figure, TRUE);
  pl_figure_set_point_values (figure, mass);
  pl_figure_set_title (figure, "mini-gpt2 — mean attention distance per head");
  pl_figure_set_axis_labels (figure, "Layer", "Mean distance |j − i|");
  pl_figure_set_value_label (figure, "Mass on the first token");
  return figure;
}

static PlFigure *
trajectory (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  double ratios[3];
  PlFigure *figure;

  for (guint i = 0; i < 3; i++)
    ratios[i] = pl_matrix_get (pca->explained_variance_ratio, 0, i);
  figure = pl_figure_new_trajectory (pca->projection, 0, ratios, 0, 1);
  pl_figure_set_title (figure, "mini-gpt2 — Position table");
  pl_figure_set_value_label (figure, "Position");
  return figure;
}

static PlFigure *
build_trajectory (void)
{
  return trajectory ();
}

static PlFigure *
build_trajectory_3d (void)
{
  g_autoptr(PlPca) pca = fig_gpt2_pca ();
  double ratios[3];
  PlFigure *figure;

  for (guint i = 0; i < 3; i++)
    ratios[i] = pl_matrix_get (pca->explained_variance_ratio, 0, i);
  figure = pl_figure_new_trajectory_3d (pca->projection, 0, ratios, 0, 1, 2);
  pl_figure_set_rotation (figure, 30, 20);
  pl_figure_set_title (figure, "mini-gpt2 — Position table");
  pl_figure_set_value_label (figure, "Position");
  return figure;
}

/* The trajectory with its explained variance, as the export dialog's
 * companion makes it: two panels, sixteen components, cumulative. */
static PlFigure *
build_trajectory_variance (void)
{
  g_autoptr(PlFigure) figure = trajectory ();
  g_autoptr(PlFigure) bars = NULL;
  double ratios[16];
  PlFigure *panels[2];

  /* Ratios of a decaying spectrum, summing to 1 − 0.7¹⁶ (below 1). */
  for (guint i = 0; i < 16; i++)
    ratios[i] = 0.3 * pow (0.7, i);
  bars = pl_figure_new_bars (ratios, 16, NULL);
  pl_figure_set_cumulative (bars, TRUE);
  pl_figure_set_title (bars, "Explained variance");
  pl_figure_set_axis_labels (bars, "Component", "Ratio of total variance");
  pl_figure_set_own_scale (figure, TRUE);
  panels[0] = figure;
  panels[1] = bars;
  return pl_figure_new_multiples (panels, 2, 0);
}

/* Compare: two models' cosine on one scale and their difference on its own. */
static PlFigure *
build_compare (void)
{
  g_autoptr(PlMatrix) a = demo_cosine ("mini-gpt2");
  g_autoptr(PlMatrix) b = demo_cosine ("mini-bert");
  g_autoptr(PlMatrix) difference = pl_matrix_new (a->rows, a->cols);
  PlFigure *panels[3];
  PlFigure *figure;

  for (gsize i = 0; i < a->rows * a->cols; i++)
    difference->data[i] = a->data[i] - b->data[i];
  panels[0] = pl_figure_new_heatmap (a, 0);
  pl_figure_set_title (panels[0], "mini-gpt2");
  panels[1] = pl_figure_new_heatmap (b, 0);
  pl_figure_set_title (panels[1], "mini-bert");
  panels[2] = pl_figure_new_heatmap (difference, 0);
  pl_figure_set_title (panels[2], "mini-gpt2 − mini-bert");
  pl_figure_set_colormap (panels[2], PL_COLORMAP_DIVERGING);
  pl_figure_set_value_label (panels[2], "Difference");
  pl_figure_set_own_scale (panels[2], TRUE);
  figure = pl_figure_new_multiples (panels, 3, 0);
  for (guint i = 0; i < 3; i++)
    g_object_unref (panels[i]);
  pl_figure_set_range (figure, -1, 1);
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

/* The Probes view with a vision transformer open: six columns that wrap. */
static PlFigure *
build_probes (void)
{
  const char *columns[] = { "Absolute position MAE", "Relative order error", "Row MAE", "Column MAE",
                            "Order along rows", "Order along columns", NULL };
  const char *names[] = { "mini-gpt2", "mini-bert", "mini-roberta", "Sinusoidal 512 × 768", "mini-vit" };
  PlFigure *figure = pl_figure_new_table (columns);

  pl_figure_set_table_breaks (figure, (const guint[]) { 2, 4 }, 2);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      double values[6] = { 15.6 + 40 * i, 0.0624 + 0.1 * i, NAN, NAN, NAN, NAN };
      double half[6] = { 1.23, 0.0121, NAN, NAN, NAN, NAN };

      if (i == 4)
        {
          values[2] = 1.07;
          values[3] = 0.98;
          values[4] = 0.031;
          values[5] = 0.027;
        }
      pl_figure_add_row_with_intervals (figure, names[i], values, half);
    }
  return figure;
}

/* A 14 × 14 grid's 2-D sine–cosine table: its rows, and a class token's. */
static PlMatrix *
grid_table (void)
{
  return pl_encoding_sincos2d (14, 14, 128, 10000);
}

static PlFigure *
build_patch_grid (void)
{
  g_autoptr(PlMatrix) table = grid_table ();
  g_autoptr(PlMatrix) special = pl_matrix_new (1, table->cols);
  g_autoptr(PlMatrix) special_out = NULL;
  g_autoptr(PlMatrix) similarity = NULL;
  g_autoptr(GError) error = NULL;
  const char *names[] = { "CLS", NULL };
  PlFigure *figure;

  for (gsize j = 0; j < table->cols; j++)
    special->data[j] = (float) cos (0.37 * j);
  similarity = pl_grid_similarity (table, special, PL_SIMILARITY_COSINE, &special_out, NULL, &error);
  g_assert_no_error (error);
  figure = pl_figure_new_patch_grid (similarity, 14, 14);
  pl_figure_set_special_maps (figure, special_out, names);
  pl_figure_set_title (figure, "mini-vit — similarity of every patch with every patch");
  pl_figure_set_axis_labels (figure, "Patch column", "Patch row");
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

static PlFigure *
grid_colors (void)
{
  g_autoptr(PlMatrix) table = grid_table ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlPca) pca = pl_pca_compute (table, 3, NULL, &error);
  g_autoptr(PlMatrix) rgb = NULL;
  double ratio[3];

  g_assert_no_error (error);
  rgb = pl_grid_pca_colors (pca);
  for (guint k = 0; k < 3; k++)
    ratio[k] = pl_matrix_get (pca->explained_variance_ratio, 0, k);
  return pl_figure_new_grid_colors (rgb, 14, 14, ratio);
}

static PlFigure *
build_grid_colors (void)
{
  PlFigure *figure = grid_colors ();

  pl_figure_set_title (figure, "mini-vit — first three principal components as colours");
  pl_figure_set_axis_labels (figure, "Patch column", "Patch row");
  return figure;
}

/* Rotary: one layer's query norms, 4 heads × 32 planes. */
static PlFigure *
build_rotary_norms (void)
{
  g_autoptr(PlMatrix) norms = pl_matrix_new (4, 32);

  for (guint h = 0; h < 4; h++)
    for (guint k = 0; k < 32; k++)
      pl_matrix_row (norms, h)[k] = (float) (1 + 8 * exp (-0.2 * k) * (1 + 0.3 * h));
  return pl_figure_new_rotary_norms (norms, "TinyLlama-1.1B-Chat-v1.0", 12, FALSE);
}

/* The Playground's panels at its defaults: 256 positions, width 128. */
static PlFigure *
build_playground_sinusoid (void)
{
  g_autoptr(PlMatrix) table = pl_encoding_sinusoidal (256, 128, 10000);
  g_autoptr(PlMatrix) cosine = cosine_of (table);
  PlFigure *figure = pl_figure_new_heatmap (cosine, 0);

  pl_figure_set_range (figure, -1, 1);
  pl_figure_set_title (figure, "Sinusoidal 256 × 128, base 10000");
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

static PlFigure *
build_playground_sinusoid_pca (void)
{
  g_autoptr(PlMatrix) table = pl_encoding_sinusoidal (256, 128, 10000);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlPca) pca = pl_pca_compute (table, 3, NULL, &error);
  double ratios[3];
  PlFigure *figure;

  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    ratios[i] = pl_matrix_get (pca->explained_variance_ratio, 0, i);
  figure = pl_figure_new_trajectory (pca->projection, 0, ratios, 0, 1);
  pl_figure_set_title (figure, "First two principal components");
  pl_figure_set_value_label (figure, "Position");
  return figure;
}

static PlFigure *
build_playground_rope (void)
{
  PlEncodingSpec spec = { .kind = PL_ENCODING_ROPE, .length = 256, .width = 128, .base = 10000 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) table = pl_encoding_table (&spec, &error);
  g_autoptr(PlMatrix) cosine = NULL;
  PlFigure *figure;

  g_assert_no_error (error);
  cosine = cosine_of (table);
  figure = pl_figure_new_heatmap (cosine, 0);
  pl_figure_set_range (figure, -1, 1);
  pl_figure_set_title (figure, "RoPE 256 positions, head size 128, base 10000");
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

static PlFigure *
lines_of_rows (PlMatrix           *matrix,
               const char * const *names)
{
  g_autofree double *x = g_new (double, matrix->cols);
  g_autofree double *y = g_new (double, matrix->cols);
  PlFigure *figure;

  for (gsize i = 0; i < matrix->cols; i++)
    x[i] = (double) i;
  figure = pl_figure_new_lines (x, matrix->cols);
  for (gsize r = 0; r < matrix->rows; r++)
    {
      g_autofree char *head = g_strdup_printf ("Head %u", (guint) r + 1);

      for (gsize i = 0; i < matrix->cols; i++)
        y[i] = pl_matrix_get (matrix, r, i);
      pl_figure_add_series (figure, names ? names[r] : head, y);
    }
  return figure;
}

static PlFigure *
build_playground_rope_decay (void)
{
  g_autofree float *ones = g_new (float, 128);
  g_autoptr(PlMatrix) scores = NULL;
  g_autoptr(PlMatrix) bound = NULL;
  g_autoptr(PlMatrix) curves = pl_matrix_new (2, 256);
  const char *names[] = { "Score, q = k = 1", "RoFormer’s bound" };
  PlFigure *figure;

  for (guint i = 0; i < 128; i++)
    ones[i] = 1;
  scores = pl_encoding_rope_scores (ones, ones, 128, 10000, 0, 255);
  bound = pl_rope_decay_bound (128, 10000, 255);
  for (guint m = 0; m < 256; m++)
    {
      curves->data[m] = scores->data[m] / 128;
      curves->data[256 + m] = bound->data[m] / bound->data[0];
    }
  figure = lines_of_rows (curves, names);
  pl_figure_set_title (figure, "Long-range decay of a rotary score");
  pl_figure_set_axis_labels (figure, "Offset j − i", "Relative to offset 0");
  return figure;
}

static PlFigure *
build_playground_alibi (void)
{
  g_autoptr(PlMatrix) bias = pl_encoding_alibi_bias (8, 256);
  PlFigure *figure = pl_figure_new_heatmap (bias, 0);

  pl_figure_set_first_row (figure, 1);
  pl_figure_set_title (figure, "ALiBi, 8 heads, 256 positions");
  pl_figure_set_axis_labels (figure, "Distance |i − j|", "Head");
  pl_figure_set_value_label (figure, "Bias added to the score");
  return figure;
}

static PlFigure *
build_playground_alibi_lines (void)
{
  g_autoptr(PlMatrix) bias = pl_encoding_alibi_bias (8, 256);
  PlFigure *figure = lines_of_rows (bias, NULL);

  pl_figure_set_title (figure, "Each head’s bias by distance");
  pl_figure_set_axis_labels (figure, "Distance |i − j|", "Bias −m·d");
  return figure;
}

static PlFigure *
build_playground_sincos2d (void)
{
  g_autoptr(PlMatrix) table = grid_table ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) cosine = pl_grid_similarity (table, NULL, PL_SIMILARITY_COSINE, NULL, NULL, &error);
  PlFigure *figure;

  g_assert_no_error (error);
  figure = pl_figure_new_patch_grid (cosine, 14, 14);
  pl_figure_set_title (figure, "2-D sine–cosine 14 × 14 × 128, base 10000");
  pl_figure_set_axis_labels (figure, "Patch column", "Patch row");
  pl_figure_set_value_label (figure, "Cosine similarity");
  return figure;
}

static PlFigure *
build_playground_sincos2d_colors (void)
{
  PlFigure *figure = grid_colors ();

  pl_figure_set_title (figure, "First three principal components as colours");
  pl_figure_set_axis_labels (figure, "Patch column", "Patch row");
  return figure;
}

/* The attention map of a typed sentence: its tokens name the cells. */
static PlFigure *
text_map (const char * const *tokens,
          guint               n,
          const char         *sentence)
{
  g_autoptr(PlMatrix) map = pl_matrix_new (n, n);
  g_autofree char *title = g_strdup_printf ("mini-gpt2 — layer 2, head 3: “%s”", sentence);
  PlFigure *figure;

  for (guint i = 0; i < n; i++)
    for (guint j = 0; j <= i; j++)
      pl_matrix_row (map, i)[j] = 1.0f / (i + 1);
  figure = pl_figure_new_heatmap (map, 0);
  pl_figure_set_tick_labels (figure, tokens, n);
  pl_figure_set_title (figure, title);
  pl_figure_set_axis_labels (figure, "Key token (attended to)", "Query token");
  pl_figure_set_value_label (figure, "Attention");
  return figure;
}

static PlFigure *
build_text_attention (void)
{
  const char *tokens[] = { "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "." };

  return text_map (tokens, G_N_ELEMENTS (tokens), "The quick brown fox jumps over the lazy dog.");
}

/* Past sixty tokens, where names crowd. */
static PlFigure *
build_text_attention_long (void)
{
  const char *words[] = { "Position", " embeddings", " tell", " a", " transformer", " where", " each", " token",
                          " stands", "," };
  const char *tokens[72];

  for (guint i = 0; i < G_N_ELEMENTS (tokens); i++)
    tokens[i] = words[i % G_N_ELEMENTS (words)];
  return text_map (tokens, G_N_ELEMENTS (tokens), "Position embeddings tell a transformer where each token …");
}

/* The paper for the demos, the sinusoid of its size and an analytic RoPE:
 * five panels, one of 1024 positions. Computed once. */
static PlPaper *
paper (void)
{
  static PlPaper *paper;
  static const char *specs[] = { "mini-gpt2", "mini-bert", "mini-roberta", NULL, NULL };

  if (paper == NULL)
    {
      g_autoptr(GPtrArray) models = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GError) error = NULL;
      PlPaperOptions options;

      for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
        {
          g_autofree char *path = specs[i] != NULL ? pl_test_demo (specs[i], NULL)
                                  : g_strdup (i == 3 ? "builtin:sinusoidal:512x768" : "builtin:rope:1024x64");
          PlModel *model = pl_model_open (path, NULL, NULL, &error);

          g_assert_no_error (error);
          g_ptr_array_add (models, model);
        }
      pl_paper_options_init (&options);
      options.n_repeats = 2;
      paper = pl_paper_compute ((PlModel **) models->pdata, models->len, &options, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
    }
  return paper;
}

static PlFigure *
build_figure1 (void)
{
  return g_object_ref (pl_paper_get_figure1 (paper ()));
}

static PlFigure *
build_table1 (void)
{
  return g_object_ref (pl_paper_get_table1 (paper ()));
}

/* The position bias of the tiny T5 fixture's encoder (bucket edges marked)
 * and of ALiBi's 12 heads, causal (half the offsets blank). */
static PlFigure *
build_position_bias (void)
{
  g_autofree char *dir = pl_test_fixture ("relpos", "t5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;
  guint heads[] = { 0, 1, 2, 3 };
  PlFigure *figure;

  g_assert_no_error (error);
  bias = pl_model_compute_position_bias (model, 0, 40, &error);
  g_assert_no_error (error);
  figure = pl_figure_new_position_bias (bias->bias, -39, bias->buckets, heads, G_N_ELEMENTS (heads));
  pl_figure_set_title (figure, "t5 — position bias, encoder layer 1");
  return figure;
}

static PlFigure *
build_position_bias_alibi (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:alibi:128x12", NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;
  guint heads[] = { 0, 2, 4, 7, 9, 11 };
  PlFigure *figure;

  g_assert_no_error (error);
  bias = pl_model_compute_position_bias (model, 0, 0, &error);
  g_assert_no_error (error);
  figure = pl_figure_new_position_bias (bias->bias, -127, NULL, heads, G_N_ELEMENTS (heads));
  pl_figure_set_title (figure, "ALiBi 128 positions, 12 heads — position bias");
  return figure;
}

static const PlLayoutKind kinds[] = {
  { "similarity", build_similarity },
  { "offsets", build_offsets },
  { "distances", build_distances },
  { "position-only", build_position_only },
  { "trajectory", build_trajectory },
  { "trajectory-3d", build_trajectory_3d },
  { "trajectory-variance", build_trajectory_variance },
  { "compare", build_compare },
  { "probes", build_probes },
  { "patch-grid", build_patch_grid },
  { "grid-colors", build_grid_colors },
  { "rotary-norms", build_rotary_norms },
  { "playground-sinusoid", build_playground_sinusoid },
  { "playground-sinusoid-pca", build_playground_sinusoid_pca },
  { "playground-rope", build_playground_rope },
  { "playground-rope-decay", build_playground_rope_decay },
  { "playground-alibi", build_playground_alibi },
  { "playground-alibi-lines", build_playground_alibi_lines },
  { "playground-sincos2d", build_playground_sincos2d },
  { "playground-sincos2d-colors", build_playground_sincos2d_colors },
  { "text-attention", build_text_attention },
  { "text-attention-long", build_text_attention_long },
  { "figure1", build_figure1 },
  { "table1", build_table1 },
  { "position-bias", build_position_bias },
  { "position-bias-alibi", build_position_bias_alibi },
};

const PlLayoutKind *
pl_layout_kinds (guint *n)
{
  *n = G_N_ELEMENTS (kinds);
  return kinds;
}
