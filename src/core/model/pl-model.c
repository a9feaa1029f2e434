/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-checkpoint-gguf.h"
#include "pl-encodings.h"
#include "pl-error.h"
#include "pl-model-private.h"
#include "pl-ollama-store.h"
#include "pl-paths.h"


G_DEFINE_FINAL_TYPE (PlModel, pl_model, G_TYPE_OBJECT)

static void
normalized_name_free (gpointer data)
{
  PlNormalizedName *n = data;

  g_free (n->stored);
  g_free (n);
}

static void
pl_model_finalize (GObject *object)
{
  PlModel *self = PL_MODEL (object);

  g_clear_object (&self->checkpoint);
  g_clear_object (&self->activations);
  g_clear_pointer (&self->table, pl_matrix_unref);
  g_clear_pointer (&self->normalized, g_hash_table_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->prefix, g_free);
  g_clear_pointer (&self->position_table, g_free);
  g_clear_pointer (&self->activation_name, g_free);
  g_clear_pointer (&self->config_problem, g_free);
  g_clear_pointer (&self->grid_problem, g_free);
  g_clear_pointer (&self->layer_windows, g_free);
  g_clear_pointer (&self->rope_factors, g_free);
  g_clear_pointer (&self->own_config, json_object_unref);
  g_clear_pointer (&self->layer_experts, g_free);
  g_clear_pointer (&self->tables, g_array_unref);
  g_clear_pointer (&self->base_prefix, g_free);

  G_OBJECT_CLASS (pl_model_parent_class)->finalize (object);
}

static void
pl_model_class_init (PlModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pl_model_finalize;
}

static void
pl_model_init (PlModel *self)
{
  self->desc = pl_family_desc (PL_FAMILY_TABLE);
  self->bos_id = self->eos_id = self->pad_id = -1;
}

/* The folder's name for HF layouts (…/bert-base-uncased/model.safetensors),
 * the file's otherwise. */
static char *
name_for_path (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  static const char * const generic[] = {
    "model.safetensors", "model.safetensors.index.json", "tf_model.h5",
    "tf_model.h5.index.json", "model.h5",
  };

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_steal_pointer (&base);
  for (guint i = 0; i < G_N_ELEMENTS (generic); i++)
    if (g_str_equal (base, generic[i]))
      {
        g_autofree char *dir = g_path_get_dirname (path);
        g_autofree char *abs = g_canonicalize_filename (dir, NULL);

        return g_path_get_basename (abs);
      }
  return g_steal_pointer (&base);
}

static void
build_normalized (PlModel *self)
{
  guint n = pl_checkpoint_get_n_tensors (self->checkpoint);

  self->normalized = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, normalized_name_free);
  for (guint i = 0; i < n; i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (self->checkpoint, i);
      PlNormalizedName *entry = g_new0 (PlNormalizedName, 1);
      char *norm = pl_model_normalize_name (info->name, &entry->kernel);

      entry->stored = g_strdup (info->name);
      if (g_hash_table_contains (self->normalized, norm))
        {
          g_free (norm);
          normalized_name_free (entry);
          continue;
        }
      g_hash_table_insert (self->normalized, norm, entry);
    }
}

/* A table is [rows, width], or [1, rows, width] as ViT's nn.Parameter. */
static void
set_table (PlModel            *self,
           const PlTensorInfo *info)
{
  guint64 rows, cols;

  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  self->position_table = g_strdup (info->name);
  self->table_rows = (guint) MIN (rows, G_MAXUINT);
  self->table_cols = (guint) MIN (cols, G_MAXUINT);
}

static gboolean
check_table (PlModel             *self,
             const PlTensorInfo  *info,
             GError             **error)
{
  const char *path = pl_checkpoint_get_path (self->checkpoint);
  g_autoptr(GString) shape = g_string_new (NULL);
  guint64 rows, cols;

  for (guint i = 0; i < info->rank; i++)
    g_string_append_printf (shape, "%s%" G_GUINT64_FORMAT, i ? "×" : "", info->shape[i]);
  if (info->rank != 2 && !(info->rank == 3 && info->shape[0] == 1))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” is %u-D (%s); a position table must be 2-D (positions × width, "
                   "or 1 × positions × width)",
                   path, info->name, info->rank, info->rank ? shape->str : "a scalar");
      return FALSE;
    }
  pl_tensor_info_get_matrix_shape (info, &rows, &cols);
  if (info->dtype == PL_DTYPE_OTHER)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” has dtype %s; a position table must hold floats",
                   path, info->name, info->dtype_name);
      return FALSE;
    }
  if (rows == 0 || cols == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” is %s, an empty table", path, info->name, shape->str);
      return FALSE;
    }
  if (info->repeats)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: “%s” is %s, but repeats the values it stores (a view with a stride of 0): its rows are "
                   "not positions of their own, so it is not a position table", path, info->name, shape->str);
      return FALSE;
    }
  if (rows > G_MAXINT || cols > G_MAXINT)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s: “%s” is %s, too large to be a position table", path, info->name, shape->str);
      return FALSE;
    }
  return TRUE;
}

/* Without a known architecture, a 2-D table whose name says "position"
 * (or the only 2-D table there is) is taken as the position table. */
static const PlTensorInfo *
guess_table (PlCheckpoint *checkpoint)
{
  const PlTensorInfo *only = NULL;
  guint n_tables = 0;

  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_autofree char *lower = NULL;

      if (!pl_tensor_info_is_table (info))
        continue;
      n_tables++;
      only = info;
      lower = g_ascii_strdown (info->name, -1);
      if (strstr (lower, "position") != NULL || strstr (lower, "pos_emb") != NULL ||
          strstr (lower, "wpe") != NULL)
        return info;
    }
  return n_tables == 1 ? only : NULL;
}

static PlModel *
open_builtin (const char  *spec,
              GError     **error)
{
  g_autoptr(PlModel) self = g_object_new (PL_TYPE_MODEL, NULL);
  g_autoptr(GError) local_error = NULL;

  if (!pl_encoding_spec_parse (spec, &self->encoding, error))
    return NULL;
  self->has_encoding = TRUE;
  self->desc = pl_family_desc (PL_FAMILY_ANALYTIC);
  self->name = pl_encoding_spec_describe (&self->encoding);
  self->path = g_strdup (spec);
  self->n_heads = self->encoding.kind == PL_ENCODING_ALIBI ? self->encoding.heads : 0;
  /* ALiBi and "none" have no table; the model still stands for them. */
  self->table = pl_encoding_table (&self->encoding, &local_error);
  if (self->table != NULL)
    {
      self->position_table = g_strdup (spec);
      self->table_rows = self->table->rows;
      self->table_cols = self->table->cols;
      self->hidden = self->table->cols;
    }
  if (self->encoding.kind == PL_ENCODING_SINCOS2D)
    {
      self->grid_rows = self->encoding.rows;
      self->grid_cols = self->encoding.cols;
    }
  pl_model_finish_tables (self);
  return g_steal_pointer (&self);
}

PlModel *
pl_model_open_plain_table (PlModel             *self,
                           const PlTensorInfo  *info,
                           GError             **error)
{
  g_autoptr(PlModel) owned = self;
  const char *slash = strrchr (info->name, '/');
  char *named;

  if (!check_table (self, info, error))
    return NULL;
  /* Recognition may have set these; a plain table has no architecture. */
  self->desc = pl_family_desc (PL_FAMILY_TABLE);
  g_clear_pointer (&self->prefix, g_free);
  set_table (self, info);
  self->hidden = self->table_cols;
  named = g_strdup_printf ("%s · %s", self->name, slash ? slash + 1 : info->name);
  g_free (self->name);
  self->name = named;
  return g_steal_pointer (&owned);
}

/* A rotary-position decoder: no position table; its sizes from the token
 * embedding and the feed-forward output, the rest from config.json. */
static PlModel *
open_decoder (PlModel             *self,
              const PlFamilyDesc  *desc,
              GError             **error)
{
  g_autoptr(PlModel) owned = self;
  const PlTensorInfo *tok, *down;
  gboolean kernel = FALSE;

  self->desc = desc;
  self->causal = desc->causal;
  self->pre_ln = desc->pre_ln;
  self->n_layers = pl_model_count_layers (self);
  tok = pl_model_find_role (self, PL_WEIGHT_TOKEN_EMBEDDING, 0, NULL);
  if (tok == NULL || tok->rank != 2 || tok->shape[0] == 0 || tok->shape[1] == 0 ||
      tok->shape[0] > G_MAXINT || tok->shape[1] > G_MAXINT)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the %s token embedding is not a 2-D table",
                   pl_checkpoint_get_path (self->checkpoint), desc->display_name);
      return NULL;
    }
  self->vocab = (guint) tok->shape[0];
  self->hidden = self->embedding = (guint) tok->shape[1];
  /* nn.Linear [out = hidden, in = ffn] */
  down = pl_model_find_role (self, PL_WEIGHT_FFN_OUT_WEIGHT, 0, &kernel);
  if (down != NULL && down->rank == 2)
    self->ffn = (guint) MIN (kernel ? down->shape[0] : down->shape[1], G_MAXUINT);
  pl_model_read_decoder_config (self);
  return g_steal_pointer (&owned);
}

/* "ollama:NAME": the GGUF blob of Ollama's model NAME, named so. */
static PlModel *
open_ollama (const char  *path,
             const char  *dataset,
             GError     **error)
{
  g_autoptr(PlOllamaModel) found = pl_ollama_store_find (NULL, path, error);
  PlCheckpoint *checkpoint;
  PlModel *self;

  if (found == NULL || !(checkpoint = pl_checkpoint_open (found->blob, error)))
    return NULL;
  if (!PL_IS_CHECKPOINT_GGUF (checkpoint))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "Ollama model %s: its blob %s is not a GGUF file",
                   found->name, found->blob);
      g_object_unref (checkpoint);
      return NULL;
    }
  if (!(self = pl_model_open_checkpoint (checkpoint, path, dataset, error)))
    return NULL;
  if (dataset == NULL)
    {
      g_free (self->name);
      self->name = g_strdup (found->name);
    }
  return self;
}

PlModel *
pl_model_open (const char    *path,
               const char    *dataset,
               GCancellable  *cancellable,
               GError       **error)
{
  PlCheckpoint *checkpoint;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (path[0] == '\0')
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "The path is empty: name a checkpoint file or folder");
      return NULL;
    }
  if (g_str_has_prefix (path, "builtin:"))
    return open_builtin (path, error);
  if (g_str_has_prefix (path, PL_OLLAMA_PREFIX))
    return open_ollama (path, dataset, error);

  /* "mini-gpt2" on the command line: the shipped demo, unless a file of
   * that name is here. */
  if (strchr (path, G_DIR_SEPARATOR) == NULL && !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *demo = g_build_filename (pl_paths_get_demo_dir (), path, NULL);

      if (g_file_test (demo, G_FILE_TEST_IS_DIR))
        return pl_model_open (demo, dataset, cancellable, error);
    }

  checkpoint = pl_checkpoint_open (path, error);
  if (checkpoint == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_object_unref (checkpoint);
      return NULL;
    }
  return pl_model_open_checkpoint (checkpoint, path, dataset, error);
}

gboolean
pl_model_setup_recognised (PlModel             *self,
                           const PlFamilyDesc  *desc,
                           const char          *prefix,
                           const PlTensorInfo  *table,
                           GError             **error)
{
  const PlTensorInfo *q, *tok, *ffn;
  gboolean kernel = FALSE;

  self->desc = desc;
  if (self->prefix != prefix)
    {
      g_free (self->prefix);
      self->prefix = g_strdup (prefix);
    }
  if (!check_table (self, table, error))
    return FALSE;
  set_table (self, table);
  self->causal = self->desc->causal;
  self->pre_ln = self->desc->pre_ln;
  self->first_position = self->desc->first_position;
  self->n_layers = pl_model_count_layers (self);

  /* Hidden size from the query projection's input when there is one:
   * ALBERT and small ELECTRAs embed narrower than they compute. */
  q = pl_model_find_role (self, PL_WEIGHT_Q_WEIGHT, 0, &kernel);
  if (q != NULL && q->rank == 2)
    self->hidden = (guint) ((kernel || self->desc->conv1d) ? q->shape[0] : q->shape[1]);
  else
    self->hidden = self->table_cols;
  tok = pl_model_find_role (self, PL_WEIGHT_TOKEN_EMBEDDING, 0, NULL);
  if (tok != NULL && tok->rank == 2)
    {
      self->vocab = (guint) MIN (tok->shape[0], G_MAXUINT);
      self->embedding = (guint) MIN (tok->shape[1], G_MAXUINT);
    }
  else
    self->embedding = self->table_cols;
  ffn = pl_model_find_role (self, PL_WEIGHT_FFN_IN_WEIGHT, 0, &kernel);
  if (ffn != NULL && ffn->rank == 2)
    self->ffn = (guint) ((kernel || self->desc->conv1d) ? ffn->shape[1] : ffn->shape[0]);

  pl_model_read_config (self);
  if (self->first_position >= self->table_rows)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the position table “%s” has %u rows, but positions start at row %u",
                   pl_checkpoint_get_path (self->checkpoint), self->position_table,
                   self->table_rows, self->first_position);
      return FALSE;
    }
  pl_model_read_grid (self);
  return TRUE;
}

/* The listed table named DATASET, chosen; FALSE when none is. */
static gboolean
select_listed (PlModel    *self,
               const char *dataset)
{
  for (guint i = 0; i < pl_model_get_n_position_tables (self); i++)
    if (g_str_equal (pl_model_get_position_table_info (self, i)->tensor, dataset))
      return pl_model_select_table (self, dataset, NULL);
  return FALSE;
}

static PlModel *
open_checkpoint (PlCheckpoint  *checkpoint,
                 const char    *path,
                 const char    *dataset,
                 GError       **error)
{
  g_autoptr(PlModel) self = NULL;
  const PlFamilyDesc *desc = NULL;
  const PlTensorInfo *table = NULL;
  const PlTensorInfo *info;
  gboolean recognised, rotary;
  const char *model_type;

  g_return_val_if_fail (PL_IS_CHECKPOINT (checkpoint), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PL_TYPE_MODEL, NULL);
  self->checkpoint = checkpoint;
  self->path = g_strdup (path);
  self->name = name_for_path (path);

  if (g_strcmp0 (pl_checkpoint_get_format (checkpoint), PL_ACTIVATIONS_FORMAT) == 0 && dataset == NULL)
    return pl_model_open_activations (g_steal_pointer (&self), error);

  /* config.json names the architecture: one Poslens does not know is
   * refused by that name rather than guessed from tensor names it may share
   * with another (Gemma 2's and Qwen3's are Llama's). A named dataset is
   * still opened as a plain table. */
  model_type = pl_family_config_model_type (checkpoint);
  if (model_type != NULL && dataset == NULL && !pl_family_knows_model_type (model_type))
    {
      g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (checkpoint));
      g_autofree char *known = pl_family_list_model_types ();

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s/config.json: model_type “%s” is an architecture Poslens does not know (it knows %s); "
                   "--dataset NAME opens one of its tensors as a plain table", dir, model_type, known);
      return NULL;
    }

  build_normalized (self);
  if (PL_IS_CHECKPOINT_GGUF (checkpoint))
    {
      /* its metadata names the architecture; a named dataset is a plain table */
      if (!pl_model_gguf_recognise (self, &desc, &table, dataset == NULL ? error : NULL) && dataset == NULL)
        return NULL;
      rotary = desc != NULL && desc->rotary;
      recognised = desc != NULL && !rotary;
    }
  else
    {
      recognised = pl_family_recognise_vision (self->checkpoint, self->normalized, &desc, &self->prefix, &table);
      /* T5, BLOOM, MPT, DeBERTa, the encoder–decoders and CLIP's text tower
       * before the others: BART's and Whisper's tables end as OPT's does. */
      if (!recognised && pl_family_recognise_relpos (self->checkpoint, self->normalized, &desc, &self->prefix))
        {
          g_autofree char *prefix = g_strdup (self->prefix);

          return pl_model_open_relpos (g_steal_pointer (&self), desc, prefix, dataset, error);
        }
      recognised = recognised ||
                   pl_family_recognise (self->checkpoint, self->normalized, &desc, &self->prefix, &table);
      rotary = !recognised && pl_family_recognise_rotary (self->checkpoint, self->normalized, &desc, &self->prefix);
    }

  /* A dataset other than the model's own position table is a plain table;
   * naming the model's own keeps what is known about its rows. */
  if (dataset != NULL)
    {
      info = pl_checkpoint_find_tensor (self->checkpoint, dataset);
      if (info == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                       "%s has no dataset “%s” (links to other files or objects are not followed)",
                       pl_checkpoint_get_path (self->checkpoint), dataset);
          return NULL;
        }
      if (recognised && info != table && desc->family == PL_FAMILY_CLIP_VISION)
        {
          /* the text tower's table of a whole CLIP model */
          if (!pl_model_setup_recognised (self, desc, self->prefix, table, error))
            return NULL;
          pl_model_add_text_tower (self);
          if (select_listed (self, dataset))
            return g_steal_pointer (&self);
          pl_model_clear_setup (self);
        }
      if (!recognised || info != table)
        return pl_model_open_plain_table (g_steal_pointer (&self), info, error);
    }

  if (rotary)
    {
      PlModel *decoder = open_decoder (g_steal_pointer (&self), desc, error);

      if (decoder != NULL && PL_IS_CHECKPOINT_GGUF (checkpoint))
        pl_model_gguf_read_rope_factors (decoder);
      return decoder;
    }

  if (recognised)
    {
      if (!pl_model_setup_recognised (self, desc, self->prefix, table, error))
        return NULL;
      if (desc->family == PL_FAMILY_CLIP_VISION)
        pl_model_add_text_tower (self);
      return g_steal_pointer (&self);
    }

  /* An architecture Poslens does not know: a list of tensors, with a table
   * when one can be told apart by its name. */
  table = guess_table (self->checkpoint);
  if (table != NULL)
    {
      if (!check_table (self, table, error))
        return NULL;
      set_table (self, table);
      self->hidden = self->table_cols;
    }
  return g_steal_pointer (&self);
}

PlModel *
pl_model_open_checkpoint (PlCheckpoint  *checkpoint,
                          const char    *path,
                          const char    *dataset,
                          GError       **error)
{
  PlModel *self = open_checkpoint (checkpoint, path, dataset, error);

  if (self != NULL)
    pl_model_finish_tables (self);
  return self;
}

PlModel *
pl_model_new_for_table (const char *name,
                        PlMatrix   *table)
{
  PlModel *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (table != NULL, NULL);

  self = g_object_new (PL_TYPE_MODEL, NULL);
  self->name = g_strdup (name);
  self->table = pl_matrix_ref (table);
  self->position_table = g_strdup (name);
  self->table_rows = table->rows;
  self->table_cols = table->cols;
  self->hidden = table->cols;
  return self;
}

const char *
pl_model_get_name (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->name;
}

const char *
pl_model_get_path (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->path;
}

PlCheckpoint *
pl_model_get_checkpoint (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->checkpoint;
}

PlFamily
pl_model_get_family (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), PL_FAMILY_TABLE);
  return self->desc->family;
}

const char *
pl_model_get_family_name (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->desc->name;
}

const char *
pl_model_get_family_display_name (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  /* Architecture names stay as they are; "Table" and "Analytic" translate. */
  return g_dgettext (GETTEXT_PACKAGE, self->desc->display_name);
}

guint
pl_model_get_hidden_size (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->hidden;
}

guint
pl_model_get_embedding_size (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->embedding ? self->embedding : self->hidden;
}

guint
pl_model_get_n_layers (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->n_layers;
}

gboolean
pl_model_get_shared_layers (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  return self->desc->shared_layers;
}

gboolean
pl_model_has_forward (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  return self->desc->has_forward && pl_model_get_n_heads (self) > 0;
}

guint
pl_model_get_n_heads (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->n_heads;
}

guint
pl_model_get_ffn_size (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->ffn;
}

guint
pl_model_get_vocab_size (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->vocab;
}

double
pl_model_get_layer_norm_eps (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->eps;
}

PlActivation
pl_model_get_activation (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), PL_ACTIVATION_NONE);
  return self->activation;
}

const char *
pl_model_get_activation_name (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->activation_name;
}

gboolean
pl_model_get_pre_ln (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  return self->pre_ln;
}

gboolean
pl_model_get_causal (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);
  return self->causal;
}

const char *
pl_model_get_position_table_name (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->position_table;
}

guint
pl_model_get_position_table_rows (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->table_rows;
}

guint
pl_model_get_position_table_cols (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->table_cols;
}

guint
pl_model_get_first_position (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  return self->first_position;
}

guint
pl_model_get_n_positions (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), 0);
  if (self->desc->rotary)
    return self->max_positions;
  return self->table_rows - MIN (self->first_position, self->table_rows);
}

int
pl_model_get_bos_id (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), -1);
  return self->bos_id;
}

int
pl_model_get_eos_id (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), -1);
  return self->eos_id;
}

int
pl_model_get_pad_id (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), -1);
  return self->pad_id;
}

const PlEncodingSpec *
pl_model_get_encoding (PlModel *self)
{
  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  return self->has_encoding ? &self->encoding : NULL;
}

/* "position 5 holds NaN", "positions 3 and 7 are all zeros". */
static void
append_rows (GString      *text,
             const GArray *rows,
             guint         first,
             const char   *one,
             const char   *many)
{
  g_autofree char *list = NULL;

  if (rows->len == 0)
    return;
  list = pl_matrix_describe_rows (rows, first);
  if (text->len > 0)
    g_string_append (text, "; ");
  g_string_append_printf (text, "%s %s %s", rows->len == 1 ? "position" : "positions", list,
                          rows->len == 1 ? one : many);
}

/* NaN and infinities are refused, with every row that holds them named (and
 * the zero rows beside them). All-zero rows pass: dot products, distances,
 * PCA and the probes take them; the cosine refuses them itself
 * (pl_similarity_check_rows). */
static gboolean
check_rows (PlModel   *self,
            PlMatrix  *m,
            GError   **error)
{
  const char *where = self->checkpoint ? pl_checkpoint_get_path (self->checkpoint) : self->name;
  g_autoptr(GArray) nan_rows = NULL;
  g_autoptr(GArray) inf_rows = NULL;
  g_autoptr(GArray) zero_rows = NULL;
  g_autoptr(GString) problems = NULL;

  pl_matrix_find_bad_rows (m, &nan_rows, &inf_rows, &zero_rows);
  if (nan_rows->len == 0 && inf_rows->len == 0)
    return TRUE;

  problems = g_string_new (NULL);
  append_rows (problems, nan_rows, 0, "holds NaN", "hold NaN");
  append_rows (problems, inf_rows, 0, "holds an infinity", "hold infinities");
  append_rows (problems, zero_rows, 0, "is all zeros", "are all zeros");
  if (self->first_position > 0)
    g_string_append_printf (problems, " (position 0 is row %u of the table)", self->first_position);
  g_set_error (error, PL_ERROR, PL_ERROR_BAD_VALUES, "%s: “%s” holds values no analysis can use: %s",
               where, self->position_table, problems->str);
  return FALSE;
}

PlMatrix *
pl_model_read_positions (PlModel  *self,
                         GError  **error)
{
  g_autoptr(PlMatrix) rows = NULL;
  guint n;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->activations != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s holds what a forward pass measured, not a position table: choose a layer "
                   "(0 is the embedding output) for the mean hidden state at each position", self->path);
      return NULL;
    }
  if (self->desc->rotary)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: a %s model has no learned position table: position enters attention by rotating "
                   "queries and keys (RoPE, base %g, %u rotated dims per head)",
                   self->path, self->desc->display_name, self->decoder.rope.theta, self->decoder.rope.dim);
      return NULL;
    }
  if (self->position_table == NULL && self->has_bias)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: a %s model learns no position table: position enters attention as %s added to the "
                   "scores (poslens-cli position-bias)", self->path, self->desc->display_name,
                   self->relpos.n_buckets > 0 ? "a learned bias per head over buckets of the offset"
                                              : "ALiBi’s fixed slope per head times the offset");
      return NULL;
    }
  if (self->position_table == NULL)
    {
      if (self->has_encoding)
        return pl_encoding_table (&self->encoding, error);
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: no position table was recognised among its %u tensors; choose one (--dataset NAME)",
                   self->path, pl_checkpoint_get_n_tensors (self->checkpoint));
      return NULL;
    }

  n = pl_model_get_n_positions (self);
  if (self->table != NULL)
    rows = pl_matrix_slice_rows (self->table, self->first_position, n);
  else
    rows = pl_checkpoint_read_rows (self->checkpoint, self->position_table, self->first_position, n, error);
  if (rows == NULL)
    return NULL;
  if (!check_rows (self, rows, error))
    return NULL;
  return g_steal_pointer (&rows);
}
