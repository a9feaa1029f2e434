/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "pl-error.h"
#include "pl-test-util.h"
#include "pl-tokenizer-private.h"

/* SentencePiece's Unigram tokenizers from tokenizer.json, against Hugging
 * Face's own Rust `tokenizers` 0.23.2 (expected.json in each folder of
 * tests/fixtures/tokenizers, written by make-tokenizers.js; UNIGRAM.md there
 * says where each file comes from): two published files (T5's, with the
 * Precompiled normalizer's charsmap, and ALBERT's as transformers 5 writes
 * it) and three in the layouts of XLM-RoBERTa (as 2020's files serialise
 * it), DeBERTa-v3 (Strip, byte fallback) and mT5, on T5's pieces and
 * charsmap. Every file is over 1 MiB, kept gzipped and unpacked here. For
 * each hand-written and random text in many scripts: the ids, the pieces
 * the normalizers and pre-tokenizers cut, and both decodings; and T5's ids
 * for a text over 1 MiB. */

typedef struct
{
  const char *name;
  guint       min_texts;
} Fixture;

static const Fixture fixtures[] = {
  { "t5-base", 290 },
  { "albert-v5", 190 },
  { "xlmr-layout", 190 },
  { "deberta-v3-layout", 190 },
  { "mt5-layout", 190 },
};

/* tests/fixtures/tokenizers/NAME/FILE.gz unpacked into DIR/FILE. */
static char *
gunzip_fixture (const char *dir,
                const char *name,
                const char *file)
{
  g_autofree char *gz_name = g_strconcat (file, ".gz", NULL);
  g_autofree char *gz = name != NULL ? pl_test_fixture ("tokenizers", name, gz_name, NULL)
                                     : pl_test_fixture ("tokenizers", gz_name, NULL);
  char *path = g_build_filename (dir, file, NULL);
  g_autoptr(GFile) in_file = g_file_new_for_path (gz);
  g_autoptr(GFile) out_file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (in_file, NULL, NULL);
  g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) text = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (in);
  text = g_converter_input_stream_new (G_INPUT_STREAM (in), G_CONVERTER (gunzip));
  out = g_file_replace (out_file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_splice (G_OUTPUT_STREAM (out), text,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  return path;
}

/* The tokenizer of fixture NAME, from a folder holding its tokenizer.json
 * (over 1 MiB) alone, as a checkpoint's folder holds it. */
static PlTokenizer *
load (const char *name,
      char      **dir)
{
  g_autofree char *file = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;
  PlTokenizer *tok;

  *dir = pl_test_tmpdir ();
  file = gunzip_fixture (*dir, name, "tokenizer.json");
  g_assert_cmpint (g_stat (file, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 1 << 20);
  tok = pl_tokenizer_new_for_model_dir (*dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pl_tokenizer_get_kind (tok), ==, PL_TOKENIZER_UNIGRAM);
  g_assert_cmpstr (pl_tokenizer_get_kind_name (tok), ==, "unigram");
  return tok;
}

static char *
ids_text (const int *ids,
          guint      n)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%d", i > 0 ? ", " : "", ids[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
check_case (PlTokenizer *tok,
            const char  *name,
            guint        c,
            JsonObject  *item)
{
  JsonArray *want_ids = json_object_get_array_member (item, "ids");
  guint n_want = json_array_get_length (want_ids);
  g_autofree int *want = g_new0 (int, n_want + 1);
  const char *text = json_object_has_member (item, "text") ? json_object_get_string_member (item, "text") : NULL;
  g_autofree char *decoded = NULL;
  g_autofree char *decoded_skip = NULL;

  for (guint i = 0; i < n_want; i++)
    want[i] = json_array_get_int_element (want_ids, i);
  if (text != NULL)
    {
      g_autoptr(GArray) ids = NULL;
      g_autoptr(GPtrArray) pieces = pl_pipeline_pieces (tok, text);
      JsonArray *want_pieces = json_object_get_array_member (item, "pieces");
      g_autoptr(GError) error = NULL;
      g_autofree char *escaped = g_strescape (text, NULL);

      g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, &error));
      g_assert_no_error (error);
      if (ids->len != n_want || memcmp (ids->data, want, n_want * sizeof (int)) != 0)
        {
          g_autofree char *got = ids_text ((const int *) (gpointer) ids->data, ids->len);
          g_autofree char *expected = ids_text (want, n_want);

          g_error ("%s, case %u “%s”:\n  got      %s\n  expected %s", name, c, escaped, got, expected);
        }
      g_assert_cmpuint (pieces->len, ==, json_array_get_length (want_pieces));
      for (guint i = 0; i < pieces->len; i++)
        if (g_strcmp0 (g_ptr_array_index (pieces, i), json_array_get_string_element (want_pieces, i)) != 0)
          g_error ("%s, case %u “%s”: piece %u is “%s”, expected “%s”", name, c, escaped, i,
                   (char *) g_ptr_array_index (pieces, i), json_array_get_string_element (want_pieces, i));
    }
  decoded = pl_tokenizer_decode (tok, want, n_want, FALSE);
  decoded_skip = pl_tokenizer_decode (tok, want, n_want, TRUE);
  g_assert_cmpstr (decoded, ==, json_object_get_string_member (item, "decoded"));
  g_assert_cmpstr (decoded_skip, ==, json_object_get_string_member (item, "decoded_skip"));
}

static void
test_reference (gconstpointer data)
{
  const Fixture *fixture = data;
  g_autofree char *dir = NULL;
  g_autoptr(PlTokenizer) tok = load (fixture->name, &dir);
  g_autofree char *path = pl_test_fixture ("tokenizers", fixture->name, "expected.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *cases;
  guint n_texts = 0;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *item = json_array_get_object_element (cases, c);

      n_texts += json_object_has_member (item, "text");
      check_case (tok, fixture->name, c, item);
    }
  g_assert_cmpuint (n_texts, >=, fixture->min_texts);
  pl_test_rmtree (dir);
}

/* Tiny Shakespeare (1.1 MB) through T5's tokenizer: all 341,471 ids as
 * Hugging Face's, by their count, first ids and the SHA-256 of each run. */
static void
test_long_text (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PlTokenizer) tok = load ("t5-base", &dir);
  g_autofree char *text_path = gunzip_fixture (dir, NULL, "tinyshakespeare.txt");
  g_autofree char *path = pl_test_fixture ("tokenizers", "t5-base", "long-text.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *first, *chunks;
  guint chunk;
  gsize len;

  g_assert_true (g_file_get_contents (text_path, &text, &len, NULL));
  g_assert_cmpuint (len, >, 1 << 20);
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (pl_tokenizer_encode (tok, text, &ids, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ids->len, ==, json_object_get_int_member (root, "n_ids"));
  first = json_object_get_array_member (root, "first_ids");
  for (guint i = 0; i < json_array_get_length (first); i++)
    g_assert_cmpint (g_array_index (ids, int, i), ==, json_array_get_int_element (first, i));
  chunks = json_object_get_array_member (root, "chunk_sha256");
  chunk = json_object_get_int_member (root, "chunk");
  g_assert_cmpuint (json_array_get_length (chunks), ==, (ids->len + chunk - 1) / chunk);
  for (guint c = 0; c < json_array_get_length (chunks); c++)
    {
      guint n = MIN (chunk, ids->len - c * chunk);
      g_autofree gint32 *le = g_new (gint32, n);
      g_autofree char *sha = NULL;

      for (guint i = 0; i < n; i++)
        le[i] = GINT32_TO_LE (g_array_index (ids, int, c * chunk + i));
      sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) le, n * sizeof (gint32));
      if (strcmp (sha, json_array_get_string_element (chunks, c)) != 0)
        g_error ("ids %u–%u differ from Hugging Face’s", c * chunk, c * chunk + n - 1);
    }
  pl_test_rmtree (dir);
}

#define PIECES "[[\"<unk>\", 0.0], [\"▁a\", -1.0], [\"b\", -2.5]]"

/* Unigram files that are not what they say, or hold absurd values, are
 * refused with the file's name and what is wrong; nothing is allocated
 * from a number the file does not back. */
static void
test_refused (void)
{
  const struct
  {
    const char *json;
    PlError     code;
    const char *says;
  } cases[] = {
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [\"a\", -1e300]]}}",
      PL_ERROR_CORRUPT, "the piece “a” (id 1) has the score -1e+300" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [\"a\", 2e6]]}}",
      PL_ERROR_CORRUPT, "has the score 2e+06" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 3, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "unk_id 3 is not one of its 3 pieces" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": -1, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "unk_id -1" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 4294967296, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "unk_id 4294967296" },
    { "{\"model\": {\"type\": \"Unigram\", \"vocab\": " PIECES "}}",
      PL_ERROR_UNSUPPORTED, "without an unk_id" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": []}}",
      PL_ERROR_CORRUPT, "no “vocab” list" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [\"a\"]]}}",
      PL_ERROR_CORRUPT, "entry 1 is not a [piece, score] pair" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [7, -1.0]]}}",
      PL_ERROR_CORRUPT, "entry 1 is not a [piece, score] pair" },
    { "{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [\"a\", \"-1\"]]}}",
      PL_ERROR_CORRUPT, "entry 1 is not a [piece, score] pair" },
    /* base64 that is not, a charsmap too short for its trie's size, one
     * whose trie claims more than it holds, replacements not UTF-8 */
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"\"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "is not base64" },
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": null}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "is not base64" },
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"AAE=*\"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "is not base64" },
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"AAE=\"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "too few for its trie's size" },
    /* trie of 4096 bytes claimed, 4 held */
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"ABAAAAAAAAA=\"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "trie claims 4096 bytes of its charsmap's 4" },
    /* a trie of one unit, then the replacement bytes ff fe */
    { "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"BAAAAAAAAAD//g==\"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_CORRUPT, "not valid UTF-8" },
    { "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_UNSUPPORTED, "ByteLevel" },
    { "{\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"Regex\": \" +\"}, \"content\": \" \"}, "
      "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": " PIECES "}}",
      PL_ERROR_UNSUPPORTED, " +" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = pl_test_tmpdir ();
      g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlTokenizer) tok = NULL;

      g_assert_true (g_file_set_contents (path, cases[i].json, -1, NULL));
      tok = pl_tokenizer_new_from_json (path, &error);
      g_assert_null (tok);
      g_assert_error (error, PL_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].says) == NULL || strstr (error->message, path) == NULL)
        g_error ("case %u: “%s” does not name “%s” and the file", i, error->message, cases[i].says);
      pl_test_rmtree (dir);
    }
}

/* A charsmap whose trie points outside itself, or at replacements it does
 * not hold, changes nothing (where Hugging Face's Rust would panic), and a
 * piece listed twice is found by its last id, as Hugging Face's map of
 * pieces keeps it. */
static void
test_damaged_trie (void)
{
  /* two units: the root's offset (0xff00) sends every walk past them */
  static const char *files[] = {
    "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"CAAAAAD/AwAAAAAAYQA=\"}, "
    "\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0.0], [\"▁a\", -1.0], [\"b\", -2.5], "
    "[\"▁a\", -3.0]]}, \"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"▁\"}}",
  };
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;
  g_autoptr(GArray) ids = NULL;

  g_assert_true (g_file_set_contents (path, files[0], -1, NULL));
  tok = pl_tokenizer_new_from_json (path, &error);
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (tok, "ab a\xcc\x81", &ids, NULL, &error));
  g_assert_no_error (error);
  /* ▁a b ▁a <unk>: the repeated ▁a by its last id, the mark unknown */
  g_assert_cmpuint (ids->len, ==, 4);
  g_assert_cmpint (g_array_index (ids, int, 0), ==, 3);
  g_assert_cmpint (g_array_index (ids, int, 1), ==, 2);
  g_assert_cmpint (g_array_index (ids, int, 2), ==, 3);
  g_assert_cmpint (g_array_index (ids, int, 3), ==, 0);
  pl_test_rmtree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/tokenizer/unigram/%s", fixtures[i].name);

      g_test_add_data_func (name, &fixtures[i], test_reference);
    }
  g_test_add_func ("/pl/tokenizer/unigram/long-text", test_long_text);
  g_test_add_func ("/pl/tokenizer/unigram/refused", test_refused);
  g_test_add_func ("/pl/tokenizer/unigram/damaged-trie", test_damaged_trie);
  return g_test_run ();
}
