/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-page.h"

G_DEFINE_INTERFACE (PlPage, pl_page, GTK_TYPE_WIDGET)

static void
pl_page_default_init (PlPageInterface *iface)
{
}

void
pl_page_set_workspace (PlPage      *self,
                       PlWorkspace *workspace)
{
  g_return_if_fail (PL_IS_PAGE (self));
  PL_PAGE_GET_IFACE (self)->set_workspace (self, workspace);
}

PlFigure *
pl_page_get_figure (PlPage *self)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  if (PL_PAGE_GET_IFACE (self)->get_figure == NULL)
    return NULL;
  return PL_PAGE_GET_IFACE (self)->get_figure (self);
}

char *
pl_page_get_export_name (PlPage *self)
{
  g_return_val_if_fail (PL_IS_PAGE (self), NULL);
  if (PL_PAGE_GET_IFACE (self)->get_export_name == NULL)
    return g_strdup ("poslens-figure");
  return PL_PAGE_GET_IFACE (self)->get_export_name (self);
}

void
pl_widget_unparent_children (GtkWidget *widget)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (widget)) != NULL)
    gtk_widget_unparent (child);
}

gboolean
pl_page_defer_until_shown (GtkWidget *page,
                           gboolean  *stale)
{
  *stale = !gtk_widget_get_mapped (page);
  return *stale;
}
