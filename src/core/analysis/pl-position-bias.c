/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pl-position-bias.h"

G_DEFINE_BOXED_TYPE (PlPositionBias, pl_position_bias, pl_position_bias_ref, pl_position_bias_unref)

PlPositionBias *
pl_position_bias_ref (PlPositionBias *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
pl_position_bias_unref (PlPositionBias *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  pl_matrix_unref (self->bias);
  g_free (self->buckets);
  g_free (self->slopes);
  g_free (self);
}

/* T5's buckets, step by step as _relative_position_bucket takes them:
 *   n = |offset| (bidirectional, positive offsets in the upper half) or
 *       max(−offset, 0) (causal);
 *   exact = half of the buckets of one sign; n < exact is bucket n;
 *   else exact + ⌊log(n / exact) / log(max_distance / exact) · (buckets − exact)⌋,
 *   at most the sign's last bucket.
 * In torch, n / exact and the log are float32, log(max_distance / exact) a
 * Python double that joins the float32 arithmetic as a float32; the same
 * operations in the same order here give the same bucket at every edge
 * (tests/test-position-bias.c holds them against torch's for offsets up to
 * ±5000). The value is compared before it is cast, so a huge one cannot
 * overflow the integer. */
guint
pl_t5_bucket (int      offset,
              gboolean bidirectional,
              guint    n_buckets,
              guint    max_distance)
{
  guint base = 0, n, exact, last;
  float ratio, scaled;

  if (bidirectional)
    {
      n_buckets /= 2;
      if (offset > 0)
        base = n_buckets;
      n = (guint) ABS ((gint64) offset);
    }
  else
    n = offset < 0 ? (guint) -(gint64) offset : 0;
  exact = n_buckets / 2;
  last = n_buckets - 1;
  g_return_val_if_fail (exact > 0 && max_distance > exact, base);
  if (n < exact)
    return base + n;
  ratio = (float) n / (float) exact;
  scaled = logf (ratio) / (float) log ((double) max_distance / exact) * (float) (n_buckets - exact);
  if (!(scaled < (float) (last - exact)))
    return base + last;
  return base + exact + (guint) scaled;
}

char *
pl_t5_buckets_check (gboolean bidirectional,
                     guint    n_buckets,
                     guint    max_distance)
{
  guint per_sign = bidirectional ? n_buckets / 2 : n_buckets;

  if (per_sign / 2 == 0)
    return g_strdup_printf ("relative_attention_num_buckets is %u; T5’s buckets need at least %u (half of them "
                            "exact offsets%s)", n_buckets, bidirectional ? 4 : 2,
                            bidirectional ? ", for each sign" : "");
  if (max_distance <= per_sign / 2)
    return g_strdup_printf ("relative_attention_max_distance is %u, but the first %u offsets already have buckets "
                            "of their own: it must be larger (T5 uses 128)", max_distance, per_sign / 2);
  return NULL;
}

PlMatrix *
pl_position_bias_t5 (const PlMatrix *table,
                     guint           length,
                     gboolean        bidirectional,
                     guint           max_distance)
{
  guint heads, n_buckets, width;
  PlMatrix *bias;

  g_return_val_if_fail (table != NULL, NULL);
  g_return_val_if_fail (length > 0 && length <= PL_POSITION_BIAS_MAX_LENGTH, NULL);
  g_return_val_if_fail (pl_t5_buckets_check (bidirectional, table->rows, max_distance) == NULL, NULL);

  heads = table->cols;
  n_buckets = table->rows;
  width = 2 * length - 1;
  bias = pl_matrix_new (heads, width);
  for (guint c = 0; c < width; c++)
    {
      int offset = (int) c - (int) (length - 1);
      guint b = pl_t5_bucket (offset, bidirectional, n_buckets, max_distance);

      for (guint h = 0; h < heads; h++)
        bias->data[(gsize) h * width + c] = !bidirectional && offset > 0 ? NAN
                                            : table->data[(gsize) b * heads + h];
    }
  return bias;
}

PlPositionBias *
pl_position_bias_new_t5 (const PlMatrix *table,
                         guint           length,
                         gboolean        bidirectional,
                         guint           max_distance)
{
  PlPositionBias *self;
  guint width = 2 * length - 1;

  g_return_val_if_fail (table != NULL, NULL);

  self = g_new0 (PlPositionBias, 1);
  self->ref_count = 1;
  self->kind = PL_POSITION_BIAS_T5;
  self->n_heads = table->cols;
  self->length = length;
  self->causal = !bidirectional;
  self->n_buckets = table->rows;
  self->max_distance = max_distance;
  self->bias = pl_position_bias_t5 (table, length, bidirectional, max_distance);
  self->buckets = g_new (int, width);
  for (guint c = 0; c < width; c++)
    {
      int offset = (int) c - (int) (length - 1);

      self->buckets[c] = !bidirectional && offset > 0 ? -1
                         : (int) pl_t5_bucket (offset, bidirectional, table->rows, max_distance);
    }
  return self;
}

/* 2^(−8/n)-based slopes, as BLOOM's float32 tensors hold them: the base is
 * Python's double rounded to float32, its powers float32 pow. */
static void
bloom_powers (guint   n,
              guint   count,
              guint   first,
              guint   step,
              float  *out)
{
  float base = (float) exp2 (-exp2 (-(log2 ((double) n) - 3)));

  for (guint k = 0; k < count; k++)
    out[k] = powf (base, (float) (first + k * step));
}

void
pl_alibi_slopes_bloom (guint  heads,
                       float *out)
{
  guint closest = 1;

  g_return_if_fail (out != NULL || heads == 0);
  if (heads == 0)
    return;
  while (closest * 2 <= heads)
    closest *= 2;
  bloom_powers (closest, closest, 1, 1, out);
  if (closest < heads)
    bloom_powers (2 * closest, MIN (closest, heads - closest), 1, 2, out + closest);
}

void
pl_alibi_slopes_mpt (guint   heads,
                     double  alibi_bias_max,
                     float  *out)
{
  guint n = 1;
  g_autofree float *slopes = NULL;
  float step;

  g_return_if_fail (out != NULL || heads == 0);
  if (heads == 0)
    return;
  while (n < heads)
    n *= 2;
  /* m = arange(1, n + 1) · (alibi_bias_max / n), float32; 1 / 2^m */
  step = (float) (alibi_bias_max / n);
  slopes = g_new (float, n);
  for (guint k = 0; k < n; k++)
    slopes[k] = 1.0f / powf (2.0f, (float) (k + 1) * step);
  if (n == heads)
    {
      memcpy (out, slopes, heads * sizeof (float));
      return;
    }
  /* concat(slopes[1::2], slopes[::2])[:heads] */
  for (guint h = 0, k = 1; h < heads; h++)
    {
      out[h] = slopes[k];
      k += 2;
      if (k >= n)
        k = 0;
    }
}

PlMatrix *
pl_position_bias_alibi (const float *slopes,
                        guint        heads,
                        guint        length,
                        gboolean     causal)
{
  guint width;
  PlMatrix *bias;

  g_return_val_if_fail (slopes != NULL || heads == 0, NULL);
  g_return_val_if_fail (length > 0 && length <= PL_POSITION_BIAS_MAX_LENGTH, NULL);

  width = 2 * length - 1;
  bias = pl_matrix_new (heads, width);
  for (guint h = 0; h < heads; h++)
    for (guint c = 0; c < width; c++)
      {
        int offset = (int) c - (int) (length - 1);

        bias->data[(gsize) h * width + c] = causal && offset > 0 ? NAN : slopes[h] * (float) offset;
      }
  return bias;
}

PlPositionBias *
pl_position_bias_new_alibi (const float *slopes,
                            guint        heads,
                            guint        length,
                            gboolean     causal)
{
  PlPositionBias *self = g_new0 (PlPositionBias, 1);

  self->ref_count = 1;
  self->kind = PL_POSITION_BIAS_ALIBI;
  self->n_heads = heads;
  self->length = length;
  self->causal = causal;
  self->bias = pl_position_bias_alibi (slopes, heads, length, causal);
  self->slopes = g_memdup2 (slopes, MAX (heads, 1) * sizeof (float));
  return self;
}

guint
pl_position_bias_default_heads (guint  n_heads,
                                guint *heads)
{
  guint n = n_heads <= 8 ? n_heads : 6;

  for (guint i = 0; i < n; i++)
    heads[i] = n == n_heads ? i : (guint) ((double) i * (n_heads - 1) / (n - 1) + 0.5);
  return n;
}

double *
pl_position_bias_get_curve (PlPositionBias *self,
                            guint           head)
{
  guint width;
  double *curve;

  g_return_val_if_fail (self != NULL && head < self->n_heads, NULL);
  width = self->bias->cols;
  curve = g_new (double, width);
  for (guint c = 0; c < width; c++)
    curve[c] = self->bias->data[(gsize) head * width + c];
  return curve;
}

/* DeBERTa-v2's make_log_bucket_position, in torch's float32: |rel| / mid,
 * its log, the log of (max_position − 1) / mid (a Python double made a
 * float32 tensor), the ceiling, mid added, the sign put back. */
int
pl_deberta_bucket (int   rel,
                   guint buckets,
                   guint max_position)
{
  int mid = (int) (buckets / 2);
  gint64 a;
  float log_pos;

  if (buckets == 0)
    return rel;
  a = (rel < mid && rel > -mid) ? mid - 1 : ABS ((gint64) rel);
  if (a <= mid)
    return rel;
  log_pos = ceilf (logf ((float) a / (float) mid) / logf ((float) ((double) (max_position - 1) / mid))
                   * (float) (mid - 1)) + (float) mid;
  return rel > 0 ? (int) log_pos : -(int) log_pos;
}

char *
pl_deberta_buckets_check (guint buckets,
                          guint max_position)
{
  if (buckets == 0)
    return NULL;
  if (buckets < 4)
    return g_strdup_printf ("position_buckets is %u; DeBERTa’s log buckets need at least 4 (DeBERTa-v3 uses 256)",
                            buckets);
  if (max_position <= buckets / 2 + 1)
    return g_strdup_printf ("max_relative_positions is %u, but with position_buckets %u the log buckets start "
                            "past offset %u: it must be larger", max_position, buckets, buckets / 2);
  return NULL;
}

int
pl_deberta_row_bucket (guint  row,
                       guint  span,
                       guint  buckets,
                       guint  max_position,
                       guint  max_length,
                       int   *lo,
                       int   *hi)
{
  int bucket = (int) row - (int) span;
  int first = G_MAXINT, last = G_MININT;

  /* Offsets i − j of queries and keys within MAX_LENGTH of each other;
   * buckets grow with |rel|, so one pass finds the range. Rows past the
   * ends gather every clamped offset (c2p_pos = clamp(bucket + span)). */
  for (int rel = -(int) max_length + 1; rel < (int) max_length; rel++)
    {
      int b = CLAMP (pl_deberta_bucket (rel, buckets, max_position), -(int) span, (int) span - 1);

      if (b != bucket)
        continue;
      first = MIN (first, rel);
      last = MAX (last, rel);
    }
  if (lo != NULL)
    *lo = first;
  if (hi != NULL)
    *hi = last;
  return bucket;
}
