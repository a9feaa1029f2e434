/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "pl-application.h"
#include "pl-attention-page.h"
#include "pl-attention-text.h"
#include "pl-export-dialog.h"
#include "pl-similarity-page.h"
#include "pl-test-util.h"
#include "pl-test-window.h"
#include "pl-window.h"

/* The Attention view's Text sub-view in the real window: a sentence typed for
 * the demo GPT-2 is tokenised as its byte tokenizer says (id = byte + 4, no
 * special tokens), and the map shown is the forward pass run here directly on
 * those ids; hover, export, empty and over-long text, and a model without
 * tokenizer files. */

#define SENTENCE "The quick brown fox jumps over the lazy dog."

static PlApplication *app;
static PlWindow *window;

static GtkWidget *
attention_page (void)
{
  GtkWidget *page = pl_window_get_page (window, "attention");

  g_assert_nonnull (page);
  return page;
}

/* The first descendant of WIDGET of TYPE, depth first. */
static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static PlAttentionText *
text_view (void)
{
  GtkWidget *text = find_descendant (attention_page (), PL_TYPE_ATTENTION_TEXT);

  g_assert_nonnull (text);
  return PL_ATTENTION_TEXT (text);
}

static void
select_model_named (const char *name)
{
  GListModel *models = pl_window_get_models (window);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(PlModel) model = g_list_model_get_item (models, i);

      if (g_str_equal (pl_model_get_name (model), name))
        {
          pl_window_select_model (window, i);
          return;
        }
    }
  g_assert_not_reached ();
}

static gboolean
text_idle (gpointer data)
{
  return !pl_page_get_busy ((PlPage *) PL_ATTENTION_TEXT (data));
}

static void
type_and_run (const char *text)
{
  GtkEditable *entry = pl_attention_text_get_entry (text_view ());

  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (entry)));
  gtk_editable_set_text (entry, text);
  /* Enter, as the user presses it; the debounce would run it too. */
  g_signal_emit_by_name (entry, "activate");
  pl_test_wait_until (text_idle, text_view (), "the sentence's forward pass");
}

static void
show_text_view_of (const char *model)
{
  pl_test_activate (window, "win.show-view", g_variant_new_int32 (2));
  pl_attention_page_show (PL_ATTENTION_PAGE (attention_page ()), "text");
  select_model_named (model);
  pl_test_wait_until (text_idle, text_view (), "the tokenizer and the weights");
}

/* The demo GPT-2's attention of SENTENCE, from the forward pass run here on
 * ids made from the bytes, without the window's tokenizer or cache. */
static PlForwardResult *
direct_forward (void)
{
  g_autofree char *path = pl_test_demo ("mini-gpt2", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (path, NULL, NULL, &error);
  g_autoptr(PlTransformer) transformer = NULL;
  int ids[sizeof SENTENCE];
  PlForwardResult *result;

  g_assert_no_error (error);
  transformer = pl_transformer_new (model, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < strlen (SENTENCE); i++)
    ids[i] = (guchar) SENTENCE[i] + 4;
  result = pl_transformer_forward (transformer, ids, strlen (SENTENCE), PL_FORWARD_ATTENTIONS, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return result;
}

/* The figure on screen colours every cell by the forward pass's own value:
 * rendered here, each cell's centre has the colour map's colour of the
 * directly computed weight (or of a neighbouring entry, for values within
 * 1e-6 of an entry's edge). */
static void
assert_cells_coloured (PlFigure       *figure,
                       const PlMatrix *expected,
                       gsize           first_row,
                       gsize           t)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 800);
  cairo_t *cr = cairo_create (surface);
  cairo_rectangle_t plot;
  const guint8 *data;
  int stride;
  double lo, hi;

  pl_figure_set_colormap (figure, PL_COLORMAP_VIRIDIS);
  pl_figure_set_reversed (figure, FALSE);
  pl_figure_render (figure, cr, 900, 800);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  pl_figure_get_plot_area (figure, &plot);
  pl_figure_get_range (figure, &lo, &hi);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (gsize i = 0; i < t; i++)
    for (gsize j = 0; j < t; j++)
      {
        int x = (int) (plot.x + (j + 0.5) / t * plot.width);
        int y = (int) (plot.y + (i + 0.5) / t * plot.height);
        guint32 pixel = *(const guint32 *) (gconstpointer) (data + (gsize) y * stride + (gsize) x * 4) & 0xffffff;
        double u = (pl_matrix_get (expected, first_row + i, j) - lo) / (hi - lo);

        if (pixel != pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, u) &&
            pixel != pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, u + 1.0 / 256) &&
            pixel != pl_colormap_lookup (PL_COLORMAP_VIRIDIS, FALSE, u - 1.0 / 256))
          g_error ("cell (%zu, %zu): pixel %06x is not the colour of %g", i, j, pixel,
                   pl_matrix_get (expected, first_row + i, j));
      }
  cairo_surface_destroy (surface);
}

static void
test_sentence_matches_forward (void)
{
  g_autoptr(PlForwardResult) expected = direct_forward ();
  PlTextAttention *result;
  gsize t = strlen (SENTENCE);

  show_text_view_of ("mini-gpt2");
  /* Layer 2, head 2 (1-based) of the workspace every view follows. */
  pl_workspace_set_layer (pl_window_get_workspace (window), 2);
  pl_workspace_set_head (pl_window_get_workspace (window), 1);
  type_and_run (SENTENCE);

  result = pl_attention_text_get_result (text_view ());
  g_assert_nonnull (result);
  /* The byte tokenizer: one token per byte, id = byte + 4, nothing added. */
  g_assert_cmpuint (result->n_tokens, ==, t);
  for (gsize i = 0; i < t; i++)
    g_assert_cmpint (g_array_index (result->ids, int, i), ==, (guchar) SENTENCE[i] + 4);
  g_assert_cmpstr (result->labels[4], ==, "q");

  for (guint l = 0; l < expected->n_layers; l++)
    for (guint h = 0; h < expected->n_heads; h++)
      {
        g_autoptr(PlMatrix) map = pl_text_attention_get_map (result, l, h);

        for (gsize i = 0; i < t; i++)
          {
            double sum = 0;

            for (gsize j = 0; j < t; j++)
              {
                double v = pl_matrix_get (map, i, j);

                sum += v;
                /* Causal: nothing above the diagonal. */
                if (j > i)
                  g_assert_cmpfloat (v, ==, 0);
                g_assert_cmpfloat (fabs (v - pl_matrix_get (expected->attentions[l], h * t + i, j)), <, 1e-6);
              }
            g_assert_cmpfloat (fabs (sum - 1), <, 1e-5);
          }
      }

  {
    guint layer, head;
    PlFigure *figure = pl_page_get_figure (PL_PAGE (attention_page ()));
    g_autofree char *name = pl_page_get_export_name (PL_PAGE (attention_page ()));

    pl_attention_text_get_shown (text_view (), &layer, &head);
    g_assert_cmpuint (layer, ==, 2);
    g_assert_cmpuint (head, ==, 2);
    g_assert_nonnull (figure);
    g_assert_true (figure == pl_page_get_figure ((PlPage *) text_view ()));
    g_assert_cmpstr (name, ==, "mini-gpt2-text-layer-2-head-2");
    /* Layer 2, head 2: rows 1·T … 2·T − 1 of the second layer's maps. */
    assert_cells_coloured (figure, expected->attentions[1], 1 * t, t);
  }
}

/* Hovering a cell names the query and key tokens, the weight shown, and the
 * layer and head, in a tooltip at the pointer. */
static void
test_hover_readout (void)
{
  g_autoptr(PlForwardResult) expected = direct_forward ();
  PlFigureView *view = pl_attention_text_get_view (text_view ());
  PlFigure *figure;
  gsize t = strlen (SENTENCE);
  const guint query = 10, key = 4;   /* “b” of brown → “q” of quick */
  g_autofree char *want = g_strdup_printf ("“b” (10) → “q” (4): %.3f\nLayer 2, head 2",
                                           pl_matrix_get (expected->attentions[1], 1 * t + query, key));
  g_autofree char *text = NULL;
  g_autofree char *outside = NULL;
  cairo_rectangle_t area;

  /* The figure after the frames: one drawn meanwhile may replace it. */
  pl_test_wait_frames (GTK_WIDGET (view), 2);
  figure = pl_figure_view_get_figure (view);
  g_assert_nonnull (figure);
  pl_figure_get_plot_area (figure, &area);
  text = pl_figure_view_describe_at (view, area.x + (key + 0.5) * area.width / t,
                                     area.y + (query + 0.5) * area.height / t);
  g_assert_cmpstr (text, ==, want);
  outside = pl_figure_view_describe_at (view, area.x - 5, area.y - 5);
  g_assert_null (outside);
  g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (view)));
}

/* The colour at the centre of token cell (ROW, COLUMN) of the Text map, as drawn. */
static guint32
cell_colour (GBytes            *image,
             int                width,
             const cairo_rectangle_t *area,
             gsize              t,
             guint              row,
             guint              column)
{
  const guint32 *pixels = g_bytes_get_data (image, NULL);
  int x = (int) (area->x + (column + 0.5) * area->width / t);
  int y = (int) (area->y + (row + 0.5) * area->height / t);

  return pixels[y * width + x];
}

/* Text honours the Shift-drag selection: positions chosen in another view
 * are drawn over the tokens at those positions (a band over their rows and
 * columns, nothing elsewhere), and a Shift-drag over the tokens selects those
 * positions for every view. */
static void
test_selection (void)
{
  PlWorkspace *workspace = pl_window_get_workspace (window);
  PlFigureView *view = pl_attention_text_get_view (text_view ());
  gsize t = strlen (SENTENCE);
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  cairo_rectangle_t area, area_before;
  guint start, end;
  int w, h, w_before, h_before;

  /* Each image is read at its own plot area: the page's layout may still
   * settle between the two (a row above the map appearing), which moves
   * the map without changing its cells. */
  pl_workspace_set_selection (workspace, 0, 0);
  before = pl_test_render (GTK_WIDGET (view), &w_before, &h_before);
  pl_figure_get_plot_area (pl_figure_view_get_figure (view), &area_before);

  pl_workspace_set_selection (workspace, 4, 10);
  pl_figure_view_get_highlight (view, &start, &end);
  g_assert_cmpuint (start, ==, 4);
  g_assert_cmpuint (end, ==, 10);
  after = pl_test_render (GTK_WIDGET (view), &w, &h);
  pl_figure_get_plot_area (pl_figure_view_get_figure (view), &area);
  /* Rows and columns 4–9 are tinted; cells outside both keep their colour. */
  for (guint i = 0; i < t; i += 3)
    {
      gboolean inside = i >= 4 && i < 10;

      g_assert_true ((cell_colour (before, w_before, &area_before, t, 6, i) != cell_colour (after, w, &area, t, 6, i)));
      g_assert_true ((cell_colour (before, w_before, &area_before, t, i, 7) != cell_colour (after, w, &area, t, i, 7)));
      if (!inside)
        g_assert_cmphex (cell_colour (before, w_before, &area_before, t, i, 20 + i % 3 * 7),
                         ==, cell_colour (after, w, &area, t, i, 20 + i % 3 * 7));
    }

  /* A Shift-drag from token 12's row to token 30's selects positions 12–30. */
  g_assert_true (pl_figure_view_select_drag (view, area.x + 2, area.y + 12.5 * area.height / t,
                                             area.x + 2, area.y + 30.5 * area.height / t));
  pl_workspace_get_selection (workspace, &start, &end);
  g_assert_cmpuint (start, ==, 12);
  g_assert_cmpuint (end, ==, 31);
  pl_workspace_set_selection (workspace, 0, 0);
}

/* The map draws, with the many colours of real data, and exports. */
static void
test_draw_and_export (void)
{
  PlFigure *figure = pl_page_get_figure (PL_PAGE (attention_page ()));
  g_autofree char *name = pl_page_get_export_name (PL_PAGE (attention_page ()));
  PlExportDialog *dialog = pl_export_dialog_new (GTK_WINDOW (window), figure, name, NULL);
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "text.png", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GBytes) image = NULL;
  int w, h;

  image = pl_test_render (GTK_WIDGET (pl_attention_text_get_view (text_view ())), &w, &h);
  g_assert_cmpuint (pl_test_count_colours (image), >, 20);

  g_assert_true (pl_export_dialog_export (dialog, png, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  /* 360 × 300 points at 300 dpi, the dialog's defaults. */
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 1500);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 1250);
  gtk_window_destroy (GTK_WINDOW (dialog));
  pl_test_rmtree (dir);
}

/* Empty text computes nothing and says what to do; text beyond the model's
 * positions says how long it is. */
static void
test_empty_and_too_long (void)
{
  PlPage *text = PL_PAGE (text_view ());
  AdwStatusPage *status;
  g_autofree char *long_text = g_strnfill (600, 'a');

  type_and_run ("");
  g_assert_null (pl_attention_text_get_result (text_view ()));
  g_assert_null (pl_page_get_figure (PL_PAGE (attention_page ())));
  status = pl_page_get_status (text);
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "Type a Sentence");

  type_and_run (long_text);
  g_assert_null (pl_attention_text_get_result (text_view ()));
  g_assert_null (pl_page_get_figure (PL_PAGE (attention_page ())));
  status = pl_page_get_status (text);
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "Cannot Show This Text");
  g_assert_nonnull (strstr (adw_status_page_get_description (status), "600 tokens"));
  g_assert_nonnull (strstr (adw_status_page_get_description (status), "512"));

  /* And back. */
  type_and_run ("Hi");
  g_assert_cmpuint (pl_attention_text_get_result (text_view ())->n_tokens, ==, 2);
}

static gboolean
one_more_model (gpointer data)
{
  return g_list_model_get_n_items (pl_window_get_models (window)) >= PL_TEST_N_DEMOS + 1;
}

static gboolean
stats_ready (gpointer page)
{
  return !pl_page_get_busy ((PlPage *) page) && pl_attention_page_get_stats (page) != NULL;
}

/* A checkpoint without tokenizer files: the Text view says why text is off,
 * the entry is off, and the rest of the view still works on random ids. */
static void
test_no_tokenizer (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *weights = g_build_filename (dir, "tf_model.h5", NULL);
  const char *files[] = { "config.json", "tf_model.h5" };
  g_autoptr(GFile) file = NULL;
  AdwStatusPage *status = pl_page_get_status ((PlPage *) text_view ());

  /* Back to the stored table: the copy needs no layer's positional component,
   * which the other views would otherwise compute from forward passes. */
  pl_workspace_set_layer (pl_window_get_workspace (window), PL_LAYER_TABLE);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *from = pl_test_demo ("mini-gpt2", files[i], NULL);
      g_autofree char *to = g_build_filename (dir, files[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  file = g_file_new_for_path (weights);
  pl_window_open_file (window, file, TRUE);
  pl_test_wait_until (one_more_model, NULL, "the copy without a tokenizer");
  pl_window_select_model (window, g_list_model_get_n_items (pl_window_get_models (window)) - 1);
  pl_test_wait_until (text_idle, text_view (), "the tokenizer's answer");

  g_assert_cmpstr (adw_status_page_get_title (status), ==, "Text Input Is Off");
  g_assert_nonnull (strstr (adw_status_page_get_description (status), "text input is off"));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (pl_attention_text_get_entry (text_view ()))));
  g_assert_null (pl_page_get_figure (PL_PAGE (attention_page ())));
  g_assert_null (pl_attention_text_get_result (text_view ()));

  /* The other sub-views run this model on random ids; let them finish
   * before its files go (a worker reading deleted files would fail). */
  pl_test_wait_until (stats_ready, attention_page (), "the copy's attention statistics");

  /* Back on a model with a tokenizer, text input is on again. */
  select_model_named ("mini-gpt2");
  pl_test_wait_until (text_idle, text_view (), "mini-gpt2 again");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (pl_attention_text_get_entry (text_view ()))));
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/window-text/sentence-matches-forward", test_sentence_matches_forward);
  g_test_add_func ("/pl/window-text/hover-readout", test_hover_readout);
  g_test_add_func ("/pl/window-text/selection", test_selection);
  g_test_add_func ("/pl/window-text/draw-and-export", test_draw_and_export);
  g_test_add_func ("/pl/window-text/empty-and-too-long", test_empty_and_too_long);
  g_test_add_func ("/pl/window-text/no-tokenizer", test_no_tokenizer);
  status = g_test_run ();
  /* Workers still running at exit would compute into a process being torn
   * down: closing the window waits for them (views hidden all along start none). */
  pl_test_wait_until (stats_ready, attention_page (), "the last attention statistics");

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
