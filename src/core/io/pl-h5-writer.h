/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Writes an HDF5 file of float32 and int64 datasets, a dataset at a time or
 * an entry of its first dimension at a time (a forward pass writes one layer
 * of [layers, …] as it goes, so memory stays at one layer). The file is
 * built beside PATH and renamed into place by pl_h5_writer_finish, so a
 * reader never sees half a file; freed unfinished, it is removed. Messages
 * name PATH. Groups in dataset names ("/a/b") are created as needed. */
typedef struct _PlH5Writer PlH5Writer;

PlH5Writer *pl_h5_writer_new        (const char     *path,
                                     GError        **error);
/* A float32 dataset of RANK (1 to 4) dimensions DIMS, filled by put. */
gboolean    pl_h5_writer_add        (PlH5Writer     *self,
                                     const char     *name,
                                     guint           rank,
                                     const guint64  *dims,
                                     GError        **error);
/* Entry K of NAME's first dimension: as many floats as one entry holds
 * (the product of the other dimensions; 1 for a 1-D dataset). */
gboolean    pl_h5_writer_put        (PlH5Writer     *self,
                                     const char     *name,
                                     guint64         k,
                                     const float    *values,
                                     GError        **error);
/* A whole float32 dataset of RANK dimensions at once. */
gboolean    pl_h5_writer_write      (PlH5Writer     *self,
                                     const char     *name,
                                     guint           rank,
                                     const guint64  *dims,
                                     const float    *values,
                                     GError        **error);
/* A 1-D int64 dataset of N values. */
gboolean    pl_h5_writer_write_ints (PlH5Writer     *self,
                                     const char     *name,
                                     const int      *values,
                                     gsize           n,
                                     GError        **error);
/* An int64 dataset of RANK (1 to 4) dimensions DIMS at once. */
gboolean    pl_h5_writer_write_int_array (PlH5Writer *self,
                                     const char     *name,
                                     guint           rank,
                                     const guint64  *dims,
                                     const int      *values,
                                     GError        **error);
/* A dataset of variable-length UTF-8 strings, RANK dimensions DIMS. */
gboolean    pl_h5_writer_write_strings (PlH5Writer  *self,
                                     const char     *name,
                                     guint           rank,
                                     const guint64  *dims,
                                     const char * const *values,
                                     GError        **error);
/* Attributes of the group or dataset OBJECT ("/" for the file), which
 * must exist: a variable-length UTF-8 string, or an int64. */
gboolean    pl_h5_writer_set_string (PlH5Writer     *self,
                                     const char     *object,
                                     const char     *attribute,
                                     const char     *value,
                                     GError        **error);
gboolean    pl_h5_writer_set_int    (PlH5Writer     *self,
                                     const char     *object,
                                     const char     *attribute,
                                     gint64          value,
                                     GError        **error);
/* Closes the file and moves it into place. */
gboolean    pl_h5_writer_finish     (PlH5Writer     *self,
                                     GError        **error);
/* Removes the file when it was not finished. */
void        pl_h5_writer_free       (PlH5Writer     *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlH5Writer, pl_h5_writer_free)

G_END_DECLS
