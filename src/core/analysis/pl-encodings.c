/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "pl-encodings.h"
#include "pl-error.h"

#define DEFAULT_BASE 10000.0
/* Far beyond any context a model was trained for; keeps LENGTH×WIDTH sane. */
#define MAX_LENGTH   (1u << 20)
#define MAX_WIDTH    (1u << 16)
#define MAX_HEADS    4096u
#define MAX_GRID_SIDE 4096u

static gboolean
parse_count (const char  *spec,
             const char  *text,
             const char  *what,
             guint        max,
             guint       *out,
             GError     **error)
{
  guint64 v = 0;

  if (!g_ascii_string_to_unsigned (text, 10, 1, max, &v, NULL))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s”: the %s “%s” is not a whole number from 1 to %u",
                   spec, what, text, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_base (const char  *spec,
            const char  *text,
            double      *base,
            GError     **error)
{
  char *end = NULL;

  *base = g_ascii_strtod (text, &end);
  if (text[0] == '\0' || *end != '\0' || !isfinite (*base) || *base <= 1.0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s”: the base “%s” must be a number greater than 1", spec, text);
      return FALSE;
    }
  return TRUE;
}

/* "LENGTHxWIDTH" */
static gboolean
parse_size (const char  *spec,
            const char  *text,
            const char  *second,
            guint        max_second,
            guint       *length,
            guint       *other,
            GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text, "x", -1);

  if (g_strv_length (parts) != 2)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s”: expected LENGTHx%s, e.g. 512x%s", spec, second,
                   g_str_equal (second, "HEADS") ? "12" : "768");
      return FALSE;
    }
  return parse_count (spec, parts[0], "length", MAX_LENGTH, length, error) &&
         parse_count (spec, parts[1], g_str_equal (second, "HEADS") ? "number of heads" : "width",
                      max_second, other, error);
}

gboolean
pl_encoding_spec_parse (const char      *spec,
                        PlEncodingSpec  *out,
                        GError         **error)
{
  g_auto(GStrv) parts = NULL;
  PlEncodingSpec s = { 0 };
  guint n;

  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  s.base = DEFAULT_BASE;
  if (!g_str_has_prefix (spec, "builtin:"))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s” is not an analytic encoding: those are named builtin:KIND:…", spec);
      return FALSE;
    }

  parts = g_strsplit (spec + strlen ("builtin:"), ":", -1);
  n = g_strv_length (parts);
  if (n < 2)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s”: expected builtin:KIND:SIZE, e.g. builtin:sinusoidal:512x768", spec);
      return FALSE;
    }

  if (g_str_equal (parts[0], "sinusoidal") || g_str_equal (parts[0], "rope"))
    {
      s.kind = g_str_equal (parts[0], "rope") ? PL_ENCODING_ROPE : PL_ENCODING_SINUSOIDAL;
      if (n > 3)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: expected builtin:%s:LENGTHxWIDTH[:BASE]", spec, parts[0]);
          return FALSE;
        }
      if (!parse_size (spec, parts[1], "WIDTH", MAX_WIDTH, &s.length, &s.width, error))
        return FALSE;
      if (s.kind == PL_ENCODING_ROPE && s.width % 2 != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: RoPE rotates pairs of dimensions, so the width must be even", spec);
          return FALSE;
        }
      if (n == 3 && !parse_base (spec, parts[2], &s.base, error))
        return FALSE;
    }
  else if (g_str_equal (parts[0], "sincos2d"))
    {
      g_auto(GStrv) dims = g_strsplit (parts[1], "x", -1);

      s.kind = PL_ENCODING_SINCOS2D;
      if (n > 3 || g_strv_length (dims) != 3)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: expected builtin:sincos2d:ROWSxCOLSxWIDTH[:BASE], e.g. builtin:sincos2d:14x14x768",
                       spec);
          return FALSE;
        }
      if (!parse_count (spec, dims[0], "number of rows", MAX_GRID_SIDE, &s.rows, error) ||
          !parse_count (spec, dims[1], "number of columns", MAX_GRID_SIDE, &s.cols, error) ||
          !parse_count (spec, dims[2], "width", MAX_WIDTH, &s.width, error))
        return FALSE;
      if (s.width % 4 != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: the width %u is not a multiple of 4: half of it encodes the row and half the "
                       "column, each in sines and cosines", spec, s.width);
          return FALSE;
        }
      if ((guint64) s.rows * s.cols > MAX_LENGTH)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: %u × %u patches are more than %u", spec, s.rows, s.cols, MAX_LENGTH);
          return FALSE;
        }
      s.length = s.rows * s.cols;
      if (n == 3 && !parse_base (spec, parts[2], &s.base, error))
        return FALSE;
    }
  else if (g_str_equal (parts[0], "alibi"))
    {
      s.kind = PL_ENCODING_ALIBI;
      if (n != 2)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: expected builtin:alibi:LENGTHxHEADS", spec);
          return FALSE;
        }
      if (!parse_size (spec, parts[1], "HEADS", MAX_HEADS, &s.length, &s.heads, error))
        return FALSE;
    }
  else if (g_str_equal (parts[0], "none"))
    {
      s.kind = PL_ENCODING_NONE;
      if (n != 2)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "“%s”: expected builtin:none:LENGTH", spec);
          return FALSE;
        }
      if (!parse_count (spec, parts[1], "length", MAX_LENGTH, &s.length, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "“%s”: unknown encoding “%s”; use sinusoidal, rope, alibi, none or sincos2d",
                   spec, parts[0]);
      return FALSE;
    }

  *out = s;
  return TRUE;
}

char *
pl_encoding_spec_describe (const PlEncodingSpec *spec)
{
  g_autofree char *base = NULL;

  g_return_val_if_fail (spec != NULL, NULL);

  if (spec->base != DEFAULT_BASE)
    base = g_strdup_printf (_(", base %g"), spec->base);

  switch (spec->kind)
    {
    case PL_ENCODING_SINUSOIDAL:
      /* Translators: the last %s is empty or ", base 500" */
      return g_strdup_printf (_("Sinusoidal %u × %u%s"), spec->length, spec->width, base ? base : "");
    case PL_ENCODING_ROPE:
      return g_strdup_printf (_("Rotary (RoPE) %u × %u%s"), spec->length, spec->width, base ? base : "");
    case PL_ENCODING_ALIBI:
      return g_strdup_printf (_("ALiBi %u positions, %u heads"), spec->length, spec->heads);
    case PL_ENCODING_NONE:
      return g_strdup_printf (_("No position encoding, %u positions"), spec->length);
    case PL_ENCODING_SINCOS2D:
      /* Translators: rows × columns of patches × width; the last %s is empty or ", base 500" */
      return g_strdup_printf (_("2-D sine–cosine %u × %u × %u%s"), spec->rows, spec->cols, spec->width,
                              base ? base : "");
    default:
      g_return_val_if_reached (NULL);
    }
}

void
pl_encoding_rope_frequencies (guint   width,
                              double  base,
                              double *out)
{
  g_return_if_fail (out != NULL || width < 2);

  for (guint k = 0; k < width / 2; k++)
    out[k] = pow (base, -2.0 * k / width);
}

PlMatrix *
pl_encoding_sinusoidal (guint  length,
                        guint  width,
                        double base)
{
  PlMatrix *pe = pl_matrix_new (length, width);
  g_autofree double *freq = g_new (double, width / 2 + 1);

  /* Odd widths end on a sine column with the next frequency. */
  for (guint k = 0; k < width / 2 + 1; k++)
    freq[k] = pow (base, -2.0 * k / width);

  for (guint p = 0; p < length; p++)
    {
      float *row = pl_matrix_row (pe, p);

      for (guint c = 0; c < width; c++)
        {
          double angle = p * freq[c / 2];
          row[c] = (float) (c % 2 == 0 ? sin (angle) : cos (angle));
        }
    }
  return pe;
}

/* One 1-D half of the 2-D table: QUARTER sines of p·ω_k, then QUARTER
 * cosines, from OUT on. */
static void
sincos_half (float        *out,
             double        p,
             const double *omega,
             guint         quarter)
{
  for (guint k = 0; k < quarter; k++)
    {
      out[k] = (float) sin (p * omega[k]);
      out[quarter + k] = (float) cos (p * omega[k]);
    }
}

PlMatrix *
pl_encoding_sincos2d (guint  rows,
                      guint  cols,
                      guint  width,
                      double base)
{
  PlMatrix *pe;
  guint quarter = width / 4;
  g_autofree double *omega = g_new (double, quarter + 1);

  g_return_val_if_fail (width % 4 == 0, NULL);

  pe = pl_matrix_new ((gsize) rows * cols, width);
  for (guint k = 0; k < quarter; k++)
    omega[k] = 1.0 / pow (base, (double) k / quarter);
  for (guint r = 0; r < rows; r++)
    for (guint c = 0; c < cols; c++)
      {
        float *row = pl_matrix_row (pe, (gsize) r * cols + c);

        sincos_half (row, c, omega, quarter);
        sincos_half (row + width / 2, r, omega, quarter);
      }
  return pe;
}

static PlMatrix *
rope_phases (guint  length,
             guint  width,
             double base)
{
  PlMatrix *t = pl_matrix_new (length, width);
  g_autofree double *theta = g_new (double, width / 2 + 1);

  pl_encoding_rope_frequencies (width, base, theta);
  for (guint p = 0; p < length; p++)
    {
      float *row = pl_matrix_row (t, p);

      for (guint k = 0; k < width / 2; k++)
        {
          row[2 * k] = (float) cos (p * theta[k]);
          row[2 * k + 1] = (float) sin (p * theta[k]);
        }
    }
  return t;
}

PlMatrix *
pl_encoding_table (const PlEncodingSpec  *spec,
                   GError               **error)
{
  g_return_val_if_fail (spec != NULL, NULL);

  if ((spec->kind == PL_ENCODING_SINUSOIDAL || spec->kind == PL_ENCODING_ROPE ||
       spec->kind == PL_ENCODING_SINCOS2D) &&
      (gsize) spec->length * spec->width > ((gsize) 1 << 30))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "a %u × %u table is too large to compute; choose a shorter length or width",
                   spec->length, spec->width);
      return NULL;
    }

  switch (spec->kind)
    {
    case PL_ENCODING_SINUSOIDAL:
      return pl_encoding_sinusoidal (spec->length, spec->width, spec->base);
    case PL_ENCODING_ROPE:
      return rope_phases (spec->length, spec->width, spec->base);
    case PL_ENCODING_SINCOS2D:
      return pl_encoding_sincos2d (spec->rows, spec->cols, spec->width, spec->base);
    case PL_ENCODING_ALIBI:
      g_set_error_literal (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                           "ALiBi has no position table: it adds a bias to attention scores by distance");
      return NULL;
    case PL_ENCODING_NONE:
      g_set_error_literal (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                           "a model without position encoding has no position table");
      return NULL;
    default:
      g_return_val_if_reached (NULL);
    }
}

PlMatrix *
pl_encoding_rope_scores (const float *q,
                         const float *k,
                         guint        width,
                         double       base,
                         int          min_offset,
                         int          max_offset)
{
  g_autofree double *theta = NULL;
  g_autofree double *cos_part = NULL;
  g_autofree double *sin_part = NULL;
  PlMatrix *scores;
  guint half = width / 2;

  g_return_val_if_fail (q != NULL && k != NULL, NULL);
  g_return_val_if_fail (width % 2 == 0, NULL);
  g_return_val_if_fail (min_offset <= max_offset, NULL);

  /* Per pair, q·R(φ)k = (q0 k0 + q1 k1) cos φ + (q1 k0 − q0 k1) sin φ. */
  theta = g_new (double, half + 1);
  cos_part = g_new (double, half + 1);
  sin_part = g_new (double, half + 1);
  pl_encoding_rope_frequencies (width, base, theta);
  for (guint p = 0; p < half; p++)
    {
      cos_part[p] = (double) q[2 * p] * k[2 * p] + (double) q[2 * p + 1] * k[2 * p + 1];
      sin_part[p] = (double) q[2 * p + 1] * k[2 * p] - (double) q[2 * p] * k[2 * p + 1];
    }

  scores = pl_matrix_new (1, (gsize) ((gint64) max_offset - min_offset + 1));
  for (gint64 off = min_offset; off <= max_offset; off++)
    {
      double s = 0;

      for (guint p = 0; p < half; p++)
        {
          double phi = (double) off * theta[p];
          s += cos_part[p] * cos (phi) + sin_part[p] * sin (phi);
        }
      scores->data[off - min_offset] = (float) s;
    }
  return scores;
}

static void
alibi_slopes_pow2 (guint   n,
                   double *out)
{
  for (guint h = 0; h < n; h++)
    out[h] = exp2 (-8.0 * (h + 1) / n);
}

void
pl_encoding_alibi_slopes (guint   heads,
                          double *out)
{
  guint lower;

  g_return_if_fail (out != NULL || heads == 0);
  if (heads == 0)
    return;

  lower = 1;
  while (lower * 2 <= heads)
    lower *= 2;
  alibi_slopes_pow2 (lower, out);
  if (lower < heads)
    {
      /* As in the reference implementation: every other slope (0, 2, 4, …)
       * of twice the power, as many as are missing. */
      g_autofree double *twice = g_new (double, 2 * lower);

      alibi_slopes_pow2 (2 * lower, twice);
      for (guint h = lower; h < heads; h++)
        out[h] = twice[2 * (h - lower)];
    }
}

PlMatrix *
pl_encoding_alibi_bias (guint heads,
                        guint length)
{
  g_autofree double *slopes = g_new (double, MAX (heads, 1));
  PlMatrix *bias = pl_matrix_new (heads, length);

  pl_encoding_alibi_slopes (heads, slopes);
  for (guint h = 0; h < heads; h++)
    for (guint d = 0; d < length; d++)
      bias->data[(gsize) h * length + d] = (float) (-slopes[h] * d);
  return bias;
}
