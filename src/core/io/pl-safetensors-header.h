/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-checkpoint.h"

G_BEGIN_DECLS

/* One tensor of a safetensors header as written, before it is checked.
 * NAME and DTYPE point into the header text (not NUL-terminated). */
typedef struct
{
  const char *name;
  gsize       name_len;
  const char *dtype;
  gsize       dtype_len;
  guint       rank;
  guint64     shape[PL_TENSOR_MAX_RANK];
  guint64     begin;
  guint64     end;
} PlSafetensorsEntry;

/* Reads a safetensors header the way nearly every writer lays it out: an
 * object of tensors, each {"dtype": S, "shape": [N…], "data_offsets": [B, E]}
 * in any order, and "__metadata__" of strings, with names free of escapes.
 * Fills ENTRIES (PlSafetensorsEntry) in the header's order and returns TRUE;
 * returns FALSE, with nothing to report, for anything else (escapes, other
 * members, numbers that are not plain, a name twice, malformed JSON): the
 * caller then parses the header as general JSON, which says what is wrong.
 *
 * It exists for speed and memory: json-glib builds a tree of the whole
 * header first (bench/NOTES.md has what that costs). */
gboolean pl_safetensors_header_scan (const char *text,
                                     gsize       len,
                                     GArray     *entries);

G_END_DECLS
