/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-grid.h"
#include "pl-matrix-io.h"
#include "pl-pca.h"

/* The one place results leave: by OUT's extension (figures can hook here). */
static gboolean
write_pca (const char   *out,
           const PlPca  *pca,
           GError      **error)
{
  const PlNamedMatrix datasets[] = {
    { "/projection", pca->projection, FALSE },
    { "/explained_variance_ratio", pca->explained_variance_ratio, TRUE },
    { "/explained_variance", pca->explained_variance, TRUE },
    { "/components", pca->components, FALSE },
    { "/mean", pca->mean, TRUE },
  };
  PlMatrixFormat format = PL_MATRIX_FORMAT_HDF5;

  pl_matrix_format_from_path (out, &format, NULL);
  /* The one-matrix formats get the projection and the ratios only. */
  return pl_matrix_io_write (out, datasets, format == PL_MATRIX_FORMAT_HDF5 ? G_N_ELEMENTS (datasets) : 2,
                             error);
}

/* The patches' first three components as colours over their grid: a figure,
 * or /grid_rgb [rows, cols, 3] with the ratios of variance. */
static gboolean
write_grid_colors (const char               *out,
                   const PlPca              *pca,
                   guint                     rows,
                   guint                     cols,
                   const PlCliFigureOptions *figure_options,
                   GError                  **error)
{
  g_autoptr(PlMatrix) rgb = pl_grid_pca_colors (pca);

  if (pl_cli_figure_is_figure_path (out))
    {
      double ratio[3];
      g_autoptr(PlFigure) figure = NULL;

      for (guint k = 0; k < 3; k++)
        ratio[k] = k < pca->n_components ? pl_matrix_get (pca->explained_variance_ratio, 0, k) : NAN;
      figure = pl_figure_new_grid_colors (rgb, rows, cols, ratio);
      return pl_cli_figure_write (figure, out, figure_options, error);
    }
  else
    {
      g_autoptr(PlMatrix) grid = pl_matrix_new_from (rows, (gsize) cols * 3, rgb->data);
      const PlNamedMatrix datasets[] = {
        { "/grid_rgb", grid, FALSE, 3 },
        { "/explained_variance_ratio", pca->explained_variance_ratio, TRUE },
      };

      return pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), error);
    }
}

int
pl_cli_pca (int    argc,
            char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlPca) pca = NULL;
  g_autofree char *rows = NULL;
  g_autofree char *dataset = NULL;
  int layer = PL_CLI_TABLE_LAYER;
  g_autofree char *out = NULL;
  int components = 3;
  gboolean grid_colors = FALSE;
  g_autofree char *resize = NULL;
  g_autofree char *resample_name = NULL;
  PlGridResample resample = PL_GRID_RESAMPLE_SIZE;
  guint grid_rows = 0, grid_cols = 0;
  PlMatrixFormat format;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "components", 'k', 0, G_OPTION_ARG_INT, &components, N_("How many components, 1 to 16 (default 3)"), N_("K") },
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &rows, N_("Only positions FIRST to END − 1"), N_("FIRST:END") },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    PL_CLI_LAYER_OPTION (layer),
    { "grid-colors", 'g', 0, G_OPTION_ARG_NONE, &grid_colors, N_("A vision transformer’s patches: the first three components as colours over the grid (/grid_rgb [rows, cols, 3])"), NULL },
    { "resize", 0, 0, G_OPTION_ARG_STRING, &resize, N_("With --grid-colors: the table resized to this grid first, as Hugging Face’s interpolate_pos_encoding does"), N_("ROWSxCOLS") },
    { "resample", 0, 0, G_OPTION_ARG_STRING, &resample_name, N_("With --resize: size (default) or tenth, as poslens-cli resize"), N_("HOW") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write /projection and /explained_variance_ratio here (.h5, .csv, .npy)"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — principal components of the positions of a table"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return pl_cli_usage ("pca", error->message);
  if (argc != 2)
    return pl_cli_usage ("pca", "expected one PATH (a file, a folder or builtin:…)");
  if (out == NULL)
    return pl_cli_usage ("pca", "--out FILE is required");
  if (components < 1 || components > PL_PCA_MAX_COMPONENTS)
    return pl_cli_usage ("pca", "--components must be 1 to 16");
  if (!pl_cli_figure_is_figure_path (out) && !pl_matrix_format_from_path (out, &format, &error))
    return pl_cli_usage ("pca", error->message);
  if (grid_colors && rows != NULL)
    return pl_cli_usage ("pca", "--grid-colors colours every patch of the grid: leave out --rows");
  if (grid_colors && layer != PL_CLI_TABLE_LAYER)
    return pl_cli_usage ("pca", "--grid-colors colours the table’s patches: leave out --layer");
  if ((resize != NULL || resample_name != NULL) && !grid_colors)
    return pl_cli_usage ("pca", "--resize and --resample go with --grid-colors");
  if (resample_name != NULL && !pl_grid_resample_from_string (resample_name, &resample))
    return pl_cli_usage ("pca", "--resample must be size or tenth");
  if (resize != NULL && !pl_cli_parse_grid (resize, &grid_rows, &grid_cols, &error))
    return pl_cli_usage ("pca", error->message);

  if (!(model = pl_cli_open_model (argv[1], dataset, table_name, &error)) ||
      !(grid_colors ? pl_cli_read_grid (model, resize, resample, &table, &grid_rows, &grid_cols, &error)
                    : (table = pl_cli_read_positions (model, rows, layer, &error)) != NULL))
    return pl_cli_fail (error);
  if (!(pca = pl_pca_compute (table, grid_colors ? MAX ((guint) components, 3) : (guint) components, NULL, &error)))
    return pl_cli_fail_analysis (model, error);
  if (grid_colors)
    {
      if (!write_grid_colors (out, pca, grid_rows, grid_cols, &figure, &error))
        return pl_cli_fail (error);
    }
  else if (!(pl_cli_figure_is_figure_path (out)
             ? pl_cli_figure_write_pca (pca, rows, out, &figure, &error)
             : write_pca (out, pca, &error)))
    return pl_cli_fail (error);
  return PL_CLI_EXIT_OK;
}
