/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib.h>

#include "pl-fuzz.h"

/* Replays saved inputs (seed corpus, past crashes) through a fuzz target's
 * entry point in a normal build: each must return without a crash. Arguments
 * are files or folders of files. */
static guint n_inputs;

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static void
replay (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, &error))
    g_error ("%s", error->message);
  g_print ("# %s\n", path);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  n_inputs++;
}

int
main (int    argc,
      char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GDir) dir = NULL;
      g_autoptr(GPtrArray) names = NULL;
      const char *name;

      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          replay (argv[i]);
          continue;
        }
      dir = g_dir_open (argv[i], 0, NULL);
      names = g_ptr_array_new_with_free_func (g_free);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.')
          g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
      g_ptr_array_sort (names, compare_paths);
      for (guint j = 0; j < names->len; j++)
        replay (names->pdata[j]);
    }
  g_print ("%u inputs replayed\n", n_inputs);
  return 0;
}
