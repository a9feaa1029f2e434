/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "pl-application.h"
#include "pl-blas-core.h"
#include "pl-renderer.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PlApplication) app = NULL;

  pl_blas_core_choose (argv);
  pl_renderer_choose ("/dev/dri");
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = pl_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
