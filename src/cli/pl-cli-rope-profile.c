/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-matrix-io.h"
#include "pl-model.h"
#include "pl-rope-profile.h"
#include "pl-transformer.h"

/* poslens-cli rope-profile: which rotary frequencies each head uses. */

/* Random inputs this long unless --length says: a real model's
 * max_position_embeddings (128 K for some) is not a sample length. */
#define DEFAULT_LENGTH 256

static int
usage (const char *message)
{
  return pl_cli_usage ("rope-profile", message);
}

static gboolean
write_figure (PlModel                  *model,
              PlRopeProfile            *profile,
              guint                     layer,
              gboolean                  keys,
              const char               *out,
              const PlCliFigureOptions *options,
              GError                  **error)
{
  g_autoptr(PlMatrix) norms = pl_rope_profile_get_layer (profile, layer - 1, keys);
  g_autoptr(PlFigure) figure = pl_figure_new_rotary_norms (norms, pl_model_get_name (model), layer, keys);

  return pl_cli_figure_write (figure, out, options, error);
}

int
pl_cli_rope_profile (int    argc,
                     char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(PlRopeProfile) profile = NULL;
  g_autoptr(PlMatrix) wavelength = NULL;
  g_autofree char *out = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  PlMatrixFormat format;
  int sequences = 8, length = DEFAULT_LENGTH, layer = 1;
  gint64 seed = 0;
  gboolean keys = FALSE, is_figure;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "sequences", 'n', 0, G_OPTION_ARG_INT, &sequences, N_("Random inputs to average over (default 8)"), N_("N") },
    { "length", 0, 0, G_OPTION_ARG_INT, &length, N_("Tokens per input (default 256)"), N_("T") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of the first input (default 0)"), N_("S") },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &layer, N_("The layer a figure shows, from 1 (default 1)"), N_("L") },
    { "keys", 0, 0, G_OPTION_ARG_NONE, &keys, N_("A figure shows the key heads, not the query heads"), NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Output file: .h5, .csv, .npy, or a figure .png, .svg, .pdf"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — which rotary frequencies each head uses"));
  g_option_context_set_description (context,
    _("RoPE turns each head’s query and key in 2-D planes, plane p (dims p and p + rot/2) by\n"
      "θ_p per position. Over random inputs, the mean norm of the query and of the key in each\n"
      "plane, at every layer and head: long vectors in a fast plane carry position, in a slow\n"
      "plane (that hardly turns over a text) content.\n"
      "  query_norm   [layers × heads, planes]: row l·heads + h: layer l + 1, head h + 1\n"
      "  key_norm     [layers × key heads, planes]\n"
      "  frequency    [planes]: θ_p in radians per token (the model’s scaling applied)\n"
      "  wavelength   [planes]: 2π / θ_p in tokens\n"
      "An .h5 file holds them all; .csv and .npy write the first at FILE and the others beside\n"
      "it. A .png, .svg or .pdf FILE draws --layer’s heads × planes (--keys: the key heads)."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return usage (error->message);
  if (argc != 2)
    return usage ("expected one PATH (a checkpoint file or folder)");
  if (out == NULL)
    return usage ("--out FILE is required (.h5, .csv, .npy, .png, .svg or .pdf)");
  is_figure = pl_cli_figure_is_figure_path (out);
  if (!is_figure && !pl_matrix_format_from_path (out, &format, &error))
    return usage (error->message);
  if (sequences < 1 || length < 1 || seed < 0)
    return usage ("--sequences and --length need N ≥ 1, --seed S ≥ 0");
  if (layer < 1)
    return usage ("--layer counts from 1 (the first transformer block)");

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)))
    return pl_cli_fail (error);
  if (pl_model_get_rotary_decoder (model) == NULL)
    {
      g_set_error (&error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s is a %s model, whose positions are a learned table, not rotations (RoPE)",
                   argv[1], pl_model_get_family_display_name (model));
      return pl_cli_fail (error);
    }
  if (!(transformer = pl_transformer_new (model, NULL, &error)))
    return pl_cli_fail (error);
  if ((guint) layer > pl_transformer_get_config (transformer)->n_layers)
    {
      g_autofree char *m = g_strdup_printf ("--layer %d: the model has layers 1 to %u", layer,
                                            pl_transformer_get_config (transformer)->n_layers);
      return usage (m);
    }
  if (!(profile = pl_rope_profile_compute (transformer, sequences, length, seed, NULL, NULL, NULL, &error)))
    return pl_cli_fail (error);

  if (is_figure)
    {
      if (!write_figure (model, profile, layer, keys, out, &figure, &error))
        return pl_cli_fail (error);
      printf ("%s: layer %d, %u %s heads × %u rotary planes over %u random inputs of %u tokens\n", out, layer,
              keys ? profile->n_kv_heads : profile->n_heads, keys ? "key" : "query", profile->n_planes,
              profile->n_sequences, profile->n_tokens);
      return PL_CLI_EXIT_OK;
    }

  wavelength = pl_matrix_new (1, profile->n_planes);
  for (guint p = 0; p < profile->n_planes; p++)
    wavelength->data[p] = (float) (2 * G_PI / profile->frequency->data[p]);
  {
    const PlNamedMatrix datasets[] = {
      { "/query_norm", profile->query_norm, FALSE },
      { "/key_norm", profile->key_norm, FALSE },
      { "/frequency", profile->frequency, TRUE },
      { "/wavelength", wavelength, TRUE },
    };

    if (!pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), &error))
      return pl_cli_fail (error);
  }
  printf ("%s: %u layers × %u heads (%u key heads) × %u rotary planes over %u random inputs of %u tokens\n",
          out, profile->n_layers, profile->n_heads, profile->n_kv_heads, profile->n_planes,
          profile->n_sequences, profile->n_tokens);
  return PL_CLI_EXIT_OK;
}
