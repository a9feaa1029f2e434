/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Ollama's model store, read and never written: $OLLAMA_MODELS, else
 * ~/.ollama/models (and /usr/share/ollama/.ollama/models, where Linux's
 * service keeps them). A model is a manifest,
 * manifests/HOST/NAMESPACE/MODEL/TAG (JSON: a list of layers), whose layer
 * of media type application/vnd.ollama.image.model names its GGUF blob,
 * blobs/sha256-HEX. Models are named as Ollama shows them: "llama3.2:1b"
 * for registry.ollama.ai/library/llama3.2:1b, "user/model:tag" for another
 * namespace, the whole "host/namespace/model:tag" for another registry. A
 * manifest or blob that is a link leading out of the store, a digest that is
 * not sha256 hex, or a manifest that is not JSON is refused. */

#define PL_OLLAMA_PREFIX "ollama:"

typedef struct
{
  char    *name;       /* "llama3.2:1b" */
  char    *blob;       /* the GGUF file's path */
  guint64  size;       /* its size in bytes, as the manifest says */
} PlOllamaModel;

void        pl_ollama_model_free         (PlOllamaModel  *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlOllamaModel, pl_ollama_model_free)

/* The store's folders, in the order they are looked in (those that exist). */
GStrv       pl_ollama_store_roots        (void);
/* Every model of the stores, sorted by name (PlOllamaModel); manifests that
 * fail are left out, PROBLEMS (when given) gets one line for each. Empty
 * when there is no store. */
GPtrArray  *pl_ollama_store_list         (const char     *root,
                                          GString        *problems);
/* NAME ("llama3.2:1b", "ollama:llama3.2:1b", "llama3.2" for its latest tag)
 * as a model of ROOT (NULL: the stores in order), or NULL with ERROR saying
 * what was looked for or what is wrong. */
PlOllamaModel *pl_ollama_store_find      (const char     *root,
                                          const char     *name,
                                          GError        **error);

G_END_DECLS
