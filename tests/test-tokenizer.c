/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "pl-tokenizer.h"
#include "test-tokenizer-util.h"

/* Tokenizers against Hugging Face. reference.json holds the ids and tokens of
 * Hugging Face `tokenizers` 0.23.2; the hard cases (test-tokenizer-cases.h)
 * come from tokenizers.js on the same two vocabularies. Ids are integers:
 * every comparison is exact. */

static PlTokenizer *
fixture_tokenizer (const char *file)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", file, NULL);
  g_autoptr(GError) error = NULL;
  PlTokenizer *tok = pl_tokenizer_new_for_model_dir (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (tok);
  return tok;
}

static void
test_wordpiece_reference (void)
{
  g_autoptr(PlTokenizer) tok = fixture_tokenizer ("bert-base-uncased-vocab.txt");

  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_WORDPIECE);
  g_assert_cmpuint (pl_tokenizer_get_vocab_size (tok), ==, 30522);
  pl_test_check_reference (tok, "bert_uncased");
}

static void
test_bpe_reference (void)
{
  g_autoptr(PlTokenizer) tok = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(PlTokenizer) from_merges = fixture_tokenizer ("byte-bpe-merges.txt");

  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_BPE);
  g_assert_cmpuint (pl_tokenizer_get_vocab_size (tok), ==, 2000);
  pl_test_check_reference (tok, "byte_bpe");
  pl_test_check_reference (from_merges, "byte_bpe");
}

static void
test_hard_cases (void)
{
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");

  for (guint i = 0; i < G_N_ELEMENTS (hard_cases); i++)
    {
      g_autofree char *text = pl_test_hard_case_text (&hard_cases[i]);
      g_autoptr(GArray) b = NULL;
      g_autoptr(GArray) g = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (pl_tokenizer_encode (bert, text, &b, NULL, &error));
      g_assert_no_error (error);
      pl_test_assert_ids (b, hard_cases[i].bert, text);
      g_assert_true (pl_tokenizer_encode (bpe, text, &g, NULL, &error));
      g_assert_no_error (error);
      pl_test_assert_ids (g, hard_cases[i].bpe, text);
    }
}

/* BERT gives up on words past 100 characters: [UNK], not pieces. */
static void
test_long_words (void)
{
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autofree char *a100 = g_strnfill (100, 'a');
  g_autofree char *a101 = g_strnfill (101, 'a');
  g_autofree char *huge = g_strnfill (200000, 'x');
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) long_ids = NULL;
  g_autoptr(GArray) huge_ids = NULL;
  g_autofree char *decoded = NULL;
  const int unk[] = { 101, 100, 102, -1 };

  g_assert_true (pl_tokenizer_encode (bert, a101, &long_ids, NULL, NULL));
  pl_test_assert_ids (long_ids, unk, a101);
  g_assert_true (pl_tokenizer_encode (bert, a100, &ids, NULL, NULL));
  g_assert_cmpuint (ids->len, >, 3);
  decoded = pl_tokenizer_decode (bert, (int *) ids->data, ids->len, TRUE);
  g_assert_cmpstr (decoded, ==, a100);

  /* One 200 kB "word" for byte-level BPE: merges in n log n, not n². */
  g_assert_true (pl_tokenizer_encode (bpe, huge, &huge_ids, NULL, NULL));
  g_clear_pointer (&decoded, g_free);
  decoded = pl_tokenizer_decode (bpe, (int *) huge_ids->data, huge_ids->len, FALSE);
  g_assert_cmpstr (decoded, ==, huge);
}

static void
test_invalid_utf8 (void)
{
  const char *bad[] = { "abc\xff", "caf\xc3", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong" };
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(PlTokenizer) bytes = pl_tokenizer_new_bytes (4, NULL, -1, -1);
  PlTokenizer *all[] = { bert, bpe, bytes };

  for (guint t = 0; t < G_N_ELEMENTS (all); t++)
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GError) error = NULL;
        GArray *ids = NULL;
        GPtrArray *tokens = NULL;

        g_assert_false (pl_tokenizer_encode (all[t], bad[i], &ids, &tokens, &error));
        g_assert_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT);
        g_assert_nonnull (strstr (error->message, "UTF-8"));
        g_assert_null (ids);
        g_assert_null (tokens);
      }
}

/* Special tokens written in the text, and GPT-2's <|endoftext|>. */
static void
test_specials_in_text (void)
{
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) plain = NULL;
  g_autoptr(GArray) lower = NULL;
  const int masked[] = { 101, 2023, 103, 2003, 102, -1 };

  g_assert_true (pl_tokenizer_encode (bpe, "<|endoftext|>The", &ids, NULL, NULL));
  g_assert_cmpuint (ids->len, ==, 2);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 0);
  g_assert_cmpint (g_array_index (ids, int, 1), ==, pl_tokenizer_token_to_id (bpe, "The"));
  g_assert_true (pl_tokenizer_is_special (bpe, 0));
  g_assert_false (pl_tokenizer_is_special (bpe, 1));

  /* "this [MASK] is": [MASK] whole; written lower-case it is plain text. */
  g_assert_true (pl_tokenizer_encode (bert, "this [MASK] is", &plain, NULL, NULL));
  pl_test_assert_ids (plain, masked, "this [MASK] is");
  g_assert_true (pl_tokenizer_encode (bert, "[mask]", &lower, NULL, NULL));
  g_assert_cmpuint (lower->len, ==, 5);
  g_assert_cmpint (g_array_index (lower, int, 2), ==, pl_tokenizer_token_to_id (bert, "mask"));
}

static void
test_id_token (void)
{
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");

  g_assert_cmpstr (pl_tokenizer_id_to_token (bert, 101), ==, "[CLS]");
  g_assert_cmpstr (pl_tokenizer_id_to_token (bert, 7592), ==, "hello");
  g_assert_cmpint (pl_tokenizer_token_to_id (bert, "##bed"), ==, 8270);
  g_assert_cmpint (pl_tokenizer_token_to_id (bert, "no-such-token"), ==, -1);
  g_assert_null (pl_tokenizer_id_to_token (bert, -1));
  g_assert_null (pl_tokenizer_id_to_token (bert, 30522));
  g_assert_true (pl_tokenizer_is_special (bert, 101));
  g_assert_true (pl_tokenizer_is_special (bert, 103));
  g_assert_false (pl_tokenizer_is_special (bert, 7592));
  for (int id = 0; id < 2000; id++)
    g_assert_cmpint (pl_tokenizer_token_to_id (bpe, pl_tokenizer_id_to_token (bpe, id)), ==, id);
  g_assert_cmpstr (pl_tokenizer_id_to_token (bpe, 221), ==, "Ġ");
  g_assert_cmpstr (pl_tokenizer_get_kind_name (bpe), ==, "byte-level-bpe");
}

/* Byte-level BPE and bytes lose nothing: decode(encode(text)) == text. */
static void
test_decode (void)
{
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bytes = pl_tokenizer_new_bytes (4, NULL, -1, -1);
  g_autoptr(JsonObject) ref = pl_test_tokenizer_reference ();
  JsonArray *sentences = json_object_get_array_member (ref, "sentences");
  g_autoptr(GArray) ids = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < json_array_get_length (sentences); i++)
    {
      const char *s = json_array_get_string_element (sentences, i);
      PlTokenizer *lossless[] = { bpe, bytes };

      for (guint t = 0; t < G_N_ELEMENTS (lossless); t++)
        {
          g_autoptr(GArray) enc = NULL;
          g_autofree char *dec = NULL;

          g_assert_true (pl_tokenizer_encode (lossless[t], s, &enc, NULL, NULL));
          dec = pl_tokenizer_decode (lossless[t], (int *) enc->data, enc->len, TRUE);
          g_assert_cmpstr (dec, ==, s);
        }
    }

  /* WordPiece glues "##" pieces and puts spaces between words. */
  g_assert_true (pl_tokenizer_encode (bert, "Tabbed, café!", &ids, NULL, NULL));
  text = pl_tokenizer_decode (bert, (int *) ids->data, ids->len, FALSE);
  g_assert_cmpstr (text, ==, "[CLS] tabbed , cafe ! [SEP]");
}

/* The demo models: real text tokenised by the byte scheme in reference.h5. */
static void
test_bytes_reference (void)
{
  const char *models[] = { "mini-gpt2", "mini-bert", "mini-roberta" };
  const int firsts[] = { -1, 1, 0 };

  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autofree char *h5 = pl_test_fixture (models[m], "reference.h5", NULL);
      g_autofree char *dir = pl_test_demo (models[m], NULL);
      g_autofree char *weights = pl_test_demo (models[m], "tf_model.h5", NULL);
      g_autoptr(PlMatrix) ref = pl_test_read_h5 (h5, "/hf/text/input_ids");
      g_autoptr(PlTokenizer) tok = NULL;
      g_autoptr(PlTokenizer) beside = NULL;
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GArray) ids = NULL;
      g_autoptr(GArray) ids2 = NULL;
      g_autoptr(GPtrArray) tokens = NULL;
      g_autoptr(GError) error = NULL;
      gsize n = ref->rows * ref->cols;

      /* The README's scheme, applied by hand: byte = id - 4. */
      for (gsize i = 0; i < n; i++)
        if (ref->data[i] >= 4)
          g_string_append_c (text, (char) (guchar) (ref->data[i] - 4));
      g_assert_true (g_utf8_validate (text->str, text->len, NULL));
      g_assert_cmpuint (text->len, >, 100);

      tok = pl_tokenizer_new_for_model_dir (dir, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_BYTES);
      g_assert_cmpuint (pl_tokenizer_get_vocab_size (tok), ==, 260);
      g_assert_true (pl_tokenizer_encode (tok, text->str, &ids, &tokens, &error));
      g_assert_cmpuint (ids->len, ==, n);
      for (gsize i = 0; i < n; i++)
        g_assert_cmpint (g_array_index (ids, int, i), ==, (int) ref->data[i]);
      if (firsts[m] >= 0)
        g_assert_cmpint (g_array_index (ids, int, 0), ==, firsts[m]);
      g_assert_cmpstr (g_ptr_array_index (tokens, 0), ==, m == 1 ? "[CLS]" : m == 2 ? "<s>" : ",");

      /* A checkpoint file finds the tokenizer beside it. */
      beside = pl_tokenizer_new_for_model_dir (weights, &error);
      g_assert_no_error (error);
      g_assert_true (pl_tokenizer_encode (beside, text->str, &ids2, NULL, &error));
      g_assert_cmpmem (ids->data, ids->len * sizeof (int), ids2->data, ids2->len * sizeof (int));
    }
}

static void
copy_fixture (const char *name, const char *dir, const char *as)
{
  g_autofree char *from = pl_test_fixture ("tokenizers", name, NULL);
  g_autofree char *to = g_build_filename (dir, as, NULL);
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (from, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (to, contents, len, NULL));
}

static void
put (const char *dir, const char *name, const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static GArray *
encode_in (const char *dir, const char *text, int error_code)
{
  g_autoptr(GError) error = NULL;
  GArray *ids = pl_tokenizer_encode_for_model (dir, text, NULL, &error);

  if (error_code < 0)
    g_assert_no_error (error);
  else
    {
      g_assert_error (error, PL_ERROR, error_code);
      g_assert_null (ids);
    }
  return ids;
}

/* What tokenizer_config.json and config.json beside a checkpoint say. */
static void
test_model_dir (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  const int cased[] = { 101, 100, 102, -1 };
  const int no_strip[] = { 101, 100, 100, 100, 102, -1 };
  const int strip[] = { 101, 15743, 7668, 19169, 102, -1 };
  GArray *ids;

  put (dir, "config.json", "{\"model_type\": \"bert\", \"vocab_size\": 30522}");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_NOT_FOUND));
  g_assert_null (encode_in ("/nonexistent/model", "hi", PL_ERROR_NOT_FOUND));
  g_assert_null (encode_in ("builtin:sinusoidal:512:768", "hi", PL_ERROR_NOT_FOUND));
  put (dir, "spiece.model", "");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_UNSUPPORTED));

  copy_fixture ("bert-base-uncased-vocab.txt", dir, "vocab.txt");
  ids = encode_in (dir, "naïve café Über", -1);
  pl_test_assert_ids (ids, strip, "default");
  g_array_unref (ids);
  put (dir, "tokenizer_config.json", "{\"do_lower_case\": true, \"strip_accents\": false}");
  ids = encode_in (dir, "naïve café Über", -1);
  pl_test_assert_ids (ids, no_strip, "strip_accents false");
  g_array_unref (ids);
  put (dir, "tokenizer_config.json", "{\"do_lower_case\": false}");
  ids = encode_in (dir, "Hello", -1);
  pl_test_assert_ids (ids, cased, "do_lower_case false");
  g_array_unref (ids);
  put (dir, "tokenizer_config.json", "{\"do_lower_case\": ");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "tokenizer_config.json", "{}");
  put (dir, "config.json", "{\"model_type\": \"bert\", \"vocab_size\": 1000}");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "vocab.txt", "\xff\xfe binary");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "vocab.txt", "[PAD]\nhello\n");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));   /* no [UNK] */
  pl_test_rmtree (dir);

  /* Byte-level BPE: RoBERTa needs <s> and </s>, which this vocabulary lacks. */
  dir = (g_free (dir), pl_test_tmpdir ());
  copy_fixture ("byte-bpe-vocab.json", dir, "vocab.json");
  copy_fixture ("byte-bpe-merges.txt", dir, "merges.txt");
  put (dir, "config.json", "{\"model_type\": \"gpt2\"}");
  ids = encode_in (dir, "Hello, world!", -1);
  g_assert_cmpuint (ids->len, ==, 7);
  g_array_unref (ids);
  put (dir, "config.json", "{\"model_type\": \"roberta\"}");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "config.json", "{}");
  put (dir, "merges.txt", "#version: 0.2\nt h\nq zzz\n");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "merges.txt", "#version: 0.2\nt h e\n");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  pl_test_rmtree (dir);

  /* What goes around the text: OPT's GPT2Tokenizer puts its bos_token
   * "</s>" (2) first and nothing last; RoBERTa <s> (0) … </s> (2). */
  dir = (g_free (dir), pl_test_tmpdir ());
  put (dir, "vocab.json", "{\"<s>\": 0, \"<pad>\": 1, \"</s>\": 2, \"<unk>\": 3, \"a\": 4, \"b\": 5}");
  put (dir, "merges.txt", "#version: 0.2\n");
  {
    static const struct { const char *config, *tok_config; int ids[5]; } cases[] = {
      { "{\"model_type\": \"opt\"}", "{}", { 2, 4, 5, -1 } },
      { "{\"model_type\": \"opt\"}", "{\"add_bos_token\": true, \"bos_token\": {\"content\": \"</s>\"}}",
        { 2, 4, 5, -1 } },
      { "{}", "{\"add_bos_token\": true, \"bos_token\": \"<s>\"}", { 0, 4, 5, -1 } },
      { "{\"model_type\": \"roberta\"}", "{}", { 0, 4, 5, 2, -1 } },
      { "{\"model_type\": \"gpt2\"}", "{}", { 4, 5, -1 } },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        put (dir, "config.json", cases[i].config);
        put (dir, "tokenizer_config.json", cases[i].tok_config);
        ids = encode_in (dir, "ab", -1);
        pl_test_assert_ids (ids, cases[i].ids, cases[i].tok_config);
        g_array_unref (ids);
      }
  }
  pl_test_rmtree (dir);

  /* A byte tokenizer whose config contradicts itself. */
  dir = (g_free (dir), pl_test_tmpdir ());
  put (dir, "tokenizer_config.json",
       "{\"tokenizer_class\": \"PoslensByteTokenizer\", \"byte_offset\": 2,"
       " \"special_tokens\": [\"<a>\"], \"prefix_token\": \"<b>\"}");
  g_assert_null (encode_in (dir, "hi", PL_ERROR_CORRUPT));
  put (dir, "tokenizer_config.json",
       "{\"tokenizer_class\": \"PoslensByteTokenizer\", \"byte_offset\": 2, \"special_tokens\": [\"<a>\"]}");
  ids = encode_in (dir, "hi", -1);
  g_assert_cmpuint (ids->len, ==, 2);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 'h' + 2);
  g_array_unref (ids);
  pl_test_rmtree (dir);
}

/* The constructors others call directly, with explicit options. */
static void
test_constructors (void)
{
  g_autofree char *vocab = pl_test_fixture ("tokenizers", "bert-base-uncased-vocab.txt", NULL);
  g_autofree char *bpe_vocab = pl_test_fixture ("tokenizers", "byte-bpe-vocab.json", NULL);
  g_autofree char *bpe_merges = pl_test_fixture ("tokenizers", "byte-bpe-merges.txt", NULL);
  const PlWordPieceOptions cased = { FALSE, FALSE, TRUE, TRUE, FALSE, 0 };
  const char * const specials[] = { "[PAD]", "[CLS]", "[SEP]", "[MASK]", NULL };
  const int hello_cased[] = { 100, 999, -1 };        /* no [CLS]/[SEP], "Hello" unknown */
  const int bytes_ids[] = { 1, 'o' + 4, 'k' + 4, 3, 2, -1 };
  g_autoptr(PlTokenizer) wp = NULL;
  g_autoptr(PlTokenizer) roberta = NULL;
  g_autoptr(PlTokenizer) bytes = pl_tokenizer_new_bytes (4, specials, 1, 2);
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) ids2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  wp = pl_tokenizer_new_wordpiece (vocab, &cased, &error);
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (wp, "Hello!", &ids, NULL, &error));
  pl_test_assert_ids (ids, hello_cased, "Hello! (cased, no specials)");

  roberta = pl_tokenizer_new_bpe (bpe_vocab, bpe_merges, TRUE, &error);
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);   /* this vocabulary has no <s> */
  g_assert_nonnull (strstr (error->message, "<s>"));
  g_assert_null (roberta);

  g_assert_true (pl_tokenizer_encode (bytes, "ok[MASK]", &ids2, NULL, NULL));
  pl_test_assert_ids (ids2, bytes_ids, "ok[MASK]");
  text = pl_tokenizer_decode (bytes, (int *) ids2->data, ids2->len, TRUE);
  g_assert_cmpstr (text, ==, "ok");
  g_clear_pointer (&text, g_free);
  text = pl_tokenizer_decode (bytes, (int *) ids2->data, ids2->len, FALSE);
  g_assert_cmpstr (text, ==, "[CLS]ok[MASK][SEP]");
}

typedef struct
{
  PlTokenizer *tok;
  JsonArray   *sentences;
  GPtrArray   *results;
} ThreadJob;

static gpointer
encode_all (gpointer data)
{
  ThreadJob *job = data;

  for (guint round = 0; round < 10; round++)
    for (guint i = 0; i < json_array_get_length (job->sentences); i++)
      {
        GArray *ids = NULL;

        g_assert_true (pl_tokenizer_encode (job->tok, json_array_get_string_element (job->sentences, i),
                                            &ids, NULL, NULL));
        if (round == 0)
          g_ptr_array_add (job->results, ids);
        else
          g_array_unref (ids);
      }
  return NULL;
}

/* Two threads share one BPE tokenizer (and its cache). */
static void
test_threads (void)
{
  g_autoptr(PlTokenizer) tok = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(JsonObject) ref = pl_test_tokenizer_reference ();
  JsonArray *sentences = json_object_get_array_member (ref, "sentences");
  JsonArray *expected = json_object_get_array_member (ref, "byte_bpe");
  ThreadJob jobs[2];
  GThread *threads[2];

  for (guint t = 0; t < 2; t++)
    {
      jobs[t] = (ThreadJob) { tok, sentences, g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref) };
      threads[t] = g_thread_new ("encode", encode_all, &jobs[t]);
    }
  for (guint t = 0; t < 2; t++)
    {
      g_thread_join (threads[t]);
      for (guint i = 0; i < json_array_get_length (sentences); i++)
        {
          GArray *ids = g_ptr_array_index (jobs[t].results, i);
          JsonArray *e = json_object_get_array_member (json_array_get_object_element (expected, i), "ids");

          g_assert_cmpuint (ids->len, ==, json_array_get_length (e));
          for (guint k = 0; k < ids->len; k++)
            g_assert_cmpint (g_array_index (ids, int, k), ==, json_array_get_int_element (e, k));
        }
      g_ptr_array_unref (jobs[t].results);
    }
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/tokenizer/wordpiece/reference", test_wordpiece_reference);
  g_test_add_func ("/pl/tokenizer/bpe/reference", test_bpe_reference);
  g_test_add_func ("/pl/tokenizer/hard-cases", test_hard_cases);
  g_test_add_func ("/pl/tokenizer/long-words", test_long_words);
  g_test_add_func ("/pl/tokenizer/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/pl/tokenizer/specials-in-text", test_specials_in_text);
  g_test_add_func ("/pl/tokenizer/id-token", test_id_token);
  g_test_add_func ("/pl/tokenizer/decode", test_decode);
  g_test_add_func ("/pl/tokenizer/bytes/reference", test_bytes_reference);
  g_test_add_func ("/pl/tokenizer/model-dir", test_model_dir);
  g_test_add_func ("/pl/tokenizer/constructors", test_constructors);
  g_test_add_func ("/pl/tokenizer/threads", test_threads);
  return g_test_run ();
}
