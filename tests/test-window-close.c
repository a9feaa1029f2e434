/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-executor.h"
#include "pl-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"

/* Closing the window while a file is being opened: the helper process that
 * checks the file first (pl_model_open_isolated) is killed, so the window
 * goes at once instead of waiting out the helper's 60 s. The helper here
 * (POSLENS_CLI, set before anything reads it) says it started through a
 * FIFO and then sleeps an hour; only a kill ends it. */

static char *dir;
static char *fifo;

static gboolean
similarity_ready (gpointer window)
{
  return pl_test_page_ready (pl_test_page (window, "similarity"));
}

static void
test_close_while_opening (void)
{
  g_autoptr(PlApplication) app = NULL;
  PlWindow *window = pl_test_window_open (&app);
  g_autofree char *source = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autofree char *copy = g_build_filename (dir, "tf_model.h5", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (copy);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  char line[32] = "";
  gsize size;
  gint64 start;
  int fd;

  /* Nothing else in flight: the demos listed and the first view drawn. */
  pl_test_wait_until (similarity_ready, window, "the first view");
  g_file_get_contents (source, &contents, &size, &error);
  g_assert_no_error (error);
  g_file_set_contents (copy, contents, size, &error);
  g_assert_no_error (error);

  pl_window_open_file (window, file, TRUE);
  /* Blocks until the helper has started and written its line. */
  fd = g_open (fifo, O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (read (fd, line, sizeof line - 1), >, 0);
  close (fd);

  /* A hang guard only: a window that waited for its helper would take its
   * 60 s timeout to close. */
  alarm (30);
  start = g_get_monotonic_time ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_test_message ("closing the window while its helper ran took %.1f ms",
                  (g_get_monotonic_time () - start) / 1e3);
  alarm (0);
  g_assert_cmpuint (pl_executor_get_n_running (pl_executor_get_default ()), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_autofree char *helper = NULL;
  g_autofree char *script = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  pl_test_window_init (&argc, &argv);
  dir = g_dir_make_tmp ("poslens-close-XXXXXX", &error);
  g_assert_no_error (error);
  fifo = g_build_filename (dir, "started", NULL);
  helper = g_build_filename (dir, "blocking-helper", NULL);
  script = g_strdup_printf ("#!/bin/sh\necho $$ > '%s'\nexec sleep 3600\n", fifo);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_file_set_contents (helper, script, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (helper, 0755), ==, 0);
  g_setenv ("POSLENS_CLI", helper, TRUE);

  g_test_add_func ("/pl/window/close-while-opening", test_close_while_opening);
  status = g_test_run ();
  pl_test_rmtree (dir);
  g_free (dir);
  g_free (fifo);
  return status;
}
