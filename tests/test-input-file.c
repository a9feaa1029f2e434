/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-json.h"
#include "pl-test-util.h"

/* The rules every reader applies to a file, at sizes past the hole check's
 * 1 MiB threshold: whole files are read whole, and no check moves the
 * offset a later read() starts from. */

#define MIB ((gsize) 1 << 20)

static char *dir;

static char *
temp_path (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

/* A JSON object of about SIZE bytes: {"k0": "xxxx…", "k1": …, "last": 7}. */
static char *
write_big_json (const char *name,
                gsize       size)
{
  g_autoptr(GString) text = g_string_new ("{");
  char *path = temp_path (name);
  guint i = 0;

  while (text->len < size)
    {
      g_string_append_printf (text, "\"k%u\": \"%0200u\", ", i, i);
      i++;
    }
  g_string_append (text, "\"last\": 7}");
  g_assert_true (g_file_set_contents (path, text->str, text->len, NULL));
  return path;
}

static void
test_read_all_past_threshold (void)
{
  const gsize sizes[] = { MIB - 512, MIB + 512, 3 * MIB + 17 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *name = g_strdup_printf ("big-%u.json", i);
      g_autofree char *path = write_big_json (name, sizes[i]);
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = NULL;
      g_autofree char *contents = NULL;
      gsize expected_len, len = 0;

      g_assert_true (g_file_get_contents (path, &expected, &expected_len, NULL));
      g_assert_cmpuint (expected_len, >=, sizes[i]);
      contents = pl_input_file_read_all (path, 64 * MIB, &len, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (len, ==, expected_len);
      g_assert_true (memcmp (contents, expected, len) == 0);
      g_assert_cmpint (contents[len], ==, '\0');
    }
}

static void
test_json_past_threshold (void)
{
  g_autofree char *path = write_big_json ("tokenizer.json", 2 * MIB + 100);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = pl_json_parse_file (path, 64 * MIB, &error);
  JsonNode *root;

  g_assert_no_error (error);
  g_assert_nonnull (parser);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "last"), ==, 7);
}

static void
test_check_keeps_offset (void)
{
  g_autofree char *path = write_big_json ("offset.json", 2 * MIB);
  g_autoptr(GError) error = NULL;
  int fd = pl_input_file_open (path, NULL, &error);
  char first = 0;

  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (pl_input_file_check_stored (fd, 0, 2 * MIB, path, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lseek (fd, 0, SEEK_CUR), ==, 0);
  g_assert_cmpint (read (fd, &first, 1), ==, 1);
  g_assert_cmpint (first, ==, '{');
  close (fd);
}

static void
test_sparse_still_refused (void)
{
  g_autofree char *path = temp_path ("sparse.json");
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "{", 1), ==, 1);
  g_assert_cmpint (ftruncate (fd, 8 * MIB), ==, 0);
  close (fd);
  contents = pl_input_file_read_all (path, 64 * MIB, NULL, &error);
  g_assert_null (contents);
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  pl_test_init (&argc, &argv);
  dir = pl_test_tmpdir ();
  g_test_add_func ("/pl/input-file/read-all-past-threshold", test_read_all_past_threshold);
  g_test_add_func ("/pl/input-file/json-past-threshold", test_json_past_threshold);
  g_test_add_func ("/pl/input-file/check-keeps-offset", test_check_keeps_offset);
  g_test_add_func ("/pl/input-file/sparse-still-refused", test_sparse_still_refused);
  status = g_test_run ();
  pl_test_rmtree (dir);
  g_free (dir);
  return status;
}
