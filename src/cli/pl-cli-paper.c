/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-paper.h"

/* The paper's Figure 1 and Table 1 for the models given (the demos and the
 * sinusoid of the paper's size when none are), as PDF and PNG in one folder. */

static const char * const default_models[] = {
  "mini-gpt2", "mini-bert", "mini-roberta", "builtin:sinusoidal:512x768", NULL
};

int
pl_cli_paper (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(PlPaper) paper = NULL;
  g_autofree char *out = NULL;
  g_autofree char *width = NULL;
  double font_size = 0;
  const char * const *paths;
  gint64 seed = 0;
  int repeats = PL_PROBE_DEFAULT_REPEATS;
  PlPaperOptions options;
  const GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      N_("Folder for figure1.pdf, figure1.png, table1.pdf and table1.png (made when missing)"), N_("DIR") },
    { "repeats", 'n', 0, G_OPTION_ARG_INT, &repeats,
      N_("Runs of the paper’s probes, seeds S … S + N − 1 (default 20)"), N_("N") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, N_("The first seed (default 0)"), N_("S") },
    { "width", 0, 0, G_OPTION_ARG_STRING, &width,
      N_("The figures’ width: 3.3in (a column), 7in (a page, the default), slide (10 × 5.625 in), or a length "
         "like 300pt, 5in or 8.5cm"), N_("WIDTH") },
    { "font-size", 0, 0, G_OPTION_ARG_DOUBLE, &font_size,
      N_("Their text size in points (default: the width’s, else 10)"), N_("PT") },
    { NULL }
  };

  context = g_option_context_new (_("[PATH…] — Figure 1 and Table 1 of Wang & Chen (2020) for these models"));
  g_option_context_set_description (context, _("Without PATH: mini-gpt2, mini-bert, mini-roberta and "
                                               "builtin:sinusoidal:512x768."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return pl_cli_usage ("paper", error->message);
  if (out == NULL)
    return pl_cli_usage ("paper", "--out DIR is needed: the folder for the figures");
  if (repeats < 1 || repeats > 10000)
    return pl_cli_usage ("paper", "--repeats must be 1 to 10000");
  if (seed < 0 || seed + repeats - 1 > G_MAXUINT32)
    return pl_cli_usage ("paper", "--seed must be 0 or more, and the last seed below 4294967296");

  paths = argc > 1 ? (const char * const *) argv + 1 : default_models;
  for (guint i = 0; paths[i] != NULL; i++)
    {
      PlModel *model = pl_cli_open_model (paths[i], NULL, NULL, &error);

      if (model == NULL)
        return pl_cli_fail (error);
      g_ptr_array_add (models, model);
    }

  pl_paper_options_init (&options);
  options.n_repeats = (guint) repeats;
  options.first_seed = (guint32) seed;
  if (width != NULL || font_size != 0)
    {
      if (!pl_cli_figure_page (width != NULL ? width : "7in", font_size, &options.width_pt, &options.height_pt,
                               &options.font_size, &error))
        return pl_cli_usage ("paper", error->message);
    }
  if (!(paper = pl_paper_compute ((PlModel **) models->pdata, models->len, &options, NULL, NULL, NULL, &error)) ||
      !pl_paper_write (paper, out, &error))
    return pl_cli_fail (error);

  /* Table 1 on the terminal: the name padded by characters, not bytes. */
  printf ("%-28s %-22s %s\n", "", _("Absolute position (MAE)"), _("Relative order (error rate)"));
  for (guint i = 0; i < models->len; i++)
    {
      const PlProbeSummary *s = pl_paper_get_summary (paper, i);
      const char *name = pl_model_get_name (g_ptr_array_index (models, i));
      glong pad = MAX (0, 28 - g_utf8_strlen (name, -1));
      guint n_pairs;
      gsize n_features;

      printf ("%s%*s %9.3f ± %-8.3f  %9.4f ± %.4f\n", name, (int) pad, "",
              s->absolute.mean, s->absolute.half_width, s->relative.mean, s->relative.half_width);
      pl_paper_get_pairs (paper, i, &n_pairs, &n_features);
      pl_cli_warn_few_pairs ("paper", name, n_pairs, n_features);
    }
  /* Translators: where the figures went */
  printf (_("Wrote figure1.pdf, figure1.png, table1.pdf and table1.png in %s\n"), out);
  return PL_CLI_EXIT_OK;
}
