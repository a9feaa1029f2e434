/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Parses JSON from a file or a checkpoint's header, refusing what would make
 * json-glib's recursive parser overflow the stack (deep nesting) or load
 * more than MAX_BYTES. WHAT names it in messages ("config.json", …). */
JsonParser *pl_json_parse      (const char  *text,
                                gsize        len,
                                const char  *what,
                                GError     **error);
JsonParser *pl_json_parse_file (const char  *path,
                                gsize        max_bytes,
                                GError     **error);

G_END_DECLS
