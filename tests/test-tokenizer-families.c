/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "pl-tokenizer-private.h"

/* The tokenizers of today's rotary decoders, from tokenizer.json files in
 * their exact shapes (tests/fixtures/tokenizers/<family>, written by
 * tests/fixtures/make-tokenizers.js), and a published one (phi3-mini,
 * tests/fixtures/tokenizers/phi3-mini/README.md), against the ids and
 * decoded texts of Hugging Face's own Rust `tokenizers` 0.23.2 in each
 * folder's expected.json: hand-written hard cases and random strings. */

typedef struct
{
  const char      *name;
  PlTokenizerKind  kind;
} Family;

static const Family families[] = {
  { "llama2", PL_TOKENIZER_SENTENCEPIECE_BPE },
  { "mistral", PL_TOKENIZER_SENTENCEPIECE_BPE },
  { "gemma", PL_TOKENIZER_SENTENCEPIECE_BPE },
  { "sp-unk", PL_TOKENIZER_SENTENCEPIECE_BPE },
  { "llama3", PL_TOKENIZER_BPE },
  { "qwen2", PL_TOKENIZER_BPE },
  { "smollm", PL_TOKENIZER_BPE },
  { "neox", PL_TOKENIZER_BPE },
  /* Phi-3-mini's own tokenizer.json (1.8 MB): a real file past 1 MiB. */
  { "phi3-mini", PL_TOKENIZER_SENTENCEPIECE_BPE },
};

static PlTokenizer *
load_family (const char *name)
{
  g_autofree char *dir = pl_test_fixture ("tokenizers", name, NULL);
  g_autoptr(GError) error = NULL;
  PlTokenizer *tok = pl_tokenizer_new_for_model_dir (dir, &error);

  g_assert_no_error (error);
  g_assert_nonnull (tok);
  return tok;
}

static JsonArray *
load_cases (const char *name,
            JsonParser *parser)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", name, "expected.json", NULL);
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
}

static char *
ids_text (const int *ids, guint n)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%d", i > 0 ? ", " : "", ids[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static JsonArray *
get_ids (JsonObject *item,
         int       **ids)
{
  JsonArray *array = json_object_get_array_member (item, "ids");

  *ids = g_new0 (int, json_array_get_length (array) + 1);
  for (guint i = 0; i < json_array_get_length (array); i++)
    (*ids)[i] = json_array_get_int_element (array, i);
  return array;
}

static void
check_decode (PlTokenizer *tok,
              JsonObject  *item,
              const int   *ids,
              guint        n_ids)
{
  g_autofree char *decoded = pl_tokenizer_decode (tok, ids, n_ids, FALSE);
  g_autofree char *decoded_skip = pl_tokenizer_decode (tok, ids, n_ids, TRUE);

  g_assert_cmpstr (decoded, ==, json_object_get_string_member (item, "decoded"));
  g_assert_cmpstr (decoded_skip, ==, json_object_get_string_member (item, "decoded_skip"));
}

/* The pieces, which the ids of a tiny vocabulary often cannot tell apart
 * ("'S" "un" and "'Sun" are the same ids without merges across them). */
static void
check_pieces (PlTokenizer *tok,
              const char  *name,
              guint        c,
              const char  *text,
              JsonArray   *want)
{
  g_autoptr(GPtrArray) pieces = pl_pipeline_pieces (tok, text);

  for (guint i = 0; i < MAX (pieces->len, json_array_get_length (want)); i++)
    {
      const char *got = i < pieces->len ? g_ptr_array_index (pieces, i) : NULL;
      const char *expected = i < json_array_get_length (want) ? json_array_get_string_element (want, i) : NULL;

      if (g_strcmp0 (got, expected) != 0)
        {
          g_autofree char *escaped = g_strescape (text, NULL);
          g_autofree char *got_e = got != NULL ? g_strescape (got, NULL) : g_strdup ("(none)");
          g_autofree char *expected_e = expected != NULL ? g_strescape (expected, NULL) : g_strdup ("(none)");

          g_error ("%s, case %u “%s”: piece %u is “%s”, expected “%s”", name, c, escaped, i, got_e, expected_e);
        }
    }
}

/* Every case: ids, pieces and decoded texts of a text, or only the decoded
 * texts of an id list. Returns how many texts were tokenised. */
static guint
check_cases (PlTokenizer *tok,
             const char  *name,
             JsonArray   *cases)
{
  guint n_texts = 0;

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *item = json_array_get_object_element (cases, c);
      const char *text = json_object_has_member (item, "text") ? json_object_get_string_member (item, "text") : NULL;
      g_autofree int *want = NULL;
      guint n_want = json_array_get_length (get_ids (item, &want));
      g_autoptr(GArray) ids = NULL;
      g_autoptr(GError) error = NULL;
      gboolean same;

      if (text == NULL)
        {
          check_decode (tok, item, want, n_want);
          continue;
        }
      n_texts++;
      g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, &error));
      g_assert_no_error (error);
      same = ids->len == n_want && memcmp (ids->data, want, n_want * sizeof (int)) == 0;
      if (!same)
        {
          g_autofree char *escaped = g_strescape (text, NULL);
          g_autofree char *got = ids_text ((const int *) (gpointer) ids->data, ids->len);
          g_autofree char *expected = ids_text (want, n_want);

          g_error ("%s, case %u “%s”:\n  got      %s\n  expected %s", name, c, escaped, got, expected);
        }
      check_pieces (tok, name, c, text, json_object_get_array_member (item, "pieces"));
      check_decode (tok, item, want, n_want);
    }
  return n_texts;
}

static void
test_reference (gconstpointer data)
{
  const Family *family = data;
  g_autoptr(PlTokenizer) tok = load_family (family->name);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *cases = load_cases (family->name, parser);

  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, family->kind);
  g_assert_cmpuint (check_cases (tok, family->name, cases), >=, 190);
}

/* The other steps of Hugging Face's pipeline, each on a family's file with
 * its normalizer, pre-tokenizer, decoder and added tokens replaced. */
static void
test_variants (void)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", "variants.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *variants;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  variants = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "variants");
  g_assert_cmpuint (json_array_get_length (variants), >=, 16);
  for (guint v = 0; v < json_array_get_length (variants); v++)
    {
      JsonObject *variant = json_array_get_object_element (variants, v);
      const char *name = json_object_get_string_member (variant, "name");
      JsonObject *fields = json_object_get_object_member (variant, "fields");
      g_autofree char *base = pl_test_fixture ("tokenizers", json_object_get_string_member (variant, "base"),
                                               "tokenizer.json", NULL);
      g_autoptr(JsonParser) base_parser = json_parser_new ();
      g_autofree char *dir = pl_test_tmpdir ();
      g_autofree char *file = g_build_filename (dir, "tokenizer.json", NULL);
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(PlTokenizer) tok = NULL;
      JsonObject *root;
      const char *members[] = { "normalizer", "pre_tokenizer", "decoder", "added_tokens" };

      json_parser_load_from_file (base_parser, base, &error);
      g_assert_no_error (error);
      root = json_node_get_object (json_parser_get_root (base_parser));
      for (guint m = 0; m < G_N_ELEMENTS (members); m++)
        json_object_set_member (root, members[m], json_node_copy (json_object_get_member (fields, members[m])));
      json_generator_set_root (generator, json_parser_get_root (base_parser));
      json_generator_to_file (generator, file, &error);
      g_assert_no_error (error);

      tok = pl_tokenizer_new_from_json (file, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (check_cases (tok, name, json_object_get_array_member (variant, "cases")), >=, 60);
      pl_test_rmtree (dir);
    }
}

/* Labels of the tokens of TEXT, joined; special tokens left out. */
static char *
joined_labels (PlTokenizer *tok,
               const char  *text)
{
  g_autoptr(GArray) ids = NULL;
  GString *joined = g_string_new (NULL);

  g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, NULL));
  for (guint i = 0; i < ids->len; i++)
    {
      int id = g_array_index (ids, int, i);
      g_autofree char *label = pl_tokenizer_get_label (tok, id);

      g_assert_true (g_utf8_validate (label, -1, NULL));
      if (!pl_tokenizer_is_special (tok, id))
        g_string_append (joined, label);
    }
  return g_string_free (joined, FALSE);
}

/* Labels say what each token stands for: ▁ and Ġ as spaces, <0xNN> as its
 * byte, a character cut in pieces as \xHH, special tokens by name. */
static void
test_labels (void)
{
  const struct
  {
    const char *family;
    const char *text;
    const char *labels;
  } cases[] = {
    /* Llama 2 and Mistral write a ▁ before the text, Gemma not. */
    { "llama2", "Hello world", " Hello world" },
    { "mistral", "Hello world", " Hello world" },
    { "gemma", "Hello world", "Hello world" },
    { "llama3", "Hello world", "Hello world" },
    { "qwen2", " Hello  world", " Hello  world" },
    /* Byte fallback: the emoji's four bytes, each a token. */
    { "llama2", "a😀b", " a\\xF0\\x9F\\x98\\x80b" },
    { "gemma", "tab\there", "tab\there" },
    /* Byte-level: the emoji's bytes merge into no token. */
    { "llama3", "😀", "\\xF0\\x9F\\x98\\x80" },
    { "neox", "x    y", "x    y" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PlTokenizer) tok = load_family (cases[i].family);
      g_autofree char *joined = joined_labels (tok, cases[i].text);

      g_assert_cmpstr (joined, ==, cases[i].labels);
    }

  {
    g_autoptr(PlTokenizer) tok = load_family ("llama2");
    int newline = pl_tokenizer_token_to_id (tok, "<0x0A>");
    int bos = pl_tokenizer_token_to_id (tok, "<s>");
    int nul = pl_tokenizer_token_to_id (tok, "<0x00>");
    g_autofree char *nl_label = pl_tokenizer_get_label (tok, newline);
    g_autofree char *bos_label = pl_tokenizer_get_label (tok, bos);
    g_autofree char *nul_label = pl_tokenizer_get_label (tok, nul);
    g_autofree char *none_label = pl_tokenizer_get_label (tok, 100000);

    g_assert_cmpstr (nl_label, ==, "\n");
    g_assert_cmpstr (bos_label, ==, "<s>");
    g_assert_cmpstr (nul_label, ==, "\\x00");
    g_assert_cmpstr (none_label, ==, "#100000");
  }
}

static void
expect_refused (const char *json,
                const char *needle)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  tok = pl_tokenizer_new_for_model_dir (dir, &error);
  g_assert_null (tok);
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  if (strstr (error->message, needle) == NULL || strstr (error->message, path) == NULL)
    g_error ("“%s” does not name “%s” and the file", error->message, needle);
  pl_test_rmtree (dir);
}

#define BPE_MODEL "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}"

/* What Poslens cannot run is refused by name, never approximated. */
static void
test_refused (void)
{
  expect_refused ("{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}, \"unk_token\": \"a\"}}", "WordLevel");
  expect_refused ("{\"normalizer\": {\"type\": \"BertNormalizer\"}, " BPE_MODEL "}", "BertNormalizer");
  expect_refused ("{\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"Regex\": \" {3,}\"}, \"content\": \" \"},"
                  BPE_MODEL "}", " {3,}");
  expect_refused ("{\"pre_tokenizer\": {\"type\": \"Whitespace\"}, " BPE_MODEL "}", "Whitespace");
  expect_refused ("{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\s+\"},"
                  " \"behavior\": \"Removed\", \"invert\": false}, " BPE_MODEL "}", "\\s+");
  expect_refused ("{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
                  "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
                  " {\"type\": \"Digits\", \"individual_digits\": true}]}, " BPE_MODEL "}", "after ByteLevel");
  expect_refused ("{\"decoder\": {\"type\": \"CTC\", \"pad_token\": \"<pad>\"}, " BPE_MODEL "}", "CTC");
  expect_refused ("{\"model\": {\"type\": \"BPE\", \"dropout\": 0.1, \"vocab\": {\"a\": 0}, \"merges\": []}}",
                  "dropout");
  expect_refused ("{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"vocab\": {\"a\": 0},"
                  " \"merges\": []}}", "affixes");

  /* Llama 2's SentencePiece model alone, without its tokenizer.json. */
  {
    g_autofree char *dir = pl_test_tmpdir ();
    g_autofree char *path = g_build_filename (dir, "tokenizer.model", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(PlTokenizer) tok = NULL;

    g_assert_true (g_file_set_contents (path, "\n\x0e\n\x05<unk>", -1, NULL));
    tok = pl_tokenizer_new_for_model_dir (dir, &error);
    g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (error->message, "SentencePiece"));
    g_assert_nonnull (strstr (error->message, "tokenizer.json"));
    pl_test_rmtree (dir);
  }
}

/* Damaged files are refused as such, naming the file. */
static void
test_corrupt (void)
{
  const char *files[] = {
    "{\"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"__\"}, " BPE_MODEL "}",
    "{\"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"▁\", \"prepend_scheme\": \"sometimes\"}, "
    BPE_MODEL "}",
    "{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \"\"}, \"behavior\": \"Isolated\"}, "
    BPE_MODEL "}",
    "{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"Apart\"}, "
    BPE_MODEL "}",
    "{\"normalizer\": {\"type\": \"Sequence\"}, " BPE_MODEL "}",
    "{\"normalizer\": {\"type\": \"Prepend\"}, " BPE_MODEL "}",
    "{\"decoder\": {\"type\": \"Strip\", \"content\": \"\", \"start\": 1, \"stop\": 0}, " BPE_MODEL "}",
    "{\"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"vocab\": {\"a\": 0}, \"merges\": []}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *dir = pl_test_tmpdir ();
      g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlTokenizer) tok = NULL;

      g_assert_true (g_file_set_contents (path, files[i], -1, NULL));
      tok = pl_tokenizer_new_from_json (path, &error);
      g_assert_null (tok);
      g_assert_error (error, PL_ERROR, PL_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, path));
      pl_test_rmtree (dir);
    }
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/tokenizer/families/%s", families[i].name);

      g_test_add_data_func (name, &families[i], test_reference);
    }
  g_test_add_func ("/pl/tokenizer/families/variants", test_variants);
  g_test_add_func ("/pl/tokenizer/families/labels", test_labels);
  g_test_add_func ("/pl/tokenizer/families/refused", test_refused);
  g_test_add_func ("/pl/tokenizer/families/corrupt", test_corrupt);
  return g_test_run ();
}
