/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PL_ERROR (pl_error_quark ())

typedef enum
{
  PL_ERROR_FAILED,         /* anything else */
  PL_ERROR_NOT_FOUND,      /* missing file, dataset, tensor or config key */
  PL_ERROR_CORRUPT,        /* the file is not what it claims, truncated, inconsistent */
  PL_ERROR_UNSUPPORTED,    /* understood, but not something Poslens handles (dtype, rank, family) */
  PL_ERROR_INVALID_ARGUMENT,
  PL_ERROR_TOO_LARGE,      /* declared sizes beyond what can be read or allocated */
  PL_ERROR_BAD_VALUES,     /* NaN / Inf where numbers are needed */
} PlError;

GQuark pl_error_quark (void);

/* TEXT (LENGTH bytes, or up to its NUL when −1) made safe to show and to
 * print on a terminal: valid UTF-8 whose control characters are written as
 * escapes (\n, \r, \t, \e, \x7f, \u009b) and whose invalid bytes as \xff.
 * What a file says (names, bytes) goes through it before it is printed. */
char  *pl_escape_text (const char *text,
                       gssize      length);

/* MESSAGE, an error's in the core's words (which the command line prints as
 * they are), as a sentence for a status page, a label or a toast: its first
 * word capitalized, unless that word is a name (it holds anything but
 * letters, as a file or model name does). */
char  *pl_error_sentence (const char *message);

G_END_DECLS
