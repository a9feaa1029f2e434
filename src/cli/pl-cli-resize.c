/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-grid.h"
#include "pl-matrix-io.h"

/* A vision transformer's table at another grid, as Hugging Face's
 * interpolate_pos_encoding gives it: the special rows as they are, then the
 * patches resized bicubically. */

gboolean
pl_cli_parse_grid (const char  *spec,
                   guint       *rows,
                   guint       *cols,
                   GError     **error)
{
  guint64 r = 0, c = 0;
  char *end = NULL;

  if (spec != NULL && g_ascii_isdigit (spec[0]))
    {
      r = g_ascii_strtoull (spec, &end, 10);
      if (*end == 'x' && g_ascii_isdigit (end[1]))
        c = g_ascii_strtoull (end + 1, &end, 10);
    }
  if (end == NULL || *end != '\0' || r == 0 || c == 0 || r > PL_GRID_MAX_SIDE || c > PL_GRID_MAX_SIDE)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "the grid must be ROWSxCOLS, each 1 to %d, like 24x24, not “%s”", PL_GRID_MAX_SIDE,
                   spec != NULL ? spec : "");
      return FALSE;
    }
  *rows = (guint) r;
  *cols = (guint) c;
  return TRUE;
}

gboolean
pl_cli_read_grid (PlModel         *model,
                  const char      *resize,
                  PlGridResample   resample,
                  PlMatrix       **patches,
                  guint           *rows,
                  guint           *cols,
                  GError         **error)
{
  g_autoptr(PlMatrix) read = NULL;
  guint new_rows, new_cols;

  if ((resize != NULL && !pl_cli_parse_grid (resize, &new_rows, &new_cols, error)) ||
      !pl_model_require_grid (model, rows, cols, error) ||
      !(read = pl_model_read_positions (model, error)))
    return FALSE;
  if (resize == NULL)
    {
      *patches = g_steal_pointer (&read);
      return TRUE;
    }
  if (!(*patches = pl_grid_interpolate (read, *rows, *cols, new_rows, new_cols, resample, NULL, error)))
    {
      g_prefix_error (error, "%s: ", pl_model_get_path (model));
      return FALSE;
    }
  *rows = new_rows;
  *cols = new_cols;
  return TRUE;
}

int
pl_cli_resize (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) patches = NULL;
  g_autoptr(PlMatrix) special = NULL;
  g_autoptr(PlMatrix) table = NULL;
  g_autofree char *grid = NULL;
  g_autofree char *resample_name = NULL;
  g_autofree char *out = NULL;
  PlGridResample resample = PL_GRID_RESAMPLE_SIZE;
  PlMatrixFormat format;
  guint rows, cols, new_rows, new_cols, k;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &grid, N_("The new grid of patches"), N_("ROWSxCOLS") },
    { "resample", 0, 0, G_OPTION_ARG_STRING, &resample_name,
      N_("size (default: F.interpolate with size=, transformers 4.45 and later) or tenth (scale_factor with +0.1, before 4.45 and DINO)"),
      N_("HOW") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write /table (the special rows, then the patches row by row) here (.h5, .csv, .npy)"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — a vision transformer’s position table at another grid of patches"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return pl_cli_usage ("resize", error->message);
  if (argc != 2)
    return pl_cli_usage ("resize", "expected one PATH (a vision transformer’s file or folder, or builtin:sincos2d:…)");
  if (grid == NULL || out == NULL)
    return pl_cli_usage ("resize", "--grid ROWSxCOLS and --out FILE are required");
  if (!pl_cli_parse_grid (grid, &new_rows, &new_cols, &error))
    return pl_cli_usage ("resize", error->message);
  if (resample_name != NULL && !pl_grid_resample_from_string (resample_name, &resample))
    return pl_cli_usage ("resize", "--resample must be size or tenth");
  if (!pl_matrix_format_from_path (out, &format, &error))
    return pl_cli_usage ("resize", error->message);

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)) ||
      !pl_cli_read_grid (model, grid, resample, &patches, &rows, &cols, &error))
    return pl_cli_fail (error);
  k = pl_model_get_n_special_rows (model);
  if (k > 0 && !(special = pl_model_read_special_rows (model, &error)))
    return pl_cli_fail (error);

  table = pl_matrix_new (k + patches->rows, patches->cols);
  if (k > 0)
    memcpy (table->data, special->data, (gsize) k * special->cols * sizeof (float));
  memcpy (table->data + (gsize) k * table->cols, patches->data, patches->rows * patches->cols * sizeof (float));
  {
    const PlNamedMatrix datasets[] = { { "/table", table, FALSE } };

    if (!pl_matrix_io_write (out, datasets, G_N_ELEMENTS (datasets), &error))
      return pl_cli_fail (error);
  }
  return PL_CLI_EXIT_OK;
}
