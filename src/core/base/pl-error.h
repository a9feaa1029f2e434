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

G_END_DECLS
