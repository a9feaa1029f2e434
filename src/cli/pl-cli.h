/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes: 0 success, 1 usage error, 2 a file or input that cannot be used. */
#define PL_CLI_EXIT_OK     0
#define PL_CLI_EXIT_USAGE  1
#define PL_CLI_EXIT_INPUT  2

typedef int (*PlCliCommand) (int argc, char **argv);

/* Prints "poslens-cli: MESSAGE" as one line on stderr and returns PL_CLI_EXIT_INPUT. */
int pl_cli_fail (const GError *error);

int pl_cli_info (int argc, char **argv);

int pl_cli_tokenize (int argc, char **argv);

G_END_DECLS
