/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-cpu.h"

gboolean
pl_cpu_has_avx2_fma (void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  static gsize usable = 0;

  if (g_once_init_enter (&usable))
    {
      __builtin_cpu_init ();
      g_once_init_leave (&usable, __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") &&
                                  g_getenv ("POSLENS_DISABLE_SIMD") == NULL ? 2 : 1);
    }
  return usable == 2;
#else
  return FALSE;
#endif
}
