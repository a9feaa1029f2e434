/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-cli.h"
#include "pl-cli-figure.h"
#include "pl-error.h"
#include "pl-figure-preset.h"

/* Figure options shared by the analysis commands, and writing the figure. */

#define DEFAULT_WIDTH_PT   432.0   /* 6 × 5 inches */
#define DEFAULT_HEIGHT_PT  360.0
#define DEFAULT_FONT_PT     10.0

static void
add_options (GOptionContext     *context,
             PlCliFigureOptions *options)
{
  /* g_option_context_add_main_entries copies the entries, not the options. */
  const GOptionEntry entries[] = {
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &options->colormap,
      N_("Figure colour map: viridis, magma, inferno, cividis or diverging; “_r” reverses"), N_("NAME") },
    { "size", 0, 0, G_OPTION_ARG_STRING, &options->size,
      N_("Figure size in points (1/72 inch), default 432x360"), N_("WxH") },
    { "width", 0, 0, G_OPTION_ARG_STRING, &options->width,
      N_("Figure width: 3.3in (a column), 7in (a page), slide (10 × 5.625 in), or a length like 300pt, 5in or "
         "8.5cm; the height is the figure’s own"), N_("WIDTH") },
    { "font-size", 0, 0, G_OPTION_ARG_DOUBLE, &options->font_size,
      N_("Figure text size in points (default: the width’s, else 10)"), N_("PT") },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &options->dpi, N_("PNG resolution, default 150"), N_("DPI") },
    { "title", 0, 0, G_OPTION_ARG_STRING, &options->title, N_("Figure title"), N_("TEXT") },
    { "azimuth", 0, 0, G_OPTION_ARG_DOUBLE, &options->azimuth,
      N_("3-D view: turn about the vertical, in degrees"), N_("DEG") },
    { "elevation", 0, 0, G_OPTION_ARG_DOUBLE, &options->elevation,
      N_("3-D view: tilt towards the viewer, in degrees"), N_("DEG") },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

void
pl_cli_figure_options_clear (PlCliFigureOptions *options)
{
  g_clear_pointer (&options->colormap, g_free);
  g_clear_pointer (&options->size, g_free);
  g_clear_pointer (&options->title, g_free);
  g_clear_pointer (&options->width, g_free);
}

gboolean
pl_cli_figure_is_figure_path (const char *path)
{
  g_autofree char *lower = NULL;

  if (path == NULL)
    return FALSE;
  lower = g_ascii_strdown (path, -1);
  return g_str_has_suffix (lower, ".png") || g_str_has_suffix (lower, ".svg") || g_str_has_suffix (lower, ".pdf");
}

static gboolean
parse_size (const char *text,
            double     *width,
            double     *height)
{
  char *end = NULL;

  *width = g_ascii_strtod (text, &end);
  if (end == text || (*end != 'x' && *end != 'X'))
    return FALSE;
  text = end + 1;
  *height = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && *width > 0 && *height > 0 && isfinite (*width) && isfinite (*height);
}

gboolean
pl_cli_figure_page (const char  *width,
                    double       font_size,
                    double      *width_pt,
                    double      *height_pt,
                    double      *text_pt,
                    GError     **error)
{
  PlFigurePreset preset = PL_FIGURE_N_PRESETS;

  if (!(font_size >= 0) || !isfinite (font_size) || font_size > 100)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--font-size must be a size in points above 0, like 8 or 10, not %g", font_size);
      return FALSE;
    }
  *width_pt = DEFAULT_WIDTH_PT;
  *height_pt = 0;
  *text_pt = font_size > 0 ? font_size : DEFAULT_FONT_PT;
  if (width == NULL)
    return TRUE;
  if (!pl_figure_parse_width (width, width_pt, &preset, error))
    return FALSE;
  if (preset < PL_FIGURE_N_PRESETS)
    {
      *height_pt = pl_figure_preset_get (preset)->height;
      if (font_size == 0)
        *text_pt = pl_figure_preset_get (preset)->font_size;
    }
  return TRUE;
}

gboolean
pl_cli_figure_check_options (const PlCliFigureOptions *options,
                             GError                  **error)
{
  double w, h, text;

  if (options->size != NULL && !parse_size (options->size, &w, &h))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--size wants WIDTHxHEIGHT in points, like 432x360, not “%s”", options->size);
      return FALSE;
    }
  if (options->size != NULL && options->width != NULL)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "--size and --width both set the figure's width: give one");
      return FALSE;
    }
  if (!pl_cli_figure_page (options->width, options->font_size, &w, &h, &text, error))
    return FALSE;
  if (!(options->dpi > 0) || !isfinite (options->dpi))
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                           "--dpi must be a positive number, like 150 or 300");
      return FALSE;
    }
  if (options->colormap != NULL && !pl_colormap_from_string (options->colormap, NULL, NULL))
    {
      g_autofree char *names = g_strjoinv (", ", (char **) pl_colormap_list_names ());

      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--colormap “%s” is not one of %s (add _r to reverse)", options->colormap, names);
      return FALSE;
    }
  return TRUE;
}

gboolean
pl_cli_figure_parse (GOptionContext      *context,
                     PlCliFigureOptions  *options,
                     int                 *argc,
                     char              ***argv,
                     GError             **error)
{
  add_options (context, options);
  return g_option_context_parse (context, argc, argv, error) && pl_cli_figure_check_options (options, error);
}

gboolean
pl_cli_figure_write (PlFigure                 *figure,
                     const char               *out,
                     const PlCliFigureOptions *options,
                     GError                  **error)
{
  double width = DEFAULT_WIDTH_PT, height = DEFAULT_HEIGHT_PT, text = DEFAULT_FONT_PT;

  if (!pl_cli_figure_check_options (options, error))
    return FALSE;
  if (options->size != NULL)
    parse_size (options->size, &width, &height);
  else if (options->width != NULL)
    pl_cli_figure_page (options->width, options->font_size, &width, &height, &text, NULL);
  else if (options->font_size > 0)
    text = options->font_size;
  pl_figure_set_font (figure, NULL, text);
  if (options->colormap != NULL)
    {
      PlColormapId id;
      gboolean reversed;

      pl_colormap_from_string (options->colormap, &id, &reversed);
      pl_figure_set_colormap (figure, id);
      pl_figure_set_reversed (figure, reversed);
    }
  if (options->title != NULL)
    pl_figure_set_title (figure, options->title);
  if (!isnan (options->azimuth) || !isnan (options->elevation))
    pl_figure_set_rotation (figure,
                            isnan (options->azimuth) ? 0 : options->azimuth,
                            isnan (options->elevation) ? 0 : options->elevation);
  /* A width alone: the figure's own height there, with its text and title. */
  if (options->size == NULL && options->width != NULL && height == 0)
    height = pl_figure_get_preferred_height (figure, width);

  return pl_figure_export (figure, out, width, height, options->dpi, error);
}

static guint
first_position (const char *rows)
{
  gsize first = 0, count;

  /* The command has read the rows already, so the spec is known to be good. */
  if (rows == NULL || !pl_cli_parse_rows (rows, G_MAXUINT32, &first, &count, NULL))
    return 0;
  return (guint) first;
}

void
pl_cli_figure_show_metric (PlFigure           *figure,
                           PlSimilarityMetric  metric)
{
  switch (metric)
    {
    case PL_SIMILARITY_DOT:
      pl_figure_set_value_label (figure, "Dot product");
      break;
    case PL_SIMILARITY_L2:
      pl_figure_set_value_label (figure, "Euclidean distance");
      /* Near positions bright, as similar ones are for cosine; a --colormap
       * given is taken as it is. */
      pl_figure_set_reversed (figure, TRUE);
      break;
    case PL_SIMILARITY_COSINE:
    default:
      pl_figure_set_value_label (figure, "Cosine similarity");
      break;
    }
}

gboolean
pl_cli_figure_write_similarity (PlMatrix                 *similarity,
                                PlSimilarityMetric        metric,
                                const char               *rows,
                                const char               *out,
                                const PlCliFigureOptions *options,
                                GError                  **error)
{
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (similarity, first_position (rows));

  pl_cli_figure_show_metric (figure, metric);
  return pl_cli_figure_write (figure, out, options, error);
}

gboolean
pl_cli_figure_write_pca (PlPca                    *pca,
                         const char               *rows,
                         const char               *out,
                         const PlCliFigureOptions *options,
                         GError                  **error)
{
  g_autoptr(PlFigure) figure = NULL;
  g_autofree double *ratio = g_new (double, pca->n_components);
  guint first = first_position (rows);

  for (guint k = 0; k < pca->n_components; k++)
    ratio[k] = pl_matrix_get (pca->explained_variance_ratio, 0, k);

  if ((!isnan (options->azimuth) || !isnan (options->elevation)) && pca->n_components >= 3)
    figure = pl_figure_new_trajectory_3d (pca->projection, first, ratio, 0, 1, 2);
  else if (pca->n_components >= 2)
    figure = pl_figure_new_trajectory (pca->projection, first, ratio, 0, 1);
  else
    {
      figure = pl_figure_new_bars (ratio, pca->n_components, NULL);
      pl_figure_set_axis_labels (figure, "Component", "Ratio of variance");
    }
  return pl_cli_figure_write (figure, out, options, error);
}

/* Offsets shown in the line plot: attention mass is near the diagonal, and a
 * thousand offsets would squeeze that into a spike. The files hold them all. */
#define MAX_OFFSET 64

gboolean
pl_cli_figure_write_attention (PlAttentionStats         *stats,
                               int                       layer,
                               int                       head,
                               const char               *out,
                               const PlCliFigureOptions *options,
                               GError                  **error)
{
  g_autoptr(PlFigure) figure = NULL;

  if (layer > 0)
    {
      guint t = stats->n_tokens;
      int reach = (int) MIN (t - 1, MAX_OFFSET);
      int first = reach, last = -reach, n;
      g_autofree double *x = NULL;
      g_autofree double *y = NULL;
      g_autofree char *title = NULL;

      /* Only the offsets that get any attention: a causal model's future is empty. */
      for (guint h = 0; h < stats->n_heads; h++)
        {
          const float *profile = pl_matrix_row (stats->offset_profile, (gsize) (layer - 1) * stats->n_heads + h);

          /* Column o + T − 1 holds offset o. */
          for (int o = -reach; o <= reach; o++)
            if (profile[(int) t - 1 + o] != 0 && (head < 0 || (guint) head == h))
              {
                first = MIN (first, o);
                last = MAX (last, o);
              }
        }
      if (first > last)
        first = -reach, last = reach;
      n = last - first + 1;
      x = g_new (double, n);
      y = g_new (double, n);
      for (int k = 0; k < n; k++)
        x[k] = first + k;
      figure = pl_figure_new_lines (x, n);
      for (guint h = 0; h < stats->n_heads; h++)
        {
          const float *profile = pl_matrix_row (stats->offset_profile, (gsize) (layer - 1) * stats->n_heads + h);
          g_autofree char *name = g_strdup_printf ("Head %u", h + 1);

          if (head >= 0 && (guint) head != h)
            continue;
          for (int k = 0; k < n; k++)
            y[k] = profile[(int) t - 1 + first + k];
          pl_figure_add_series (figure, name, y);
        }
      title = head >= 0 ? g_strdup_printf ("Layer %d, head %d", layer, head + 1) : g_strdup_printf ("Layer %d", layer);
      pl_figure_set_title (figure, title);
      pl_figure_set_axis_labels (figure, "Offset (key − query)", "Attention mass");
    }
  else
    {
      gsize n = (gsize) stats->n_layers * stats->n_heads;
      g_autofree double *x = g_new (double, n);
      g_autofree double *y = g_new (double, n);
      g_autofree double *c = g_new (double, n);

      for (guint l = 0; l < stats->n_layers; l++)
        for (guint h = 0; h < stats->n_heads; h++)
          {
            gsize i = (gsize) l * stats->n_heads + h;

            x[i] = l + 1;
            y[i] = pl_matrix_get (stats->mean_distance, l, h);
            c[i] = h + 1;
          }
      figure = pl_figure_new_scatter (x, y, n);
      pl_figure_set_point_values (figure, c);
      pl_figure_set_value_label (figure, "Head");
      pl_figure_set_axis_labels (figure, "Layer", "Mean attention distance (positions)");
    }

  return pl_cli_figure_write (figure, out, options, error);
}

gboolean
pl_cli_figure_write_probe (const PlProbeSummary     *summary,
                           const char               *name,
                           const char               *out,
                           const PlCliFigureOptions *options,
                           GError                  **error)
{
  const char * const columns[] = { "Absolute position, MAE", "Relative order, error rate", NULL };
  const double values[] = { summary->absolute.mean, summary->relative.mean };
  const double half_widths[] = {
    summary->absolute.n > 1 ? summary->absolute.half_width : NAN,
    summary->relative.n > 1 ? summary->relative.half_width : NAN,
  };
  g_autoptr(PlFigure) figure = pl_figure_new_table (columns);
  PlCliFigureOptions fitted = *options;
  g_autofree char *natural = NULL;
  double w, h;

  pl_figure_add_row_with_intervals (figure, name, values, half_widths);
  if (options->title != NULL)
    pl_figure_set_title (figure, options->title);
  /* One row needs no 5-inch page: without --size or --width, the table's own size. */
  if (fitted.font_size > 0)
    pl_figure_set_font (figure, NULL, fitted.font_size);
  if (fitted.size == NULL && fitted.width == NULL && pl_figure_get_natural_size (figure, &w, &h))
    fitted.size = natural = g_strdup_printf ("%.0fx%.0f", ceil (w), ceil (h));
  return pl_cli_figure_write (figure, out, &fitted, error);
}
