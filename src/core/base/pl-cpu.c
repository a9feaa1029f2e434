/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
# include <cpuid.h>
#endif
#ifdef __linux__
# include <sys/syscall.h>
# include <unistd.h>
#endif

/* The one place POSLENS_DISABLE_SIMD is read: set, every pl_cpu_has_*
 * says no and the portable paths run. */
static gboolean
simd_allowed (void)
{
  return g_getenv ("POSLENS_DISABLE_SIMD") == NULL;
}

gboolean
pl_cpu_has_avx2_fma (void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  static gsize usable = 0;

  if (g_once_init_enter (&usable))
    {
      __builtin_cpu_init ();
      g_once_init_leave (&usable, __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") &&
                                  simd_allowed () ? 2 : 1);
    }
  return usable == 2;
#else
  return FALSE;
#endif
}

gboolean
pl_cpu_has_avx512f (void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  static gsize usable = 0;

  if (g_once_init_enter (&usable))
    {
      /* libgcc checks that the OS saves the AVX-512 registers too */
      __builtin_cpu_init ();
      g_once_init_leave (&usable, __builtin_cpu_supports ("avx512f") && simd_allowed () ? 2 : 1);
    }
  return usable == 2;
#else
  return FALSE;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
/* CPUID leaf 7: AMX-TILE (EDX bit 24), AMX-BF16 (EDX bit 22), AVX512F
 * (EBX bit 16), AVX512BW (EBX bit 30); leaf 7 subleaf 1: AVX512_BF16 (EAX
 * bit 5); the OS saving SSE, AVX and AVX-512 state (XCR0 bits 1, 2, 5-7) and
 * XTILECFG and XTILEDATA (bits 17, 18); and on Linux the permission for
 * XTILEDATA. */
static gboolean
detect_amx_bf16 (void)
{
  unsigned int eax, ebx, ecx, edx, lo, hi;

  if (!__get_cpuid_count (7, 0, &eax, &ebx, &ecx, &edx) ||
      !(edx & (1u << 24)) || !(edx & (1u << 22)) || !(ebx & (1u << 16)) || !(ebx & (1u << 30)))
    return FALSE;
  if (!__get_cpuid_count (7, 1, &eax, &ebx, &ecx, &edx) || !(eax & (1u << 5)))
    return FALSE;
  if (!__get_cpuid (1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27)))
    return FALSE;
  __asm__ volatile ("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
  if ((lo & 0x600e6) != 0x600e6)
    return FALSE;
# ifdef __linux__
  /* ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA */
  if (syscall (SYS_arch_prctl, 0x1023, 18) != 0)
    return FALSE;
  return TRUE;
# else
  return FALSE;
# endif
}
#endif

gboolean
pl_cpu_has_amx_bf16 (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  static gsize usable = 0;

  if (g_once_init_enter (&usable))
    g_once_init_leave (&usable, simd_allowed () && detect_amx_bf16 () ? 2 : 1);
  return usable == 2;
#else
  return FALSE;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
/* CPUID leaf 7: AVX512F (EBX bit 16), AVX512BW (EBX bit 30), AVX512VL (EBX
 * bit 31); leaf 7 subleaf 1: AVX512_BF16 (EAX bit 5); OSXSAVE (leaf 1 ECX
 * bit 27) and the OS saving SSE, AVX and AVX-512 state (XCR0 bits 1, 2,
 * 5-7). */
static gboolean
detect_avx512_bf16 (void)
{
  unsigned int eax, ebx, ecx, edx, lo, hi;

  if (!__get_cpuid_count (7, 0, &eax, &ebx, &ecx, &edx) ||
      !(ebx & (1u << 16)) || !(ebx & (1u << 30)) || !(ebx & (1u << 31)))
    return FALSE;
  if (!__get_cpuid_count (7, 1, &eax, &ebx, &ecx, &edx) || !(eax & (1u << 5)))
    return FALSE;
  if (!__get_cpuid (1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27)))
    return FALSE;
  __asm__ volatile ("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
  return (lo & 0xe6) == 0xe6;
}
#endif

gboolean
pl_cpu_has_avx512_bf16 (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  static gsize usable = 0;

  if (g_once_init_enter (&usable))
    g_once_init_leave (&usable, simd_allowed () && detect_avx512_bf16 () ? 2 : 1);
  return usable == 2;
#else
  return FALSE;
#endif
}
