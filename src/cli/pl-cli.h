/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pl-grid.h"
#include "pl-matrix.h"
#include "pl-model.h"

G_BEGIN_DECLS

/* Exit codes: 0 success, 1 usage error, 2 a file or input that cannot be used. */
#define PL_CLI_EXIT_OK     0
#define PL_CLI_EXIT_USAGE  1
#define PL_CLI_EXIT_INPUT  2

typedef int (*PlCliCommand) (int argc, char **argv);

/* pl-cli-print.c: what is printed besides numbers, every name, path and
 * message escaped (pl_escape_text) so that no control character from a
 * file or an argument reaches the terminal. */
/* Prints "poslens-cli: MESSAGE" as one line on stderr and returns PL_CLI_EXIT_INPUT. */
int  pl_cli_fail       (const GError *error);
/* Prints "poslens-cli COMMAND: MESSAGE" on stderr and returns PL_CLI_EXIT_USAGE. */
int  pl_cli_usage      (const char   *command,
                        const char   *message);
/* When N_PAIRS < N_FEATURES, warns on stderr, naming MODEL, that the
 * relative-order probe measures its sample more than the table (as the
 * Probes view does). */
void pl_cli_warn_few_pairs (const char *command,
                            const char *model,
                            guint       n_pairs,
                            gsize       n_features);
/* BUILDER's value as indented JSON on stdout, DEL and C1 controls escaped. */
void pl_cli_print_json (JsonBuilder  *builder);

/* pl_model_open, and from then on a crash (a damaged file can crash
 * libhdf5 1.10) prints one line naming PATH before the process dies; then,
 * when TABLE is given (--table), that table chosen
 * (pl_model_select_table). */
PlModel *pl_cli_open_model (const char  *path,
                            const char  *dataset,
                            const char  *table,
                            GError     **error);
/* --table, which every command reading a model takes. */
#define PL_CLI_TABLE_OPTION(var) \
  { "table", 0, 0, G_OPTION_ARG_STRING, &(var), \
    N_("Of a model with several tables: encoder, decoder, text, vision, relative or absolute"), N_("TABLE") }

int pl_cli_info (int argc, char **argv);
int pl_cli_check (int argc, char **argv);

int pl_cli_tokenize (int argc, char **argv);

/* Shared by the table analyses (pl-cli-table.c). */
/* The real positions of MODEL (opened with pl_cli_open_model), rows "A:B" of
 * them when ROWS is given. LAYER ≥ 0 takes the positional component of that
 * layer instead (0: the embedding output): the mean hidden state at each
 * position over random inputs. PL_CLI_TABLE_LAYER: the table itself. */
#define PL_CLI_TABLE_LAYER (-1)
#define PL_CLI_LAYER_OPTION(var) \
  { "layer", 'l', 0, G_OPTION_ARG_INT, &(var), \
    N_("Positions after layer L: the mean hidden state at each position over random inputs (0: the embeddings)"), \
    N_("L") }
PlMatrix *pl_cli_read_positions (PlModel     *model,
                                 const char  *rows,
                                 int          layer,
                                 GError     **error);
/* How many rows pl_cli_read_positions will return, before anything is read
 * (0 when MODEL has no table: reading it says why). */
gboolean  pl_cli_count_positions (PlModel    *model,
                                  const char *rows,
                                  gsize      *n,
                                  GError    **error);
/* pl_cli_fail for an analysis's ERROR, its message first prefixed with
 * MODEL's path: the analyses know tables, not files. */
int       pl_cli_fail_analysis  (PlModel     *model,
                                 GError      *error);
gboolean  pl_cli_parse_rows     (const char  *spec,
                                 gsize        n,
                                 gsize       *first,
                                 gsize       *count,
                                 GError     **error);

int pl_cli_similarity (int argc, char **argv);
int pl_cli_pca (int argc, char **argv);
int pl_cli_patch_grid (int argc, char **argv);

/* pl-cli-resize.c: vision transformers' grids. */
/* "ROWSxCOLS", each 1 to PL_GRID_MAX_SIDE. */
gboolean  pl_cli_parse_grid     (const char      *spec,
                                 guint           *rows,
                                 guint           *cols,
                                 GError         **error);
/* MODEL's patches and their grid; with RESIZE ("ROWSxCOLS", or NULL) the
 * patches resized to that grid with RESAMPLE's arguments, as Hugging Face's
 * interpolate_pos_encoding does. */
gboolean  pl_cli_read_grid      (PlModel         *model,
                                 const char      *resize,
                                 PlGridResample   resample,
                                 PlMatrix       **patches,
                                 guint           *rows,
                                 guint           *cols,
                                 GError         **error);
int pl_cli_resize (int argc, char **argv);
int pl_cli_probe (int argc, char **argv);
int pl_cli_paper (int argc, char **argv);

int pl_cli_forward (int argc, char **argv);
int pl_cli_attention (int argc, char **argv);
int pl_cli_rope_profile (int argc, char **argv);
int pl_cli_position_bias (int argc, char **argv);

G_END_DECLS
