/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-encoding-dialog.h"
#include "pl-enum-labels.h"

struct _PlEncodingDialog
{
  AdwMessageDialog  parent_instance;

  AdwComboRow      *kind_row;
  AdwActionRow     *length_row;
  GtkSpinButton    *length_spin;
  AdwActionRow     *cols_row;
  GtkSpinButton    *cols_spin;
  AdwActionRow     *width_row;
  GtkSpinButton    *width_spin;
  AdwActionRow     *base_row;
  GtkSpinButton    *base_spin;
};

G_DEFINE_FINAL_TYPE (PlEncodingDialog, pl_encoding_dialog, ADW_TYPE_MESSAGE_DIALOG)

static PlEncodingKind
get_kind (PlEncodingDialog *self)
{
  AdwEnumListItem *item = adw_combo_row_get_selected_item (self->kind_row);

  return item ? (PlEncodingKind) adw_enum_list_item_get_value (item) : PL_ENCODING_SINUSOIDAL;
}

/* Only the sizes a kind has: ALiBi has heads instead of a width and no
 * base; no encoding has neither; the 2-D table has rows and columns of
 * patches instead of a length. */
static void
on_kind_changed (PlEncodingDialog *self)
{
  PlEncodingKind kind = get_kind (self);
  gboolean grid = kind == PL_ENCODING_SINCOS2D;

  gtk_widget_set_visible (GTK_WIDGET (self->width_row), kind != PL_ENCODING_NONE);
  gtk_widget_set_visible (GTK_WIDGET (self->cols_row), grid);
  gtk_widget_set_visible (GTK_WIDGET (self->base_row),
                          kind == PL_ENCODING_SINUSOIDAL || kind == PL_ENCODING_ROPE || grid);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->length_row), grid ? _("_Rows") : _("_Length"));
  adw_action_row_set_subtitle (self->length_row, grid ? _("Patches down the image") : _("Positions"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->width_row),
                                 kind == PL_ENCODING_ALIBI ? _("_Heads") : _("_Width"));
  /* Sinusoids and RoPE come in pairs of dimensions, the 2-D table in pairs
   * for rows and pairs for columns. */
  gtk_adjustment_set_step_increment (gtk_spin_button_get_adjustment (self->width_spin),
                                     kind == PL_ENCODING_ALIBI ? 1 : grid ? 4 : 2);
  if (grid && gtk_spin_button_get_value (self->length_spin) > 4096)
    gtk_spin_button_set_value (self->length_spin, 14);
}

char *
pl_encoding_dialog_get_spec (PlEncodingDialog *self)
{
  g_autoptr(GEnumClass) kinds = g_type_class_ref (PL_TYPE_ENCODING_KIND);
  PlEncodingKind kind;
  const char *nick;
  guint length, width;
  char base[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (PL_IS_ENCODING_DIALOG (self), NULL);

  kind = get_kind (self);
  nick = g_enum_get_value (kinds, kind)->value_nick;
  length = (guint) gtk_spin_button_get_value (self->length_spin);
  width = (guint) gtk_spin_button_get_value (self->width_spin);
  switch (kind)
    {
    case PL_ENCODING_SINUSOIDAL:
    case PL_ENCODING_ROPE:
      g_ascii_dtostr (base, sizeof base, gtk_spin_button_get_value (self->base_spin));
      return g_strdup_printf ("builtin:%s:%ux%u:%s", nick, length, width & ~1u, base);
    case PL_ENCODING_ALIBI:
      return g_strdup_printf ("builtin:%s:%ux%u", nick, length, width);
    case PL_ENCODING_SINCOS2D:
      g_ascii_dtostr (base, sizeof base, gtk_spin_button_get_value (self->base_spin));
      return g_strdup_printf ("builtin:%s:%ux%ux%u:%s", nick, MIN (length, 4096u),
                              (guint) gtk_spin_button_get_value (self->cols_spin), MAX (width & ~3u, 4u), base);
    case PL_ENCODING_NONE:
    default:
      return g_strdup_printf ("builtin:%s:%u", nick, length);
    }
}

void
pl_encoding_dialog_set (PlEncodingDialog *self,
                        int               kind,
                        guint             length,
                        guint             width,
                        double            base)
{
  AdwEnumListModel *kinds;

  g_return_if_fail (PL_IS_ENCODING_DIALOG (self));

  kinds = ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (self->kind_row));
  adw_combo_row_set_selected (self->kind_row, adw_enum_list_model_find_position (kinds, kind));
  gtk_spin_button_set_value (self->length_spin, length);
  gtk_spin_button_set_value (self->width_spin, width);
  gtk_spin_button_set_value (self->base_spin, base);
}

static void
pl_encoding_dialog_class_init (PlEncodingDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-encoding-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, kind_row);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, length_row);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, length_spin);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, cols_row);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, cols_spin);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, width_row);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, base_row);
  gtk_widget_class_bind_template_child (widget_class, PlEncodingDialog, base_spin);
  gtk_widget_class_bind_template_callback (widget_class, on_kind_changed);
}

static void
pl_encoding_dialog_init (PlEncodingDialog *self)
{
  g_autoptr(AdwEnumListModel) kinds = adw_enum_list_model_new (PL_TYPE_ENCODING_KIND);
  g_autoptr(GtkExpression) names = pl_enum_label_expression_new (PL_TYPE_ENCODING_KIND);

  gtk_widget_init_template (GTK_WIDGET (self));
  adw_combo_row_set_expression (self->kind_row, names);
  adw_combo_row_set_model (self->kind_row, G_LIST_MODEL (kinds));
  on_kind_changed (self);
}

PlEncodingDialog *
pl_encoding_dialog_new (GtkWindow *parent)
{
  return g_object_new (PL_TYPE_ENCODING_DIALOG,
                       "transient-for", parent,
                       "modal", TRUE,
                       NULL);
}
