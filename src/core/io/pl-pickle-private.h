/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-pickle.h"

G_BEGIN_DECLS

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
