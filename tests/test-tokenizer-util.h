/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "pl-tokenizer.h"
#include "test-tokenizer-cases.h"

/* What test-tokenizer.c and test-tokenizer-json.c compare with:
 * fixtures/tokenizers/reference.json (Hugging Face `tokenizers` 0.23.2) and
 * the hard cases of test-tokenizer-cases.h (tokenizers.js). */

/* reference.json, parsed. */
JsonObject *pl_test_tokenizer_reference (void);
/* The hard case's text (the 100-character one is built here). */
char *pl_test_hard_case_text  (const HardCase *c);
/* Fails the test naming TEXT unless IDS are EXPECT (ended by −1). */
void  pl_test_assert_ids      (GArray         *ids,
                               const int      *expect,
                               const char     *text);
/* Every sentence of reference.json's WHICH ("bert_uncased", "byte_bpe"):
 * ids and token strings exactly. */
void  pl_test_check_reference (PlTokenizer    *tok,
                               const char     *which);
