/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "pl-encodings.h"
#include "pl-enum-labels.h"
#include "pl-figure-pair.h"
#include "pl-figure-view.h"
#include "pl-grid.h"
#include "pl-pca.h"
#include "pl-playground-page.h"
#include "pl-rope.h"
#include "pl-similarity.h"
#include "pl-view-style.h"

/* Analytic encodings with their knobs out, changing as the user turns them:
 * the sinusoidal table (its similarity and trajectory for a length, width
 * and base); rotary embeddings (the similarity of their rotation phases, and
 * the score of a fixed query and key by offset with RoFormer's bound on it,
 * for a head size and base); ALiBi (each head's bias by distance); MAE's
 * 2-D sine–cosine table (the grid of grids and principal colours of a
 * square grid, as the Patches view draws a vision transformer's). Each
 * change cancels the computation in flight; only the latest answer is kept. */

/* The largest side of the 2-D table's square grid. */
#define MAX_GRID_SIDE 48

struct _PlPlaygroundPage
{
  PlPage          parent_instance;

  PlPlaygroundKind kind;           /* of the answer on screen */
  PlPlaygroundKind asked;          /* of the question in flight */
  PlMatrix       *matrix;
  PlMatrix       *projection;     /* on screen in the trajectory */
  PlMatrix       *curves;         /* RoPE: score and bound rows; ALiBi: the biases */
  guint           grid_side;      /* the last question's length (the 2-D grid's side) and width */
  guint           grid_width;

  /* Template widgets */
  GtkDropDown    *kind_dropdown;
  GtkLabel       *width_label;
  GtkLabel       *length_label;
  GtkWidget      *base_box;
  GtkLabel       *caption_label;
  GtkSpinButton  *length_spin;
  GtkSpinButton  *width_spin;
  GtkScale       *base_scale;
  GtkLabel       *base_label;
  GtkWidget      *figures;
  PlFigureView   *heatmap_view;
  PlFigureView   *trajectory_view;
};

G_DEFINE_FINAL_TYPE (PlPlaygroundPage, pl_playground_page, PL_TYPE_PAGE)

typedef struct
{
  PlPlaygroundKind kind;
  guint            length;
  guint            width;    /* ALiBi: heads */
  double           base;
} Spec;

static PlPlaygroundKind
get_kind (PlPlaygroundPage *self)
{
  return (PlPlaygroundKind) pl_drop_down_get_value (self->kind_dropdown);
}

static double
get_base (PlPlaygroundPage *self)
{
  return pow (10.0, gtk_range_get_value (GTK_RANGE (self->base_scale)));
}

/* RoPE's answer: [cosine of the phase table, 2 × offsets: the score of
 * q = k = (1, …, 1) and RoFormer's bound on it, both divided by the score
 * at offset 0, the head size d]. Both in one unit, the bound lies above the
 * score at every offset: for q = k = 1 every pair of dims contributes
 * h_j = 2, so the score is 2 Re S_{d/2} and RoFormer's bound
 * max |h_{j+1} − h_j| Σ |S_j| is 2 Σ |S_j|, which pl_rope_decay_bound gives
 * divided by d (its (2/d) Σ |S_j|). */
static gboolean
compute_rope (Spec          *spec,
              GCancellable  *cancellable,
              GPtrArray     *answer,
              GError       **error)
{
  PlEncodingSpec encoding = {
    .kind = PL_ENCODING_ROPE, .length = spec->length, .width = spec->width, .base = spec->base,
  };
  g_autoptr(PlMatrix) table = NULL;
  g_autoptr(PlMatrix) cosine = NULL;
  g_autoptr(PlMatrix) scores = NULL;
  g_autoptr(PlMatrix) bound = NULL;
  g_autofree float *ones = g_new (float, spec->width);
  PlMatrix *curves;

  for (guint i = 0; i < spec->width; i++)
    ones[i] = 1.0f;
  if (!(table = pl_encoding_table (&encoding, error)) ||
      !(cosine = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, cancellable, error)))
    return FALSE;
  scores = pl_encoding_rope_scores (ones, ones, spec->width, spec->base, 0, (int) spec->length - 1);
  bound = pl_rope_decay_bound (spec->width, spec->base, spec->length - 1);
  curves = pl_matrix_new (2, spec->length);
  for (guint m = 0; m < spec->length; m++)
    {
      curves->data[m] = scores->data[m] / spec->width;
      curves->data[spec->length + m] = bound->data[m];
    }
  g_ptr_array_add (answer, g_steal_pointer (&cosine));
  g_ptr_array_add (answer, curves);
  return TRUE;
}

/* The answer: sinusoidal [cosine, projection (3 components), explained
 * ratios]; RoPE [cosine, curves]; ALiBi [biases, heads × distance]; 2-D
 * sine–cosine [the patches' cosine, their principal colours, explained
 * ratios]. */
static gboolean
compute (PlAnalysisJob  *job,
         gpointer        data,
         GValue         *result,
         GError        **error)
{
  Spec *spec = data;
  GCancellable *cancellable = pl_analysis_job_get_cancellable (job);
  g_autoptr(GPtrArray) answer = g_ptr_array_new_with_free_func ((GDestroyNotify) pl_matrix_unref);

  if (spec->kind == PL_PLAYGROUND_ROPE)
    {
      if (!compute_rope (spec, cancellable, answer, error))
        return FALSE;
    }
  else if (spec->kind == PL_PLAYGROUND_ALIBI)
    g_ptr_array_add (answer, pl_encoding_alibi_bias (spec->width, spec->length));
  else if (spec->kind == PL_PLAYGROUND_SINCOS2D)
    {
      g_autoptr(PlMatrix) table = pl_encoding_sincos2d (spec->length, spec->length, spec->width, spec->base);
      g_autoptr(PlMatrix) cosine = NULL;
      g_autoptr(PlPca) pca = NULL;

      if (!(cosine = pl_grid_similarity (table, NULL, PL_SIMILARITY_COSINE, NULL, cancellable, error)))
        return FALSE;
      if (!(pca = pl_pca_compute (table, MIN (3, MIN (table->rows, table->cols)), cancellable, error)))
        return FALSE;
      g_ptr_array_add (answer, g_steal_pointer (&cosine));
      g_ptr_array_add (answer, pl_grid_pca_colors (pca));
      g_ptr_array_add (answer, pl_matrix_ref (pca->explained_variance_ratio));
    }
  else
    {
      g_autoptr(PlMatrix) table = pl_encoding_sinusoidal (spec->length, spec->width, spec->base);
      g_autoptr(PlMatrix) cosine = NULL;
      g_autoptr(PlPca) pca = NULL;

      if (!(cosine = pl_similarity_compute (table, PL_SIMILARITY_COSINE, FALSE, cancellable, error)))
        return FALSE;
      if (!(pca = pl_pca_compute (table, MIN (3, MIN (table->rows, table->cols)), cancellable, error)))
        return FALSE;
      g_ptr_array_add (answer, g_steal_pointer (&cosine));
      g_ptr_array_add (answer, pl_matrix_ref (pca->projection));
      g_ptr_array_add (answer, pl_matrix_ref (pca->explained_variance_ratio));
    }
  g_value_init (result, G_TYPE_PTR_ARRAY);
  g_value_take_boxed (result, g_steal_pointer (&answer));
  return TRUE;
}

/* Lines of MATRIX's rows against 0 … cols − 1, named NAMES (or "Head h"). */
static PlFigure *
rows_as_lines (PlMatrix           *matrix,
               const char * const *names)
{
  g_autofree double *x = g_new (double, matrix->cols);
  g_autofree double *y = g_new (double, matrix->cols);
  PlFigure *figure;

  for (gsize i = 0; i < matrix->cols; i++)
    x[i] = (double) i;
  figure = pl_figure_new_lines (x, matrix->cols);
  for (gsize r = 0; r < matrix->rows; r++)
    {
      g_autofree char *head = g_strdup_printf (_("Head %u"), (guint) r + 1);

      for (gsize i = 0; i < matrix->cols; i++)
        y[i] = pl_matrix_get (matrix, r, i);
      pl_figure_add_series (figure, names ? names[r] : head, y);
    }
  return figure;
}

static void
show_curves (PlPlaygroundPage *self,
             PlPlaygroundKind  kind,
             PlMatrix         *heatmap_values,
             PlMatrix         *curves)
{
  guint length = (guint) gtk_spin_button_get_value (self->length_spin);
  guint width = (guint) gtk_spin_button_get_value (self->width_spin);
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (heatmap_values, 0);
  g_autoptr(PlFigure) lines = NULL;
  g_autofree char *title = NULL;

  pl_view_style_apply (heatmap, pl_page_get_workspace (PL_PAGE (self)));
  if (kind == PL_PLAYGROUND_ROPE)
    {
      const char *names[] = { _("Score, q = k = 1"), _("RoFormer’s bound") };

      /* Translators: the rotary playground: positions, head size, base */
      title = g_strdup_printf (_("RoPE %u positions, head size %u, base %.0f"), length, width & ~1u, get_base (self));
      pl_figure_set_range (heatmap, -1, 1);
      pl_figure_set_title (heatmap, title);
      pl_figure_set_value_label (heatmap, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_COSINE));
      lines = rows_as_lines (curves, names);
      pl_figure_set_title (lines, _("Long-range decay of a rotary score"));
      pl_figure_set_axis_labels (lines, _("Offset j − i"), _("Relative to the score at offset 0"));
    }
  else
    {
      /* Translators: the ALiBi playground: heads, positions */
      title = g_strdup_printf (_("ALiBi, %u heads, %u positions"), width, length);
      pl_figure_set_first_row (heatmap, 1);
      pl_figure_set_title (heatmap, title);
      pl_figure_set_axis_labels (heatmap, _("Distance |i − j|"), _("Head"));
      pl_figure_set_value_label (heatmap, _("Bias added to the score"));
      lines = rows_as_lines (curves, NULL);
      pl_figure_set_title (lines, _("Each head’s bias by distance"));
      pl_figure_set_axis_labels (lines, _("Distance |i − j|"), _("Bias −m·d"));
    }
  pl_view_style_apply (lines, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_view_set_figure (self->heatmap_view, heatmap, heatmap_values->cols, heatmap_values->rows);
  pl_figure_view_set_figure (self->trajectory_view, lines, 0, 0);
  g_clear_pointer (&self->matrix, pl_matrix_unref);
  self->matrix = pl_matrix_ref (heatmap_values);
  g_clear_pointer (&self->curves, pl_matrix_unref);
  self->curves = pl_matrix_ref (curves);
  g_clear_pointer (&self->projection, pl_matrix_unref);
}

/* The 2-D table as the Patches view draws a vision transformer's: the grid
 * of grids beside the principal colours. */
static void
show_grid (PlPlaygroundPage *self,
           GPtrArray        *answer)
{
  PlMatrix *cosine = g_ptr_array_index (answer, 0);
  PlMatrix *rgb = g_ptr_array_index (answer, 1);
  PlMatrix *ratios = g_ptr_array_index (answer, 2);
  guint side = self->grid_side;
  double explained[3] = { NAN, NAN, NAN };
  g_autoptr(PlFigure) grid = pl_figure_new_patch_grid (cosine, side, side);
  g_autoptr(PlFigure) colours = NULL;
  g_autofree char *title = NULL;

  for (guint i = 0; i < MIN (3, ratios->cols); i++)
    explained[i] = ratios->data[i];
  colours = pl_figure_new_grid_colors (rgb, side, side, explained);
  /* Translators: the 2-D playground: grid rows × columns × width, base */
  title = g_strdup_printf (_("2-D sine–cosine %u × %u × %u, base %.0f"), side, side, self->grid_width, get_base (self));
  pl_view_style_apply (grid, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_set_title (grid, title);
  pl_figure_set_axis_labels (grid, _("Patch column"), _("Patch row"));
  pl_figure_set_value_label (grid, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_COSINE));
  pl_view_style_apply (colours, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_set_title (colours, _("First three principal components as colours"));
  pl_figure_set_axis_labels (colours, _("Patch column"), _("Patch row"));
  pl_figure_view_set_figure (self->heatmap_view, grid, 0, 0);
  pl_figure_view_set_figure (self->trajectory_view, colours, 0, 0);

  g_clear_pointer (&self->matrix, pl_matrix_unref);
  self->matrix = pl_matrix_ref (cosine);
  g_clear_pointer (&self->curves, pl_matrix_unref);
  g_clear_pointer (&self->projection, pl_matrix_unref);
}

static void
show_answer (PlPlaygroundPage *self,
             PlPlaygroundKind  kind,
             GPtrArray        *answer)
{
  PlMatrix *cosine = g_ptr_array_index (answer, 0);
  PlMatrix *projection, *ratios;
  double explained[3] = { 0, 0, 0 };
  g_autoptr(PlFigure) heatmap = NULL;
  g_autoptr(PlFigure) trajectory = NULL;
  g_autofree char *title = NULL;

  self->kind = kind;
  if (kind == PL_PLAYGROUND_ROPE)
    {
      show_curves (self, kind, cosine, g_ptr_array_index (answer, 1));
      return;
    }
  if (kind == PL_PLAYGROUND_ALIBI)
    {
      show_curves (self, kind, cosine, cosine);
      return;
    }
  if (kind == PL_PLAYGROUND_SINCOS2D)
    {
      show_grid (self, answer);
      return;
    }
  projection = g_ptr_array_index (answer, 1);
  ratios = g_ptr_array_index (answer, 2);
  heatmap = pl_figure_new_heatmap (cosine, 0);
  g_clear_pointer (&self->curves, pl_matrix_unref);

  for (guint i = 0; i < MIN (3, ratios->cols); i++)
    explained[i] = ratios->data[i];

  title = g_strdup_printf (_("Sinusoidal %u × %u, base %.0f"),
                           (guint) gtk_spin_button_get_value (self->length_spin),
                           (guint) gtk_spin_button_get_value (self->width_spin), get_base (self));
  pl_figure_set_range (heatmap, -1, 1);
  pl_view_style_apply (heatmap, pl_page_get_workspace (PL_PAGE (self)));
  pl_figure_set_title (heatmap, title);
  pl_figure_set_value_label (heatmap, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_COSINE));
  pl_figure_view_set_figure (self->heatmap_view, heatmap, cosine->cols, cosine->rows);

  if (projection->cols >= 2)
    {
      trajectory = pl_figure_new_trajectory (projection, 0, explained, 0, 1);
      pl_view_style_apply (trajectory, pl_page_get_workspace (PL_PAGE (self)));
      pl_figure_set_title (trajectory, _("First two principal components"));
      pl_figure_set_value_label (trajectory, _("Position"));
    }
  pl_figure_view_set_figure (self->trajectory_view, trajectory, 0, 0);

  g_clear_pointer (&self->matrix, pl_matrix_unref);
  self->matrix = pl_matrix_ref (cosine);
  g_clear_pointer (&self->projection, pl_matrix_unref);
  self->projection = pl_matrix_ref (projection);
}

static void
on_answer (PlPage       *page,
           const GValue *answer,
           const GError *error)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);

  if (answer == NULL)
    {
      pl_page_show_error (page, _("Cannot Show This Encoding"), error);
      return;
    }
  show_answer (self, self->asked, g_value_get_boxed (answer));
  pl_page_show_figure (page);
}

/* The knobs a kind has, and what they mean for it. */
/* The length each kind offers. A grid of side S is S² patches, and its
 * grid of grids S⁴ cells. */
static guint
length_lower (PlPlaygroundKind kind)
{
  return kind == PL_PLAYGROUND_SINCOS2D ? 2 : 8;
}

static guint
length_upper (PlPlaygroundKind kind)
{
  return kind == PL_PLAYGROUND_SINCOS2D ? MAX_GRID_SIDE : 2048;
}

static void
sync_controls (PlPlaygroundPage *self,
               PlPlaygroundKind  kind)
{
  static const char *captions[] = {
    [PL_PLAYGROUND_SINUSOIDAL] = N_("PE(p, 2k) = sin(p / base^(2k/width)) and PE(p, 2k+1) = cos(p / base^(2k/width)). "
                                    "The dot product of two rows depends only on their distance, so every diagonal "
                                    "of the heatmap is constant. A larger base stretches the slowest waves: nearby "
                                    "positions look more alike for longer. Few dimensions make the similarity ripple; "
                                    "many make it fall smoothly."),
    [PL_PLAYGROUND_ROPE] = N_("RoPE turns dims 2k and 2k+1 of a query and a key by p · base^(−2k/d) at position p, so "
                              "their score depends only on the offset. For q = k = (1, …, 1) it is Σ cos(offset · θ_k): "
                              "it falls, with ripples, as the offset grows, and so does the bound RoFormer proved on it (Su et al., "
                              "2021), drawn in the same unit (the score at offset 0): the bound lies above the score, "
                              "loosely. A larger base makes the decay slower; the heatmap is the similarity of the "
                              "rotation phases."),
    [PL_PLAYGROUND_ALIBI] = N_("ALiBi adds no position vectors: each head adds −m·|i − j| to its attention scores, "
                               "penalising distant keys linearly. The slopes m form a geometric series, 2^(−8/n), "
                               "2^(−16/n), … for n heads (Press et al., 2022): the first head looks nearby, the last "
                               "almost everywhere."),
    [PL_PLAYGROUND_SINCOS2D] = N_("MAE’s 2-D sine–cosine table (He et al., 2022; also DeiT III): the first half of "
                                  "the width is the sinusoidal table of a patch’s column, the second half that of its "
                                  "row, so the similarity of two patches is a column term plus a row term. Left, each "
                                  "patch’s cosine similarity with every patch, in its place (the grid of grids); "
                                  "right, its first three principal components as colours."),
  };

  GtkAdjustment *length = gtk_spin_button_get_adjustment (self->length_spin);

  gtk_label_set_text_with_mnemonic (self->width_label, kind == PL_PLAYGROUND_ALIBI ? _("_Heads")
                                                       : kind == PL_PLAYGROUND_ROPE ? _("_Head size") : _("_Width"));
  gtk_label_set_text_with_mnemonic (self->length_label, kind == PL_PLAYGROUND_SINCOS2D ? _("_Grid side")
                                                                                      : _("_Positions"));
  gtk_adjustment_set_step_increment (gtk_spin_button_get_adjustment (self->width_spin),
                                     kind == PL_PLAYGROUND_ALIBI ? 1 : kind == PL_PLAYGROUND_SINCOS2D ? 4 : 2);
  gtk_adjustment_set_lower (length, length_lower (kind));
  gtk_adjustment_set_upper (length, length_upper (kind));
  gtk_adjustment_set_step_increment (length, kind == PL_PLAYGROUND_SINCOS2D ? 1 : 8);
  gtk_widget_set_visible (self->base_box, kind != PL_PLAYGROUND_ALIBI);
  gtk_label_set_text (self->caption_label, _(captions[kind]));
}

static void
refresh (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);
  g_autofree char *key = NULL;
  g_autofree char *base_text = NULL;
  PlPlaygroundKind kind = get_kind (self);
  Spec *spec;

  base_text = g_strdup_printf ("%.0f", get_base (self));
  gtk_label_set_text (self->base_label, base_text);
  sync_controls (self, kind);
  if (pl_page_get_workspace (PL_PAGE (self)) == NULL)
    return;

  pl_page_stop (page);
  /* The knobs make endless questions: keep no answers but the next. */
  pl_analysis_cache_forget (pl_workspace_get_cache (pl_page_get_workspace (PL_PAGE (self))), "playground/");

  spec = g_new0 (Spec, 1);
  spec->kind = kind;
  /* Within the kind's range even while a switch of kind moves the knobs
   * one by one (a new upper bound does not clamp the value): 256 as a grid
   * side is 65,536 patches, a 16 GiB similarity. */
  spec->length = CLAMP ((guint) gtk_spin_button_get_value (self->length_spin), length_lower (kind),
                        length_upper (kind));
  spec->width = (guint) gtk_spin_button_get_value (self->width_spin);
  if (kind == PL_PLAYGROUND_SINCOS2D)
    spec->width = MAX (spec->width & ~3u, 4);
  else if (kind != PL_PLAYGROUND_ALIBI)
    spec->width = MAX (spec->width & ~1u, 2);
  self->grid_side = spec->length;
  self->grid_width = spec->width;
  spec->base = get_base (self);
  key = g_strdup_printf ("playground/%d/%u/%u/%g", kind, spec->length, spec->width, spec->base);
  self->asked = kind;

  pl_page_runner_ask (pl_page_get_runner (page), key, compute, spec, g_free, on_answer);
}

void
pl_playground_page_set_kind (PlPlaygroundPage *self,
                             PlPlaygroundKind  kind)
{
  g_return_if_fail (PL_IS_PLAYGROUND_PAGE (self));

  pl_drop_down_set_value (self->kind_dropdown, kind);
  pl_page_refresh (PL_PAGE (self));
}

void
pl_playground_page_set_encoding (PlPlaygroundPage *self,
                                 guint             length,
                                 guint             width,
                                 double            base)
{
  g_return_if_fail (PL_IS_PLAYGROUND_PAGE (self));

  gtk_spin_button_set_value (self->length_spin, length);
  gtk_spin_button_set_value (self->width_spin, width);
  gtk_range_set_value (GTK_RANGE (self->base_scale), log10 (base));
  pl_page_refresh (PL_PAGE (self));
}

PlPlaygroundKind
pl_playground_page_get_asked (PlPlaygroundPage *self,
                              guint            *length,
                              guint            *width)
{
  g_return_val_if_fail (PL_IS_PLAYGROUND_PAGE (self), PL_PLAYGROUND_SINUSOIDAL);

  if (length != NULL)
    *length = self->grid_side;
  if (width != NULL)
    *width = self->grid_width;
  return self->asked;
}

PlMatrix *
pl_playground_page_get_matrix (PlPlaygroundPage *self)
{
  g_return_val_if_fail (PL_IS_PLAYGROUND_PAGE (self), NULL);
  return self->matrix;
}

PlMatrix *
pl_playground_page_get_curves (PlPlaygroundPage *self)
{
  g_return_val_if_fail (PL_IS_PLAYGROUND_PAGE (self), NULL);
  return self->curves;
}

/* The grid of grids hits map ROW's cell COLUMN, the colours a patch. */
static char *
describe_grid (PlPlaygroundPage *self,
               guint             column,
               guint             row,
               PlFigureView     *view)
{
  guint side = self->grid_side, n = side * side;

  if (self->matrix == NULL || self->matrix->rows != n)
    return NULL;
  if (view == self->trajectory_view)
    /* Translators: a patch of the image by its row and column in the grid */
    return row < side && column < side ? g_strdup_printf (_("Patch (%u, %u)"), row, column) : NULL;
  if (row >= n || column >= n)
    return NULL;
  /* Translators: hover readout: two patches by row and column, the measure and its value */
  return g_strdup_printf (_("Patches (%u, %u) and (%u, %u)\n%s: %.4f"), row / side, row % side, column / side,
                          column % side, pl_enum_label (PL_TYPE_SIMILARITY_METRIC, PL_SIMILARITY_COSINE),
                          pl_matrix_get (self->matrix, row, column));
}

static char *
on_describe (PlPlaygroundPage *self,
             int               panel,
             guint             column,
             guint             row,
             PlFigureView     *view)
{
  if (self->kind == PL_PLAYGROUND_ROPE && view == self->trajectory_view && self->curves != NULL &&
      row < self->curves->rows && column < self->curves->cols)
    /* Translators: hover readout on the rotary decay: offset, which curve, its value */
    return g_strdup_printf (_("Offset %u\n%s: %.4f"), column, row == 0 ? _("Score") : _("Bound"),
                            pl_matrix_get (self->curves, row, column));
  if (self->kind == PL_PLAYGROUND_ALIBI && self->curves != NULL && row < self->curves->rows &&
      column < self->curves->cols)
    /* Translators: hover readout on ALiBi: head, distance, the bias added to the score */
    return g_strdup_printf (_("Head %u, distance %u\nBias %.4f"), row + 1, column,
                            pl_matrix_get (self->curves, row, column));
  if (self->kind == PL_PLAYGROUND_ROPE && view == self->heatmap_view && self->matrix != NULL &&
      row < self->matrix->rows && column < self->matrix->cols)
    /* Translators: hover readout on the rotary heatmap: positions i and j, cosine of their phases */
    return g_strdup_printf (_("Positions %u and %u\nCosine similarity: %.4f"), row, column,
                            pl_matrix_get (self->matrix, row, column));
  if (self->kind == PL_PLAYGROUND_SINCOS2D)
    return describe_grid (self, column, row, view);
  if (self->kind != PL_PLAYGROUND_SINUSOIDAL)
    return NULL;
  if (view == self->trajectory_view && self->projection != NULL && column < self->projection->rows &&
      self->projection->cols >= 2)
    /* Translators: hover readout on the sinusoid's trajectory: position, its first two components */
    return g_strdup_printf (_("Position %u\nPC1 = %.3f, PC2 = %.3f"), column,
                            pl_matrix_get (self->projection, column, 0), pl_matrix_get (self->projection, column, 1));
  if (view != self->heatmap_view || self->matrix == NULL || row >= self->matrix->rows ||
      column >= self->matrix->cols)
    return NULL;
  /* Translators: hover readout on the sinusoid's heatmap: positions i and j, cosine similarity */
  return g_strdup_printf (_("Positions %u and %u\nCosine similarity: %.4f"), row, column,
                          pl_matrix_get (self->matrix, row, column));
}

static void
on_parameters_changed (PlPlaygroundPage *self)
{
  pl_page_refresh (PL_PAGE (self));
}

/* A model's width makes no sense as a number of ALiBi heads, nor the other
 * way round: each kind starts from a size of its own. */
static void
on_kind_changed (PlPlaygroundPage *self)
{
  PlPlaygroundKind kind = get_kind (self);
  double width = gtk_spin_button_get_value (self->width_spin);

  GtkAdjustment *length = gtk_spin_button_get_adjustment (self->length_spin);
  gboolean was_grid = gtk_adjustment_get_upper (length) == MAX_GRID_SIDE;

  /* A grid starts at ViT-B/16's 14 × 14 at 224 pixels; the others at 256
   * positions; the length first, so no knob asks for a grid of 256². */
  sync_controls (self, kind);
  if (kind == PL_PLAYGROUND_SINCOS2D && !was_grid)
    gtk_spin_button_set_value (self->length_spin, 14);
  else if (kind != PL_PLAYGROUND_SINCOS2D && was_grid)
    gtk_spin_button_set_value (self->length_spin, 256);
  if (kind == PL_PLAYGROUND_ALIBI && width > 64)
    gtk_spin_button_set_value (self->width_spin, 8);
  else if (kind != PL_PLAYGROUND_ALIBI && width < 16)
    gtk_spin_button_set_value (self->width_spin, 128);
  pl_page_refresh (PL_PAGE (self));
}

static void
style_changed (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);
  PlFigureView *views[] = { self->heatmap_view, self->trajectory_view };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (pl_figure_view_get_figure (views[i]) != NULL)
      {
        pl_view_style_apply (pl_figure_view_get_figure (views[i]), pl_page_get_workspace (PL_PAGE (self)));
        pl_figure_view_invalidate (views[i]);
      }
}

static char *
get_export_name (PlPage *page)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (page);

  guint length = (guint) gtk_spin_button_get_value (self->length_spin);
  guint width = (guint) gtk_spin_button_get_value (self->width_spin);

  if (self->kind == PL_PLAYGROUND_ALIBI)
    return g_strdup_printf ("alibi-%u-heads-%u", width, length);
  if (self->kind == PL_PLAYGROUND_SINCOS2D)
    return g_strdup_printf ("sincos2d-%ux%ux%u-base-%.0f", self->grid_side, self->grid_side, self->grid_width,
                            get_base (self));
  return g_strdup_printf ("%s-%ux%u-base-%.0f", self->kind == PL_PLAYGROUND_ROPE ? "rope" : "sinusoidal",
                          length, width, get_base (self));
}

static void
pl_playground_page_dispose (GObject *object)
{
  PlPlaygroundPage *self = PL_PLAYGROUND_PAGE (object);

  g_clear_pointer (&self->matrix, pl_matrix_unref);
  g_clear_pointer (&self->projection, pl_matrix_unref);
  g_clear_pointer (&self->curves, pl_matrix_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PL_TYPE_PLAYGROUND_PAGE);
  G_OBJECT_CLASS (pl_playground_page_parent_class)->dispose (object);
}

static void
pl_playground_page_class_init (PlPlaygroundPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PlPageClass *page_class = PL_PAGE_CLASS (klass);

  object_class->dispose = pl_playground_page_dispose;
  page_class->refresh = refresh;
  page_class->style_changed = style_changed;
  page_class->get_export_name = get_export_name;

  g_type_ensure (PL_TYPE_FIGURE_PAIR);
  g_type_ensure (PL_TYPE_FIGURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/poslens/Poslens/ui/pl-playground-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, width_label);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, length_label);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, base_box);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, caption_label);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, length_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, width_spin);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, base_scale);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, base_label);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, figures);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, heatmap_view);
  gtk_widget_class_bind_template_child (widget_class, PlPlaygroundPage, trajectory_view);
  gtk_widget_class_bind_template_callback (widget_class, on_parameters_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_kind_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_describe);
}

static void
pl_playground_page_init (PlPlaygroundPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  pl_drop_down_set_enum (self->kind_dropdown, PL_TYPE_PLAYGROUND_KIND);
  /* The encoding needs no model. */
  pl_page_show_figure (PL_PAGE (self));
  gtk_scale_set_draw_value (self->base_scale, FALSE);
}
