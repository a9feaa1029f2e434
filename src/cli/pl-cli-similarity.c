/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-matrix-io.h"
#include "pl-similarity.h"

/* The one place results leave: by OUT's extension (figures can hook here). */
static gboolean
write_similarity (const char          *out,
                  const PlMatrix      *similarity,
                  PlSimilarityMetric   metric,
                  GError             **error)
{
  const PlNamedMatrix datasets[] = { { "/similarity", similarity, FALSE } };

  return pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), error);
}

int
pl_cli_similarity (int    argc,
                   char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) similarity = NULL;
  g_autofree char *metric_name = NULL;
  g_autofree char *rows = NULL;
  gsize first = 0, count;
  g_autofree char *dataset = NULL;
  int layer = PL_CLI_TABLE_LAYER;
  g_autofree char *out = NULL;
  gboolean center = FALSE;
  PlSimilarityMetric metric = PL_SIMILARITY_COSINE;
  PlMatrixFormat format;
  gsize n;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "metric", 'm', 0, G_OPTION_ARG_STRING, &metric_name, N_("cosine (default), dot or l2 (Euclidean distance)"), N_("METRIC") },
    { "center", 'c', 0, G_OPTION_ARG_NONE, &center, N_("Subtract the mean row first"), NULL },
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &rows, N_("Only positions FIRST to END − 1"), N_("FIRST:END") },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    PL_CLI_LAYER_OPTION (layer),
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write the n × n matrix here (.h5, .csv, .npy)"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — similarity between the positions of a table"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return pl_cli_usage ("similarity", error->message);
  if (argc != 2)
    return pl_cli_usage ("similarity", "expected one PATH (a file, a folder or builtin:…)");
  if (out == NULL)
    return pl_cli_usage ("similarity", "--out FILE is required");
  if (metric_name != NULL && !pl_similarity_metric_from_string (metric_name, &metric))
    return pl_cli_usage ("similarity", "--metric must be cosine, dot or l2");
  if (!pl_cli_figure_is_figure_path (out) && !pl_matrix_format_from_path (out, &format, &error))
    return pl_cli_usage ("similarity", error->message);

  if (!(model = pl_cli_open_model (argv[1], dataset, table_name, &error)) ||
      !pl_cli_count_positions (model, rows, &n, &error))
    return pl_cli_fail (error);
  /* Refused before the table is read: the n×n result is what grows. */
  if (!pl_similarity_check_size (n, &error))
    {
      g_autoptr(GError) hinted = g_error_new (error->domain, error->code,
                                              "%s; choose fewer with --rows FIRST:END", error->message);

      return pl_cli_fail_analysis (model, hinted);
    }
  if (!(table = pl_cli_read_positions (model, rows, layer, &error)))
    return pl_cli_fail (error);
  if (rows != NULL)
    pl_cli_parse_rows (rows, G_MAXSIZE, &first, &count, NULL);
  if (!pl_similarity_check_rows (table, (guint) first, metric, center, &error))
    return pl_cli_fail_analysis (model, error);
  if (!(similarity = pl_similarity_compute (table, metric, center, NULL, &error)))
    return pl_cli_fail_analysis (model, error);
  if (!(pl_cli_figure_is_figure_path (out)
        ? pl_cli_figure_write_similarity (similarity, metric, rows, out, &figure, &error)
        : write_similarity (out, similarity, metric, &error)))
    return pl_cli_fail (error);
  return PL_CLI_EXIT_OK;
}
