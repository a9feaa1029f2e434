/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-model-isolated.h"

/* Opens a file as the window would (pl_model_check_readable): exit 0 when
 * the window can show it, 2 with the reason otherwise. The app runs this in
 * a process of its own before it lets a file into its libhdf5
 * (pl_model_open_isolated), and reads the PlError code from standard output. */
int
pl_cli_check (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autofree char *dataset = NULL;
  const GOptionEntry entries[] = {
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — can Poslens open this checkpoint?"));
  g_option_context_set_description (context,
    _("Opens PATH as the window does: reads its position table whole and checks its values\n"
      "(no NaN, no infinity), or finds a 2-D table to choose when\n"
      "none is recognised, then reads the first row of every other dataset Poslens reads.\n"
      "Exit 0 when the window can show it, 2 with the reason on one line otherwise."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return pl_cli_usage ("check", error->message);
  if (argc != 2)
    return pl_cli_usage ("check", _("expected one PATH (a file or a folder)"));

  model = pl_cli_open_model (argv[1], dataset, NULL, &error);
  if (model == NULL || !pl_model_check_readable (model, &error))
    {
      if (error->domain == PL_ERROR)
        printf ("error-code %d\n", error->code);
      return pl_cli_fail (error);
    }
  return PL_CLI_EXIT_OK;
}
