/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-view-style.h"

static void
apply (PlFigure    *figure,
       PlWorkspace *workspace,
       gboolean     turned)
{
  GSettings *settings;
  PlColormapId colormap = PL_COLORMAP_VIRIDIS;
  gboolean reversed = FALSE;

  g_return_if_fail (PL_IS_FIGURE (figure));
  g_return_if_fail (PL_IS_WORKSPACE (workspace));

  if ((settings = pl_workspace_get_settings (workspace)))
    {
      g_autofree char *name = g_settings_get_string (settings, "colormap");
      gboolean named_reversed = FALSE;

      if (!pl_colormap_from_string (name, &colormap, &named_reversed))
        colormap = PL_COLORMAP_VIRIDIS;
      reversed = g_settings_get_boolean (settings, "colormap-reversed") != named_reversed;
    }
  pl_figure_set_colormap (figure, colormap);
  pl_figure_set_reversed (figure, reversed != turned);
  pl_figure_set_dark (figure, pl_workspace_get_dark (workspace));
  pl_figure_set_font (figure, NULL, PL_VIEW_SCREEN_FONT_SIZE);
}

void
pl_view_style_apply (PlFigure    *figure,
                     PlWorkspace *workspace)
{
  apply (figure, workspace, FALSE);
}

void
pl_view_style_apply_metric (PlFigure           *figure,
                            PlWorkspace        *workspace,
                            PlSimilarityMetric  metric)
{
  apply (figure, workspace, metric == PL_SIMILARITY_L2);
}

void
pl_view_style_connect (PlWorkspace *workspace,
                       GCallback    callback,
                       gpointer     instance)
{
  GSettings *settings = pl_workspace_get_settings (workspace);

  g_signal_connect_object (workspace, "notify::dark", callback, instance, G_CONNECT_SWAPPED);
  if (settings != NULL)
    {
      g_signal_connect_object (settings, "changed::colormap", callback, instance, G_CONNECT_SWAPPED);
      g_signal_connect_object (settings, "changed::colormap-reversed", callback, instance, G_CONNECT_SWAPPED);
    }
}
