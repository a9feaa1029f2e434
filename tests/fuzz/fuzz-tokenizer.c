/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-fuzz.h"
#include "pl-tokenizer.h"

/* Hugging Face's tokenizer.json (WordPiece, byte-level or SentencePiece-style
 * BPE), then a text through it, its tokens' labels and its decoding: the
 * first byte splits the input into file and text. */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(PlTokenizer) tokenizer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GPtrArray) tokens = NULL;
  size_t split;

  if (size < 1)
    return 0;
  split = MIN ((size_t) data[0] * 4, size - 1);
  text = g_strndup ((const char *) data + 1, split);
  path = pl_fuzz_write ("tokenizer.json", data + 1 + split, size - 1 - split);
  tokenizer = pl_tokenizer_new_from_json (path, &error);
  g_assert ((tokenizer == NULL) != (error == NULL));
  if (tokenizer == NULL)
    return 0;
  if (pl_tokenizer_encode (tokenizer, text, &ids, &tokens, &error))
    {
      g_autofree char *decoded = NULL;

      g_assert_cmpuint (ids->len, ==, tokens->len);
      for (guint i = 0; i < ids->len; i++)
        {
          g_autofree char *label = pl_tokenizer_get_label (tokenizer, g_array_index (ids, int, i));

          g_assert (g_utf8_validate (label, -1, NULL));
        }
      decoded = pl_tokenizer_decode (tokenizer, &g_array_index (ids, int, 0), ids->len, FALSE);
    }
  else
    g_assert (error != NULL);
  return 0;
}
