/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "pl-attention-stats.h"
#include "pl-error.h"
#include "pl-questions.h"
#include "pl-transformer.h"
#include "pl-workspace.h"

/* Random inputs averaged for a layer's positional component: enough for the
 * token identity to wash out of the mean at each position. */
#define COMPONENT_SEQUENCES 8
#define COMPONENT_SEED      1

struct _PlWorkspace
{
  GObject          parent_instance;

  GSettings       *settings;
  PlAnalysisCache *cache;
  GListModel      *models;
  PlModel         *model;
  int              layer;
  guint            head;
  guint            selection_start;
  guint            selection_end;
};

G_DEFINE_FINAL_TYPE (PlWorkspace, pl_workspace, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_LAYER,
  PROP_HEAD,
  PROP_SELECTION,
  PROP_DARK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

PlWorkspace *
pl_workspace_new (GSettings *settings)
{
  PlWorkspace *self = g_object_new (PL_TYPE_WORKSPACE, NULL);

  self->settings = settings ? g_object_ref (settings) : NULL;
  return self;
}

GSettings *
pl_workspace_get_settings (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  return self->settings;
}

PlAnalysisCache *
pl_workspace_get_cache (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  return self->cache;
}

GListModel *
pl_workspace_get_models (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  return self->models;
}

void
pl_workspace_set_models (PlWorkspace *self,
                         GListModel  *models)
{
  g_return_if_fail (PL_IS_WORKSPACE (self));
  g_set_object (&self->models, models);
}

PlModel *
pl_workspace_get_model (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  return self->model;
}

void
pl_workspace_set_model (PlWorkspace *self,
                        PlModel     *model)
{
  g_return_if_fail (PL_IS_WORKSPACE (self));

  if (!g_set_object (&self->model, model))
    return;

  /* Another model has other layers and heads: keep what still exists. */
  if (self->layer > (int) pl_workspace_get_n_layers (self))
    pl_workspace_set_layer (self, pl_workspace_get_n_layers (self) > 0 ? (int) pl_workspace_get_n_layers (self)
                                                                      : PL_LAYER_TABLE);
  if (pl_workspace_get_n_layers (self) == 0 && self->layer != PL_LAYER_TABLE)
    pl_workspace_set_layer (self, PL_LAYER_TABLE);
  /* An activations file has no table: its embedding output stands first. */
  if (model != NULL && pl_model_get_activations (model) != NULL && self->layer == PL_LAYER_TABLE)
    pl_workspace_set_layer (self, 0);
  if (self->head >= MAX (pl_workspace_get_n_heads (self), 1))
    pl_workspace_set_head (self, 0);
  /* A rotary model has no table to show: it opens on what its first layer
   * holds about position. */
  if (model != NULL && pl_model_get_rotary_decoder (model) != NULL && self->layer == PL_LAYER_TABLE &&
      pl_workspace_get_n_layers (self) > 0)
    pl_workspace_set_layer (self, 1);
  /* The selected positions stay while the model has them all. */
  if (model == NULL || self->selection_end > pl_model_get_n_positions (model))
    pl_workspace_set_selection (self, 0, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

guint
pl_workspace_get_n_layers (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), 0);

  if (self->model == NULL || !(pl_model_has_forward (self->model) || pl_model_get_activations (self->model)))
    return 0;
  return pl_model_get_n_layers (self->model);
}

guint
pl_workspace_get_layer_index (PlWorkspace *self,
                              guint        n_layers)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), 0);

  if (n_layers == 0)
    n_layers = pl_workspace_get_n_layers (self);
  return (guint) CLAMP (self->layer, 1, (int) MAX (n_layers, 1)) - 1;
}

guint
pl_workspace_get_n_heads (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), 0);

  if (self->model == NULL || !(pl_model_has_forward (self->model) || pl_model_get_activations (self->model)))
    return 0;
  return pl_model_get_n_heads (self->model);
}

int
pl_workspace_get_layer (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), PL_LAYER_TABLE);
  return self->layer;
}

void
pl_workspace_set_layer (PlWorkspace *self,
                        int          layer)
{
  g_return_if_fail (PL_IS_WORKSPACE (self));

  layer = CLAMP (layer, PL_LAYER_TABLE, (int) pl_workspace_get_n_layers (self));
  if (self->layer == layer)
    return;
  self->layer = layer;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAYER]);
}

char *
pl_workspace_describe_layer (PlWorkspace *self,
                             int          layer)
{
  if (layer == PL_LAYER_TABLE)
    return g_strdup (_("Position table"));
  if (layer == 0)
    return g_strdup (_("Embedding output"));
  return g_strdup_printf (_("Layer %d"), layer);
}

guint
pl_workspace_get_head (PlWorkspace *self)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), 0);
  return self->head;
}

void
pl_workspace_set_head (PlWorkspace *self,
                       guint        head)
{
  guint n;

  g_return_if_fail (PL_IS_WORKSPACE (self));

  n = pl_workspace_get_n_heads (self);
  head = n > 0 ? MIN (head, n - 1) : 0;
  if (self->head == head)
    return;
  self->head = head;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HEAD]);
}

void
pl_workspace_get_selection (PlWorkspace *self,
                            guint       *start,
                            guint       *end)
{
  g_return_if_fail (PL_IS_WORKSPACE (self));
  *start = self->selection_start;
  *end = self->selection_end;
}

void
pl_workspace_set_selection (PlWorkspace *self,
                            guint        start,
                            guint        end)
{
  g_return_if_fail (PL_IS_WORKSPACE (self));

  if (end < start)
    {
      guint t = start;
      start = end;
      end = t;
    }
  if (self->selection_start == start && self->selection_end == end)
    return;
  self->selection_start = start;
  self->selection_end = end;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTION]);
}

gboolean
pl_workspace_get_dark (PlWorkspace *self)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

gboolean
pl_workspace_shows_patches (PlWorkspace *self,
                            guint       *cols)
{
  return self != NULL && pl_question_shows_patches (self->model, self->layer, cols);
}

/* ---- Tables by layer ------------------------------------------------------ */

typedef struct
{
  PlModel       *model;
  PlTransformer *transformer;   /* for layers */
  int            layer;
} TableInput;

static TableInput *
table_input_new (PlModel *model,
                 int      layer)
{
  TableInput *input = g_new0 (TableInput, 1);

  input->model = g_object_ref (model);
  input->layer = layer;
  return input;
}

static void
table_input_free (TableInput *input)
{
  g_clear_object (&input->model);
  g_clear_object (&input->transformer);
  g_free (input);
}

static void
forward_progress (double fraction, gpointer job)
{
  pl_analysis_job_set_progress (job, fraction);
}

static gboolean
read_table (PlAnalysisJob  *job,
            gpointer        data,
            GValue         *result,
            GError        **error)
{
  TableInput *input = data;
  g_autoptr(GPtrArray) layers = NULL;
  PlMatrix *table;

  if (input->layer == PL_LAYER_TABLE)
    {
      if (!(table = pl_model_read_positions (input->model, error)))
        return FALSE;
      g_value_init (result, PL_TYPE_MATRIX);
      g_value_take_boxed (result, table);
      return TRUE;
    }

  /* An activations file holds each layer apart: read the one asked for
   * (a 70B model's 81 layers at T = 512 are 1.4 GB read whole). */
  if (pl_model_get_activations (input->model) != NULL)
    {
      PlActivationsFile *file = pl_model_get_activations (input->model);

      if (input->layer < 0 || (guint) input->layer > pl_activations_file_get_n_layers (file))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, _("The model has no layer %d"), input->layer);
          return FALSE;
        }
      if (!(table = pl_activations_file_read_position_mean (file, (guint) input->layer, error)))
        return FALSE;
      g_value_init (result, PL_TYPE_MATRIX);
      g_value_take_boxed (result, table);
      return TRUE;
    }

  /* Every layer at once: stepping through layers afterwards is instant. */
  if (!(layers = pl_attention_positional_components (input->transformer,
                                                     pl_model_get_n_layers (input->model),
                                                     COMPONENT_SEQUENCES, pl_question_sample_length (input->model),
                                                     COMPONENT_SEED,
                                                     pl_analysis_job_get_cancellable (job),
                                                     forward_progress, job, error)))
    return FALSE;
  g_value_init (result, G_TYPE_PTR_ARRAY);
  g_value_set_boxed (result, layers);
  return TRUE;
}

static void
table_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TableInput *input = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);
  PlMatrix *table;

  if (answer == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (G_VALUE_HOLDS (answer, PL_TYPE_MATRIX))
    table = g_value_get_boxed (answer);
  else
    {
      GPtrArray *layers = g_value_get_boxed (answer);

      if ((guint) input->layer >= layers->len)
        {
          g_task_return_new_error (task, PL_ERROR, PL_ERROR_NOT_FOUND,
                                   _("The model has no layer %d"), input->layer);
          return;
        }
      table = g_ptr_array_index (layers, input->layer);
    }
  g_task_return_pointer (task, pl_matrix_ref (table), (GDestroyNotify) pl_matrix_unref);
}

/* Every layer is one answer (one set of forward passes over random inputs). */
static void
layers_transformer_done (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  PlWorkspace *self = PL_WORKSPACE (object);
  GTask *task = user_data;
  TableInput *wanted = g_task_get_task_data (task);
  GError *error = NULL;
  PlTransformer *transformer = pl_workspace_get_transformer_finish (self, result, &error);
  g_autofree char *key = NULL;
  TableInput *input;

  if (transformer == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  input = table_input_new (wanted->model, wanted->layer);
  input->transformer = transformer;
  key = g_strdup_printf ("layers/%s", pl_question_model_key (wanted->model));
  pl_analysis_cache_run_async (self->cache, key, read_table, input, (GDestroyNotify) table_input_free,
                               NULL, NULL, g_task_get_cancellable (task), table_done, task);
}

void
pl_workspace_get_table_async (PlWorkspace         *self,
                              PlModel             *model,
                              int                  layer,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;
  g_autofree char *key = NULL;

  g_return_if_fail (PL_IS_WORKSPACE (self));
  g_return_if_fail (PL_IS_MODEL (model));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pl_workspace_get_table_async);
  g_task_set_task_data (task, table_input_new (model, layer), (GDestroyNotify) table_input_free);

  if (layer == PL_LAYER_TABLE)
    {
      key = g_strdup_printf ("table/%s", pl_question_model_key (model));
      pl_analysis_cache_run_async (self->cache, key, read_table,
                                   table_input_new (model, layer), (GDestroyNotify) table_input_free,
                                   NULL, NULL, cancellable, table_done, task);
      return;
    }

  /* An activations file measured them; other models need the forward pass first. */
  if (pl_model_get_activations (model) != NULL)
    {
      key = g_strdup_printf ("layer/%d/%s", layer, pl_question_model_key (model));
      pl_analysis_cache_run_async (self->cache, key, read_table,
                                   table_input_new (model, layer), (GDestroyNotify) table_input_free,
                                   NULL, NULL, cancellable, table_done, task);
      return;
    }
  pl_workspace_get_transformer_async (self, model, cancellable, layers_transformer_done, task);
}

PlMatrix *
pl_workspace_get_table_finish (PlWorkspace   *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- The forward pass ------------------------------------------------------ */

static gboolean
build_transformer (PlAnalysisJob  *job,
                   gpointer        data,
                   GValue         *result,
                   GError        **error)
{
  PlTransformer *transformer = pl_transformer_new (PL_MODEL (data), pl_analysis_job_get_cancellable (job), error);

  if (transformer == NULL)
    return FALSE;
  g_value_init (result, PL_TYPE_TRANSFORMER);
  g_value_take_object (result, transformer);
  return TRUE;
}

static void
transformer_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  const GValue *answer = pl_analysis_cache_run_finish (PL_ANALYSIS_CACHE (object), result, &error);

  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_value_dup_object (answer), g_object_unref);
}

void
pl_workspace_get_transformer_async (PlWorkspace         *self,
                                    PlModel             *model,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;
  g_autofree char *key = NULL;

  g_return_if_fail (PL_IS_WORKSPACE (self));
  g_return_if_fail (PL_IS_MODEL (model));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pl_workspace_get_transformer_async);
  key = g_strdup_printf ("transformer/%s", pl_question_model_key (model));
  pl_analysis_cache_run_async (self->cache, key, build_transformer, g_object_ref (model), g_object_unref,
                               NULL, NULL, cancellable, transformer_done, task);
}

PlTransformer *
pl_workspace_get_transformer_finish (PlWorkspace   *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (PL_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- GObject ---------------------------------------------------------------- */

static void
on_dark_changed (PlWorkspace *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DARK]);
}

static void
pl_workspace_dispose (GObject *object)
{
  PlWorkspace *self = PL_WORKSPACE (object);

  g_clear_object (&self->model);
  g_clear_object (&self->models);
  g_clear_object (&self->cache);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (pl_workspace_parent_class)->dispose (object);
}

static void
pl_workspace_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PlWorkspace *self = PL_WORKSPACE (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_LAYER:
      g_value_set_int (value, self->layer);
      break;
    case PROP_HEAD:
      g_value_set_uint (value, self->head);
      break;
    case PROP_SELECTION:
      g_value_set_uint64 (value, ((guint64) self->selection_start << 32) | self->selection_end);
      break;
    case PROP_DARK:
      g_value_set_boolean (value, pl_workspace_get_dark (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_workspace_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  PlWorkspace *self = PL_WORKSPACE (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      pl_workspace_set_model (self, g_value_get_object (value));
      break;
    case PROP_LAYER:
      pl_workspace_set_layer (self, g_value_get_int (value));
      break;
    case PROP_HEAD:
      pl_workspace_set_head (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pl_workspace_class_init (PlWorkspaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pl_workspace_dispose;
  object_class->get_property = pl_workspace_get_property;
  object_class->set_property = pl_workspace_set_property;

  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, PL_TYPE_MODEL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_LAYER] =
    g_param_spec_int ("layer", NULL, NULL, PL_LAYER_TABLE, G_MAXINT, PL_LAYER_TABLE,
                      (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_HEAD] =
    g_param_spec_uint ("head", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* Notified when the selected range changes; read it with pl_workspace_get_selection(). */
  properties[PROP_SELECTION] =
    g_param_spec_uint64 ("selection", NULL, NULL, 0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_DARK] =
    g_param_spec_boolean ("dark", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pl_workspace_init (PlWorkspace *self)
{
  self->layer = PL_LAYER_TABLE;
  self->cache = pl_analysis_cache_new ();
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}
