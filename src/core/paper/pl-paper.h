/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "pl-figure.h"
#include "pl-model.h"
#include "pl-probes.h"

G_BEGIN_DECLS

/* Wang & Chen (2020) for a list of models: Figure 1's layout (the
 * position-wise cosine similarity of each model's positions, side by side on
 * one colour scale) and Table 1 (both probes by the paper's protocol, the
 * mean ± the 95 % interval over repeated seeds), each with a caption that
 * names the protocol, the seeds and the rows used. */

typedef struct
{
  guint   n_repeats;     /* PL_PROBE_DEFAULT_REPEATS */
  guint32 first_seed;    /* 0: seeds 0 … n_repeats − 1 */
  /* The page the figures are written for, in points: 7 in wide, their own
   * height (0), at a text size of 9 pt (pl-figure-preset.h's two columns). */
  double  width_pt;
  double  height_pt;
  double  font_size;
} PlPaperOptions;

typedef struct _PlPaper PlPaper;

void      pl_paper_options_init (PlPaperOptions        *options);
/* Called with the fraction done after each run of the probes. */
typedef void (*PlPaperProgressFunc) (double fraction, gpointer user_data);

/* Reads each model's tables and runs the analyses; fails with
 * G_IO_ERROR_CANCELLED soon after CANCELLABLE is cancelled. PROGRESS may
 * be NULL. */
PlPaper  *pl_paper_compute      (PlModel * const       *models,
                                 guint                  n_models,
                                 const PlPaperOptions  *options,
                                 PlPaperProgressFunc    progress,
                                 gpointer               progress_data,
                                 GCancellable          *cancellable,
                                 GError               **error);
guint     pl_paper_get_n_models (PlPaper               *self);
const PlProbeSummary *pl_paper_get_summary (PlPaper    *self,
                                 guint                  index);
/* The pairs model INDEX's relative probe drew, and its features (twice the
 * table's width). */
void      pl_paper_get_pairs    (PlPaper               *self,
                                 guint                  index,
                                 guint                 *n_pairs,
                                 gsize                 *n_features);
/* Owned by the paper. */
PlFigure *pl_paper_get_figure1  (PlPaper               *self);
PlFigure *pl_paper_get_table1   (PlPaper               *self);
/* DIR/figure1.pdf, figure1.png, table1.pdf and table1.png (PNG at 300 DPI)
 * at the options' width and text size, DIR made when missing; a failure
 * names the file. Figure 1's panels stand in a grid that fits the width,
 * as large as a page's height allows; Table 1 is its own height. */
gboolean  pl_paper_write        (PlPaper               *self,
                                 const char            *dir,
                                 GError               **error);
void      pl_paper_free         (PlPaper               *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlPaper, pl_paper_free)

G_END_DECLS
