/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pl-colormap.h"
#include "pl-colormap-private.h"

static const char * const names[] = {
  "viridis", "magma", "inferno", "cividis", "diverging", NULL,
};

static const guint8 (*
table_for (PlColormapId id))[3]
{
  switch (id)
    {
    case PL_COLORMAP_MAGMA:     return pl_colormap_magma_data;
    case PL_COLORMAP_INFERNO:   return pl_colormap_inferno_data;
    case PL_COLORMAP_CIVIDIS:   return pl_colormap_cividis_data;
    case PL_COLORMAP_DIVERGING: return pl_colormap_diverging_data;
    case PL_COLORMAP_VIRIDIS:
    default:                    return pl_colormap_viridis_data;
    }
}

const char *
pl_colormap_to_string (PlColormapId id)
{
  if ((guint) id < G_N_ELEMENTS (names) - 1)
    return names[id];
  return NULL;
}

const char * const *
pl_colormap_list_names (void)
{
  return names;
}

gboolean
pl_colormap_from_string (const char   *name,
                         PlColormapId *id,
                         gboolean     *reversed)
{
  g_autofree char *lower = NULL;
  gsize len;
  gboolean rev = FALSE;

  g_return_val_if_fail (name != NULL, FALSE);

  lower = g_ascii_strdown (name, -1);
  len = strlen (lower);
  if (len > 2 && (g_str_has_suffix (lower, "_r") || g_str_has_suffix (lower, "-r")))
    {
      lower[len - 2] = '\0';
      rev = TRUE;
    }
  if (g_str_equal (lower, "rdbu"))
    {
      g_free (lower);
      lower = g_strdup ("diverging");
    }

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (lower, names[i]))
      {
        if (id != NULL)
          *id = (PlColormapId) i;
        if (reversed != NULL)
          *reversed = rev;
        return TRUE;
      }

  return FALSE;
}

static inline guint
index_of (double t)
{
  /* Matplotlib's rule for listed maps: floor (t × N), with t = 1 the last entry. */
  if (!(t > 0))
    return 0;
  if (t >= 1)
    return PL_COLORMAP_N_ENTRIES - 1;
  return MIN ((guint) (t * PL_COLORMAP_N_ENTRIES), PL_COLORMAP_N_ENTRIES - 1);
}

guint32
pl_colormap_lookup (PlColormapId id,
                    gboolean     reversed,
                    double       t)
{
  const guint8 (*table)[3] = table_for (id);
  guint i;

  if (isnan (t))
    return PL_COLORMAP_NO_VALUE;

  i = index_of (t);
  if (reversed)
    i = PL_COLORMAP_N_ENTRIES - 1 - i;

  return ((guint32) table[i][0] << 16) | ((guint32) table[i][1] << 8) | table[i][2];
}

void
pl_colormap_fill_argb (PlColormapId id,
                       gboolean     reversed,
                       guint32      lut[PL_COLORMAP_N_ENTRIES])
{
  const guint8 (*table)[3] = table_for (id);

  for (guint i = 0; i < PL_COLORMAP_N_ENTRIES; i++)
    {
      guint k = reversed ? PL_COLORMAP_N_ENTRIES - 1 - i : i;

      lut[i] = 0xff000000u | ((guint32) table[k][0] << 16) | ((guint32) table[k][1] << 8) | table[k][2];
    }
}
