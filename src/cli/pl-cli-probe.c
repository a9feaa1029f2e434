/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-probes.h"

/* The one place results leave (figures can hook here). */
static void
print_result (const PlProbeResult  *result,
              const PlProbeOptions *options,
              gboolean              json)
{
  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "rows");
      json_builder_add_int_value (builder, (gint64) result->rows);
      json_builder_set_member_name (builder, "absolute_mae");
      json_builder_add_double_value (builder, result->absolute_mae);
      json_builder_set_member_name (builder, "relative_error");
      json_builder_add_double_value (builder, result->relative_error);
      json_builder_set_member_name (builder, "pairs");
      json_builder_add_int_value (builder, result->n_pairs);
      json_builder_set_member_name (builder, "folds");
      json_builder_add_string_value (builder, pl_folds_to_string (options->folds));
      json_builder_set_member_name (builder, "n_folds");
      json_builder_add_int_value (builder, options->n_folds);
      json_builder_set_member_name (builder, "seed");
      json_builder_add_int_value (builder, options->seed);
      json_builder_end_object (builder);
      pl_cli_print_json (builder);
    }
  else
    {
      printf ("%-34s %" G_GSIZE_FORMAT "\n", _("Positions:"), result->rows);
      printf ("%-34s %.4f\n", _("Absolute position, mean abs. error:"), result->absolute_mae);
      printf ("%-34s %.4f (%u pairs)\n", _("Relative order, error rate:"), result->relative_error,
              result->n_pairs);
      printf ("%-34s %u %s (seed %u)\n", _("Cross-validation:"), options->n_folds,
              pl_folds_to_string (options->folds), options->seed);
    }
}

/* The table's row label: a folder or file by its name ("mini-roberta"),
 * a builtin encoding as written. */
static char *
model_name (const char *path)
{
  g_autofree char *trimmed = g_strdup (path);
  gsize len = strlen (trimmed);

  if (g_str_has_prefix (path, "builtin:"))
    return g_steal_pointer (&trimmed);
  while (len > 1 && G_IS_DIR_SEPARATOR (trimmed[len - 1]))
    trimmed[--len] = '\0';
  return g_path_get_basename (trimmed);
}

int
pl_cli_probe (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autofree char *folds = NULL;
  g_autofree char *rows = NULL;
  g_autofree char *dataset = NULL;
  int layer = PL_CLI_TABLE_LAYER;
  gint64 seed = 0;
  int pairs = 512;
  gboolean json = FALSE;
  g_autofree char *out = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  PlProbeOptions options;
  PlProbeResult result;
  const GOptionEntry entries[] = {
    { "folds", 'f', 0, G_OPTION_ARG_STRING, &folds, N_("interleaved (fold k = index % 5 == k, default) or shuffled"), N_("KIND") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, N_("Seed for the pair sample and shuffled folds (default 0)"), N_("S") },
    { "pairs", 'p', 0, G_OPTION_ARG_INT, &pairs, N_("Position pairs for the relative-order probe (default 512)"), N_("N") },
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &rows, N_("Only positions FIRST to END − 1"), N_("FIRST:END") },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    PL_CLI_LAYER_OPTION (layer),
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Also draw the results as a table: .png, .svg or .pdf"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — how well a linear probe recovers position (Wang & Chen 2020)"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  pl_cli_figure_add_options (context, &figure);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      !pl_cli_figure_check_options (&figure, &error))
    return pl_cli_usage ("probe", error->message);
  if (out != NULL && !pl_cli_figure_is_figure_path (out))
    return pl_cli_usage ("probe", "--out must end in .png, .svg or .pdf");
  if (argc != 2)
    return pl_cli_usage ("probe", "expected one PATH (a file, a folder or builtin:…)");

  pl_probe_options_init (&options);
  if (folds != NULL && !pl_folds_from_string (folds, &options.folds))
    return pl_cli_usage ("probe", "--folds must be interleaved or shuffled");
  if (seed < 0 || seed > G_MAXUINT32)
    return pl_cli_usage ("probe", "--seed must be 0 to 4294967295");
  if (pairs < 10 || pairs > 100000)
    return pl_cli_usage ("probe", "--pairs must be 10 to 100000");
  options.seed = (guint32) seed;
  options.n_pairs = (guint) pairs;

  if (!(model = pl_cli_open_model (argv[1], dataset, &error)) ||
      !(table = pl_cli_read_positions (model, rows, layer, &error)))
    return pl_cli_fail (error);
  if (!pl_probe_run (table, &options, &result, NULL, &error))
    return pl_cli_fail_analysis (model, error);
  print_result (&result, &options, json);
  if (out != NULL)
    {
      g_autofree char *name = model_name (argv[1]);

      if (!pl_cli_figure_write_probe (&result, name, out, &figure, &error))
        return pl_cli_fail (error);
    }
  return PL_CLI_EXIT_OK;
}
