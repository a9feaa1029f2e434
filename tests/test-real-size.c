/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>
#include <unistd.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-test-torch.h"
#include "pl-test-util.h"
#include "pl-test-writers.h"
#include "pl-tokenizer.h"

/* Every reader past each size threshold its code has, with files of the
 * sizes real checkpoints reach: past the 1 MiB below which pl-input-file
 * checks no holes (indexes, safetensors headers, zip directories, pickles,
 * configs and tokenizer files over it, which were once read as empty),
 * past the 64 KiB a legacy file's pickles are first read in, past the
 * 4 MiB slabs tensors are converted in, and past the 1 MiB above which a
 * chunked HDF5 read is checked against what the file stores; then, as
 * sparse files of a few kilobytes on disk, past each cap on what a file may
 * claim, each refused by name before it is read. */

#define MIB ((gsize) 1 << 20)

static char *dir;

static void
assert_file_over (const char *path,
                  gsize       bytes)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  if ((gsize) st.st_size <= bytes)
    g_error ("%s is %" G_GINT64_FORMAT " bytes, not over %" G_GSIZE_FORMAT, path, (gint64) st.st_size, bytes);
}

/* A mixture-of-experts' names: 48 layers of 250 experts' up projections. */
static char *
expert_name (guint i)
{
  return g_strdup_printf ("model.layers.%u.mlp.experts.%u.up_proj.weight", i / 250, i % 250);
}

/* Two exact floats per small tensor, I's own. */
static void
small_values (guint  i,
              float *v)
{
  v[0] = (float) i * 0.5f;
  v[1] = -(float) (i % 4096) * 0.25f;
}

static void
assert_small (PlCheckpoint *checkpoint,
              guint         i)
{
  g_autofree char *name = expert_name (i);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) m = pl_checkpoint_read (checkpoint, name, &error);
  float want[2];

  g_assert_no_error (error);
  small_values (i, want);
  g_assert_cmpuint (m->rows * m->cols, ==, 2);
  g_assert_cmpmem (m->data, sizeof want, want, sizeof want);
}

/* BIG (1100 × 2048 F16, 4.4 MB: two of the readers' 4 MiB slabs) read
 * whole and in the stored precision equals its exact values. */
#define BIG_ROWS 1100
#define BIG_COLS 2048

static void
assert_big (PlCheckpoint *checkpoint)
{
  g_autofree float *want = pl_test_exact_values (BIG_ROWS, BIG_COLS);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlMatrix) m = pl_checkpoint_read (checkpoint, "big.f16", &error);
  g_autoptr(PlStoredMatrix) stored = NULL;
  g_autoptr(PlMatrix) widened = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (m->rows, ==, BIG_ROWS);
  g_assert_cmpmem (m->data, BIG_ROWS * BIG_COLS * sizeof (float), want, BIG_ROWS * BIG_COLS * sizeof (float));
  stored = pl_checkpoint_read_stored (checkpoint, "big.f16", &error);
  g_assert_no_error (error);
  g_assert_cmpint (stored->type, ==, PL_STORED_F16);
  widened = pl_stored_matrix_to_matrix (stored, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (widened->data, BIG_ROWS * BIG_COLS * sizeof (float), want, BIG_ROWS * BIG_COLS * sizeof (float));
}

/* An index's weight_map of N tensors, each in the shard SHARD_OF says. */
static void
write_index (const char  *path,
             guint        n,
             const char *(*shard_of) (guint))
{
  g_autoptr(GString) json = g_string_new ("{\n  \"metadata\": {\"total_size\": 123456789},\n  \"weight_map\": {\n");

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = expert_name (i);

      g_string_append_printf (json, "    \"%s\": \"%s\",\n", name, shard_of (i));
    }
  g_string_append_printf (json, "    \"big.f16\": \"%s\"\n  }\n}\n", shard_of (0));
  pl_test_write_text (path, json->str);
}

#define ST_PER_SHARD 12000

static const char *
safetensors_shard (guint i)
{
  return i < ST_PER_SHARD ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
}

/* A sharded safetensors checkpoint of 24,001 tensors: an index of 2.7 MB
 * and headers of 1.2 MB each, a tensor past the reader's 4 MiB chunks. */
static void
test_safetensors_sharded (void)
{
  g_autofree char *folder = g_build_filename (dir, "safetensors-sharded", NULL);
  g_autofree char *index = g_build_filename (folder, "model.safetensors.index.json", NULL);
  g_autofree float *values = g_new (float, 2 * 2 * ST_PER_SHARD);
  g_autofree float *big = pl_test_exact_values (BIG_ROWS, BIG_COLS);
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  for (guint shard = 0; shard < 2; shard++)
    {
      g_autofree char *path = g_build_filename (folder, safetensors_shard (shard * ST_PER_SHARD), NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autofree PlTestTensor *tensors = g_new0 (PlTestTensor, ST_PER_SHARD + 1);
      guint n = 0;

      for (guint k = 0; k < ST_PER_SHARD; k++)
        {
          guint i = shard * ST_PER_SHARD + k;
          float *v = values + 2 * i;

          small_values (i, v);
          g_ptr_array_add (names, expert_name (i));
          tensors[n++] = (PlTestTensor) { g_ptr_array_index (names, k), "F32", 1, { 2 }, v };
        }
      if (shard == 0)
        tensors[n++] = (PlTestTensor) { "big.f16", "F16", 2, { BIG_ROWS, BIG_COLS }, big };
      pl_test_write_safetensors (path, tensors, n);
      assert_file_over (path, MIB);
    }
  write_index (index, 2 * ST_PER_SHARD, safetensors_shard);
  assert_file_over (index, 2 * MIB);

  checkpoint = pl_checkpoint_open (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (checkpoint), ==, "safetensors-sharded");
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (checkpoint), ==, 2 * ST_PER_SHARD + 1);
  for (guint i = 0; i < 2 * ST_PER_SHARD; i += 997)
    assert_small (checkpoint, i);
  assert_small (checkpoint, 2 * ST_PER_SHARD - 1);
  assert_big (checkpoint);
}

#define ZIP_TENSORS    20000
#define LEGACY_TENSORS 10000

static const char *
pytorch_shard (guint i)
{
  return i < ZIP_TENSORS ? "pytorch_model-00001-of-00002.bin" : "pytorch_model-00002-of-00002.bin";
}

/* A sharded PyTorch checkpoint of 30,001 tensors: an index of 2.7 MB; a zip
 * shard of 20,001 storages (a directory of 1.3 MB, a data.pkl of 3 MB, a
 * float16 tensor past the reader's 4 MiB slabs) and a legacy shard whose
 * pickle of 10,000 views of one storage is 1.5 MB. */
static void
test_pytorch_sharded (void)
{
  g_autofree char *folder = g_build_filename (dir, "pytorch-sharded", NULL);
  g_autofree char *index = g_build_filename (folder, "pytorch_model.bin.index.json", NULL);
  g_autofree char *zip_path = g_build_filename (folder, pytorch_shard (0), NULL);
  g_autofree char *legacy_path = g_build_filename (folder, pytorch_shard (ZIP_TENSORS), NULL);
  g_autofree float *big = pl_test_exact_values (BIG_ROWS, BIG_COLS);
  g_autofree float *shared = g_new (float, 2 * LEGACY_TENSORS);
  g_autoptr(GByteArray) zip_pickle = pl_test_pickle_new ();
  g_autoptr(GByteArray) legacy_pickle = pl_test_pickle_new ();
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) data = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 size[] = { 2 }, stride[] = { 1 };
  const guint64 big_size[] = { BIG_ROWS, BIG_COLS }, big_stride[] = { BIG_COLS, 1 };
  gsize directory = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);

  /* The zip shard: a storage per tensor, as torch.save writes them. */
  pl_test_pickle_global (zip_pickle, "collections", "OrderedDict");
  pl_test_pickle_op (zip_pickle, ')');
  pl_test_pickle_op (zip_pickle, 'R');
  pl_test_pickle_op (zip_pickle, '(');
  for (guint i = 0; i < ZIP_TENSORS; i++)
    {
      g_autofree char *name = expert_name (i);
      float v[2];

      small_values (i, v);
      g_ptr_array_add (keys, g_strdup_printf ("%u", i));
      g_ptr_array_add (data, g_bytes_new (v, sizeof v));
      pl_test_pickle_string (zip_pickle, name);
      pl_test_pickle_tensor_of (zip_pickle, "FloatStorage", g_ptr_array_index (keys, i), 2, 0, 1, size, stride,
                                FALSE);
    }
  {
    g_autofree guint16 *halves = g_new (guint16, BIG_ROWS * BIG_COLS);

    /* (k − 8) / 8 for k in 0..16: exact in float16, written bit by bit. */
    for (gsize i = 0; i < BIG_ROWS * BIG_COLS; i++)
      {
        int k = (int) ((big[i] + 1.0f) * 8.0f);
        float magnitude = (float) ABS (k - 8) / 8.0f;
        guint16 h = 0;

        if (k != 8)
          {
            int e = 0;
            float m = magnitude;

            while (m < 1.0f)
              {
                m *= 2.0f;
                e--;
              }
            h = (guint16) (((e + 15) << 10) | (guint16) ((m - 1.0f) * 1024.0f));
          }
        if (k < 8)
          h |= 0x8000;
        halves[i] = GUINT16_TO_LE (h);
      }
    g_ptr_array_add (keys, g_strdup ("big"));
    g_ptr_array_add (data, g_bytes_new (halves, BIG_ROWS * BIG_COLS * 2));
  }
  pl_test_pickle_string (zip_pickle, "big.f16");
  pl_test_pickle_tensor_of (zip_pickle, "HalfStorage", "big", BIG_ROWS * BIG_COLS, 0, 2, big_size, big_stride, FALSE);
  pl_test_pickle_op (zip_pickle, 'u');
  pl_test_pickle_op (zip_pickle, '.');
  pl_test_write_torch_zip (zip_path, "pytorch_model-00001-of-00002", zip_pickle, keys->len,
                           (const char * const *) keys->pdata, (GBytes * const *) data->pdata);
  g_assert_cmpuint (zip_pickle->len, >, 2 * MIB);
  for (guint i = 0; i < keys->len; i++)
    directory += 46 + strlen ("pytorch_model-00001-of-00002/data/") + strlen (g_ptr_array_index (keys, i));
  g_assert_cmpuint (directory, >, MIB);

  /* The legacy shard: views of one storage, as an old torch.save wrote a
   * flattened parameter's. */
  pl_test_pickle_op (legacy_pickle, '}');
  pl_test_pickle_op (legacy_pickle, '(');
  for (guint k = 0; k < LEGACY_TENSORS; k++)
    {
      guint i = ZIP_TENSORS + k;
      g_autofree char *name = expert_name (i);

      small_values (i, shared + 2 * k);
      pl_test_pickle_string (legacy_pickle, name);
      pl_test_pickle_tensor (legacy_pickle, "140234", 2 * LEGACY_TENSORS, 2 * k, 1, size, stride);
    }
  pl_test_pickle_op (legacy_pickle, 'u');
  pl_test_pickle_op (legacy_pickle, '.');
  g_assert_cmpuint (legacy_pickle->len, >, MIB);
  {
    const char * const legacy_keys[] = { "140234" };
    const guint64 numel = 2 * LEGACY_TENSORS;
    const float * const legacy_data[] = { shared };

    pl_test_write_torch_legacy (legacy_path, legacy_pickle, 1, legacy_keys, &numel, legacy_data);
  }
  write_index (index, ZIP_TENSORS + LEGACY_TENSORS, pytorch_shard);
  assert_file_over (index, 2 * MIB);

  checkpoint = pl_checkpoint_open (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (checkpoint), ==, "pytorch-sharded");
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (checkpoint), ==, ZIP_TENSORS + LEGACY_TENSORS + 1);
  for (guint i = 0; i < ZIP_TENSORS + LEGACY_TENSORS; i += 997)
    assert_small (checkpoint, i);
  assert_small (checkpoint, ZIP_TENSORS - 1);
  assert_small (checkpoint, ZIP_TENSORS + LEGACY_TENSORS - 1);
  assert_big (checkpoint);
}

/* A config.json of 1.6 MB (a classifier's 40,000 labels, both ways) beside
 * BERT weights, and a tokenizer_config.json of 1.4 MB (added_tokens_decoder,
 * as Gemma 3's is 1.2 MB) beside Phi-3's tokenizer.json: read as they are. */
static void
test_configs (void)
{
  g_autofree char *folder = g_build_filename (dir, "configs", NULL);
  g_autofree char *weights = pl_test_fixture ("pytorch", "bert-safetensors", "model.safetensors", NULL);
  g_autofree char *copy = g_build_filename (folder, "model.safetensors", NULL);
  g_autofree char *config = g_build_filename (folder, "config.json", NULL);
  g_autofree char *phi3 = pl_test_fixture ("tokenizers", "phi3-mini", "tokenizer.json", NULL);
  g_autofree char *tok_folder = g_build_filename (dir, "tokenizer-config", NULL);
  g_autofree char *tok_copy = g_build_filename (tok_folder, "tokenizer.json", NULL);
  g_autofree char *tok_config = g_build_filename (tok_folder, "tokenizer_config.json", NULL);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autoptr(GString) labels = g_string_new (NULL);
  g_autoptr(GString) ids = g_string_new (NULL);
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTokenizer) plain = NULL;
  g_autoptr(PlTokenizer) configured = NULL;
  g_autoptr(GArray) plain_ids = NULL;
  g_autoptr(GArray) configured_ids = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_true (g_file_get_contents (weights, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, len, NULL));
  for (guint i = 0; i < 40000; i++)
    {
      g_string_append_printf (labels, "%s\"%u\": \"LABEL_%u\"", i ? ", " : "", i, i);
      g_string_append_printf (ids, "%s\"LABEL_%u\": %u", i ? ", " : "", i, i);
    }
  g_string_printf (json, "{\"model_type\": \"bert\", \"architectures\": [\"BertForSequenceClassification\"], "
                   "\"hidden_size\": 8, \"num_hidden_layers\": 2, \"num_attention_heads\": 2, "
                   "\"intermediate_size\": 16, \"vocab_size\": 24, \"max_position_embeddings\": 16, "
                   "\"type_vocab_size\": 2, \"layer_norm_eps\": 1e-12, \"hidden_act\": \"gelu\", "
                   "\"id2label\": {%s}, \"label2id\": {%s}, \"pad_token_id\": 0}\n", labels->str, ids->str);
  pl_test_write_text (config, json->str);
  assert_file_over (config, MIB);
  model = pl_model_open (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_family_name (model), ==, "bert");
  g_assert_cmpuint (pl_model_get_n_layers (model), ==, 2);
  g_assert_cmpfloat (pl_model_get_layer_norm_eps (model), ==, 1e-12);
  g_assert_cmpint (pl_model_get_activation (model), ==, PL_ACTIVATION_GELU);

  g_assert_cmpint (g_mkdir (tok_folder, 0700), ==, 0);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (phi3, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (tok_copy, contents, len, NULL));
  g_string_assign (json, "{\"add_bos_token\": true, \"added_tokens_decoder\": {");
  for (guint i = 0; i < 12000; i++)
    g_string_append_printf (json, "%s\"%u\": {\"content\": \"<unused%u>\", \"lstrip\": false, \"normalized\": false, "
                            "\"rstrip\": false, \"single_word\": false, \"special\": true}", i ? ", " : "",
                            32064 + i, i);
  g_string_append (json, "}, \"bos_token\": \"<s>\", \"tokenizer_class\": \"LlamaTokenizer\"}\n");
  pl_test_write_text (tok_config, json->str);
  assert_file_over (tok_config, MIB);
  plain = pl_tokenizer_new_from_json (phi3, &error);
  g_assert_no_error (error);
  configured = pl_tokenizer_new_for_model_dir (tok_folder, &error);
  g_assert_no_error (error);
  g_assert_true (pl_tokenizer_encode (plain, "Position matters: 12345 😀 naïve", &plain_ids, NULL, &error));
  g_assert_true (pl_tokenizer_encode (configured, "Position matters: 12345 😀 naïve", &configured_ids, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (configured_ids->len, ==, plain_ids->len);
  g_assert_cmpmem (configured_ids->data, configured_ids->len * sizeof (int), plain_ids->data,
                   plain_ids->len * sizeof (int));
}

/* vocab.json and merges.txt of byte-level BPE past 1 MiB (Qwen2's are 2.8
 * and 1.7 MB): the fixtures' files with 13 chains of 300 merges each
 * appended, over the 13 byte-level characters no UTF-8 text gives (bytes
 * C0, C1, F5–FF), so every text keeps the ids the small files give. */
static void
test_bpe_files (void)
{
  g_autofree char *vocab = pl_test_fixture ("tokenizers", "byte-bpe-vocab.json", NULL);
  g_autofree char *merges = pl_test_fixture ("tokenizers", "byte-bpe-merges.txt", NULL);
  g_autofree char *folder = g_build_filename (dir, "bpe-files", NULL);
  g_autofree char *big_vocab = g_build_filename (folder, "vocab.json", NULL);
  g_autofree char *big_merges = g_build_filename (folder, "merges.txt", NULL);
  g_autofree char *expected = pl_test_fixture ("tokenizers", "phi3-mini", "expected.json", NULL);
  static const gunichar never[] = { 0xC0, 0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF };
  g_autofree char *vocab_text = NULL;
  g_autofree char *merges_text = NULL;
  g_autoptr(GString) v = NULL;
  g_autoptr(GString) m = NULL;
  g_autoptr(PlTokenizer) small = NULL;
  g_autoptr(PlTokenizer) large = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *cases;
  char *close;
  guint next, texts = 0;

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_true (g_file_get_contents (vocab, &vocab_text, NULL, NULL));
  g_assert_true (g_file_get_contents (merges, &merges_text, NULL, NULL));
  small = pl_tokenizer_new_bpe (vocab, merges, FALSE, &error);
  g_assert_no_error (error);
  next = pl_tokenizer_get_vocab_size (small);
  close = strrchr (vocab_text, '}');
  g_assert_nonnull (close);
  v = g_string_new_len (vocab_text, close - vocab_text);
  m = g_string_new (merges_text);
  for (guint c = 0; c < G_N_ELEMENTS (never); c++)
    {
      g_autoptr(GString) token = g_string_new (NULL);
      char one[8] = { 0 };

      g_unichar_to_utf8 (never[c], one);
      g_string_append (token, one);
      for (guint k = 2; k <= 300; k++)
        {
          g_string_append_printf (m, "%s %s\n", token->str, one);
          g_string_append (token, one);
          g_string_append_printf (v, ", \"%s\": %u", token->str, next++);
        }
    }
  g_string_append (v, "}\n");
  pl_test_write_text (big_vocab, v->str);
  pl_test_write_text (big_merges, m->str);
  assert_file_over (big_vocab, MIB);
  assert_file_over (big_merges, MIB);
  large = pl_tokenizer_new_bpe (big_vocab, big_merges, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl_tokenizer_get_vocab_size (large), ==, next);

  json_parser_load_from_file (parser, expected, &error);
  g_assert_no_error (error);
  cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *item = json_array_get_object_element (cases, i);
      g_autoptr(GArray) a = NULL;
      g_autoptr(GArray) b = NULL;
      const char *text;

      if (!json_object_has_member (item, "text"))
        continue;
      text = json_object_get_string_member (item, "text");
      g_assert_true (pl_tokenizer_encode (small, text, &a, NULL, &error));
      g_assert_true (pl_tokenizer_encode (large, text, &b, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (a->len, ==, b->len);
      g_assert_cmpmem (a->data, a->len * sizeof (int), b->data, b->len * sizeof (int));
      texts++;
    }
  g_assert_cmpuint (texts, >=, 200);
}

/* A float32 dataset of 1024 × 768 (3 MiB) in chunks of 64 rows, plain and
 * deflated: read whole past the 1 MiB above which a chunked read is held to
 * what the file stores. */
static void
test_hdf5_chunked (void)
{
  g_autofree char *path = g_build_filename (dir, "chunked.h5", NULL);
  g_autofree float *values = pl_test_exact_values (1024, 768);
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(GError) error = NULL;
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[2] = { 1024, 768 }, chunk[2] = { 64, 768 };

  g_assert_cmpint (file, >=, 0);
  for (guint deflate = 0; deflate < 2; deflate++)
    {
      hid_t space = H5Screate_simple (2, dims, NULL);
      hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
      hid_t set;

      H5Pset_chunk (dcpl, 2, chunk);
      if (deflate)
        H5Pset_deflate (dcpl, 6);
      set = H5Dcreate2 (file, deflate ? "deflated" : "plain", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      g_assert_cmpint (set, >=, 0);
      g_assert_cmpint (H5Dwrite (set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
      H5Dclose (set);
      H5Pclose (dcpl);
      H5Sclose (space);
    }
  H5Fclose (file);

  checkpoint = pl_checkpoint_open (path, &error);
  g_assert_no_error (error);
  for (guint deflate = 0; deflate < 2; deflate++)
    {
      g_autoptr(PlMatrix) m = pl_checkpoint_read (checkpoint, deflate ? "deflated" : "plain", &error);

      g_assert_no_error (error);
      g_assert_cmpuint (m->rows, ==, 1024);
      g_assert_cmpmem (m->data, 1024 * 768 * sizeof (float), values, 1024 * 768 * sizeof (float));
    }
}

/* A file of SIZE bytes that stores HEAD and is a hole after it. */
static char *
write_sparse (const char *name,
              const char *head,
              gsize       head_len,
              guint64     size)
{
  char *path = g_build_filename (dir, name, NULL);
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, head, head_len), ==, (gssize) head_len);
  g_assert_cmpint (ftruncate (fd, (off_t) size), ==, 0);
  close (fd);
  return path;
}

static void
expect_too_large (const GError *error,
                  const char   *path)
{
  g_assert_nonnull (error);
  if (!g_error_matches (error, PL_ERROR, PL_ERROR_TOO_LARGE) || strstr (error->message, path) == NULL)
    g_error ("“%s” is not a refusal for size naming %s", error->message, path);
}

/* Past each cap, as sparse files: refused for their size, by name, before a
 * byte of them is read (a read would find the hole, or take the memory). */
static void
test_caps (void)
{
  g_autofree char *tokenizer = write_sparse ("tokenizer.json", "{", 1, (512 * MIB) + 1);
  g_autofree char *index_dir = g_build_filename (dir, "index-cap", NULL);
  g_autofree char *config_dir = g_build_filename (dir, "config-cap", NULL);
  g_autofree char *weights = pl_test_fixture ("pytorch", "bert-safetensors", "model.safetensors", NULL);
  g_autofree char *text = write_sparse ("book.txt", "Once", 4, (256 * MIB) + 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(PlModel) model = NULL;

  tok = pl_tokenizer_new_from_json (tokenizer, &error);
  g_assert_null (tok);
  expect_too_large (error, tokenizer);
  g_clear_error (&error);

  g_assert_cmpint (g_mkdir (index_dir, 0700), ==, 0);
  {
    g_autofree char *index = g_build_filename (index_dir, "model.safetensors.index.json", NULL);
    int fd = g_open (index, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    g_assert_cmpint (ftruncate (fd, (off_t) (256 * MIB) + 1), ==, 0);
    close (fd);
    checkpoint = pl_checkpoint_open (index_dir, &error);
    g_assert_null (checkpoint);
    expect_too_large (error, index);
    g_clear_error (&error);
  }

  g_assert_cmpint (g_mkdir (config_dir, 0700), ==, 0);
  {
    g_autofree char *config = g_build_filename (config_dir, "config.json", NULL);
    g_autofree char *copy = g_build_filename (config_dir, "model.safetensors", NULL);
    g_autofree char *contents = NULL;
    gsize len;
    int fd = g_open (config, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    g_assert_cmpint (ftruncate (fd, (off_t) (16 * MIB) + 1), ==, 0);
    close (fd);
    g_assert_true (g_file_get_contents (weights, &contents, &len, NULL));
    g_assert_true (g_file_set_contents (copy, contents, len, NULL));
    model = pl_model_open (config_dir, NULL, NULL, &error);
    g_assert_null (model);
    expect_too_large (error, config);
    g_clear_error (&error);
  }

  /* A safetensors header said to be 101 MiB. */
  {
    g_autofree char *path = g_build_filename (dir, "header-cap.safetensors", NULL);

    pl_test_write_raw_safetensors (path, (101 * MIB), "{", 0);
    g_assert_cmpint (truncate (path, 8 + (101 * MIB)), ==, 0);
    checkpoint = pl_checkpoint_open (path, &error);
    g_assert_null (checkpoint);
    expect_too_large (error, path);
    g_clear_error (&error);
  }

  /* A zip whose directory is said to be 257 MiB, and one whose data.pkl is. */
  {
    guint8 eocd[22] = { 0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0 };
    g_autofree char *path = g_build_filename (dir, "directory-cap.pt", NULL);
    guint64 size = 257 * MIB;
    int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    eocd[12] = size & 0xff;
    eocd[13] = (size >> 8) & 0xff;
    eocd[14] = (size >> 16) & 0xff;
    eocd[15] = (size >> 24) & 0xff;
    g_assert_cmpint (write (fd, "PK\x03\x04", 4), ==, 4);
    g_assert_cmpint (pwrite (fd, eocd, sizeof eocd, (off_t) size), ==, sizeof eocd);
    close (fd);
    checkpoint = pl_checkpoint_open (path, &error);
    g_assert_null (checkpoint);
    expect_too_large (error, path);
    g_clear_error (&error);
  }
  {
    g_autofree char *path = g_build_filename (dir, "pickle-cap.pt", NULL);
    const char *names[] = { "archive/data.pkl", "archive/version" };
    const guint64 sizes[] = { 257 * MIB, 2 };
    guint64 offsets[2];
    GByteArray *central = g_byte_array_new ();
    int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    guint64 at = 0;

    /* data.pkl's header says 257 MiB, its bytes a hole; the version record
     * and the directory after them. */
    for (guint e = 0; e < 2; e++)
      {
        GByteArray *local = g_byte_array_new ();
        const guint32 fields[] = { 0x04034b50, 20, 0, 0, 0, 0x21, 0, sizes[e], sizes[e], strlen (names[e]), 0 };
        const guint widths[] = { 4, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2 };

        for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
          for (guint b = 0; b < widths[i]; b++)
            g_byte_array_append (local, (const guint8[]) { (guint8) (fields[i] >> (8 * b)) }, 1);
        g_byte_array_append (local, (const guint8 *) names[e], strlen (names[e]));
        if (e == 1)
          g_byte_array_append (local, (const guint8 *) "3\n", 2);
        offsets[e] = at;
        g_assert_cmpint (pwrite (fd, local->data, local->len, (off_t) at), ==, (gssize) local->len);
        at += local->len + (e == 0 ? sizes[e] : 0);
        g_byte_array_unref (local);
      }
    for (guint e = 0; e < 2; e++)
      {
        const guint32 fields[] = { 0x02014b50, 20, 20, 0, 0, 0, 0x21, 0, sizes[e], sizes[e], strlen (names[e]), 0, 0,
                                   0, 0, 0, offsets[e] };
        const guint widths[] = { 4, 2, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2, 2, 2, 2, 4, 4 };

        for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
          for (guint b = 0; b < widths[i]; b++)
            g_byte_array_append (central, (const guint8[]) { (guint8) (fields[i] >> (8 * b)) }, 1);
        g_byte_array_append (central, (const guint8 *) names[e], strlen (names[e]));
      }
    {
      const guint32 fields[] = { 0x06054b50, 0, 0, 2, 2, central->len, at, 0 };
      const guint widths[] = { 4, 2, 2, 2, 2, 4, 4, 2 };
      guint32 cd_size = central->len;

      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        for (guint b = 0; b < widths[i]; b++)
          g_byte_array_append (central, (const guint8[]) { (guint8) ((i == 5 ? cd_size : fields[i]) >> (8 * b)) }, 1);
    }
    g_assert_cmpint (pwrite (fd, central->data, central->len, (off_t) at), ==, (gssize) central->len);
    close (fd);
    g_byte_array_unref (central);
    checkpoint = pl_checkpoint_open (path, &error);
    g_assert_null (checkpoint);
    expect_too_large (error, path);
    g_clear_error (&error);
  }

  /* poslens-cli tokenize --file on a text said to be 256 MiB + 1. */
  {
    g_autofree char *phi3 = pl_test_fixture ("tokenizers", "phi3-mini", NULL);
    const char *args[] = { phi3, "--file", text, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (pl_test_cli_output ("tokenize", args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "book.txt"));
    g_assert_nonnull (strstr (err, "far more"));
  }
}

int
main (int   argc,
      char *argv[])
{
  int status;

  pl_test_init (&argc, &argv);
  dir = pl_test_tmpdir ();
  g_test_add_func ("/pl/real-size/safetensors-sharded", test_safetensors_sharded);
  g_test_add_func ("/pl/real-size/pytorch-sharded", test_pytorch_sharded);
  g_test_add_func ("/pl/real-size/configs", test_configs);
  g_test_add_func ("/pl/real-size/bpe-files", test_bpe_files);
  g_test_add_func ("/pl/real-size/hdf5-chunked", test_hdf5_chunked);
  g_test_add_func ("/pl/real-size/caps", test_caps);
  status = g_test_run ();
  pl_test_rmtree (dir);
  g_free (dir);
  return status;
}
