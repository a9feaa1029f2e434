/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-tokenizer-private.h"

/* Unicode's extended grapheme clusters (UAX #29), as Rust's
 * unicode-segmentation cuts them for Hugging Face's Precompiled normalizer,
 * with GLib's character tables for the properties. The normalizer treats a
 * cluster whole only when it is under 6 bytes, so what matters is where
 * short clusters end: a base and its marks, CR LF, Hangul jamo; emoji
 * sequences (GB11) and Indic conjuncts (GB9c) are longer than that and
 * never change the result. */

typedef enum
{
  GB_OTHER,
  GB_CR,
  GB_LF,
  GB_CONTROL,
  GB_EXTEND,
  GB_ZWJ,
  GB_REGIONAL,
  GB_PREPEND,
  GB_SPACING_MARK,
  GB_L,
  GB_V,
  GB_T,
  GB_LV,
  GB_LVT,
  GB_PICTOGRAPHIC,
} Break;

typedef struct
{
  gunichar first;
  gunichar last;
} Range;

/* Other_Grapheme_Extend, marks of category Mc and others that extend */
static const Range extend_ranges[] = {
  { 0x09be, 0x09be }, { 0x09d7, 0x09d7 }, { 0x0b3e, 0x0b3e }, { 0x0b57, 0x0b57 }, { 0x0bbe, 0x0bbe },
  { 0x0bd7, 0x0bd7 }, { 0x0cc2, 0x0cc2 }, { 0x0cd5, 0x0cd6 }, { 0x0d3e, 0x0d3e }, { 0x0d57, 0x0d57 },
  { 0x0dcf, 0x0dcf }, { 0x0ddf, 0x0ddf }, { 0x1b35, 0x1b35 }, { 0x200c, 0x200c }, { 0x302e, 0x302f },
  { 0xff9e, 0xff9f }, { 0x1133e, 0x1133e }, { 0x11357, 0x11357 }, { 0x114b0, 0x114b0 }, { 0x114bd, 0x114bd },
  { 0x115af, 0x115af }, { 0x11930, 0x11930 }, { 0x1d165, 0x1d165 }, { 0x1d16e, 0x1d172 },
  { 0x1f3fb, 0x1f3ff }, { 0xe0020, 0xe007f },
};

static const Range prepend_ranges[] = {
  { 0x0600, 0x0605 }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 },
  { 0x0d4e, 0x0d4e }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x111c2, 0x111c3 }, { 0x1193f, 0x1193f },
  { 0x11941, 0x11941 }, { 0x11a3a, 0x11a3a }, { 0x11a84, 0x11a89 }, { 0x11d46, 0x11d46 }, { 0x11f02, 0x11f02 },
};

/* Spacing marks (Mc) that break as Other */
static const Range not_spacing_ranges[] = {
  { 0x102b, 0x102c }, { 0x1038, 0x1038 }, { 0x1062, 0x1064 }, { 0x1067, 0x106d }, { 0x1083, 0x1083 },
  { 0x1087, 0x108c }, { 0x108f, 0x108f }, { 0x109a, 0x109c }, { 0x1a61, 0x1a61 }, { 0x1a63, 0x1a64 },
  { 0xaa7b, 0xaa7b }, { 0xaa7d, 0xaa7d }, { 0x11720, 0x11721 },
};

/* Extended_Pictographic, in ranges wide enough for GB11 */
static const Range pictographic_ranges[] = {
  { 0x00a9, 0x00a9 }, { 0x00ae, 0x00ae }, { 0x203c, 0x203c }, { 0x2049, 0x2049 }, { 0x2122, 0x2122 },
  { 0x2139, 0x2139 }, { 0x2194, 0x2199 }, { 0x21a9, 0x21aa }, { 0x231a, 0x231b }, { 0x2328, 0x2328 },
  { 0x2388, 0x2388 }, { 0x23cf, 0x23cf }, { 0x23e9, 0x23f3 }, { 0x23f8, 0x23fa }, { 0x24c2, 0x24c2 },
  { 0x25aa, 0x25ab }, { 0x25b6, 0x25b6 }, { 0x25c0, 0x25c0 }, { 0x25fb, 0x25fe }, { 0x2600, 0x2605 },
  { 0x2607, 0x2612 }, { 0x2614, 0x2685 }, { 0x2690, 0x2705 }, { 0x2708, 0x2712 }, { 0x2714, 0x2714 },
  { 0x2716, 0x2716 }, { 0x271d, 0x271d }, { 0x2721, 0x2721 }, { 0x2728, 0x2728 }, { 0x2733, 0x2734 },
  { 0x2744, 0x2744 }, { 0x2747, 0x2747 }, { 0x274c, 0x274c }, { 0x274e, 0x274e }, { 0x2753, 0x2755 },
  { 0x2757, 0x2757 }, { 0x2763, 0x2767 }, { 0x2795, 0x2797 }, { 0x27a1, 0x27a1 }, { 0x27b0, 0x27b0 },
  { 0x27bf, 0x27bf }, { 0x2934, 0x2935 }, { 0x2b05, 0x2b07 }, { 0x2b1b, 0x2b1c }, { 0x2b50, 0x2b50 },
  { 0x2b55, 0x2b55 }, { 0x3030, 0x3030 }, { 0x303d, 0x303d }, { 0x3297, 0x3297 }, { 0x3299, 0x3299 },
  { 0x1f000, 0x1f0ff }, { 0x1f10d, 0x1f10f }, { 0x1f12f, 0x1f12f }, { 0x1f16c, 0x1f171 }, { 0x1f17e, 0x1f17f },
  { 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a }, { 0x1f1ad, 0x1f1e5 }, { 0x1f201, 0x1f20f }, { 0x1f21a, 0x1f21a },
  { 0x1f22f, 0x1f22f }, { 0x1f232, 0x1f23a }, { 0x1f23c, 0x1f23f }, { 0x1f249, 0x1f3fa }, { 0x1f400, 0x1f53d },
  { 0x1f546, 0x1f64f }, { 0x1f680, 0x1f6ff }, { 0x1f774, 0x1f77f }, { 0x1f7d5, 0x1f7ff }, { 0x1f80c, 0x1f80f },
  { 0x1f848, 0x1f84f }, { 0x1f85a, 0x1f85f }, { 0x1f888, 0x1f88f }, { 0x1f8ae, 0x1f8ff }, { 0x1f90c, 0x1f93a },
  { 0x1f93c, 0x1f945 }, { 0x1f947, 0x1faff }, { 0x1fc00, 0x1fffd },
};

static gboolean
in_ranges (gunichar     c,
           const Range *ranges,
           guint        n)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (c < ranges[mid].first)
        hi = mid;
      else if (c > ranges[mid].last)
        lo = mid + 1;
      else
        return TRUE;
    }
  return FALSE;
}

static Break
break_of (gunichar c)
{
  GUnicodeType type;

  if (c < 0x80)
    return c == '\r' ? GB_CR : c == '\n' ? GB_LF : c < 0x20 || c == 0x7f ? GB_CONTROL : GB_OTHER;
  if (c == 0x200d)
    return GB_ZWJ;
  if (c >= 0x1f1e6 && c <= 0x1f1ff)
    return GB_REGIONAL;
  if (in_ranges (c, extend_ranges, G_N_ELEMENTS (extend_ranges)))
    return GB_EXTEND;
  if (in_ranges (c, prepend_ranges, G_N_ELEMENTS (prepend_ranges)))
    return GB_PREPEND;
  if (c == 0x0e33 || c == 0x0eb3)
    return GB_SPACING_MARK;
  switch (g_unichar_break_type (c))
    {
    case G_UNICODE_BREAK_HANGUL_L_JAMO: return GB_L;
    case G_UNICODE_BREAK_HANGUL_V_JAMO: return GB_V;
    case G_UNICODE_BREAK_HANGUL_T_JAMO: return GB_T;
    case G_UNICODE_BREAK_HANGUL_LV_SYLLABLE: return GB_LV;
    case G_UNICODE_BREAK_HANGUL_LVT_SYLLABLE: return GB_LVT;
    default: break;
    }
  type = g_unichar_type (c);
  switch (type)
    {
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
      return GB_EXTEND;
    case G_UNICODE_SPACING_MARK:
      return in_ranges (c, not_spacing_ranges, G_N_ELEMENTS (not_spacing_ranges)) ? GB_OTHER : GB_SPACING_MARK;
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
      return GB_CONTROL;
    default:
      break;
    }
  return in_ranges (c, pictographic_ranges, G_N_ELEMENTS (pictographic_ranges)) ? GB_PICTOGRAPHIC : GB_OTHER;
}

gsize
pl_grapheme_end (const char *text,
                 gsize       len)
{
  const char *p = text, *end = text + len;
  Break prev;
  gboolean pictographic_zwj = FALSE;  /* ExtPict Extend* ZWJ just seen (GB11) */
  gboolean in_pictographic = FALSE;   /* ExtPict Extend* so far */
  guint regional = 0;                 /* regional indicators in a row */

  if (len == 0)
    return 0;
  prev = break_of (g_utf8_get_char (p));
  in_pictographic = prev == GB_PICTOGRAPHIC;
  regional = prev == GB_REGIONAL;
  p = g_utf8_next_char (p);
  while (p < end)
    {
      Break next = break_of (g_utf8_get_char (p));
      gboolean join;

      if (prev == GB_CR && next == GB_LF)
        join = TRUE;
      else if (prev == GB_CR || prev == GB_LF || prev == GB_CONTROL ||
               next == GB_CR || next == GB_LF || next == GB_CONTROL)
        join = FALSE;
      else if (prev == GB_L && (next == GB_L || next == GB_V || next == GB_LV || next == GB_LVT))
        join = TRUE;
      else if ((prev == GB_LV || prev == GB_V) && (next == GB_V || next == GB_T))
        join = TRUE;
      else if ((prev == GB_LVT || prev == GB_T) && next == GB_T)
        join = TRUE;
      else if (next == GB_EXTEND || next == GB_ZWJ || next == GB_SPACING_MARK || prev == GB_PREPEND)
        join = TRUE;
      else if (pictographic_zwj && next == GB_PICTOGRAPHIC)
        join = TRUE;
      else if (prev == GB_REGIONAL && next == GB_REGIONAL && regional % 2 == 1)
        join = TRUE;
      else
        join = FALSE;
      if (!join)
        break;
      pictographic_zwj = in_pictographic && next == GB_ZWJ;
      in_pictographic = (in_pictographic && next == GB_EXTEND) || next == GB_PICTOGRAPHIC;
      regional = next == GB_REGIONAL ? regional + 1 : 0;
      prev = next;
      p = g_utf8_next_char (p);
    }
  return MIN (p, end) - text;
}
