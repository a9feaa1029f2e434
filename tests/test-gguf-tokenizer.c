/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "pl-tokenizer.h"

/* The tokenizers GGUF files carry. Real files against Hugging Face's ids:
 * llama.cpp's tokenizer tests (models/ggml-vocab-*.gguf.inp, .out: 46 texts
 * and the ids Hugging Face's tokenizer gives them, without special tokens)
 * for Llama 2's SentencePiece vocabulary (in llama-2-tiny-random.gguf,
 * the same tokens, scores and types as ggml-vocab-llama-spm.gguf) and
 * GPT-2's byte-level BPE (ggml-vocab-gpt-2.gguf) and StarCoder's, whose
 * pre-tokenizer ("starcoder") splits digits one by one first
 * (ggml-vocab-starcoder.gguf, the same texts); the fixtures' flags and
 * pre-tokenizers; what is refused. */

static char *
real (const char *name)
{
  return pl_test_fixture ("gguf", "real", name, NULL);
}

static PlTokenizer *
open_tokenizer (const char *path)
{
  g_autoptr(GError) error = NULL;
  PlTokenizer *t = pl_tokenizer_new_for_model_dir (path, &error);

  g_assert_no_error (error);
  return t;
}

static GArray *
encode (PlTokenizer *t,
        const char  *text)
{
  g_autoptr(GError) error = NULL;
  GArray *ids = NULL;

  g_assert_true (pl_tokenizer_encode (t, text, &ids, NULL, &error));
  g_assert_no_error (error);
  return ids;
}

typedef struct
{
  const char *gguf;       /* under gguf/real */
  const char *inp;        /* its tests: texts apart by "\n__ggml_vocab_test__\n" */
  const char *out;        /* one line of ids a text */
  int         bos;        /* the id the tokenizer puts first, or −1 */
} VocabCase;

static void
test_real_vocab (gconstpointer data)
{
  const VocabCase *c = data;
  g_autofree char *gguf = real (c->gguf);
  g_autofree char *inp_path = real (c->inp);
  g_autofree char *out_path = real (c->out);
  g_autofree char *inp = NULL;
  g_autofree char *out = NULL;
  g_autoptr(PlTokenizer) t = open_tokenizer (gguf);
  g_auto(GStrv) texts = NULL;
  g_auto(GStrv) lines = NULL;
  guint n;

  g_assert_true (g_file_get_contents (inp_path, &inp, NULL, NULL));
  g_assert_true (g_file_get_contents (out_path, &out, NULL, NULL));
  texts = g_strsplit (inp, "\n__ggml_vocab_test__\n", -1);
  lines = g_strsplit (out, "\n", -1);
  n = g_strv_length (texts) - 1;   /* the file ends with the separator */
  g_assert_cmpuint (n, ==, 46);
  g_assert_cmpuint (g_strv_length (lines), >=, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GArray) ids = encode (t, texts[i]);
      g_auto(GStrv) expect = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      guint skip = c->bos >= 0 ? 1 : 0;
      guint n_expect = expect[0] != NULL && expect[0][0] != '\0' ? g_strv_length (expect) : 0;

      if (c->bos >= 0)
        g_assert_cmpint (g_array_index (ids, int, 0), ==, c->bos);
      if (ids->len - skip != n_expect)
        g_error ("%s, text %u: %u ids, Hugging Face gives %u", c->gguf, i, ids->len - skip, n_expect);
      for (guint j = 0; j < n_expect; j++)
        g_assert_cmpint (g_array_index (ids, int, skip + j), ==, atoi (expect[j]));
    }
  g_test_message ("%s: %u texts as Hugging Face tokenizes them", c->gguf, n);
}

/* The llama fixture's text probe gives the ids its tokenizer.json gives
 * (make-rope-decoders.py tokenised it as Hugging Face does); special tokens
 * written in the text are their ids. */
static void
test_fixture_text (void)
{
  g_autofree char *gguf = pl_test_fixture ("gguf", "llama-f32.gguf", NULL);
  g_autofree char *reference = pl_test_fixture ("rope", "llama", "reference.h5", NULL);
  g_autoptr(PlTokenizer) t = open_tokenizer (gguf);
  g_autoptr(GArray) ids = encode (t, "the cat sat on the mat.");
  g_autoptr(GArray) special = encode (t, "the</s>cat");
  gsize n;
  g_autofree double *expect = pl_test_read_h5_doubles (reference, "/text/input_ids", &n);
  g_autofree char *decoded = NULL;

  g_assert_cmpuint (ids->len, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpint (g_array_index (ids, int, i), ==, (int) expect[i]);
  decoded = pl_tokenizer_decode (t, (int *) ids->data, ids->len, TRUE);
  g_assert_cmpstr (decoded, ==, "the cat sat on the mat.");
  /* <s>, ▁the, </s>, ▁cat: the text after a special token starts anew */
  g_assert_cmpuint (special->len, ==, 4);
  g_assert_cmpint (g_array_index (special, int, 2), ==, 2);
  g_assert_true (pl_tokenizer_is_special (t, 2));
}

/* add_bos_token false, add_eos_token true, add_space_prefix false; Llama 3's
 * pre-tokenizer (digits in threes, whole words first, BOS by default) and
 * Qwen2's (single digits, no BOS) on one small byte-level vocabulary. */
static void
test_flags_and_pre (void)
{
  g_autofree char *flags = pl_test_fixture ("gguf", "tokenizer-llama-flags.gguf", NULL);
  g_autofree char *llama3 = pl_test_fixture ("gguf", "tokenizer-llama-bpe.gguf", NULL);
  g_autofree char *qwen2 = pl_test_fixture ("gguf", "tokenizer-qwen2.gguf", NULL);
  g_autoptr(PlTokenizer) t = open_tokenizer (flags);
  g_autoptr(GArray) ids = encode (t, "the cat");
  static const int flags_expect[] = { 23, 32, 36, 2 };   /* t, he, ▁cat, </s> */
  static const int llama3_expect[] = { 259, 116, 104, 101, 32, 257, 52, 53, 258 };  /* BOS t h e Ġ 123 4 5 Ġthe */
  static const int qwen2_expect[] = { 116, 104, 101, 32, 49, 50, 51, 52, 53, 258 };

  g_assert_cmpuint (ids->len, ==, G_N_ELEMENTS (flags_expect));
  g_assert_cmpmem (ids->data, ids->len * sizeof (int), flags_expect, sizeof flags_expect);
  g_clear_object (&t);
  g_clear_pointer (&ids, g_array_unref);

  t = open_tokenizer (llama3);
  ids = encode (t, "the 12345 the");
  g_assert_cmpmem (ids->data, ids->len * sizeof (int), llama3_expect, sizeof llama3_expect);
  g_clear_object (&t);
  g_clear_pointer (&ids, g_array_unref);

  t = open_tokenizer (qwen2);
  ids = encode (t, "the 12345 the");
  g_assert_cmpmem (ids->data, ids->len * sizeof (int), qwen2_expect, sizeof qwen2_expect);
}

/* Each refused naming the file and what is wrong (make-gguf.py writes them). */
static void
test_refused (void)
{
  static const struct { const char *name; int code; const char *what; } cases[] = {
    { "model-bert", PL_ERROR_UNSUPPORTED, "“bert” model" },
    { "pre-falcon", PL_ERROR_UNSUPPORTED, "pre-tokenizer “falcon”" },
    { "merge-outside", PL_ERROR_CORRUPT, "not in the vocabulary" },
    { "merge-one-token", PL_ERROR_CORRUPT, "is not two tokens" },
    { "no-merges", PL_ERROR_CORRUPT, "no tokenizer.ggml.merges" },
    { "scores-short", PL_ERROR_CORRUPT, "must list as many" },
    { "tokens-not-text", PL_ERROR_CORRUPT, "not an array of strings" },
    { "bos-missing", PL_ERROR_CORRUPT, "add_bos_token" },
    { "no-tokenizer", PL_ERROR_NOT_FOUND, "carries no tokenizer" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = g_strdup_printf ("tokenizer-bad-%s.gguf", cases[i].name);
      g_autofree char *path = pl_test_fixture ("gguf", file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlTokenizer) t = pl_tokenizer_new_for_model_dir (path, &error);

      g_assert_null (t);
      if (error->code != cases[i].code || strstr (error->message, path) == NULL ||
          strstr (error->message, cases[i].what) == NULL)
        g_error ("%s: expected code %d and “%s”, got %d: %s", file, cases[i].code, cases[i].what, error->code,
                 error->message);
    }
}

int
main (int   argc,
      char *argv[])
{
  static const VocabCase spm = { "llama-2-tiny-random.gguf", "llama-spm.inp", "llama-spm.out", 1 };
  static const VocabCase gpt2 = { "ggml-vocab-gpt-2.gguf", "ggml-vocab-gpt-2.gguf.inp", "ggml-vocab-gpt-2.gguf.out",
                                  -1 };
  /* llama.cpp's ggml-vocab-starcoder.gguf.inp is ggml-vocab-gpt-2.gguf.inp (git blob 86b934e4) */
  static const VocabCase starcoder = { "ggml-vocab-starcoder.gguf", "ggml-vocab-gpt-2.gguf.inp",
                                       "ggml-vocab-starcoder.gguf.out", -1 };

  pl_test_init (&argc, &argv);

  g_test_add_data_func ("/pl/gguf-tokenizer/real/llama-spm", &spm, test_real_vocab);
  g_test_add_data_func ("/pl/gguf-tokenizer/real/gpt-2", &gpt2, test_real_vocab);
  g_test_add_data_func ("/pl/gguf-tokenizer/real/starcoder", &starcoder, test_real_vocab);
  g_test_add_func ("/pl/gguf-tokenizer/fixture-text", test_fixture_text);
  g_test_add_func ("/pl/gguf-tokenizer/flags-and-pre", test_flags_and_pre);
  g_test_add_func ("/pl/gguf-tokenizer/refused", test_refused);
  return g_test_run ();
}
