/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-fuzz.h"
#include "pl-tokenizer-private.h"

/* The Unigram tokenizers' Precompiled normalizer: a SentencePiece charsmap
 * (its bytes, as tokenizer.json's base64 decodes to), then a text through
 * it, whose result must be valid UTF-8. The first byte splits the input
 * into text and charsmap. Whole Unigram files go through fuzz-tokenizer. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *raw = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  PlPrecompiled *charsmap;
  size_t split;

  if (size < 1)
    return 0;
  split = MIN ((size_t) data[0] * 4, size - 1);
  raw = g_strndup ((const char *) data + 1, split);
  text = g_utf8_make_valid (raw, -1);
  charsmap = pl_precompiled_new (data + 1 + split, size - 1 - split, "charsmap", &error);
  g_assert ((charsmap == NULL) != (error == NULL));
  if (charsmap != NULL)
    {
      GString *out = g_string_new (NULL);

      pl_precompiled_normalize (charsmap, text, strlen (text), out);
      g_assert (g_utf8_validate (out->str, out->len, NULL));
      g_string_free (out, TRUE);
      pl_precompiled_free (charsmap);
    }
  return 0;
}
