/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-attention-heads.h"

G_BEGIN_DECLS

/* The attention of one head, fused: scores, softmax and context of a few
 * queries at a time, in AVX-512 registers, without a score matrix of the
 * head or a BLAS call (pl-fused-attention.c); the probabilities written
 * out as they go when they are kept, so the context is the same float for
 * float whether they are or not. pl-attention-heads.c's blocks of
 * OpenBLAS SGEMMs are the plain path beside it, and the tests compare the
 * two. */

/* Whether pl_fused_attention_head runs JOB on this processor: a head size
 * that is a multiple of 16, AVX-512 usable (and POSLENS_DISABLE_SIMD
 * unset), the plain path not forced. */
gboolean pl_fused_attention_usable        (const PlAttentionHeads *job);
/* Floats of scratch pl_fused_attention_head needs for JOB, per thread. */
gsize    pl_fused_attention_scratch_size  (const PlAttentionHeads *job);
/* Head HEAD's context into JOB's CTX columns, and its probabilities into
 * JOB's PROBS when not NULL; SCRATCH of pl_fused_attention_scratch_size
 * floats. */
void     pl_fused_attention_head          (const PlAttentionHeads *job,
                                           gsize                     head,
                                           float                    *scratch);
/* Tests and benches: the plain path even where the fused one runs. */
void     pl_fused_attention_force_plain   (gboolean                  plain);

G_END_DECLS
