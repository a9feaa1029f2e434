/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-pickle-private.h"

/* Reading what the unpickler built: containers' items, texts, numbers. */

const PlPickleValue *
pl_pickle_get_root (PlPickle *self)
{
  return self->root;
}

gsize
pl_pickle_get_end (PlPickle *self)
{
  return self->pos;
}

const PlPickleValue * const *
pl_pickle_get_persistent_ids (PlPickle *self,
                              guint    *n)
{
  *n = self->pids.len;
  return (const PlPickleValue * const *) self->pids.data;
}

guint
pl_pickle_value_get_length (const PlPickleValue *value)
{
  if (value->kind < PL_PICKLE_TUPLE || value->kind > PL_PICKLE_DICT)
    return 0;
  return value->items.len;
}

const PlPickleValue *
pl_pickle_value_get_item (const PlPickleValue *value,
                          guint                i)
{
  g_return_val_if_fail (i < pl_pickle_value_get_length (value), NULL);
  return value->items.data[i];
}

gboolean
pl_pickle_value_is_text (const PlPickleValue *value)
{
  return value->kind == PL_PICKLE_STRING || value->kind == PL_PICKLE_BYTES;
}

gboolean
pl_pickle_value_get_uint (const PlPickleValue *value,
                          guint64             *out)
{
  if (value->kind != PL_PICKLE_INT || value->integer < 0)
    return FALSE;
  *out = (guint64) value->integer;
  return TRUE;
}

gboolean
pl_pickle_value_equals (const PlPickleValue *value,
                        const char          *text)
{
  gsize len = strlen (text);

  return (value->kind == PL_PICKLE_STRING || value->kind == PL_PICKLE_BYTES) &&
         value->bytes.len == len && memcmp (value->bytes.data, text, len) == 0;
}

const PlPickleValue *
pl_pickle_dict_lookup (const PlPickleValue *dict,
                       const char          *key)
{
  guint n = pl_pickle_value_get_length (dict);

  if (dict->kind != PL_PICKLE_DICT)
    return NULL;
  for (guint i = 0; i + 1 < n; i += 2)
    if (pl_pickle_value_equals (dict->items.data[i], key))
      return dict->items.data[i + 1];
  return NULL;
}
