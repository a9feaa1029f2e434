/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gtk/gtk.h>
#include <string.h>

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

/* Cairo draws without GL, but GDK before 4.14 still loads Mesa and makes
 * a (software) GL context for each window, a share of every start that
 * bench/NOTES.md measures. GDK_DEBUG=gl-disable keeps it from doing so. */
static void
disable_gl (void)
{
  const char *debug = g_getenv ("GDK_DEBUG");
  g_autofree char *flags = NULL;

  if (debug != NULL && strstr (debug, "gl-disable") != NULL)
    return;
  flags = debug != NULL && debug[0] != '\0' ? g_strconcat (debug, ",gl-disable", NULL) : g_strdup ("gl-disable");
  g_setenv ("GDK_DEBUG", flags, TRUE);
}

/* Chooses GTK's cairo renderer when its GL renderer would run in software:
 * for this application's flat figures software GL draws the first frame
 * later than cairo does (bench/bench-startup.py; bench/NOTES.md, Start-up).
 * GTK 4.14 and later make the same choice
 * themselves once they see llvmpipe; before it, the absence of a render
 * node under DRI_DIR (normally /dev/dri), or LIBGL_ALWAYS_SOFTWARE, says
 * GL would be software; GL is then turned off altogether (disable_gl). A
 * GSK_RENDERER the user set is kept. Call before GTK starts; returns
 * whether it chose cairo. */
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
  disable_gl ();
  return TRUE;
}
