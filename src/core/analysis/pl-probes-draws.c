/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-probes.h"
#include "pl-probes-private.h"
#include "pl-random.h"

/* The random draws of the probes' protocols, all from one generator
 * (pl-random: numpy's legacy MT19937, so PE-Study's code seeded with
 * np.random.seed (seed) draws what the paper's protocol draws here). The
 * line numbers cite MiuLab/PE-Study at 7576cd9. */

/* The relative probe's pair stream is kept apart from the fold shuffle. */
#define PAIR_FOLD_SALT 0x9e3779b9u

/* fold_of[order[p]] = the fold of place p when N places are cut into K
 * consecutive parts whose sizes differ by at most one, the first n % k
 * longer: scikit-learn's KFold (n_splits = k, shuffle = False). ORDER NULL:
 * the identity. */
static void
cut_into_folds (gsize          n,
                guint          k,
                const guint32 *order,
                guint         *fold_of)
{
  gsize start = 0;

  for (guint f = 0; f < k; f++)
    {
      gsize size = n / k + (f < n % k ? 1 : 0);

      for (gsize p = start; p < start + size; p++)
        fold_of[order ? order[p] : p] = f;
      start += size;
    }
}

static void
permuted_folds (gsize    n,
                guint    k,
                guint32  seed,
                guint   *fold_of)
{
  g_autofree guint32 *perm = g_new (guint32, n);
  PlRandom rand;

  pl_random_init (&rand, seed);
  pl_random_permutation (&rand, perm, n);
  cut_into_folds (n, k, perm, fold_of);
}

guint *
pl_probe_row_folds (gsize                 n,
                    const PlProbeOptions *options)
{
  guint *fold_of = g_new (guint, n);
  guint k = options->n_folds;

  switch (options->protocol)
    {
    case PL_PROBE_INTERLEAVED:
      for (gsize i = 0; i < n; i++)
        fold_of[i] = i % k;
      break;
    case PL_PROBE_SHUFFLED:
    case PL_PROBE_PAPER:
      /* absolute.py 24-27: y = np.random.permutation (n); x = x[y]; then
       * cross_val_score (…, cv=5) on a regressor is KFold (5) over the
       * permuted rows, in order: row perm[p] lands in the fold of place p. */
      permuted_folds (n, k, options->seed, fold_of);
      break;
    default:
      g_assert_not_reached ();
    }
  return fold_of;
}

void
pl_probe_draw_pairs (gsize                 n,
                     const PlProbeOptions *options,
                     guint                 n_pairs,
                     guint32              *pair_i,
                     guint32              *pair_j,
                     guint8               *labels)
{
  PlRandom rand;

  g_assert (n >= 2 && n_pairs <= n * n);

  pl_random_init (&rand, options->seed);
  if (options->protocol == PL_PROBE_PAPER)
    {
      /* relative.py 26-32: r = np.random.permutation (512**2), the first
       * x.shape[0] entries as pairs (r // 512, r % 512), every ordered pair
       * at most once, i = j included, label y2 > y1. */
      g_autofree guint32 *r = g_new (guint32, n * n);

      pl_random_permutation (&rand, r, n * n);
      for (guint s = 0; s < n_pairs; s++)
        {
          pair_i[s] = r[s] / n;
          pair_j[s] = r[s] % n;
        }
    }
  else
    {
      /* Ordered pairs i ≠ j, uniform, with replacement. */
      for (guint s = 0; s < n_pairs; s++)
        {
          guint32 i = pl_random_interval (&rand, (guint32) n - 1);
          guint32 j = pl_random_interval (&rand, (guint32) n - 2);

          pair_i[s] = i;
          pair_j[s] = j >= i ? j + 1 : j;
        }
    }
  for (guint s = 0; s < n_pairs; s++)
    labels[s] = pair_j[s] > pair_i[s];
}

/* How many of the places [a, b) are ≡ f (mod k). */
static gsize
count_residue (gsize a,
               gsize b,
               guint f,
               guint k)
{
  gsize below_b = b / k + (f < b % k ? 1 : 0);
  gsize below_a = a / k + (f < a % k ? 1 : 0);

  return below_b - below_a;
}

/* scikit-learn 1.2's StratifiedKFold (n_splits = k, shuffle = False), for
 * two classes: the classes are numbered by first appearance; fold f tests
 * as many of each class as places f, f + k, f + 2k, … of the labels sorted
 * by that numbering hold; each class hands out its members in data order,
 * the first ones to fold 0, the next to fold 1, … */
static void
stratified_folds (const guint8 *labels,
                  guint         n,
                  guint         k,
                  guint        *fold_of)
{
  guint8 first_class = labels[0];
  gsize count[2] = { 0, 0 };

  for (guint s = 0; s < n; s++)
    count[labels[s] != first_class]++;

  for (guint c = 0; c < 2; c++)
    {
      /* Class c fills places [start, start + count[c]) of the sorted labels. */
      gsize start = c == 0 ? 0 : count[0];
      guint fold = 0;
      gsize left = count_residue (start, start + count[c], 0, k);

      for (guint s = 0; s < n; s++)
        {
          if ((labels[s] != first_class) != c)
            continue;
          while (left == 0 && fold + 1 < k)
            left = count_residue (start, start + count[c], ++fold, k);
          fold_of[s] = fold;
          left--;
        }
    }
}

guint *
pl_probe_pair_folds (const guint8         *labels,
                     guint                 n_pairs,
                     const PlProbeOptions *options)
{
  guint *fold_of = g_new (guint, n_pairs);
  guint k = options->n_folds;

  switch (options->protocol)
    {
    case PL_PROBE_INTERLEAVED:
      for (guint s = 0; s < n_pairs; s++)
        fold_of[s] = s % k;
      break;
    case PL_PROBE_SHUFFLED:
      permuted_folds (n_pairs, k, options->seed ^ PAIR_FOLD_SALT, fold_of);
      break;
    case PL_PROBE_PAPER:
      /* relative.py 33-34: cross_val_score (LogisticRegression, …, cv=5) on
       * a classifier is StratifiedKFold (5), unshuffled. */
      stratified_folds (labels, n_pairs, k, fold_of);
      break;
    default:
      g_assert_not_reached ();
    }
  return fold_of;
}

/* The relative error falls as pairs are added until they far outnumber the
 * 2·width features, then levels off. Measured with interleaved folds on the
 * demo GPT-2 (width 256, 512 features), mean of 4-5 seeds: 512 pairs 0.056,
 * 1024 0.040, 2048 0.031, 4096 0.022, 8192 0.019, 16384 0.017 (sd of a run
 * 0.001), 32768 0.016; the sinusoid 512 × 768: 512 pairs 0.06, 2048 0.033,
 * 8192 0.012. At 32 pairs per feature the error is within about a tenth of
 * where it levels off and a run varies by a few per cent of it; the pairs'
 * Newton steps cost the same whatever their number (pl_logistic_fit_pairs). */
#define PAIRS_PER_FEATURE 32
#define MIN_DEFAULT_PAIRS 512
#define MAX_DEFAULT_PAIRS 100000

guint
pl_probe_default_pairs (const PlProbeOptions *options,
                        gsize                 rows,
                        gsize                 width)
{
  guint64 pairs, distinct;

  g_return_val_if_fail (options != NULL, 0);

  if (options->protocol == PL_PROBE_PAPER)
    return (guint) MIN (rows, PL_PROBE_PAPER_ROWS);
  pairs = CLAMP ((guint64) PAIRS_PER_FEATURE * 2 * width, MIN_DEFAULT_PAIRS, MAX_DEFAULT_PAIRS);
  /* Not more than the table has distinct ordered pairs i ≠ j. */
  distinct = rows >= 2 ? (guint64) rows * (rows - 1) : 0;
  return (guint) MAX (MIN (pairs, distinct), 2 * options->n_folds);
}
