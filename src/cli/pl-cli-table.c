/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-attention-stats.h"
#include "pl-model.h"

/* "A:B" → first = A, count = B − A over N rows; A or B may be left out
 * ("100:", ":128"). Half-open, as a Python slice. */
gboolean
pl_cli_parse_rows (const char  *spec,
                   gsize        n,
                   gsize       *first,
                   gsize       *count,
                   GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (spec, ":", -1);
  guint64 a = 0, b = n;

  if (g_strv_length (parts) != 2 ||
      (parts[0][0] != '\0' && !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT32, &a, NULL)) ||
      (parts[1][0] != '\0' && !g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXUINT32, &b, NULL)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--rows “%s”: expected FIRST:END, e.g. 0:128 (END not included)", spec);
      return FALSE;
    }
  if (a >= b || b > n)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--rows %s: the table has %" G_GSIZE_FORMAT " positions, choose 0 ≤ FIRST < END ≤ %"
                   G_GSIZE_FORMAT, spec, n, n);
      return FALSE;
    }
  *first = a;
  *count = b - a;
  return TRUE;
}

/* Random inputs averaged for a layer's positional component, as in the window. */
#define LAYER_SEQUENCES 8
#define LAYER_SEED      1

gboolean
pl_cli_count_positions (PlModel     *model,
                        const char  *rows,
                        gsize       *n,
                        GError     **error)
{
  gsize first;

  /* A layer's positional component has a row per position too. */
  *n = pl_model_get_n_positions (model);
  /* No table: reading it says why. */
  if (rows == NULL || *n == 0)
    return TRUE;
  return pl_cli_parse_rows (rows, *n, &first, n, error);
}

PlMatrix *
pl_cli_read_positions (PlModel     *model,
                       const char  *rows,
                       int          layer,
                       GError     **error)
{
  g_autoptr(PlMatrix) positions = NULL;
  gsize first, count;

  if (layer > (int) pl_model_get_n_layers (model))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--layer %d: %s has %u layers (0 is the embedding output)",
                   layer, pl_model_get_name (model), pl_model_get_n_layers (model));
      return NULL;
    }
  if (layer >= 0)
    positions = pl_attention_positional_component (model, (guint) layer, LAYER_SEQUENCES, 0, LAYER_SEED,
                                                   NULL, NULL, NULL, error);
  else
    positions = pl_model_read_positions (model, error);
  if (positions == NULL)
    return NULL;
  if (rows == NULL)
    return g_steal_pointer (&positions);
  if (!pl_cli_parse_rows (rows, positions->rows, &first, &count, error))
    return NULL;
  return pl_matrix_slice_rows (positions, first, count);
}

int
pl_cli_fail_analysis (PlModel      *model,
                      GError       *error)
{
  /* The analyses know tables, not files: say which file the table is of. */
  g_prefix_error (&error, "%s: ", pl_model_get_path (model));
  return pl_cli_fail (error);
}
