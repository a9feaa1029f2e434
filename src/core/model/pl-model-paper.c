/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-probes.h"

/* The rows of a model's table that PE-Study's probe scripts use
 * (MiuLab/PE-Study at 7576cd9): absolute.py line 23 takes GPT-2's first 512
 * rows, lines 29 and 35 BERT's and RoBERTa's whole tables as stored, RoBERTa's
 * two rows before its first position (padding) included; relative.py line 25
 * cuts every table to its first 512 rows. */

static gsize
paper_rows (PlModel *self)
{
  gsize stored = pl_model_get_first_position (self) + pl_model_get_n_positions (self);

  if (pl_model_get_family (self) == PL_FAMILY_GPT2)
    return MIN (stored, PL_PROBE_PAPER_ROWS);
  return stored;
}

gboolean
pl_model_require_probe_table (PlModel  *self,
                              GError  **error)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (pl_model_get_table_kind (self) == PL_TABLE_RELATIVE)
    {
      guint span = pl_model_get_relative_zero_row (self);

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” is a table of relative positions: its rows are buckets −%u … %u of the offset "
                   "i − j between a query and a key, not the positions of tokens, so the probes, which "
                   "predict a row’s position and the order of two rows, do not apply (Similarity and "
                   "Trajectory show it by bucket)", pl_model_get_path (self),
                   pl_model_get_position_table_name (self), span, span > 0 ? span - 1 : 0);
      return FALSE;
    }
  return TRUE;
}

PlMatrix *
pl_model_read_paper_positions (PlModel  *self,
                               GError  **error)
{
  g_autoptr(PlMatrix) table = NULL;
  PlCheckpoint *checkpoint;
  gsize n;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!pl_model_require_probe_table (self, error))
    return NULL;

  checkpoint = pl_model_get_checkpoint (self);
  n = paper_rows (self);
  if (pl_model_get_first_position (self) == 0 || checkpoint == NULL)
    {
      if (!(table = pl_model_read_positions (self, error)))
        return NULL;
      return table->rows > n ? pl_matrix_slice_rows (table, 0, n) : g_steal_pointer (&table);
    }

  table = pl_checkpoint_read_rows (checkpoint, pl_model_get_position_table_name (self), 0, n, error);
  if (table == NULL)
    return NULL;
  /* The padding rows are read as they are (RoBERTa's row 1 is zeros); only
   * values a regression cannot take are refused. */
  for (gsize i = 0; i < table->rows; i++)
    for (gsize j = 0; j < table->cols; j++)
      if (!isfinite (pl_matrix_get (table, i, j)))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES,
                       "%s: row %" G_GSIZE_FORMAT " of “%s” holds %s",
                       pl_checkpoint_get_path (checkpoint), i,
                       pl_model_get_position_table_name (self),
                       isnan (pl_matrix_get (table, i, j)) ? "NaN" : "an infinity");
          return NULL;
        }
  return g_steal_pointer (&table);
}

gboolean
pl_model_require_paper_table (PlModel  *self,
                              GError  **error)
{
  guint rows, cols;

  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (!pl_model_require_probe_table (self, error))
    return FALSE;
  if (pl_model_get_grid (self, &rows, &cols))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: its positions form a grid of %u × %u image patches; the paper’s Figure 1 and Table 1 "
                   "read the one-dimensional position table of a language model (the Probes view has probes "
                   "for a grid)", pl_model_get_path (self), rows, cols);
      return FALSE;
    }
  if (pl_model_get_position_table_name (self) == NULL && pl_model_get_encoding (self) == NULL)
    {
      /* Reading says why there is no table (a rotary model, an activations file). */
      g_autoptr(PlMatrix) table = pl_model_read_positions (self, error);

      return table != NULL;
    }
  return TRUE;
}

char *
pl_model_describe_paper_rows (PlModel *self)
{
  gsize stored = pl_model_get_first_position (self) + pl_model_get_n_positions (self);
  gsize n = paper_rows (self), relative = MIN (n, PL_PROBE_PAPER_ROWS);
  guint first = pl_model_get_first_position (self);
  g_autofree char *absolute = NULL;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);

  if (n < stored)
    /* Translators: which rows of the position table the paper's absolute-position probe uses */
    absolute = g_strdup_printf (_("rows 0–%zu of %zu, as the paper’s code keeps GPT-2’s first %zu"),
                                n - 1, stored, n);
  else if (first > 0)
    absolute = g_strdup_printf (_("all %zu rows as stored, rows 0–%u before the first position included "
                                  "as the paper’s code includes RoBERTa’s"),
                                n, first - 1);
  else
    absolute = g_strdup_printf (_("all %zu rows"), n);

  if (relative < n)
    /* Translators: %s is the sentence above; the relative-order probe's rows follow */
    return g_strdup_printf (_("absolute probe: %s; relative probe: rows 0–%zu"), absolute, relative - 1);
  return g_strdup_printf (_("absolute probe: %s; relative probe: the same rows"), absolute);
}
