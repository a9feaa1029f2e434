/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#include "pl-test-util.h"

/* `poslens-cli tokenize`, run as a user runs it ($POSLENS_CLI). */

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  return pl_test_cli_output ("tokenize", args, out, err);
}

/* Exit 2 and one line on stderr, naming the problem. */
static void
expect_input_error (const char * const *args,
                    const char         *needle)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (run_cli (args, &out, &err), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_str_has_prefix (err, "poslens-cli: "));
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
  g_assert_null (strchr (err, 0x1b));
  if (strstr (err, needle) == NULL)
    g_error ("“%s” does not say “%s”", err, needle);
}

static void
test_json (void)
{
  g_autofree char *vocab = pl_test_fixture ("tokenizers", "bert-base-uncased-vocab.txt", NULL);
  const char *args[] = { vocab, "--text", "Hello, world!", "--json", NULL };
  const int ids[] = { 101, 7592, 1010, 2088, 999, 102 };
  const char *tokens[] = { "[CLS]", "hello", ",", "world", "!", "[SEP]" };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *a_ids;
  JsonArray *a_tokens;

  /* Hugging Face's ids for this sentence, from reference.json. */
  g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "tokenizer"), ==, "wordpiece");
  g_assert_cmpint (json_object_get_int_member (root, "vocab_size"), ==, 30522);
  a_ids = json_object_get_array_member (root, "ids");
  a_tokens = json_object_get_array_member (root, "tokens");
  g_assert_cmpuint (json_array_get_length (a_ids), ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_assert_cmpint (json_array_get_int_element (a_ids, i), ==, ids[i]);
      g_assert_cmpstr (json_array_get_string_element (a_tokens, i), ==, tokens[i]);
    }
}

static void
test_table (void)
{
  g_autofree char *demo = pl_test_demo ("mini-bert", NULL);
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  const char *bert_args[] = { demo, "--text", "Hi", NULL };
  const char *gpt2_args[] = { weights, "-t", "Hi", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_auto(GStrv) lines = NULL;

  /* Byte scheme: 'H' = 72 → 76, 'i' = 105 → 109, [CLS] = 1, [SEP] = 2. */
  g_assert_cmpint (run_cli (bert_args, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 7);
  g_assert_true (g_str_has_prefix (lines[0], "# bytes tokenizer"));
  g_assert_cmpstr (lines[2], ==, "0\t1\t[CLS]");
  g_assert_cmpstr (lines[3], ==, "1\t76\tH");
  g_assert_cmpstr (lines[4], ==, "2\t109\ti");
  g_assert_cmpstr (lines[5], ==, "3\t2\t[SEP]");

  /* A checkpoint file: the tokenizer beside it; GPT-2 adds nothing. */
  g_assert_cmpint (run_cli (gpt2_args, &out2, &err2), ==, 0);
  g_assert_nonnull (strstr (out2, "\n0\t76\tH\n1\t109\ti\n"));
}

/* The ids Hugging Face gives TEXT with the tokenizer of FAMILY, from its
 * expected.json. */
static GArray *
reference_ids (const char *family,
               const char *text)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", family, "expected.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *cases;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *item = json_array_get_object_element (cases, c);
      JsonArray *ids;
      GArray *out;

      if (!json_object_has_member (item, "text") || strcmp (json_object_get_string_member (item, "text"), text) != 0)
        continue;
      ids = json_object_get_array_member (item, "ids");
      out = g_array_new (FALSE, FALSE, sizeof (int));
      for (guint i = 0; i < json_array_get_length (ids); i++)
        {
          int id = json_array_get_int_element (ids, i);

          g_array_append_val (out, id);
        }
      return out;
    }
  g_assert_not_reached ();
}

/* Today's tokenizers from a folder holding tokenizer.json: Llama 3's
 * byte-level BPE with its BOS, Llama 2's SentencePiece-style BPE. */
static void
test_today (void)
{
  const struct
  {
    const char *family;
    const char *kind;
    const char *text;
    const char *first_token;
  } cases[] = {
    { "llama3", "byte-level-bpe", "I'm sure they're here, we'll see; you've got it and she'd know. It's John's.",
      "<|begin_of_text|>" },
    { "llama2", "sentencepiece-bpe", "Emoji 😀 👍🏽 👨\u200d👩\u200d👧 ❤\ufe0f 🇩🇪 end", "<s>" },
    { "qwen2", "byte-level-bpe", "1 12 123 1234 12345 123456 1234567 3.14159 2,024 1e10 0x1F", "1" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *dir = pl_test_fixture ("tokenizers", cases[k].family, NULL);
      const char *args[] = { dir, "--text", cases[k].text, "--json", NULL };
      g_autoptr(GArray) want = reference_ids (cases[k].family, cases[k].text);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *root;
      JsonArray *ids;

      g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
      g_assert_cmpstr (err, ==, "");
      json_parser_load_from_data (parser, out, -1, &error);
      g_assert_no_error (error);
      root = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (root, "tokenizer"), ==, cases[k].kind);
      ids = json_object_get_array_member (root, "ids");
      g_assert_cmpuint (json_array_get_length (ids), ==, want->len);
      for (guint i = 0; i < want->len; i++)
        g_assert_cmpint (json_array_get_int_element (ids, i), ==, g_array_index (want, int, i));
      g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (root, "tokens"), 0), ==,
                       cases[k].first_token);
    }
}

static void
test_errors (void)
{
  g_autofree char *demo = pl_test_demo ("mini-bert", NULL);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *bad_file = g_build_filename (dir, "latin1.txt", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *no_text[] = { demo, NULL };
  const char *no_path[] = { "--text", "x", NULL };
  const char *bad_utf8[] = { demo, "--text", "caf\xe9", NULL };
  const char *bad_utf8_file[] = { demo, "--file", bad_file, NULL };
  const char *missing[] = { "/nonexistent/checkpoint", "--text", "x", NULL };
  const char *missing_file[] = { demo, "--file", "/nonexistent/text.txt", NULL };
  const char *no_tokenizer[] = { dir, "--text", "x", NULL };
  g_autofree char *unigram_dir = g_build_filename (dir, "unigram", NULL);
  g_autofree char *unigram = g_build_filename (unigram_dir, "tokenizer.json", NULL);
  const char *refused[] = { unigram_dir, "--text", "x", NULL };

  /* A kind Poslens does not run is refused by name. */
  g_assert_cmpint (g_mkdir (unigram_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (unigram, "{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"x\": 0}}}", -1,
                                      NULL));
  expect_input_error (refused, "WordLevel");
  g_assert_true (g_file_set_contents (bad_file, "na\xefve", -1, NULL));
  expect_input_error (bad_utf8, "UTF-8");
  expect_input_error (bad_utf8_file, "UTF-8");
  expect_input_error (missing, "/nonexistent/checkpoint");
  expect_input_error (missing_file, "text.txt");
  expect_input_error (no_tokenizer, "No tokenizer");

  g_assert_cmpint (run_cli (no_text, &out, &err), ==, 1);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (no_path, &out, &err), ==, 1);
  pl_test_rmtree (dir);
}

/* A tokenizer whose added tokens hold an escape sequence and a C1 CSI, and
 * text with a NUL byte: nothing raw reaches the terminal, nothing is cut. */
static void
test_hostile_text (void)
{
  static const char tokenizer[] =
    "{\"added_tokens\": [{\"id\": 3, \"content\": \"\\u001b[2J\"}, {\"id\": 4, \"content\": \"\\u009b31m\"}],"
    " \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false},"
    " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}}";
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *nul_file = g_build_filename (dir, "before-nul-after.txt", NULL);
  g_autofree char *sneaky = g_build_filename (dir, "no\x1b[31mfolder", NULL);
  const char *table[] = { dir, "--text", "ab\x1b[2Jb\xc2\x9b" "31m", NULL };
  const char *json[] = { dir, "--text", "ab\x1b[2Jb\xc2\x9b" "31m", "--json", NULL };
  const char *nul[] = { dir, "--file", nul_file, NULL };
  const char *empty[] = { "", "--text", "x", NULL };
  const char *escaped_path[] = { sneaky, "--text", "x", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_set_contents (path, tokenizer, -1, NULL));
  g_assert_true (g_file_set_contents (nul_file, "before\0after", 12, NULL));

  /* The table: one line per token, the escape sequences written out. */
  g_assert_cmpint (run_cli (table, &out, &err), ==, 0);
  g_assert_null (strchr (out, 0x1b));
  g_assert_null (strstr (out, "\xc2\x9b"));
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 2 + 4 + 1);
  g_assert_cmpstr (lines[2], ==, "0\t2\tab");
  g_assert_cmpstr (lines[3], ==, "1\t3\t\\e[2J");
  g_assert_cmpstr (lines[4], ==, "2\t1\tb");
  g_assert_cmpstr (lines[5], ==, "3\t4\t\\u009b31m");

  /* JSON: escapes a JSON parser reads back as the same tokens. */
  g_assert_cmpint (run_cli (json, &out2, &err2), ==, 0);
  g_assert_null (strchr (out2, 0x1b));
  g_assert_null (strstr (out2, "\xc2\x9b"));
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    JsonArray *tokens;

    json_parser_load_from_data (parser, out2, -1, &error);
    g_assert_no_error (error);
    tokens = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "tokens");
    g_assert_cmpstr (json_array_get_string_element (tokens, 1), ==, "\x1b[2J");
    g_assert_cmpstr (json_array_get_string_element (tokens, 3), ==, "\xc2\x9b" "31m");
  }

  /* A NUL byte: refused by the file's name, not "before" alone. */
  expect_input_error (nul, "before-nul-after.txt holds a NUL byte at offset 6");
  expect_input_error (empty, "empty");
  /* A path with an escape sequence is named with it written out. */
  expect_input_error (escaped_path, "no\\e[31mfolder");
  pl_test_rmtree (dir);
}

/* The fixture NAME.gz of tests/fixtures/tokenizers decompressed into DIR:
 * the path of the file written. */
static char *
gunzip_fixture (const char *dir,
                const char *name)
{
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *gz = pl_test_fixture ("tokenizers", gz_name, NULL);
  char *path = g_build_filename (dir, name, NULL);
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

/* poslens-cli tokenize ARGS… with STDIN_PATH (or nothing) as its standard
 * input and STDOUT_PATH (or a pipe) as its output: the exit status. */
static int
run_cli_redirected (const char * const *args,
                    const char         *stdin_path,
                    const char         *stdout_path,
                    char              **out,
                    char              **err)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                                                       (stdout_path ? 0 : G_SUBPROCESS_FLAGS_STDOUT_PIPE));
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("POSLENS_CLI"));
  g_ptr_array_add (argv, (gpointer) "tokenize");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (stdin_path != NULL)
    g_subprocess_launcher_set_stdin_file_path (launcher, stdin_path);
  if (stdout_path != NULL)
    g_subprocess_launcher_set_stdout_file_path (launcher, stdout_path);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  return g_subprocess_get_exit_status (process);
}

/* The ids of --json output OUT. */
static GArray *
json_ids (const char *out)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int));
  JsonArray *array;

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  array = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "ids");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      int id = json_array_get_int_element (array, i);

      g_array_append_val (ids, id);
    }
  return ids;
}

/* IDS against long-text.json of FAMILY: the count, the first ids, and the
 * SHA-256 of every run of "chunk" ids as little-endian int32, as Hugging
 * Face's encoding of the same text gives them. */
static void
check_long_ids (const char *family,
                GArray     *ids,
                const char *how)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", family, "long-text.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *first, *chunks;
  guint chunk;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  first = json_object_get_array_member (root, "first_ids");
  chunks = json_object_get_array_member (root, "chunk_sha256");
  chunk = json_object_get_int_member (root, "chunk");
  g_test_message ("%s: %u ids", how, ids->len);
  g_assert_cmpuint (ids->len, ==, json_object_get_int_member (root, "n_ids"));
  for (guint i = 0; i < json_array_get_length (first); i++)
    g_assert_cmpint (g_array_index (ids, int, i), ==, json_array_get_int_element (first, i));
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
        g_error ("%s: ids %u–%u differ from Hugging Face’s (the first of them: %d)", how, c * chunk,
                 c * chunk + n - 1, g_array_index (ids, int, c * chunk));
    }
}

/* A real text over 1 MiB (Tiny Shakespeare, 1.1 MB) with a real tokenizer
 * file over 1 MiB (Phi-3's, 1.8 MB), from a file and from standard input:
 * every one of its 368,633 ids as Hugging Face's. Both files were read as
 * empty once, and the text printed "<s>" with exit status 0. */
static void
test_long_text (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *text = gunzip_fixture (dir, "tinyshakespeare.txt");
  g_autofree char *tokenizer = pl_test_fixture ("tokenizers", "phi3-mini", NULL);
  const char *from_file[] = { tokenizer, "--file", text, "--json", NULL };
  const char *from_stdin[] = { tokenizer, "--file", "-", "--json", NULL };
  GStatBuf st;

  g_assert_cmpint (g_stat (text, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 1 << 20);
  for (guint how = 0; how < 2; how++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GArray) ids = NULL;

      g_assert_cmpint (run_cli_redirected (how ? from_stdin : from_file, how ? text : NULL, NULL, &out, &err), ==, 0);
      g_assert_cmpstr (err, ==, "");
      ids = json_ids (out);
      check_long_ids ("phi3-mini", ids, how ? "standard input" : "--file");
    }
  pl_test_rmtree (dir);
}

/* What cannot be read or written whole is an error, never a shorter answer
 * with exit status 0: standard input that fails to read (a folder), output
 * to a full disk; and a file whose size says less than it holds (/proc's
 * say 0) is read to its end. */
static void
test_unreadable (void)
{
  g_autofree char *vocab = pl_test_fixture ("tokenizers", "phi3-mini", NULL);
  const char *from_stdin[] = { vocab, "--file", "-", NULL };
  const char *to_output[] = { vocab, "--text", "Hello world", NULL };
  const char *proc_file[] = { vocab, "--file", "/proc/version", "--json", NULL };
  g_autofree char *version = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *out3 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *out4 = NULL;
  g_autofree char *err4 = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) want = NULL;

  g_assert_cmpint (run_cli_redirected (from_stdin, "/", NULL, &out, &err), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, "standard input"));
  g_assert_nonnull (strstr (err, g_strerror (EISDIR)));

  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_assert_cmpint (run_cli_redirected (to_output, NULL, "/dev/full", NULL, &err2), ==, 2);
      g_assert_nonnull (strstr (err2, "standard output"));
      g_assert_nonnull (strstr (err2, g_strerror (ENOSPC)));
    }

  /* The same ids as the text itself, read by GLib to its end. */
  if (g_file_get_contents ("/proc/version", &version, NULL, NULL) && version[0] != '\0')
    {
      const char *as_text[] = { vocab, "--text", version, "--json", NULL };

      g_assert_cmpint (run_cli_redirected (proc_file, NULL, NULL, &out3, &err3), ==, 0);
      g_assert_cmpint (run_cli_redirected (as_text, NULL, NULL, &out4, &err4), ==, 0);
      ids = json_ids (out3);
      want = json_ids (out4);
      g_assert_cmpuint (ids->len, >, 1);
      g_assert_cmpuint (ids->len, ==, want->len);
      g_assert_cmpmem (ids->data, ids->len * sizeof (int), want->data, want->len * sizeof (int));
    }
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);
  g_test_add_func ("/pl/cli/tokenize/json", test_json);
  g_test_add_func ("/pl/cli/tokenize/table", test_table);
  g_test_add_func ("/pl/cli/tokenize/today", test_today);
  g_test_add_func ("/pl/cli/tokenize/errors", test_errors);
  g_test_add_func ("/pl/cli/tokenize/hostile-text", test_hostile_text);
  g_test_add_func ("/pl/cli/tokenize/long-text", test_long_text);
  g_test_add_func ("/pl/cli/tokenize/unreadable", test_unreadable);
  return g_test_run ();
}
