/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-grid.h"
#include "pl-probes.h"

typedef struct
{
  PlProbeOptions  options;
  guint           n_runs;
  PlProbeResult  *runs;
  PlProbeSummary  summary;
  char           *rows_note;     /* which rows, in words */
} Probe;

static void
add_double_array (JsonBuilder  *builder,
                  const char   *name,
                  const double *values,
                  guint         n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (builder, values[i]);
  json_builder_end_array (builder);
}

static void
add_spread (JsonBuilder         *builder,
            const char          *name,
            const PlProbeSpread *spread)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "mean");
  json_builder_add_double_value (builder, spread->mean);
  json_builder_set_member_name (builder, "ci95_half_width");
  json_builder_add_double_value (builder, spread->half_width);
  json_builder_set_member_name (builder, "sd");
  json_builder_add_double_value (builder, spread->sd);
  json_builder_set_member_name (builder, "min");
  json_builder_add_double_value (builder, spread->min);
  json_builder_set_member_name (builder, "max");
  json_builder_add_double_value (builder, spread->max);
  json_builder_end_object (builder);
}

static void
print_json (const Probe *probe)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const PlProbeResult *first = &probe->runs[0];

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "protocol");
  json_builder_add_string_value (builder, pl_probe_protocol_to_string (probe->options.protocol));
  json_builder_set_member_name (builder, "rows");
  json_builder_add_int_value (builder, (gint64) first->rows);
  json_builder_set_member_name (builder, "relative_rows");
  json_builder_add_int_value (builder, (gint64) first->relative_rows);
  if (probe->rows_note != NULL)
    {
      json_builder_set_member_name (builder, "rows_used");
      json_builder_add_string_value (builder, probe->rows_note);
    }
  json_builder_set_member_name (builder, "pairs");
  json_builder_add_int_value (builder, first->n_pairs);
  json_builder_set_member_name (builder, "n_folds");
  json_builder_add_int_value (builder, first->n_folds);
  json_builder_set_member_name (builder, "repeats");
  json_builder_add_int_value (builder, probe->n_runs);
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, probe->options.seed);
  /* The means, under the names one run had. */
  json_builder_set_member_name (builder, "absolute_mae");
  json_builder_add_double_value (builder, probe->summary.absolute.mean);
  json_builder_set_member_name (builder, "relative_error");
  json_builder_add_double_value (builder, probe->summary.relative.mean);
  add_spread (builder, "absolute", &probe->summary.absolute);
  add_spread (builder, "relative", &probe->summary.relative);
  /* What a probe that knows nothing scores: the middle position for every
   * row, and a coin for the order. */
  json_builder_set_member_name (builder, "chance");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "absolute_mae");
  json_builder_add_double_value (builder, pl_probe_chance_mae (first->rows));
  json_builder_set_member_name (builder, "relative_error");
  json_builder_add_double_value (builder, 0.5);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "absolute_random");
  json_builder_add_boolean_value (builder, pl_probe_absolute_is_random (probe->options.protocol));
  json_builder_set_member_name (builder, "runs");
  json_builder_begin_array (builder);
  for (guint r = 0; r < probe->n_runs; r++)
    {
      const PlProbeResult *run = &probe->runs[r];

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "seed");
      json_builder_add_int_value (builder, run->seed);
      json_builder_set_member_name (builder, "absolute_mae");
      json_builder_add_double_value (builder, run->absolute_mae);
      json_builder_set_member_name (builder, "relative_error");
      json_builder_add_double_value (builder, run->relative_error);
      add_double_array (builder, "absolute_folds", run->absolute_folds, run->n_folds);
      add_double_array (builder, "relative_folds", run->relative_folds, run->n_folds);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  pl_cli_print_json (builder);
}

static const char *
protocol_description (PlProbeProtocol protocol)
{
  switch (protocol)
    {
    case PL_PROBE_PAPER:
      return _("the paper’s (PE-Study’s absolute.py and relative.py): random folds; pairs from all ordered pairs, stratified folds");
    case PL_PROBE_INTERLEAVED:
      return _("interleaved folds (index mod folds); pairs of distinct positions");
    case PL_PROBE_SHUFFLED:
      return _("shuffled folds; pairs of distinct positions");
    default:
      g_return_val_if_reached (NULL);
    }
}

/* "12.345 ± 0.678 (sd 1.234)", or the one value. */
static char *
format_spread (const PlProbeSpread *spread,
               int                  digits)
{
  g_autofree char *mean = g_strdup_printf ("%.*f", digits, spread->mean);
  g_autofree char *half = NULL;
  g_autofree char *sd = NULL;

  if (spread->n < 2)
    return g_steal_pointer (&mean);
  half = g_strdup_printf ("%.*f", digits, spread->half_width);
  sd = g_strdup_printf ("%.*f", digits, spread->sd);
  /* Translators: a mean, its 95 % interval and the standard deviation of one run */
  return g_strdup_printf (_("%s ± %s (sd of one run %s)"), mean, half, sd);
}

static void
print_text (const Probe *probe)
{
  const PlProbeResult *first = &probe->runs[0];
  g_autofree char *absolute = format_spread (&probe->summary.absolute, 3);
  g_autofree char *relative = format_spread (&probe->summary.relative, 4);
  guint32 last = probe->options.seed + probe->n_runs - 1;
  double chance = pl_probe_chance_mae (first->rows);
  g_autofree char *repeats = NULL;

  printf ("%-34s %s, %u folds\n", _("Protocol:"), protocol_description (probe->options.protocol),
          first->n_folds);
  if (probe->rows_note != NULL)
    printf ("%-34s %s\n", _("Rows:"), probe->rows_note);
  else
    printf ("%-34s %" G_GSIZE_FORMAT "\n", _("Positions:"), first->rows);
  /* Repeats of a probe with no random draw: one run, and said so. */
  if (probe->n_runs > 1 && probe->summary.absolute.n == 1)
    printf ("%-34s %s (%s)%s\n", _("Absolute position, mean abs. error:"), absolute,
            _("interleaved folds draw nothing at random: one run"),
            probe->summary.absolute.mean > chance ? _(", worse than chance") : "");
  else
    printf ("%-34s %s%s\n", _("Absolute position, mean abs. error:"), absolute,
            probe->summary.absolute.mean > chance ? _(", worse than chance") : "");
  /* Translators: "%s (512 pairs)" */
  printf ("%-34s %s (%u pairs)%s\n", _("Relative order, error rate:"), relative, first->n_pairs,
          probe->summary.relative.mean > 0.5 ? _(", worse than chance") : "");
  /* Translators: the probes' chance levels: the middle position predicted for every row, and a coin for the order */
  printf ("%-34s %.3f, %.1f\n", _("Chance (middle position, coin):"), chance, 0.5);
  if (probe->n_runs > 1)
    {
      /* Translators: the seeds of the repeats, e.g. "20 (seeds 0–19), ± the 95 % confidence interval of the mean" */
      repeats = g_strdup_printf (_("%u (seeds %u–%u), ± the 95 %% confidence interval of the mean"),
                                 probe->n_runs, probe->options.seed, last);
      printf ("%-34s %s\n", _("Repeats:"), repeats);
    }
  else
    printf ("%-34s %u\n", _("Seed:"), probe->options.seed);
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

/* The table the probes run on: PE-Study's rows for the paper's protocol on a
 * model's own table (with ROWS_NOTE saying which), else the real positions
 * as the other commands read them. */
static PlMatrix *
read_table (PlModel          *model,
            const char       *rows,
            int               layer,
            PlProbeProtocol   protocol,
            char            **rows_note,
            GError          **error)
{
  PlMatrix *table;

  if (layer == PL_CLI_TABLE_LAYER && !pl_model_require_probe_table (model, error))
    return NULL;
  if (protocol != PL_PROBE_PAPER || rows != NULL || layer != PL_CLI_TABLE_LAYER)
    return pl_cli_read_positions (model, rows, layer, error);
  if (!(table = pl_model_read_paper_positions (model, error)))
    return NULL;
  *rows_note = pl_model_describe_paper_rows (model);
  return table;
}

static void
add_number (JsonBuilder *builder,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (builder, name);
  if (isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

/* "0.2000 (180 pairs)", or "—" for an order no line can show. */
static char *
format_order (double error_rate,
              guint  pairs)
{
  if (!isfinite (error_rate))
    return g_strdup ("—");
  /* Translators: an error rate and the number of pairs it was measured on */
  return g_strdup_printf (_("%.4f (%u pairs)"), error_rate, pairs);
}

/* The probes in two dimensions over a vision transformer's patches: one
 * run, the folds OPTIONS' protocol draws with its seed. */
static int
probe_grid (PlModel              *model,
            const PlProbeOptions *options,
            gboolean              json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) patches = NULL;
  PlGridProbeResult result;
  guint rows, cols;

  if (!pl_cli_read_grid (model, NULL, PL_GRID_RESAMPLE_SIZE, &patches, &rows, &cols, &error))
    return pl_cli_fail (error);
  if (!pl_probe_grid (patches, rows, cols, options, &result, NULL, &error))
    return pl_cli_fail_analysis (model, error);
  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "protocol");
      json_builder_add_string_value (builder, pl_probe_protocol_to_string (options->protocol));
      json_builder_set_member_name (builder, "grid");
      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, rows);
      json_builder_add_int_value (builder, cols);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "n_folds");
      json_builder_add_int_value (builder, result.n_folds);
      json_builder_set_member_name (builder, "seed");
      json_builder_add_int_value (builder, options->seed);
      add_number (builder, "row_mae", result.row_mae);
      add_number (builder, "column_mae", result.column_mae);
      add_number (builder, "along_rows_error", result.along_rows_error);
      add_number (builder, "along_columns_error", result.along_columns_error);
      json_builder_set_member_name (builder, "row_pairs");
      json_builder_add_int_value (builder, result.row_pairs);
      json_builder_set_member_name (builder, "column_pairs");
      json_builder_add_int_value (builder, result.column_pairs);
      json_builder_end_object (builder);
      pl_cli_print_json (builder);
    }
  else
    {
      g_autofree char *along_rows = format_order (result.along_rows_error, result.row_pairs);
      g_autofree char *along_columns = format_order (result.along_columns_error, result.column_pairs);

      printf ("%-34s %s, %u folds, seed %u\n", _("Protocol:"), protocol_description (options->protocol),
              result.n_folds, options->seed);
      /* Translators: the grid of patches, rows × columns */
      printf ("%-34s %u × %u\n", _("Grid:"), rows, cols);
      printf ("%-34s %.3f\n", _("Row, mean abs. error:"), result.row_mae);
      printf ("%-34s %.3f\n", _("Column, mean abs. error:"), result.column_mae);
      printf ("%-34s %s\n", _("Order along rows, error rate:"), along_rows);
      printf ("%-34s %s\n", _("Order along columns, error rate:"), along_columns);
    }
  return PL_CLI_EXIT_OK;
}

int
pl_cli_probe (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autofree char *protocol = NULL;
  g_autofree char *folds = NULL;
  g_autofree char *rows = NULL;
  g_autofree char *dataset = NULL;
  g_autofree PlProbeResult *runs = NULL;
  int layer = PL_CLI_TABLE_LAYER;
  gint64 seed = -1;
  int pairs = 0;
  int repeats = 0;
  gboolean json = FALSE;
  gboolean grid = FALSE;
  g_autofree char *out = NULL;
  g_auto(PlCliFigureOptions) figure = PL_CLI_FIGURE_OPTIONS_INIT;
  Probe probe = { 0 };
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "protocol", 'P', 0, G_OPTION_ARG_STRING, &protocol,
      N_("paper (PE-Study’s code, default), interleaved (fold k = index % 5 == k) or shuffled"), N_("KIND") },
    { "folds", 'f', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &folds, NULL, NULL },
    { "repeats", 'n', 0, G_OPTION_ARG_INT, &repeats,
      N_("Run the random draws N times, seeds 0 … N − 1, and report the mean with its confidence interval (95 %; default 20)"),
      N_("N") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      N_("One run with this seed (as np.random.seed in the paper’s code); with --repeats, the first seed"), N_("S") },
    { "pairs", 'p', 0, G_OPTION_ARG_INT, &pairs,
      N_("Position pairs for the relative-order probe (default: 512 for the paper’s protocol, else enough for the table’s width)"),
      N_("N") },
    { "rows", 'r', 0, G_OPTION_ARG_STRING, &rows, N_("Only positions FIRST to END − 1"), N_("FIRST:END") },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    PL_CLI_LAYER_OPTION (layer),
    { "grid", 'g', 0, G_OPTION_ARG_NONE, &grid,
      N_("A vision transformer’s patches: the regression of each patch’s row and of its column, and the order along rows and along columns (one run)"),
      NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON, with every run’s fold errors"), NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Also draw the results as a table: .png, .svg or .pdf"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — how well a linear probe recovers position (Wang & Chen 2020)"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!pl_cli_figure_parse (context, &figure, &argc, &argv, &error))
    return pl_cli_usage ("probe", error->message);
  if (out != NULL && !pl_cli_figure_is_figure_path (out))
    return pl_cli_usage ("probe", "--out must end in .png, .svg or .pdf");
  if (argc != 2)
    return pl_cli_usage ("probe", "expected one PATH (a file, a folder or builtin:…)");

  pl_probe_options_init (&probe.options);
  if (protocol != NULL && folds != NULL)
    return pl_cli_usage ("probe", "give --protocol only (--folds is its old name)");
  if ((protocol != NULL || folds != NULL) &&
      !pl_probe_protocol_from_string (protocol ? protocol : folds, &probe.options.protocol))
    return pl_cli_usage ("probe", "--protocol must be paper, interleaved or shuffled");
  if (seed < -1 || seed > G_MAXUINT32)
    return pl_cli_usage ("probe", "--seed must be 0 to 4294967295");
  if (pairs != 0 && (pairs < 10 || pairs > 100000))
    return pl_cli_usage ("probe", "--pairs must be 10 to 100000");
  if (repeats < 0 || repeats > 10000)
    return pl_cli_usage ("probe", "--repeats must be 1 to 10000");
  probe.options.seed = seed >= 0 ? (guint32) seed : 0;
  probe.options.n_pairs = (guint) pairs;
  probe.n_runs = repeats > 0 ? (guint) repeats : seed >= 0 ? 1 : PL_PROBE_DEFAULT_REPEATS;
  if ((guint64) probe.options.seed + probe.n_runs - 1 > G_MAXUINT32)
    return pl_cli_usage ("probe", "--seed plus --repeats must stay below 4294967296");

  if (grid && (rows != NULL || dataset != NULL || layer != PL_CLI_TABLE_LAYER || pairs != 0 || repeats != 0 ||
               out != NULL))
    return pl_cli_usage ("probe", "--grid probes every patch of the table once: leave out --rows, --dataset, "
                         "--layer, --pairs, --repeats and --out");
  if (grid)
    {
      if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)))
        return pl_cli_fail (error);
      return probe_grid (model, &probe.options, json);
    }

  runs = g_new0 (PlProbeResult, probe.n_runs);
  probe.runs = runs;
  if (!(model = pl_cli_open_model (argv[1], dataset, table_name, &error)) ||
      !(table = read_table (model, rows, layer, probe.options.protocol, &probe.rows_note, &error)))
    return pl_cli_fail (error);
  if (!pl_probe_repeat (table, &probe.options, probe.n_runs, runs, NULL, &error))
    {
      g_free (probe.rows_note);
      return pl_cli_fail_analysis (model, error);
    }
  pl_probe_summarise_repeats (runs, probe.n_runs, &probe.options, &probe.summary);
  pl_cli_warn_few_pairs ("probe", pl_model_get_name (model), runs[0].n_pairs, 2 * table->cols);
  if (json)
    print_json (&probe);
  else
    print_text (&probe);
  g_free (probe.rows_note);
  if (out != NULL)
    {
      g_autofree char *name = model_name (argv[1]);

      if (!pl_cli_figure_write_probe (&probe.summary, name, out, &figure, &error))
        return pl_cli_fail (error);
    }
  return PL_CLI_EXIT_OK;
}
