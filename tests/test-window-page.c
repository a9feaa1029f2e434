/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>

#include "pl-enum-labels.h"
#include "pl-page.h"
#include "pl-preferences-window.h"
#include "pl-test-window.h"
#include "pl-window.h"

/* What every view has from PlPage, and the window's choices as enum types. */

static PlApplication *app;
static PlWindow *window;

static PlPage *
page (const char *name)
{
  return PL_PAGE (pl_window_get_page (window, name));
}

/* The text a label under WIDGET shows, if one shows TEXT. */
static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

/* An error whose text would be markup ("<data>" from GLib's JSON parser, a
 * path with "&") shows as written, not as an empty page. */
static void
test_error_plain_text (void)
{
  const char *message = "config.json: <data>:1:72: Parse error & more";
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, message);
  PlPage *similarity = page ("similarity");

  pl_page_show_error (similarity, NULL, error);
  g_assert_cmpstr (pl_page_get_shown (similarity), ==, "error");
  g_assert_true (shows_text (GTK_WIDGET (pl_page_get_status (similarity)), message));

  pl_page_show_status (similarity, "dialog-warning-symbolic", "Title", "a < b && c > d");
  g_assert_true (shows_text (GTK_WIDGET (pl_page_get_status (similarity)), "a < b && c > d"));
  pl_page_refresh (similarity);
}

static gboolean
has_enum_drop_down (GtkWidget *widget,
                    GType      type)
{
  if (GTK_IS_DROP_DOWN (widget))
    {
      GListModel *model = gtk_drop_down_get_model (GTK_DROP_DOWN (widget));

      if (ADW_IS_ENUM_LIST_MODEL (model) &&
          adw_enum_list_model_get_enum_type (ADW_ENUM_LIST_MODEL (model)) == type)
        return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (has_enum_drop_down (child, type))
      return TRUE;
  return FALSE;
}

/* The drop-downs list an enum type's values under their names. */
static void
test_enum_drop_downs (void)
{
  g_autoptr(GEnumClass) metrics = g_type_class_ref (PL_TYPE_SIMILARITY_METRIC);
  g_autoptr(GtkDropDown) drop_down = GTK_DROP_DOWN (g_object_ref_sink (gtk_drop_down_new (NULL, NULL)));

  g_assert_true (has_enum_drop_down (GTK_WIDGET (page ("similarity")), PL_TYPE_SIMILARITY_METRIC));
  g_assert_true (has_enum_drop_down (GTK_WIDGET (page ("compare")), PL_TYPE_SIMILARITY_METRIC));
  g_assert_true (has_enum_drop_down (GTK_WIDGET (page ("probes")), PL_TYPE_FOLDS));

  /* Every value has a name of its own, and the drop-down answers values. */
  g_assert_cmpuint (metrics->n_values, ==, 3);
  g_assert_cmpstr (pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_L2), ==, "Euclidean distance");
  g_assert_cmpstr (g_enum_get_value (metrics, PL_SIMILARITY_L2)->value_nick, ==,
                   pl_similarity_metric_to_string (PL_SIMILARITY_L2));
  pl_drop_down_set_enum (drop_down, PL_TYPE_ENCODING_KIND);
  pl_drop_down_set_value (drop_down, PL_ENCODING_ALIBI);
  g_assert_cmpint (pl_drop_down_get_value (drop_down), ==, PL_ENCODING_ALIBI);
  pl_drop_down_set_value (drop_down, PL_ENCODING_SINUSOIDAL);
  g_assert_cmpint (pl_drop_down_get_value (drop_down), ==, PL_ENCODING_SINUSOIDAL);
}

static AdwComboRow *
find_combo_row (GtkWidget *widget,
                GType      type)
{
  if (ADW_IS_COMBO_ROW (widget))
    {
      GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (widget));

      if (ADW_IS_ENUM_LIST_MODEL (model) && adw_enum_list_model_get_enum_type (ADW_ENUM_LIST_MODEL (model)) == type)
        return ADW_COMBO_ROW (widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      AdwComboRow *row = find_combo_row (child, type);
      if (row != NULL)
        return row;
    }
  return NULL;
}

/* The preferences' choices are the enum types' values, stored by nick. */
static void
test_preferences_enums (void)
{
  GSettings *settings = pl_workspace_get_settings (pl_window_get_workspace (window));
  GtkWidget *preferences;
  AdwComboRow *colormaps, *metrics;
  g_autoptr(AdwEnumListItem) item = NULL;
  g_autofree char *metric = NULL;

  g_settings_set_string (settings, "colormap", "cividis");
  preferences = pl_preferences_window_new (GTK_WINDOW (window), settings);
  colormaps = find_combo_row (preferences, PL_TYPE_COLORMAP_ID);
  metrics = find_combo_row (preferences, PL_TYPE_SIMILARITY_METRIC);
  g_assert_nonnull (colormaps);
  g_assert_nonnull (metrics);

  item = g_object_ref (adw_combo_row_get_selected_item (colormaps));
  g_assert_cmpint (adw_enum_list_item_get_value (item), ==, PL_COLORMAP_CIVIDIS);
  adw_combo_row_set_selected (metrics, adw_enum_list_model_find_position (
                                ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (metrics)), PL_SIMILARITY_L2));
  metric = g_settings_get_string (settings, "similarity-metric");
  g_assert_cmpstr (metric, ==, "l2");

  g_settings_reset (settings, "colormap");
  g_settings_reset (settings, "similarity-metric");
  gtk_window_destroy (GTK_WINDOW (preferences));
}

int
main (int argc, char *argv[])
{
  int status;

  pl_test_window_init (&argc, &argv);
  window = pl_test_window_open (&app);

  g_test_add_func ("/pl/page/error-plain-text", test_error_plain_text);
  g_test_add_func ("/pl/page/enum-drop-downs", test_enum_drop_downs);
  g_test_add_func ("/pl/page/preferences-enums", test_preferences_enums);
  status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
