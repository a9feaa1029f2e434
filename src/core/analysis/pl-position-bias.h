/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-matrix.h"

G_BEGIN_DECLS

/* Position as a bias on attention scores, and the relative buckets that
 * T5 and DeBERTa map offsets to, computed as Hugging Face computes them
 * (float32 where it works in float32, so every bucket edge falls where it
 * falls there).
 *
 * A position-bias table is [heads, 2T − 1] for queries and keys of T
 * tokens: column (j − i) + T − 1 holds what head h adds to query i's score
 * for key j. Causal tables hold NaN in the columns of positive offsets,
 * which no query sees. */

/* The largest T a bias table is computed for (2T − 1 columns). */
#define PL_POSITION_BIAS_MAX_LENGTH (1u << 16)

typedef enum
{
  PL_POSITION_BIAS_T5,      /* a learned bias per head over buckets of the offset */
  PL_POSITION_BIAS_ALIBI,   /* a fixed slope per head times the offset */
} PlPositionBiasKind;

/* One model's bias over T tokens, immutable once made. */
typedef struct
{
  PlPositionBiasKind kind;
  guint     n_heads;
  guint     length;          /* T */
  gboolean  causal;
  PlMatrix *bias;            /* [heads, 2T − 1] */
  int      *buckets;         /* T5: the bucket of each column (−1 where causal hides it); else NULL */
  float    *slopes;          /* ALiBi: one per head; else NULL */
  guint     n_buckets;       /* T5: relative_attention_num_buckets */
  guint     max_distance;    /* T5: relative_attention_max_distance */
  /*< private >*/
  gint      ref_count;
} PlPositionBias;

#define PL_TYPE_POSITION_BIAS (pl_position_bias_get_type ())

GType           pl_position_bias_get_type (void) G_GNUC_CONST;
PlPositionBias *pl_position_bias_ref      (PlPositionBias *self);
void            pl_position_bias_unref    (PlPositionBias *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPositionBias, pl_position_bias_unref)
/* The bias of T5's bucket table TABLE [n_buckets, heads] over T tokens. */
PlPositionBias *pl_position_bias_new_t5   (const PlMatrix *table,
                                           guint          length,
                                           gboolean       bidirectional,
                                           guint          max_distance);
/* The bias of HEADS slopes (copied) over T tokens. */
PlPositionBias *pl_position_bias_new_alibi (const float   *slopes,
                                           guint          heads,
                                           guint          length,
                                           gboolean       causal);
/* The heads whose curves a figure draws by default, from 0, into HEADS (room
 * for eight): all of up to eight, else six spread evenly from the first to
 * the last. Returns how many. */
guint          pl_position_bias_default_heads (guint      n_heads,
                                           guint         *heads);
/* Head H's row as doubles, 2T − 1 of them (NaN where causal hides it). */
double         *pl_position_bias_get_curve (PlPositionBias *self,
                                           guint          head);

/* T5's _relative_position_bucket for OFFSET = j − i (memory minus query
 * position): bidirectional (the encoder) gives half of the N_BUCKETS to
 * positive offsets; causal (the decoder) maps every positive offset to
 * bucket 0. Of the buckets of one sign, the first half are offsets 0, 1, …
 * exactly, the rest log-spaced up to MAX_DISTANCE, and every offset beyond
 * shares the last. The log is float32's, as torch takes it. Needs
 * N_BUCKETS ≥ 4 (bidirectional) or ≥ 2 and MAX_DISTANCE above the exact
 * range (pl_t5_buckets_check). */
guint      pl_t5_bucket                   (int           offset,
                                           gboolean      bidirectional,
                                           guint         n_buckets,
                                           guint         max_distance);
/* NULL when N_BUCKETS and MAX_DISTANCE make sense for T5's bucket function,
 * else why not (a sentence naming the two as config.json names them). */
char      *pl_t5_buckets_check            (gboolean      bidirectional,
                                           guint         n_buckets,
                                           guint         max_distance);
/* [heads, 2T − 1] from TABLE, T5's relative_attention_bias.weight
 * [n_buckets, heads] (nn.Embedding: one row per bucket). */
PlMatrix  *pl_position_bias_t5            (const PlMatrix *table,
                                           guint         length,
                                           gboolean      bidirectional,
                                           guint         max_distance);

/* ALiBi slopes, float32 as each model's code computes them. BLOOM's
 * build_alibi_tensor: base 2^(−8/n) for the largest power of two n ≤ HEADS,
 * slopes base^1 … base^n, then for the heads left the odd powers of
 * 2^(−8/2n). */
void       pl_alibi_slopes_bloom          (guint         heads,
                                           float        *out);
/* MPT's gen_slopes: n the smallest power of two ≥ HEADS, slope k =
 * 1 / 2^(k · ALIBI_BIAS_MAX / n), k = 1 … n; when n > HEADS the odd k then
 * the even k, cut to HEADS. */
void       pl_alibi_slopes_mpt            (guint         heads,
                                           double        alibi_bias_max,
                                           float        *out);
/* [heads, 2T − 1]: slope · (j − i), NaN past the diagonal when CAUSAL.
 * BLOOM adds slope · j and MPT slope · (j − T + 1): both differ from this
 * by a constant per query, which the softmax takes out. */
PlMatrix  *pl_position_bias_alibi         (const float  *slopes,
                                           guint         heads,
                                           guint         length,
                                           gboolean      causal);

/* DeBERTa-v2's make_log_bucket_position for REL = i − j (query minus key):
 * |rel| ≤ BUCKETS / 2 as it is, beyond that log-spaced, signed, reaching
 * BUCKETS / 2 − 1 + BUCKETS / 2 at MAX_POSITION. With BUCKETS 0 (no
 * position_buckets) the offset itself. */
int        pl_deberta_bucket              (int           rel,
                                           guint         buckets,
                                           guint         max_position);
/* NULL when BUCKETS and MAX_POSITION make sense for the function above,
 * else why not, naming position_buckets and max_relative_positions. */
char      *pl_deberta_buckets_check       (guint         buckets,
                                           guint         max_position);
/* What row R of DeBERTa's relative table (2 SPAN rows) stands for: bucket
 * R − SPAN, and the range [*LO, *HI] of offsets i − j it gathers for queries
 * and keys at most MAX_LENGTH apart (an empty range, *LO > *HI, when no
 * offset maps there). */
int        pl_deberta_row_bucket          (guint         row,
                                           guint         span,
                                           guint         buckets,
                                           guint         max_position,
                                           guint         max_length,
                                           int          *lo,
                                           int          *hi);

G_END_DECLS
