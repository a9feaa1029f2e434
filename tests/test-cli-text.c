/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "pl-test-transformer.h"
#include "pl-test-util.h"
#include "pl-text-attention.h"

/* `poslens-cli forward --text` and `attention --text`, run as a user runs
 * them ($POSLENS_CLI), against Hugging Face: the fixtures' hf/text group holds
 * the ids of a byte-tokenised text and the attentions transformers computed
 * for it. The text is recovered from those ids (byte = id − 4, without BERT's
 * and RoBERTa's start and end ids), tokenised again by the CLI, and its
 * attentions compared within 1e-4. */

#define TOLERANCE 1e-4

static const char *models[] = { "mini-gpt2", "mini-bert", "mini-roberta" };

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  return pl_test_cli_output (NULL, args, out, err);
}

static void
run_ok (const char * const *args)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = run_cli (args, &out, &err);

  if (status != 0)
    g_printerr ("%s", err);
  g_assert_cmpint (status, ==, 0);
}

/* Exit STATUS and one line on stderr, holding NEEDLE. */
static void
expect_failure (const char * const *args,
                int                 status,
                const char         *needle)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (run_cli (args, &out, &err), ==, status);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
  g_assert_nonnull (strstr (err, needle));
}

/* The reference's text: its byte ids back to bytes, wrapper ids dropped. */
static char *
reference_text (const char *model,
                PlMatrix  **ids)
{
  g_autofree char *reference = pl_test_fixture (model, "reference.h5", NULL);
  gboolean wrapped = !g_str_equal (model, "mini-gpt2");
  GString *text = g_string_new (NULL);

  *ids = pl_test_read_h5 (reference, "/hf/text/input_ids");
  for (gsize i = wrapped; i < (*ids)->cols - wrapped; i++)
    {
      int id = (int) (*ids)->data[i];

      g_assert_cmpint (id, >=, 4);
      g_assert_cmpint (id, <, 4 + 256);
      g_string_append_c (text, (char) (id - 4));
    }
  return g_string_free (text, FALSE);
}

static void
test_forward_matches_hf (void)
{
  g_autofree char *dir = pl_test_tmpdir ();

  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autofree char *reference = pl_test_fixture (models[m], "reference.h5", NULL);
      g_autofree char *checkpoint = pl_test_demo (models[m], NULL);
      g_autofree char *out = g_build_filename (dir, "forward.h5", NULL);
      g_autoptr(PlMatrix) ref_ids = NULL;
      g_autofree char *text = reference_text (models[m], &ref_ids);
      const char *args[] = { "forward", checkpoint, "--text", text, "--no-hidden-states", "-o", out, NULL };
      g_autoptr(PlMatrix) ids = NULL;
      g_autoptr(PlMatrix) attentions = NULL;
      g_autoptr(PlMatrix) expected = NULL;
      double diff;

      run_ok (args);
      /* The tokenizer gives exactly Hugging Face's ids, wrapper included. */
      ids = pl_test_read_h5 (out, "/input_ids");
      g_assert_cmpfloat (pl_test_max_abs_diff (ids, ref_ids), ==, 0);
      attentions = pl_test_read_h5 (out, "/attentions");
      expected = pl_test_read_h5 (reference, "/hf/text/attentions");
      diff = pl_test_max_abs_diff (attentions, expected);
      g_test_message ("%s: forward --text attentions, max |Δ| = %.2e", models[m], diff);
      g_assert_cmpfloat (diff, <, TOLERANCE);
    }
  pl_test_rmtree (dir);
}

/* A rotary model reads a typed sentence through its tokenizer.json (the
 * tiny Llama's: Llama 2's layout, its own 64 tokens): the ids its fixture
 * script's BPE gives and the reference's hidden states (1e-4 of their
 * largest) and attentions (1e-5); reference-bf16.h5 (1e-3 both) where the
 * BF16 weights are multiplied with BF16 dot products. */
static void
test_forward_rotary_text (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *checkpoint = pl_test_fixture ("rope", "llama", NULL);
  g_autofree char *reference = pl_test_rope_reference ("llama", "llama");
  g_autofree char *out = g_build_filename (dir, "forward.h5", NULL);
  const char *args[] = { "forward", checkpoint, "--text", "the cat sat on the mat.", "-o", out, NULL };
  g_autoptr(PlMatrix) ids = NULL, ref_ids = NULL, hidden = NULL, ref_hidden = NULL, maps = NULL, ref_maps = NULL;
  gboolean bf16 = g_str_has_suffix (reference, "reference-bf16.h5");
  double scale = 0;

  run_ok (args);
  ids = pl_test_read_h5 (out, "/input_ids");
  ref_ids = pl_test_read_h5 (reference, "/text/input_ids");
  g_assert_cmpuint (ids->cols, ==, 8);
  g_assert_cmpfloat (pl_test_max_abs_diff (ids, ref_ids), ==, 0);
  hidden = pl_test_read_h5 (out, "/hidden_states");
  ref_hidden = pl_test_read_h5 (reference, "/text/hidden_states");
  for (gsize i = 0; i < ref_hidden->rows * ref_hidden->cols; i++)
    scale = MAX (scale, fabs (ref_hidden->data[i]));
  /* test-rope-decoders says why BF16 rounding is held to 1e-3 */
  g_assert_cmpfloat (pl_test_max_abs_diff (hidden, ref_hidden), <, (bf16 ? 1e-3 : 1e-4) * scale);
  maps = pl_test_read_h5 (out, "/attentions");
  ref_maps = pl_test_read_h5 (reference, "/text/attentions");
  g_assert_cmpfloat (pl_test_max_abs_diff (maps, ref_maps), <, bf16 ? 1e-3 : 1e-5);
  pl_test_rmtree (dir);
}

/* attention --text: one head's map as HF's, and the statistics over the
 * sentence computed here from HF's attentions. */
static void
test_attention_matches_hf (void)
{
  g_autofree char *dir = pl_test_tmpdir ();

  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autofree char *reference = pl_test_fixture (models[m], "reference.h5", NULL);
      g_autofree char *checkpoint = pl_test_demo (models[m], NULL);
      g_autofree char *one = g_build_filename (dir, "one.h5", NULL);
      g_autofree char *all = g_build_filename (dir, "all.h5", NULL);
      g_autoptr(PlMatrix) ref_ids = NULL;
      g_autofree char *text = reference_text (models[m], &ref_ids);
      const char *args_one[] = { "attention", checkpoint, "--text", text, "--layer", "3", "--head", "3", "-o", one, NULL };
      const char *args_all[] = { "attention", checkpoint, "--text", text, "-o", all, NULL };
      g_autoptr(PlMatrix) expected = pl_test_read_h5 (reference, "/hf/text/attentions");
      g_autoptr(PlMatrix) map = NULL;
      g_autoptr(PlMatrix) maps = NULL;
      g_autoptr(PlMatrix) distance = NULL;
      g_autoptr(PlMatrix) first = NULL;
      gsize t = ref_ids->cols, heads = 4, layers = expected->rows / (4 * t);
      double worst = 0;

      run_ok (args_one);
      map = pl_test_read_h5 (one, "/attention");
      g_assert_cmpuint (map->rows, ==, t);
      g_assert_cmpuint (map->cols, ==, t);
      for (gsize i = 0; i < t; i++)
        for (gsize j = 0; j < t; j++)
          worst = MAX (worst, fabs (pl_matrix_get (map, i, j) - pl_matrix_get (expected, (2 * heads + 2) * t + i, j)));
      g_assert_cmpfloat (worst, <, TOLERANCE);

      run_ok (args_all);
      maps = pl_test_read_h5 (all, "/attention");
      g_assert_cmpfloat (pl_test_max_abs_diff (maps, expected), <, TOLERANCE);
      distance = pl_test_read_h5 (all, "/mean_distance");
      first = pl_test_read_h5 (all, "/first_token_mass");
      for (gsize l = 0; l < layers; l++)
        for (gsize h = 0; h < heads; h++)
          {
            double d = 0, f = 0;

            for (gsize i = 0; i < t; i++)
              {
                const float *row = pl_matrix_row (expected, ((l * heads) + h) * t + i);

                for (gsize j = 0; j < t; j++)
                  d += row[j] * fabs ((double) j - (double) i);
                f += row[0];
              }
            /* Distances run to ~T/2: the same relative accuracy. */
            g_assert_cmpfloat (fabs (pl_matrix_get (distance, l, h) - d / t), <, 1e-3);
            g_assert_cmpfloat (fabs (pl_matrix_get (first, l, h) - f / t), <, TOLERANCE);
          }
      g_test_message ("%s: attention --text, layer 3 head 3 max |Δ| = %.2e", models[m], worst);
    }
  pl_test_rmtree (dir);
}

/* A figure names the tokens, special ones included, as real text. */
static void
test_attention_figure (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *checkpoint = pl_test_demo ("mini-bert", NULL);
  g_autofree char *svg = g_build_filename (dir, "text.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "text.png", NULL);
  const char *args_svg[] = { "attention", checkpoint, "--text", "Hi there", "--layer", "2", "-o", svg, NULL };
  const char *args_png[] = { "attention", checkpoint, "--text", "Hi there", "-o", png, NULL };
  g_autofree char *contents = NULL;
  gsize length;

  run_ok (args_svg);
  g_assert_true (g_file_get_contents (svg, &contents, NULL, NULL));
  /* Each name twice, once under the columns and once beside the rows. */
  g_assert_nonnull (strstr (contents, ">[CLS]</text>"));
  g_assert_nonnull (strstr (contents, ">[SEP]</text>"));
  g_assert_nonnull (strstr (contents, ">␣</text>"));
  /* Heads count from 1, as --head and the window count them. */
  g_assert_nonnull (strstr (contents, "layer 2, head 1"));
  g_clear_pointer (&contents, g_free);

  run_ok (args_png);
  g_assert_true (g_file_get_contents (png, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 1000);
  g_assert_true (memcmp (contents, "\x89PNG", 4) == 0);
  pl_test_rmtree (dir);
}

/* A checkpoint without tokenizer files: exit 2, one line saying text is off. */
static void
test_no_tokenizer (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "out.h5", NULL);
  const char *files[] = { "config.json", "tf_model.h5" };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *from = pl_test_demo ("mini-gpt2", files[i], NULL);
      g_autofree char *to = g_build_filename (dir, files[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  {
    const char *forward[] = { "forward", dir, "--text", "Hello", "-o", out, NULL };
    const char *attention[] = { "attention", dir, "--text", "Hello", "-o", out, NULL };
    const char *random[] = { "forward", dir, "--random", "8", "-o", out, NULL };

    expect_failure (forward, 2, "text input is off");
    expect_failure (attention, 2, "text input is off");
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    /* Random ids still work. */
    run_ok (random);
  }
  pl_test_rmtree (dir);
}

static void
test_usage (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *checkpoint = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *out = g_build_filename (dir, "out.h5", NULL);
  g_autofree char *long_text = g_strnfill (600, 'a');   /* 600 byte tokens, 512 positions */
  const char *with_ids[] = { "forward", checkpoint, "--text", "Hi", "--ids", "5,6", "-o", out, NULL };
  const char *with_wrap[] = { "forward", checkpoint, "--text", "Hi", "--wrap", "-o", out, NULL };
  const char *with_seqs[] = { "attention", checkpoint, "--text", "Hi", "--sequences", "3", "-o", out, NULL };
  const char *too_long[] = { "forward", checkpoint, "--text", long_text, "-o", out, NULL };
  const char *too_long_att[] = { "attention", checkpoint, "--text", long_text, "-o", out, NULL };
  const char *empty[] = { "forward", checkpoint, "--text", "", "-o", out, NULL };

  expect_failure (with_ids, 1, "--text");
  expect_failure (with_wrap, 1, "--wrap");
  expect_failure (with_seqs, 1, "--text");
  expect_failure (too_long, 2, "600 tokens");
  expect_failure (too_long_att, 2, "600 tokens");
  expect_failure (empty, 2, "0 tokens");
  pl_test_rmtree (dir);
}

/* forward --stats-out: what goes with it, and a bad input leaves no file. */
static void
test_stats_out_usage (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *checkpoint = pl_test_demo ("mini-gpt2", NULL);
  g_autofree char *out = g_build_filename (dir, "out.h5", NULL);
  g_autofree char *stats = g_build_filename (dir, "stats.h5", NULL);
  g_autofree char *long_text = g_strnfill (600, 'a');
  const char *seqs_alone[] = { "forward", checkpoint, "--random", "8", "--sequences", "2", "-o", out, NULL };
  const char *seqs_both[] = { "forward", checkpoint, "--random", "8", "--sequences", "2", "-o", out,
                              "--stats-out", stats, NULL };
  const char *seqs_no_random[] = { "forward", checkpoint, "--ids", "5,6", "--sequences", "2",
                                   "--stats-out", stats, NULL };
  const char *map_alone[] = { "forward", checkpoint, "--random", "8", "--map-text", "Hi", "-o", out, NULL };
  const char *not_h5[] = { "forward", checkpoint, "--random", "8", "--stats-out", "stats.csv", NULL };
  const char *long_map[] = { "forward", checkpoint, "--random", "8", "--map-text", long_text,
                             "--stats-out", stats, NULL };
  const char *both[] = { "forward", checkpoint, "--random", "8", "--stats-out", stats, "-o", out, NULL };

  expect_failure (seqs_alone, 1, "--stats-out");
  expect_failure (seqs_both, 1, "--out writes one input");
  expect_failure (seqs_no_random, 1, "--random");
  expect_failure (map_alone, 1, "--stats-out");
  expect_failure (not_h5, 1, "--stats-out must name an .h5 file");
  expect_failure (long_map, 2, "--map-text 1 gives 600 tokens");
  g_assert_false (g_file_test (stats, G_FILE_TEST_EXISTS));
  /* Both files from one input. */
  run_ok (both);
  g_assert_true (g_file_test (stats, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
  pl_test_rmtree (dir);
}

/* The labels back to the text: \xHH is a byte of a split character. */
static char *
join_labels (char **labels)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; labels[i] != NULL; i++)
    for (const char *p = labels[i]; *p != '\0'; p++)
      {
        if (p[0] == '\\' && p[1] == 'x' && g_ascii_isxdigit (p[2]) && g_ascii_isxdigit (p[3]))
          {
            g_string_append_c (out, (char) (g_ascii_xdigit_value (p[2]) * 16 + g_ascii_xdigit_value (p[3])));
            p += 3;
          }
        else
          g_string_append_c (out, *p);
      }
  return g_string_free (out, FALSE);
}

/* Token labels read as the text they stand for: byte-level BPE's "Ġ" is a
 * space again, a token holding half of "é" shows its byte as \xC3 (so the
 * labels join back into the text, accents included), and WordPiece's
 * special tokens keep their names. */
static void
test_token_labels (void)
{
  g_autofree char *vocab_json = pl_test_fixture ("tokenizers", "byte-bpe-vocab.json", NULL);
  g_autofree char *merges = pl_test_fixture ("tokenizers", "byte-bpe-merges.txt", NULL);
  g_autofree char *vocab_txt = pl_test_fixture ("tokenizers", "bert-base-uncased-vocab.txt", NULL);
  const char *sentences[] = { "Hello, world!", "café naïve résumé", "line one\nline two" };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) bpe = pl_tokenizer_new_bpe (vocab_json, merges, FALSE, &error);
  g_autoptr(PlTokenizer) wordpiece = NULL;
  g_autoptr(GArray) ids = NULL;
  g_auto(GStrv) labels = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
    {
      g_autoptr(GArray) s_ids = NULL;
      g_auto(GStrv) s_labels = NULL;
      g_autofree char *joined = NULL;

      g_assert_true (pl_tokenizer_encode (bpe, sentences[i], &s_ids, NULL, &error));
      g_assert_no_error (error);
      s_labels = pl_text_token_labels (bpe, (const int *) (gpointer) s_ids->data, s_ids->len);
      g_assert_cmpuint (g_strv_length (s_labels), ==, s_ids->len);
      joined = join_labels (s_labels);
      g_assert_cmpstr (joined, ==, sentences[i]);
      for (guint k = 0; k < s_ids->len; k++)
        {
          g_assert_true (g_utf8_validate (s_labels[k], -1, NULL));
          g_assert_null (strstr (s_labels[k], "Ġ"));
          g_assert_null (strstr (s_labels[k], "\xef\xbf\xbd"));   /* no U+FFFD */
        }
    }

  wordpiece = pl_tokenizer_new_wordpiece (vocab_txt, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (wordpiece, "Hello, world!", &ids, NULL, &error));
  labels = pl_text_token_labels (wordpiece, (const int *) (gpointer) ids->data, ids->len);
  {
    const char *expected[] = { "[CLS]", "hello", ",", "world", "!", "[SEP]", NULL };

    g_assert_cmpstrv (labels, expected);
  }
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/cli-text/forward-matches-hf", test_forward_matches_hf);
  g_test_add_func ("/pl/cli-text/forward-rotary-text", test_forward_rotary_text);
  g_test_add_func ("/pl/cli-text/attention-matches-hf", test_attention_matches_hf);
  g_test_add_func ("/pl/cli-text/attention-figure", test_attention_figure);
  g_test_add_func ("/pl/cli-text/no-tokenizer", test_no_tokenizer);
  g_test_add_func ("/pl/cli-text/usage", test_usage);
  g_test_add_func ("/pl/cli-text/stats-out-usage", test_stats_out_usage);
  g_test_add_func ("/pl/cli-text/token-labels", test_token_labels);

  return g_test_run ();
}
