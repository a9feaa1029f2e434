/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"

G_BEGIN_DECLS

#define PL_TYPE_EXPORT_DIALOG (pl_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PlExportDialog, pl_export_dialog, PL, EXPORT_DIALOG, AdwWindow)

/* SETTINGS (may be NULL) gives the starting format, size and resolution, and
 * keeps what the user picks. NAME is the suggested file name without extension. */
PlExportDialog *pl_export_dialog_new    (GtkWindow      *parent,
                                         PlFigure       *figure,
                                         const char     *name,
                                         GSettings      *settings);
/* Writes the figure to PATH with the dialog's choices, the format taken from
 * PATH's extension; what the file chooser's answer calls, and tests too. */
gboolean        pl_export_dialog_export (PlExportDialog *self,
                                         const char     *path,
                                         GError        **error);

G_END_DECLS
