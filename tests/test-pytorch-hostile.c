/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pl-checkpoint.h"
#include "pl-error.h"
#include "pl-model-isolated.h"
#include "pl-model.h"
#include "pl-test-torch.h"
#include "pl-test-util.h"

/* PyTorch files Poslens must refuse, each by name, with poslens-cli's exit
 * code 2 and nothing run: the ones tests/fixtures/make-pytorch.py writes
 * (forbidden globals whose payloads would create PAYLOAD_FILE in the current
 * folder, as make-pytorch.py checks with Python's own unpickler; storages
 * missing, compressed or larger than the file; truncated files; absurd
 * shapes and views), and pickles forged here that Python would not write
 * (deep nesting, forged memo indices, millions of values, a storage that
 * is the hole of a sparse file). */

#define PAYLOAD_FILE "poslens-payload-ran"

typedef struct
{
  const char *file;     /* under tests/fixtures/pytorch/hostile, or made here */
  const char *why;      /* in the message */
} HostileCase;

static const HostileCase fixture_cases[] = {
  { "posix-system.pt", "global posix.system" },
  { "os-system.pt", "global os.system" },
  { "eval.pt", "global builtins.eval" },
  { "popen.pt", "global subprocess.Popen" },
  { "popen-protocol4.pt", "global subprocess.Popen" },
  { "system-in-state-dict.bin", "global posix.system" },
  { "pickled-module.pt", "global torch.nn.modules.linear.Linear" },
  { "missing-storage.pt", "no entry archive/data/0" },
  { "missing-storage-legacy.bin", "which the file does not hold" },
  { "storage-size-mismatch.pt", "holds 40 bytes" },
  { "storage-larger-than-file.bin", "past the end of the file" },
  { "no-data-pkl.pt", "without data.pkl" },
  { "compressed-storage.pt", "archive/data/0 is compressed" },
  { "big-endian.pt", "big-endian" },
  { "truncated-storages.bin", "past the end of the file" },
  { "truncated-pickle.bin", "ends inside the pickle" },
  { "absurd-shape.pt", "shape overflows" },
  { "overflowing-shape.pt", "shape overflows" },
  { "nine-dimensions.pt", "9 dimensions" },
  { "view-past-end.pt", "past the end of its storage" },
  { "strided-past-end.pt", "past the end of its storage" },
  { "negative-size.pt", "non-negative integer" },
  { "expanded-beyond-storage.pt", "repeats the values it stores" },
  /* What costs far more than its size, or reads differently from torch
   * (tests/fixtures/make-pytorch-hostile.py, issue 38). */
  { "hostile-cost/expanded-names.pt", "the first rows of its tensors alone" },
  { "hostile-cost/expanded-distinct.pt", "the first rows of its tensors alone" },
  { "hostile-cost/repeated-rows.pt", "is 30000×1, but repeats the values it stores" },
  { "hostile-cost/duplicate-entry.pt", "entry archive/data/0 appears twice" },
  { "hostile-cost/pid-six-in-zip.pt", "has 6 items, where the zip format has 5" },
  { "hostile-cost/pid-five-in-legacy.bin", "has 5 items, where the legacy format has 6" },
  { "hostile-cost/byteorder-big-newline.pt", "byte order record says “big\\n”, neither little nor big "
    "(PyTorch 2 refuses it too" },
  { "hostile-cost/byteorder-bigbigbig.pt", "byte order record holds 9 bytes, neither little nor big "
    "(PyTorch 2 refuses it too" },
  { "hostile-cost/no-version.pt", "has no archive/version" },
  { "hostile-cost/first-outside.pt", "first entry, readme.txt, is not in a folder" },
  { "hostile-cost/two-archives.pt", "entry archive/data.pkl lies outside the zip’s folder other" },
  { "hostile-cost/dotdot-prefix.pt", "folder is named “..”" },
  { "hostile-cost/overlapping.pt", "overlaps" },
};

static char *made_dir;

/* Pickles of a legacy file's object, forged here. */
typedef void (*MakePickle) (GByteArray *pickle);

static void
nested_lists (GByteArray *p)
{
  pl_test_pickle_ops (p, ']', 100000);
  pl_test_pickle_ops (p, 'a', 99999);
  pl_test_pickle_op (p, '.');
}

static void
nested_marks (GByteArray *p)
{
  pl_test_pickle_ops (p, '(', 100000);
  pl_test_pickle_op (p, '.');
}

static void
forged_memo_index (GByteArray *p)
{
  pl_test_pickle_op (p, ']');
  pl_test_pickle_op_u32 (p, 'r', 0xffffffff);
  pl_test_pickle_op (p, '.');
}

static void
unset_memo (GByteArray *p)
{
  pl_test_pickle_op (p, 'h');
  pl_test_pickle_op (p, 7);
  pl_test_pickle_op (p, '.');
}

static void
millions_of_values (GByteArray *p)
{
  pl_test_pickle_ops (p, ']', (1 << 21) + 1);
  pl_test_pickle_op (p, '.');
}

static void
long_global (GByteArray *p)
{
  pl_test_pickle_op (p, 'c');
  pl_test_pickle_ops (p, 'a', 1000);
  pl_test_pickle_op (p, '\n');
  pl_test_pickle_op (p, '.');
}

/* INST: protocol 0's way to call a class with the values above a MARK. */
static void
inst_instruction (GByteArray *p)
{
  g_byte_array_append (p, (const guint8 *) "(Vtouch x\nios\nsystem\n.", 22);
}

static void
call_a_list (GByteArray *p)
{
  pl_test_pickle_op (p, ']');
  pl_test_pickle_op (p, ')');
  pl_test_pickle_op (p, 'R');
  pl_test_pickle_op (p, '.');
}

static void
module_persistent_id (GByteArray *p)
{
  pl_test_pickle_op (p, '(');
  pl_test_pickle_string (p, "module");
  pl_test_pickle_string (p, "os");
  pl_test_pickle_op (p, 't');
  pl_test_pickle_op (p, 'Q');
  pl_test_pickle_op (p, '.');
}

static void
build_a_list (GByteArray *p)
{
  pl_test_pickle_op (p, ']');
  pl_test_pickle_op (p, '}');
  pl_test_pickle_op (p, 'b');
  pl_test_pickle_op (p, '.');
}

static void
huge_string (GByteArray *p)
{
  pl_test_pickle_op_u32 (p, 'X', 0xfffffff0);
  pl_test_pickle_string (p, "short");
  pl_test_pickle_op (p, '.');
}

static void
odd_items (GByteArray *p)
{
  pl_test_pickle_op (p, '}');
  pl_test_pickle_op (p, '(');
  pl_test_pickle_string (p, "key");
  pl_test_pickle_op (p, 'u');
  pl_test_pickle_op (p, '.');
}

static void
not_a_dict (GByteArray *p)
{
  pl_test_pickle_op (p, 'N');
  pl_test_pickle_op (p, '.');
}

static void
few_arguments (GByteArray *p)
{
  pl_test_pickle_op (p, '}');
  pl_test_pickle_string (p, "w");
  pl_test_pickle_global (p, "torch._utils", "_rebuild_tensor_v2");
  pl_test_pickle_op (p, ')');
  pl_test_pickle_op (p, 'R');
  pl_test_pickle_op (p, 's');
  pl_test_pickle_op (p, '.');
}

static void
storage_named_twice (GByteArray *p)
{
  const guint64 size[] = { 3 }, stride[] = { 1 };

  pl_test_pickle_op (p, '}');
  pl_test_pickle_op (p, '(');
  pl_test_pickle_string (p, "a");
  pl_test_pickle_tensor (p, "0", 4, 0, 1, size, stride);
  pl_test_pickle_string (p, "b");
  pl_test_pickle_tensor (p, "0", 1000, 0, 1, size, stride);
  pl_test_pickle_op (p, 'u');
  pl_test_pickle_op (p, '.');
}

/* GPT-2's position table of 8192 × 8192 float32 (256 MiB) whose storage
 * the file declares and never writes: a sparse file of a few hundred bytes
 * on disk. */
#define HOLE_ROWS 8192

static void
sparse_table (GByteArray *p)
{
  const guint64 size[] = { HOLE_ROWS, HOLE_ROWS }, stride[] = { HOLE_ROWS, 1 };

  pl_test_pickle_op (p, '}');
  pl_test_pickle_string (p, "transformer.wpe.weight");
  pl_test_pickle_tensor (p, "0", (guint64) HOLE_ROWS * HOLE_ROWS, 0, 2, size, stride);
  pl_test_pickle_op (p, 's');
  pl_test_pickle_op (p, '.');
}

/* Issue 38's costs, at a few megabytes: a stack of 6 million Nones (48 MB
 * of pointers for 6 MB), a memo index far past the one value built (a
 * 48 MB memo), and one tensor named 120,000 times through the memo (each
 * name an entry of its own). */
#define MANY 6000000

static void
stack_of_nones (GByteArray *p)
{
  pl_test_pickle_ops (p, 'N', MANY);
  pl_test_pickle_op (p, '.');
}

static void
memo_far (GByteArray *p)
{
  pl_test_pickle_op_u32 (p, 'X', MANY);
  pl_test_pickle_ops (p, 'x', MANY);
  pl_test_pickle_op_u32 (p, 'r', MANY);
  pl_test_pickle_op (p, '.');
}

static void
aliases (GByteArray *p)
{
  const guint64 size[] = { 4 }, stride[] = { 1 };

  pl_test_pickle_op (p, '}');
  pl_test_pickle_op (p, '(');
  pl_test_pickle_string (p, "w0");
  pl_test_pickle_tensor (p, "0", 4, 0, 1, size, stride);
  pl_test_pickle_op_u32 (p, 'r', 1);
  for (guint i = 1; i < 120000; i++)
    {
      g_autofree char *name = g_strdup_printf ("w%u", i);

      pl_test_pickle_string (p, name);
      pl_test_pickle_op_u32 (p, 'j', 1);
    }
  pl_test_pickle_op (p, 'u');
  pl_test_pickle_op (p, '.');
}

typedef struct
{
  const char *file;
  const char *why;
  MakePickle  make;
  gboolean    storage;    /* the file holds storage "0" of 4 floats */
  gboolean    hole;       /* or of HOLE_ROWS² floats, never written */
} MadeCase;

static const MadeCase made_cases[] = {
  { "nested-lists.bin", "nest deeper than 200", nested_lists },
  { "nested-marks.bin", "marks nest deeper", nested_marks },
  { "forged-memo-index.bin", "memo index 4294967295", forged_memo_index },
  { "unset-memo.bin", "memo entry 7 is read before it is set", unset_memo },
  { "millions-of-values.bin", "more than a pickle of that size may", millions_of_values },
  { "long-global.bin", "longer than", long_global },
  { "inst-instruction.bin", "instruction “i”", inst_instruction },
  { "call-a-list.bin", "not an allowed global", call_a_list },
  { "module-persistent-id.bin", "persistent id", module_persistent_id },
  { "build-a-list.bin", "state of something", build_a_list },
  { "huge-string.bin", "ends inside the pickle", huge_string },
  { "odd-items.bin", "key and value", odd_items },
  { "not-a-dict.bin", "no dict of tensors", not_a_dict },
  { "few-arguments.bin", "fewer than 4 arguments", few_arguments },
  { "storage-named-twice.bin", "named twice", storage_named_twice, TRUE },
  { "sparse-table.bin", "holes of a sparse file", sparse_table, TRUE, TRUE },
  { "stack-of-nones.bin", "more than a pickle of that size may", stack_of_nones },
  { "memo-far.bin", "memo index 6000000 is beyond the 1 values built so far", memo_far },
  { "aliases.bin", "more than a pickle of that size may", aliases, TRUE },
};

static void
make_files (void)
{
  static const float zeros[4];
  const char * const keys[] = { "0" };
  const float * const data[] = { zeros }, * const hole[] = { NULL };
  const guint64 numel = 4, hole_numel = (guint64) HOLE_ROWS * HOLE_ROWS;

  made_dir = pl_test_tmpdir ();
  for (guint i = 0; i < G_N_ELEMENTS (made_cases); i++)
    {
      const MadeCase *c = &made_cases[i];
      g_autofree char *path = g_build_filename (made_dir, c->file, NULL);
      g_autoptr(GByteArray) pickle = pl_test_pickle_new ();

      c->make (pickle);
      pl_test_write_torch_legacy (path, pickle, c->storage ? 1 : 0, keys, c->hole ? &hole_numel : &numel,
                                  c->hole ? hole : data);
    }
}

static char *
case_path (const HostileCase *c)
{
  for (guint i = 0; i < G_N_ELEMENTS (made_cases); i++)
    if (strcmp (made_cases[i].file, c->file) == 0)
      return g_build_filename (made_dir, c->file, NULL);
  if (strchr (c->file, '/') != NULL)
    return pl_test_fixture ("pytorch", c->file, NULL);
  return pl_test_fixture ("pytorch", "hostile", c->file, NULL);
}

/* Through the library: refused with the file's name and the reason, fast. */
static void
test_library (gconstpointer data)
{
  const HostileCase *c = data;
  g_autofree char *path = case_path (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;

  /* As the window opens it: the model, then everything `check` reads. */
  model = pl_model_open (path, NULL, NULL, &error);
  if (model != NULL)
    g_assert_false (pl_model_check_readable (model, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == PL_ERROR);
  g_test_message ("%s: %s", c->file, error->message);
  g_assert_nonnull (strstr (error->message, c->file));
  if (strstr (error->message, c->why) == NULL)
    g_error ("%s: “%s” does not say “%s”", c->file, error->message, c->why);
}

/* Through poslens-cli check, as the window opens files, in a fresh folder:
 * exit code 2, one line naming the file and the reason, and no payload
 * has run (it would have created PAYLOAD_FILE there). */
static void
test_cli (gconstpointer data)
{
  const HostileCase *c = data;
  g_autofree char *path = case_path (c);
  g_autofree char *cwd = pl_test_tmpdir ();
  g_autofree char *payload = g_build_filename (cwd, PAYLOAD_FILE, NULL);
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { g_getenv ("POSLENS_CLI"), "check", path, NULL };
  int status;

  g_assert_true (g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_nonnull (strstr (err, c->file));
  g_assert_nonnull (strstr (err, c->why));
  g_assert_false (g_file_test (payload, G_FILE_TEST_EXISTS));
  pl_test_rmtree (cwd);
}

/* torch's legacy loader keeps views by key: a view key met again is the
 * first view, whatever offset it is given then. b's own view would start at
 * element 8; torch.load gives it a's, from element 4. */
static void
test_legacy_view_key (void)
{
  g_autofree char *path = pl_test_fixture ("pytorch", "hostile-cost", "legacy-view-key.bin", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlCheckpoint) checkpoint = pl_checkpoint_open (path, &error);
  const float torch_gives[] = { 4, 5, 6, 7 };

  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PlMatrix) m = pl_checkpoint_read (checkpoint, i ? "b" : "a", &error);

      g_assert_no_error (error);
      g_assert_cmpmem (m->data, m->rows * m->cols * sizeof (float), torch_gives, sizeof torch_gives);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func (g_free);
  int status;

  pl_test_init (&argc, &argv);
  make_files ();

  for (guint i = 0; i < G_N_ELEMENTS (fixture_cases); i++)
    g_ptr_array_add (cases, g_memdup2 (&fixture_cases[i], sizeof (HostileCase)));
  for (guint i = 0; i < G_N_ELEMENTS (made_cases); i++)
    {
      HostileCase c = { made_cases[i].file, made_cases[i].why };

      g_ptr_array_add (cases, g_memdup2 (&c, sizeof c));
    }
  for (guint i = 0; i < cases->len; i++)
    {
      const HostileCase *c = g_ptr_array_index (cases, i);
      g_autofree char *library = g_strdup_printf ("/pl/pytorch-hostile/library/%s", c->file);
      g_autofree char *cli = g_strdup_printf ("/pl/pytorch-hostile/cli/%s", c->file);

      g_test_add_data_func (library, c, test_library);
      g_test_add_data_func (cli, c, test_cli);
    }
  g_test_add_func ("/pl/pytorch-hostile/legacy-view-key", test_legacy_view_key);
  status = g_test_run ();
  pl_test_rmtree (made_dir);
  return status;
}
