/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <cblas.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl-blas-core.h"

/* The x86-64 kernels of OpenBLAS 0.3.21 (openblas_get_corename ()) by the
 * instruction set they use; "sapphirerapids" comes with later releases. */
static const char * const avx512_cores[] = { "skylakex", "cooperlake", "sapphirerapids", NULL };
static const char * const avx2_cores[] = { "haswell", "zen", NULL };

static gboolean
is_one_of (const char        *core,
           const char * const *names)
{
  for (; *names != NULL; names++)
    if (g_ascii_strcasecmp (core, *names) == 0)
      return TRUE;
  return FALSE;
}

int
pl_blas_core_level (const char *core)
{
  if (core == NULL)
    return 1;
  if (is_one_of (core, avx512_cores))
    return 3;
  if (is_one_of (core, avx2_cores))
    return 2;
  return 1;
}

const char *
pl_blas_core_for_cpu (void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  /* GCC's feature test also checks that the OS saves the registers (XCR0). */
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw") &&
      __builtin_cpu_supports ("avx512vl") && __builtin_cpu_supports ("avx512dq") &&
      __builtin_cpu_supports ("avx512cd"))
    return __builtin_cpu_supports ("avx512bf16") ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    return "Haswell";
#endif
  return NULL;
}

void
pl_blas_core_choose (char **argv)
{
  const char *best;

  /* The user's choice, or the one this function made before starting the
   * program again, stands. */
  if (getenv ("OPENBLAS_CORETYPE") != NULL)
    return;
  best = pl_blas_core_for_cpu ();
  if (best == NULL || pl_blas_core_level (openblas_get_corename ()) >= pl_blas_core_level (best))
    return;
#ifdef __linux__
  if (setenv ("OPENBLAS_CORETYPE", best, 1) == 0)
    {
      execv ("/proc/self/exe", argv);
      /* Not started again (no /proc, say): go on with OpenBLAS's choice. */
      g_debug ("cannot start again with OpenBLAS's %s kernels: %s", best, g_strerror (errno));
      unsetenv ("OPENBLAS_CORETYPE");
    }
#else
  (void) argv;
#endif
}

char *
pl_blas_core_describe (void)
{
  const char *config = openblas_get_config ();
  const char *version = config;

  /* openblas_get_config() starts "OpenBLAS 0.3.21 DYNAMIC_ARCH …". */
  if (g_str_has_prefix (config, "OpenBLAS "))
    version = config + strlen ("OpenBLAS ");
  return g_strdup_printf ("OpenBLAS %.*s, %s kernels",
                          (int) strcspn (version, " "), version, openblas_get_corename ());
}
