/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl-blas-core.h"
#include "pl-attention-heads.h"
#include "pl-executor.h"
#include "pl-fused-attention.h"
#include "pl-linear.h"
#include "pl-linear-amx.h"
#include "pl-model.h"
#include "pl-stored-gemm.h"
#include "pl-transformer.h"

/* Driver for bench-forward.py: times Poslens' forward pass on a checkpoint
 * and OpenBLAS' SGEMM peak in the same process, prints one JSON object.
 *   pl-bench-forward MODEL IDS.txt REPEATS [HIDDEN_OUT.f32]
 * With REPEATS 0 it answers commands on stdin instead, one line each, so the
 * script can alternate it with PyTorch on a shared machine: "sgemm",
 * "forward", "attentions" print seconds; "clock" prints the core's clock in
 * GHz; "save" writes HIDDEN_OUT; "quit".
 *   pl-bench-forward attention TxHEADSxDIM[xcausal] REPEATS
 * times one layer's attention (pl_attention_heads) on random queries,
 * keys and values, probabilities not kept, and prints "attention SECONDS
 * CPU_SECONDS" (the least of REPEATS runs each), for bench-ab.py;
 * "attention-plain" runs the plain path where the fused one would run.
 *   pl-bench-forward linear TxKxN[xgelu] REPEATS
 * times one linear layer (X [T, K] · W [K, N] + bias, GELU after it with
 * xgelu) on the AMX tiles (pl_linear_amx, the weight split before timing)
 * and prints "linear SECONDS CPU_SECONDS ERROR": ERROR is the largest
 * error against a float64 product in units of Σ|x·w| of its row and
 * column (before the activation); "linear-plain" the same on pl_linear.
 *   pl-bench-forward stored TxKxN[xTYPE] REPEATS
 * times one product by a stored weight (X [T, K] · Wᵀ, W [N, K] in TYPE,
 * bf16 unless given, or f32, f16, q8_0, q4_k, q6_k, … as ggml names them:
 * a block format's bytes pseudo-random, its scales 0.002) on pl_stored_gemm's tuned path and prints
 * "stored SECONDS CPU_SECONDS ERROR" as above; "stored-plain" the same on
 * pl_stored_gemm_plain. */

static double
best_of (int n, double (*run) (gpointer), gpointer data)
{
  double best = G_MAXDOUBLE;

  for (int i = 0; i < n; i++)
    best = MIN (best, run (data));
  return best;
}

/* The clock the core runs at now: a chain of dependent register-to-register
 * additions retires one per cycle, so cycles per second = additions per
 * second (adding an immediate would not do: newer cores fold those at
 * renaming, several per cycle). */
static double
time_clock (gpointer data)
{
  guint64 x = 0, n = 50 * 1000 * 1000;
  gint64 start = g_get_monotonic_time ();

  for (guint64 i = 0; i < n; i++)
    {
#if defined(__x86_64__)
      __asm__ volatile ("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                        "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0" : "+r" (x));
#else
      __asm__ volatile ("" : "+r" (x));
      x += 8;
#endif
    }
  return (g_get_monotonic_time () - start) / 1e6 / (8.0 * n) * 1e9;
}

typedef struct
{
  PlMatrix **m;
  gint       next;   /* atomic: the next half of the rows */
} Sgemm;

static gpointer
sgemm_half (gpointer data)
{
  Sgemm *job = data;
  PlMatrix **m = job->m;
  gsize half = m[0]->rows / 2;
  gint h;

  while ((h = g_atomic_int_add (&job->next, 1)) < 2)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, half, m[1]->cols, m[0]->cols,
                 1.0f, pl_matrix_row (m[0], h * half), m[0]->cols, m[1]->data, m[1]->cols,
                 0.0f, pl_matrix_row (m[2], h * half), m[2]->cols);
  return NULL;
}

/* The peak as the forward pass reaches it: rows split over the executor's
 * threads, each half one single-threaded SGEMM. */
static double
time_sgemm (gpointer data)
{
  Sgemm job = { data, 0 };
  gint64 start = g_get_monotonic_time ();

  pl_executor_split (pl_executor_get_default (), 2, sgemm_half, &job);
  return (g_get_monotonic_time () - start) / 1e6;
}

typedef struct
{
  PlTransformer *transformer;
  GArray        *ids;
  gboolean       attentions;
  PlMatrix      *last;
} Forward;

static gboolean
keep_last (guint k, PlMatrix *attention, PlMatrix *hidden, gpointer user_data)
{
  Forward *f = user_data;

  if (k == pl_transformer_get_config (f->transformer)->n_layers)
    {
      g_clear_pointer (&f->last, pl_matrix_unref);
      f->last = pl_matrix_ref (hidden);
    }
  return TRUE;
}

static double
time_forward (gpointer data)
{
  Forward *f = data;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  if (!pl_transformer_run (f->transformer, (int *) f->ids->data, f->ids->len, f->attentions,
                           keep_last, f, NULL, NULL, NULL, &error))
    g_error ("%s", error->message);
  return (g_get_monotonic_time () - start) / 1e6;
}

static double
process_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
bench_attention (const char *op,
                 const char *shape,
                 int         repeats)
{
  g_auto(GStrv) dims = g_strsplit (shape, "x", -1);
  g_autofree float *qkv = NULL;
  g_autofree float *ctx = NULL;
  PlAttentionHeads job = { 0, };
  double wall = G_MAXDOUBLE, cpu = G_MAXDOUBLE;
  gsize t, cols;

  if (g_strv_length (dims) < 3)
    return 1;
  t = strtoul (dims[0], NULL, 10);
  job.n_heads = job.n_kv_heads = strtoul (dims[1], NULL, 10);
  job.head_dim = strtoul (dims[2], NULL, 10);
  job.bidirectional = dims[3] == NULL || !g_str_equal (dims[3], "causal");
  pl_fused_attention_force_plain (g_str_equal (op, "attention-plain"));
  cols = 3 * (gsize) job.n_heads * job.head_dim;
  qkv = g_new (float, t * cols);
  ctx = g_new (float, t * job.n_heads * job.head_dim);
  for (gsize j = 0; j < t * cols; j++)
    qkv[j] = (float) ((j * 7919 % 1000) / 1000.0 - 0.5);
  job.qkv = qkv;
  job.stride = cols;
  job.n_tokens = t;
  job.scale = 1.0f / sqrtf ((float) job.head_dim);
  job.ctx = ctx;
  for (int i = 0; i <= repeats; i++)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu0 = process_cpu_s ();

      pl_attention_heads (&job, NULL, NULL);
      /* the first run warms up */
      if (i > 0)
        {
          wall = MIN (wall, (g_get_monotonic_time () - start) / 1e6);
          cpu = MIN (cpu, process_cpu_s () - cpu0);
        }
    }
  printf ("%s %.6f %.6f\n", op, wall, cpu);
  return 0;
}

static int
bench_linear (const char *op,
              const char *shape,
              int         repeats)
{
  g_auto(GStrv) dims = g_strsplit (shape, "x", -1);
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) w = NULL;
  g_autoptr(PlMatrix) b = NULL;
  g_autoptr(PlMatrix) out = NULL;
  g_autoptr(PlLinearTiles) tiles = NULL;
  g_autoptr(GError) error = NULL;
  gboolean plain = g_str_equal (op, "linear-plain");
  PlActivation activation;
  double wall = G_MAXDOUBLE, cpu = G_MAXDOUBLE, worst = 0.0;
  gsize t, k, n;
  guint32 seed = 1;

  if (g_strv_length (dims) < 3)
    return 1;
  t = strtoul (dims[0], NULL, 10);
  k = strtoul (dims[1], NULL, 10);
  n = strtoul (dims[2], NULL, 10);
  activation = dims[3] != NULL && g_str_equal (dims[3], "gelu") ? PL_ACTIVATION_GELU : PL_ACTIVATION_NONE;
  x = pl_matrix_new (t, k);
  w = pl_matrix_new (k, n);
  b = pl_matrix_new (1, n);
  out = pl_matrix_new (t, n);
  /* uniform in (−1, 1), W scaled as a trained layer's */
  for (gsize j = 0; j < t * k; j++)
    x->data[j] = (float) ((seed = seed * 1664525u + 1013904223u) / 2147483648.0 - 1.0);
  for (gsize j = 0; j < k * n; j++)
    w->data[j] = (float) (((seed = seed * 1664525u + 1013904223u) / 2147483648.0 - 1.0) * 0.05);
  for (gsize j = 0; j < n; j++)
    b->data[j] = (float) ((seed = seed * 1664525u + 1013904223u) / 2147483648.0 - 1.0);
  pl_executor_get_default ();
  if (!plain && !(tiles = pl_linear_tiles_new (w, NULL, &error)))
    {
      fprintf (stderr, "pl-bench-forward: no AMX tiles here\n");
      return 1;
    }
  for (int i = 0; i <= repeats; i++)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu0 = process_cpu_s ();

      if (plain)
        pl_linear (x, w, NULL, b, NULL, activation, out, NULL);
      else
        pl_linear_amx (x, tiles, b, NULL, activation, out);
      if (i > 0)
        {
          wall = MIN (wall, (g_get_monotonic_time () - start) / 1e6);
          cpu = MIN (cpu, process_cpu_s () - cpu0);
        }
    }
  if (activation == PL_ACTIVATION_NONE)
    for (gsize r = 0; r < t; r += 7)
      for (gsize c = 0; c < n; c += 5)
        {
          double sum = b->data[c], size = 0.0;

          for (gsize j = 0; j < k; j++)
            {
              double p = (double) pl_matrix_get (x, r, j) * pl_matrix_get (w, j, c);

              sum += p;
              size += fabs (p);
            }
          worst = MAX (worst, fabs (pl_matrix_get (out, r, c) - sum) / size);
        }
  printf ("%s %.6f %.6f %.3g\n", op, wall, cpu, worst);
  return 0;
}

/* W's blocks pseudo-random bytes with each half (scale, minimum) 0.002 */
static void
fill_blocks (PlStoredMatrix *w,
             guint32         seed)
{
  gsize bytes = pl_stored_type_block_bytes (w->type);
  gsize n_blocks = w->rows * w->cols / pl_stored_type_block_elements (w->type);
  guint16 half = GUINT16_TO_LE (0x1819);   /* 0.00198 */

  for (gsize j = 0; j < n_blocks * bytes; j++)
    w->data[j] = (guint8) ((seed = seed * 1664525u + 1013904223u) >> 24);
  for (gsize b = 0; b < n_blocks; b++)
    {
      guint8 *block = w->data + b * bytes;

      if (w->type == PL_STORED_Q6_K)
        memcpy (block + 208, &half, 2);
      else if (w->type == PL_STORED_Q2_K)
        memcpy (block + 80, &half, 2), memcpy (block + 82, &half, 2);
      else if (w->type == PL_STORED_Q3_K)
        memcpy (block + 108, &half, 2);
      else
        {
          memcpy (block, &half, 2);
          if (w->type == PL_STORED_Q4_1 || w->type == PL_STORED_Q5_1 || w->type == PL_STORED_Q4_K ||
              w->type == PL_STORED_Q5_K)
            memcpy (block + 2, &half, 2);
        }
    }
}

static int
bench_stored (const char *op,
              const char *shape,
              int         repeats)
{
  g_auto(GStrv) dims = g_strsplit (shape, "x", -1);
  g_autoptr(PlMatrix) x = NULL;
  g_autoptr(PlMatrix) wf = NULL;
  g_autoptr(PlMatrix) out = NULL;
  g_autoptr(PlStoredMatrix) w = NULL;
  gboolean plain = g_str_equal (op, "stored-plain");
  PlStoredType type = PL_STORED_BF16;
  double wall = G_MAXDOUBLE, cpu = G_MAXDOUBLE, worst = 0.0;
  gsize t, k, n;
  guint32 seed = 1;

  if (g_strv_length (dims) < 3)
    return 1;
  t = strtoul (dims[0], NULL, 10);
  k = strtoul (dims[1], NULL, 10);
  n = strtoul (dims[2], NULL, 10);
  if (dims[3] != NULL)
    for (type = 0; type < PL_STORED_N_TYPES; type++)
      if (g_ascii_strcasecmp (dims[3], pl_stored_type_name (type)) == 0)
        break;
  if (type == PL_STORED_N_TYPES || type == PL_STORED_BF16_TILES)
    return 1;
  x = pl_matrix_new (t, k);
  wf = pl_matrix_new (n, k);
  out = pl_matrix_new (t, n);
  for (gsize j = 0; j < t * k; j++)
    x->data[j] = (float) ((seed = seed * 1664525u + 1013904223u) / 2147483648.0 - 1.0);
  w = pl_stored_matrix_try_new (type, n, k, NULL);
  for (gsize j = 0; j < n * k; j++)
    {
      float v = (float) (((seed = seed * 1664525u + 1013904223u) / 2147483648.0 - 1.0) * 0.05);
      guint32 bits;

      memcpy (&bits, &v, 4);
      if (type == PL_STORED_F32)
        ((float *) w->data)[j] = v;
      else if (type == PL_STORED_BF16)
        ((guint16 *) w->data)[j] = (guint16) (bits >> 16);
    }
  if (pl_stored_type_is_blocks (type))
    fill_blocks (w, seed);
  pl_stored_matrix_to_float (w, 0, n, wf->data);
  pl_executor_get_default ();
  for (int i = 0; i <= repeats; i++)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu0 = process_cpu_s ();

      if (plain)
        pl_stored_gemm_plain (x, w, NULL, NULL, out);
      else
        pl_stored_gemm (x, w, NULL, NULL, out);
      if (i > 0)
        {
          wall = MIN (wall, (g_get_monotonic_time () - start) / 1e6);
          cpu = MIN (cpu, process_cpu_s () - cpu0);
        }
    }
  for (gsize r = 0; r < t; r += 7)
    for (gsize c = 0; c < n; c += 5)
      {
        double sum = 0.0, size = 0.0;

        for (gsize j = 0; j < k; j++)
          {
            double p = (double) pl_matrix_get (x, r, j) * pl_matrix_get (wf, c, j);

            sum += p;
            size += fabs (p);
          }
        worst = MAX (worst, fabs (pl_matrix_get (out, r, c) - sum) / size);
      }
  printf ("%s %.6f %.6f %.3g\n", op, wall, cpu, worst);
  return 0;
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) words = NULL;
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (int));
  const PlTransformerConfig *c;
  PlMatrix *m[3];
  Forward fwd = { 0, };
  double gemm_s, plain_s, attn_s, flops, t, h, f;
  int repeats;

  pl_blas_core_choose (argv);
  if (argc < 4 || (atoi (argv[3]) == 0 && argc < 5))
    {
      fprintf (stderr, "usage: pl-bench-forward MODEL IDS.txt REPEATS [HIDDEN_OUT.f32]\n");
      return 1;
    }
  repeats = atoi (argv[3]);
  if (g_str_has_prefix (argv[1], "attention"))
    return bench_attention (argv[1], argv[2], MAX (repeats, 1));
  if (g_str_has_prefix (argv[1], "linear"))
    return bench_linear (argv[1], argv[2], MAX (repeats, 1));
  if (g_str_has_prefix (argv[1], "stored"))
    return bench_stored (argv[1], argv[2], MAX (repeats, 1));

  pl_executor_get_default ();
  if (!(model = pl_model_open (argv[1], NULL, NULL, &error)) ||
      !(transformer = pl_transformer_new (model, NULL, &error)) ||
      !g_file_get_contents (argv[2], &text, NULL, &error))
    {
      fprintf (stderr, "pl-bench-forward: %s\n", error->message);
      return 2;
    }
  words = g_strsplit_set (g_strstrip (text), " \n,", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i])
      {
        int id = atoi (words[i]);
        g_array_append_val (ids, id);
      }

  /* SGEMM peak: 2048³, best of 3 after a warm-up */
  for (int i = 0; i < 3; i++)
    {
      m[i] = pl_matrix_new (2048, 2048);
      for (gsize j = 0; j < 2048 * 2048; j++)
        m[i]->data[j] = (float) ((j * 7919 % 1000) / 1000.0 - 0.5);
    }
  fwd.transformer = transformer;
  fwd.ids = ids;
  c = pl_transformer_get_config (transformer);
  t = ids->len;
  h = c->hidden_size;
  f = c->ffn_size;
  flops = c->n_layers * (2 * t * h * 3 * h + 2 * 2 * t * t * h + 2 * t * h * h + 2 * 2 * t * h * f);

  if (repeats == 0)
    {
      char line[64];

      printf ("{\"forward_gflop\": %.3f}\n", flops / 1e9);
      fflush (stdout);
      while (fgets (line, sizeof line, stdin) != NULL)
        {
          g_strstrip (line);
          if (g_str_equal (line, "sgemm"))
            printf ("%.6f\n", time_sgemm (m));
          else if (g_str_equal (line, "clock"))
            printf ("%.4f\n", 1.0 / best_of (5, time_clock, NULL));
          else if (g_str_equal (line, "forward") || g_str_equal (line, "attentions"))
            {
              fwd.attentions = g_str_equal (line, "attentions");
              printf ("%.6f\n", time_forward (&fwd));
            }
          else if (g_str_equal (line, "save"))
            {
              FILE *out = fopen (argv[4], "wb");
              fwrite (fwd.last->data, sizeof (float), fwd.last->rows * fwd.last->cols, out);
              fclose (out);
              printf ("saved\n");
            }
          else
            break;
          fflush (stdout);
        }
      g_clear_pointer (&fwd.last, pl_matrix_unref);
      for (int i = 0; i < 3; i++)
        pl_matrix_unref (m[i]);
      return 0;
    }

  time_sgemm (m);
  gemm_s = best_of (3, time_sgemm, m);
  time_forward (&fwd);
  plain_s = best_of (repeats, time_forward, &fwd);
  fwd.attentions = TRUE;
  attn_s = best_of (repeats, time_forward, &fwd);

  if (argc > 4)
    {
      FILE *out = fopen (argv[4], "wb");
      fwrite (fwd.last->data, sizeof (float), fwd.last->rows * fwd.last->cols, out);
      fclose (out);
    }
  printf ("{\"sgemm_gflops\": %.2f, \"forward_s\": %.4f, \"forward_attentions_s\": %.4f, "
          "\"forward_gflop\": %.3f, \"forward_gflops\": %.2f}\n",
          2.0 * 2048 * 2048 * 2048 / gemm_s / 1e9, plain_s, attn_s, flops / 1e9, flops / plain_s / 1e9);

  g_clear_pointer (&fwd.last, pl_matrix_unref);
  for (int i = 0; i < 3; i++)
    pl_matrix_unref (m[i]);
  return 0;
}
