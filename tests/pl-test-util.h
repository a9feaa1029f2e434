/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* What every test program does first: lets OpenBLAS run the kernels the
 * processor calls for (pl_blas_core_choose, which may start the program
 * again), then g_test_init. */
void      pl_test_init         (int    *argc,
                                char ***argv);

/* Path of a file under tests/fixtures (references, format samples). */
char     *pl_test_fixture      (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* Path of a file under data/demo (the checkpoints the app ships). */
char     *pl_test_demo         (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* A dataset of a reference file, read with the raw HDF5 API (not through
 * PlCheckpoint, so the reader under test is not its own referee), as float32
 * with the last dimension as columns. */
PlMatrix *pl_test_read_h5      (const char *file,
                                const char *dataset);
double    pl_test_read_h5_scalar (const char *file,
                                  const char *dataset);
/* tests/fixtures/vision (make-vision.py): /GROUP/DATASET of its
 * reference.h5, and the checkpoint folder NAME opened. */
PlMatrix *pl_test_vision_reference (const char *group,
                                    const char *dataset);
PlModel  *pl_test_open_vision  (const char *name);
/* Every value of a dataset as double, in storage order; N gets how many. */
double   *pl_test_read_h5_doubles (const char *file,
                                   const char *dataset,
                                   gsize      *n);
/* Largest |a - b| over all elements; NaN when the shapes differ. */
double    pl_test_max_abs_diff (const PlMatrix *a,
                                const PlMatrix *b);
/* ROWS × COLS values drawn uniformly from (−SCALE, SCALE) by RAND. */
PlMatrix *pl_test_random_matrix (GRand *rand,
                                 gsize  rows,
                                 gsize  cols,
                                 double scale);
/* Largest |value| of M. */
double    pl_test_max_abs      (const PlMatrix *m);
/* The fixtures whose references hold the table analyses (cosine, PCA, probe
 * MAE): the three demo checkpoints and the sinusoid. */
typedef struct
{
  const char *reference;   /* file under tests/fixtures */
  const char *group;       /* where its table references are */
  const char *model;       /* demo checkpoint folder, or NULL for the table in REFERENCE */
} PlTestTable;

/* Registers FUNC (data: a PlTestTable) once per fixture, as PREFIX/mini-gpt2 … */
void      pl_test_add_table_tests (const char        *prefix,
                                   GTestDataFunc      func);
/* The real positions of a fixture's table, read as the app reads them. */
PlMatrix *pl_test_read_table      (const PlTestTable *table);

/* Runs $POSLENS_CLI with ARGS (stdout discarded) and returns its exit
 * code; a failure must say why in one line on stderr, which is logged. */
int       pl_test_run_cli      (const char * const *args);
/* Runs $POSLENS_CLI with COMMAND (when not NULL) then ARGS, and returns its
 * exit code (it must exit, not crash) with what it printed. */
int       pl_test_cli_output   (const char         *command,
                                const char * const *args,
                                char              **out,
                                char              **err);

/* pl_test_cli_output with the NULL-terminated arguments; OUT and ERR may
 * be NULL. */
int       pl_test_cli          (char              **out,
                                char              **err,
                                ...) G_GNUC_NULL_TERMINATED;

/* A long computation that takes a cancellable: FALSE with ERROR set on failure. */
typedef gboolean (*PlTestCancellableFunc) (gpointer       data,
                                           GCancellable  *cancellable,
                                           GError       **error);
/* Counts how often FUNC (DATA) looks at its cancellable in a run through
 * (at least three times: at its start, while it works, at its end), then
 * runs it again, cancels the cancellable at the look half way through, and
 * asserts that it fails with G_IO_ERROR_CANCELLED instead of answering: it
 * looks while it works and stops when told. The
 * looks are counted by definitions of g_cancellable_is_cancelled and
 * g_cancellable_set_error_if_cancelled in pl-test-cancel.c, which the
 * executables that call this use instead of GIO's. */
void      pl_test_assert_cancels (PlTestCancellableFunc func,
                                  gpointer              data);

/* A fresh temporary folder, removed with its contents by pl_test_rmtree. */
char     *pl_test_tmpdir       (void);
void      pl_test_rmtree       (const char *path);

/* FOLDER holds what "Reproduce the Paper" writes: figure1.pdf, figure1.png,
 * table1.pdf and table1.png, each a whole PDF or PNG file, and (read back
 * with pdftotext when it is installed) Figure 1's caption and Table 1's,
 * which names the paper's protocol and the seeds FIRST_SEED … + N_REPEATS − 1. */
void      pl_test_assert_paper_files (const char *folder,
                                      guint       first_seed,
                                      guint       n_repeats);

/* File I (1 … 14) of tests/fuzz/known-libhdf5/uaf-sequence, written over
 * PATH as the fuzz replay wrote each input: in place, without truncating
 * (GLib 2.74's G_FILE_SET_CONTENTS_NONE), so each file is its bytes over
 * the tail of the ones before: what libhdf5 tripped over. Returns the
 * known file's path. */
char     *pl_test_write_known_libhdf5 (guint       i,
                                       const char *path);

/* A model of an Ollama store at STORE as `ollama pull` lays it out: the
 * manifest manifests/HOST/NS/MODEL/TAG whose model layer is BLOB's bytes,
 * copied in as blobs/sha256-SUM, or names DIGEST as it is (BLOB NULL). */
void      pl_test_add_ollama_model (const char *store,
                                    const char *host,
                                    const char *ns,
                                    const char *model,
                                    const char *tag,
                                    const char *blob,
                                    const char *digest);

G_END_DECLS
