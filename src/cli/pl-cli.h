/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* Exit codes: 0 success, 1 usage error, 2 a file or input that cannot be used. */
#define PL_CLI_EXIT_OK     0
#define PL_CLI_EXIT_USAGE  1
#define PL_CLI_EXIT_INPUT  2

typedef int (*PlCliCommand) (int argc, char **argv);

/* Prints "poslens-cli: MESSAGE" as one line on stderr and returns PL_CLI_EXIT_INPUT. */
int pl_cli_fail (const GError *error);

/* pl_model_open, and from then on a crash (a damaged file can crash
 * libhdf5 1.10) prints one line naming PATH before the process dies. */
PlModel *pl_cli_open_model (const char  *path,
                            const char  *dataset,
                            GError     **error);

int pl_cli_info (int argc, char **argv);
int pl_cli_check (int argc, char **argv);

int pl_cli_tokenize (int argc, char **argv);

/* Shared by the table analyses (pl-cli-table.c). */
/* The real positions of PATH (DATASET as a plain table when given), rows
 * "A:B" of them when ROWS is given. LAYER ≥ 0 takes the positional component
 * of that layer instead (0: the embedding output): the mean hidden state at
 * each position over random inputs. PL_CLI_TABLE_LAYER: the table itself. */
#define PL_CLI_TABLE_LAYER (-1)
#define PL_CLI_LAYER_OPTION(var) \
  { "layer", 'l', 0, G_OPTION_ARG_INT, &(var), \
    N_("Positions after layer L: the mean hidden state at each position over random inputs (0: the embeddings)"), \
    N_("L") }
PlMatrix *pl_cli_read_positions (const char  *path,
                                 const char  *dataset,
                                 const char  *rows,
                                 int          layer,
                                 GError     **error);
gboolean  pl_cli_parse_rows     (const char  *spec,
                                 gsize        n,
                                 gsize       *first,
                                 gsize       *count,
                                 GError     **error);
/* Prints "poslens-cli COMMAND: MESSAGE" on stderr and returns PL_CLI_EXIT_USAGE. */
int       pl_cli_usage          (const char  *command,
                                 const char  *message);

int pl_cli_similarity (int argc, char **argv);
int pl_cli_pca (int argc, char **argv);
int pl_cli_probe (int argc, char **argv);

int pl_cli_forward (int argc, char **argv);
int pl_cli_attention (int argc, char **argv);

G_END_DECLS
