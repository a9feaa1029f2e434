/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-pickle.h"

G_BEGIN_DECLS

/* What the unpickler's files share: pl-pickle.c (the machine and the
 * binary instructions), pl-pickle-text.c (protocols 0 and 1's text ones)
 * and pl-pickle-globals.c (the globals it knows). */
struct _PlPickle
{
  GBytes        *bytes;
  const guint8  *data;
  gsize          len;
  gsize          pos;
  gsize          start;
  const char    *what;
  GPtrArray     *blocks;      /* PlPickleValue[BLOCK_VALUES] */
  guint          n_values;
  PlPickleItems  stack;
  GArray        *marks;       /* guint: stack heights at each MARK */
  PlPickleItems  memo;        /* NULL where unset */
  PlPickleItems  pids;        /* every PERSISTENT_ID, in order */
  GPtrArray     *texts;       /* what text instructions decoded (pl-pickle-text.c) */
  guint64        pushes;      /* values pushed so far: no memo index runs past them */
  gsize          cost;        /* bytes of all the above, against… */
  gsize          limit;       /* …the budget */
  PlPickleValue *root;
  gboolean       truncated;
};

/* Sets ERROR to "WHAT: MESSAGE (pickle byte N)" and returns FALSE. */
gboolean              pl_pickle_fail        (PlPickle       *self,
                                             GError        **error,
                                             const char     *format,
                                             ...) G_GNUC_PRINTF (3, 4);
/* The pickle ends before the instruction does: FALSE, marked truncated. */
gboolean              pl_pickle_ran_out     (PlPickle       *self,
                                             GError        **error);
PlPickleValue        *pl_pickle_new_value   (PlPickle       *self,
                                             PlPickleKind    kind,
                                             GError        **error);
/* The shared True or False. */
PlPickleValue        *pl_pickle_bool        (gboolean        value);
/* SIZE bytes that live as long as the pickle, for decoded text; NULL with
 * ERROR past the budget. */
gpointer              pl_pickle_alloc_text  (PlPickle       *self,
                                             gsize           size,
                                             GError        **error);
/* Pushes VALUE; FALSE when it is NULL (its maker failed). */
gboolean              pl_pickle_push        (PlPickle       *self,
                                             PlPickleValue  *value,
                                             GError        **error);
gboolean              pl_pickle_memo_put    (PlPickle       *self,
                                             guint64         index,
                                             GError        **error);
gboolean              pl_pickle_memo_get    (PlPickle       *self,
                                             guint64         index,
                                             GError        **error);
/* Runs OP when it is one of the text instructions (INT, LONG, FLOAT,
 * UNICODE, STRING, PUT, GET, PERSID), setting *HANDLED; *HANDLED is FALSE
 * for any other. */
gboolean              pl_pickle_step_text   (PlPickle       *self,
                                             guint8          op,
                                             gboolean       *handled,
                                             GError        **error);

/* The allowed global MODULE.NAME (pl-pickle-globals.c: the list, and the
 * Python 2 module names pickle writes for Python 3's), or NULL when it is
 * not allowed. *FULL is set in either case to the name as Python 3 reads
 * it, for messages. */
const PlPickleGlobal *pl_pickle_find_global (const char  *module,
                                             gsize        module_len,
                                             const char  *name,
                                             gsize        name_len,
                                             char       **full);

G_END_DECLS
