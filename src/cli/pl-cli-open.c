/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "pl-cli.h"
#include "pl-error.h"

/* Debian 12's libhdf5 (1.10.8) dereferences NULL or freed memory on some
 * damaged files (tests/fuzz/known-libhdf5/). The window opens files in a
 * `poslens-cli check` process of its own and says why when it dies; run by
 * hand, the command line would end with a bare "Segmentation fault". So,
 * once a file is named, a crash first prints one line naming it, then the
 * handler that was there before (the default, or a sanitizer's) takes the
 * signal: returning from the handler repeats the faulting access. */

static const int crash_signals[] = { SIGSEGV, SIGBUS };

static char             crash_line[1024];
static gsize            crash_line_length;
static struct sigaction previous[G_N_ELEMENTS (crash_signals)];

static void
on_crash (int signal)
{
  for (guint i = 0; i < G_N_ELEMENTS (crash_signals); i++)
    if (crash_signals[i] == signal)
      {
        /* write() is async-signal-safe; the line was formatted beforehand.
         * Whether it got out or not, the previous handler comes back. */
        ssize_t written = write (STDERR_FILENO, crash_line, crash_line_length);

        (void) written;
        sigaction (signal, &previous[i], NULL);
        return;
      }
}

static void
note_file (const char *path)
{
  static gboolean installed;
  g_autofree char *shown = pl_escape_text (path, -1);
  g_autofree char *line = g_strdup_printf (_("poslens-cli: %s: crashed while reading it; the file is "
                                             "probably damaged (some damaged HDF5 files crash libhdf5 1.10)"),
                                           shown);

  /* One line (the path escaped), cut to the buffer (a long path keeps its
   * start). */
  crash_line_length = MIN (strlen (line), sizeof crash_line - 2);
  memcpy (crash_line, line, crash_line_length);
  crash_line[crash_line_length++] = '\n';

  if (!installed)
    {
      struct sigaction action = { 0 };

      action.sa_handler = on_crash;
      sigemptyset (&action.sa_mask);
      for (guint i = 0; i < G_N_ELEMENTS (crash_signals); i++)
        sigaction (crash_signals[i], &action, &previous[i]);
      installed = TRUE;
    }
}

PlModel *
pl_cli_open_model (const char  *path,
                   const char  *dataset,
                   const char  *table,
                   GError     **error)
{
  g_autoptr(PlModel) model = NULL;

  note_file (path);
  if (!(model = pl_model_open (path, dataset, NULL, error)))
    return NULL;
  if (table != NULL && !pl_model_select_table (model, table, error))
    return NULL;
  return g_steal_pointer (&model);
}
