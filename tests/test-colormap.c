/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "pl-colormap.h"
#include "pl-test-util.h"

/* Published values: matplotlib's to_hex (cmap (t)) for t = 0, ¼, ½, ¾, 1,
 * i.e. table entries 0, 64, 128, 192, 255 (viridis's five are the palette
 * everybody quotes). Exact match: both sides round the same float tables. */
static const struct
{
  PlColormapId id;
  guint32      hex[5];
} published[] = {
  { PL_COLORMAP_VIRIDIS,   { 0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725 } },
  { PL_COLORMAP_MAGMA,     { 0x000004, 0x51127c, 0xb73779, 0xfc8961, 0xfcfdbf } },
  { PL_COLORMAP_INFERNO,   { 0x000004, 0x57106e, 0xbc3754, 0xf98e09, 0xfcffa4 } },
  { PL_COLORMAP_CIVIDIS,   { 0x00224e, 0x434e6c, 0x7d7c78, 0xbcae6c, 0xfee838 } },
  { PL_COLORMAP_DIVERGING, { 0x053061, 0x6bacd1, 0xf7f6f6, 0xe48066, 0x67001f } },   /* RdBu_r */
};

static void
test_published_values (void)
{
  for (guint m = 0; m < G_N_ELEMENTS (published); m++)
    for (guint k = 0; k < 5; k++)
      {
        double t = k / 4.0;
        guint32 got = pl_colormap_lookup (published[m].id, FALSE, t);

        if (got != published[m].hex[k])
          g_error ("%s (%.2f) = #%06x, published #%06x", pl_colormap_to_string (published[m].id),
                   t, got, published[m].hex[k]);
      }
}

static void
test_reversed (void)
{
  for (PlColormapId id = PL_COLORMAP_VIRIDIS; id <= PL_COLORMAP_DIVERGING; id++)
    for (guint i = 0; i < PL_COLORMAP_N_ENTRIES; i++)
      {
        /* The centre of entry i, and of its mirror. */
        double t = (i + 0.5) / PL_COLORMAP_N_ENTRIES;

        g_assert_cmphex (pl_colormap_lookup (id, TRUE, t), ==, pl_colormap_lookup (id, FALSE, 1 - t));
      }
  g_assert_cmphex (pl_colormap_lookup (PL_COLORMAP_VIRIDIS, TRUE, 0), ==, 0xfde725);
  g_assert_cmphex (pl_colormap_lookup (PL_COLORMAP_VIRIDIS, TRUE, 1), ==, 0x440154);
}

static void
test_nan_and_clamp (void)
{
  for (PlColormapId id = PL_COLORMAP_VIRIDIS; id <= PL_COLORMAP_DIVERGING; id++)
    {
      g_assert_cmphex (pl_colormap_lookup (id, FALSE, NAN), ==, PL_COLORMAP_NO_VALUE);
      g_assert_cmphex (pl_colormap_lookup (id, TRUE, NAN), ==, PL_COLORMAP_NO_VALUE);
      g_assert_cmphex (pl_colormap_lookup (id, FALSE, -3), ==, pl_colormap_lookup (id, FALSE, 0));
      g_assert_cmphex (pl_colormap_lookup (id, FALSE, -INFINITY), ==, pl_colormap_lookup (id, FALSE, 0));
      g_assert_cmphex (pl_colormap_lookup (id, FALSE, 7), ==, pl_colormap_lookup (id, FALSE, 1));
      g_assert_cmphex (pl_colormap_lookup (id, FALSE, INFINITY), ==, pl_colormap_lookup (id, FALSE, 1));
    }
}

/* The diverging map: blue below the centre, red above, pale in between. */
static void
test_diverging_shape (void)
{
  guint32 lo = pl_colormap_lookup (PL_COLORMAP_DIVERGING, FALSE, 0.1);
  guint32 mid = pl_colormap_lookup (PL_COLORMAP_DIVERGING, FALSE, 0.5);
  guint32 hi = pl_colormap_lookup (PL_COLORMAP_DIVERGING, FALSE, 0.9);

  g_assert_cmpuint (lo & 0xff, >, lo >> 16);
  g_assert_cmpuint (hi >> 16, >, hi & 0xff);
  g_assert_cmpuint (mid >> 16, >=, 0xf0);
  g_assert_cmpuint ((mid >> 8) & 0xff, >=, 0xf0);
  g_assert_cmpuint (mid & 0xff, >=, 0xf0);
}

static void
test_argb_table (void)
{
  guint32 lut[PL_COLORMAP_N_ENTRIES];

  pl_colormap_fill_argb (PL_COLORMAP_MAGMA, TRUE, lut);
  for (guint i = 0; i < PL_COLORMAP_N_ENTRIES; i++)
    g_assert_cmphex (lut[i], ==, 0xff000000u | pl_colormap_lookup (PL_COLORMAP_MAGMA, TRUE, (i + 0.5) / 256));
}

static void
test_names (void)
{
  PlColormapId id;
  gboolean reversed;

  g_assert_true (pl_colormap_from_string ("Magma", &id, &reversed));
  g_assert_cmpint (id, ==, PL_COLORMAP_MAGMA);
  g_assert_false (reversed);
  g_assert_true (pl_colormap_from_string ("cividis_r", &id, &reversed));
  g_assert_cmpint (id, ==, PL_COLORMAP_CIVIDIS);
  g_assert_true (reversed);
  g_assert_true (pl_colormap_from_string ("rdbu-r", &id, &reversed));
  g_assert_cmpint (id, ==, PL_COLORMAP_DIVERGING);
  g_assert_true (reversed);
  g_assert_false (pl_colormap_from_string ("jet", &id, &reversed));
  g_assert_false (pl_colormap_from_string ("_r", &id, &reversed));
  for (const char * const *n = pl_colormap_list_names (); *n != NULL; n++)
    {
      g_assert_true (pl_colormap_from_string (*n, &id, NULL));
      g_assert_cmpstr (pl_colormap_to_string (id), ==, *n);
    }
}

int
main (int argc, char **argv)
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/colormap/published-values", test_published_values);
  g_test_add_func ("/pl/colormap/reversed", test_reversed);
  g_test_add_func ("/pl/colormap/nan-and-clamp", test_nan_and_clamp);
  g_test_add_func ("/pl/colormap/diverging-shape", test_diverging_shape);
  g_test_add_func ("/pl/colormap/argb-table", test_argb_table);
  g_test_add_func ("/pl/colormap/names", test_names);

  return g_test_run ();
}
