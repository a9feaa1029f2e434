/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "pl-blas-core.h"
#include "pl-error.h"
#include "pl-test-util.h"
#include "pl-tokenizer.h"
#include "test-tokenizer-cases.h"

/* Tokenizers against Hugging Face. reference.json holds the ids and tokens of
 * Hugging Face `tokenizers` 0.23.2; the hard cases (test-tokenizer-cases.h)
 * come from tokenizers.js on the same two vocabularies. Ids are integers:
 * every comparison is exact. */

static JsonObject *
load_reference (void)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", "reference.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static char *
hard_case_text (const HardCase *c)
{
  g_autofree char *bs = NULL;

  if (c->text != NULL)
    return g_strdup (c->text);
  bs = g_strnfill (99, 'b');
  return g_strconcat (bs, "é", NULL);
}

static void
assert_ids (GArray *ids, const int *expect, const char *text)
{
  guint n = 0;

  while (expect[n] >= 0)
    n++;
  if (ids->len != n || memcmp (ids->data, expect, n * sizeof (int)) != 0)
    {
      g_autoptr(GString) got = g_string_new (NULL);

      for (guint i = 0; i < ids->len; i++)
        g_string_append_printf (got, " %d", g_array_index (ids, int, i));
      g_error ("“%s”: got%s (%u ids, expected %u)", text, got->str, ids->len, n);
    }
}

/* Every sentence of reference.json: ids and token strings exactly. */
static void
check_reference (PlTokenizer *tok, const char *which)
{
  g_autoptr(JsonObject) ref = load_reference ();
  JsonArray *sentences = json_object_get_array_member (ref, "sentences");
  JsonArray *expected = json_object_get_array_member (ref, which);

  g_assert_cmpuint (json_array_get_length (sentences), ==, json_array_get_length (expected));
  g_assert_cmpuint (json_array_get_length (sentences), >=, 20);
  for (guint i = 0; i < json_array_get_length (sentences); i++)
    {
      const char *text = json_array_get_string_element (sentences, i);
      JsonObject *e = json_array_get_object_element (expected, i);
      JsonArray *e_ids = json_object_get_array_member (e, "ids");
      JsonArray *e_tokens = json_object_get_array_member (e, "tokens");
      g_autoptr(GArray) ids = NULL;
      g_autoptr(GPtrArray) tokens = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (pl_tokenizer_encode (tok, text, &ids, &tokens, &error));
      g_assert_no_error (error);
      if (ids->len != json_array_get_length (e_ids))
        g_error ("%s, sentence %u “%s”: %u ids, Hugging Face has %u",
                 which, i, text, ids->len, json_array_get_length (e_ids));
      g_assert_cmpuint (tokens->len, ==, ids->len);
      for (guint k = 0; k < ids->len; k++)
        {
          g_assert_cmpint (g_array_index (ids, int, k), ==, json_array_get_int_element (e_ids, k));
          g_assert_cmpstr (g_ptr_array_index (tokens, k), ==, json_array_get_string_element (e_tokens, k));
        }
    }
}

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
  check_reference (tok, "bert_uncased");
}

static void
test_bpe_reference (void)
{
  g_autoptr(PlTokenizer) tok = fixture_tokenizer ("byte-bpe-vocab.json");
  g_autoptr(PlTokenizer) from_merges = fixture_tokenizer ("byte-bpe-merges.txt");

  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_BPE);
  g_assert_cmpuint (pl_tokenizer_get_vocab_size (tok), ==, 2000);
  check_reference (tok, "byte_bpe");
  check_reference (from_merges, "byte_bpe");
}

static void
test_hard_cases (void)
{
  g_autoptr(PlTokenizer) bert = fixture_tokenizer ("bert-base-uncased-vocab.txt");
  g_autoptr(PlTokenizer) bpe = fixture_tokenizer ("byte-bpe-vocab.json");

  for (guint i = 0; i < G_N_ELEMENTS (hard_cases); i++)
    {
      g_autofree char *text = hard_case_text (&hard_cases[i]);
      g_autoptr(GArray) b = NULL;
      g_autoptr(GArray) g = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (pl_tokenizer_encode (bert, text, &b, NULL, &error));
      g_assert_no_error (error);
      assert_ids (b, hard_cases[i].bert, text);
      g_assert_true (pl_tokenizer_encode (bpe, text, &g, NULL, &error));
      g_assert_no_error (error);
      assert_ids (g, hard_cases[i].bpe, text);
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
  assert_ids (long_ids, unk, a101);
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
  assert_ids (plain, masked, "this [MASK] is");
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
  g_autoptr(JsonObject) ref = load_reference ();
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

/* tokenizer.json files built here from the same vocabularies ------------- */

static void
write_json (const char *path, JsonNode *root)
{
  g_autofree char *text = json_to_string (root, FALSE);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static JsonObject *
vocab_txt_as_object (void)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", "bert-base-uncased-vocab.txt", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  JsonObject *vocab = json_object_new ();

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      json_object_set_int_member (vocab, lines[i], i);
  return vocab;
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static const char wordpiece_template[] =
  "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null,"
  " \"added_tokens\": ["
  "  {\"id\": 0, \"content\": \"[PAD]\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"special\": true},"
  "  {\"id\": 100, \"content\": \"[UNK]\", \"lstrip\": false, \"rstrip\": false, \"special\": true},"
  "  {\"id\": 101, \"content\": \"[CLS]\", \"lstrip\": false, \"rstrip\": false, \"special\": true},"
  "  {\"id\": 102, \"content\": \"[SEP]\", \"lstrip\": false, \"rstrip\": false, \"special\": true},"
  "  {\"id\": 103, \"content\": \"[MASK]\", \"lstrip\": false, \"rstrip\": false, \"special\": true}],"
  " \"normalizer\": {\"type\": \"BertNormalizer\", \"clean_text\": true, \"handle_chinese_chars\": true,"
  "                  \"strip_accents\": null, \"lowercase\": true},"
  " \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},"
  " \"post_processor\": {\"type\": \"TemplateProcessing\","
  "   \"single\": [{\"SpecialToken\": {\"id\": \"[CLS]\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
  "              {\"SpecialToken\": {\"id\": \"[SEP]\", \"type_id\": 0}}],"
  "   \"special_tokens\": {\"[CLS]\": {\"id\": \"[CLS]\", \"ids\": [101], \"tokens\": [\"[CLS]\"]},"
  "                      \"[SEP]\": {\"id\": \"[SEP]\", \"ids\": [102], \"tokens\": [\"[SEP]\"]}}},"
  " \"decoder\": {\"type\": \"WordPiece\", \"prefix\": \"##\", \"cleanup\": true},"
  " \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"continuing_subword_prefix\": \"##\","
  "            \"max_input_chars_per_word\": 100}}";

static const char bpe_template[] =
  "{\"version\": \"1.0\", \"added_tokens\": [], \"normalizer\": null,"
  " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true},"
  " \"post_processor\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": false, \"use_regex\": true},"
  " \"decoder\": {\"type\": \"ByteLevel\"},"
  " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, \"continuing_subword_prefix\": null,"
  "            \"end_of_word_suffix\": null, \"fuse_unk\": false, \"byte_fallback\": false, \"ignore_merges\": false}}";

/* The byte-level BPE fixture as tokenizer.json; merges as "a b" strings (old
 * files) or ["a", "b"] pairs (tokenizers 0.20 on). */
static JsonNode *
bpe_json (gboolean merges_as_pairs)
{
  g_autofree char *vocab_path = pl_test_fixture ("tokenizers", "byte-bpe-vocab.json", NULL);
  g_autofree char *merges_path = pl_test_fixture ("tokenizers", "byte-bpe-merges.txt", NULL);
  g_autofree char *vocab_text = NULL;
  g_autofree char *merges_text = NULL;
  g_auto(GStrv) lines = NULL;
  JsonNode *root = parse_json (bpe_template);
  JsonObject *model = json_object_get_object_member (json_node_get_object (root), "model");
  JsonNode *vocab;
  JsonArray *merges = json_array_new ();

  g_assert_true (g_file_get_contents (vocab_path, &vocab_text, NULL, NULL));
  vocab = parse_json (vocab_text);
  json_object_set_member (model, "vocab", vocab);
  g_assert_true (g_file_get_contents (merges_path, &merges_text, NULL, NULL));
  lines = g_strsplit (merges_text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) pair = NULL;
      JsonArray *a;

      if (lines[i][0] == '\0')
        continue;
      if (!merges_as_pairs)
        {
          json_array_add_string_element (merges, lines[i]);
          continue;
        }
      pair = g_strsplit (lines[i], " ", 2);
      a = json_array_new ();
      json_array_add_string_element (a, pair[0]);
      json_array_add_string_element (a, pair[1]);
      json_array_add_array_element (merges, a);
    }
  json_object_set_array_member (model, "merges", merges);
  return root;
}

static PlTokenizer *
tokenizer_from_json (const char *dir, JsonNode *root)
{
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autoptr(GError) error = NULL;
  PlTokenizer *tok;

  write_json (path, root);
  /* The folder finds tokenizer.json, as beside a real checkpoint. */
  tok = pl_tokenizer_new_for_model_dir (dir, &error);
  g_assert_no_error (error);
  return tok;
}

static void
test_json_wordpiece (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(JsonNode) root = parse_json (wordpiece_template);
  JsonObject *model = json_object_get_object_member (json_node_get_object (root), "model");
  g_autoptr(PlTokenizer) tok = NULL;

  json_object_set_object_member (model, "vocab", vocab_txt_as_object ());
  tok = tokenizer_from_json (dir, root);
  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_WORDPIECE);
  check_reference (tok, "bert_uncased");
  for (guint i = 0; i < G_N_ELEMENTS (hard_cases); i++)
    {
      g_autofree char *text = hard_case_text (&hard_cases[i]);
      g_autoptr(GArray) ids = NULL;

      g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, NULL));
      assert_ids (ids, hard_cases[i].bert, text);
    }
  pl_test_rmtree (dir);
}

static void
test_json_bpe (void)
{
  for (guint pairs = 0; pairs < 2; pairs++)
    {
      g_autofree char *dir = pl_test_tmpdir ();
      g_autoptr(JsonNode) root = bpe_json (pairs);
      g_autoptr(PlTokenizer) tok = tokenizer_from_json (dir, root);

      g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_BPE);
      check_reference (tok, "byte_bpe");
      pl_test_rmtree (dir);
    }
}

/* RoBERTa's shape: <s> … </s> from RobertaProcessing, <mask> swallowing the
 * space before it (lstrip), special tokens written in the text. */
static void
test_json_roberta (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(JsonNode) root = bpe_json (TRUE);
  JsonObject *object = json_node_get_object (root);
  JsonObject *vocab = json_object_get_object_member (json_object_get_object_member (object, "model"), "vocab");
  g_autoptr(PlTokenizer) tok = NULL;

  json_object_set_int_member (vocab, "<s>", 2000);
  json_object_set_int_member (vocab, "</s>", 2001);
  json_object_set_int_member (vocab, "<mask>", 2002);
  json_object_set_member (object, "added_tokens", parse_json (
    "[{\"id\": 2000, \"content\": \"<s>\", \"lstrip\": false, \"rstrip\": false, \"special\": true},"
    " {\"id\": 2001, \"content\": \"</s>\", \"lstrip\": false, \"rstrip\": false, \"special\": true},"
    " {\"id\": 2002, \"content\": \"<mask>\", \"lstrip\": true, \"rstrip\": false, \"special\": true}]"));
  json_object_set_member (object, "post_processor", parse_json (
    "{\"type\": \"RobertaProcessing\", \"sep\": [\"</s>\", 2001], \"cls\": [\"<s>\", 2000],"
    " \"trim_offsets\": true, \"add_prefix_space\": false}"));
  tok = tokenizer_from_json (dir, root);

  for (guint i = 0; i < G_N_ELEMENTS (roberta_cases); i++)
    {
      g_autoptr(GArray) ids = NULL;

      g_assert_true (pl_tokenizer_encode (tok, roberta_cases[i].text, &ids, NULL, NULL));
      assert_ids (ids, roberta_cases[i].bpe, roberta_cases[i].text);
    }
  pl_test_rmtree (dir);
}

static void
expect_json_error (const char *text, int code)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  tok = pl_tokenizer_new_for_model_dir (path, &error);
  g_assert_null (tok);
  g_assert_error (error, PL_ERROR, code);
  g_assert_nonnull (strstr (error->message, "tokenizer.json"));
  pl_test_rmtree (dir);
}

static void
test_json_refused (void)
{
  expect_json_error ("{\"model\": {\"type\": \"Unigram\", \"vocab\": [[\"a\", -1.0]]}}", PL_ERROR_UNSUPPORTED);
  expect_json_error ("{\"normalizer\": null, \"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"},"
                     " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}", PL_ERROR_UNSUPPORTED);
  expect_json_error ("{\"pre_tokenizer\": {\"type\": \"ByteLevel\"},"
                     " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a b\"]}}", PL_ERROR_CORRUPT);
  expect_json_error ("{\"model\": ", PL_ERROR_CORRUPT);
  expect_json_error ("[1, 2]", PL_ERROR_CORRUPT);

  {
    /* A parse error says where, and quotes the file's bytes escaped. */
    g_autofree char *dir = pl_test_tmpdir ();
    g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
    g_autofree char *device = g_build_filename (dir, "device", NULL);
    g_autofree char *link = g_build_filename (device, "tokenizer.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(PlTokenizer) tok = NULL;

    g_assert_true (g_file_set_contents (path, "{\"a\": 1}\n \"\x1b[2J\xc2\x9b\"", -1, NULL));
    tok = pl_tokenizer_new_for_model_dir (dir, &error);
    g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "(line 2, column "));
    g_assert_nonnull (strstr (error->message, "\"\\e[2J\\u009b\""));
    g_assert_null (strchr (error->message, 0x1b));
    g_assert_true (g_utf8_validate (error->message, -1, NULL));

    /* A link to a device is refused by name, not read. */
    g_clear_error (&error);
    g_assert_cmpint (g_mkdir (device, 0700), ==, 0);
    g_assert_cmpint (symlink ("/dev/zero", link), ==, 0);
    g_assert_null (pl_tokenizer_new_for_model_dir (device, &error));
    g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (error->message, "a link to a device"));
    pl_test_rmtree (dir);
  }
}

/* A byte-level BPE tokenizer.json of four tokens (a, b, ab, [CLS]) with
 * MEMBER of the root set to the JSON text VALUE. */
static PlTokenizer *
small_bpe_with (const char  *dir,
                const char  *member,
                const char  *value,
                GError     **error)
{
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autoptr(JsonNode) root = parse_json (bpe_template);
  JsonObject *object = json_node_get_object (root);
  JsonObject *model = json_object_get_object_member (object, "model");

  json_object_set_member (model, "vocab", parse_json ("{\"a\": 0, \"b\": 1, \"ab\": 2, \"[CLS]\": 3}"));
  json_object_set_member (model, "merges", parse_json ("[\"a b\"]"));
  if (member != NULL)
    json_object_set_member (strcmp (member, "vocab") == 0 ? model : object, member, parse_json (value));
  write_json (path, root);
  return pl_tokenizer_new_for_model_dir (dir, error);
}

/* Ids far past what a file lists are refused before anything is sized by
 * them (an array as long as id 1073741823 took 8 GB), and ids past 32 bits
 * are refused, not wrapped (4294967299 was taken as 3); added tokens take
 * the ids Hugging Face gives them. */
static void
test_json_hostile_ids (void)
{
  static const struct
  {
    const char *member;
    const char *value;
    const char *says;
  } cases[] = {
    { "vocab", "{\"a\": 0, \"b\": 1, \"ab\": 2, \"big\": 1073741823}", "id 1073741823, but the file lists only 4" },
    { "vocab", "{\"a\": 0, \"b\": -1}", "id -1" },
    { "added_tokens", "[{\"id\": 4294967299, \"content\": \"<x>\"}]", "id 4294967299" },
    { "post_processor", "{\"type\": \"BertProcessing\", \"cls\": [\"[CLS]\", 4294967299], \"sep\": [\"ab\", 2]}", "“cls”" },
    { "post_processor", "{\"type\": \"BertProcessing\", \"cls\": [\"[CLS]\", 3], \"sep\": [\"ab\", -4294967294]}", "“cls”" },
    { "post_processor", "{\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"[CLS]\"}},"
      " {\"Sequence\": {\"id\": \"A\"}}], \"special_tokens\": {\"[CLS]\": {\"ids\": [4294967299]}}}", "outside the vocabulary" },
  };
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) fine = small_bpe_with (dir, "post_processor",
                                                "{\"type\": \"BertProcessing\", \"cls\": [\"[CLS]\", 3], \"sep\": [\"ab\", 2]}",
                                                &error);
  g_autoptr(GArray) ids = NULL;

  /* The same file with ids in range: [CLS] a b ab → 3, 2, 2, 2. */
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (fine, "abab", &ids, NULL, &error));
  g_assert_cmpuint (ids->len, ==, 4);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 3);
  g_assert_cmpint (g_array_index (ids, int, 3), ==, 2);

  /* An added token's id is Hugging Face's, not the file's: the next after
   * the four tokens of the vocabulary, whatever it says. */
  {
    g_autoptr(PlTokenizer) added = small_bpe_with (dir, "added_tokens", "[{\"id\": 1073741823, \"content\": \"<x>\"}]",
                                                   &error);

    g_assert_no_error (error);
    g_assert_cmpint (pl_tokenizer_token_to_id (added, "<x>"), ==, 4);
    g_assert_cmpuint (pl_tokenizer_get_vocab_size (added), ==, 5);
  }

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PlTokenizer) tok = NULL;
      g_autoptr(GError) local_error = NULL;

      tok = small_bpe_with (dir, cases[i].member, cases[i].value, &local_error);
      g_assert_null (tok);
      g_assert_error (local_error, PL_ERROR, PL_ERROR_CORRUPT);
      g_test_message ("%s", local_error->message);
      g_assert_nonnull (strstr (local_error->message, "tokenizer.json"));
      if (strstr (local_error->message, cases[i].says) == NULL)
        g_error ("case %u: “%s” does not say “%s”", i, local_error->message, cases[i].says);
    }
  pl_test_rmtree (dir);
}

/* Twenty thousand added tokens load in linear time (sorting the specials
 * on every insert took 9 s for half as many), and the longest one still
 * wins where several match. */
static void
test_json_many_added_tokens (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autoptr(GString) added = g_string_new ("[");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();
  const guint n = 20000;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (added, "%s{\"id\": %u, \"content\": \"<t%u\"}", i ? ", " : "", 4 + i, i);
  g_string_append (added, "]");
  tok = small_bpe_with (dir, "added_tokens", added->str, &error);
  g_assert_no_error (error);
  /* "<t19999" starts with "<t1", "<t19", "<t199"…: the longest is the token. */
  g_assert_true (pl_tokenizer_encode (tok, "ab<t1<t19999b<t10", &ids, NULL, &error));
  g_assert_cmpuint (ids->len, ==, 5);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 2);
  g_assert_cmpint (g_array_index (ids, int, 1), ==, 4 + 1);
  g_assert_cmpint (g_array_index (ids, int, 2), ==, 4 + 19999);
  g_assert_cmpint (g_array_index (ids, int, 3), ==, 1);
  g_assert_cmpint (g_array_index (ids, int, 4), ==, 4 + 10);
  for (guint i = 0; i < n; i += 997)
    g_assert_true (pl_tokenizer_is_special (tok, 4 + i));
  g_test_message ("%u added tokens in %.2f s", n, g_timer_elapsed (timer, NULL));
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 5.0);
  pl_test_rmtree (dir);
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
  assert_ids (ids, strip, "default");
  g_array_unref (ids);
  put (dir, "tokenizer_config.json", "{\"do_lower_case\": true, \"strip_accents\": false}");
  ids = encode_in (dir, "naïve café Über", -1);
  assert_ids (ids, no_strip, "strip_accents false");
  g_array_unref (ids);
  put (dir, "tokenizer_config.json", "{\"do_lower_case\": false}");
  ids = encode_in (dir, "Hello", -1);
  assert_ids (ids, cased, "do_lower_case false");
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
        assert_ids (ids, cases[i].ids, cases[i].tok_config);
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
  assert_ids (ids, hello_cased, "Hello! (cased, no specials)");

  roberta = pl_tokenizer_new_bpe (bpe_vocab, bpe_merges, TRUE, &error);
  g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);   /* this vocabulary has no <s> */
  g_assert_nonnull (strstr (error->message, "<s>"));
  g_assert_null (roberta);

  g_assert_true (pl_tokenizer_encode (bytes, "ok[MASK]", &ids2, NULL, NULL));
  assert_ids (ids2, bytes_ids, "ok[MASK]");
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
  g_autoptr(JsonObject) ref = load_reference ();
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
  pl_blas_core_choose (argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pl/tokenizer/wordpiece/reference", test_wordpiece_reference);
  g_test_add_func ("/pl/tokenizer/bpe/reference", test_bpe_reference);
  g_test_add_func ("/pl/tokenizer/hard-cases", test_hard_cases);
  g_test_add_func ("/pl/tokenizer/long-words", test_long_words);
  g_test_add_func ("/pl/tokenizer/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/pl/tokenizer/specials-in-text", test_specials_in_text);
  g_test_add_func ("/pl/tokenizer/id-token", test_id_token);
  g_test_add_func ("/pl/tokenizer/decode", test_decode);
  g_test_add_func ("/pl/tokenizer/json/wordpiece", test_json_wordpiece);
  g_test_add_func ("/pl/tokenizer/json/bpe", test_json_bpe);
  g_test_add_func ("/pl/tokenizer/json/roberta", test_json_roberta);
  g_test_add_func ("/pl/tokenizer/json/refused", test_json_refused);
  g_test_add_func ("/pl/tokenizer/json/hostile-ids", test_json_hostile_ids);
  g_test_add_func ("/pl/tokenizer/json/many-added-tokens", test_json_many_added_tokens);
  g_test_add_func ("/pl/tokenizer/bytes/reference", test_bytes_reference);
  g_test_add_func ("/pl/tokenizer/model-dir", test_model_dir);
  g_test_add_func ("/pl/tokenizer/constructors", test_constructors);
  g_test_add_func ("/pl/tokenizer/threads", test_threads);
  return g_test_run ();
}
