/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-tokenizer-private.h"

/* Hugging Face's pipeline in front of a BPE model, step for step as its
 * Rust code runs it: the text between added tokens is normalised, the added
 * tokens matched in normalised text are cut out, each remaining segment goes
 * through the pre-tokenizers (each splitting the pieces of the one before),
 * and every final piece through the model. The pieces flow depth first, one
 * at a time, so nothing holds all of them at once. */

static void
normalize_step_clear (gpointer data)
{
  PlNormalizeStep *step = data;

  g_free (step->pattern);
  g_free (step->content);
  g_clear_pointer (&step->precompiled, pl_precompiled_free);
}

static void
pretokenize_step_clear (gpointer data)
{
  PlPretokenizeStep *step = data;

  g_free (step->string);
}

static void
decode_step_clear (gpointer data)
{
  PlDecodeStep *step = data;

  g_free (step->pattern);
  g_free (step->content);
}

void
pl_pipeline_init (PlTokenizer *self)
{
  self->normalizers = g_array_new (FALSE, TRUE, sizeof (PlNormalizeStep));
  g_array_set_clear_func (self->normalizers, normalize_step_clear);
  self->pretokenizers = g_array_new (FALSE, TRUE, sizeof (PlPretokenizeStep));
  g_array_set_clear_func (self->pretokenizers, pretokenize_step_clear);
  self->decoders = g_array_new (FALSE, TRUE, sizeof (PlDecodeStep));
  g_array_set_clear_func (self->decoders, decode_step_clear);
}

void
pl_pipeline_clear (PlTokenizer *self)
{
  g_clear_pointer (&self->normalizers, g_array_unref);
  g_clear_pointer (&self->pretokenizers, g_array_unref);
  g_clear_pointer (&self->decoders, g_array_unref);
}

void
pl_pipeline_use_byte_level (PlTokenizer *self,
                            gboolean     add_prefix_space)
{
  PlPretokenizeStep pre = { .kind = PL_PRETOKENIZE_BYTE_LEVEL, .add_prefix_space = add_prefix_space, .use_regex = TRUE };
  PlDecodeStep dec = { .kind = PL_DECODE_BYTE_LEVEL };

  g_array_set_size (self->pretokenizers, 0);
  g_array_set_size (self->decoders, 0);
  g_array_append_val (self->pretokenizers, pre);
  g_array_append_val (self->decoders, dec);
  self->byte_level = TRUE;
}

/* Normalizers ------------------------------------------------------------- */

static const char *
find_string (const char *p,
             const char *end,
             const char *needle,
             gsize       n)
{
  for (; (gsize) (end - p) >= n; p++)
    {
      p = memchr (p, needle[0], end - p - n + 1);
      if (p == NULL)
        return NULL;
      if (memcmp (p, needle, n) == 0)
        return p;
    }
  return NULL;
}

char *
pl_string_replace_all (const char *text,
                       gsize       len,
                       const char *pattern,
                       const char *content)
{
  gsize n = strlen (pattern);
  GString *out = g_string_sized_new (len);
  const char *end = text + len;
  const char *p = text;
  const char *hit;

  while ((hit = find_string (p, end, pattern, n)) != NULL)
    {
      g_string_append_len (out, p, hit - p);
      g_string_append (out, content);
      p = hit + n;
    }
  g_string_append_len (out, p, end - p);
  return g_string_free (out, FALSE);
}

/* Runs of two or more spaces (U+0020) by CONTENT: the Regex " {2,}" of
 * T5's, XLM-RoBERTa's and DeBERTa's Replace. */
static char *
replace_spaces (const char *text,
                gsize       len,
                const char *content)
{
  GString *out = g_string_sized_new (len);

  for (gsize i = 0; i < len;)
    {
      gsize run = 0;

      while (i + run < len && text[i + run] == ' ')
        run++;
      if (run >= 2)
        g_string_append (out, content);
      else if (run == 1)
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, text[i++]);
      i += run;
    }
  return g_string_free (out, FALSE);
}

/* Rust's char::to_lowercase, and StripAccents' filter: what Hugging Face's
 * Lowercase and StripAccents normalizers do to each character. */
static char *
lowercase (const char *text,
           gsize       len)
{
  GString *out = g_string_sized_new (len);

  for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x80)
        g_string_append_c (out, (char) g_ascii_tolower ((char) c));
      /* İ is the one character whose lower case is two (i and a combining dot) */
      else if (c == 0x130)
        g_string_append (out, "iÌ");
      else
        g_string_append_unichar (out, g_unichar_tolower (c));
    }
  return g_string_free (out, FALSE);
}

static char *
strip_accents (const char *text,
               gsize       len)
{
  GString *out = g_string_sized_new (len);

  for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
    {
      GUnicodeType type = g_unichar_type (g_utf8_get_char (p));

      if (type != G_UNICODE_NON_SPACING_MARK && type != G_UNICODE_SPACING_MARK && type != G_UNICODE_ENCLOSING_MARK)
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

static void
strip_white_space (GString  *s,
                   gboolean  left,
                   gboolean  right)
{
  gsize start = 0, end = s->len;

  while (left && start < end && pl_unichar_is_white_space (g_utf8_get_char (s->str + start)))
    start = g_utf8_next_char (s->str + start) - s->str;
  while (right && end > start)
    {
      const char *before = g_utf8_find_prev_char (s->str + start, s->str + end);

      if (before == NULL || !pl_unichar_is_white_space (g_utf8_get_char (before)))
        break;
      end = before - s->str;
    }
  g_string_truncate (s, end);
  g_string_erase (s, 0, start);
}

/* Text of code points below U+0300 is its own NFC: no character there
 * decomposes, and what could compose with one starts at U+0300. */
static gboolean
below_combining_marks (const char *text,
                       gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if ((guchar) text[i] >= 0xcc)
      return FALSE;
  return TRUE;
}

char *
pl_pipeline_normalize (PlTokenizer *self,
                       const char  *text,
                       gsize        len,
                       gsize       *out_len)
{
  GString *s;

  if (self->normalizers->len == 0)
    return NULL;
  s = g_string_new_len (text, len);
  for (guint i = 0; i < self->normalizers->len; i++)
    {
      const PlNormalizeStep *step = &g_array_index (self->normalizers, PlNormalizeStep, i);
      GNormalizeMode mode = G_NORMALIZE_NFC;
      char *normal;

      switch (step->kind)
        {
        case PL_NORMALIZE_NFC:
        case PL_NORMALIZE_NFD:
        case PL_NORMALIZE_NFKC:
        case PL_NORMALIZE_NFKD:
          mode = step->kind == PL_NORMALIZE_NFD ? G_NORMALIZE_NFD
                 : step->kind == PL_NORMALIZE_NFKC ? G_NORMALIZE_NFKC
                 : step->kind == PL_NORMALIZE_NFKD ? G_NORMALIZE_NFKD : G_NORMALIZE_NFC;
          if (mode == G_NORMALIZE_NFC && below_combining_marks (s->str, s->len))
            break;
          /* The text is valid UTF-8 here, so GLib always gives an answer. */
          normal = g_utf8_normalize (s->str, s->len, mode);
          if (normal != NULL)
            {
              g_string_assign (s, normal);
              g_free (normal);
            }
          break;
        case PL_NORMALIZE_PREPEND:
          if (s->len > 0)
            g_string_prepend (s, step->content);
          break;
        case PL_NORMALIZE_REPLACE:
          normal = pl_string_replace_all (s->str, s->len, step->pattern, step->content);
          g_string_assign (s, normal);
          g_free (normal);
          break;
        case PL_NORMALIZE_REPLACE_SPACES:
          normal = replace_spaces (s->str, s->len, step->content);
          g_string_assign (s, normal);
          g_free (normal);
          break;
        case PL_NORMALIZE_LOWERCASE:
          normal = lowercase (s->str, s->len);
          g_string_assign (s, normal);
          g_free (normal);
          break;
        case PL_NORMALIZE_STRIP_ACCENTS:
          normal = strip_accents (s->str, s->len);
          g_string_assign (s, normal);
          g_free (normal);
          break;
        case PL_NORMALIZE_STRIP:
          strip_white_space (s, step->left, step->right);
          break;
        case PL_NORMALIZE_PRECOMPILED:
          {
            GString *out = g_string_sized_new (s->len);

            pl_precompiled_normalize (step->precompiled, s->str, s->len, out);
            g_string_free (s, TRUE);
            s = out;
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }
  *out_len = s->len;
  return g_string_free (s, FALSE);
}

void
pl_pipeline_encode_piece (PlTokenizer *self,
                          const char  *text,
                          gsize        len,
                          GString     *scratch,
                          GArray      *ids)
{
  if (self->unigram != NULL)
    pl_unigram_encode_piece (self, text, len, ids);
  else
    pl_bpe_encode_piece (self, text, len, scratch, ids);
}

/* Pre-tokenizers ------------------------------------------------------------ */

typedef struct
{
  gsize    start;
  gsize    end;
  gboolean match;
} Span;

/* The state of one segment's run through the pre-tokenizers: a buffer and
 * two span lists for each step, reused from piece to piece. */
typedef struct
{
  PlTokenizer  *self;
  GArray       *ids;
  GPtrArray    *pieces;        /* instead of IDS: the pieces themselves */
  GString      *key;
  GString     **text;
  GArray      **found;
  GArray      **kept;
} Run;

static void run_step (Run        *run,
                      guint       step,
                      const char *text,
                      gsize       len,
                      gboolean    at_start);

/* Where a scanner's callback puts its spans. */
typedef struct
{
  Run        *run;
  guint       step;          /* the step the pieces go to (Isolated), or G_MAXUINT */
  const char *base;
  gboolean    at_start;
  GArray     *found;
} Sink;

static void
add_span (GArray *found, gsize start, gsize end, gboolean match)
{
  Span span = { start, end, match };

  if (start < end)
    g_array_append_val (found, span);
}

/* A piece straight to the model, from the last pre-tokenizer's scanner. */
static void
sink_model (const char *text,
            gsize       len,
            gpointer    user_data)
{
  Sink *sink = user_data;

  pl_pipeline_encode_piece (sink->run->self, text, len, sink->run->key, sink->run->ids);
}

static void
sink_span (const char *text,
           gsize       len,
           gpointer    user_data)
{
  Sink *sink = user_data;
  gsize start = text - sink->base;

  if (sink->step != G_MAXUINT)
    run_step (sink->run, sink->step, text, len, sink->at_start && start == 0);
  else
    {
      Span *last = sink->found->len > 0 ? &g_array_index (sink->found, Span, sink->found->len - 1) : NULL;
      gsize prev = last != NULL ? last->end : 0;

      add_span (sink->found, prev, start, FALSE);
      add_span (sink->found, start, start + len, TRUE);
    }
}

/* The matches of a regular expression, one by one, into SINK. */
static void
scan_regex (PlPatternKind  pattern,
            const char    *text,
            gsize          len,
            Sink          *sink)
{
  /* Pieces for the model go to it with no stop on the way. */
  PlSpanFunc func = sink->step == sink->run->self->pretokenizers->len && sink->run->pieces == NULL
                    ? sink_model : sink_span;

  if (pattern == PL_PATTERN_GPT2)
    pl_pretokenize_gpt2 (text, len, func, sink);
  else
    pl_pretokenize_tiktoken (text, len, pattern == PL_PATTERN_TIKTOKEN ? 3 : 1, func, sink);
}

/* Hugging Face's Pattern::find_matches: spans covering TEXT, each a match
 * or not, into SINK->found. */
static void
find_matches (const PlPretokenizeStep *step,
              const char              *text,
              gsize                    len,
              Sink                    *sink)
{
  const char *end = text + len;
  gsize prev = 0;

  g_array_set_size (sink->found, 0);
  switch (step->pattern)
    {
    case PL_PATTERN_STRING:
      {
        gsize n = strlen (step->string);
        const char *p = text;
        const char *hit;

        while (p < end && (hit = find_string (p, end, step->string, n)) != NULL)
          {
            add_span (sink->found, prev, hit - text, FALSE);
            add_span (sink->found, hit - text, hit - text + n, TRUE);
            prev = hit - text + n;
            p = hit + n;
          }
        break;
      }
    case PL_PATTERN_WHITE_SPACE:
      for (const char *p = text; p < end; p = g_utf8_next_char (p))
        if (pl_unichar_is_white_space (g_utf8_get_char (p)))
          {
            add_span (sink->found, prev, p - text, FALSE);
            add_span (sink->found, p - text, g_utf8_next_char (p) - text, TRUE);
            prev = g_utf8_next_char (p) - text;
          }
      break;
    case PL_PATTERN_NUMERIC:
      for (const char *p = text; p < end; p = g_utf8_next_char (p))
        if (pl_unichar_is_number (g_utf8_get_char (p)))
          {
            add_span (sink->found, prev, p - text, FALSE);
            add_span (sink->found, p - text, g_utf8_next_char (p) - text, TRUE);
            prev = g_utf8_next_char (p) - text;
          }
      break;
    case PL_PATTERN_GPT2:
    case PL_PATTERN_TIKTOKEN:
    case PL_PATTERN_TIKTOKEN_DIGIT:
      scan_regex (step->pattern, text, len, sink);
      break;
    default:
      g_assert_not_reached ();
    }
  if (sink->found->len > 0)
    prev = g_array_index (sink->found, Span, sink->found->len - 1).end;
  add_span (sink->found, prev, len, FALSE);
}

/* NormalizedString::split: which spans stay, and merged with what. */
static void
apply_behavior (PlSplitBehavior  behavior,
                const GArray    *found,
                GArray          *kept)
{
  gboolean previous_match = FALSE;

  g_array_set_size (kept, 0);
  if (behavior == PL_SPLIT_MERGED_WITH_NEXT)
    {
      /* Walked from the end: a match joins the piece after it. */
      for (guint i = found->len; i-- > 0;)
        {
          Span span = g_array_index (found, Span, i);

          if (span.match && !previous_match && kept->len > 0)
            g_array_index (kept, Span, kept->len - 1).start = span.start;
          else
            g_array_append_val (kept, span);
          previous_match = span.match;
        }
      for (guint i = 0; i < kept->len / 2; i++)
        {
          Span swap = g_array_index (kept, Span, i);

          g_array_index (kept, Span, i) = g_array_index (kept, Span, kept->len - 1 - i);
          g_array_index (kept, Span, kept->len - 1 - i) = swap;
        }
      return;
    }
  for (guint i = 0; i < found->len; i++)
    {
      Span span = g_array_index (found, Span, i);
      Span *last = kept->len > 0 ? &g_array_index (kept, Span, kept->len - 1) : NULL;

      switch (behavior)
        {
        case PL_SPLIT_ISOLATED:
          g_array_append_val (kept, span);
          break;
        case PL_SPLIT_REMOVED:
          if (!span.match)
            g_array_append_val (kept, span);
          break;
        case PL_SPLIT_CONTIGUOUS:
          if (span.match == previous_match && last != NULL)
            last->end = span.end;
          else
            g_array_append_val (kept, span);
          break;
        case PL_SPLIT_MERGED_WITH_PREVIOUS:
          if (span.match && !previous_match && last != NULL)
            last->end = span.end;
          else
            g_array_append_val (kept, span);
          break;
        case PL_SPLIT_MERGED_WITH_NEXT:
        default:
          g_assert_not_reached ();
        }
      previous_match = span.match;
    }
}

static void
split_step (Run                     *run,
            guint                    index,
            const PlPretokenizeStep *step,
            const char              *text,
            gsize                    len,
            gboolean                 at_start)
{
  Sink sink = { run, G_MAXUINT, text, at_start, run->found[index] };
  GArray *kept = run->kept[index];
  gboolean scanner = step->pattern != PL_PATTERN_STRING && step->pattern != PL_PATTERN_NUMERIC &&
                     step->pattern != PL_PATTERN_WHITE_SPACE;

  /* A regular expression that keeps every match as a piece of its own:
   * the pieces go on as the scanner finds them (its patterns match every
   * character, so there is nothing between matches). */
  if (scanner && step->behavior == PL_SPLIT_ISOLATED && !step->invert)
    {
      sink.step = index + 1;
      scan_regex (step->pattern, text, len, &sink);
      return;
    }

  find_matches (step, text, len, &sink);
  if (step->invert)
    for (guint i = 0; i < sink.found->len; i++)
      g_array_index (sink.found, Span, i).match = !g_array_index (sink.found, Span, i).match;
  apply_behavior (step->behavior, sink.found, kept);
  /* KEPT is this step's own: the steps after it use theirs. */
  for (guint i = 0; i < kept->len; i++)
    {
      Span span = g_array_index (kept, Span, i);

      if (span.end > span.start)
        run_step (run, index + 1, text + span.start, span.end - span.start, at_start && span.start == 0);
    }
}

static void
byte_level_step (Run                     *run,
                 guint                    index,
                 const PlPretokenizeStep *step,
                 const char              *text,
                 gsize                    len,
                 gboolean                 at_start)
{
  Sink sink = { run, index + 1, NULL, at_start, NULL };

  if (step->add_prefix_space && text[0] != ' ')
    {
      GString *spaced = run->text[index];

      g_string_truncate (spaced, 0);
      g_string_append_c (spaced, ' ');
      g_string_append_len (spaced, text, len);
      text = spaced->str;
      len = spaced->len;
    }
  if (!step->use_regex)
    {
      run_step (run, index + 1, text, len, at_start);
      return;
    }
  sink.base = text;
  scan_regex (PL_PATTERN_GPT2, text, len, &sink);
}

/* Spaces become the replacement, which may lead the piece. */
static void
metaspace_step (Run                     *run,
                guint                    index,
                const PlPretokenizeStep *step,
                const char              *text,
                gsize                    len,
                gboolean                 at_start)
{
  GString *out = run->text[index];
  gsize rlen = strlen (step->replacement);
  PlPretokenizeStep split = { .kind = PL_PRETOKENIZE_SPLIT, .pattern = PL_PATTERN_STRING,
                              .string = (char *) step->replacement, .behavior = PL_SPLIT_MERGED_WITH_NEXT };

  g_string_truncate (out, 0);
  for (const char *p = text; p < text + len; p++)
    if (*p == ' ')
      g_string_append_len (out, step->replacement, rlen);
    else
      g_string_append_c (out, *p);
  if ((step->prepend_scheme == PL_PREPEND_ALWAYS || (step->prepend_scheme == PL_PREPEND_FIRST && at_start)) &&
      !g_str_has_prefix (out->str, step->replacement))
    g_string_prepend (out, step->replacement);
  if (step->split)
    split_step (run, index, &split, out->str, out->len, at_start);
  else
    run_step (run, index + 1, out->str, out->len, at_start);
}

static void
run_step (Run        *run,
          guint       index,
          const char *text,
          gsize       len,
          gboolean    at_start)
{
  const PlPretokenizeStep *step;

  if (len == 0)
    return;
  if (index == run->self->pretokenizers->len)
    {
      if (run->pieces != NULL)
        {
          GString *piece = g_string_new (NULL);

          for (gsize i = 0; i < len; i++)
            if (run->self->byte_level)
              g_string_append (piece, run->self->byte_chars[(guchar) text[i]]);
            else
              g_string_append_c (piece, text[i]);
          g_ptr_array_add (run->pieces, g_string_free (piece, FALSE));
        }
      else
        pl_pipeline_encode_piece (run->self, text, len, run->key, run->ids);
      return;
    }
  step = &g_array_index (run->self->pretokenizers, PlPretokenizeStep, index);
  switch (step->kind)
    {
    case PL_PRETOKENIZE_SPLIT:
      split_step (run, index, step, text, len, at_start);
      break;
    case PL_PRETOKENIZE_BYTE_LEVEL:
      byte_level_step (run, index, step, text, len, at_start);
      break;
    case PL_PRETOKENIZE_METASPACE:
      metaspace_step (run, index, step, text, len, at_start);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
run_pretokenizers (PlTokenizer *self,
                   const char  *text,
                   gsize        len,
                   gboolean     at_start,
                   GArray      *ids,
                   GPtrArray   *pieces)
{
  guint n = self->pretokenizers->len;
  Run run = { self, ids, pieces, g_string_sized_new (64), g_new0 (GString *, n + 1), g_new0 (GArray *, n + 1),
              g_new0 (GArray *, n + 1) };

  for (guint i = 0; i < n; i++)
    {
      run.text[i] = g_string_new (NULL);
      run.found[i] = g_array_new (FALSE, FALSE, sizeof (Span));
      run.kept[i] = g_array_new (FALSE, FALSE, sizeof (Span));
    }
  run_step (&run, 0, text, len, at_start);
  for (guint i = 0; i < n; i++)
    {
      g_string_free (run.text[i], TRUE);
      g_array_unref (run.found[i]);
      g_array_unref (run.kept[i]);
    }
  g_free (run.text);
  g_free (run.found);
  g_free (run.kept);
  g_string_free (run.key, TRUE);
}

static void
pretokenize_segment (PlTokenizer *self,
                     const char  *text,
                     gsize        len,
                     gboolean     at_start,
                     GArray      *ids)
{
  run_pretokenizers (self, text, len, at_start, ids, NULL);
}

void
pl_pipeline_encode (PlTokenizer *self,
                    const char  *text,
                    gsize        len,
                    gboolean     at_start,
                    GArray      *ids)
{
  g_autofree char *normal = NULL;

  if ((normal = pl_pipeline_normalize (self, text, len, &len)) != NULL)
    text = normal;
  if (self->added_normalized.tokens->len == 0)
    pretokenize_segment (self, text, len, at_start, ids);
  else
    pl_tokenizer_split_added (self, &self->added_normalized, text, len, at_start, pretokenize_segment, ids);
}

GPtrArray *
pl_pipeline_pieces (PlTokenizer *self,
                    const char  *text)
{
  GPtrArray *pieces = g_ptr_array_new_with_free_func (g_free);
  gsize len = strlen (text);
  g_autofree char *normal = pl_pipeline_normalize (self, text, len, &len);

  run_pretokenizers (self, normal != NULL ? normal : text, len, TRUE, NULL, pieces);
  return pieces;
}
