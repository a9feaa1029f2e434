/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pl-error.h"
#include "pl-model-isolated.h"
#include "pl-paths.h"
#include "pl-test-util.h"

/* Opening untrusted files through a helper process: the files that
 * make Debian's libhdf5 1.10 read freed memory when opened one after another
 * in one process are refused with the helper's reason and never reach this
 * process's libhdf5 (run under AddressSanitizer, build-aux/setup.sh sanitize,
 * this test is the proof); a helper that crashes or hangs is reported, not
 * waited for. */

#define N_SEQUENCE 14

static void
test_damaged_sequence (void)
{
  const char *helper = pl_paths_get_cli ();
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tf_model.h5", NULL);
  guint refused = 0;

  g_assert_nonnull (helper);
  for (guint i = 1; i <= N_SEQUENCE; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlModel) opened = NULL;

      g_free (pl_test_write_known_libhdf5 (i, path));
      opened = pl_model_open_isolated (path, NULL, helper, 30, NULL, &error);
      /* Written over 04, 05 and 06 make sound HDF5 files whose first
       * position is all zeros: they open, as the dot product and PCA can
       * show them. */
      if (i == 5 || i == 6)
        {
          g_autoptr(PlMatrix) positions = NULL;

          g_assert_no_error (error);
          positions = pl_model_read_positions (opened, &error);
          g_assert_no_error (error);
          for (guint j = 0; j < positions->cols; j++)
            g_assert_cmpfloat (pl_matrix_get (positions, 0, j), ==, 0.0f);
          continue;
        }
      /* The helper's one line, naming the file, with its PlError code. */
      g_assert_null (opened);
      g_assert_error (error, PL_ERROR, error->code);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_null (strchr (error->message, '\n'));
      g_assert_null (strstr (error->message, "poslens-cli"));
      refused++;
    }
  g_assert_cmpuint (refused, ==, N_SEQUENCE - 2);
  pl_test_rmtree (dir);
}

static void
test_codes_survive (void)
{
  g_autofree char *missing = pl_test_demo ("mini-gpt2", "no-such-file.h5", NULL);
  g_autofree char *sound = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(GError) in_process = NULL;
  g_autoptr(GError) isolated = NULL;
  g_autoptr(PlModel) model = NULL;

  g_assert_null (pl_model_open (missing, NULL, NULL, &in_process));
  g_assert_null (pl_model_open_isolated (missing, NULL, pl_paths_get_cli (), 30, NULL, &isolated));
  g_assert_error (isolated, in_process->domain, in_process->code);
  g_assert_cmpstr (isolated->message, ==, in_process->message);

  /* A dataset that is not there: the helper judges the --dataset too. */
  g_clear_error (&in_process);
  g_clear_error (&isolated);
  g_assert_null (pl_model_open (sound, "/no/such/dataset", NULL, &in_process));
  g_assert_null (pl_model_open_isolated (sound, "/no/such/dataset", pl_paths_get_cli (), 30, NULL, &isolated));
  g_assert_error (isolated, in_process->domain, in_process->code);
  g_assert_cmpstr (isolated->message, ==, in_process->message);

  g_clear_error (&isolated);
  model = pl_model_open_isolated ("builtin:sinusoidal:64x32", NULL, pl_paths_get_cli (), 30, NULL, &isolated);
  g_assert_no_error (isolated);
  g_assert_nonnull (model);
}

/* A stand-in helper: a shell script doing BODY. */
static char *
write_helper (const char *dir,
              const char *name,
              const char *body)
{
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\n%s\n", body);
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, script, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

static void
test_helper_failures (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *sound = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *crash = write_helper (dir, "crash", "kill -SEGV $$");
  g_autofree char *hang = write_helper (dir, "hang", "exec sleep 3600");
  g_autofree char *refuse = write_helper (dir, "refuse",
                                          "echo 'error-code 5'; echo 'poslens-cli: X: far too big' >&2; exit 2");
  g_autofree char *old = write_helper (dir, "old", "echo 'poslens-cli: unknown command' >&2; exit 1");
  g_autofree char *missing = g_build_filename (dir, "not-there", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;

  g_assert_null (pl_model_open_isolated (sound, NULL, crash, 30, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, sound));
  g_assert_nonnull (strstr (error->message, "crashed"));
  /* Whatever crashed the helper, the message does not guess. */
  g_assert_null (strstr (error->message, "HDF5"));
  g_clear_error (&error);

  /* Stopped after the timeout, not waited for: sleep 3600 against 1 s
   * (a helper waited for would hold the test past meson's timeout). */
  g_assert_null (pl_model_open_isolated (sound, NULL, hang, 1, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "longer than 1 s"));
  g_clear_error (&error);

  g_assert_null (pl_model_open_isolated (sound, NULL, refuse, 30, NULL, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  g_assert_cmpstr (error->message, ==, "X: far too big");
  g_clear_error (&error);

  /* A helper without `check`, or none at all: the file opens here. */
  model = pl_model_open_isolated (sound, NULL, old, 30, NULL, &error);
  g_assert_no_error (error);
  g_clear_object (&model);
  model = pl_model_open_isolated (sound, NULL, missing, 30, NULL, &error);
  g_assert_no_error (error);
  pl_test_rmtree (dir);
}

static void
test_check_reads_every_dataset (void)
{
  g_autofree char *sound = pl_test_demo ("mini-bert", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (sound, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (pl_model_check_readable (model, &error));
  g_assert_no_error (error);
}

/* A file that makes Debian's libhdf5 1.10.8 copy from address 0 while it
 * lists the groups (tests/fuzz/known-libhdf5/accum-null-read.h5, found by
 * fuzzing): the isolated open reports it as damaged, and the command line,
 * run on it by hand, names the file before it dies. A libhdf5 that rejects
 * the file cleanly instead must still name it. */
static void
test_known_crash (void)
{
  const char *helper = pl_paths_get_cli ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fuzz", "known-libhdf5", "accum-null-read.h5", NULL);
  g_autofree char *line = g_strdup_printf ("poslens-cli: %s: crashed while reading it;", path);
  g_autofree char *err = NULL;
  const char *argv[] = { helper, "info", path, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_nonnull (helper);
  g_assert_null (pl_model_open_isolated (path, NULL, helper, 30, NULL, &error));
  g_assert_nonnull (strstr (error->message, path));

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL);
  if (WIFSIGNALED (status) || (WIFEXITED (status) && WEXITSTATUS (status) != 2))
    {
      /* It crashed (under AddressSanitizer: exit 1 after the report). */
      g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, "crashed"));
      g_assert_nonnull (strstr (err, line));
    }
  else
    g_assert_nonnull (strstr (err, path));
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/isolated/damaged-sequence", test_damaged_sequence);
  g_test_add_func ("/pl/isolated/codes-survive", test_codes_survive);
  g_test_add_func ("/pl/isolated/known-crash", test_known_crash);
  g_test_add_func ("/pl/isolated/helper-failures", test_helper_failures);
  g_test_add_func ("/pl/isolated/check-reads-every-dataset", test_check_reads_every_dataset);
  return g_test_run ();
}
