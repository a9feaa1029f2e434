/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pl-error.h"
#include "pl-json.h"
#include "pl-ollama-store.h"

/* Ollama's own names (types/model/name.go) and layer type (manifest). */
#define DEFAULT_HOST      "registry.ollama.ai"
#define DEFAULT_NAMESPACE "library"
#define DEFAULT_TAG       "latest"
#define MODEL_LAYER       "application/vnd.ollama.image.model"
/* Real manifests are a few kilobytes. */
#define MAX_MANIFEST_BYTES (1 << 20)

void
pl_ollama_model_free (PlOllamaModel *model)
{
  if (model == NULL)
    return;
  g_free (model->name);
  g_free (model->blob);
  g_free (model);
}

GStrv
pl_ollama_store_roots (void)
{
  g_autoptr(GStrvBuilder) roots = g_strv_builder_new ();
  const char *env = g_getenv ("OLLAMA_MODELS");
  g_autofree char *home = g_build_filename (g_get_home_dir (), ".ollama", "models", NULL);
  const char *candidates[] = { home, "/usr/share/ollama/.ollama/models" };

  /* Ollama itself looks only there when it is set */
  if (env != NULL && env[0] != '\0')
    {
      if (g_file_test (env, G_FILE_TEST_IS_DIR))
        g_strv_builder_add (roots, env);
      return g_strv_builder_end (roots);
    }
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    if (g_file_test (candidates[i], G_FILE_TEST_IS_DIR))
      g_strv_builder_add (roots, candidates[i]);
  return g_strv_builder_end (roots);
}

/* A part of a name: letters, digits, '.', '-', '_', not "." or "..". */
static gboolean
valid_part (const char *part)
{
  if (part == NULL || part[0] == '\0' || g_str_equal (part, ".") || g_str_equal (part, "..") ||
      strlen (part) > 350)
    return FALSE;
  for (const char *p = part; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/* As Ollama's DisplayShortest shows a name. */
static char *
display_name (const char *host,
              const char *ns,
              const char *model,
              const char *tag)
{
  if (g_ascii_strcasecmp (host, DEFAULT_HOST) != 0)
    return g_strdup_printf ("%s/%s/%s:%s", host, ns, model, tag);
  if (g_ascii_strcasecmp (ns, DEFAULT_NAMESPACE) != 0)
    return g_strdup_printf ("%s/%s:%s", ns, model, tag);
  return g_strdup_printf ("%s:%s", model, tag);
}

/* PATH with its links resolved lies inside INSIDE (itself resolved). */
static gboolean
resolves_inside (const char *path,
                 const char *inside)
{
  g_autofree char *real = realpath (path, NULL);
  gsize n = strlen (inside);

  return real != NULL && strncmp (real, inside, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* sha256:HEX or sha256-HEX, 64 hexadecimal digits: the blob's file name */
static char *
blob_file_name (const char *digest)
{
  if (digest == NULL || strlen (digest) != 71 || strncmp (digest, "sha256", 6) != 0 ||
      (digest[6] != ':' && digest[6] != '-'))
    return NULL;
  for (guint i = 7; i < 71; i++)
    if (!g_ascii_isxdigit (digest[i]))
      return NULL;
  return g_strdup_printf ("sha256-%s", digest + 7);
}

/* A member of a JSON object as text or a whole number, when it is one. */
static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  return node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

static gint64
member_int (JsonObject *object,
            const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  return node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64
         ? json_node_get_int (node) : 0;
}

/* The model of the manifest at ROOT/manifests/HOST/NS/MODEL/TAG. */
static PlOllamaModel *
read_manifest (const char  *root,
               const char  *host,
               const char  *ns,
               const char  *model,
               const char  *tag,
               GError     **error)
{
  g_autofree char *path = g_build_filename (root, "manifests", host, ns, model, tag, NULL);
  g_autofree char *real_root = realpath (root, NULL);
  g_autofree char *blobs = g_build_filename (root, "blobs", NULL);
  g_autofree char *shown = display_name (host, ns, model, tag);
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *blob_name = NULL;
  JsonNode *root_node, *layers_node;
  JsonArray *layers;
  PlOllamaModel *found;
  GStatBuf st;

  if (real_root == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s: %s", root, g_strerror (errno));
      return NULL;
    }
  if (!resolves_inside (path, real_root))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "Ollama model %s: its manifest %s leads out of the store %s", shown, path, root);
      return NULL;
    }
  if (!(parser = pl_json_parse_file (path, MAX_MANIFEST_BYTES, error)))
    return NULL;
  root_node = json_parser_get_root (parser);
  layers_node = root_node != NULL && JSON_NODE_HOLDS_OBJECT (root_node)
                ? json_object_get_member (json_node_get_object (root_node), "layers") : NULL;
  if (layers_node == NULL || !JSON_NODE_HOLDS_ARRAY (layers_node))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "Ollama model %s: its manifest %s lists no layers", shown, path);
      return NULL;
    }
  layers = json_node_get_array (layers_node);
  for (guint i = 0; i < json_array_get_length (layers) && blob_name == NULL; i++)
    {
      JsonNode *layer = json_array_get_element (layers, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (layer) ? json_node_get_object (layer) : NULL;
      const char *type = member_string (object, "mediaType");
      const char *digest = member_string (object, "digest");
      g_autofree char *blob_path = NULL;

      if (g_strcmp0 (type, MODEL_LAYER) != 0)
        continue;
      if (!(blob_name = blob_file_name (digest)))
        {
          g_autofree char *digest_shown = pl_escape_text (digest ? digest : "none", -1);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "Ollama model %s: its manifest %s names the blob “%s”, "
                       "not a sha256 digest", shown, path, digest_shown);
          return NULL;
        }
      found = g_new0 (PlOllamaModel, 1);
      found->name = g_steal_pointer (&shown);
      found->blob = g_build_filename (blobs, blob_name, NULL);
      found->size = (guint64) MAX (member_int (object, "size"), 0);
      if (g_stat (found->blob, &st) != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "Ollama model %s: its blob %s is missing (pulled only "
                       "in part?)", found->name, found->blob);
          pl_ollama_model_free (found);
          return NULL;
        }
      if (!resolves_inside (found->blob, real_root))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "Ollama model %s: its blob %s leads out of the store %s",
                       found->name, found->blob, root);
          pl_ollama_model_free (found);
          return NULL;
        }
      return found;
    }
  g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "Ollama model %s: its manifest %s has no model layer (%s)",
               shown, path, MODEL_LAYER);
  return NULL;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* The names of the entries of ROOT/PARTS…, sorted; hidden ones left out. */
static GPtrArray *
list_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  return names;
}

static int
compare_models (gconstpointer a,
                gconstpointer b)
{
  const PlOllamaModel *x = *(PlOllamaModel * const *) a, *y = *(PlOllamaModel * const *) b;

  return g_strcmp0 (x->name, y->name);
}

static void
list_root (const char *root,
           GPtrArray  *models,
           GString    *problems)
{
  g_autofree char *manifests = g_build_filename (root, "manifests", NULL);
  g_autoptr(GPtrArray) hosts = list_dir (manifests);

  for (guint h = 0; h < hosts->len; h++)
    {
      g_autofree char *host_dir = g_build_filename (manifests, hosts->pdata[h], NULL);
      g_autoptr(GPtrArray) spaces = list_dir (host_dir);

      for (guint n = 0; n < spaces->len; n++)
        {
          g_autofree char *ns_dir = g_build_filename (host_dir, spaces->pdata[n], NULL);
          g_autoptr(GPtrArray) names = list_dir (ns_dir);

          for (guint m = 0; m < names->len; m++)
            {
              g_autofree char *model_dir = g_build_filename (ns_dir, names->pdata[m], NULL);
              g_autoptr(GPtrArray) tags = list_dir (model_dir);

              for (guint t = 0; t < tags->len; t++)
                {
                  g_autoptr(GError) error = NULL;
                  PlOllamaModel *model;

                  if (!valid_part (hosts->pdata[h]) || !valid_part (spaces->pdata[n]) ||
                      !valid_part (names->pdata[m]) || !valid_part (tags->pdata[t]))
                    continue;
                  model = read_manifest (root, hosts->pdata[h], spaces->pdata[n], names->pdata[m], tags->pdata[t],
                                         &error);
                  if (model != NULL)
                    g_ptr_array_add (models, model);
                  else if (problems != NULL)
                    g_string_append_printf (problems, "%s\n", error->message);
                }
            }
        }
    }
}

GPtrArray *
pl_ollama_store_list (const char *root,
                      GString    *problems)
{
  GPtrArray *models = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_ollama_model_free);
  g_auto(GStrv) roots = root ? NULL : pl_ollama_store_roots ();

  if (root != NULL)
    list_root (root, models, problems);
  for (guint i = 0; roots != NULL && roots[i] != NULL; i++)
    list_root (roots[i], models, problems);
  g_ptr_array_sort (models, compare_models);
  return models;
}

PlOllamaModel *
pl_ollama_store_find (const char  *root,
                      const char  *name,
                      GError     **error)
{
  g_auto(GStrv) roots = root ? g_strdupv ((char *[]) { (char *) root, NULL }) : pl_ollama_store_roots ();
  g_auto(GStrv) parts = NULL;
  g_autofree char *model = NULL;
  const char *host = DEFAULT_HOST, *ns = DEFAULT_NAMESPACE, *tag = DEFAULT_TAG;
  char *colon;
  guint n;

  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_has_prefix (name, PL_OLLAMA_PREFIX))
    name += strlen (PL_OLLAMA_PREFIX);
  parts = g_strsplit (name, "/", -1);
  n = g_strv_length (parts);
  if (n >= 1 && n <= 3)
    {
      model = g_strdup (parts[n - 1]);
      if ((colon = strrchr (model, ':')) != NULL)
        {
          *colon = '\0';
          tag = colon + 1;
        }
      if (n == 3)
        host = parts[0];
      if (n >= 2)
        ns = parts[n - 2];
    }
  if (model == NULL || !valid_part (host) || !valid_part (ns) || !valid_part (model) || !valid_part (tag))
    {
      g_autofree char *shown = pl_escape_text (name, -1);

      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s” is not an Ollama model name (like llama3.2:1b or namespace/model:tag)", shown);
      return NULL;
    }
  for (guint i = 0; roots[i] != NULL; i++)
    {
      g_autofree char *manifest = g_build_filename (roots[i], "manifests", host, ns, model, tag, NULL);

      if (g_file_test (manifest, G_FILE_TEST_EXISTS))
        return read_manifest (roots[i], host, ns, model, tag, error);
    }
  {
    g_autofree char *shown = display_name (host, ns, model, tag);
    g_autofree char *where = roots[0] ? g_strjoinv (", ", roots) : NULL;

    g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                 "No Ollama model %s in %s (pull it with “ollama pull %s”, or set OLLAMA_MODELS to the store)",
                 shown, where ? where : "~/.ollama/models, which does not exist", shown);
  }
  return NULL;
}
