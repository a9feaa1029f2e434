#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenBLAS runs the kernels for the widest instruction set the processor has.

The reference is the kernel level the processor's flags in /proc/cpuinfo call
for (the kernel's own reading, not CPUID as Poslens reads it): AVX-512 F, BW,
VL, DQ and CD call for OpenBLAS's AVX-512 kernels, AVX2 with FMA for its AVX2
kernels. poslens-cli --version names the kernels its OpenBLAS runs. A user's
OPENBLAS_CORETYPE is left as it is, and starting again keeps the arguments.

usage: test-blas-core.py POSLENS-CLI FIXTURE
"""
import os
import subprocess
import sys

cli, fixture = sys.argv[1], sys.argv[2]
AVX512_KERNELS = {'skylakex', 'cooperlake', 'sapphirerapids'}
AVX2_KERNELS = {'haswell', 'zen'} | AVX512_KERNELS
checks = []


def check(ok, what):
    checks.append((bool(ok), what))


def run(*args, coretype=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OPENBLAS_CORETYPE')}
    if coretype is not None:
        env['OPENBLAS_CORETYPE'] = coretype
    return subprocess.run([cli] + list(args), env=env, capture_output=True, text=True, timeout=120)


def kernels(out):
    """'OpenBLAS 0.3.21, Cooperlake kernels' -> 'cooperlake'"""
    for line in out.splitlines():
        if line.startswith('OpenBLAS ') and line.endswith(' kernels'):
            return line.rsplit(', ', 1)[1][:-len(' kernels')].lower()
    return None


flags = set()
try:
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('flags'):
                flags = set(line.split(':', 1)[1].split())
                break
except OSError:
    pass

version = run('--version')
chosen = kernels(version.stdout)
check(version.returncode == 0 and chosen is not None, '--version names the kernels: %r' % version.stdout)
if {'avx512f', 'avx512bw', 'avx512vl', 'avx512dq', 'avx512cd'} <= flags:
    check(chosen in AVX512_KERNELS, 'AVX-512 processor runs AVX-512 kernels (got %s)' % chosen)
elif {'avx2', 'fma'} <= flags:
    check(chosen in AVX2_KERNELS, 'AVX2 processor runs AVX2 kernels (got %s)' % chosen)
else:
    check(chosen is not None, 'older processor: OpenBLAS\'s own choice (%s)' % chosen)

forced = run('--version', coretype='Prescott')
check(kernels(forced.stdout) == 'prescott', 'OPENBLAS_CORETYPE=Prescott stands (got %s)' % kernels(forced.stdout))

plain = run('info', fixture)
same = run('info', fixture, coretype=chosen or 'Prescott')
check(plain.returncode == 0 and plain.stdout == same.stdout and plain.stdout.strip(),
      'started again with the same arguments: info prints the same')

print('1..%d' % len(checks))
for i, (ok, what) in enumerate(checks, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
sys.exit(0 if all(ok for ok, _ in checks) else 1)
