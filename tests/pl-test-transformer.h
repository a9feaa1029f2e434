/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-transformer.h"

G_BEGIN_DECLS

#define PL_TEST_N_FIXTURES 3

typedef struct
{
  const char          *name;      /* fixture folder */
  const char          *prefix;    /* tf_model.h5 path up to the model */
  PlTransformerConfig  config;    /* from the fixture's config.json */
} PlTestFixture;

/* mini-gpt2, mini-bert, mini-roberta with their config.json by hand */
extern const PlTestFixture pl_test_fixtures[PL_TEST_N_FIXTURES];

/* The fixture's weights read from tf_model.h5 with the raw HDF5 API, apart
 * from the checkpoint reader. */
PlTransformer *pl_test_raw_transformer (const PlTestFixture *fx);
/* Both probes of NAME's reference.h5: attentions within 1e-4, hidden states
 * within 1e-3, rows of probabilities summing to 1 (over j ≤ i if causal). */
void           pl_test_transformer_check_reference (PlTransformer *t,
                                                    const char    *name);
/* /hf/PROBE/input_ids of a reference file, as a GArray of int. */
GArray        *pl_test_reference_ids (const char *file,
                                      const char *probe);
void           pl_test_check_rows (const PlMatrix *probs,
                                   guint           t,
                                   gboolean        causal);

G_END_DECLS
