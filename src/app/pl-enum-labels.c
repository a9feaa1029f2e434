/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "pl-enum-labels.h"

const char *
pl_enum_label (GType type,
               int   value)
{
  if (type == PL_TYPE_SIMILARITY_METRIC)
    switch ((PlSimilarityMetric) value)
      {
      case PL_SIMILARITY_COSINE: return _("Cosine similarity");
      case PL_SIMILARITY_DOT:    return _("Dot product");
      case PL_SIMILARITY_L2:     return _("Euclidean distance");
      default:                   break;
      }
  else if (type == PL_TYPE_PROBE_PROTOCOL)
    switch ((PlProbeProtocol) value)
      {
      /* Translators: the probes' protocol: Wang and Chen's own code, or how the cross-validation folds are cut */
      case PL_PROBE_PAPER:       return _("Paper’s protocol");
      case PL_PROBE_INTERLEAVED: return _("Interleaved folds");
      case PL_PROBE_SHUFFLED:    return _("Shuffled folds");
      default:                   break;
      }
  else if (type == PL_TYPE_ENCODING_KIND)
    switch ((PlEncodingKind) value)
      {
      case PL_ENCODING_SINUSOIDAL: return _("Sinusoidal");
      case PL_ENCODING_ROPE:       return _("Rotary (RoPE)");
      case PL_ENCODING_ALIBI:      return _("ALiBi");
      case PL_ENCODING_NONE:       return _("None (no position information)");
      case PL_ENCODING_SINCOS2D:   return _("2-D sine–cosine (MAE)");
      default:                     break;
      }
  else if (type == PL_TYPE_PLAYGROUND_KIND)
    switch ((PlPlaygroundKind) value)
      {
      case PL_PLAYGROUND_SINUSOIDAL: return _("Sinusoidal");
      case PL_PLAYGROUND_ROPE:       return _("Rotary (RoPE)");
      case PL_PLAYGROUND_ALIBI:      return _("ALiBi");
      case PL_PLAYGROUND_SINCOS2D:   return _("2-D sine–cosine (MAE)");
      default:                       break;
      }
  else if (type == PL_TYPE_COLORMAP_ID)
    switch ((PlColormapId) value)
      {
      case PL_COLORMAP_VIRIDIS:   return _("Viridis");
      case PL_COLORMAP_MAGMA:     return _("Magma");
      case PL_COLORMAP_INFERNO:   return _("Inferno");
      case PL_COLORMAP_CIVIDIS:   return _("Cividis");
      case PL_COLORMAP_DIVERGING: return _("Diverging");
      default:                    break;
      }
  else if (type == PL_TYPE_EXPORT_FORMAT)
    switch ((PlExportFormat) value)
      {
      case PL_EXPORT_FORMAT_PNG: return "PNG";
      case PL_EXPORT_FORMAT_SVG: return "SVG";
      case PL_EXPORT_FORMAT_PDF: return "PDF";
      default:                   break;
      }
  else if (type == PL_TYPE_EXPORT_FONT)
    switch ((PlExportFont) value)
      {
      case PL_EXPORT_FONT_SANS:  return _("Sans");
      case PL_EXPORT_FONT_SERIF: return _("Serif");
      default:                   break;
      }
  else if (type == PL_TYPE_EXPORT_SIZE)
    switch ((PlExportSize) value)
      {
      case PL_EXPORT_SIZE_CUSTOM:      return _("Custom");
      case PL_EXPORT_SIZE_ONE_COLUMN:  return _("One column (3.3 in)");
      case PL_EXPORT_SIZE_TWO_COLUMNS: return _("Two columns (7 in)");
      case PL_EXPORT_SIZE_SLIDE:       return _("Slide (16:9)");
      default:                         break;
      }
  g_return_val_if_reached ("");
}

static char *
label_of_item (AdwEnumListItem *item,
               gpointer         type)
{
  if (item == NULL)
    return g_strdup ("");
  return g_strdup (pl_enum_label ((GType) GPOINTER_TO_SIZE (type), adw_enum_list_item_get_value (item)));
}

GtkExpression *
pl_enum_label_expression_new (GType type)
{
  return gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL, G_CALLBACK (label_of_item),
                                      GSIZE_TO_POINTER (type), NULL);
}

void
pl_drop_down_set_enum (GtkDropDown *drop_down,
                       GType        type)
{
  g_autoptr(AdwEnumListModel) list = adw_enum_list_model_new (type);
  g_autoptr(GtkExpression) expression = pl_enum_label_expression_new (type);

  g_return_if_fail (GTK_IS_DROP_DOWN (drop_down));
  gtk_drop_down_set_expression (drop_down, expression);
  gtk_drop_down_set_model (drop_down, G_LIST_MODEL (list));
}

int
pl_drop_down_get_value (GtkDropDown *drop_down)
{
  AdwEnumListItem *item;

  g_return_val_if_fail (GTK_IS_DROP_DOWN (drop_down), 0);
  item = gtk_drop_down_get_selected_item (drop_down);
  g_return_val_if_fail (ADW_IS_ENUM_LIST_ITEM (item), 0);
  return adw_enum_list_item_get_value (item);
}

void
pl_drop_down_set_value (GtkDropDown *drop_down,
                        int          value)
{
  AdwEnumListModel *list;

  g_return_if_fail (GTK_IS_DROP_DOWN (drop_down));
  list = ADW_ENUM_LIST_MODEL (gtk_drop_down_get_model (drop_down));
  gtk_drop_down_set_selected (drop_down, adw_enum_list_model_find_position (list, value));
}

/* The settings hold the value's nick; the widget a position in the list. */
static gboolean
nick_to_position (GValue   *value,
                  GVariant *variant,
                  gpointer  list)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (adw_enum_list_model_get_enum_type (list));
  GEnumValue *found = g_enum_get_value_by_nick (klass, g_variant_get_string (variant, NULL));

  if (found == NULL)
    return FALSE;
  g_value_set_uint (value, adw_enum_list_model_find_position (list, found->value));
  return TRUE;
}

static GVariant *
position_to_nick (const GValue       *value,
                  const GVariantType *type,
                  gpointer            list)
{
  g_autoptr(AdwEnumListItem) item = g_list_model_get_item (G_LIST_MODEL (list), g_value_get_uint (value));

  if (item == NULL)
    return NULL;
  return g_variant_new_string (adw_enum_list_item_get_nick (item));
}

void
pl_settings_bind_enum (GSettings        *settings,
                       const char       *key,
                       gpointer          object,
                       AdwEnumListModel *list)
{
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (ADW_IS_ENUM_LIST_MODEL (list));

  g_settings_bind_with_mapping (settings, key, object, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_position, position_to_nick, g_object_ref (list), g_object_unref);
}

static char *
layer_name (guint i)
{
  return g_strdup_printf (_("Layer %u"), i + 1);
}

static char *
head_name (guint i)
{
  return g_strdup_printf (_("Head %u"), i + 1);
}

static void
set_numbered (GtkStringList *names,
              guint          n,
              char        *(*name) (guint i))
{
  g_return_if_fail (GTK_IS_STRING_LIST (names));

  if (g_list_model_get_n_items (G_LIST_MODEL (names)) == n)
    return;
  gtk_string_list_splice (names, 0, g_list_model_get_n_items (G_LIST_MODEL (names)), NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = name (i);
      gtk_string_list_append (names, text);
    }
}

void
pl_string_list_set_layers (GtkStringList *names,
                           guint          n)
{
  set_numbered (names, n, layer_name);
}

void
pl_string_list_set_heads (GtkStringList *names,
                          guint          n)
{
  set_numbered (names, n, head_name);
}
