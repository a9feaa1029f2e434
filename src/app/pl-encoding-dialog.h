/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Asks for an analytic encoding (kind, length, width or heads, base); its
 * "add" response means the spec is ready. */

#define PL_TYPE_ENCODING_DIALOG (pl_encoding_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PlEncodingDialog, pl_encoding_dialog, PL, ENCODING_DIALOG, AdwMessageDialog)

PlEncodingDialog *pl_encoding_dialog_new      (GtkWindow        *parent);
/* "builtin:sinusoidal:1024x512:10000", as pl_model_open reads it. */
char             *pl_encoding_dialog_get_spec (PlEncodingDialog *self);
/* For tests: fills the dialog as a user would. */
void              pl_encoding_dialog_set      (PlEncodingDialog *self,
                                               int               kind,
                                               guint             length,
                                               guint             width,
                                               double            base);

G_END_DECLS
