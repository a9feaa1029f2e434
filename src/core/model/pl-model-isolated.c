/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model-isolated.h"

/* "“/vds” 0×18×8, “/x” 2×3×4" for messages: the first few tensors. */
static char *
describe_tensors (PlCheckpoint *checkpoint)
{
  GString *out = g_string_new (NULL);
  guint n = pl_checkpoint_get_n_tensors (checkpoint);

  for (guint i = 0; i < MIN (n, 3); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);

      g_string_append_printf (out, "%s“%s” ", i ? ", " : "", info->name);
      for (guint d = 0; d < info->rank; d++)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, d ? "×" : "", info->shape[d]);
      if (info->rank == 0)
        g_string_append (out, "scalar");
      g_string_append_printf (out, " %s", info->dtype_name);
    }
  if (n > 3)
    g_string_append_printf (out, " and %u more", n - 3);
  return g_string_free (out, FALSE);
}

/* Values check reads beyond twice the files' bytes: a few seconds' work. */
#define CHECK_BASE_ELEMENTS ((guint64) 1 << 24)

gboolean
pl_model_check_readable (PlModel  *model,
                         GError  **error)
{
  PlCheckpoint *checkpoint;
  const char *table;
  guint64 budget, elements = 0;

  g_return_val_if_fail (PL_IS_MODEL (model), FALSE);

  checkpoint = pl_model_get_checkpoint (model);
  table = pl_model_get_position_table_name (model);
  if (checkpoint == NULL)
    return TRUE;    /* an analytic encoding: no file */
  if (pl_model_get_activations (model) != NULL)
    {
      /* Its layout was checked when opened; its first layer reads. */
      g_autoptr(PlMatrix) first = pl_activations_file_read_position_mean (pl_model_get_activations (model), 0,
                                                                          error);

      return first != NULL;
    }

  if (table != NULL)
    {
      g_autoptr(PlMatrix) positions = pl_model_read_positions (model, error);

      if (positions == NULL)
        return FALSE;
    }
  else
    {
      /* The window asks which 2-D table is the position table: there must
       * be one to choose. */
      gboolean any = FALSE;

      for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint) && !any; i++)
        any = pl_tensor_info_is_table (pl_checkpoint_get_tensor (checkpoint, i));
      if (!any)
        {
          g_autofree char *listing = describe_tensors (checkpoint);

          g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                       "%s holds no table to show: a position table is a non-empty 2-D dataset of floats, "
                       "and it has %s", pl_checkpoint_get_path (checkpoint), listing);
          return FALSE;
        }
    }

  /* The first rows of all tensors are at most what the files store, twice
   * over for tied names: views that repeat stored values (stride 0) can name
   * far more, and are not read past that. */
  budget = 2 * pl_checkpoint_get_file_bytes (checkpoint) + CHECK_BASE_ELEMENTS;
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_autoptr(PlMatrix) read = NULL;
      g_autoptr(GError) local_error = NULL;
      guint64 rows, cols;

      pl_tensor_info_get_matrix_shape (info, &rows, &cols);
      if (rows == 0 || cols == 0 || info->dtype == PL_DTYPE_OTHER || g_strcmp0 (info->name, table) == 0)
        continue;
      if (cols > budget - elements)
        {
          g_autofree char *size = g_format_size_full (pl_checkpoint_get_file_bytes (checkpoint),
                                                      G_FORMAT_SIZE_IEC_UNITS);

          g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                       "%s: the first rows of its tensors alone name more than %" G_GUINT64_FORMAT " values, more "
                       "than its %s could store: views that repeat stored values (a stride of 0) stand for far "
                       "more than the file holds", pl_checkpoint_get_path (checkpoint), budget, size);
          return FALSE;
        }
      elements += cols;
      read = pl_checkpoint_read_rows (checkpoint, info->name, 0, 1, &local_error);
      /* Damage (or a failed read) is the answer; what Poslens will refuse
       * when asked for that tensor is not. */
      if (read == NULL &&
          (g_error_matches (local_error, PL_ERROR, PL_ERROR_CORRUPT) ||
           g_error_matches (local_error, PL_ERROR, PL_ERROR_FAILED)))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }
  return TRUE;
}

typedef struct
{
  GSubprocess  *process;
  GMainContext *context;
  GAsyncResult *result;
  gboolean      timed_out;
  int           cancelled;  /* atomic: set by the thread that cancels */
} Helper;

static void
on_communicated (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Helper *helper = user_data;

  helper->result = g_object_ref (result);
}

static gboolean
on_timeout (gpointer user_data)
{
  Helper *helper = user_data;

  helper->timed_out = TRUE;
  g_subprocess_force_exit (helper->process);
  return G_SOURCE_REMOVE;
}

/* Runs in the thread that cancels: only wakes the waiting thread, which
 * stops the helper itself. (A GCancellableSource would do this too, but
 * GLib 2.74 leaks one that is disposed after its cancellable fired.) */
static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  Helper *helper = user_data;

  g_atomic_int_set (&helper->cancelled, TRUE);
  g_main_context_wakeup (helper->context);
}

#ifdef __linux__
/* If the app dies, the helper goes too: the thread that started it waits
 * for it, so it only ends when the process does. */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}
#endif

/* The helper's last line, "poslens-cli: MESSAGE", as MESSAGE. */
static char *
helper_message (GBytes *err)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gsize size = 0;
  const char *data = err ? g_bytes_get_data (err, &size) : NULL;
  const char *last = NULL;

  text = g_utf8_make_valid (data ? data : "", size);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*g_strstrip (lines[i]) != '\0')
      last = lines[i];
  if (last == NULL)
    return NULL;
  if (g_str_has_prefix (last, "poslens-cli: "))
    last += strlen ("poslens-cli: ");
  return g_strdup (last);
}

/* The PlError code the helper printed on its standard output. */
static int
helper_code (GBytes *out)
{
  gsize size = 0;
  const char *data = out ? g_bytes_get_data (out, &size) : NULL;
  g_autofree char *text = g_strndup (data ? data : "", size);
  const char *line = strstr (text, "error-code ");
  guint64 code;

  if (line != NULL &&
      g_ascii_string_to_unsigned (g_strchomp ((char *) line + strlen ("error-code ")), 10,
                                  0, PL_ERROR_BAD_VALUES, &code, NULL))
    return (int) code;
  return PL_ERROR_CORRUPT;
}

/* Waits for PROCESS's output, stopping it after TIMEOUT_SECONDS or as soon
 * as CANCELLABLE is cancelled, on a context of this thread's own so the
 * wait turns nobody else's loop. FALSE when its pipes failed; the process
 * has ended either way. */
static gboolean
wait_for_helper (GSubprocess   *process,
                 guint          timeout_seconds,
                 GCancellable  *cancellable,
                 GBytes       **out,
                 GBytes       **err,
                 gboolean      *timed_out,
                 gboolean      *cancelled,
                 GError       **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GSource) timeout = g_timeout_source_new_seconds (timeout_seconds);
  Helper helper = { process, context, NULL, FALSE, FALSE };
  gboolean killed = FALSE;
  gulong handler = 0;
  gboolean ok;

  g_main_context_push_thread_default (context);
  g_subprocess_communicate_async (process, NULL, NULL, on_communicated, &helper);
  g_source_set_callback (timeout, on_timeout, &helper, NULL);
  g_source_attach (timeout, context);
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), &helper, NULL);
  while (helper.result == NULL)
    {
      if (!killed && g_atomic_int_get (&helper.cancelled))
        {
          g_subprocess_force_exit (process);
          killed = TRUE;
        }
      g_main_context_iteration (context, TRUE);
    }
  g_cancellable_disconnect (cancellable, handler);
  g_source_destroy (timeout);
  ok = g_subprocess_communicate_finish (process, helper.result, out, err, error);
  g_main_context_pop_thread_default (context);
  g_object_unref (helper.result);
  if (!ok)
    {
      /* No answer to read; the helper must not outlive us. */
      g_subprocess_force_exit (process);
      g_subprocess_wait (process, NULL, NULL);
    }
  *timed_out = helper.timed_out;
  *cancelled = g_atomic_int_get (&helper.cancelled);
  return ok;
}

/* Runs the helper on PATH: TRUE when it opened the file, FALSE with ERROR
 * when it refused, crashed or hung; *UNUSABLE when there was no answer to
 * be had (the helper could not start, or does not know `check`). */
static gboolean
run_helper (const char    *helper_path,
            const char    *path,
            const char    *dataset,
            guint          timeout_seconds,
            GCancellable  *cancellable,
            gboolean      *unusable,
            GError       **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *message = NULL;
  const char *argv[] = { helper_path, "check", path, dataset ? "--dataset" : NULL, dataset, NULL };
  gboolean timed_out, cancelled;
  int status;

  *unusable = TRUE;
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_INHERIT |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
#ifdef __linux__
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
#endif
  if ((process = g_subprocess_launcher_spawnv (launcher, argv, &local_error)) == NULL ||
      !wait_for_helper (process, timeout_seconds, cancellable, &out, &err, &timed_out, &cancelled, &local_error))
    {
      g_debug ("Opening %s without a helper: %s", path, local_error->message);
      return FALSE;
    }

  *unusable = FALSE;
  if (cancelled)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Opening was cancelled");
      return FALSE;
    }
  if (timed_out)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   _("%s: opening it took longer than %u s, so it was stopped; the file may be damaged"),
                   path, timeout_seconds);
      return FALSE;
    }
  if (g_subprocess_get_if_signaled (process))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   _("%s is damaged: reading it crashed the process that checks it (%s)"),
                   path, g_strsignal (g_subprocess_get_term_sig (process)));
      return FALSE;
    }
  status = g_subprocess_get_exit_status (process);
  message = helper_message (err);
  if (status == 0)
    return TRUE;
  if (status == 2 && message != NULL)
    {
      g_set_error_literal (error, PL_ERROR, helper_code (out), message);
      return FALSE;
    }
  g_debug ("Opening %s without a helper: it exited with %d (%s)", path, status, message);
  *unusable = TRUE;
  return FALSE;
}

PlModel *
pl_model_open_isolated (const char    *path,
                        const char    *dataset,
                        const char    *helper,
                        guint          timeout_seconds,
                        GCancellable  *cancellable,
                        GError       **error)
{
  gboolean unusable = TRUE;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (timeout_seconds > 0, NULL);

  /* Analytic encodings have no file to distrust. */
  if (helper != NULL && !g_str_has_prefix (path, "builtin:") &&
      !run_helper (helper, path, dataset, timeout_seconds, cancellable, &unusable, error) && !unusable)
    return NULL;
  return pl_model_open (path, dataset, cancellable, error);
}
