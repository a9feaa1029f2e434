/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "pl-figure.h"

G_BEGIN_DECLS

/* The file formats, by their extensions. */
typedef enum
{
  PL_EXPORT_FORMAT_PNG,
  PL_EXPORT_FORMAT_SVG,
  PL_EXPORT_FORMAT_PDF,
} PlExportFormat;

/* The typefaces: the window's sans, or a serif face for a LaTeX paper. */
typedef enum
{
  PL_EXPORT_FONT_SANS,
  PL_EXPORT_FONT_SERIF,
} PlExportFont;

/* The sizes the dialog offers besides any the user types: Custom, then
 * pl-figure-preset.h's presets in their order (PL_FIGURE_PRESET_* + 1). */
typedef enum
{
  PL_EXPORT_SIZE_CUSTOM,
  PL_EXPORT_SIZE_ONE_COLUMN,    /* 3.3 in wide, a journal's single column */
  PL_EXPORT_SIZE_TWO_COLUMNS,   /* 7 in, across the page */
  PL_EXPORT_SIZE_SLIDE,         /* 10 × 5.625 in, a 16:9 slide */
} PlExportSize;

#define PL_TYPE_EXPORT_DIALOG (pl_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PlExportDialog, pl_export_dialog, PL, EXPORT_DIALOG, AdwWindow)

/* SETTINGS (may be NULL) gives the starting format, size and resolution, and
 * keeps what the user picks. NAME is the suggested file name without extension. */
PlExportDialog *pl_export_dialog_new    (GtkWindow      *parent,
                                         PlFigure       *figure,
                                         const char     *name,
                                         GSettings      *settings);
/* What the rows would set: a preset size (with its text size), the face,
 * the title (NULL or "" for none). */
void            pl_export_dialog_set_size (PlExportDialog *self,
                                         PlExportSize    size);
void            pl_export_dialog_set_font (PlExportDialog *self,
                                         PlExportFont    font);
void            pl_export_dialog_set_title (PlExportDialog *self,
                                         const char     *title);
/* PANEL can go beside the figure, a third as wide (the explained variance
 * beside a trajectory): a switch row titled LABEL, on at first. */
void            pl_export_dialog_set_companion (PlExportDialog *self,
                                         PlFigure       *panel,
                                         const char     *label);
/* "Exported NAME" with an Open button that shows FILE in the desktop's viewer. */
AdwToast       *pl_export_dialog_new_exported_toast (GFile   *file);
/* Writes the figure to PATH with the dialog's choices, the format taken from
 * PATH's extension; what the file chooser's answer calls, and tests too. */
gboolean        pl_export_dialog_export (PlExportDialog *self,
                                         const char     *path,
                                         GError        **error);

G_END_DECLS
