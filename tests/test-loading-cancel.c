/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-model-isolated.h"
#include "pl-test-util.h"
#include "pl-transformer.h"

/* Loading stops when asked: opening a file (also through its helper
 * process, which is killed), and reading a model's weights for the forward
 * pass, looked at per weight and per layer. Each test cancels at a known
 * point of the work (a weight read, the helper started) rather than after
 * a time. */

static void
test_open_cancelled (void)
{
  const char *paths[] = { "mini-gpt2", "builtin:sinusoidal:64x16" };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (pl_model_open (paths[i], NULL, cancellable, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    }
}

typedef struct
{
  const char   *path;
  const char   *helper;
  GCancellable *cancellable;
  GError       *error;
  PlModel      *model;
} OpenRun;

static gpointer
open_thread (gpointer data)
{
  OpenRun *run = data;

  run->model = pl_model_open_isolated (run->path, NULL, run->helper, 3600, run->cancellable, &run->error);
  return NULL;
}

/* A helper that says it started (a line into the FIFO) and then waits far
 * longer than any test: the open returns only because the cancel killed it.
 * Without that, the test hangs until meson's timeout. */
static void
test_helper_killed (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *fifo = g_build_filename (dir, "started", NULL);
  g_autofree char *helper = g_build_filename (dir, "blocking-helper", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\necho $$ > '%s'\nexec sleep 3600\n", fifo);
  g_autofree char *sound = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  OpenRun run = { sound, helper, cancellable, NULL, NULL };
  g_autoptr(GError) error = NULL;
  char line[32] = "";
  GThread *thread;
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_file_set_contents (helper, script, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (helper, 0755), ==, 0);

  thread = g_thread_new ("open", open_thread, &run);
  /* Blocks until the helper has opened the FIFO and written its line. */
  fd = g_open (fifo, O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (read (fd, line, sizeof line - 1), >, 0);
  close (fd);
  g_cancellable_cancel (cancellable);
  g_thread_join (thread);

  g_assert_null (run.model);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&run.error);
  pl_test_rmtree (dir);
}

/* Reads the model's weights, noting the first read of layer 0, and cancels
 * as the CANCEL_AT-th is asked for. */
typedef struct
{
  PlModel      *model;
  GCancellable *cancellable;
  guint         cancel_at;
  guint         n_read;
  guint         first_of_layer_0;
  int           last_layer;
} Reader;

static void
count_read (Reader *reader,
            int     layer)
{
  reader->n_read++;
  if (layer == 0 && reader->first_of_layer_0 == 0)
    reader->first_of_layer_0 = reader->n_read;
  reader->last_layer = MAX (reader->last_layer, layer);
  if (reader->n_read == reader->cancel_at)
    g_cancellable_cancel (reader->cancellable);
}

static PlMatrix *
read_weight (PlWeight   weight,
             int        layer,
             gpointer   data,
             GError   **error)
{
  Reader *reader = data;

  count_read (reader, layer);
  return pl_model_read_weight (reader->model, weight, layer, error);
}

static PlStoredMatrix *
read_stored_weight (PlWeight   weight,
                    int        layer,
                    gpointer   data,
                    GError   **error)
{
  Reader *reader = data;

  count_read (reader, layer);
  return pl_model_read_stored_weight (reader->model, weight, layer, error);
}

static PlTransformer *
build (const PlTransformerConfig  *config,
       Reader                     *reader,
       GError                    **error)
{
  reader->n_read = 0;
  reader->first_of_layer_0 = 0;
  reader->last_layer = -1;
  if (config->rotary)
    return pl_transformer_new_decoder (config, read_stored_weight, reader, reader->cancellable, error);
  return pl_transformer_new_full (config, read_weight, reader, reader->cancellable, error);
}

/* Cancelled as layer 0's first weight is read, the model's constructor
 * stops before it reads a later layer's; a cancelled pl_transformer_new
 * reads nothing. */
static void
test_transformer_cancelled (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_str_has_prefix (name, "mini-") ? pl_test_demo (name, NULL)
                                                           : pl_test_fixture (name, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlTransformer) whole = NULL;
  g_autoptr(PlTransformer) again = NULL;
  const PlTransformerConfig *config;
  Reader reader = { model, cancellable, G_MAXUINT, 0, 0, -1 };
  guint n_whole;

  g_assert_no_error (error);
  whole = pl_transformer_new (model, cancellable, &error);
  g_assert_no_error (error);
  config = pl_transformer_get_config (whole);
  g_assert_cmpuint (config->n_layers, >=, 2);

  again = build (config, &reader, &error);
  g_assert_no_error (error);
  g_assert_cmpint (reader.last_layer, ==, (int) config->n_layers - 1);
  g_assert_cmpuint (reader.first_of_layer_0, >, 0);
  n_whole = reader.n_read;

  reader.cancel_at = reader.first_of_layer_0;
  g_assert_null (build (config, &reader, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpint (reader.last_layer, ==, 0);
  g_assert_cmpuint (reader.n_read, <, n_whole);

  g_assert_null (pl_transformer_new (model, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/loading/open-cancelled", test_open_cancelled);
  g_test_add_func ("/pl/loading/helper-killed", test_helper_killed);
  g_test_add_data_func ("/pl/loading/transformer-cancelled/mini-gpt2", "mini-gpt2", test_transformer_cancelled);
  g_test_add_data_func ("/pl/loading/transformer-cancelled/llama", "rope/llama", test_transformer_cancelled);
  return g_test_run ();
}
