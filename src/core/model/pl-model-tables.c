/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* A model's position tables: the encoder's and the decoder's of an
 * encoder–decoder, a vision tower's and a text tower's, DeBERTa's relative
 * and absolute ones, T5's bias tables; which one the views and commands
 * use; and the bias T5 and ALiBi models add to attention scores. */

const char *
pl_table_kind_name (PlTableKind kind)
{
  switch (kind)
    {
    case PL_TABLE_RELATIVE:
      return "relative";
    case PL_TABLE_SINUSOIDAL:
      return "sinusoidal";
    case PL_TABLE_BIAS:
      return "bias";
    case PL_TABLE_ABSOLUTE:
    default:
      return "absolute";
    }
}

static void
table_clear (gpointer data)
{
  PlModelTable *t = data;

  g_free (t->tensor);
  g_free (t->prefix);
}

void
pl_model_add_table (PlModel            *self,
                    const char         *stack,
                    const char         *tensor,
                    guint64             rows,
                    guint64             cols,
                    guint               first_position,
                    PlTableKind         kind,
                    guint               layer,
                    const PlFamilyDesc *desc,
                    const char         *prefix)
{
  PlModelTable t = { 0, };

  if (self->tables == NULL)
    {
      self->tables = g_array_new (FALSE, TRUE, sizeof (PlModelTable));
      g_array_set_clear_func (self->tables, table_clear);
    }
  t.tensor = g_strdup (tensor);
  t.desc = desc;
  t.prefix = g_strdup (prefix ? prefix : "");
  t.info.stack = stack;
  t.info.tensor = t.tensor;
  t.info.rows = (guint) MIN (rows, G_MAXUINT);
  t.info.cols = (guint) MIN (cols, G_MAXUINT);
  t.info.first_position = first_position;
  t.info.n_positions = kind == PL_TABLE_BIAS ? 0 : t.info.rows - MIN (first_position, t.info.rows);
  t.info.kind = kind;
  t.info.layer = layer;
  g_array_append_val (self->tables, t);
}

/* What stack a one-table family's table belongs to. */
static const char *
family_stack (PlModel *self)
{
  switch (self->desc->family)
    {
    case PL_FAMILY_TABLE:
    case PL_FAMILY_ANALYTIC:
      return NULL;
    case PL_FAMILY_GPT2:
    case PL_FAMILY_OPT:
      return "decoder";
    default:
      return self->desc->patch_grid ? "vision" : "encoder";
    }
}

void
pl_model_finish_tables (PlModel *self)
{
  PlTableKind kind = PL_TABLE_ABSOLUTE;

  g_return_if_fail (PL_IS_MODEL (self));

  if (self->tables != NULL)
    return;
  self->tables = g_array_new (FALSE, TRUE, sizeof (PlModelTable));
  g_array_set_clear_func (self->tables, table_clear);
  if (self->position_table == NULL)
    return;
  if (self->has_encoding &&
      (self->encoding.kind == PL_ENCODING_SINUSOIDAL || self->encoding.kind == PL_ENCODING_SINCOS2D))
    kind = PL_TABLE_SINUSOIDAL;
  self->stack = family_stack (self);
  self->table_kind = kind;
  pl_model_add_table (self, self->stack, self->position_table, self->table_rows, self->table_cols,
                      self->first_position, kind, 0, self->desc, self->prefix);
  self->chosen_table = 0;
}

void
pl_model_clear_setup (PlModel *self)
{
  self->desc = pl_family_desc (PL_FAMILY_TABLE);
  g_clear_pointer (&self->prefix, g_free);
  g_clear_pointer (&self->position_table, g_free);
  g_clear_pointer (&self->activation_name, g_free);
  g_clear_pointer (&self->config_problem, g_free);
  g_clear_pointer (&self->grid_problem, g_free);
  self->table_rows = self->table_cols = self->first_position = 0;
  self->hidden = self->embedding = self->n_layers = self->n_heads = self->ffn = self->vocab = 0;
  self->eps = 0;
  self->activation = PL_ACTIVATION_NONE;
  self->pre_ln = self->causal = FALSE;
  self->bos_id = self->eos_id = self->pad_id = -1;
  self->config_problem_code = 0;
  self->grid_rows = self->grid_cols = 0;
  self->has_relpos = self->has_bias = FALSE;
  memset (&self->relpos, 0, sizeof self->relpos);
  self->stack = NULL;
  self->table_kind = PL_TABLE_ABSOLUTE;
}

guint
pl_model_get_n_position_tables (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->tables ? self->tables->len : 0;
}

const PlPositionTableInfo *
pl_model_get_position_table_info (PlModel *self,
                                  guint    index)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (index < pl_model_get_n_position_tables (self), NULL);
  return &g_array_index (self->tables, PlModelTable, index).info;
}

static gboolean
matches (const PlModelTable *t,
         const char         *name)
{
  return g_strcmp0 (t->info.stack, name) == 0 || g_str_equal (pl_table_kind_name (t->info.kind), name) ||
         g_str_equal (t->tensor, name);
}

gboolean
pl_model_select_table (PlModel     *self,
                       const char  *table,
                       GError     **error)
{
  const PlModelTable *t = NULL;
  g_autofree char *base = NULL;
  guint index = 0;

  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  g_return_val_if_fail (table != NULL, FALSE);

  for (guint i = 0; t == NULL && i < pl_model_get_n_position_tables (self); i++)
    if (matches (&g_array_index (self->tables, PlModelTable, i), table))
      t = &g_array_index (self->tables, PlModelTable, index = i);
  if (t == NULL)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < pl_model_get_n_position_tables (self); i++)
        {
          const PlModelTable *e = &g_array_index (self->tables, PlModelTable, i);

          if (e->info.stack != NULL && strstr (names->str, e->info.stack) == NULL)
            g_string_append_printf (names, "%s%s", names->len ? ", " : "", e->info.stack);
        }
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s has no %s table%s%s",
                   self->path ? self->path : self->name, table,
                   names->len ? "; it has: " : " (it has one table or none)", names->str);
      return FALSE;
    }
  /* Nothing to set up again for the table already chosen, but T5's stacks
   * have no table the views open on and always set up. */
  if (index == self->chosen_table && self->position_table != NULL &&
      g_str_equal (self->position_table, t->tensor))
    return TRUE;

  base = g_strdup (t->prefix);
  if (pl_family_relpos_desc (t->desc->family) != NULL)
    {
      const PlFamilyDesc *desc = pl_family_relpos_desc (t->desc->family);
      const char *stack = t->info.stack;

      pl_model_clear_setup (self);
      if (!pl_model_setup_relpos (self, desc, base, stack, error))
        return FALSE;
      /* re-found: setting up does not touch the list */
      t = &g_array_index (self->tables, PlModelTable, index);
      if (t->info.kind != PL_TABLE_BIAS)
        {
          self->position_table = g_strdup (t->tensor);
          self->table_rows = t->info.rows;
          self->table_cols = t->info.cols;
          self->first_position = t->info.first_position;
        }
    }
  else
    {
      const PlTensorInfo *info = pl_checkpoint_find_tensor (self->checkpoint, t->tensor);

      pl_model_clear_setup (self);
      if (info == NULL || !pl_model_setup_recognised (self, t->desc, base, info, error))
        return FALSE;
      t = &g_array_index (self->tables, PlModelTable, index);
    }
  self->stack = t->info.stack;
  self->table_kind = t->info.kind;
  self->chosen_table = index;
  return TRUE;
}

const char *
pl_model_get_stack (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->stack;
}

PlTableKind
pl_model_get_table_kind (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), PL_TABLE_ABSOLUTE);
  return self->table_kind;
}

gboolean
pl_model_has_position_bias (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  return self->has_bias || (self->has_encoding && self->encoding.kind == PL_ENCODING_ALIBI);
}

gboolean
pl_model_get_bias_per_layer (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  return self->desc->family == PL_FAMILY_UMT5;
}

guint
pl_model_get_bias_length (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);

  if (self->has_encoding && self->encoding.kind == PL_ENCODING_ALIBI)
    return MIN (self->encoding.length, PL_POSITION_BIAS_MAX_LENGTH);
  if (!self->has_bias)
    return 0;
  /* T5: the exact buckets, the log-spaced ones and some of the flat part
   * past max_distance; ALiBi: long enough to see the slopes part */
  if (self->desc->family == PL_FAMILY_T5 || self->desc->family == PL_FAMILY_UMT5)
    return MIN (2 * self->relpos.max_distance, PL_POSITION_BIAS_MAX_LENGTH);
  return MIN (MAX (self->relpos.max_input, 1), 256);
}

static const char *
where (PlModel *self)
{
  return self->checkpoint ? pl_checkpoint_get_path (self->checkpoint) : self->path ? self->path : self->name;
}

/* T5's bias table of LAYER: [n_buckets, heads], checked. */
static PlMatrix *
read_t5_table (PlModel  *self,
               guint     layer,
               GError  **error)
{
  g_autofree char *name = g_strdup_printf ("block.%u.layer.0.SelfAttention.relative_attention_bias.weight",
                                           pl_model_get_bias_per_layer (self) ? layer : 0);
  g_autoptr(PlMatrix) table = pl_model_read_named (self, name, FALSE, FALSE, error);

  if (table == NULL)
    return NULL;
  if (table->rows != self->relpos.n_buckets || (self->n_heads > 0 && table->cols != self->n_heads))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s%s” is %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT ", but config.json says %u buckets and %u "
                   "heads", where (self), self->prefix, name, table->rows, table->cols, self->relpos.n_buckets,
                   self->n_heads);
      return NULL;
    }
  if (!pl_matrix_all_finite (table))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "%s: “%s%s” holds NaN or infinite values",
                   where (self), self->prefix, name);
      return NULL;
    }
  return g_steal_pointer (&table);
}

PlPositionBias *
pl_model_compute_position_bias (PlModel  *self,
                                guint     layer,
                                guint     length,
                                GError  **error)
{
  g_autofree float *slopes = NULL;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!pl_model_has_position_bias (self))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: %s models add no bias to attention scores; position-bias draws T5’s, UMT5’s and the "
                   "ALiBi models’ (BLOOM, MPT, builtin:alibi)", where (self),
                   pl_model_get_family_display_name (self));
      return NULL;
    }
  if (length == 0)
    length = pl_model_get_bias_length (self);
  if (length == 0 || length > PL_POSITION_BIAS_MAX_LENGTH)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "%s: a length of %u tokens; choose 1 to %u",
                   where (self), length, PL_POSITION_BIAS_MAX_LENGTH);
      return NULL;
    }

  if (self->has_encoding)
    {
      g_autofree double *exact = g_new (double, MAX (self->encoding.heads, 1));

      slopes = g_new (float, MAX (self->encoding.heads, 1));
      pl_encoding_alibi_slopes (self->encoding.heads, exact);
      for (guint h = 0; h < self->encoding.heads; h++)
        slopes[h] = (float) exact[h];
      return pl_position_bias_new_alibi (slopes, self->encoding.heads, length, TRUE);
    }
  if (layer >= MAX (self->n_layers, 1))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT, "%s: layer %u does not exist (the %s has %u)",
                   where (self), layer + 1, self->stack ? self->stack : "model", self->n_layers);
      return NULL;
    }
  if (self->n_heads == 0)
    {
      g_set_error_literal (error, PL_ERROR, self->config_problem_code ? self->config_problem_code : PL_ERROR_NOT_FOUND,
                           self->config_problem ? self->config_problem : "the number of heads is not known");
      return NULL;
    }
  switch (self->desc->family)
    {
    case PL_FAMILY_T5:
    case PL_FAMILY_UMT5:
      {
        g_autoptr(PlMatrix) table = read_t5_table (self, layer, error);

        if (table == NULL)
          return NULL;
        return pl_position_bias_new_t5 (table, length, !self->causal, self->relpos.max_distance);
      }
    case PL_FAMILY_BLOOM:
      slopes = g_new (float, self->n_heads);
      pl_alibi_slopes_bloom (self->n_heads, slopes);
      return pl_position_bias_new_alibi (slopes, self->n_heads, length, TRUE);
    case PL_FAMILY_MPT:
      /* HF's MptModel slices the bias of max_seq_len keys: no longer input runs */
      if (length > self->relpos.max_input)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "%s: a length of %u tokens, but MPT’s max_seq_len is %u", where (self), length,
                       self->relpos.max_input);
          return NULL;
        }
      slopes = g_new (float, self->n_heads);
      pl_alibi_slopes_mpt (self->n_heads, self->relpos.alibi_bias_max, slopes);
      return pl_position_bias_new_alibi (slopes, self->n_heads, length, TRUE);
    default:
      g_return_val_if_reached (NULL);
    }
}

guint
pl_model_get_relative_zero_row (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->table_kind == PL_TABLE_RELATIVE ? self->relpos.span : 0;
}

int
pl_model_get_relative_bucket (PlModel *self,
                              guint    row)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->table_kind == PL_TABLE_RELATIVE ? (int) row - (int) self->relpos.span : (int) row;
}

/* "−5", "+5", "0" with a real minus sign. */
static char *
signed_text (gint64 v)
{
  if (v < 0)
    return g_strdup_printf ("−%" G_GINT64_FORMAT, -v);
  return v > 0 ? g_strdup_printf ("+%" G_GINT64_FORMAT, v) : g_strdup ("0");
}

char *
pl_model_describe_relative_row (PlModel *self,
                                guint    row)
{
  const PlRelposSpec *r = &self->relpos;
  g_autofree char *b = NULL;
  g_autofree char *lo_text = NULL;
  g_autofree char *hi_text = NULL;
  guint reach;
  int lo, hi, bucket;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);

  if (self->table_kind != PL_TABLE_RELATIVE)
    return g_strdup_printf ("%u", row);
  reach = MAX (r->max_input, r->max_relative);
  bucket = pl_deberta_row_bucket (row, r->span, r->position_buckets, r->max_relative, reach, &lo, &hi);
  b = signed_text (bucket);
  /* Translators: a row of DeBERTa's table of relative positions: which query − key offsets share it */
  if (lo > hi)
    return g_strdup_printf (_("bucket %s: no offset within %u tokens"), b, reach);
  lo_text = signed_text (lo);
  hi_text = signed_text (hi);
  if (lo == hi && lo == 0)
    return g_strdup (_("bucket 0: i = j, the query itself"));
  if (lo == hi)
    return g_strdup_printf (_("bucket %s: i − j = %s"), b, lo_text);
  return g_strdup_printf (_("bucket %s: i − j from %s to %s"), b, lo_text, hi_text);
}
