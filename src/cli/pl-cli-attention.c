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
#include "pl-transformer.h"

/* poslens-cli attention: how attention depends on position, as numbers. */

static int
usage (const char *message)
{
  fprintf (stderr, "poslens-cli attention: %s\n", message);
  return PL_CLI_EXIT_USAGE;
}

/* The offset profiles of the chosen layer (1-based, 0: all) and head
 * (−1: all), one row per (layer, head). */
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

int
pl_cli_attention (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlAttentionStats) stats = NULL;
  g_autoptr(PlMatrix) profiles = NULL;
  g_autoptr(PlMatrix) offsets = NULL;
  g_autoptr(PlMatrix) position_only = NULL;
  g_autofree char *out = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  const PlTransformerConfig *c;
  gboolean is_figure;
  PlMatrixFormat format;
  int layer = 0, head = -1, sequences = 8, length = 0;
  gint64 seed = 0;
  guint t;
  const GOptionEntry entries[] = {
    { "layer", 'l', 0, G_OPTION_ARG_INT, &layer, N_("Only the offset profiles of layer L (1 … layers; default all)"), N_("L") },
    { "head", 0, 0, G_OPTION_ARG_INT, &head, N_("Only head H (0 … heads − 1; default all)"), N_("H") },
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
      "                    softmax(LN(P) Wq · (LN(P) Wk)ᵀ / √d_head) from the weights alone\n"
      "An .h5 file holds them all; .csv and .npy write the first at FILE and the others\n"
      "beside it as FILE-NAME.csv / .npy. A .png, .svg or .pdf FILE draws, with --layer,\n"
      "the mass by offset (one line per head, or --head's), else the mean distance of every head."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  pl_cli_figure_add_options (context, &figure);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage (error->message);
  if (!pl_cli_figure_check_options (&figure, &error))
    return usage (error->message);
  if (argc != 2)
    return usage ("expected one PATH (a checkpoint file or folder)");
  if (out == NULL)
    return usage ("--out FILE is required (.h5, .csv or .npy)");
  is_figure = pl_cli_figure_is_figure_path (out);
  if (!is_figure && !pl_matrix_format_from_path (out, &format, &error))
    return usage (error->message);
  if (sequences < 1)
    return usage ("--sequences needs N ≥ 1");
  if (length < 0 || seed < 0)
    return usage ("--length and --seed must be ≥ 0");
  if (layer < 0)
    return usage ("--layer counts from 1 (the first transformer block)");

  if (!(model = pl_model_open (argv[1], NULL, &error)) ||
      !(transformer = pl_transformer_new (model, &error)))
    return pl_cli_fail (error);
  c = pl_transformer_get_config (transformer);
  if ((guint) layer > c->n_layers)
    {
      g_autofree char *m = g_strdup_printf ("--layer %d: the model has layers 1 to %u", layer, c->n_layers);
      return usage (m);
    }
  if (head >= (int) c->n_heads || head < -1)
    {
      g_autofree char *m = g_strdup_printf ("--head %d: the model has heads 0 to %u", head, c->n_heads - 1);
      return usage (m);
    }
  if ((guint) length > c->n_positions)
    {
      g_autofree char *m = g_strdup_printf ("--length %d: the model takes at most %u tokens", length, c->n_positions);
      return usage (m);
    }

  if (!(stats = pl_attention_stats_compute (transformer, sequences, length, seed, NULL, NULL, NULL, &error)))
    return pl_cli_fail (error);
  if (is_figure)
    {
      if (!pl_cli_figure_write_attention (stats, layer, head, out, &figure, &error))
        return pl_cli_fail (error);
      printf ("%s: attention of %u layers × %u heads over %u random inputs of %u tokens\n",
              out, c->n_layers, c->n_heads, stats->n_sequences, stats->n_tokens);
      return PL_CLI_EXIT_OK;
    }
  if (!(position_only = pl_attention_position_only (transformer, length, &error)))
    return pl_cli_fail (error);
  t = stats->n_tokens;

  profiles = select_profiles (stats, layer, head);
  offsets = pl_matrix_new (1, 2 * t - 1);
  for (guint o = 0; o < 2 * t - 1; o++)
    offsets->data[o] = (float) o - (float) (t - 1);
  if (head >= 0)
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
      { "/position_only", position_only, FALSE },
    };

    if (!pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), &error))
      return pl_cli_fail (error);
  }
  printf ("%s: attention of %u layers × %u heads over %u random inputs of %u tokens\n",
          out, c->n_layers, c->n_heads, stats->n_sequences, t);
  return PL_CLI_EXIT_OK;
}
