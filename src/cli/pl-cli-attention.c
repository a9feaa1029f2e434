/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "pl-attention-stats.h"
#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-matrix-io.h"
#include "pl-model.h"
#include "pl-text-attention.h"
#include "pl-transformer.h"

/* poslens-cli attention: how attention depends on position, as numbers. */

static int
usage (const char *message)
{
  return pl_cli_usage ("attention", message);
}

/* The offset profiles of the chosen layer (1-based, 0: all) and head
 * (an index from 0, −1: all), one row per (layer, head). */
static PlMatrix *
select_profiles (PlAttentionStats *stats,
                 int               layer,
                 int               head)
{
  gsize width = stats->offset_profile->cols;
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (gsize));
  PlMatrix *out;

  for (guint l = 0; l < stats->n_layers; l++)
    for (guint h = 0; h < stats->n_heads; h++)
      if ((layer == 0 || (guint) layer == l + 1) && (head < 0 || (guint) head == h))
        {
          gsize r = (gsize) l * stats->n_heads + h;
          g_array_append_val (rows, r);
        }
  out = pl_matrix_new (rows->len, width);
  for (guint i = 0; i < rows->len; i++)
    memcpy (pl_matrix_row (out, i), pl_matrix_row (stats->offset_profile, g_array_index (rows, gsize, i)),
            width * sizeof (float));
  return out;
}

/* --text: one forward pass over the sentence. A figure is the attention map
 * of one head with the tokens on its axes; numbers are the maps of the
 * chosen layers and heads stacked, the ids, and the statistics over the
 * sentence alone, laid out as for random inputs. */
static int
run_text (const char               *path,
          PlModel                  *model,
          PlTransformer            *transformer,
          const char               *text,
          int                       layer,
          int                       head,
          const char               *out,
          gboolean                  is_figure,
          const PlCliFigureOptions *options)
{
  g_autofree char *shown_out = pl_escape_text (out, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tokenizer = NULL;
  g_autoptr(PlTextAttention) sentence = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(PlMatrix) maps = NULL;
  g_autoptr(PlMatrix) ids = NULL;
  g_autoptr(PlMatrix) profiles = NULL;
  g_autoptr(PlMatrix) offsets = NULL;
  g_autoptr(GPtrArray) sequences = NULL;
  guint t, n_maps = 0;

  if (!(tokenizer = pl_tokenizer_new_for_model_dir (path, &error)) ||
      !(sentence = pl_text_attention_compute (transformer, tokenizer, text, NULL, NULL, NULL, &error)))
    return pl_cli_fail (error);
  t = sentence->n_tokens;

  if (is_figure)
    {
      guint l = layer > 0 ? (guint) layer - 1 : 0, h = head >= 0 ? (guint) head : 0;
      g_autoptr(PlMatrix) map = pl_text_attention_get_map (sentence, l, h);
      g_autoptr(PlFigure) figure = pl_figure_new_heatmap (map, 0);
      /* Translators: figure title: model — layer, head (both counted from 1, as --layer and --head) */
      g_autofree char *title = g_strdup_printf (_("%s — layer %u, head %u"), pl_model_get_name (model), l + 1, h + 1);

      pl_figure_set_tick_labels (figure, (const char * const *) sentence->labels, t);
      pl_figure_set_title (figure, title);
      pl_figure_set_axis_labels (figure, _("Key token"), _("Query token"));
      pl_figure_set_value_label (figure, _("Attention"));
      if (!pl_cli_figure_write (figure, out, options, &error))
        return pl_cli_fail (error);
      printf ("%s: attention of layer %u, head %u over %u tokens\n", shown_out, l + 1, h + 1, t);
      return PL_CLI_EXIT_OK;
    }

  for (guint l = 0; l < sentence->n_layers; l++)
    for (guint h = 0; h < sentence->n_heads; h++)
      n_maps += (layer == 0 || (guint) layer == l + 1) && (head < 0 || (guint) head == h);
  maps = pl_matrix_new ((gsize) n_maps * t, t);
  n_maps = 0;
  for (guint l = 0; l < sentence->n_layers; l++)
    for (guint h = 0; h < sentence->n_heads; h++)
      if ((layer == 0 || (guint) layer == l + 1) && (head < 0 || (guint) head == h))
        {
          memcpy (pl_matrix_row (maps, (gsize) n_maps * t), pl_matrix_row (sentence->attentions[l], (gsize) h * t),
                  (gsize) t * t * sizeof (float));
          n_maps++;
        }
  ids = pl_matrix_new (1, t);
  for (guint i = 0; i < t; i++)
    ids->data[i] = (float) g_array_index (sentence->ids, int, i);

  sequences = g_ptr_array_new ();
  g_ptr_array_add (sequences, sentence->ids);
  if (!(stats = pl_attention_stats_compute_for_ids (transformer, sequences, NULL, NULL, NULL, &error)))
    return pl_cli_fail (error);
  profiles = select_profiles (stats, layer, head);
  offsets = pl_matrix_new (1, 2 * t - 1);
  for (guint o = 0; o < 2 * t - 1; o++)
    offsets->data[o] = (float) o - (float) (t - 1);

  {
    const PlNamedMatrix datasets[] = {
      { "/attention", maps, FALSE },
      { "/input_ids", ids, TRUE },
      { "/offset_profile", profiles, profiles->rows == 1 },
      { "/offsets", offsets, TRUE },
      { "/mean_distance", stats->mean_distance, FALSE },
      { "/first_token_mass", stats->first_token, FALSE },
    };

    if (!pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), &error))
      return pl_cli_fail (error);
  }
  printf ("%s: attention of %u layers × %u heads over %u tokens of text\n",
          shown_out, sentence->n_layers, sentence->n_heads, t);
  return PL_CLI_EXIT_OK;
}

int
pl_cli_attention (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autofree char *shown_out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(PlMatrix) profiles = NULL;
  g_autoptr(PlMatrix) offsets = NULL;
  g_autoptr(PlMatrix) position_only = NULL;
  g_autoptr(PlPositionBias) bias = NULL;
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  PlActivationsFile *activations;
  guint n_layers, n_heads;
  gboolean is_figure;
  PlMatrixFormat format;
  int layer = 0, head_option = G_MININT, head, sequences = 8, length = 0;
  gint64 seed = 0;
  guint t;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "layer", 'l', 0, G_OPTION_ARG_INT, &layer, N_("Only the offset profiles of layer L (1 … layers; default all)"), N_("L") },
    { "head", 0, 0, G_OPTION_ARG_INT, &head_option, N_("Only head H (1 … heads; default all)"), N_("H") },
    { "text", 0, 0, G_OPTION_ARG_STRING, &text, N_("Attention of this sentence instead of random inputs (needs the tokenizer beside the checkpoint)"), N_("TEXT") },
    { "sequences", 'n', 0, G_OPTION_ARG_INT, &sequences, N_("Random inputs to average over (default 8)"), N_("N") },
    { "length", 0, 0, G_OPTION_ARG_INT, &length, N_("Tokens per input (default: the model’s positions)"), N_("T") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of the random inputs (default 0)"), N_("S") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Output file: .h5, .csv, .npy, or a figure: .png, .svg, .pdf"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — attention by relative position, per layer and head"));
  g_option_context_set_description (context,
    _("Writes, averaged over the queries of N random inputs of T tokens:\n"
      "  offset_profile    [rows, 2T − 1]: attention mass at offset j − i = −(T − 1) … T − 1,\n"
      "                    one row per (layer, head) chosen, each summing to 1\n"
      "  offsets           [2T − 1]: the offset of each column\n"
      "  mean_distance     [layers, heads]: mean |j − i| under the attention\n"
      "  first_token_mass  [layers, heads]: attention on the first token\n"
      "  position_only     [heads × T, T] (or [T, T] with --head): the first layer’s\n"
      "                    softmax(LN(P) Wq · (LN(P) Wk)ᵀ / √d_head) from the weights alone;\n"
      "                    a T5 or ALiBi model writes position_bias [heads, 2T − 1] instead,\n"
      "                    its first layer’s bias by offset (poslens-cli position-bias)\n"
      "An .h5 file holds them all; .csv and .npy write the first at FILE and the others\n"
      "beside it as FILE-NAME.csv / .npy. A .png, .svg or .pdf FILE draws, with --layer,\n"
      "the mass by offset (one line per head, or --head's), else the mean distance of every head.\n"
      "\n"
      "With --text, one forward pass over the sentence (its T tokens, special tokens included):\n"
      "  attention         [maps × T, T]: the attention map of each chosen (layer, head),\n"
      "                    layer by layer, head by head; row query i, column key j; [T, T]\n"
      "                    with --layer and --head\n"
      "  input_ids         [T]: the tokens\n"
      "  offset_profile, offsets, mean_distance, first_token_mass: as above, over the sentence\n"
      "A figure is the map of --layer (default 1) and --head (default 1) with the tokens on\n"
      "both axes. --text excludes --sequences, --length and --seed.\n"
      "\n"
      "An activations file (poslens-cli forward --stats-out, poslens-export) gives the statistics\n"
      "over its own inputs; position_only and --text need the model’s weights."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return usage (error->message);
  if (argc != 2)
    return usage ("expected one PATH (a checkpoint file or folder)");
  if (out == NULL)
    return usage ("--out FILE is required (.h5, .csv or .npy)");
  shown_out = pl_escape_text (out, -1);
  is_figure = pl_cli_figure_is_figure_path (out);
  if (!is_figure && !pl_matrix_format_from_path (out, &format, &error))
    return usage (error->message);
  if (sequences < 1)
    return usage ("--sequences needs N ≥ 1");
  if (length < 0 || seed < 0)
    return usage ("--length and --seed must be ≥ 0");
  if (layer < 0)
    return usage ("--layer counts from 1 (the first transformer block)");
  /* Heads count from 1, as layers do, here and in the window. */
  if (head_option != G_MININT && head_option < 1)
    return usage ("--head counts from 1 (the first head of a layer)");
  head = head_option == G_MININT ? -1 : head_option - 1;
  if (text != NULL && (length != 0 || seed != 0 || sequences != 8))
    return usage ("--text is the input: it excludes --sequences, --length and --seed");

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)))
    return pl_cli_fail (error);
  activations = pl_model_get_activations (model);
  if (activations != NULL && text == NULL && (length != 0 || seed != 0 || sequences != 8))
    return usage ("an activations file holds its own inputs: --sequences, --length and --seed do not apply");
  if ((activations == NULL || text != NULL) && !(transformer = pl_transformer_new (model, NULL, &error)))
    return pl_cli_fail (error);
  n_layers = pl_model_get_n_layers (model);
  n_heads = pl_model_get_n_heads (model);
  if ((guint) layer > n_layers)
    {
      g_autofree char *m = g_strdup_printf ("--layer %d: the model has layers 1 to %u", layer, n_layers);
      return usage (m);
    }
  if (head >= (int) n_heads)
    {
      g_autofree char *m = g_strdup_printf ("--head %d: the model has heads 1 to %u", head_option, n_heads);
      return usage (m);
    }
  if (text != NULL)
    return run_text (argv[1], model, transformer, text, layer, head, out, is_figure, &figure);
  if (transformer != NULL && (guint) length > pl_transformer_get_max_tokens (transformer))
    {
      g_autofree char *m = g_strdup_printf ("--length %d: the model takes at most %u tokens", length,
                                            pl_transformer_get_max_tokens (transformer));
      return usage (m);
    }

  if (activations != NULL)
    stats = pl_attention_stats_new_from_file (activations, &error);
  else
    stats = pl_attention_stats_compute (transformer, sequences, length, seed, NULL, NULL, NULL, &error);
  if (stats == NULL)
    return pl_cli_fail (error);
  if (is_figure)
    {
      if (!pl_cli_figure_write_attention (stats, layer, head, out, &figure, &error))
        return pl_cli_fail (error);
      printf ("%s: attention of %u layers × %u heads over %u inputs of %u tokens\n",
              shown_out, n_layers, n_heads, stats->n_sequences, stats->n_tokens);
      return PL_CLI_EXIT_OK;
    }
  /* The position-only term is computed from the weights. */
  /* The position-only term needs a position table layer 0 reads; a model
   * whose position is a bias on the scores gets layer 1's bias instead. */
  if (transformer != NULL)
    {
      g_autoptr(GError) table_error = NULL;

      position_only = pl_attention_position_only (transformer, length, &table_error);
      if (position_only == NULL && !g_error_matches (table_error, PL_ERROR, PL_ERROR_UNSUPPORTED))
        return pl_cli_fail (g_steal_pointer (&table_error));
    }
  if (pl_model_has_position_bias (model) &&
      !(bias = pl_model_compute_position_bias (model, 0, stats->n_tokens, &error)))
    return pl_cli_fail (error);
  t = stats->n_tokens;

  profiles = select_profiles (stats, layer, head);
  offsets = pl_matrix_new (1, 2 * t - 1);
  for (guint o = 0; o < 2 * t - 1; o++)
    offsets->data[o] = (float) o - (float) (t - 1);
  if (head >= 0 && position_only != NULL)
    {
      PlMatrix *one = pl_matrix_slice_rows (position_only, (gsize) head * t, t);
      pl_matrix_unref (position_only);
      position_only = one;
    }

  {
    const PlNamedMatrix datasets[] = {
      { "/offset_profile", profiles, profiles->rows == 1 },
      { "/offsets", offsets, TRUE },
      { "/mean_distance", stats->mean_distance, FALSE },
      { "/first_token_mass", stats->first_token, FALSE },
      { position_only != NULL ? "/position_only" : "/position_bias",
        position_only != NULL ? position_only : bias ? bias->bias : NULL, FALSE },
    };

    if (!pl_matrix_io_write (out, datasets,
                             G_N_ELEMENTS (datasets) - (position_only == NULL && bias == NULL), &error))
      return pl_cli_fail (error);
  }
  printf ("%s: attention of %u layers × %u heads over %u inputs of %u tokens\n",
          shown_out, n_layers, n_heads, stats->n_sequences, t);
  return PL_CLI_EXIT_OK;
}
