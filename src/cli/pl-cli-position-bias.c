/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-matrix-io.h"
#include "pl-model.h"

/* poslens-cli position-bias: the bias a T5 or ALiBi model adds to attention
 * scores, by offset and head, as numbers or as a figure. */

static int
usage (const char *message)
{
  return pl_cli_usage ("position-bias", message);
}

/* "1,4,8" → head indices from 0 (heads count from 1 on the command line, as
 * in the window; checked against N_HEADS); NULL → all of up to eight, else
 * six spread from the first to the last. */
static GArray *
parse_heads (const char  *spec,
             guint        n_heads,
             GError     **error)
{
  GArray *heads = g_array_new (FALSE, FALSE, sizeof (guint));

  if (spec == NULL)
    {
      guint spread[8];

      g_array_append_vals (heads, spread, pl_position_bias_default_heads (n_heads, spread));
      return heads;
    }
  {
    g_auto(GStrv) parts = g_strsplit (spec, ",", -1);

    for (guint i = 0; parts[i] != NULL; i++)
      {
        guint64 h;

        if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, 1, n_heads, &h, NULL))
          {
            g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                         "--heads “%s”: expected heads 1 to %u (heads count from 1), separated by commas",
                         spec, n_heads);
            g_array_unref (heads);
            return NULL;
          }
        g_array_append_val (heads, (guint) { (guint) h - 1 });
      }
  }
  return heads;
}

int
pl_cli_position_bias (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlPositionBias) bias = NULL;
  g_autoptr(PlMatrix) offsets = NULL;
  g_autoptr(PlMatrix) extra = NULL;
  g_autoptr(GArray) heads = NULL;
  g_autofree char *out = NULL;
  g_autofree char *shown_out = NULL;
  g_autofree char *heads_spec = NULL;
  g_autofree char *table_name = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  PlMatrixFormat format;
  gboolean is_figure;
  int length = 0, layer = 1;
  guint width;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "length", 0, 0, G_OPTION_ARG_INT, &length, N_("Queries and keys of T tokens: offsets −(T − 1) … T − 1 (default: the model’s)"), N_("T") },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &layer, N_("The bias of layer L (1 … layers; UMT5 has one per layer, T5 shares layer 1’s)"), N_("L") },
    { "heads", 0, 0, G_OPTION_ARG_STRING, &heads_spec, N_("A figure’s curves: these heads (“1,4,8”, from 1; default up to eight)"), N_("LIST") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Output file: .h5, .csv, .npy, or a figure: .png, .svg, .pdf"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — the bias a T5 or ALiBi model adds to attention scores"));
  g_option_context_set_description (context,
    _("Writes, as Hugging Face computes it for queries and keys of T tokens:\n"
      "  bias     [heads, 2T − 1]: row h, column (j − i) + T − 1 is what head h + 1 adds\n"
      "           to query i’s score for key j; NaN where a causal stack hides key j > i\n"
      "  offsets  [2T − 1]: the offset j − i of each column\n"
      "  buckets  [2T − 1]: T5: each offset’s bucket (−1 where hidden)\n"
      "  slopes   [heads]: ALiBi: each head’s slope (the bias is slope · (j − i))\n"
      "T5 and mT5 learn a bias per head over buckets of the offset (relative_attention_bias):\n"
      "the encoder’s buckets are bidirectional, the decoder’s causal (--table decoder); UMT5\n"
      "learns one per layer (--layer). BLOOM, MPT and builtin:alibi:T×H add slope · offset,\n"
      "BLOOM with its slopes, MPT with attn_config.alibi_bias_max. An .h5 file holds them all;\n"
      ".csv and .npy write bias at FILE and the others beside it; a figure draws the heads\n"
      "against the offset and the curves of --heads."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return usage (error->message);
  if (argc != 2)
    return usage ("expected one PATH (a checkpoint file or folder, or builtin:alibi:T×H)");
  if (out == NULL)
    return usage ("--out FILE is required (.h5, .csv, .npy, .png, .svg or .pdf)");
  if (length < 0 || length > (int) PL_POSITION_BIAS_MAX_LENGTH)
    {
      g_autofree char *m = g_strdup_printf ("--length %d: choose 1 to %u tokens", length, PL_POSITION_BIAS_MAX_LENGTH);
      return usage (m);
    }
  if (layer < 1)
    return usage ("--layer counts from 1 (the first block)");
  shown_out = pl_escape_text (out, -1);
  is_figure = pl_cli_figure_is_figure_path (out);
  if (!is_figure && !pl_matrix_format_from_path (out, &format, &error))
    return usage (error->message);

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)))
    return pl_cli_fail (error);
  if (pl_model_has_position_bias (model) && pl_model_get_encoding (model) == NULL &&
      (guint) layer > pl_model_get_n_layers (model))
    {
      g_autofree char *m = g_strdup_printf ("--layer %d: the %s has layers 1 to %u", layer,
                                            pl_model_get_stack (model) ? pl_model_get_stack (model) : "model",
                                            pl_model_get_n_layers (model));
      return usage (m);
    }
  if (!(bias = pl_model_compute_position_bias (model, (guint) layer - 1, (guint) length, &error)))
    return pl_cli_fail (error);
  if (!(heads = parse_heads (heads_spec, bias->n_heads, &error)))
    return usage (error->message);
  width = bias->bias->cols;

  if (is_figure)
    {
      g_autoptr(PlFigure) f = pl_figure_new_position_bias (bias->bias, -(int) (bias->length - 1), bias->buckets,
                                                           (guint *) heads->data, heads->len);
      /* Translators: figure title: model — the bias of a stack's layer */
      g_autofree char *title = g_strdup_printf (_("%s — position bias, %s layer %d"), pl_model_get_name (model),
                                                pl_model_get_stack (model) ? pl_model_get_stack (model) : "",
                                                layer);

      pl_figure_set_title (f, title);
      if (!pl_cli_figure_write (f, out, &figure, &error))
        return pl_cli_fail (error);
    }
  else
    {
      offsets = pl_matrix_new (1, width);
      for (guint c = 0; c < width; c++)
        offsets->data[c] = (float) c - (float) (bias->length - 1);
      if (bias->buckets != NULL)
        {
          extra = pl_matrix_new (1, width);
          for (guint c = 0; c < width; c++)
            extra->data[c] = (float) bias->buckets[c];
        }
      else
        extra = pl_matrix_new_from (1, bias->n_heads, bias->slopes);
      {
        const PlNamedMatrix datasets[] = {
          { "/bias", bias->bias, FALSE },
          { "/offsets", offsets, TRUE },
          { bias->buckets != NULL ? "/buckets" : "/slopes", extra, TRUE },
        };

        if (!pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), &error))
          return pl_cli_fail (error);
      }
    }
  printf ("%s: %s bias of %u heads over offsets −%u … %u%s\n", shown_out,
          bias->kind == PL_POSITION_BIAS_T5 ? "T5" : "ALiBi", bias->n_heads, bias->length - 1, bias->length - 1,
          bias->causal ? " (causal: positive offsets hidden)" : "");
  return PL_CLI_EXIT_OK;
}
