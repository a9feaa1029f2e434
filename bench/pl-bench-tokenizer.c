/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "pl-tokenizer.h"

/* Tokeniser timing driver for bench-tokenizer.sh (run by hand, not a test):
 * pl-bench-tokenizer TOKENIZER_PATH TEXT_FILE [REPEATS]
 * Prints one line: load time, the first encode (empty BPE cache), the median
 * of the following encodes, tokens and throughput. */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tok = NULL;
  g_autofree char *text = NULL;
  g_autofree double *times = NULL;
  gsize len;
  guint repeats = argc > 3 ? (guint) atoi (argv[3]) : 20;
  guint n_tokens = 0;
  gint64 t0;
  double load_ms;
  double cold_ms = 0;

  if (argc < 3 || repeats < 2)
    {
      fprintf (stderr, "usage: %s TOKENIZER_PATH TEXT_FILE [REPEATS ≥ 2]\n", argv[0]);
      return 1;
    }
  if (!g_file_get_contents (argv[2], &text, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }

  t0 = g_get_monotonic_time ();
  tok = pl_tokenizer_new_for_model_dir (argv[1], &error);
  load_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (tok == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }

  times = g_new (double, repeats);
  for (guint r = 0; r < repeats; r++)
    {
      g_autoptr(GArray) ids = NULL;

      t0 = g_get_monotonic_time ();
      if (!pl_tokenizer_encode (tok, text, &ids, NULL, &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 2;
        }
      times[r] = (g_get_monotonic_time () - t0) / 1000.0;
      n_tokens = ids->len;
    }
  cold_ms = times[0];
  qsort (times + 1, repeats - 1, sizeof (double), compare_doubles);

  printf ("%-15s %7" G_GSIZE_FORMAT " bytes %6u tokens  load %7.1f ms  first %6.2f ms  median %6.2f ms  (%.0f MB/s)\n",
          pl_tokenizer_get_kind_name (tok), len, n_tokens, load_ms, cold_ms, times[1 + (repeats - 1) / 2],
          len / 1e6 / (times[1 + (repeats - 1) / 2] / 1000.0));
  return 0;
}
