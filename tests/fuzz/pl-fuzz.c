/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-fuzz.h"
#include "pl-model-isolated.h"
#include "pl-model-private.h"

#define PL_TYPE_FUZZ_CHECKPOINT (pl_fuzz_checkpoint_get_type ())
G_DECLARE_FINAL_TYPE (PlFuzzCheckpoint, pl_fuzz_checkpoint, PL, FUZZ_CHECKPOINT, PlCheckpoint)

struct _PlFuzzCheckpoint
{
  PlCheckpoint parent_instance;
};

G_DEFINE_FINAL_TYPE (PlFuzzCheckpoint, pl_fuzz_checkpoint, PL_TYPE_CHECKPOINT)

static PlMatrix *
pl_fuzz_checkpoint_read_rows (PlCheckpoint        *self,
                              const PlTensorInfo  *info,
                              guint64              first,
                              guint64              n,
                              GError             **error)
{
  g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: a list of tensors without values", info->name);
  return NULL;
}

static void
pl_fuzz_checkpoint_class_init (PlFuzzCheckpointClass *klass)
{
  PL_CHECKPOINT_CLASS (klass)->read_rows = pl_fuzz_checkpoint_read_rows;
}

static void
pl_fuzz_checkpoint_init (PlFuzzCheckpoint *self)
{
}

PlCheckpoint *
pl_fuzz_checkpoint_new (const char *path)
{
  PlCheckpoint *checkpoint = g_object_new (PL_TYPE_FUZZ_CHECKPOINT, NULL);

  pl_checkpoint_set_path_and_format (checkpoint, path, "fuzz");
  return checkpoint;
}

static char *tmpdir;

/* A critical is a bug the fuzzer must report, not a line to skip: abort, so
 * that libFuzzer saves the input. */
static GLogWriterOutput
abort_on_critical (GLogLevelFlags   level,
                   const GLogField *fields,
                   gsize            n_fields,
                   gpointer         user_data)
{
  GLogWriterOutput ret = g_log_writer_default (level, fields, n_fields, user_data);

  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR | G_LOG_LEVEL_WARNING))
    abort ();
  return ret;
}

static void
remove_tmpdir (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (tmpdir);
}

const char *
pl_fuzz_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      g_autoptr(GError) error = NULL;

      g_log_set_writer_func (abort_on_critical, NULL, NULL);
      tmpdir = g_dir_make_tmp ("poslens-fuzz-XXXXXX", &error);
      g_assert_no_error (error);
      atexit (remove_tmpdir);
    }
  return tmpdir;
}

char *
pl_fuzz_write (const char *name,
               const void *data,
               size_t      size)
{
  char *path = g_build_filename (pl_fuzz_tmpdir (), name, NULL);
  g_autoptr(GError) error = NULL;

  /* Without the fsync that a consistent replace costs: millions of runs.
   * GLib 2.74 writes such a file in place without truncating it, so remove
   * the last input first, or each file would be its bytes over the tail of
   * the ones before (tests/fuzz/known-libhdf5/README.md). */
  g_unlink (path);
  g_file_set_contents_full (path, data, size, G_FILE_SET_CONTENTS_NONE, 0600, &error);
  g_assert_no_error (error);
  return path;
}

#define HOLE_MAGIC    "HOLE"
#define MAX_HOLE_MIB  (1u << 16)

char *
pl_fuzz_write_sparse (const char *name,
                      const void *data,
                      size_t      size,
                      guint32    *hole_mib)
{
  char *path;

  *hole_mib = 0;
  if (size >= 8 && memcmp ((const guint8 *) data + size - 8, HOLE_MAGIC, 4) == 0)
    {
      memcpy (hole_mib, (const guint8 *) data + size - 4, 4);
      *hole_mib = GUINT32_FROM_LE (*hole_mib) % (MAX_HOLE_MIB + 1);
      size -= 8;
    }
  path = pl_fuzz_write (name, data, size);
  if (*hole_mib > 0)
    g_assert (truncate (path, (off_t) size + ((off_t) *hole_mib << 20)) == 0);
  return path;
}

/* As `poslens-cli check` opens it: the model, then pl_model_check_readable. */
void
pl_fuzz_check_sparse (PlCheckpoint *checkpoint,
                      const char   *path)
{
  g_autoptr(PlModel) model = NULL;
  g_autoptr(GError) error = NULL;

  model = pl_model_open_checkpoint (g_object_ref (checkpoint), path, NULL, &error);
  g_assert ((model == NULL) != (error == NULL));
  if (model != NULL)
    g_assert (pl_model_check_readable (model, &error) == (error == NULL));
}

void
pl_fuzz_exercise_checkpoint (PlCheckpoint *checkpoint,
                             const char   *path)
{
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlMatrix) positions = NULL;
  g_autoptr(GError) error = NULL;
  guint n = pl_checkpoint_get_n_tensors (checkpoint);
  /* What is read over all tensors stays within what the file stores, as in
   * `check`: names can stand for far more (expanded views, aliases). */
  guint64 budget = 2 * pl_checkpoint_get_file_bytes (checkpoint) + (1 << 20), elements = 0;

  for (guint i = 0; i < n; i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_autoptr(PlMatrix) rows = NULL;
      g_autoptr(GError) read_error = NULL;
      guint64 r, c;

      pl_tensor_info_get_matrix_shape (info, &r, &c);
      /* Claimed shapes can be anything: ask only for what is cheap. */
      if (c > (1 << 16) || 6 * c > budget - elements)
        continue;
      elements += 6 * c;
      rows = pl_checkpoint_read_rows (checkpoint, info->name, 0, MIN (r, 4), &read_error);
      g_assert ((rows == NULL) != (read_error == NULL));
      if (r > 2)
        {
          g_autoptr(PlMatrix) last = NULL;
          g_autoptr(GError) last_error = NULL;

          last = pl_checkpoint_read_rows (checkpoint, info->name, r - 2, 2, &last_error);
          g_assert ((last == NULL) != (last_error == NULL));
        }
    }

  model = pl_model_open_checkpoint (g_object_ref (checkpoint), path, NULL, &error);
  g_assert ((model == NULL) != (error == NULL));
  if (model != NULL && pl_model_get_position_table_name (model) != NULL &&
      (guint64) pl_model_get_position_table_rows (model) * pl_model_get_position_table_cols (model) <= (1 << 20))
    {
      positions = pl_model_read_positions (model, &error);
      g_assert ((positions == NULL) != (error == NULL));
    }
}
