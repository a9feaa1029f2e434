/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"

G_BEGIN_DECLS

/* Analytic position encodings: models with no file. */
typedef enum
{
  PL_ENCODING_SINUSOIDAL,
  PL_ENCODING_ROPE,
  PL_ENCODING_ALIBI,
  PL_ENCODING_NONE,
} PlEncodingKind;

typedef struct
{
  PlEncodingKind kind;
  guint          length;   /* positions */
  guint          width;    /* model width (sinusoidal, RoPE head dim) */
  guint          heads;    /* ALiBi */
  double         base;     /* 10000 unless given */
} PlEncodingSpec;

/* "builtin:sinusoidal:512x768", "builtin:sinusoidal:512x768:10000", "builtin:rope:...",
 * "builtin:alibi:...", "builtin:none:..." */
gboolean  pl_encoding_spec_parse    (const char            *spec,
                                     PlEncodingSpec        *out,
                                     GError               **error);
/* Display name, e.g. "Sinusoidal 512 × 768". */
char     *pl_encoding_spec_describe (const PlEncodingSpec  *spec);
/* The Vaswani et al. table: PE[p, 2k] = sin(p / base^(2k/width)), PE[p, 2k+1] = cos(...). */
PlMatrix *pl_encoding_sinusoidal    (guint                  length,
                                     guint                  width,
                                     double                 base);
/* The position table an encoding stands for, for the table analyses; NULL and
 * an error for encodings that have none (ALiBi, none). */
PlMatrix *pl_encoding_table         (const PlEncodingSpec  *spec,
                                     GError               **error);

G_END_DECLS
