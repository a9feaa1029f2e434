/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#ifdef HAVE_POPPLER_GLIB
#include <poppler.h>

/* Poppler 22 declares no cleanups of its own. */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PopplerDocument, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PopplerPage, g_object_unref)
#endif

#include "pl-encodings.h"
#include "pl-figure-preset.h"
#include "pl-grid.h"
#include "pl-paper.h"
#include "pl-test-util.h"
#include "test-figure-util.h"
#include "test-figure-layout-kinds.h"

/* The figure-layout contract (pl-figure.h) for every figure kind at every
 * export preset: each kind of the table in test-figure-layout-kinds.c,
 * built as the window or the command line builds it, exported as PDF at
 * 3.3 in, 7 in and a 16:9 slide, in the sans and the serif face. The PDF is
 * read back with poppler (its text, each character's box and font size at
 * the page's scale) and checked on its own: every word at least 6.5 pt,
 * inside the page, none overlapping another; and the renderer's layout of
 * the same page (pl_figure_check_layout) is checked for the rest: panels
 * inside the page, apart, the same size, texts inside their panels, titles
 * at most 1.3 × the axis titles. */

static const char *families[] = { "Cantarell, Sans", "Latin Modern Roman, CMU Serif, TeX Gyre Termes, Liberation Serif, "
                                  "DejaVu Serif, Serif" };

typedef struct
{
  const PlLayoutKind *kind;
  PlFigurePreset      preset;
  guint               family;
} Case;

#ifdef HAVE_POPPLER_GLIB
/* A word of the PDF: its text, the box of its characters and their smallest size. */
typedef struct
{
  GString          *text;
  PopplerRectangle  box;
  double            size;
} Word;

static void
word_clear (gpointer data)
{
  Word *word = data;

  g_string_free (word->text, TRUE);
}

/* Whether character box B continues the word of the character before it,
 * box A at SIZE: they touch, as letters of one word do across or, turned,
 * down the page (poppler joins texts of one line that have no space in
 * between, however far apart). */
static gboolean
continues (const PopplerRectangle *a,
           const PopplerRectangle *b,
           double                  size)
{
  double gap_x = MAX (0, MAX (b->x1 - a->x2, a->x1 - b->x2));
  double gap_y = MAX (0, MAX (b->y1 - a->y2, a->y1 - b->y2));

  return gap_x <= 0.2 * size && gap_y <= 0.2 * size;
}

/* The words on the first page of PDF, split at white space and between
 * characters apart; its size in WIDTH and HEIGHT. */
static GArray *
read_words (const char *pdf,
            double     *width,
            double     *height)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_filename_to_uri (pdf, NULL, &error);
  g_autoptr(PopplerDocument) document = NULL;
  g_autoptr(PopplerPage) page = NULL;
  g_autofree char *text = NULL;
  g_autofree PopplerRectangle *rects = NULL;
  GList *attributes;
  guint n_rects = 0;
  g_autofree double *sizes = NULL;
  GArray *words = g_array_new (FALSE, TRUE, sizeof (Word));
  Word *word = NULL;
  const char *p;
  guint i;

  g_assert_no_error (error);
  document = poppler_document_new_from_file (uri, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (poppler_document_get_n_pages (document), ==, 1);
  page = poppler_document_get_page (document, 0);
  poppler_page_get_size (page, width, height);
  text = poppler_page_get_text (page);
  g_assert_true (poppler_page_get_text_layout (page, &rects, &n_rects));
  g_assert_cmpuint (n_rects, ==, g_utf8_strlen (text, -1));
  sizes = g_new0 (double, n_rects);
  attributes = poppler_page_get_text_attributes (page);
  for (GList *l = attributes; l != NULL; l = l->next)
    {
      PopplerTextAttributes *a = l->data;

      for (int c = a->start_index; c <= a->end_index && c < (int) n_rects; c++)
        sizes[c] = a->font_size;
    }
  poppler_page_free_text_attributes (attributes);

  g_array_set_clear_func (words, word_clear);
  for (p = text, i = 0; *p != '\0' && i < n_rects; p = g_utf8_next_char (p), i++)
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c))
        {
          word = NULL;
          continue;
        }
      if (word != NULL && (!continues (&rects[i - 1], &rects[i], sizes[i]) || sizes[i] != sizes[i - 1]))
        word = NULL;
      if (word == NULL)
        {
          Word fresh = { g_string_new (NULL), rects[i], sizes[i] };

          g_array_append_val (words, fresh);
          word = &g_array_index (words, Word, words->len - 1);
        }
      g_string_append_unichar (word->text, c);
      word->box.x1 = MIN (word->box.x1, rects[i].x1);
      word->box.y1 = MIN (word->box.y1, rects[i].y1);
      word->box.x2 = MAX (word->box.x2, rects[i].x2);
      word->box.y2 = MAX (word->box.y2, rects[i].y2);
      word->size = MIN (word->size, sizes[i]);
    }
  return words;
}

/* Poppler's boxes run from the font's ascent to its descent, taller than
 * the ink and than pango's line: shrunk by a fifth of the size on every
 * side, two boxes that still meet hold text drawn over text. */
static gboolean
words_overlap (const Word *a,
               const Word *b)
{
  double ma = 0.2 * a->size, mb = 0.2 * b->size;

  return MIN (a->box.x2 - ma, b->box.x2 - mb) > MAX (a->box.x1 + ma, b->box.x1 + mb) &&
         MIN (a->box.y2 - ma, b->box.y2 - mb) > MAX (a->box.y1 + ma, b->box.y1 + mb);
}

static char *
without_spaces (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      g_string_append_unichar (out, g_utf8_get_char (p));
  return g_string_free (out, FALSE);
}

/* The PDF's own account: every word large enough, on the page and apart,
 * and every text the renderer laid out there to read (poppler leaves out
 * what lies off the page); what is not said in PROBLEMS. Returns the
 * smallest size. */
static double
check_pdf (const char *pdf,
           double      width,
           double      height,
           PlFigure   *figure,
           GString    *problems)
{
  double page_w, page_h, smallest = INFINITY;
  g_autoptr(GArray) words = read_words (pdf, &page_w, &page_h);
  g_autoptr(GString) all = g_string_new (NULL);
  const PlLayoutItem *items;
  guint n;

  g_assert_cmpfloat_with_epsilon (page_w, width, 0.01);
  g_assert_cmpfloat_with_epsilon (page_h, height, 0.01);
  g_assert_cmpuint (words->len, >, 0);
  for (guint i = 0; i < words->len; i++)
    {
      const Word *w = &g_array_index (words, Word, i);
      double m = 0.2 * w->size;

      smallest = MIN (smallest, w->size);
      if (w->size < PL_FIGURE_MIN_TEXT_PT - 1e-3)
        g_string_append_printf (problems, "\n  “%s” is %.2f pt in the PDF", w->text->str, w->size);
      if (w->box.x1 + m < 0 || w->box.y1 + m < 0 || w->box.x2 - m > page_w || w->box.y2 - m > page_h)
        g_string_append_printf (problems, "\n  “%s” (%.1f, %.1f – %.1f, %.1f) is outside the %.1f × %.1f page in the PDF",
                                w->text->str, w->box.x1, w->box.y1, w->box.x2, w->box.y2, page_w, page_h);
      for (guint j = i + 1; j < words->len; j++)
        {
          const Word *v = &g_array_index (words, Word, j);

          if (words_overlap (w, v))
            g_string_append_printf (problems, "\n  “%s” (%.1f, %.1f – %.1f, %.1f) overlaps “%s” (%.1f, %.1f – %.1f, %.1f) "
                                    "in the PDF", w->text->str, w->box.x1, w->box.y1, w->box.x2, w->box.y2,
                                    v->text->str, v->box.x1, v->box.y1, v->box.x2, v->box.y2);
        }
      g_string_append (all, w->text->str);
    }
  items = pl_figure_get_layout (figure, &n, NULL, NULL);
  for (guint i = 0; i < n; i++)
    if (items[i].text != NULL)
      {
        g_autofree char *text = without_spaces (items[i].text);

        if (strstr (all->str, text) == NULL)
          g_string_append_printf (problems, "\n  “%s” is not in the PDF's text", items[i].text);
      }
  return smallest;
}
#endif

static const char *role_names[] = { "text", "title", "axis title", "caption", "panel", "plot" };

static void
test_kind_at_preset (gconstpointer data)
{
  const Case *c = data;
  const PlFigurePresetInfo *info = pl_figure_preset_get (c->preset);
  g_autoptr(PlFigure) figure = c->kind->build ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("poslens-layout-XXXXXX", &error);
  g_autofree char *pdf = NULL;
  g_autofree char *path = g_strdup_printf ("%s/%s/%s", c->kind->name, info->name, c->family ? "serif" : "sans");
  g_autoptr(GString) problems = g_string_new (NULL);
  cairo_surface_t *surface;
  cairo_t *cr;
  double width, height, smallest_pdf = 0, smallest;
  PlLayoutRole role = PL_LAYOUT_TEXT;

  g_assert_no_error (error);
  pl_figure_set_font (figure, families[c->family], 0);
  pl_figure_apply_preset (figure, c->preset, &width, &height);
  g_assert_cmpfloat_with_epsilon (width, info->width, 1e-9);
  if (info->height > 0)
    g_assert_cmpfloat_with_epsilon (height, info->height, 1e-9);

  /* The renderer's account of the page. */
  surface = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, &(cairo_rectangle_t) { 0, 0, width, height });
  cr = cairo_create (surface);
  pl_figure_render (figure, cr, width, height);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  /* The PDF's, from the file the export writes. */
  pdf = g_build_filename (dir, "figure.pdf", NULL);
  g_assert_true (pl_figure_export (figure, pdf, width, height, 72, &error));
  g_assert_no_error (error);
#ifdef HAVE_POPPLER_GLIB
  smallest_pdf = check_pdf (pdf, width, height, figure, problems);
#else
  g_string_append (problems, "\n  poppler-glib was not found when the tests were built: the PDF is not read back "
                   "(./build-aux/setup.sh test installs libpoppler-glib-dev and configures again)");
#endif
  /* POSLENS_TEST_KEEP_PDF=DIR keeps them, as DIR/KIND/PRESET/FACE.pdf, to look at. */
  if (g_getenv ("POSLENS_TEST_KEEP_PDF") != NULL)
    {
      g_autofree char *kept = g_strdup_printf ("%s/%s.pdf", g_getenv ("POSLENS_TEST_KEEP_PDF"), path);
      g_autofree char *kept_dir = g_path_get_dirname (kept);

      g_assert_cmpint (g_mkdir_with_parents (kept_dir, 0755), ==, 0);
      g_assert_cmpint (g_rename (pdf, kept), ==, 0);
    }
  g_unlink (pdf);
  g_rmdir (dir);

  if (!pl_figure_check_layout (figure, PL_FIGURE_MIN_TEXT_PT, &error))
    g_string_append_printf (problems, "\n  %s", error->message);
  smallest = pl_figure_get_min_text_size (figure, &role);
  g_test_message ("%s: %.0f × %.0f pt, smallest text %.2f pt in the PDF, %.2f pt laid out (%s)", path, width,
                  height, smallest_pdf, smallest, role_names[role]);
  /* What the PDF says and what the renderer meant agree. */
  if (smallest_pdf > 0 && fabs (smallest_pdf - smallest) > 0.02)
    g_string_append_printf (problems, "\n  the PDF's smallest text is %.2f pt, the layout's %.2f pt", smallest_pdf,
                            smallest);

  if (problems->len > 0)
    g_test_fail_printf ("%s:%s", path, problems->str);
}

int
main (int    argc,
      char **argv)
{
  guint n;
  const PlLayoutKind *kinds;

  pl_test_init (&argc, &argv);
  kinds = pl_layout_kinds (&n);
  for (guint k = 0; k < n; k++)
    for (guint p = 0; p < PL_FIGURE_N_PRESETS; p++)
      for (guint f = 0; f < G_N_ELEMENTS (families); f++)
        {
          Case *c = g_new0 (Case, 1);
          g_autofree char *path = g_strdup_printf ("/figure-layout/%s/%s/%s", kinds[k].name,
                                                   pl_figure_preset_get (p)->name, f ? "serif" : "sans");

          c->kind = &kinds[k];
          c->preset = p;
          c->family = f;
          g_test_add_data_func_full (path, c, test_kind_at_preset, g_free);
        }
  return g_test_run ();
}
