/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"
#include "pl-pickle.h"

/* Visits what the reader built: containers as a checkpoint reader walks
 * them, a few levels down (pickles may hold cycles through the memo). */
static guint
visit (const PlPickleValue *value,
       guint                depth)
{
  guint seen = 1;

  if (depth == 0)
    return seen;
  if (value->kind == PL_PICKLE_CALL)
    {
      seen += visit (value->call.args, depth - 1);
      if (value->call.state != NULL)
        seen += visit (value->call.state, depth - 1);
    }
  if (value->kind == PL_PICKLE_PERSISTENT_ID)
    seen += visit (value->pid, depth - 1);
  for (guint i = 0; i < pl_pickle_value_get_length (value) && i < 64; i++)
    seen += visit (pl_pickle_value_get_item (value, i), depth - 1);
  if (value->kind == PL_PICKLE_DICT)
    (void) pl_pickle_dict_lookup (value, "state_dict");
  return seen;
}

/* One pickle, as data.pkl or a legacy file's object: the weights-only
 * reader's every instruction and bound. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(PlPickle) pickle = NULL;
  g_autoptr(GError) error = NULL;
  gboolean truncated;

  pl_fuzz_tmpdir ();
  pickle = pl_pickle_load (bytes, 0, "data.pkl", &truncated, &error);
  g_assert ((pickle == NULL) != (error == NULL));
  g_assert (!truncated || pickle == NULL);
  if (pickle != NULL)
    {
      const PlPickleValue * const *pids;
      guint n;

      g_assert (pl_pickle_get_end (pickle) <= size);
      visit (pl_pickle_get_root (pickle), 6);
      pids = pl_pickle_get_persistent_ids (pickle, &n);
      for (guint i = 0; i < n; i++)
        g_assert (pids[i]->kind == PL_PICKLE_PERSISTENT_ID);
    }
  return 0;
}
