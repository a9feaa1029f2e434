/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-attention-heads.h"
#include "pl-linear-amx.h"
#include "pl-matrix.h"
#include "pl-model.h"
#include "pl-stored-matrix.h"

G_BEGIN_DECLS

/* Each tuned kernel's arithmetic in portable C, one element at a time: the
 * same roundings in the same order as the instructions the kernel runs, as
 * their manuals define them. The tests compare an emulation with the plain
 * path on every machine (the arithmetic is accurate enough) and with its
 * kernel where the processor runs it (the kernel computes what its design
 * says). Slow: for tests. */

typedef enum
{
  PL_KERNEL_BF16_DOT,         /* AVX-512 BF16 dot products (pl-stored-gemm-bf16.c) */
  PL_KERNEL_AMX_TILES,        /* AMX-BF16 tiles (pl-stored-gemm-amx.c, pl-linear-amx.c) */
  PL_KERNEL_FUSED_ATTENTION,  /* AVX-512F (pl-fused-attention.c) */
  PL_N_KERNELS
} PlKernel;

/* The instruction set KERNEL runs on: "avx512bf16", "amx", "avx512f". */
const char *pl_kernel_name            (PlKernel kernel);
/* Whether this processor runs KERNEL (POSLENS_DISABLE_SIMD says no). */
gboolean    pl_kernel_runs_natively   (PlKernel kernel);

/* VCVTNEPS2BF16 (AVX-512 BF16): X to BF16 rounded to nearest, even on ties;
 * denormals become zero of their sign, NaNs quiet. */
guint16     pl_bf16_round_as_avx512   (float    x);
/* One product of VDPBF16PS or TDPBF16PS: ACC + A·B rounded to nearest,
 * denormal inputs read as zero and a denormal result flushed to zero. */
float       pl_bf16_dot_step          (float    acc,
                                       guint16  a,
                                       guint16  b);
float       pl_bf16_widen             (guint16  b);

/* As pl_stored_gemm with KERNEL (PL_KERNEL_BF16_DOT or PL_KERNEL_AMX_TILES)
 * on W (BF16, or BF16 tiles for AMX). */
void        pl_stored_gemm_emulated   (const PlMatrix       *x,
                                       const PlStoredMatrix *w,
                                       const PlMatrix       *bias,
                                       const PlMatrix       *residual,
                                       PlKernel              kernel,
                                       PlMatrix             *out);
/* As pl_linear_amx on W's tiles (W [K, N] as pl_linear_tiles_new takes it). */
void        pl_linear_amx_emulated    (const PlMatrix       *x,
                                       const PlMatrix       *w,
                                       const PlMatrix       *b,
                                       const PlMatrix       *residual,
                                       PlActivation          activation,
                                       PlMatrix             *out);
/* The AMX kernels' own code (their packing, splitting, blocking and chunks
 * of K) on tiles emulated in C, where the processor has AVX-512 BF16 (which
 * their packing and splitting use; else FALSE or NULL, and nothing done):
 * as pl_stored_gemm_amx, OUT [T, LDO] += X · Wᵀ for W in BF16 tiles; as
 * pl_linear_tiles_new and pl_linear_amx. */
gboolean       pl_stored_gemm_amx_on_emulated_tiles  (const PlMatrix       *x,
                                                      const PlStoredMatrix *w,
                                                      float                *out,
                                                      gsize                 ldo);
PlLinearTiles *pl_linear_tiles_new_on_emulated_tiles (const PlMatrix  *w,
                                                      GCancellable    *cancellable,
                                                      GError         **error);
gboolean       pl_linear_amx_on_emulated_tiles       (const PlMatrix      *x,
                                                      const PlLinearTiles *tiles,
                                                      const PlMatrix      *b,
                                                      const PlMatrix      *residual,
                                                      PlActivation         activation,
                                                      PlMatrix            *out);

/* As pl_attention_heads on the fused path: JOB's context and, when PROBS is
 * not NULL, its probabilities; JOB as pl_fused_attention_usable takes it
 * (head size a multiple of 16, no softcap or bias). */
void        pl_fused_attention_emulated (const PlAttentionHeads *job);

G_END_DECLS
