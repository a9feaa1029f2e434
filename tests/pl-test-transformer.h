/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-transformer.h"

G_BEGIN_DECLS

#define PL_TEST_N_FIXTURES 3

/* Against a reference forward pass (Hugging Face's fp32 one in the fixtures'
 * reference.h5, or a float64 numpy script's): attention probabilities,
 * hidden states. An independent numpy pass lands within 1e-5 / 2e-5 of
 * Hugging Face's. */
#define ATTENTION_TOL 1e-4
#define HIDDEN_TOL    1e-3

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
/* The PROBES (NULL-terminated) of the reference file FILE, under GROUP
 * ("/hf" for Hugging Face's own outputs in the fixtures, "" for those of
 * the scripts tests/fixtures/make-*.py), through T: every attention map
 * within 1e-4, its rows of probabilities summing to 1 (over j ≤ i if
 * causal), every hidden state, hidden_states[0] included, within 1e-3 and
 * as wide as the layers. LABEL starts the lines logged. */
void           pl_test_transformer_compare (PlTransformer      *t,
                                            const char         *file,
                                            const char         *group,
                                            const char * const *probes,
                                            const char         *label);
/* Both probes of fixture NAME's reference.h5, as above. */
void           pl_test_transformer_check_reference (PlTransformer *t,
                                                    const char    *name);
/* tests/fixtures/rope/REFERENCE's reference for what fixture NAME's forward
 * pass computes here: reference-bf16.h5 (every linear layer's input rounded
 * to BF16) where its BF16 weights are multiplied with BF16 dot products
 * (pl_stored_gemm_rounds_activations), else reference.h5. */
char          *pl_test_rope_reference (const char *name,
                                       const char *reference);
/* GROUP/PROBE/input_ids of a reference file, as a GArray of int. */
GArray        *pl_test_reference_ids (const char *file,
                                      const char *group,
                                      const char *probe);
void           pl_test_check_rows (const PlMatrix *probs,
                                   guint           t,
                                   gboolean        causal);
/* Says in the test log which tuned kernels run natively here and which
 * only as their portable emulation: "# kernels: avx512bf16 native, amx
 * emulated, avx512f native". */
void           pl_test_print_kernels (void);

G_END_DECLS
