/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "test-tokenizer-util.h"

/* tokenizer.json files built here from the fixtures' vocabularies: each
 * model and processor shape read as Hugging Face reads it, checked against
 * reference.json and the hard cases; hostile files are refused. */

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
  pl_test_check_reference (tok, "bert_uncased");
  for (guint i = 0; i < G_N_ELEMENTS (hard_cases); i++)
    {
      g_autofree char *text = pl_test_hard_case_text (&hard_cases[i]);
      g_autoptr(GArray) ids = NULL;

      g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, NULL));
      pl_test_assert_ids (ids, hard_cases[i].bert, text);
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
      pl_test_check_reference (tok, "byte_bpe");
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
      pl_test_assert_ids (ids, roberta_cases[i].bpe, roberta_cases[i].text);
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
  expect_json_error ("{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}}}", PL_ERROR_UNSUPPORTED);
  expect_json_error ("{\"normalizer\": null, \"pre_tokenizer\": {\"type\": \"Punctuation\"},"
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

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/tokenizer/json/wordpiece", test_json_wordpiece);
  g_test_add_func ("/pl/tokenizer/json/bpe", test_json_bpe);
  g_test_add_func ("/pl/tokenizer/json/roberta", test_json_roberta);
  g_test_add_func ("/pl/tokenizer/json/refused", test_json_refused);
  g_test_add_func ("/pl/tokenizer/json/hostile-ids", test_json_hostile_ids);
  g_test_add_func ("/pl/tokenizer/json/many-added-tokens", test_json_many_added_tokens);
  return g_test_run ();
}
