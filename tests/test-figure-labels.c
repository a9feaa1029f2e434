/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "pl-test-util.h"
#include "test-figure-util.h"

/* Heatmaps with named cells (the tokens of a sentence): every name drawn when
 * there is room, every k-th when crowded, never two overlapping, more on
 * zooming in, and the same in PNG, SVG and PDF. Sizes are checked against
 * pango's own extents of the text, overlaps with plain rectangle geometry. */

static const char *words[] = { "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "." };

static PlMatrix *
square (gsize n)
{
  PlMatrix *m = pl_matrix_new (n, n);

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      pl_matrix_row (m, i)[j] = (float) sin (0.3 * i + 0.7 * j);
  return m;
}

static PlFigure *
named_figure (gsize n)
{
  g_autoptr(PlMatrix) m = square (n);
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  PlFigure *figure = pl_figure_new_heatmap (m, 0);

  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (labels, n == G_N_ELEMENTS (words) ? g_strdup (words[i]) : g_strdup_printf ("tok%zu", i));
  pl_figure_set_tick_labels (figure, (const char * const *) labels->pdata, n);
  pl_figure_set_title (figure, "Attention of a sentence");
  pl_figure_set_axis_labels (figure, "Key token", "Query token");
  return figure;
}

/* Width and height of TEXT in the figure's tick font, measured here with pango. */
static void
pango_size (const char *text,
            double     *width,
            double     *height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  PangoContext *context = pango_cairo_create_context (cr);
  PangoLayout *layout;
  PangoFontDescription *desc = pango_font_description_from_string ("Cantarell, Sans");
  cairo_font_options_t *options = cairo_font_options_create ();
  PangoRectangle logical;

  pango_cairo_context_set_resolution (context, 72);
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options (context, options);
  /* The tick font: 0.85 of the default 10 points. */
  pango_font_description_set_size (desc, (int) (8.5 * PANGO_SCALE + 0.5));
  layout = pango_layout_new (context);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_extents (layout, NULL, &logical);
  *width = (double) logical.width / PANGO_SCALE;
  *height = (double) logical.height / PANGO_SCALE;

  g_object_unref (layout);
  pango_font_description_free (desc);
  cairo_font_options_destroy (options);
  g_object_unref (context);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static gboolean
overlap (const cairo_rectangle_t *a,
         const cairo_rectangle_t *b)
{
  return a->x < b->x + b->width && b->x < a->x + a->width &&
         a->y < b->y + b->height && b->y < a->y + a->height;
}

/* Every drawn label box of the last render, both axes; asserts none overlap,
 * none reaches into the plot, all stay inside the figure. */
static GArray *
drawn_boxes (PlFigure *figure,
             gsize     n,
             double    width,
             double    height,
             guint    *n_x,
             guint    *n_y)
{
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (cairo_rectangle_t));
  cairo_rectangle_t plot;

  pl_figure_get_plot_area (figure, &plot);
  *n_x = *n_y = 0;
  for (guint axis = 0; axis < 2; axis++)
    for (guint i = 0; i < n; i++)
      {
        cairo_rectangle_t box;

        if (!pl_figure_get_tick_label_box (figure, axis == 0, i, &box))
          continue;
        if (axis == 0)
          {
            (*n_x)++;
            g_assert_cmpfloat (box.y, >=, plot.y + plot.height);
          }
        else
          {
            (*n_y)++;
            g_assert_cmpfloat (box.x + box.width, <=, plot.x);
          }
        g_assert_cmpfloat (box.x, >=, 0);
        g_assert_cmpfloat (box.y, >=, 0);
        g_assert_cmpfloat (box.x + box.width, <=, width);
        g_assert_cmpfloat (box.y + box.height, <=, height);
        g_array_append_val (boxes, box);
      }
  for (guint i = 0; i < boxes->len; i++)
    for (guint j = i + 1; j < boxes->len; j++)
      g_assert_false (overlap (&g_array_index (boxes, cairo_rectangle_t, i),
                               &g_array_index (boxes, cairo_rectangle_t, j)));
  return boxes;
}

/* Ink in BOX: some pixel clearly darker than the white background (a full
 * stop at 8.5 points is only a few grey pixels). */
static gboolean
has_ink (cairo_surface_t         *surface,
         const cairo_rectangle_t *box)
{
  for (double y = box->y + 0.5; y < box->y + box->height; y += 1)
    for (double x = box->x + 0.5; x < box->x + box->width; x += 1)
      {
        guint32 p = fig_pixel (surface, x, y);

        if (((p >> 16) & 0xff) < 192 && ((p >> 8) & 0xff) < 192 && (p & 0xff) < 192)
          return TRUE;
      }
  return FALSE;
}

static void
test_few_all_drawn (void)
{
  g_autoptr(PlFigure) figure = named_figure (G_N_ELEMENTS (words));
  cairo_surface_t *surface = fig_render (figure, 520, 440);
  guint n_x, n_y;
  g_autoptr(GArray) boxes = drawn_boxes (figure, G_N_ELEMENTS (words), 520, 440, &n_x, &n_y);

  g_assert_cmpuint (n_x, ==, G_N_ELEMENTS (words));
  g_assert_cmpuint (n_y, ==, G_N_ELEMENTS (words));
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      /* Shown trimmed: a BPE token's leading space is not a character to read. */
      g_autofree char *shown = g_strstrip (g_strdup (words[i]));
      cairo_rectangle_t x_box, y_box;
      double w, h;

      pango_size (shown, &w, &h);
      g_assert_true (pl_figure_get_tick_label_box (figure, TRUE, i, &x_box));
      g_assert_true (pl_figure_get_tick_label_box (figure, FALSE, i, &y_box));
      /* Column names are turned a quarter: their width runs down the page. */
      g_assert_cmpfloat_with_epsilon (x_box.width, h, 0.01);
      g_assert_cmpfloat_with_epsilon (x_box.height, w, 0.01);
      g_assert_cmpfloat_with_epsilon (y_box.width, w, 0.01);
      g_assert_cmpfloat_with_epsilon (y_box.height, h, 0.01);
      g_assert_true (has_ink (surface, &x_box));
      g_assert_true (has_ink (surface, &y_box));
    }
  cairo_surface_destroy (surface);
}

/* Fifty names whose cells are a little less than a line high: every one
 * drawn, in a smaller font (not below 70 % of the tick size), none
 * overlapping, rather than every second one. */
static void
test_crowded_all_drawn (void)
{
  g_autoptr(PlFigure) figure = named_figure (50);
  cairo_surface_t *surface = fig_render (figure, 640, 560);
  guint n_x, n_y;
  g_autoptr(GArray) boxes = drawn_boxes (figure, 50, 640, 560, &n_x, &n_y);
  cairo_rectangle_t plot;
  double w, h;

  pl_figure_get_plot_area (figure, &plot);
  pango_size ("tok0", &w, &h);
  /* The case this is about: cells under one line of the tick font. */
  g_assert_cmpfloat (plot.width / 50, <, h);
  g_assert_cmpuint (n_x, ==, 50);
  g_assert_cmpuint (n_y, ==, 50);
  for (guint i = 0; i < 50; i++)
    {
      cairo_rectangle_t x_box, y_box;

      g_assert_true (pl_figure_get_tick_label_box (figure, TRUE, i, &x_box));
      g_assert_true (pl_figure_get_tick_label_box (figure, FALSE, i, &y_box));
      g_assert_cmpfloat (x_box.width, >=, 0.7 * h - 0.01);
      g_assert_cmpfloat (y_box.height, >=, 0.7 * h - 0.01);
      g_assert_true (has_ink (surface, &x_box));
    }
  cairo_surface_destroy (surface);
}

static guint
count_in (PlFigure *figure,
          gboolean  x_axis,
          guint     from,
          guint     to)
{
  guint n = 0;

  for (guint i = from; i < to; i++)
    n += pl_figure_get_tick_label_box (figure, x_axis, i, NULL);
  return n;
}

static void
test_many_thinned (void)
{
  g_autoptr(PlFigure) figure = named_figure (500);
  cairo_surface_t *surface = fig_render (figure, 700, 600);
  guint n_x, n_y, step = 0, last = 0, seen = 0;
  g_autoptr(GArray) boxes = drawn_boxes (figure, 500, 700, 600, &n_x, &n_y);

  /* Some, evenly spaced from the first, but far from all 500. */
  g_assert_cmpuint (n_x, >=, 8);
  g_assert_cmpuint (n_x, <, 100);
  g_assert_cmpuint (n_y, >=, 8);
  g_assert_cmpuint (n_y, <, 100);
  g_assert_true (pl_figure_get_tick_label_box (figure, TRUE, 0, NULL));
  for (guint i = 0; i < 500; i++)
    if (pl_figure_get_tick_label_box (figure, TRUE, i, NULL))
      {
        if (seen == 1)
          step = i - last;
        else if (seen > 1)
          g_assert_cmpuint (i - last, ==, step);
        last = i;
        seen++;
      }
  g_assert_cmpuint (step, >, 1);
  cairo_surface_destroy (surface);
}

static void
test_zoom_shows_more (void)
{
  g_autoptr(PlFigure) figure = named_figure (500);
  cairo_surface_t *surface = fig_render (figure, 700, 600);
  guint before_x = count_in (figure, TRUE, 100, 150), before_y = count_in (figure, FALSE, 100, 150);
  guint n_x, n_y;
  g_autoptr(GArray) boxes = NULL;

  cairo_surface_destroy (surface);
  pl_figure_set_view (figure, 100, 100, 150, 150);
  surface = fig_render (figure, 700, 600);
  boxes = drawn_boxes (figure, 500, 700, 600, &n_x, &n_y);
  g_assert_cmpuint (count_in (figure, TRUE, 100, 150), >, before_x);
  g_assert_cmpuint (count_in (figure, FALSE, 100, 150), >, before_y);
  /* Nothing outside the view. */
  g_assert_cmpuint (n_x, ==, count_in (figure, TRUE, 100, 150));
  g_assert_cmpuint (n_y, ==, count_in (figure, FALSE, 100, 150));
  cairo_surface_destroy (surface);

  /* Zoomed far enough, every one of the 50 again. */
  pl_figure_set_view (figure, 100, 100, 120, 120);
  surface = fig_render (figure, 700, 600);
  g_assert_cmpuint (count_in (figure, TRUE, 100, 120), ==, 20);
  g_assert_cmpuint (count_in (figure, FALSE, 100, 120), ==, 20);
  cairo_surface_destroy (surface);
}

static guint
count_substrings (const char *haystack,
                  const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_export (void)
{
  g_autoptr(PlFigure) figure = named_figure (G_N_ELEMENTS (words));
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "labels.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "labels.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "labels.pdf", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  cairo_surface_t *image;

  g_assert_true (pl_figure_export (figure, png, 360, 300, 144, &error));
  g_assert_no_error (error);
  image = fig_load_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 720);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 600);
  {
    /* The label boxes of the export, scaled to its pixels, carry ink. */
    cairo_rectangle_t box;
    PlFigure *probe = figure;
    cairo_surface_t *at_size = fig_render (probe, 360, 300);

    for (guint i = 0; i < G_N_ELEMENTS (words); i++)
      {
        g_assert_true (pl_figure_get_tick_label_box (probe, TRUE, i, &box));
        box.x *= 2; box.y *= 2; box.width *= 2; box.height *= 2;
        g_assert_true (has_ink (image, &box));
      }
    cairo_surface_destroy (at_size);
  }
  cairo_surface_destroy (image);

  /* SVG: names as real text, column names turned a quarter (matrix 0 −1 1 0). */
  g_assert_true (pl_figure_export (figure, svg, 360, 300, 72, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_cmpuint (count_substrings (text, ">quick</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, ">lazy</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, "matrix(0.0000 -1.0000 1.0000 0.0000"), >=, G_N_ELEMENTS (words));

  g_assert_true (pl_figure_export (figure, pdf, 360, 300, 72, &error));
  g_assert_no_error (error);
  if (fig_have_program ("pdftotext"))
    {
      g_autofree char *txt = g_build_filename (dir, "labels.txt", NULL);
      g_autofree char *contents = NULL;
      const char *argv[] = { "pdftotext", pdf, txt, NULL };

      fig_run (argv);
      g_assert_true (g_file_get_contents (txt, &contents, NULL, NULL));
      g_assert_nonnull (strstr (contents, "quick"));
      g_assert_nonnull (strstr (contents, "Key token"));
    }
  else
    {
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (pdf, &contents, &length, NULL));
      g_assert_true (g_str_has_prefix (contents, "%PDF"));
      g_assert_cmpuint (length, >, 1000);
    }
  pl_test_rmtree (dir);
}

/* Blank and control tokens stay visible; long ones are shortened. */
static void
test_special_tokens (void)
{
  const char *labels[] = { " ", "\n", "", "supercalifragilistic", "a\tb" };
  g_autoptr(PlMatrix) m = square (G_N_ELEMENTS (labels));
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "special.svg", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  pl_figure_set_tick_labels (figure, labels, G_N_ELEMENTS (labels));
  g_assert_true (pl_figure_export (figure, svg, 360, 300, 72, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_cmpuint (count_substrings (text, ">␣</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, ">↵</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, ">∅</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, ">supercalifrag…</text>"), ==, 2);
  g_assert_cmpuint (count_substrings (text, ">a⇥b</text>"), ==, 2);
  pl_test_rmtree (dir);
}

/* Without names the axes count positions again. */
static void
test_reset (void)
{
  g_autoptr(PlFigure) figure = named_figure (G_N_ELEMENTS (words));
  cairo_surface_t *surface = fig_render (figure, 400, 360);

  g_assert_true (pl_figure_get_tick_label_box (figure, TRUE, 0, NULL));
  cairo_surface_destroy (surface);
  pl_figure_set_tick_labels (figure, NULL, 0);
  surface = fig_render (figure, 400, 360);
  g_assert_false (pl_figure_get_tick_label_box (figure, TRUE, 0, NULL));
  g_assert_false (pl_figure_get_tick_label_box (figure, FALSE, 0, NULL));
  cairo_surface_destroy (surface);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/figure-labels/few-all-drawn", test_few_all_drawn);
  g_test_add_func ("/pl/figure-labels/crowded-all-drawn", test_crowded_all_drawn);
  g_test_add_func ("/pl/figure-labels/many-thinned", test_many_thinned);
  g_test_add_func ("/pl/figure-labels/zoom-shows-more", test_zoom_shows_more);
  g_test_add_func ("/pl/figure-labels/export", test_export);
  g_test_add_func ("/pl/figure-labels/special-tokens", test_special_tokens);
  g_test_add_func ("/pl/figure-labels/reset", test_reset);

  return g_test_run ();
}
