# SPDX-License-Identifier: GPL-3.0-or-later
"""numpy, scikit-learn and PyTorch on the same OpenBLAS kernels as Poslens.

Poslens starts itself again with OPENBLAS_CORETYPE set when OpenBLAS took
kernels for a weaker instruction set than the processor runs (Debian 12's
OpenBLAS 0.3.21 takes its SSE3 kernels on processors newer than itself).
A bench compares engines on the same kernels: same_kernels_as_poslens()
asks poslens-cli which kernels it runs and, when this process has no
OPENBLAS_CORETYPE of its own, starts the bench again with the same one
before numpy's OpenBLAS has done any work.
"""
import os
import subprocess
import sys


def poslens_kernels(build_dir):
    """'Cooperlake' from poslens-cli --version ('OpenBLAS 0.3.21, Cooperlake kernels')."""
    out = subprocess.run([os.path.join(build_dir, 'src', 'cli', 'poslens-cli'), '--version'],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith('OpenBLAS ') and line.endswith(' kernels'):
            return line.rsplit(', ', 1)[1][:-len(' kernels')]
    raise RuntimeError('poslens-cli --version names no OpenBLAS kernels:\n' + out)


def same_kernels_as_poslens(build_dir):
    """Start this bench again with Poslens's OPENBLAS_CORETYPE unless one is set."""
    if 'OPENBLAS_CORETYPE' in os.environ:
        print('OpenBLAS kernels: %s (OPENBLAS_CORETYPE)' % os.environ['OPENBLAS_CORETYPE'], flush=True)
        return
    os.environ['OPENBLAS_CORETYPE'] = poslens_kernels(build_dir)
    os.execv(sys.executable, [sys.executable] + sys.argv)
