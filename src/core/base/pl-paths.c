/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-paths.h"

static const char * const demo_models[] = {
  "mini-gpt2",
  "mini-bert",
  "mini-roberta",
};
static const char vision_demo[] = "mini-vit";

const char *
pl_paths_get_demo_dir (void)
{
  static char *dir;

  if (g_once_init_enter (&dir))
    {
      const char *env = g_getenv ("POSLENS_DEMO_DIR");
      const char *found;

      if (env != NULL && *env != '\0')
        found = env;
      else if (g_file_test (DEMO_DIR_INSTALLED, G_FILE_TEST_IS_DIR))
        found = DEMO_DIR_INSTALLED;
      else
        found = DEMO_DIR_SOURCE;
      g_once_init_leave (&dir, g_strdup (found));
    }
  return dir;
}

/* Adds the demo folder NAME when it is there. */
static void
add_demo (GStrvBuilder *builder,
          const char   *dir,
          const char   *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    g_strv_builder_add (builder, path);
}

char **
pl_paths_list_demo_models (void)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const char *dir = pl_paths_get_demo_dir ();

  for (guint i = 0; i < G_N_ELEMENTS (demo_models); i++)
    add_demo (builder, dir, demo_models[i]);
  /* The table of Vaswani et al., computed: the reference every learned table is compared with. */
  g_strv_builder_add (builder, "builtin:sinusoidal:512x768");
  /* After the text models: a vision transformer whose table learned a 2-D grid. */
  add_demo (builder, dir, vision_demo);
  return g_strv_builder_end (builder);
}

gboolean
pl_paths_is_demo (const char *path)
{
  g_autofree char *dir = g_canonicalize_filename (pl_paths_get_demo_dir (), NULL);
  g_autofree char *file = g_canonicalize_filename (path, NULL);
  gsize len = strlen (dir);

  return strncmp (file, dir, len) == 0 && (file[len] == G_DIR_SEPARATOR || file[len] == '\0');
}

const char *
pl_paths_get_cli (void)
{
  static char *cli;

  if (g_once_init_enter (&cli))
    {
      const char *env = g_getenv ("POSLENS_CLI");
      g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = self ? g_path_get_dirname (self) : NULL;
      g_autofree char *beside = dir ? g_build_filename (dir, "poslens-cli", NULL) : NULL;
      const char *found = "";

      if (env != NULL && *env != '\0')
        found = env;
      else if (beside != NULL && g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
        found = beside;
      else if (g_file_test (CLI_BUILD_PATH, G_FILE_TEST_IS_EXECUTABLE))
        found = CLI_BUILD_PATH;
      g_once_init_leave (&cli, g_strdup (found));
    }
  return *cli != '\0' ? cli : NULL;
}
