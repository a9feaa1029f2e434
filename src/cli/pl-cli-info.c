/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "pl-checkpoint-gguf.h"
#include "pl-cli.h"
#include "pl-error.h"
#include "pl-matrix-io.h"
#include "pl-model.h"
#include "pl-model-relpos.h"

/* One spelling whatever the format (HDF5 and safetensors name them differently). */
static const char *
dtype_name (PlModel *model)
{
  PlCheckpoint *checkpoint = pl_model_get_checkpoint (model);
  const PlTensorInfo *info;

  if (checkpoint == NULL || pl_model_get_position_table_name (model) == NULL)
    return "float32";
  info = pl_checkpoint_find_tensor (checkpoint, pl_model_get_position_table_name (model));
  if (info == NULL)
    return "float32";
  switch (info->dtype)
    {
    case PL_DTYPE_F32:
      return "float32";
    case PL_DTYPE_F16:
      return "float16";
    case PL_DTYPE_BF16:
      return "bfloat16";
    case PL_DTYPE_F64:
      return "float64";
    case PL_DTYPE_OTHER:
    default:
      return info->dtype_name;
    }
}

static const char *
activation_name (PlModel *model)
{
  const char *name = pl_model_get_activation_name (model);

  if (name != NULL)
    return name;
  switch (pl_model_get_activation (model))
    {
    case PL_ACTIVATION_GELU:
      return "gelu";
    case PL_ACTIVATION_GELU_TANH:
      return "gelu_new";
    case PL_ACTIVATION_RELU:
      return "relu";
    case PL_ACTIVATION_NONE:
    default:
      return NULL;
    }
}

static void
add_shape (JsonBuilder        *builder,
           const PlTensorInfo *info)
{
  json_builder_begin_array (builder);
  for (guint i = 0; i < info->rank; i++)
    json_builder_add_int_value (builder, (gint64) info->shape[i]);
  json_builder_end_array (builder);
}

/* "yarn ×4" and the like; "none" without scaling. */
static char *
describe_scaling (const PlRopeSpec *rope)
{
  if (rope->scaling == PL_ROPE_SCALING_NONE)
    return g_strdup (_("none"));
  return g_strdup_printf ("%s ×%g", pl_rope_scaling_name (rope->scaling), rope->factor);
}

static void
add_decoder_json (JsonBuilder         *builder,
                  PlModel             *model,
                  const PlRotaryDecoderSpec *d)
{
  json_builder_set_member_name (builder, "rotary");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "theta");
  json_builder_add_double_value (builder, d->rope.theta);
  json_builder_set_member_name (builder, "rotated_dims");
  json_builder_add_int_value (builder, d->rope.dim);
  json_builder_set_member_name (builder, "head_dim");
  json_builder_add_int_value (builder, d->head_dim);
  json_builder_set_member_name (builder, "kv_heads");
  json_builder_add_int_value (builder, d->n_kv_heads);
  json_builder_set_member_name (builder, "max_positions");
  json_builder_add_int_value (builder, pl_model_get_n_positions (model));
  json_builder_set_member_name (builder, "scaling");
  json_builder_add_string_value (builder, pl_rope_scaling_name (d->rope.scaling));
  json_builder_set_member_name (builder, "factor");
  if (d->rope.scaling != PL_ROPE_SCALING_NONE)
    json_builder_add_double_value (builder, d->rope.factor);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

/* "position_tables": every table the model holds, the chosen one among
 * them. */
static void
add_tables_json (JsonBuilder *builder,
                 PlModel     *model)
{
  json_builder_set_member_name (builder, "position_tables");
  json_builder_begin_array (builder);
  for (guint i = 0; i < pl_model_get_n_position_tables (model); i++)
    {
      const PlPositionTableInfo *t = pl_model_get_position_table_info (model, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "stack");
      if (t->stack != NULL)
        json_builder_add_string_value (builder, t->stack);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "tensor");
      json_builder_add_string_value (builder, t->tensor);
      json_builder_set_member_name (builder, "rows");
      json_builder_add_int_value (builder, t->rows);
      json_builder_set_member_name (builder, "cols");
      json_builder_add_int_value (builder, t->cols);
      json_builder_set_member_name (builder, "first_position");
      json_builder_add_int_value (builder, t->first_position);
      json_builder_set_member_name (builder, "n_positions");
      json_builder_add_int_value (builder, t->n_positions);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, pl_table_kind_name (t->kind));
      if (t->layer > 0)
        {
          json_builder_set_member_name (builder, "layer");
          json_builder_add_int_value (builder, t->layer);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "stack");
  if (pl_model_get_stack (model) != NULL)
    json_builder_add_string_value (builder, pl_model_get_stack (model));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "position_bias");
  if (pl_model_has_position_bias (model))
    {
      const PlRelposSpec *r = pl_model_get_relpos (model);
      PlFamily family = pl_model_get_family (model);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, family == PL_FAMILY_T5 || family == PL_FAMILY_UMT5 ? "t5" : "alibi");
      json_builder_set_member_name (builder, "per_layer");
      json_builder_add_boolean_value (builder, pl_model_get_bias_per_layer (model));
      if (family == PL_FAMILY_T5 || family == PL_FAMILY_UMT5)
        {
          json_builder_set_member_name (builder, "buckets");
          json_builder_add_int_value (builder, r->n_buckets);
          json_builder_set_member_name (builder, "max_distance");
          json_builder_add_int_value (builder, r->max_distance);
        }
      if (family == PL_FAMILY_MPT)
        {
          json_builder_set_member_name (builder, "alibi_bias_max");
          json_builder_add_double_value (builder, r->alibi_bias_max);
        }
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
}

/* "grid": [rows, cols] or null, "special_rows": k and their names. */
static void
add_grid_json (JsonBuilder *builder,
               PlModel     *model)
{
  guint rows, cols, n_special = pl_model_get_n_special_rows (model);

  json_builder_set_member_name (builder, "grid");
  if (pl_model_get_grid (model, &rows, &cols))
    {
      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, rows);
      json_builder_add_int_value (builder, cols);
      json_builder_end_array (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "special_rows");
  json_builder_add_int_value (builder, n_special);
  json_builder_set_member_name (builder, "special_tokens");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n_special; i++)
    json_builder_add_string_value (builder, pl_model_get_special_row_name (model, i));
  json_builder_end_array (builder);
}

/* A GGUF file's own words: general.architecture and general.name (NULL when
 * absent or not text), and how many tensors each ggml type holds, in the
 * order the types first appear. */
static char *
gguf_string (PlCheckpoint *checkpoint,
             const char   *key)
{
  return pl_gguf_value_dup_string (pl_gguf_header_lookup (
    pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (checkpoint)), key));
}

static GPtrArray *
gguf_type_counts (PlCheckpoint *checkpoint,
                  GArray      **counts)
{
  GPtrArray *types = g_ptr_array_new ();

  *counts = g_array_new (FALSE, TRUE, sizeof (guint));
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const char *type = pl_checkpoint_get_tensor (checkpoint, i)->dtype_name;
      guint index;

      if (!g_ptr_array_find_with_equal_func (types, type, g_str_equal, &index))
        {
          guint zero = 0;

          g_ptr_array_add (types, (gpointer) type);
          g_array_append_val (*counts, zero);
          index = types->len - 1;
        }
      g_array_index (*counts, guint, index)++;
    }
  return types;
}

static void
add_gguf_json (JsonBuilder  *builder,
               PlCheckpoint *checkpoint)
{
  const PlGgufHeader *header = pl_checkpoint_gguf_get_header (PL_CHECKPOINT_GGUF (checkpoint));
  g_autofree char *architecture = gguf_string (checkpoint, "general.architecture");
  g_autofree char *name = gguf_string (checkpoint, "general.name");
  g_autoptr(GArray) counts = NULL;
  g_autoptr(GPtrArray) types = gguf_type_counts (checkpoint, &counts);

  json_builder_set_member_name (builder, "gguf");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, pl_gguf_header_get_version (header));
  json_builder_set_member_name (builder, "architecture");
  if (architecture != NULL)
    json_builder_add_string_value (builder, architecture);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "name");
  if (name != NULL)
    json_builder_add_string_value (builder, name);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "metadata_keys");
  json_builder_add_int_value (builder, pl_gguf_header_get_n_keys (header));
  /* how many tensors of each type: the file's quantisation */
  json_builder_set_member_name (builder, "tensor_types");
  json_builder_begin_object (builder);
  for (guint i = 0; i < types->len; i++)
    {
      json_builder_set_member_name (builder, types->pdata[i]);
      json_builder_add_int_value (builder, g_array_index (counts, guint, i));
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

/* What an activations file holds: its layout's version, whose forward pass
 * and over what, and which of the layout's groups are present. */
static void
add_activations_json (JsonBuilder       *builder,
                      PlActivationsFile *file)
{
  PlCheckpoint *checkpoint = pl_activations_file_get_checkpoint (file);
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);
  const char *writer = pl_activations_file_get_writer (file);

  json_builder_set_member_name (builder, "activations");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "format_version");
  json_builder_add_int_value (builder, pl_activations_file_get_format_version (file));
  json_builder_set_member_name (builder, "model_name");
  json_builder_add_string_value (builder, pl_activations_file_get_model_name (file));
  json_builder_set_member_name (builder, "writer");
  if (writer != NULL)
    json_builder_add_string_value (builder, writer);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "sequences");
  json_builder_add_int_value (builder, pl_activations_file_get_n_sequences (file));
  json_builder_set_member_name (builder, "tokens");
  json_builder_add_int_value (builder, pl_activations_file_get_n_tokens (file));
  json_builder_set_member_name (builder, "layers");
  json_builder_add_int_value (builder, pl_activations_file_get_n_layers (file));
  json_builder_set_member_name (builder, "heads");
  json_builder_add_int_value (builder, pl_activations_file_get_n_heads (file));
  json_builder_set_member_name (builder, "hidden");
  json_builder_add_int_value (builder, pl_activations_file_get_hidden_size (file));
  json_builder_set_member_name (builder, "rotary");
  if (pl_activations_file_get_n_planes (file) > 0)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "planes");
      json_builder_add_int_value (builder, pl_activations_file_get_n_planes (file));
      json_builder_set_member_name (builder, "kv_heads");
      json_builder_add_int_value (builder, pl_activations_file_get_n_kv_heads (file));
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "maps");
  json_builder_add_int_value (builder, pl_activations_file_get_n_maps (file));

  /* The groups at the root that hold datasets, in the file's order of names. */
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const char *name = pl_checkpoint_get_tensor (checkpoint, i)->name;
      const char *start = name + (name[0] == '/');
      const char *slash = strchr (start, '/');
      g_autofree char *group = slash != NULL ? g_strndup (start, slash - start) : NULL;

      if (group != NULL && !g_ptr_array_find_with_equal_func (groups, group, g_str_equal, NULL))
        g_ptr_array_add (groups, g_steal_pointer (&group));
    }
  json_builder_set_member_name (builder, "groups");
  json_builder_begin_array (builder);
  for (guint i = 0; i < groups->len; i++)
    json_builder_add_string_value (builder, groups->pdata[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static void
print_json (PlModel  *model,
            gboolean  list_tensors)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  PlCheckpoint *checkpoint = pl_model_get_checkpoint (model);
  const char *activation = activation_name (model);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, pl_model_get_path (model));
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, pl_model_get_name (model));
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, checkpoint ? pl_checkpoint_get_format (checkpoint) : "builtin");
  json_builder_set_member_name (builder, "family");
  json_builder_add_string_value (builder, pl_model_get_family_name (model));

  json_builder_set_member_name (builder, "position_table");
  if (pl_model_get_position_table_name (model) != NULL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, pl_model_get_position_table_name (model));
      json_builder_set_member_name (builder, "rows");
      json_builder_add_int_value (builder, pl_model_get_position_table_rows (model));
      json_builder_set_member_name (builder, "cols");
      json_builder_add_int_value (builder, pl_model_get_position_table_cols (model));
      json_builder_set_member_name (builder, "first_position");
      json_builder_add_int_value (builder, pl_model_get_first_position (model));
      json_builder_set_member_name (builder, "n_positions");
      json_builder_add_int_value (builder, pl_model_get_n_positions (model));
      json_builder_set_member_name (builder, "dtype");
      json_builder_add_string_value (builder, dtype_name (model));
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, pl_table_kind_name (pl_model_get_table_kind (model)));
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  add_tables_json (builder, model);

  json_builder_set_member_name (builder, "hidden");
  json_builder_add_int_value (builder, pl_model_get_hidden_size (model));
  json_builder_set_member_name (builder, "embedding");
  json_builder_add_int_value (builder, pl_model_get_embedding_size (model));
  json_builder_set_member_name (builder, "layers");
  json_builder_add_int_value (builder, pl_model_get_n_layers (model));
  json_builder_set_member_name (builder, "heads");
  json_builder_add_int_value (builder, pl_model_get_n_heads (model));
  json_builder_set_member_name (builder, "ffn");
  json_builder_add_int_value (builder, pl_model_get_ffn_size (model));
  json_builder_set_member_name (builder, "vocab");
  json_builder_add_int_value (builder, pl_model_get_vocab_size (model));
  json_builder_set_member_name (builder, "layer_norm_eps");
  if (pl_model_get_layer_norm_eps (model) > 0)
    json_builder_add_double_value (builder, pl_model_get_layer_norm_eps (model));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "activation");
  if (activation != NULL)
    json_builder_add_string_value (builder, activation);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "pre_ln");
  json_builder_add_boolean_value (builder, pl_model_get_pre_ln (model));
  json_builder_set_member_name (builder, "causal");
  json_builder_add_boolean_value (builder, pl_model_get_causal (model));
  if (pl_model_get_rotary_decoder (model) != NULL)
    add_decoder_json (builder, model, pl_model_get_rotary_decoder (model));
  add_grid_json (builder, model);
  if (pl_model_get_activations (model) != NULL)
    add_activations_json (builder, pl_model_get_activations (model));
  if (checkpoint != NULL && PL_IS_CHECKPOINT_GGUF (checkpoint))
    add_gguf_json (builder, checkpoint);
  json_builder_set_member_name (builder, "tensor_count");
  json_builder_add_int_value (builder, checkpoint ? pl_checkpoint_get_n_tensors (checkpoint) : 0);
  /* A PyTorch file whose tensors sit under a key of its object. */
  json_builder_set_member_name (builder, "state_dict_key");
  if (checkpoint != NULL && pl_checkpoint_get_attribute (checkpoint, "state_dict_key") != NULL)
    json_builder_add_string_value (builder, pl_checkpoint_get_attribute (checkpoint, "state_dict_key"));
  else
    json_builder_add_null_value (builder);

  if (list_tensors && checkpoint != NULL)
    {
      json_builder_set_member_name (builder, "tensors");
      json_builder_begin_array (builder);
      for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
        {
          const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, info->name);
          json_builder_set_member_name (builder, "shape");
          add_shape (builder, info);
          json_builder_set_member_name (builder, "dtype");
          json_builder_add_string_value (builder, info->dtype_name);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
  pl_cli_print_json (builder);
}

/* One line of the listing: LABEL, then VALUE escaped (names come from the file). */
static void
print_field (const char *label,
             const char *value)
{
  g_autofree char *shown = pl_escape_text (value, -1);

  printf ("%-16s %s\n", label, shown);
}

static void
print_text_grid (PlModel *model)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint rows, cols, n_special = pl_model_get_n_special_rows (model);

  for (guint i = 0; i < n_special; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "", pl_model_get_special_row_name (model, i));
  if (pl_model_get_grid (model, &rows, &cols))
    {
      printf ("%-16s ", _("Patch grid:"));
      /* Translators: rows × columns of image patches, how many, how they are numbered */
      printf (_("%u × %u (%u patches, numbered row by row)"), rows, cols, rows * cols);
      printf ("\n");
    }
  else if (n_special > 0 || !pl_model_require_grid (model, NULL, NULL, &error))
    {
      if (error != NULL && g_error_matches (error, PL_ERROR, PL_ERROR_NOT_FOUND))
        print_field (_("Patch grid:"), error->message);
    }
  if (n_special > 0)
    printf ("%-16s %u (%s)\n", _("Special rows:"), n_special, names->str);
}

/* The tables of a model with several, the chosen one marked. */
static void
print_tables (PlModel *model)
{
  guint n = pl_model_get_n_position_tables (model);

  if (n < 2 && !(n == 1 && pl_model_get_position_table_info (model, 0)->kind == PL_TABLE_BIAS))
    return;
  for (guint i = 0; i < n; i++)
    {
      const PlPositionTableInfo *t = pl_model_get_position_table_info (model, i);
      g_autofree char *tensor = pl_escape_text (t->tensor, -1);
      g_autofree char *layer = t->layer > 0 ? g_strdup_printf (_(", layer %u"), t->layer) : g_strdup ("");

      printf ("%-16s %s%s (%s%s) %s, %u × %u\n", i == 0 ? _("Tables:") : "",
              g_strcmp0 (t->stack, pl_model_get_stack (model)) == 0 &&
              g_strcmp0 (t->tensor, pl_model_get_position_table_name (model)) == 0 ? "* " : "",
              t->stack ? t->stack : "—", pl_table_kind_name (t->kind), layer, tensor, t->rows, t->cols);
    }
}

static void
print_text (PlModel  *model,
            gboolean  list_tensors)
{
  PlCheckpoint *checkpoint = pl_model_get_checkpoint (model);
  const char *activation = activation_name (model);
  const PlRotaryDecoderSpec *decoder = pl_model_get_rotary_decoder (model);
  PlActivationsFile *activations = pl_model_get_activations (model);

  print_field (_("Model:"), pl_model_get_name (model));
  print_field (_("Format:"), checkpoint ? pl_checkpoint_get_format (checkpoint) : "builtin");
  if (checkpoint != NULL && PL_IS_CHECKPOINT_GGUF (checkpoint))
    {
      g_autofree char *architecture = gguf_string (checkpoint, "general.architecture");
      g_autoptr(GArray) counts = NULL;
      g_autoptr(GPtrArray) types = gguf_type_counts (checkpoint, &counts);
      g_autoptr(GString) listed = g_string_new (NULL);

      print_field (_("Architecture:"), architecture ? architecture : "?");
      for (guint i = 0; i < types->len; i++)
        g_string_append_printf (listed, "%s%s ×%u", i ? ", " : "", (char *) types->pdata[i],
                                g_array_index (counts, guint, i));
      print_field (_("Tensor types:"), listed->str);
    }
  print_field (_("Family:"), pl_model_get_family_display_name (model));
  if (pl_model_get_position_table_name (model) != NULL)
    {
      g_autofree char *dtype = pl_escape_text (dtype_name (model), -1);

      print_field (_("Position table:"), pl_model_get_position_table_name (model));
      printf ("%-16s %u × %u %s, positions in rows %u–%u\n", "",
              pl_model_get_position_table_rows (model), pl_model_get_position_table_cols (model),
              dtype, pl_model_get_first_position (model),
              pl_model_get_position_table_rows (model) - 1);
    }
  else if (decoder != NULL)
    print_field (_("Position table:"), _("none: positions rotate queries and keys (RoPE)"));
  else if (pl_model_has_position_bias (model) && pl_model_get_relpos (model) != NULL &&
           pl_model_get_relpos (model)->n_buckets > 0)
    print_field (_("Position table:"), _("none: a learned bias per head over buckets of the offset (position-bias)"));
  else if (pl_model_has_position_bias (model))
    print_field (_("Position table:"), _("none: a fixed bias per head, its slope times the offset (ALiBi; position-bias)"));
  else if (activations != NULL)
    print_field (_("Position table:"), _("none: each layer’s mean hidden state at each position (--layer)"));
  else
    print_field (_("Position table:"), _("none recognised (choose one with --dataset)"));
  print_tables (model);
  if (activations != NULL)
    {
      const char *writer = pl_activations_file_get_writer (activations);

      printf ("%-16s ", _("Activations:"));
      printf (_("inputs: %u × %u tokens; attention maps: %u; rotary norms: %s"),
              pl_activations_file_get_n_sequences (activations), pl_activations_file_get_n_tokens (activations),
              pl_activations_file_get_n_maps (activations),
              pl_activations_file_get_n_planes (activations) > 0 ? _("yes") : _("no"));
      printf ("\n");
      print_field (_("Written by:"), writer != NULL ? writer : "?");
    }
  print_text_grid (model);
  if (decoder != NULL)
    {
      g_autofree char *scaling = describe_scaling (&decoder->rope);

      printf ("%-16s ", _("Rotary:"));
      printf (_("base %g, %u of %u dims per head, scaling %s, %u positions"), decoder->rope.theta,
              decoder->rope.dim, decoder->head_dim, scaling, pl_model_get_n_positions (model));
      printf ("\n%-16s %u\n", _("Key/value heads:"), decoder->n_kv_heads);
    }
  if (pl_model_get_n_layers (model) > 0)
    {
      printf ("%-16s %u\n", _("Hidden size:"), pl_model_get_hidden_size (model));
      /* ELECTRA-small: narrower embeddings, projected up before layer 1. */
      if (pl_model_get_embedding_size (model) != pl_model_get_hidden_size (model))
        printf ("%-16s %u\n", _("Embedding size:"), pl_model_get_embedding_size (model));
      printf ("%-16s %u\n", _("Layers:"), pl_model_get_n_layers (model));
      printf ("%-16s %u\n", _("Heads:"), pl_model_get_n_heads (model));
      if (activations == NULL)
        printf ("%-16s %u\n", _("FFN size:"), pl_model_get_ffn_size (model));
      /* Vision transformers embed patches, not tokens. */
      if (pl_model_get_vocab_size (model) > 0)
        printf ("%-16s %u\n", _("Vocabulary:"), pl_model_get_vocab_size (model));
      if (activations == NULL)
        {
          printf ("%-16s %g (%s)\n", _("Layer norm:"), pl_model_get_layer_norm_eps (model),
                  pl_model_get_pre_ln (model) ? "pre-LN" : "post-LN");
          print_field (_("Activation:"), activation ? activation : "?");
        }
      print_field (_("Causal:"), pl_model_get_causal (model) ? _("yes") : _("no"));
    }
  if (checkpoint != NULL)
    printf ("%-16s %u\n", _("Tensors:"), pl_checkpoint_get_n_tensors (checkpoint));
  if (checkpoint != NULL && pl_checkpoint_get_attribute (checkpoint, "state_dict_key") != NULL)
    {
      g_autofree char *key = pl_escape_text (pl_checkpoint_get_attribute (checkpoint, "state_dict_key"), -1);

      printf ("%-16s ", _("State dict:"));
      /* Translators: where in a PyTorch file's object its tensors were found */
      printf (_("under “%s”"), key);
      printf ("\n");
    }
  if (list_tensors && checkpoint != NULL)
    for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
      {
        const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
        g_autoptr(GString) shape = g_string_new (NULL);
        g_autofree char *name = pl_escape_text (info->name, -1);
        g_autofree char *dtype = pl_escape_text (info->dtype_name, -1);

        for (guint d = 0; d < info->rank; d++)
          g_string_append_printf (shape, "%s%" G_GUINT64_FORMAT, d ? " × " : "", info->shape[d]);
        printf ("  %s  [%s] %s\n", name, shape->str, dtype);
      }
}

/* NAME's values as float32, whatever its rank: a vector (or a scalar) as a
 * 1-D dataset, a matrix as it is, more dimensions as the matrix of their
 * rows (every dimension but the last) by the last. */
static int
write_tensor (PlModel    *model,
              const char *name,
              const char *out)
{
  PlCheckpoint *checkpoint = pl_model_get_checkpoint (model);
  const PlTensorInfo *info = checkpoint != NULL ? pl_checkpoint_find_tensor (checkpoint, name) : NULL;
  g_autoptr(PlMatrix) values = NULL;
  g_autoptr(GError) error = NULL;
  PlNamedMatrix dataset = { "/tensor", NULL, FALSE, 1 };

  if (checkpoint == NULL)
    {
      g_set_error (&error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s is an analytic encoding: it has no tensors",
                   pl_model_get_path (model));
      return pl_cli_fail (error);
    }
  if ((values = pl_checkpoint_read (checkpoint, name, &error)) == NULL)
    return pl_cli_fail (error);
  dataset.matrix = values;
  dataset.vector = info->rank <= 1;
  if (!pl_matrix_io_write (out, &dataset, 1, &error))
    return pl_cli_fail (error);
  return PL_CLI_EXIT_OK;
}

int
pl_cli_info (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autofree char *dataset = NULL;
  g_autofree char *tensor = NULL;
  g_autofree char *out = NULL;
  gboolean json = FALSE;
  gboolean list_tensors = FALSE;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, N_("Use this 2-D dataset as a plain position table"), N_("NAME") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "tensors", 't', 0, G_OPTION_ARG_NONE, &list_tensors, N_("List every tensor"), NULL },
    { "tensor", 0, 0, G_OPTION_ARG_STRING, &tensor, N_("With --out: write this tensor’s values (any shape, as float32)"), N_("NAME") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write the --tensor here (.h5, .csv, .npy)"), N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — what a checkpoint holds"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return pl_cli_usage ("info", error->message);
  if (argc != 2)
    return pl_cli_usage ("info", "expected one PATH (a file, a folder or builtin:…)");

  if ((tensor == NULL) != (out == NULL))
    return pl_cli_usage ("info", "--tensor NAME and --out FILE go together");

  model = pl_cli_open_model (argv[1], dataset, table_name, &error);
  if (model == NULL)
    return pl_cli_fail (error);
  if (tensor != NULL)
    return write_tensor (model, tensor, out);
  /* Reading the table checks what an analysis would trip on: truncated
   * data, NaN, infinities. Only those rows are read. */
  if (pl_model_get_position_table_name (model) != NULL)
    {
      positions = pl_model_read_positions (model, &error);
      if (positions == NULL)
        return pl_cli_fail (error);
    }
  else if (pl_model_get_checkpoint (model) != NULL && pl_model_get_rotary_decoder (model) == NULL &&
           !pl_model_has_position_bias (model) && !list_tensors && !json)
    {
      /* Nothing to show as positions: still useful as a listing. */
      list_tensors = TRUE;
    }

  if (json)
    print_json (model, list_tensors);
  else
    print_text (model, list_tensors);
  return PL_CLI_EXIT_OK;
}
