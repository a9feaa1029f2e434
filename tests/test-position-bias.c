/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-error.h"
#include "pl-figure.h"
#include "pl-model.h"
#include "pl-position-bias.h"
#include "pl-test-util.h"

/* Position as a bias on attention scores, against what torch computes with
 * Hugging Face's functions (tests/fixtures/make-relpos.py wrote them into
 * tests/fixtures/relpos/buckets.h5 and each fixture's reference.h5): T5's
 * buckets and DeBERTa's log buckets exactly, for offsets up to ±5000 and
 * settings from tiny to real; BLOOM's and MPT's float32 slopes within 2
 * float32 ulps (torch's vectorised pow and glibc's powf may round the last
 * bit apart); and the whole bias of each fixture (T5 and UMT5 per stack and
 * layer, BLOOM, MPT) within 1e-6 of the largest value. */

#define FIRST_OFFSET (-5000)
#define N_OFFSETS    10001

static char *
buckets_file (void)
{
  return pl_test_fixture ("relpos", "buckets.h5", NULL);
}

static void
test_t5_buckets (void)
{
  static const struct { guint buckets, distance; } settings[] = {
    { 32, 128 }, { 64, 256 }, { 48, 100 }, { 8, 20 }, { 32, 4096 }, { 320, 1000 }, { 16, 12 }, { 4, 3 },
  };
  g_autofree char *file = buckets_file ();
  guint checked = 0;

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    for (int bidirectional = 1; bidirectional >= 0; bidirectional--)
      {
        g_autofree char *name = g_strdup_printf ("t5/%u-%u-%s", settings[s].buckets, settings[s].distance,
                                                 bidirectional ? "bidirectional" : "causal");
        g_autoptr(PlMatrix) ref = NULL;
        g_autofree char *problem = pl_t5_buckets_check (bidirectional, settings[s].buckets, settings[s].distance);

        /* (4, 3) bidirectional has one exact offset per sign and is refused */
        if (problem != NULL)
          {
            g_assert_true (settings[s].buckets == 4 && bidirectional);
            g_assert_nonnull (strstr (problem, "relative_attention_max_distance"));
            continue;
          }
        ref = pl_test_read_h5 (file, name);
        g_assert_cmpuint (ref->rows * ref->cols, ==, N_OFFSETS);
        for (guint k = 0; k < N_OFFSETS; k++)
          {
            guint got = pl_t5_bucket (FIRST_OFFSET + (int) k, bidirectional, settings[s].buckets,
                                      settings[s].distance);

            if (got != (guint) ref->data[k])
              g_error ("%s, offset %d: bucket %u, torch %g", name, FIRST_OFFSET + (int) k, got, ref->data[k]);
            checked++;
          }
      }
  g_test_message ("%u T5 buckets as torch computes them", checked);
}

static void
test_t5_check (void)
{
  char *problem;

  /* Bidirectional T5 needs two exact offsets per sign; max_distance past them. */
  problem = pl_t5_buckets_check (TRUE, 2, 128);
  g_assert_nonnull (strstr (problem, "relative_attention_num_buckets is 2"));
  g_free (problem);
  problem = pl_t5_buckets_check (TRUE, 32, 8);
  g_assert_nonnull (strstr (problem, "relative_attention_max_distance is 8"));
  g_free (problem);
  g_assert_null (pl_t5_buckets_check (TRUE, 32, 9));
  g_assert_null (pl_t5_buckets_check (FALSE, 2, 2));
  /* Huge distances do not overflow the integer bucket */
  g_assert_cmpuint (pl_t5_bucket (-2000000000, TRUE, 32, 9), ==, 15);
  g_assert_cmpuint (pl_t5_bucket (2000000000, TRUE, 32, 9), ==, 31);
}

static void
test_deberta_buckets (void)
{
  static const struct { guint buckets, max_position; } settings[] = {
    { 256, 512 }, { 256, 1024 }, { 64, 512 }, { 32, 100 }, { 8, 20 }, { 8, 40 }, { 256, 24528 },
  };
  g_autofree char *file = buckets_file ();

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autofree char *name = g_strdup_printf ("deberta/%u-%u", settings[s].buckets, settings[s].max_position);
      g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, name);

      g_assert_null (pl_deberta_buckets_check (settings[s].buckets, settings[s].max_position));
      for (guint k = 0; k < N_OFFSETS; k++)
        {
          int got = pl_deberta_bucket (FIRST_OFFSET + (int) k, settings[s].buckets, settings[s].max_position);

          if (got != (int) ref->data[k])
            g_error ("%s, offset %d: bucket %d, torch %g", name, FIRST_OFFSET + (int) k, got, ref->data[k]);
        }
    }
  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *why = s == 0 ? pl_deberta_buckets_check (2, 512) : pl_deberta_buckets_check (256, 129);

      g_assert_nonnull (why);
    }
  g_assert_cmpint (pl_deberta_bucket (-7, 0, 0), ==, -7);
}

static void
compare_slopes (const float *got,
                const float *ref,
                guint        n,
                const char  *what)
{
  for (guint h = 0; h < n; h++)
    if (fabs (got[h] - ref[h]) > 2 * ref[h] * FLT_EPSILON)
      g_error ("%s, %u heads: slope %u is %.9g, torch %.9g", what, n, h, got[h], ref[h]);
}

static void
test_slopes (void)
{
  g_autofree char *file = buckets_file ();
  g_autoptr(PlMatrix) bloom = pl_test_read_h5 (file, "bloom_slopes");
  g_autoptr(PlMatrix) mpt8 = pl_test_read_h5 (file, "mpt_slopes_8");
  g_autoptr(PlMatrix) mpt12 = pl_test_read_h5 (file, "mpt_slopes_12");
  float slopes[80];

  for (guint n = 1; n <= 80; n++)
    {
      pl_alibi_slopes_bloom (n, slopes);
      compare_slopes (slopes, pl_matrix_row (bloom, n - 1), n, "BLOOM");
      pl_alibi_slopes_mpt (n, 8, slopes);
      compare_slopes (slopes, pl_matrix_row (mpt8, n - 1), n, "MPT, alibi_bias_max 8");
      pl_alibi_slopes_mpt (n, 12, slopes);
      compare_slopes (slopes, pl_matrix_row (mpt12, n - 1), n, "MPT, alibi_bias_max 12");
    }
  /* The two differ past a power of two: MPT interleaves, BLOOM appends */
  pl_alibi_slopes_bloom (6, slopes);
  g_assert_cmpfloat (slopes[4], ==, powf (2, -1));
  pl_alibi_slopes_mpt (6, 8, slopes);
  g_assert_cmpfloat (slopes[0], ==, 0.25f);
  g_assert_cmpfloat (slopes[4], ==, 0.5f);
}

typedef struct
{
  const char *fixture;
  const char *table;      /* --table, or NULL */
  guint       layer;      /* from 0 */
  const char *reference;  /* position_bias/… in reference.h5 */
  PlFamily    family;
} BiasCase;

static const BiasCase bias_cases[] = {
  { "t5", NULL, 0, "encoder", PL_FAMILY_T5 },
  { "t5", "decoder", 0, "decoder", PL_FAMILY_T5 },
  /* T5 shares block 0's bias with every block */
  { "t5", "decoder", 2, "decoder", PL_FAMILY_T5 },
  { "mt5-bin", "encoder", 0, "encoder", PL_FAMILY_T5 },
  { "mt5-bin", "decoder", 1, "decoder", PL_FAMILY_T5 },
  { "umt5", NULL, 0, "encoder/layer1", PL_FAMILY_UMT5 },
  { "umt5", NULL, 1, "encoder/layer2", PL_FAMILY_UMT5 },
  { "umt5", "decoder", 1, "decoder/layer2", PL_FAMILY_UMT5 },
  { "bloom", NULL, 0, "decoder", PL_FAMILY_BLOOM },
  { "bloom-odd", NULL, 1, "decoder", PL_FAMILY_BLOOM },
  { "mpt", NULL, 0, "decoder", PL_FAMILY_MPT },
};

static void
test_model_bias (gconstpointer data)
{
  const BiasCase *c = data;
  g_autofree char *dir = pl_test_fixture ("relpos", c->fixture, NULL);
  g_autofree char *file = pl_test_fixture ("relpos", c->fixture, "reference.h5", NULL);
  g_autofree char *name = g_strdup_printf ("position_bias/%s", c->reference);
  g_autoptr(PlMatrix) ref = pl_test_read_h5 (file, name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;
  double scale, worst = 0;

  g_assert_no_error (error);
  if (c->table != NULL)
    {
      g_assert_true (pl_model_select_table (model, c->table, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpint (pl_model_get_family (model), ==, c->family);
  g_assert_true (pl_model_has_position_bias (model));
  bias = pl_model_compute_position_bias (model, c->layer, (ref->cols + 1) / 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bias->bias->rows, ==, ref->rows);
  g_assert_cmpuint (bias->bias->cols, ==, ref->cols);
  g_assert_cmpint (bias->causal, ==, g_str_has_prefix (c->reference, "decoder"));
  scale = 0;
  for (gsize i = 0; i < ref->rows * ref->cols; i++)
    if (!isnan (ref->data[i]))
      scale = MAX (scale, fabs (ref->data[i]));
  for (gsize i = 0; i < ref->rows * ref->cols; i++)
    {
      g_assert_cmpint (isnan (bias->bias->data[i]), ==, isnan (ref->data[i]));
      if (!isnan (ref->data[i]))
        worst = MAX (worst, fabs (bias->bias->data[i] - ref->data[i]) / scale);
    }
  g_assert_cmpfloat (worst, <, 1e-6);
  g_test_message ("%s %s layer %u: within %.2g of the largest bias", c->fixture, c->reference, c->layer + 1, worst);
}

/* builtin:alibi's slopes are the paper's, 2^(−8h/n), exactly. */
static void
test_builtin_alibi (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:alibi:16x8", NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;

  g_assert_no_error (error);
  g_assert_true (pl_model_has_position_bias (model));
  bias = pl_model_compute_position_bias (model, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bias->length, ==, 16);
  g_assert_true (bias->causal);
  for (guint h = 0; h < 8; h++)
    for (int d = -15; d <= 15; d++)
      {
        float v = pl_matrix_row (bias->bias, h)[d + 15];

        if (d > 0)
          g_assert_true (isnan (v));
        else
          g_assert_cmpfloat (v, ==, (float) exp2 (-(h + 1.0)) * (float) d);
      }
}

static void
test_no_bias (void)
{
  g_autofree char *dir = pl_test_fixture ("relpos", "deberta-v3", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open (dir, NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;

  g_assert_no_error (error);
  g_assert_false (pl_model_has_position_bias (model));
  bias = pl_model_compute_position_bias (model, 0, 0, &error);
  g_assert_null (bias);
  g_assert_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "DeBERTa-v2 models add no bias"));
}

/* The first text TEXT of the figure's last render left of X_BEFORE (any
 * when X_BEFORE is infinite), or NULL. */
static const PlLayoutItem *
find_text (PlFigure   *figure,
           const char *text,
           double      x_before)
{
  const PlLayoutItem *items;
  guint n;

  items = pl_figure_get_layout (figure, &n, NULL, NULL);
  for (guint i = 0; i < n; i++)
    if (items[i].text != NULL && strcmp (items[i].text, text) == 0 && items[i].box.x < x_before)
      return &items[i];
  return NULL;
}

/* The figure numbers heads from 1, as the rest of Poslens does: the head
 * axis's ticks label the rows they sit on (tick 1 on the first row) and the
 * curves' legend names the heads chosen by index 0 and 3 "Head 1" and
 * "Head 4"; a cell under a point is the map's (offset, head) index. */
/* DeBERTa's relative table numbered from bucket −8: the heatmap's ticks run
 * through negative buckets to 0, and a trajectory labels its zero bucket's
 * point "0" and its first "−8" (before, first positions were unsigned and
 * 0 could not be marked). */
static void
test_relative_numbering (void)
{
  g_autoptr(PlMatrix) table = pl_matrix_new (16, 16);
  g_autoptr(PlMatrix) circle = pl_matrix_new (16, 2);
  g_autoptr(PlFigure) heatmap = NULL;
  g_autoptr(PlFigure) trajectory = NULL;
  const double ratios[] = { 0.5, 0.3 };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 480);
  cairo_t *cr = cairo_create (surface);
  const double *ticks;
  gboolean negative = FALSE, zero = FALSE;
  guint n;

  for (guint i = 0; i < 16; i++)
    for (guint j = 0; j < 16; j++)
      pl_matrix_row (table, i)[j] = (float) sin (0.3 * i + 0.7 * j);
  heatmap = pl_figure_new_heatmap (table, 0);
  pl_figure_set_first_position (heatmap, -8);
  pl_figure_render (heatmap, cr, 640, 480);
  ticks = pl_figure_get_ticks (heatmap, TRUE, &n);
  g_assert_nonnull (ticks);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (ticks[i], >=, -8);
      g_assert_cmpfloat (ticks[i], <=, 7);
      negative |= ticks[i] < 0;
      zero |= ticks[i] == 0;
    }
  g_assert_true (negative);
  g_assert_true (zero);

  /* points on a circle: no label hides another */
  for (guint i = 0; i < 16; i++)
    {
      pl_matrix_row (circle, i)[0] = (float) cos (0.4 * i);
      pl_matrix_row (circle, i)[1] = (float) sin (0.4 * i);
    }
  trajectory = pl_figure_new_trajectory (circle, 0, ratios, 0, 1);
  pl_figure_set_first_position (trajectory, -8);
  pl_figure_render (trajectory, cr, 640, 480);
  g_assert_nonnull (find_text (trajectory, "0", INFINITY));
  g_assert_nonnull (find_text (trajectory, "−8", INFINITY));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_figure_heads (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = pl_model_open ("builtin:alibi:16x8", NULL, NULL, &error);
  g_autoptr(PlPositionBias) bias = NULL;
  g_autoptr(PlFigure) figure = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 480);
  cairo_t *cr = cairo_create (surface);
  guint heads[] = { 0, 3 };
  const double *ticks;
  const PlLayoutItem *one;
  cairo_rectangle_t plot;
  guint n, column, row;

  g_assert_no_error (error);
  bias = pl_model_compute_position_bias (model, 0, 0, &error);
  g_assert_no_error (error);
  figure = pl_figure_new_position_bias (bias->bias, -15, NULL, heads, G_N_ELEMENTS (heads));
  pl_figure_render (figure, cr, 640, 480);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  ticks = pl_figure_get_ticks (figure, FALSE, &n);
  g_assert_nonnull (ticks);
  g_assert_cmpfloat (ticks[0], ==, 1);
  g_assert_cmpfloat (ticks[n - 1], <=, 8);
  pl_figure_get_plot_area (figure, &plot);
  one = find_text (figure, "1", plot.x);
  g_assert_nonnull (one);
  g_assert_cmpfloat (fabs (one->box.y + one->box.height / 2 - (plot.y + plot.height / 16)), <, 1);
  g_assert_nonnull (find_text (figure, "Head 1", INFINITY));
  g_assert_nonnull (find_text (figure, "Head 4", INFINITY));
  g_assert_null (find_text (figure, "Head 0", INFINITY));
  g_assert_true (pl_figure_hit_cell (figure, plot.x + 1, plot.y + 1, &column, &row));
  g_assert_cmpuint (column, ==, 0);
  g_assert_cmpuint (row, ==, 0);
  g_assert_true (pl_figure_hit_cell (figure, plot.x + plot.width - 1, plot.y + plot.height - 1, &column, &row));
  g_assert_cmpuint (column, ==, 30);
  g_assert_cmpuint (row, ==, 7);
}

int
main (int   argc,
      char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/position-bias/t5-buckets", test_t5_buckets);
  g_test_add_func ("/pl/position-bias/t5-check", test_t5_check);
  g_test_add_func ("/pl/position-bias/deberta-buckets", test_deberta_buckets);
  g_test_add_func ("/pl/position-bias/slopes", test_slopes);
  g_test_add_func ("/pl/position-bias/builtin-alibi", test_builtin_alibi);
  g_test_add_func ("/pl/position-bias/no-bias", test_no_bias);
  g_test_add_func ("/pl/position-bias/figure-heads", test_figure_heads);
  g_test_add_func ("/pl/position-bias/relative-numbering", test_relative_numbering);
  for (guint i = 0; i < G_N_ELEMENTS (bias_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/pl/position-bias/model/%s-%s-%u", bias_cases[i].fixture,
                                               bias_cases[i].table ? bias_cases[i].table : "default",
                                               bias_cases[i].layer + 1);

      g_test_add_data_func (path, &bias_cases[i], test_model_bias);
    }
  return g_test_run ();
}
