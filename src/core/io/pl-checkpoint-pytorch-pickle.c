/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-checkpoint-pytorch-private.h"
#include "pl-error.h"

/* What a state dict's pickle says: its storages (type, key, size) and its
 * tensors (views into them), checked against each other. */

/* Storage keys are decimal numbers ("0", "94229433675744"). */
#define MAX_KEY_LENGTH    64
/* What listing a tensor takes besides its name: its entry, its view, and
 * its places in the checkpoint's tables. */
#define ENTRY_BYTES       384
/* What registering a storage takes besides its key: its record and its
 * place in the table by key. */
#define STORAGE_BYTES     128
/* Elements an expanded view may have beyond its storage's, when read. */
#define MAX_EXPANDED      ((guint64) 1 << 20)

static PlDType
dtype_of (const PlPickleGlobal *type)
{
  if (strcmp (type->dtype, "F32") == 0)
    return PL_DTYPE_F32;
  if (strcmp (type->dtype, "F16") == 0)
    return PL_DTYPE_F16;
  if (strcmp (type->dtype, "BF16") == 0)
    return PL_DTYPE_BF16;
  if (strcmp (type->dtype, "F64") == 0)
    return PL_DTYPE_F64;
  return PL_DTYPE_OTHER;
}

/* A persistent id: ('storage', type, key, location, numel) in the zip
 * format, with a sixth item, a view of the storage or None, in the legacy
 * one: each format's loader in torch unpacks exactly its own. */
static gboolean
parse_pid (PlPytorchLoad                  *load,
           const PlPickleValue   *pid,
           char                 **key,
           const PlPickleGlobal **type,
           guint64               *numel,
           const PlPickleValue  **view,
           GError               **error)
{
  const PlPickleValue *id = pid->pid;
  guint n = pl_pickle_value_get_length (id);
  const PlPickleValue *key_value;
  const PlPickleValue *type_value;

  if (n != (load->legacy ? 6u : 5u))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: a storage’s persistent id has %u items, where the %s format has %d (torch cannot load it "
                   "either)", load->path, n, load->legacy ? "legacy" : "zip", load->legacy ? 6 : 5);
      return FALSE;
    }
  type_value = pl_pickle_value_get_item (id, 1);
  key_value = pl_pickle_value_get_item (id, 2);
  if (type_value->kind != PL_PICKLE_GLOBAL || type_value->global->kind != PL_PICKLE_GLOBAL_STORAGE ||
      !pl_pickle_value_is_text (key_value) || key_value->bytes.len == 0 || key_value->bytes.len > MAX_KEY_LENGTH ||
      memchr (key_value->bytes.data, '\0', key_value->bytes.len) != NULL ||
      memchr (key_value->bytes.data, '/', key_value->bytes.len) != NULL ||
      !pl_pickle_value_is_text (pl_pickle_value_get_item (id, 3)) ||
      !pl_pickle_value_get_uint (pl_pickle_value_get_item (id, 4), numel))
    goto bad;
  *view = n == 6 ? pl_pickle_value_get_item (id, 5) : NULL;
  if (*view != NULL && (*view)->kind == PL_PICKLE_NONE)
    *view = NULL;
  *type = type_value->global;
  *key = g_strndup (key_value->bytes.data, key_value->bytes.len);
  return TRUE;

bad:
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
               "%s: a storage’s persistent id is not (“storage”, type, key, location, size)", load->path);
  return FALSE;
}

/* A legacy view (VIEW_KEY, offset, size) of the storage KEY. torch's legacy
 * loader keeps storages and views by key in one table and returns what a
 * key first stood for: a view key met again is the first view, whatever
 * offset and size it is given then. A key that names both a storage and a
 * view is refused: what it stands for would depend on the order. */
static gboolean
register_view (PlPytorchLoad         *load,
               const char            *key,
               const PlPickleGlobal  *type,
               guint64                numel,
               const PlPickleValue   *view,
               GError               **error)
{
  g_autofree char *view_key = NULL;
  const PlPytorchLegacyView *known;
  PlPytorchLegacyView *made;
  guint64 view_offset, view_size;

  if (view->kind != PL_PICKLE_TUPLE || pl_pickle_value_get_length (view) != 3 ||
      !pl_pickle_value_is_text (pl_pickle_value_get_item (view, 0)) ||
      !pl_pickle_value_get_uint (pl_pickle_value_get_item (view, 1), &view_offset) ||
      !pl_pickle_value_get_uint (pl_pickle_value_get_item (view, 2), &view_size) ||
      view_offset > numel || view_size > numel - view_offset)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: a view of storage %s lies outside it or is not (key, offset, size)", load->path, key);
      return FALSE;
    }
  view_key = g_strndup (pl_pickle_value_get_item (view, 0)->bytes.data, pl_pickle_value_get_item (view, 0)->bytes.len);
  if (g_hash_table_contains (load->by_key, view_key) || g_hash_table_contains (load->views_by_key, key) ||
      strcmp (view_key, key) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: key %s names both a storage and a view of one", load->path,
                   g_hash_table_contains (load->views_by_key, key) ? key : view_key);
      return FALSE;
    }
  if ((known = g_hash_table_lookup (load->views_by_key, view_key)) != NULL)
    {
      if (known->type != type)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: view %s is named twice, as %s and as %s",
                       load->path, view_key, known->type->name, type->name);
          return FALSE;
        }
      return TRUE;
    }
  made = g_new0 (PlPytorchLegacyView, 1);
  made->root = g_strdup (key);
  made->type = type;
  made->offset = view_offset;
  made->size = view_size;
  g_hash_table_insert (load->views_by_key, g_steal_pointer (&view_key), made);
  return TRUE;
}

/* Every storage the pickle names, wherever it is used, in a legacy file's
 * layout needs them all. */
gboolean
pl_checkpoint_pytorch_register_storages (PlPytorchLoad      *load,
                   PlPickle  *pickle,
                   GError   **error)
{
  guint n;
  const PlPickleValue * const *pids = pl_pickle_get_persistent_ids (pickle, &n);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = NULL;
      const PlPickleGlobal *type;
      const PlPickleValue *view;
      guint64 numel;
      guint index;

      if (!parse_pid (load, pids[i], &key, &type, &numel, &view, error) ||
          (view != NULL && !register_view (load, key, type, numel, view, error)))
        return FALSE;
      if (g_hash_table_contains (load->views_by_key, key))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: key %s names both a storage and a view of one",
                       load->path, key);
          return FALSE;
        }
      index = GPOINTER_TO_UINT (g_hash_table_lookup (load->by_key, key));
      if (index != 0)
        {
          const PlPytorchStorage *known = &g_array_index (load->self->storages, PlPytorchStorage, index - 1);

          if (known->type != type || known->numel != numel)
            {
              g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                           "%s: storage %s is named twice, as %s of %" G_GUINT64_FORMAT " and as %s of %"
                           G_GUINT64_FORMAT " elements", load->path, key, known->type->name, known->numel,
                           type->name, numel);
              return FALSE;
            }
          continue;
        }
      if (numel > G_MAXUINT64 / type->elem_size)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: storage %s claims %" G_GUINT64_FORMAT " elements, more than any file holds",
                       load->path, key, numel);
          return FALSE;
        }
      /* Each storage costs its record against the pickle's budget, as each
       * name does (add_tensor): a state dict's pickle of some 100 bytes a
       * tensor names a storage for each. */
      if (!pl_pickle_charge (pickle, STORAGE_BYTES + 2 * strlen (key), load->path, error))
        return FALSE;
      {
        PlPytorchStorage storage = { load->shard, G_MAXUINT64, numel, type };

        g_array_append_val (load->self->storages, storage);
        g_hash_table_insert (load->by_key, g_steal_pointer (&key), GUINT_TO_POINTER (load->self->storages->len));
      }
    }
  return TRUE;
}

/* The tensor a state dict's value holds: the storage view it rebuilds, or
 * FALSE without error for values that are not (readable) tensors. */
typedef struct
{
  guint                 storage;
  guint64               offset;
  guint64               limit;      /* elements the view may reach */
  guint                 rank;
  guint64               shape[PL_TENSOR_MAX_RANK];
  guint64               stride[PL_TENSOR_MAX_RANK];
} TensorSpec;

static gboolean
bad_tensor (PlPytorchLoad        *load,
            const char  *name,
            const char  *why,
            GError     **error)
{
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: tensor “%s”: %s", load->path, name, why);
  return FALSE;
}

static gboolean
read_dims (PlPytorchLoad                 *load,
           const char           *name,
           const PlPickleValue  *tuple,
           guint64              *dims,
           guint                *rank,
           GError              **error)
{
  guint n = pl_pickle_value_get_length (tuple);

  if (tuple->kind != PL_PICKLE_TUPLE && tuple->kind != PL_PICKLE_LIST)
    return bad_tensor (load, name, "its size or stride is not a tuple", error);
  if (n > PL_TENSOR_MAX_RANK)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: tensor “%s” has %u dimensions, more than %d",
                   load->path, name, n, PL_TENSOR_MAX_RANK);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (!pl_pickle_value_get_uint (pl_pickle_value_get_item (tuple, i), &dims[i]))
      return bad_tensor (load, name, "its size or stride holds something other than a non-negative integer", error);
  *rank = n;
  return TRUE;
}

static gboolean
tensor_spec (PlPytorchLoad                 *load,
             const char           *name,
             const PlPickleValue  *value,
             TensorSpec           *spec,
             gboolean             *is_tensor,
             GError              **error)
{
  const PlPickleGlobal *func;
  const PlPickleValue *args;
  const PlPickleValue *pid;
  g_autofree char *key = NULL;
  const PlPickleGlobal *type;
  const PlPickleValue *view;
  guint64 numel, offset;
  guint stride_rank;
  guint index;

  *is_tensor = FALSE;
  if (value->kind != PL_PICKLE_CALL)
    return TRUE;
  func = value->call.func;
  args = value->call.args;
  /* A parameter wraps a tensor; a tensor with Python attributes is rebuilt
   * through _rebuild_from_type_v2 (func, type, args, state). Each unwraps
   * once; a parameter of a parameter is not something torch writes. */
  if ((func->kind == PL_PICKLE_GLOBAL_REBUILD_PARAMETER || func->kind == PL_PICKLE_GLOBAL_TENSOR_TYPE) &&
      pl_pickle_value_get_length (args) >= 1 && pl_pickle_value_get_item (args, 0)->kind == PL_PICKLE_CALL)
    {
      value = pl_pickle_value_get_item (args, 0);
      func = value->call.func;
      args = value->call.args;
    }
  if (func->kind == PL_PICKLE_GLOBAL_REBUILD_FROM_TYPE && pl_pickle_value_get_length (args) >= 3 &&
      pl_pickle_value_get_item (args, 0)->kind == PL_PICKLE_GLOBAL)
    {
      func = pl_pickle_value_get_item (args, 0)->global;
      args = pl_pickle_value_get_item (args, 2);
      if (args->kind != PL_PICKLE_TUPLE)
        return bad_tensor (load, name, "its arguments are not a tuple", error);
    }
  if (func->kind != PL_PICKLE_GLOBAL_REBUILD_TENSOR && func->kind != PL_PICKLE_GLOBAL_REBUILD_TENSOR_V2)
    return TRUE;

  /* _rebuild_tensor[_v2] (storage, storage_offset, size, stride, …) */
  if (pl_pickle_value_get_length (args) < 4)
    return bad_tensor (load, name, "it is rebuilt from fewer than 4 arguments", error);
  pid = pl_pickle_value_get_item (args, 0);
  if (pid->kind != PL_PICKLE_PERSISTENT_ID)
    return bad_tensor (load, name, "its storage is not a reference to stored data", error);
  if (!pl_pickle_value_get_uint (pl_pickle_value_get_item (args, 1), &offset))
    return bad_tensor (load, name, "its storage offset is not a non-negative integer", error);
  if (!read_dims (load, name, pl_pickle_value_get_item (args, 2), spec->shape, &spec->rank, error) ||
      !read_dims (load, name, pl_pickle_value_get_item (args, 3), spec->stride, &stride_rank, error))
    return FALSE;
  if (stride_rank != spec->rank)
    return bad_tensor (load, name, "its size and stride have different lengths", error);
  if (!parse_pid (load, pid, &key, &type, &numel, &view, error))
    return FALSE;
  index = GPOINTER_TO_UINT (g_hash_table_lookup (load->by_key, key));
  g_assert (index != 0);
  spec->storage = index - 1;
  spec->offset = offset;
  spec->limit = numel;
  /* A legacy view of a storage: the one its key first stood for
   * (register_view), which may be of another storage. */
  if (view != NULL)
    {
      g_autofree char *view_key = g_strndup (pl_pickle_value_get_item (view, 0)->bytes.data,
                                             pl_pickle_value_get_item (view, 0)->bytes.len);
      const PlPytorchLegacyView *known = g_hash_table_lookup (load->views_by_key, view_key);

      g_assert (known != NULL);
      index = GPOINTER_TO_UINT (g_hash_table_lookup (load->by_key, known->root));
      g_assert (index != 0);
      spec->storage = index - 1;
      if (offset > G_MAXUINT64 - known->offset)
        return bad_tensor (load, name, "its storage offset overflows", error);
      spec->offset = known->offset + offset;
      spec->limit = known->offset + known->size;
    }
  *is_tensor = TRUE;
  return TRUE;
}

/* Checks a view against its storage and lists it. */
static gboolean
add_tensor (PlPytorchLoad              *load,
            const char        *name,
            const TensorSpec  *spec,
            GError           **error)
{
  const PlPytorchStorage *storage = &g_array_index (load->self->storages, PlPytorchStorage, spec->storage);
  guint64 count = 1, last = spec->offset;
  PlTensorEntry *entry;
  PlPytorchView *view;

  for (guint i = 0; i < spec->rank; i++)
    if (!g_uint64_checked_mul (&count, count, spec->shape[i]))
      return bad_tensor (load, name, "its shape overflows", error);
  if (count > 0)
    for (guint i = 0; i < spec->rank; i++)
      {
        guint64 reach;

        if (!g_uint64_checked_mul (&reach, spec->shape[i] - 1, spec->stride[i]) ||
            !g_uint64_checked_add (&last, last, reach))
          return bad_tensor (load, name, "its view overflows", error);
      }
  if (count > 0 && last >= spec->limit)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: tensor “%s” reaches element %" G_GUINT64_FORMAT " of a storage of %" G_GUINT64_FORMAT
                   " (a view past the end of its storage)", load->path, name, last, spec->limit);
      return FALSE;
    }
  /* A name costs its entry, view and places in the tables: counted against
   * the pickle's budget, so that a tensor named a million times through
   * the memo is refused for what it would cost. */
  if (!pl_pickle_charge (load->pickle, ENTRY_BYTES + 2 * strlen (name), load->path, error))
    return FALSE;
  entry = pl_checkpoint_add_tensor (PL_CHECKPOINT (load->self), name, spec->rank, spec->shape,
                                    dtype_of (storage->type), storage->type->dtype);
  if (entry == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: tensor “%s” appears twice", load->path, name);
      return FALSE;
    }
  entry->shard = load->shard;
  entry->elem_size = storage->type->elem_size;
  /* More elements than the storage span it covers: some are the same. */
  entry->info.repeats = count > 0 && count > last - spec->offset + 1;
  if (!g_uint64_checked_mul (&entry->nbytes, count, entry->elem_size))
    entry->nbytes = G_MAXUINT64;
  /* An expanded view (stride 0) can name more elements than it stores:
   * small ones are read (broadcast buffers), large ones would materialise
   * more than the file holds. */
  if (count > spec->limit && count > MAX_EXPANDED)
    entry->refusal = g_strdup_printf ("is an expanded view of %" G_GUINT64_FORMAT " elements over a storage of %"
                                      G_GUINT64_FORMAT ", which Poslens does not read", count, spec->limit);
  view = g_new0 (PlPytorchView, 1);
  view->storage = spec->storage;
  view->offset = spec->offset;
  view->extent = count > 0 ? last - spec->offset + 1 : 0;
  memcpy (view->stride, spec->stride, sizeof view->stride);
  g_hash_table_insert (load->self->views, entry, view);
  return TRUE;
}

static gboolean
is_tensor_call (const PlPickleValue *value)
{
  return value->kind == PL_PICKLE_CALL &&
         (value->call.func->kind == PL_PICKLE_GLOBAL_TENSOR_TYPE ||
          value->call.func->kind == PL_PICKLE_GLOBAL_REBUILD_TENSOR ||
          value->call.func->kind == PL_PICKLE_GLOBAL_REBUILD_TENSOR_V2 ||
          value->call.func->kind == PL_PICKLE_GLOBAL_REBUILD_PARAMETER ||
          value->call.func->kind == PL_PICKLE_GLOBAL_REBUILD_FROM_TYPE ||
          value->call.func->kind == PL_PICKLE_GLOBAL_REBUILD_OTHER);
}

/* How deep under the file's object a dict of tensors is looked for: a
 * training checkpoint's {"model_state_dict": …}, {"checkpoint": {"model":
 * …}}, a list of them, and a few levels more. Each container is visited
 * once, so the depth bounds only the length of the paths named. */
#define MAX_NESTING 8

/* The names training code keeps a model's state dict under, in the order
 * they win a tie between dicts of as many tensors (a model and its EMA). */
static const char * const state_dict_names[] = {
  "state_dict", "model_state_dict", "model", "module", "net", "network", "params", "weights",
};

typedef struct
{
  const PlPickleValue *dict;
  char                *path;       /* "model_state_dict", "checkpoint.model", "" for the object itself */
  gboolean             optimizer;  /* under an optimizer's state ("optimizer.state.0") */
  guint                n_tensors;
  guint                rank;       /* of its last key in state_dict_names, or G_N_ELEMENTS */
} Found;

static guint
name_rank (const char *path)
{
  const char *last = strrchr (path, '.');

  last = last != NULL ? last + 1 : path;
  for (guint i = 0; i < G_N_ELEMENTS (state_dict_names); i++)
    if (strcmp (last, state_dict_names[i]) == 0)
      return i;
  return G_N_ELEMENTS (state_dict_names);
}

/* An optimizer's per-parameter state (Adam's step, exp_avg, exp_avg_sq)
 * can hold more tensors than a tiny model: a model's dict wins first. */
static gboolean
better (const Found *a,
        const Found *b)
{
  if (a->optimizer != b->optimizer)
    return !a->optimizer;
  if (a->n_tensors != b->n_tensors)
    return a->n_tensors > b->n_tensors;
  return a->rank < b->rank;
}

/* Every dict under VALUE (itself included), each container visited once
 * (the memo can make a pickle's values a graph with cycles): the one with
 * the most tensors is kept in BEST. */
static void
find_dicts (const PlPickleValue *value,
            const char          *path,
            guint                depth,
            GHashTable          *seen,
            Found               *best)
{
  guint n = pl_pickle_value_get_length (value);
  gboolean dict = value->kind == PL_PICKLE_DICT;

  if ((value->kind != PL_PICKLE_DICT && value->kind != PL_PICKLE_LIST && value->kind != PL_PICKLE_TUPLE) ||
      !g_hash_table_add (seen, (gpointer) value))
    return;
  if (dict)
    {
      g_autofree char *lower = g_ascii_strdown (path, -1);
      Found here = { value, (char *) path, strstr (lower, "optim") != NULL, 0, name_rank (path) };

      for (guint i = 0; i + 1 < n; i += 2)
        if (pl_pickle_value_is_text (pl_pickle_value_get_item (value, i)) &&
            is_tensor_call (pl_pickle_value_get_item (value, i + 1)))
          here.n_tensors++;
      if (here.n_tensors > 0 && (best->dict == NULL || better (&here, best)))
        {
          g_free (best->path);
          *best = here;
          best->path = g_strdup (path);
        }
    }
  if (depth == MAX_NESTING)
    return;
  for (guint i = dict ? 1 : 0; i < n; i += dict ? 2 : 1)
    {
      const PlPickleValue *item = pl_pickle_value_get_item (value, i);
      const PlPickleValue *key = dict ? pl_pickle_value_get_item (value, i - 1) : NULL;
      g_autofree char *name = NULL;
      g_autofree char *inner = NULL;

      if (item->kind != PL_PICKLE_DICT && item->kind != PL_PICKLE_LIST && item->kind != PL_PICKLE_TUPLE)
        continue;
      if (key != NULL && pl_pickle_value_is_text (key))
        name = g_strndup (key->bytes.data, MIN (key->bytes.len, 64));
      else if (key != NULL && key->kind == PL_PICKLE_INT)
        name = g_strdup_printf ("%" G_GINT64_FORMAT, key->integer);
      else
        name = g_strdup_printf ("%u", dict ? (i - 1) / 2 : i);
      inner = path[0] != '\0' ? g_strconcat (path, ".", name, NULL) : g_strdup (name);
      find_dicts (item, inner, depth + 1, seen, best);
    }
}

/* How many of the items of a list or tuple are tensors, for a refusal. */
static guint
count_tensors (const PlPickleValue *list)
{
  guint n = 0;

  for (guint i = 0; i < pl_pickle_value_get_length (list); i++)
    n += is_tensor_call (pl_pickle_value_get_item (list, i));
  return n;
}

/* "“epoch”, “optimizer”, …": the text keys of DICT, for a refusal. */
static char *
describe_keys (const PlPickleValue *dict)
{
  GString *keys = g_string_new (NULL);
  guint shown = 0;

  for (guint i = 0; i + 1 < pl_pickle_value_get_length (dict); i += 2)
    {
      const PlPickleValue *key = pl_pickle_value_get_item (dict, i);

      if (!pl_pickle_value_is_text (key))
        continue;
      if (shown == 8)
        {
          g_string_append (keys, ", …");
          break;
        }
      g_string_append_printf (keys, "%s“%.*s”", shown++ ? ", " : "", (int) MIN (key->bytes.len, 64),
                              key->bytes.data);
    }
  if (shown == 0)
    g_string_append (keys, "none that is text");
  return g_string_free (keys, FALSE);
}

static gboolean
add_one (PlPytorchLoad        *load,
         const char           *name,
         const PlPickleValue  *value,
         GError              **error)
{
  TensorSpec spec = { 0 };
  gboolean is_tensor;

  if (!tensor_spec (load, name, value, &spec, &is_tensor, error))
    return FALSE;
  return !is_tensor || add_tensor (load, name, &spec, error);
}

gboolean
pl_checkpoint_pytorch_add_tensors (PlPytorchLoad  *load,
                                   PlPickle       *pickle,
                                   GError        **error)
{
  const PlPickleValue *root = pl_pickle_get_root (pickle);
  guint before = pl_checkpoint_get_n_tensors (PL_CHECKPOINT (load->self));
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  Found found = { NULL, NULL, FALSE, 0, 0 };
  const PlPickleValue *dict;

  load->pickle = pickle;
  /* torch.save (tensor): one tensor, a plain table when it is 2-D. */
  if (is_tensor_call (root))
    {
      if (!add_one (load, "tensor", root, error))
        return FALSE;
      goto done;
    }
  find_dicts (root, "", 0, seen, &found);
  if (found.dict == NULL)
    {
      g_autofree char *keys = root->kind == PL_PICKLE_DICT ? describe_keys (root) : NULL;

      if (keys != NULL)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "%s holds no tensors: its keys are %s, and no dict within %d levels under them holds tensors",
                     load->path, keys, MAX_NESTING);
      else if (root->kind == PL_PICKLE_LIST || root->kind == PL_PICKLE_TUPLE)
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s holds a %s of %u items, %u of them tensors, not a dict of named tensors; Poslens reads "
                     "state dicts, as torch.save (model.state_dict (), …) writes them", load->path,
                     root->kind == PL_PICKLE_LIST ? "list" : "tuple", pl_pickle_value_get_length (root),
                     count_tensors (root));
      else
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s holds no dict of tensors (a whole pickled model?); Poslens reads state dicts, "
                     "as torch.save (model.state_dict (), …) writes them", load->path);
      return FALSE;
    }
  dict = found.dict;
  /* Where it was found, for `info` ("model_state_dict"). */
  if (found.path[0] != '\0')
    pl_checkpoint_set_attribute (PL_CHECKPOINT (load->self), "state_dict_key", found.path);
  g_free (found.path);
  for (guint i = 0; i + 1 < pl_pickle_value_get_length (dict); i += 2)
    {
      const PlPickleValue *key = pl_pickle_value_get_item (dict, i);
      g_autofree char *name = NULL;

      if (!pl_pickle_value_is_text (key))
        continue;
      name = g_strndup (key->bytes.data, key->bytes.len);
      if (strlen (name) != key->bytes.len || !g_utf8_validate (name, -1, NULL))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: a tensor’s name is not UTF-8 text", load->path);
          return FALSE;
        }
      if (!add_one (load, name, pl_pickle_value_get_item (dict, i + 1), error))
        return FALSE;
    }
done:
  if (pl_checkpoint_get_n_tensors (PL_CHECKPOINT (load->self)) == before)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                   "%s holds no tensors Poslens can read (a state dict of float tensors)", load->path);
      return FALSE;
    }
  return TRUE;
}

/* The storage of KEY: a storage the pickle never named cannot be placed. */
PlPytorchStorage *
pl_checkpoint_pytorch_storage_of (PlPytorchLoad        *load,
            const char  *key)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (load->by_key, key));

  return index ? &g_array_index (load->self->storages, PlPytorchStorage, index - 1) : NULL;
}

