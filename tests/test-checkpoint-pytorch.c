/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <hdf5.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-similarity.h"
#include "pl-test-torch.h"
#include "pl-test-util.h"
#include "pl-transformer.h"

/* PyTorch checkpoints as torch.save writes them (tests/fixtures/make-pytorch.py,
 * python3-torch 1.13): every float tensor read equal, bit for bit, to what
 * torch.load (weights_only=True) gives (tests/fixtures/pytorch/reference.h5,
 * read with the raw HDF5 API), and models from .bin files equal to the same
 * weights from safetensors. */

typedef struct
{
  const char *group;      /* in reference.h5 */
  const char *file;       /* under tests/fixtures/pytorch */
  guint       n_tensors;  /* listed, float or not */
  const char *key;        /* where its tensors are (info's "state_dict_key"), or NULL */
  const char *reference;  /* the reference file beside FILE: NULL for pytorch/reference.h5 */
} TorchFile;

static const TorchFile torch_files[] = {
  { "bert-zip", "bert-zip/pytorch_model.bin", 37 },
  { "bert-legacy", "bert-legacy/pytorch_model.bin", 37 },
  { "gpt2-f16", "gpt2-f16/pytorch_model.bin", 31 },
  { "llama-bf16", "llama-bf16/pytorch_model.bin", 21 },
  { "views", "views.pt", 19 },
  { "views-legacy", "views-legacy.pt", 19 },
  { "views-zip64", "views-zip64.pt", 19 },
  { "train", "train.pth", 3, "state_dict" },
  { "model-key", "model-key.pt", 3, "model" },
  /* As people save them (tests/fixtures/make-pytorch-saved.py): every
   * pickle protocol torch.save writes that torch reads back, state dicts
   * under other keys and nested, a tensor alone. */
  { "protocol-1-zip", "saved/protocol-1-zip.pt", 10, NULL, "saved" },
  { "protocol-1-legacy", "saved/protocol-1-legacy.pt", 10, NULL, "saved" },
  { "protocol-2-zip", "saved/protocol-2-zip.pt", 10, NULL, "saved" },
  { "protocol-2-legacy", "saved/protocol-2-legacy.pt", 10, NULL, "saved" },
  { "protocol-3-zip", "saved/protocol-3-zip.pt", 10, NULL, "saved" },
  { "protocol-3-legacy", "saved/protocol-3-legacy.pt", 10, NULL, "saved" },
  { "protocol-4-zip", "saved/protocol-4-zip.pt", 10, NULL, "saved" },
  { "protocol-4-legacy", "saved/protocol-4-legacy.pt", 10, NULL, "saved" },
  { "protocol-5-zip", "saved/protocol-5-zip.pt", 10, NULL, "saved" },
  { "protocol-5-legacy", "saved/protocol-5-legacy.pt", 10, NULL, "saved" },
  { "tutorial", "saved/tutorial.pt", 2, "model_state_dict", "saved" },
  { "net", "saved/net.pt", 10, "net", "saved" },
  { "nested", "saved/nested.pt", 10, "checkpoint.model", "saved" },
  { "ema", "saved/ema.pt", 10, "state_dict", "saved" },
  { "deep", "saved/deep.pt", 10, "a.b.c.d.e", "saved" },
  { "tensor-2d", "saved/tensor-2d.pt", 1, NULL, "saved" },
  { "tensor-1d", "saved/tensor-1d.pt", 1, NULL, "saved" },
  /* Peer projects' test data (tests/fixtures/pytorch/peers/README.md). */
  { "burn-batch_norm2d", "peers/burn-batch_norm2d.pt", 5, NULL, "peers" },
  { "burn-bfloat16", "peers/burn-bfloat16.pt", 1, NULL, "peers" },
  { "burn-complex_nested", "peers/burn-complex_nested.pt", 23, NULL, "peers" },
  { "burn-embedding", "peers/burn-embedding.pt", 1, NULL, "peers" },
  { "burn-extreme_values", "peers/burn-extreme_values.pt", 1, NULL, "peers" },
  { "burn-float16", "peers/burn-float16.pt", 1, NULL, "peers" },
  { "burn-float64", "peers/burn-float64.pt", 1, NULL, "peers" },
  { "burn-legacy_shared_storage", "peers/burn-legacy_shared_storage.pt", 3, NULL, "peers" },
  { "burn-legacy_uncloned_views", "peers/burn-legacy_uncloned_views.pt", 2, NULL, "peers" },
  { "burn-legacy_with_offsets", "peers/burn-legacy_with_offsets.pt", 3, NULL, "peers" },
  { "burn-nested_dict", "peers/burn-nested_dict.pt", 2, "layer1", "peers" },
  { "burn-non_contiguous_indexes", "peers/burn-non_contiguous_indexes.pt", 10, NULL, "peers" },
  { "burn-parameter", "peers/burn-parameter.pt", 1, NULL, "peers" },
  { "burn-scalar", "peers/burn-scalar.pt", 1, NULL, "peers" },
  { "burn-simple_legacy", "peers/burn-simple_legacy.pt", 3, NULL, "peers" },
  { "burn-special_values", "peers/burn-special_values.pt", 1, NULL, "peers" },
  { "burn-tensor_4d", "peers/burn-tensor_4d.pt", 1, NULL, "peers" },
  { "burn-top_level_key", "peers/burn-top_level_key.pt", 2, "my_state_dict", "peers" },
  { "candle-test_with_key", "peers/candle-test_with_key.pt", 1, "model_state_dict", "peers" },
};

static guint
count_references (const char *reference,
                  const char *group)
{
  hid_t f = H5Fopen (reference, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5G_info_t info;

  g_assert_cmpint (f, >=, 0);
  g_assert_cmpint (H5Gget_info_by_name (f, group, &info, H5P_DEFAULT), >=, 0);
  H5Fclose (f);
  return (guint) info.nlinks;
}

static void
assert_same_bits (const PlMatrix *got,
                  const PlMatrix *want,
                  const char     *what)
{
  if (got->rows != want->rows || got->cols != want->cols)
    g_error ("%s: %zu × %zu read, %zu × %zu expected", what, got->rows, got->cols, want->rows, want->cols);
  if (got->rows * got->cols > 0 && memcmp (got->data, want->data, got->rows * got->cols * sizeof (float)) != 0)
    g_error ("%s: the values differ from torch.load's", what);
}

static void
test_tensors (gconstpointer data)
{
  const TorchFile *c = data;
  g_autofree char *path = pl_test_fixture ("pytorch", c->file, NULL);
  g_autofree char *reference = c->reference ? pl_test_fixture ("pytorch", c->reference, "reference.h5", NULL)
                                            : pl_test_fixture ("pytorch", "reference.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  guint floats = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (pl_checkpoint_get_format (checkpoint), ==, "pytorch");
  g_assert_cmpuint (pl_checkpoint_get_n_tensors (checkpoint), ==, c->n_tensors);
  g_assert_cmpstr (pl_checkpoint_get_attribute (checkpoint, "state_dict_key"), ==, c->key);
  for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
    {
      const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
      g_autofree char *dataset = g_strdup_printf ("/%s/%s", c->group, info->name);
      g_autoptr(PlMatrix) got = NULL;
      g_autoptr(PlMatrix) want = NULL;
      g_autoptr(GError) read_error = NULL;
      guint64 rows, cols;

      got = pl_checkpoint_read (checkpoint, info->name, &read_error);
      if (info->dtype == PL_DTYPE_OTHER)
        {
          /* Integer buffers are listed with their dtype and refused by name. */
          g_assert_error (read_error, PL_ERROR, PL_ERROR_UNSUPPORTED);
          g_assert_nonnull (strstr (read_error->message, info->dtype_name));
          continue;
        }
      g_assert_no_error (read_error);
      floats++;
      want = pl_test_read_h5 (reference, dataset);
      assert_same_bits (got, want, dataset);

      /* In the stored precision: F16 and BF16 stay two bytes where the
       * tensor lies in order in the file, and become the same floats. */
      {
        g_autoptr(PlStoredMatrix) stored = pl_checkpoint_read_stored (checkpoint, info->name, &read_error);
        g_autoptr(PlMatrix) widened = NULL;

        g_assert_no_error (read_error);
        if (info->dtype == PL_DTYPE_F16 && strstr (info->name, "transposed") == NULL)
          g_assert_cmpint (stored->type, ==, PL_STORED_F16);
        if (info->dtype == PL_DTYPE_BF16 && strstr (info->name, "bf16") != NULL && strcmp (c->group, "views") == 0)
          g_assert_cmpint (stored->type, ==, PL_STORED_BF16);
        widened = pl_stored_matrix_to_matrix (stored, &read_error);
        g_assert_no_error (read_error);
        assert_same_bits (widened, want, dataset);
      }

      /* Any block of rows equals those rows of the whole. */
      pl_tensor_info_get_matrix_shape (info, &rows, &cols);
      for (guint64 first = 0; first < rows; first++)
        for (guint64 n = 1; first + n <= rows; n++)
          {
            g_autoptr(PlMatrix) block = pl_checkpoint_read_rows (checkpoint, info->name, first, n, &read_error);

            g_assert_no_error (read_error);
            g_assert_cmpuint (block->rows, ==, n);
            g_assert_cmpmem (block->data, n * cols * sizeof (float), want->data + first * cols,
                             n * cols * sizeof (float));
          }
    }
  /* Every float tensor torch.load gives is listed. */
  g_assert_cmpuint (floats, ==, count_references (reference, c->group));
}

/* The views of views.pt by name: shape, dtype, and for the transposed one
 * the values of the untransposed, read apart. */
static void
test_views (void)
{
  g_autofree char *path = pl_test_fixture ("pytorch", "views.pt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  g_autoptr(PlMatrix) base = NULL;
  g_autoptr(PlMatrix) transposed = NULL;
  const PlTensorInfo *info;

  g_assert_no_error (error);
  info = pl_checkpoint_find_tensor (checkpoint, "cube.permuted");
  g_assert_cmpuint (info->rank, ==, 3);
  g_assert_cmpuint (info->shape[0], ==, 4);
  g_assert_cmpuint (info->shape[1], ==, 2);
  g_assert_cmpuint (info->shape[2], ==, 3);
  info = pl_checkpoint_find_tensor (checkpoint, "scalar");
  g_assert_cmpuint (info->rank, ==, 0);
  info = pl_checkpoint_find_tensor (checkpoint, "bf16");
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_BF16);
  info = pl_checkpoint_find_tensor (checkpoint, "f16");
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_F16);
  info = pl_checkpoint_find_tensor (checkpoint, "f64");
  g_assert_cmpint (info->dtype, ==, PL_DTYPE_F64);
  info = pl_checkpoint_find_tensor (checkpoint, "i64");
  g_assert_cmpstr (info->dtype_name, ==, "I64");

  base = pl_checkpoint_read (checkpoint, "f32", &error);
  g_assert_no_error (error);
  transposed = pl_checkpoint_read (checkpoint, "f32.transposed", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (transposed->rows, ==, base->cols);
  for (gsize i = 0; i < base->rows; i++)
    for (gsize j = 0; j < base->cols; j++)
      g_assert_cmpfloat (transposed->data[j * transposed->cols + i], ==, base->data[i * base->cols + j]);
}

/* A training checkpoint's "state_dict", a dict's "model". */
static void
test_wrapped (void)
{
  static const char * const files[] = { "train.pth", "model-key.pt" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = pl_test_fixture ("pytorch", files[f], NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (pl_checkpoint_get_tensor (checkpoint, 0)->name, ==, "f32");
      g_assert_cmpstr (pl_checkpoint_get_tensor (checkpoint, 1)->name, ==, "f32.transposed");
      g_assert_cmpstr (pl_checkpoint_get_tensor (checkpoint, 2)->name, ==, "bf16");
    }
}

static gint64
bytes_read (void)
{
  g_autofree char *io = NULL;
  const char *p;

  g_assert_true (g_file_get_contents ("/proc/self/io", &io, NULL, NULL));
  p = strstr (io, "rchar:");
  g_assert_nonnull (p);
  return g_ascii_strtoll (p + 6, NULL, 10);
}

/* A storage of 1100 × 1024 float32 (4.4 MB, two of the reader's slabs)
 * under a contiguous tensor and its transpose: opening reads the pickles,
 * two rows read two rows, and the transpose is gathered right across slabs. */
#define BIG_ROWS 1100
#define BIG_COLS 1024

static void
test_lazy (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "big.bin", NULL);
  g_autofree float *values = g_new (float, BIG_ROWS * BIG_COLS);
  g_autoptr(GByteArray) object = pl_test_pickle_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = NULL;
  g_autoptr(PlMatrix) rows = NULL;
  g_autoptr(PlMatrix) transposed = NULL;
  const guint64 size[] = { BIG_ROWS, BIG_COLS }, stride[] = { BIG_COLS, 1 };
  const guint64 t_size[] = { BIG_COLS, BIG_ROWS }, t_stride[] = { 1, BIG_COLS };
  const guint64 c_size[] = { BIG_ROWS, 1 }, c_stride[] = { BIG_COLS, 1 };
  const guint64 numel = BIG_ROWS * BIG_COLS;
  const char * const keys[] = { "94229433675744" };
  const float * const data[] = { values };
  gint64 before;

  for (gsize i = 0; i < numel; i++)
    values[i] = (float) ((i * 37) % 1001) / 8.0f - 60.0f;
  pl_test_pickle_global (object, "collections", "OrderedDict");
  pl_test_pickle_op (object, ')');
  pl_test_pickle_op (object, 'R');
  pl_test_pickle_op (object, '(');
  pl_test_pickle_string (object, "big.weight");
  pl_test_pickle_tensor (object, keys[0], numel, 0, 2, size, stride);
  pl_test_pickle_string (object, "big.transposed");
  pl_test_pickle_tensor (object, keys[0], numel, 0, 2, t_size, t_stride);
  pl_test_pickle_string (object, "big.column");
  pl_test_pickle_tensor (object, keys[0], numel, 5, 2, c_size, c_stride);
  pl_test_pickle_op (object, 'u');
  pl_test_pickle_op (object, '.');
  pl_test_write_torch_legacy (path, object, 1, keys, &numel, data);

  before = bytes_read ();
  checkpoint = pl_checkpoint_open (path, &error);
  g_assert_no_error (error);
  g_test_message ("open read %" G_GINT64_FORMAT " bytes", bytes_read () - before);
  g_assert_cmpint (bytes_read () - before, <, 128 << 10);

  before = bytes_read ();
  rows = pl_checkpoint_read_rows (checkpoint, "big.weight", 700, 2, &error);
  g_assert_no_error (error);
  /* The two rows, and /proc/self/io read to count them. */
  g_assert_cmpint (bytes_read () - before, >=, 2 * BIG_COLS * 4);
  g_assert_cmpint (bytes_read () - before, <, 2 * BIG_COLS * 4 + 1024);
  g_assert_cmpmem (rows->data, 2 * BIG_COLS * 4, values + 700 * BIG_COLS, 2 * BIG_COLS * 4);

  transposed = pl_checkpoint_read (checkpoint, "big.transposed", &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < BIG_COLS; i++)
    for (gsize j = 0; j < BIG_ROWS; j++)
      if (transposed->data[i * BIG_ROWS + j] != values[j * BIG_COLS + i])
        g_error ("big.transposed[%zu, %zu] is %g, not %g", i, j, transposed->data[i * BIG_ROWS + j],
                 values[j * BIG_COLS + i]);
  /* A block of the transpose's rows, from the middle of both slabs. */
  {
    g_autoptr(PlMatrix) block = pl_checkpoint_read_rows (checkpoint, "big.transposed", 500, 3, &error);

    g_assert_no_error (error);
    for (gsize i = 0; i < 3; i++)
      for (gsize j = 0; j < BIG_ROWS; j++)
        g_assert_cmpfloat (block->data[i * BIG_ROWS + j], ==, values[j * BIG_COLS + 500 + i]);
  }
  /* One column, 4 KB apart: each row a single element. */
  {
    g_autoptr(PlMatrix) column = pl_checkpoint_read (checkpoint, "big.column", &error);

    g_assert_no_error (error);
    g_assert_cmpuint (column->rows, ==, BIG_ROWS);
    for (gsize j = 0; j < BIG_ROWS; j++)
      g_assert_cmpfloat (column->data[j], ==, values[j * BIG_COLS + 5]);
  }
  g_clear_object (&checkpoint);
  pl_test_rmtree (dir);
}

/* The same weights from .bin (zip, legacy, sharded) and from safetensors:
 * the same model, position table, similarity and forward pass. */
typedef struct
{
  const char *bin;
  const char *safetensors;
  const char *family;
} SameModel;

static const SameModel same_models[] = {
  { "bert-zip", "bert-safetensors", "bert" },
  { "bert-legacy", "bert-safetensors", "bert" },
  { "bert-sharded", "bert-safetensors", "bert" },
  { "gpt2-f16", "gpt2-f16-safetensors", "gpt2" },
  { "llama-bf16", "llama-bf16-safetensors", "llama" },
};

static void
test_same_model (gconstpointer data)
{
  const SameModel *c = data;
  g_autofree char *bin_dir = pl_test_fixture ("pytorch", c->bin, NULL);
  g_autofree char *st_dir = pl_test_fixture ("pytorch", c->safetensors, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) bin = pl_model_open (bin_dir, NULL, NULL, &error);
  g_autoptr(PlModel) st = NULL;
  g_autoptr(PlMatrix) bin_positions = NULL;
  g_autoptr(PlMatrix) st_positions = NULL;
  g_autoptr(PlMatrix) bin_cosine = NULL;
  g_autoptr(PlMatrix) st_cosine = NULL;
  g_autoptr(PlTransformer) bin_t = NULL;
  g_autoptr(PlTransformer) st_t = NULL;
  g_autoptr(PlForwardResult) bin_out = NULL;
  g_autoptr(PlForwardResult) st_out = NULL;
  const int ids[] = { 2, 7, 11, 3, 19, 5, 23, 1 };

  g_assert_no_error (error);
  st = pl_model_open (st_dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_family_name (bin), ==, c->family);
  g_assert_cmpstr (pl_model_get_family_name (st), ==, c->family);
  g_assert_cmpstr (pl_model_get_position_table_name (bin), ==, pl_model_get_position_table_name (st));
  g_assert_cmpuint (pl_model_get_hidden_size (bin), ==, pl_model_get_hidden_size (st));
  g_assert_cmpuint (pl_model_get_n_layers (bin), ==, pl_model_get_n_layers (st));
  g_assert_cmpuint (pl_model_get_n_heads (bin), ==, pl_model_get_n_heads (st));
  g_assert_cmpuint (pl_model_get_ffn_size (bin), ==, pl_model_get_ffn_size (st));
  g_assert_cmpuint (pl_model_get_vocab_size (bin), ==, pl_model_get_vocab_size (st));
  g_assert_cmpuint (pl_model_get_first_position (bin), ==, pl_model_get_first_position (st));
  g_assert_cmpuint (pl_model_get_n_positions (bin), ==, pl_model_get_n_positions (st));

  /* A learned position table (Llama has none: its positions are rotary). */
  if (pl_model_get_position_table_name (bin) != NULL)
    {
      bin_positions = pl_model_read_positions (bin, &error);
      g_assert_no_error (error);
      st_positions = pl_model_read_positions (st, &error);
      g_assert_no_error (error);
      assert_same_bits (bin_positions, st_positions, "positions");

      bin_cosine = pl_similarity_compute (bin_positions, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
      g_assert_no_error (error);
      st_cosine = pl_similarity_compute (st_positions, PL_SIMILARITY_COSINE, FALSE, NULL, &error);
      g_assert_no_error (error);
      assert_same_bits (bin_cosine, st_cosine, "cosine similarity");
    }

  bin_t = pl_transformer_new (bin, NULL, &error);
  g_assert_no_error (error);
  st_t = pl_transformer_new (st, NULL, &error);
  g_assert_no_error (error);
  bin_out = pl_transformer_forward (bin_t, ids, G_N_ELEMENTS (ids), PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                    NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  st_out = pl_transformer_forward (st_t, ids, G_N_ELEMENTS (ids), PL_FORWARD_ATTENTIONS | PL_FORWARD_HIDDEN_STATES,
                                   NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bin_out->n_layers, ==, st_out->n_layers);
  for (guint l = 0; l <= bin_out->n_layers; l++)
    assert_same_bits (bin_out->hidden_states[l], st_out->hidden_states[l], "hidden state");
  for (guint l = 0; l < bin_out->n_layers; l++)
    assert_same_bits (bin_out->attentions[l], st_out->attentions[l], "attention");
}

/* Files Poslens cannot read, each refused for what it is: protocol 0's
 * text storage references (torch.load refuses them too), and a checkpoint
 * with no tensors anywhere, its keys named. */
static void
test_saved_refused (void)
{
  const struct
  {
    const char *file;
    const char *why;
  } cases[] = {
    { "protocol-0-zip.pt", "pickle protocol 0" },
    { "protocol-0-legacy.pt", "pickle protocol 0" },
    { "no-tensors.pt", "its keys are “epoch”, “optimizer”, “lr”" },
    { "too-deep.pt", "its keys are “a”, and no dict within 8 levels under them holds tensors" },
    { "list.pt", "holds a list of 3 items, 2 of them tensors, not a dict of named tensors" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = pl_test_fixture ("pytorch", "saved", cases[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);

      g_assert_null (checkpoint);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].why) == NULL || strstr (error->message, cases[i].file) == NULL)
        g_error ("“%s” does not name %s and “%s”", error->message, cases[i].file, cases[i].why);
    }
}

/* torch.save (a 2-D tensor) opens as a plain table, as a 2-D HDF5 dataset
 * does. */
static void
test_bare_tensor (void)
{
  g_autofree char *path = pl_test_fixture ("pytorch", "saved", "tensor-2d.pt", NULL);
  g_autofree char *reference = pl_test_fixture ("pytorch", "saved", "reference.h5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) want = pl_test_read_h5 (reference, "/tensor-2d/tensor");

  g_assert_no_error (error);
  g_assert_cmpstr (pl_model_get_family_name (model), ==, "table");
  g_assert_cmpstr (pl_model_get_position_table_name (model), ==, "tensor");
  table = pl_model_read_positions (model, &error);
  g_assert_no_error (error);
  assert_same_bits (table, want, "tensor-2d");
}

/* poslens-cli info --tensor NAME --out FILE.h5 writes every float tensor,
 * vectors and scalars too, as torch.load gives it. */
static void
test_export_every_tensor (void)
{
  const char *files[][2] = { { "views", "views.pt" }, { "protocol-4-legacy", "saved/protocol-4-legacy.pt" } };
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "tensor.h5", NULL);

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = pl_test_fixture ("pytorch", files[f][1], NULL);
      g_autofree char *reference = strchr (files[f][1], '/') ? pl_test_fixture ("pytorch", "saved", "reference.h5", NULL)
                                                             : pl_test_fixture ("pytorch", "reference.h5", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
      guint vectors = 0;

      g_assert_no_error (error);
      for (guint i = 0; i < pl_checkpoint_get_n_tensors (checkpoint); i++)
        {
          const PlTensorInfo *info = pl_checkpoint_get_tensor (checkpoint, i);
          g_autofree char *dataset = g_strdup_printf ("/%s/%s", files[f][0], info->name);
          const char *args[] = { path, "--tensor", info->name, "--out", out, NULL };
          g_autofree char *stdout_text = NULL;
          g_autofree char *stderr_text = NULL;
          g_autoptr(PlMatrix) got = NULL;
          g_autoptr(PlMatrix) want = NULL;
          guint64 rows, cols;

          pl_tensor_info_get_matrix_shape (info, &rows, &cols);
          if (info->dtype == PL_DTYPE_OTHER || rows * cols == 0)
            continue;
          g_assert_cmpint (pl_test_cli_output ("info", args, &stdout_text, &stderr_text), ==, 0);
          got = pl_test_read_h5 (out, "/tensor");
          want = pl_test_read_h5 (reference, dataset);
          assert_same_bits (got, want, dataset);
          vectors += info->rank <= 1;
        }
      g_assert_cmpuint (vectors, >=, 2);
    }
  pl_test_rmtree (dir);
}

/* poslens-cli info --json says the same of both but the format. */
static char *
info_json (const char *folder)
{
  g_autofree char *path = pl_test_fixture ("pytorch", folder, NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) kept = g_string_new (NULL);
  const char *argv[] = { g_getenv ("POSLENS_CLI"), "info", path, "--json", NULL };
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "\"path\"") == NULL && strstr (lines[i], "\"name\"") == NULL &&
        strstr (lines[i], "\"format\"") == NULL)
      g_string_append_printf (kept, "%s\n", lines[i]);
  return g_string_free (g_steal_pointer (&kept), FALSE);
}

static void
test_info_json (void)
{
  g_autofree char *bin = info_json ("bert-legacy");
  g_autofree char *st = info_json ("bert-safetensors");

  g_assert_nonnull (strstr (bin, "\"family\" : \"bert\""));
  g_assert_cmpstr (bin, ==, st);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (torch_files); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/pytorch/tensors/%s", torch_files[i].group);

      g_test_add_data_func (name, &torch_files[i], test_tensors);
    }
  g_test_add_func ("/pl/pytorch/views", test_views);
  g_test_add_func ("/pl/pytorch/wrapped", test_wrapped);
  g_test_add_func ("/pl/pytorch/lazy", test_lazy);
  for (guint i = 0; i < G_N_ELEMENTS (same_models); i++)
    {
      g_autofree char *name = g_strdup_printf ("/pl/pytorch/same-model/%s", same_models[i].bin);

      g_test_add_data_func (name, &same_models[i], test_same_model);
    }
  g_test_add_func ("/pl/pytorch/info-json", test_info_json);
  g_test_add_func ("/pl/pytorch/saved-refused", test_saved_refused);
  g_test_add_func ("/pl/pytorch/bare-tensor", test_bare_tensor);
  g_test_add_func ("/pl/pytorch/export-every-tensor", test_export_every_tensor);
  return g_test_run ();
}
