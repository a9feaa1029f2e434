/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-similarity.h"
#include "test-figure-util.h"

#define GPT2_WPE "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0"

/* Helpers shared by the figure tests and test-cli-analyses.c. */

cairo_surface_t *
fig_render (PlFigure *figure,
        int       width,
        int       height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);

  pl_figure_render (figure, cr, width, height);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  return surface;
}

guint32
fig_pixel (cairo_surface_t *surface,
       double           x,
       double           y)
{
  int ix = (int) floor (x), iy = (int) floor (y);
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  g_assert_cmpint (ix, >=, 0);
  g_assert_cmpint (iy, >=, 0);
  g_assert_cmpint (ix, <, cairo_image_surface_get_width (surface));
  g_assert_cmpint (iy, <, cairo_image_surface_get_height (surface));

  return *(const guint32 *) (gconstpointer) (data + (gsize) iy * stride + (gsize) ix * 4) & 0xffffff;
}

cairo_surface_t *
fig_load_png (const char *path)
{
  cairo_surface_t *surface = cairo_image_surface_create_from_png (path);

  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  return surface;
}

/* Mean absolute channel difference (0–255) and the share of pixels where some
 * channel differs by more than 64, outside SKIP. */
void
fig_compare_images (cairo_surface_t         *a,
                    cairo_surface_t         *b,
                    const cairo_rectangle_t *skip,
                    double                  *mean,
                    double                  *bad)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  double sum = 0;
  gsize n = 0, n_bad = 0;

  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 p = fig_pixel (a, x, y), q = fig_pixel (b, x, y);
        int worst = 0;

        if (skip != NULL && x >= skip->x && x < skip->x + skip->width &&
            y >= skip->y && y < skip->y + skip->height)
          continue;
        n++;
        for (int s = 0; s < 24; s += 8)
          {
            int d = ABS ((int) ((p >> s) & 0xff) - (int) ((q >> s) & 0xff));

            sum += d;
            worst = MAX (worst, d);
          }
        n_bad += worst > 64;
      }
  *mean = sum / (3.0 * MAX (n, 1));
  *bad = (double) n_bad / MAX (n, 1);
}

PlMatrix *
fig_gpt2_cosine (void)
{
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (weights, GPT2_WPE);
  g_autoptr(GError) error = NULL;
  PlMatrix *cos = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, NULL, &error);

  g_assert_no_error (error);
  return cos;
}

/* A small matrix with a known value in every cell and one NaN. */
PlMatrix *
fig_ramp (gsize rows,
      gsize cols)
{
  PlMatrix *m = pl_matrix_new (rows, cols);

  for (gsize i = 0; i < rows * cols; i++)
    m->data[i] = (float) i / (rows * cols - 1) * 2 - 0.5f;   /* −0.5 … 1.5 */
  m->data[cols + 1] = NAN;
  return m;
}

gboolean
fig_have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);
  return path != NULL;
}

void
fig_run (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

PlPca *
fig_gpt2_pca (void)
{
  g_autofree char *weights = pl_test_demo ("mini-gpt2", "tf_model.h5", NULL);
  g_autoptr(PlMatrix) table = pl_test_read_h5 (weights, GPT2_WPE);
  g_autoptr(GError) error = NULL;
  PlPca *pca = pl_pca_compute (table, 3, NULL, &error);

  g_assert_no_error (error);
  return pca;
}

/* Every point's place, scaled to [0, 1] over the points' own extent on each
 * axis, so views with different frames and margins can be compared. */
