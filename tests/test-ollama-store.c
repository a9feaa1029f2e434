/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-model.h"
#include "pl-ollama-store.h"
#include "pl-test-util.h"
#include "pl-tokenizer.h"

/* Ollama's store as `ollama pull` lays it out (manifests/HOST/NAMESPACE/
 * MODEL/TAG naming blobs/sha256-HEX), built in a temporary folder from the
 * GGUF fixtures: the models listed and found by Ollama's names, opened as
 * models with their tokenizers, the command line's `info ollama:NAME`, the
 * store left as it was, and manifests leading out of it refused. */

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* Every file of DIR with its size and modification time, for comparing. */
static void
snapshot (const char *dir,
          GString    *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, names->pdata[i], NULL);
      GStatBuf st;

      g_assert_cmpint (g_lstat (path, &st), ==, 0);
      g_string_append_printf (out, "%s %ld %ld %o\n", path, (long) st.st_size, (long) st.st_mtime, st.st_mode);
      if (S_ISDIR (st.st_mode))
        snapshot (path, out);
    }
}

static void
remove_store (const char *store)
{
  g_autofree char *dir = g_path_get_dirname (store);

  pl_test_rmtree (dir);
}

static char *
make_store (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  char *store = g_build_filename (dir, "models", NULL);
  g_autofree char *llama = pl_test_fixture ("gguf", "llama-f32.gguf", NULL);
  g_autofree char *q8 = pl_test_fixture ("gguf", "llama-q8_0.gguf", NULL);
  g_autofree char *gpt2 = pl_test_fixture ("gguf", "gpt2-q8_0.gguf", NULL);

  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "llama3.2", "1b", llama, NULL);
  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "tiny", "latest", q8, NULL);
  pl_test_add_ollama_model (store, "registry.ollama.ai", "someone", "mine", "q8", q8, NULL);
  pl_test_add_ollama_model (store, "example.org", "team", "gpt2", "small", gpt2, NULL);
  return store;
}

static void
test_list_and_find (void)
{
  g_autofree char *store = make_store ();
  g_autoptr(GString) before = g_string_new (NULL);
  g_autoptr(GString) after = g_string_new (NULL);
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(GPtrArray) models = NULL;
  static const char * const names[] = { "example.org/team/gpt2:small", "llama3.2:1b", "someone/mine:q8",
                                        "tiny:latest" };
  static const char * const asked[][2] = {
    { "llama3.2:1b", "llama3.2:1b" }, { "ollama:llama3.2:1b", "llama3.2:1b" }, { "tiny", "tiny:latest" },
    { "someone/mine:q8", "someone/mine:q8" }, { "registry.ollama.ai/library/tiny:latest", "tiny:latest" },
    { "example.org/team/gpt2:small", "example.org/team/gpt2:small" },
  };

  snapshot (store, before);
  models = pl_ollama_store_list (store, problems);
  g_assert_cmpstr (problems->str, ==, "");
  g_assert_cmpuint (models->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < models->len; i++)
    {
      PlOllamaModel *m = models->pdata[i];
      g_autofree char *blob_dir = g_path_get_dirname (m->blob);
      g_autofree char *expect_dir = g_build_filename (store, "blobs", NULL);

      g_assert_cmpstr (m->name, ==, names[i]);
      g_assert_cmpstr (blob_dir, ==, expect_dir);
      g_assert_cmpuint (m->size, >, 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (asked); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlOllamaModel) m = pl_ollama_store_find (store, asked[i][0], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (m->name, ==, asked[i][1]);
    }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PlOllamaModel) m = pl_ollama_store_find (store, "llama3.2:3b", &error);

    g_assert_null (m);
    g_assert_error (error, PL_ERROR, PL_ERROR_NOT_FOUND);
    g_assert_nonnull (strstr (error->message, "ollama pull llama3.2:3b"));
  }
  snapshot (store, after);
  g_assert_cmpstr (after->str, ==, before->str);
  remove_store (store);
}

/* ollama:NAME opens as a model named NAME with its tokenizer, in the
 * library and on the command line; OLLAMA_MODELS names the store. */
static void
test_open (void)
{
  g_autofree char *store = make_store ();
  g_autoptr(GString) before = g_string_new (NULL);
  g_autoptr(GString) after = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTokenizer) tokenizer = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  snapshot (store, before);
  g_setenv ("OLLAMA_MODELS", store, TRUE);
  model = pl_model_open ("ollama:llama3.2:1b", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_name (model), ==, "llama3.2:1b");
  g_assert_cmpstr (pl_model_get_path (model), ==, "ollama:llama3.2:1b");
  g_assert_cmpint (pl_model_get_family (model), ==, PL_FAMILY_LLAMA);
  tokenizer = pl_tokenizer_new_for_model_dir (pl_model_get_path (model), &error);
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (tokenizer, "the cat", &ids, NULL, &error));
  g_assert_cmpuint (ids->len, ==, 3);

  g_assert_cmpint (pl_test_cli (&out, &err, "info", "ollama:llama3.2:1b", "--json", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"name\" : \"llama3.2:1b\""));
  g_assert_nonnull (strstr (out, "\"format\" : \"gguf\""));
  g_assert_nonnull (strstr (out, "\"architecture\" : \"llama\""));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (pl_test_cli (&out, &err, "info", "ollama:nothing:here", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "No Ollama model nothing:here"));
  snapshot (store, after);
  g_assert_cmpstr (after->str, ==, before->str);
  g_unsetenv ("OLLAMA_MODELS");
  remove_store (store);
}

/* A manifest naming a blob by a path, or a manifest or blob that is a link
 * out of the store, is refused; a bad name is not looked up. */
static void
test_hostile (void)
{
  g_autofree char *store = make_store ();
  g_autofree char *outside_dir = pl_test_tmpdir ();
  g_autofree char *outside = g_build_filename (outside_dir, "secret.gguf", NULL);
  g_autofree char *fixture = pl_test_fixture ("gguf", "llama-f32.gguf", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  static const struct { const char *name; const char *what; } cases[] = {
    { "dotdot:x", "not a sha256 digest" },
    { "absolute:x", "not a sha256 digest" },
    { "manifest-link:x", "leads out of the store" },
    { "blob-link:x", "leads out of the store" },
  };

  g_assert_true (g_file_get_contents (fixture, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (outside, contents, length, NULL));
  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "dotdot", "x", NULL, "sha256:../../../secret.gguf");
  pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "absolute", "x", NULL, outside);
  {
    /* a manifest that is a link to one outside the store */
    g_autofree char *dir = g_build_filename (store, "manifests", "registry.ollama.ai", "library", "manifest-link", NULL);
    g_autofree char *link = g_build_filename (dir, "x", NULL);
    g_autofree char *target = g_build_filename (outside_dir, "manifest", NULL);
    g_autofree char *good = g_build_filename (store, "manifests", "registry.ollama.ai", "library", "llama3.2", "1b",
                                              NULL);
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (good, &text, NULL, NULL));
    g_assert_true (g_file_set_contents (target, text, -1, NULL));
    g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
    g_assert_cmpint (symlink (target, link), ==, 0);
  }
  {
    /* a blob that is a link to a file outside the store */
    g_autofree char *sum = g_strnfill (64, 'a');
    g_autofree char *digest = g_strdup_printf ("sha256:%s", sum);
    g_autofree char *blob = g_strdup_printf ("%s/blobs/sha256-%s", store, sum);

    pl_test_add_ollama_model (store, "registry.ollama.ai", "library", "blob-link", "x", NULL, digest);
    g_assert_cmpint (symlink (outside, blob), ==, 0);
  }

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlOllamaModel) m = pl_ollama_store_find (store, cases[i].name, &error);

      g_assert_null (m);
      if (strstr (error->message, cases[i].what) == NULL)
        g_error ("%s: expected “%s”, got: %s", cases[i].name, cases[i].what, error->message);
    }
  {
    g_autoptr(GString) problems = g_string_new (NULL);
    g_autoptr(GPtrArray) models = pl_ollama_store_list (store, problems);

    /* the four good ones listed, the four bad ones said why */
    g_assert_cmpuint (models->len, ==, 4);
    g_assert_nonnull (strstr (problems->str, "leads out of the store"));
    g_assert_nonnull (strstr (problems->str, "not a sha256 digest"));
  }
  {
    static const char * const bad_names[] = { "../llama3.2:1b", "a/b/c/d:e", "/etc/passwd", "x:..", "" };

    for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(PlOllamaModel) m = pl_ollama_store_find (store, bad_names[i], &error);

        g_assert_null (m);
        g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
      }
  }
  remove_store (store);
  pl_test_rmtree (outside_dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/ollama/list-and-find", test_list_and_find);
  g_test_add_func ("/pl/ollama/open", test_open);
  g_test_add_func ("/pl/ollama/hostile", test_hostile);
  return g_test_run ();
}
