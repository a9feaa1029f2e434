/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* An integer from the first of KEYS that config.json has; -1 when none (or null). */
gint64
pl_config_int (JsonObject         *config,
            const char * const *keys)
{
  if (config == NULL)
    return -1;
  for (guint i = 0; keys[i] != NULL; i++)
    {
      JsonNode *node = json_object_get_member (config, keys[i]);

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_INT64)
        return json_node_get_int (node);
    }
  return -1;
}

double
pl_config_double (JsonObject         *config,
               const char * const *keys)
{
  if (config == NULL)
    return 0;
  for (guint i = 0; keys[i] != NULL; i++)
    {
      JsonNode *node = json_object_get_member (config, keys[i]);

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          (json_node_get_value_type (node) == G_TYPE_DOUBLE ||
           json_node_get_value_type (node) == G_TYPE_INT64))
        return json_node_get_double (node);
    }
  return 0;
}

const char *
pl_config_string (JsonObject         *config,
               const char * const *keys)
{
  if (config == NULL)
    return NULL;
  for (guint i = 0; keys[i] != NULL; i++)
    {
      JsonNode *node = json_object_get_member (config, keys[i]);

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_STRING)
        return json_node_get_string (node);
    }
  return NULL;
}

static gboolean
is_expert_role (PlWeight weight)
{
  return weight >= PL_WEIGHT_EXPERT_GATE_WEIGHT && weight <= PL_WEIGHT_EXPERT_DOWN_WEIGHT;
}

static const PlTensorInfo *
find_name (PlModel    *self,
           const char *name,
           gboolean   *kernel)
{
  const PlNormalizedName *stored = g_hash_table_lookup (self->normalized, name);

  if (stored == NULL)
    return NULL;
  if (kernel != NULL)
    *kernel = stored->kernel;
  return pl_checkpoint_find_tensor (self->checkpoint, stored->stored);
}

const PlTensorInfo *
pl_model_find_expert (PlModel  *self,
                      PlWeight  weight,
                      int       layer,
                      guint     expert,
                      gboolean *kernel)
{
  const char *role = self->desc->roles[weight];
  g_autofree char *name = NULL;

  if (role == NULL || self->normalized == NULL || self->desc->expert_list == NULL || !is_expert_role (weight))
    return NULL;
  name = g_strdup_printf ("%s%s%u.%s%u.%s", self->prefix, self->desc->layer_list, (guint) MAX (layer, 0),
                          self->desc->expert_list, expert, role);
  return find_name (self, name, kernel);
}

const PlTensorInfo *
pl_model_find_role (PlModel  *self,
                    PlWeight  weight,
                    int       layer,
                    gboolean *kernel)
{
  const char *role = self->desc->roles[weight];
  g_autofree char *name = NULL;
  gboolean per_layer = pl_weight_is_per_layer (weight);

  if (role == NULL || self->normalized == NULL)
    return NULL;
  if (is_expert_role (weight))
    return pl_model_find_expert (self, weight, layer, 0, kernel);
  if (per_layer)
    {
      g_autofree char *layer_base = NULL;

      if (self->desc->shared_layers)
        layer_base = g_strdup (self->desc->layer_list);
      else
        layer_base = g_strdup_printf ("%s%u.", self->desc->layer_list, (guint) MAX (layer, 0));
      name = g_strconcat (self->prefix, layer_base, role, NULL);
    }
  else
    name = g_strconcat (self->prefix, role, NULL);
  return find_name (self, name, kernel);
}

guint
pl_model_count_layers (PlModel *self)
{
  guint n = 0;

  if (self->desc->shared_layers)
    return pl_model_find_role (self, PL_WEIGHT_Q_WEIGHT, 0, NULL) ? 1 : 0;
  while (n < 100000 && (pl_model_find_role (self, PL_WEIGHT_Q_WEIGHT, n, NULL) != NULL ||
                        pl_model_find_role (self, PL_WEIGHT_LN1_WEIGHT, n, NULL) != NULL))
    n++;
  return n;
}

gboolean
pl_config_true (JsonObject *config,
             const char *key)
{
  JsonNode *node = config ? json_object_get_member (config, key) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

static gboolean
has_tensor (PlModel    *self,
            const char *relative)
{
  g_autofree char *name = g_strconcat (self->prefix, relative, NULL);

  return g_hash_table_contains (self->normalized, name);
}

/* What Hugging Face's models can be configured to do that the forward pass
 * does not (relative position embeddings; ALBERT's layer groups, OPT-350m): a message naming DIR's config.json (or the
 * checkpoint), or NULL. */
static char *
architecture_problem (PlModel    *self,
                      JsonObject *config,
                      const char *dir)
{
  static const char * const groups_keys[] = { "num_hidden_groups", NULL };
  static const char * const inner_keys[] = { "inner_group_num", NULL };
  static const char * const proj_keys[] = { "word_embed_proj_dim", NULL };
  static const char * const position_type_keys[] = { "position_embedding_type", NULL };
  const char *path = pl_checkpoint_get_path (self->checkpoint);
  const char *position_type = pl_config_string (config, position_type_keys);

  /* relative_key(_query) adds distance embeddings inside attention (BERT,
   * RoBERTa, ELECTRA, ALBERT can be configured so) */
  if (position_type != NULL && !g_str_equal (position_type, "absolute"))
    return g_strdup_printf ("%s/config.json: position_embedding_type “%s”; Poslens runs %s models "
                            "with absolute position embeddings only", dir, position_type, self->desc->display_name);
  if (self->desc->family == PL_FAMILY_ALBERT)
    {
      gint64 groups = pl_config_int (config, groups_keys), inner = pl_config_int (config, inner_keys);

      if (groups > 1 || inner > 1)
        return g_strdup_printf ("%s/config.json: num_hidden_groups %d and inner_group_num %d; Poslens runs "
                                "ALBERT models with one shared layer only (both 1, as in every released ALBERT)",
                                dir, (int) MAX (groups, 1), (int) MAX (inner, 1));
      if (has_tensor (self, "encoder.albert_layer_groups.1.albert_layers.0.attention.query.weight") ||
          has_tensor (self, "encoder.albert_layer_groups.0.albert_layers.1.attention.query.weight"))
        return g_strdup_printf ("%s holds more than one ALBERT layer group or inner layer, but its config.json "
                                "says one; Poslens runs ALBERT models with one shared layer only", path);
    }
  else if (self->desc->family == PL_FAMILY_OPT)
    {
      gint64 proj = pl_config_int (config, proj_keys);

      if (!self->pre_ln)
        return g_strdup_printf ("%s/config.json: do_layer_norm_before is false (post-LN OPT, as opt-350m); "
                                "Poslens runs pre-LN OPT models only", dir);
      if ((proj > 0 && proj != self->hidden) || has_tensor (self, "project_in.weight"))
        return g_strdup_printf ("%s/config.json: word_embed_proj_dim %d differs from the hidden size %u "
                                "(OPT’s project_in and project_out, as in opt-350m); Poslens does not run "
                                "such OPT models", dir, (int) proj, self->hidden);
      if (pl_config_true (config, "_remove_final_layer_norm"))
        return g_strdup_printf ("%s/config.json: _remove_final_layer_norm is true; Poslens runs OPT models "
                                "with their final LayerNorm only", dir);
      if (config != NULL && json_object_has_member (config, "layer_norm_elementwise_affine") &&
          !pl_config_true (config, "layer_norm_elementwise_affine"))
        return g_strdup_printf ("%s/config.json: layer_norm_elementwise_affine is false; Poslens runs OPT "
                                "models whose LayerNorms have weights only", dir);
    }
  return NULL;
}

void
pl_model_read_config (PlModel *self)
{
  static const char * const heads_keys[] = { "num_attention_heads", "n_head", "n_heads", NULL };
  static const char * const layers_keys[] = { "num_hidden_layers", "n_layer", "n_layers", NULL };
  static const char * const eps_keys[] = { "layer_norm_eps", "layer_norm_epsilon", NULL };
  static const char * const act_keys[] = { "hidden_act", "activation_function", "activation", NULL };
  static const char * const bos_keys[] = { "bos_token_id", NULL };
  static const char * const eos_keys[] = { "eos_token_id", NULL };
  static const char * const pad_keys[] = { "pad_token_id", NULL };
  static const char * const pre_ln_keys[] = { "do_layer_norm_before", NULL };
  static const char * const embedding_keys[] = { "embedding_size", NULL };
  JsonObject *config = pl_model_get_family_config (self);
  g_autoptr(GString) missing = g_string_new (NULL);
  g_autofree char *config_dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));
  g_autofree char *problem = NULL;
  const char *act;
  gint64 v;
  gboolean layers_known = TRUE;

  v = pl_config_int (config, heads_keys);
  self->n_heads = v > 0 && v < G_MAXINT ? (guint) v : 0;
  if (self->desc->shared_layers)
    {
      /* the one stored layer is applied num_hidden_layers times */
      v = pl_config_int (config, layers_keys);
      if (v > 0 && v < 100000 && self->n_layers > 0)
        self->n_layers = v;
      layers_known = v > 0 && v < 100000;
    }
  /* ELECTRA and ALBERT say how wide their embeddings are; the token
   * embedding's width (set when opening) stands otherwise, and
   * pl_model_require_config checks the two agree. */
  v = pl_config_int (config, embedding_keys);
  if (v > 0 && v < G_MAXINT)
    self->embedding = (guint) v;
  self->eps = self->desc->fixed_eps;
  if (self->eps == 0)
    self->eps = pl_config_double (config, eps_keys);
  act = pl_config_string (config, act_keys);
  self->activation = pl_activation_from_name (act);
  self->activation_name = g_strdup (act);
  self->bos_id = CLAMP (pl_config_int (config, bos_keys), -1, G_MAXINT);
  self->eos_id = CLAMP (pl_config_int (config, eos_keys), -1, G_MAXINT);
  self->pad_id = CLAMP (pl_config_int (config, pad_keys), -1, G_MAXINT);
  if (config != NULL && self->desc->family == PL_FAMILY_OPT &&
      json_object_has_member (config, "do_layer_norm_before") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (config, "do_layer_norm_before")))
    self->pre_ln = json_object_get_boolean_member (config, pre_ln_keys[0]);

  /* RoBERTa counts positions from padding_idx + 1. */
  if ((self->desc->family == PL_FAMILY_ROBERTA || self->desc->family == PL_FAMILY_XLM_ROBERTA) &&
      self->pad_id >= 0)
    self->first_position = self->pad_id + 1;

  /* Missing keys are named as this family's config.json spells them. */
  if (self->n_heads == 0)
    g_string_append (missing, self->desc->family == PL_FAMILY_GPT2 ? "n_head"
                              : self->desc->family == PL_FAMILY_DISTILBERT ? "n_heads"
                              : "num_attention_heads");
  if (self->eps <= 0)
    g_string_append_printf (missing, "%s%s", missing->len ? ", " : "",
                            self->desc->family == PL_FAMILY_GPT2 ? "layer_norm_epsilon" : "layer_norm_eps");
  if (self->activation == PL_ACTIVATION_NONE && act == NULL)
    g_string_append_printf (missing, "%s%s", missing->len ? ", " : "",
                            self->desc->family == PL_FAMILY_GPT2 || self->desc->family == PL_FAMILY_OPT
                              ? "activation_function"
                              : self->desc->family == PL_FAMILY_DISTILBERT ? "activation" : "hidden_act");
  if (!layers_known)
    g_string_append_printf (missing, "%snum_hidden_layers", missing->len ? ", " : "");

  if (config == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));

      self->config_problem_code = PL_ERROR_NOT_FOUND;
      self->config_problem = g_strdup_printf ("no config.json beside %s: the number of attention heads, the "
                                              "layer-norm epsilon and the activation cannot be read from the "
                                              "weights; put the model’s config.json in %s",
                                              pl_checkpoint_get_path (self->checkpoint), dir);
    }
  else if (missing->len > 0)
    {
      g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));

      self->config_problem_code = PL_ERROR_NOT_FOUND;
      self->config_problem = g_strdup_printf ("%s/config.json has no %s", dir, missing->str);
    }
  else if (self->activation == PL_ACTIVATION_NONE)
    {
      g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));

      self->config_problem_code = PL_ERROR_UNSUPPORTED;
      self->config_problem = g_strdup_printf ("%s/config.json: the activation “%s” is not supported "
                                              "(gelu, gelu_new, gelu_pytorch_tanh and relu are)", dir, act);
    }
  else if (self->n_heads > 0 && self->hidden % self->n_heads != 0)
    {
      g_autofree char *dir = g_path_get_dirname (pl_checkpoint_get_path (self->checkpoint));

      self->config_problem_code = PL_ERROR_CORRUPT;
      self->config_problem = g_strdup_printf ("%s/config.json: %u heads do not divide the hidden size %u",
                                              dir, self->n_heads, self->hidden);
    }
  else if ((problem = architecture_problem (self, config, config_dir)) != NULL)
    {
      self->config_problem_code = PL_ERROR_UNSUPPORTED;
      self->config_problem = g_steal_pointer (&problem);
    }
}

gboolean
pl_model_require_config (PlModel  *self,
                         GError  **error)
{
  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  if (!pl_model_require_weights (self, error))
    return FALSE;
  if (self->desc->family == PL_FAMILY_TABLE || self->desc->family == PL_FAMILY_ANALYTIC)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s is a position table, not a transformer Poslens can run",
                   self->path ? self->path : self->name);
      return FALSE;
    }
  if (self->n_layers == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: no %s layers found (expected names like “%s0.…”)",
                   pl_checkpoint_get_path (self->checkpoint), self->desc->display_name,
                   self->desc->layer_list);
      return FALSE;
    }
  if (self->config_problem != NULL)
    {
      g_set_error_literal (error, PL_ERROR, self->config_problem_code, self->config_problem);
      return FALSE;
    }
  return TRUE;
}

static char *
describe_shape (const PlTensorInfo *info)
{
  GString *shape = g_string_new (NULL);

  for (guint i = 0; i < info->rank; i++)
    g_string_append_printf (shape, "%s%" G_GUINT64_FORMAT, i ? "×" : "", info->shape[i]);
  if (info->rank == 0)
    g_string_append (shape, "a scalar");
  return g_string_free (shape, FALSE);
}

static guint64
n_elements (const PlTensorInfo *info)
{
  guint64 n = 1;

  for (guint i = 0; i < info->rank; i++)
    n *= info->shape[i];
  return n;
}

gboolean
pl_model_check_embeddings (PlModel  *self,
                           GError  **error)
{
  static const PlWeight tables[] = {
    PL_WEIGHT_TOKEN_EMBEDDING, PL_WEIGHT_POSITION_EMBEDDING, PL_WEIGHT_TOKEN_TYPE_EMBEDDING,
  };
  static const PlWeight vectors[] = { PL_WEIGHT_EMBED_LN_WEIGHT, PL_WEIGHT_EMBED_LN_BIAS };
  const char *path;
  const PlTensorInfo *tok, *proj, *bias;
  guint e, h;
  gboolean kernel = FALSE;

  g_return_val_if_fail (PL_IS_MODEL (self), FALSE);

  /* pl-model-relpos.c's families read and check their weights by name
   * (DeBERTa projects its embeddings before their LayerNorm) */
  if (self->checkpoint == NULL || self->normalized == NULL || self->has_relpos)
    return TRUE;
  path = pl_checkpoint_get_path (self->checkpoint);
  e = pl_model_get_embedding_size (self);
  h = self->hidden;

  tok = pl_model_find_role (self, PL_WEIGHT_TOKEN_EMBEDDING, 0, NULL);
  if (tok != NULL && tok->rank == 2 && tok->shape[1] != e)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *shape = describe_shape (tok);

      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s/config.json says embedding_size %u, but “%s” in %s is %s: "
                   "the configuration does not belong to these weights",
                   dir, e, tok->name, path, shape);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      const PlTensorInfo *info = pl_model_find_role (self, tables[i], 0, NULL);

      /* a single token type may be stored as a vector */
      if (info != NULL && !(info->rank == 2 && info->shape[1] == e) &&
          !(info->rank == 1 && info->shape[0] == e))
        {
          g_autofree char *shape = describe_shape (info);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: “%s” is %s, but the embeddings are %u wide", path, info->name, shape, e);
          return FALSE;
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (vectors); i++)
    {
      const PlTensorInfo *info = pl_model_find_role (self, vectors[i], 0, NULL);

      if (info != NULL && n_elements (info) != e)
        {
          g_autofree char *shape = describe_shape (info);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the embedding LayerNorm’s “%s” is %s, but the embeddings are %u wide",
                       path, info->name, shape, e);
          return FALSE;
        }
    }
  /* HF's ELECTRA builds no projection then, and would ignore one; ALBERT
   * always has its embedding_hidden_mapping_in. */
  if (e == h && self->desc->family != PL_FAMILY_ALBERT)
    return TRUE;

  if (self->desc->roles[PL_WEIGHT_EMBED_PROJECT_WEIGHT] == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: the embeddings are %u wide but the layers compute in %u; Poslens runs "
                   "%s models only when the two agree (ELECTRA’s and ALBERT’s embedding projections are supported)",
                   path, e, h, self->desc->display_name);
      return FALSE;
    }
  proj = pl_model_find_role (self, PL_WEIGHT_EMBED_PROJECT_WEIGHT, 0, &kernel);
  if (proj == NULL && e == h)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: this %s checkpoint has no “%s%s”, the Linear between its embeddings and its layers",
                   path, self->desc->display_name, self->prefix,
                   self->desc->roles[PL_WEIGHT_EMBED_PROJECT_WEIGHT]);
      return FALSE;
    }
  if (proj == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s: the embeddings are %u wide but the layers compute in %u, and the checkpoint has "
                   "no “%s%s” to project them", path, e, h, self->prefix,
                   self->desc->roles[PL_WEIGHT_EMBED_PROJECT_WEIGHT]);
      return FALSE;
    }
  /* nn.Linear stores [out, in], a Keras kernel [in, out]. */
  if (proj->rank != 2 ||
      proj->shape[0] != (kernel ? e : h) || proj->shape[1] != (kernel ? h : e))
    {
      g_autofree char *shape = describe_shape (proj);

      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” is %s, but projecting %u-wide embeddings to the hidden size %u needs %u×%u",
                   path, proj->name, shape, e, h, kernel ? e : h, kernel ? h : e);
      return FALSE;
    }
  bias = pl_model_find_role (self, PL_WEIGHT_EMBED_PROJECT_BIAS, 0, NULL);
  if (bias != NULL && n_elements (bias) != h)
    {
      g_autofree char *shape = describe_shape (bias);

      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” is %s, but the embedding projection’s bias must have the hidden size %u",
                   path, bias->name, shape, h);
      return FALSE;
    }
  return TRUE;
}

static PlMatrix *
transpose (const PlMatrix *m)
{
  PlMatrix *t = pl_matrix_new (m->cols, m->rows);

  for (gsize i = 0; i < m->rows; i++)
    for (gsize j = 0; j < m->cols; j++)
      t->data[j * m->rows + i] = m->data[i * m->cols + j];
  return t;
}

static PlMatrix *
columns (const PlMatrix *m,
         gsize           first,
         gsize           n)
{
  PlMatrix *out = pl_matrix_new (m->rows, n);

  for (gsize i = 0; i < m->rows; i++)
    memcpy (pl_matrix_row (out, i), pl_matrix_row (m, i) + first, n * sizeof (float));
  return out;
}

static gboolean
is_linear_weight (PlWeight weight)
{
  switch (weight)
    {
    case PL_WEIGHT_Q_WEIGHT:
    case PL_WEIGHT_K_WEIGHT:
    case PL_WEIGHT_V_WEIGHT:
    case PL_WEIGHT_ATTN_OUT_WEIGHT:
    case PL_WEIGHT_FFN_IN_WEIGHT:
    case PL_WEIGHT_FFN_OUT_WEIGHT:
    case PL_WEIGHT_FFN_GATE_WEIGHT:
    case PL_WEIGHT_EMBED_PROJECT_WEIGHT:
      return TRUE;
    default:
      return FALSE;
    }
}

PlStoredMatrix *
pl_model_read_stored_weight (PlModel   *self,
                             PlWeight   weight,
                             int        layer,
                             GError   **error)
{
  g_autoptr(PlMatrix) m = NULL;
  g_autoptr(PlMatrix) t = NULL;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail ((guint) weight < PL_N_WEIGHTS, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->desc->rotary)
    return pl_model_read_decoder_weight (self, weight, layer, error);
  if (!(m = pl_model_read_weight (self, weight, layer, error)))
    return NULL;
  if (!is_linear_weight (weight))
    return pl_stored_matrix_new_from_matrix (m);
  t = transpose (m);
  return pl_stored_matrix_new_from_matrix (t);
}

PlMatrix *
pl_model_read_weight (PlModel   *self,
                      PlWeight   weight,
                      int        layer,
                      GError   **error)
{
  g_autoptr(PlMatrix) m = NULL;
  const PlTensorInfo *info;
  gboolean per_layer = pl_weight_is_per_layer (weight);
  gboolean kernel = FALSE;
  const char *path;

  g_return_val_if_fail (PL_IS_MODEL (self), NULL);
  g_return_val_if_fail ((guint) weight < PL_N_WEIGHTS, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->checkpoint == NULL || self->desc->family == PL_FAMILY_TABLE)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s is a position table without transformer weights",
                   self->path ? self->path : self->name);
      return NULL;
    }
  path = pl_checkpoint_get_path (self->checkpoint);
  if (per_layer && (layer < 0 || (guint) layer >= self->n_layers))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "%s: layer %d does not exist (the model has %u)", path, layer, self->n_layers);
      return NULL;
    }

  if (self->desc->rotary)
    {
      g_autoptr(PlStoredMatrix) stored = pl_model_read_decoder_weight (self, weight, layer, error);

      if (stored == NULL || !(m = pl_stored_matrix_to_matrix (stored, error)))
        return NULL;
      return is_linear_weight (weight) ? transpose (m) : g_steal_pointer (&m);
    }

  info = pl_model_find_role (self, weight, layer, &kernel);
  if (info == NULL)
    {
      if (self->desc->roles[weight] == NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s: %s models have no weight of this kind", path, self->desc->display_name);
      else if (per_layer)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s: layer %d of this %s checkpoint has no “%s”", path, layer,
                     self->desc->display_name, self->desc->roles[weight]);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s: this %s checkpoint has no “%s”", path, self->desc->display_name,
                     self->desc->roles[weight]);
      return NULL;
    }
  m = pl_checkpoint_read (self->checkpoint, info->name, error);
  if (m == NULL)
    return NULL;

  if (info->rank == 1 && !is_linear_weight (weight))
    ; /* vectors come back as 1×n already */
  else if (is_linear_weight (weight) && info->rank != 2)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: “%s” should be a matrix but is %u-D", path, info->name, info->rank);
      return NULL;
    }

  /* nn.Linear stores [out, in]; Keras kernels and GPT-2's Conv1D [in, out]. */
  if (is_linear_weight (weight) && !kernel && !self->desc->conv1d)
    {
      PlMatrix *t = transpose (m);

      pl_matrix_unref (m);
      m = t;
    }

  if (self->desc->fused_qkv && weight >= PL_WEIGHT_Q_WEIGHT && weight <= PL_WEIGHT_V_BIAS)
    {
      guint part = (weight - PL_WEIGHT_Q_WEIGHT) / 2;
      gsize width = m->cols / 3;

      if (m->cols % 3 != 0 || (m->rows > 1 && m->rows * 3 != m->cols))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: “%s” is %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT ", not [hidden, 3 × hidden]",
                       path, info->name, m->rows, m->cols);
          return NULL;
        }
      return columns (m, part * width, width);
    }
  return g_steal_pointer (&m);
}
