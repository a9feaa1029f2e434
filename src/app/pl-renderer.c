/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gtk/gtk.h>

#include "pl-renderer.h"

/* Whether DRI_DIR holds a render node (renderD128, …): a GPU that GL can
 * use. Without one, Mesa renders GL in software (llvmpipe). */
static gboolean
has_render_node (const char *dri_dir)
{
  g_autoptr(GDir) dir = g_dir_open (dri_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return TRUE;
  return FALSE;
}

/* Chooses GTK's cairo renderer when its GL renderer would run in software:
 * for this application's flat figures software GL draws the first frame
 * about 1.6 times slower than cairo (bench/bench-startup.py, Xvfb:
 * 702 ms against 440 ms). GTK 4.14 and later make the same choice
 * themselves once they see llvmpipe; before it, the absence of a render
 * node under DRI_DIR (normally /dev/dri), or LIBGL_ALWAYS_SOFTWARE, says
 * GL would be software. A GSK_RENDERER the user set is kept. Call before
 * GTK starts; returns whether it chose cairo. */
gboolean
pl_renderer_choose (const char *dri_dir)
{
  const char *software = g_getenv ("LIBGL_ALWAYS_SOFTWARE");

  g_return_val_if_fail (dri_dir != NULL, FALSE);

  if (g_getenv ("GSK_RENDERER") != NULL)
    return FALSE;
  if (gtk_get_major_version () > 4 || (gtk_get_major_version () == 4 && gtk_get_minor_version () >= 14))
    return FALSE;
  if ((software == NULL || g_str_equal (software, "") || g_str_equal (software, "0")) &&
      has_render_node (dri_dir))
    return FALSE;
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  return TRUE;
}
