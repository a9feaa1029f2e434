/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-grid.h"
#include "pl-matrix-io.h"

/* The grid of grids of a vision transformer's table: in each patch's place,
 * a small map of its similarity with every patch; the special tokens' maps
 * beside the grid. A figure, or the numbers (/similarity [n, n] and
 * /special [k, n]). */

static gboolean
write_numbers (const char      *out,
               const PlMatrix  *similarity,
               const PlMatrix  *special,
               GError         **error)
{
  const PlNamedMatrix datasets[] = {
    { "/similarity", similarity, FALSE },
    { "/special", special, FALSE },
  };

  return pl_matrix_io_write (out, datasets, special != NULL ? 2 : 1, error);
}

int
pl_cli_patch_grid (int    argc,
                   char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) special = NULL;
  g_autoptr(PlMatrix) similarity = NULL;
  g_autoptr(PlMatrix) special_similarity = NULL;
  g_autofree char *metric_name = NULL;
  g_autofree char *out = NULL;
  g_autofree char *resize = NULL;
  g_autofree char *resample_name = NULL;
  gboolean no_special = FALSE;
  PlGridResample resample = PL_GRID_RESAMPLE_SIZE;
  PlSimilarityMetric metric = PL_SIMILARITY_COSINE;
  PlMatrixFormat format;
  guint rows, cols, n_special;
  g_auto(PlCliFigureOptions) figure_options = PL_CLI_FIGURE_OPTIONS_INIT;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "metric", 'm', 0, G_OPTION_ARG_STRING, &metric_name, N_("cosine (default), dot or l2 (Euclidean distance)"), N_("METRIC") },
    { "resize", 0, 0, G_OPTION_ARG_STRING, &resize, N_("The table resized to this grid first, as Hugging Face’s interpolate_pos_encoding does"), N_("ROWSxCOLS") },
    { "resample", 0, 0, G_OPTION_ARG_STRING, &resample_name, N_("With --resize: size (default) or tenth, as poslens-cli resize"), N_("HOW") },
    { "no-special", 0, 0, G_OPTION_ARG_NONE, &no_special, N_("Leave out the special tokens’ maps"), NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write the figure (.png, .svg, .pdf) or the numbers (.h5, .csv, .npy) here"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — every patch’s similarity with every patch, over a vision transformer’s grid"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure_options, &argc, &argv, &error))
    return pl_cli_usage ("patch-grid", error->message);
  if (argc != 2)
    return pl_cli_usage ("patch-grid", "expected one PATH (a vision transformer’s file or folder, or builtin:sincos2d:…)");
  if (out == NULL)
    return pl_cli_usage ("patch-grid", "--out FILE is required");
  if (metric_name != NULL && !pl_similarity_metric_from_string (metric_name, &metric))
    return pl_cli_usage ("patch-grid", "--metric must be cosine, dot or l2");
  if (!pl_cli_figure_is_figure_path (out) && !pl_matrix_format_from_path (out, &format, &error))
    return pl_cli_usage ("patch-grid", error->message);
  if (resample_name != NULL && !pl_grid_resample_from_string (resample_name, &resample))
    return pl_cli_usage ("patch-grid", "--resample must be size or tenth");
  if (resize != NULL && !pl_cli_parse_grid (resize, &rows, &cols, &error))
    return pl_cli_usage ("patch-grid", error->message);

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)) ||
      !pl_cli_read_grid (model, resize, resample, &patches, &rows, &cols, &error))
    return pl_cli_fail (error);
  n_special = no_special ? 0 : pl_model_get_n_special_rows (model);
  if (n_special > 0 && !(special = pl_model_read_special_rows (model, &error)))
    return pl_cli_fail (error);
  if (!(similarity = pl_grid_similarity (patches, special, metric, &special_similarity, NULL, &error)))
    return pl_cli_fail_analysis (model, error);

  if (pl_cli_figure_is_figure_path (out))
    {
      g_autoptr(PlFigure) figure = pl_figure_new_patch_grid (similarity, rows, cols);

      if (special_similarity != NULL)
        {
          g_autoptr(GPtrArray) names = g_ptr_array_new ();

          for (guint i = 0; i < n_special; i++)
            g_ptr_array_add (names, (gpointer) pl_model_get_special_row_name (model, i));
          g_ptr_array_add (names, NULL);
          pl_figure_set_special_maps (figure, special_similarity, (const char * const *) names->pdata);
        }
      pl_cli_figure_show_metric (figure, metric);
      if (!pl_cli_figure_write (figure, out, &figure_options, &error))
        return pl_cli_fail (error);
    }
  else if (!write_numbers (out, similarity, special_similarity, &error))
    return pl_cli_fail (error);
  return PL_CLI_EXIT_OK;
}
