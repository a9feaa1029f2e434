#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times Poslens's table analyses against numpy / scikit-learn on the same
random float32 data, in one run, and prints the ratios (run by hand, not a test).

    /usr/bin/python3 bench/bench-analyses.py [BUILD_DIR]   (default _build)

Poslens runs in bench/pl-bench-analyses (built with the project): the matrix is
loaded from an .npy before the clock starts, one warm-up run, then the best of
REPEAT single runs, each timed alone with a monotonic clock (process start and
loading excluded). Python is timed the same way: best of REPEAT after one
warm-up, with time.perf_counter around the call. The contenders alternate for
ROUNDS rounds and each keeps its best, so a busy moment hits all of them.
Both use OpenBLAS with OPENBLAS_NUM_THREADS threads (2 unless set).
"""
import os
import subprocess
import sys
import tempfile
import time

# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE may be set on this machine for old OpenBLAS
# builds; they slow a current numpy. Unset both for this benchmark alone.
if 'OPENBLAS_CORETYPE' in os.environ or 'OPENBLAS_L2_SIZE' in os.environ:
    env = {k: v for k, v in os.environ.items() if k not in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')}
    print('(re-running without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE)', flush=True)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)
os.environ.setdefault('OPENBLAS_NUM_THREADS', '2')

import numpy as np  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.model_selection import KFold, cross_val_score  # noqa: E402

REPEAT = 3
ROUNDS = 3
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, '_build')
driver = os.path.join(build, 'bench', 'pl-bench-analyses')
if not os.path.exists(driver):
    sys.exit('%s is missing: build the project first (ninja -C %s)' % (driver, build))


def best_of(fn, repeat=REPEAT):
    fn()
    best = float('inf')
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def poslens(op, x, repeat=REPEAT):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'x.npy')
        np.save(path, np.ascontiguousarray(x, dtype=np.float32))
        out = subprocess.run([driver, op, path, str(repeat)], check=True, capture_output=True, text=True)
        name, seconds = out.stdout.split()
        return float(seconds)


def side_by_side(fns, op, x, rounds=ROUNDS):
    """Alternates the Python contenders and Poslens for ROUNDS rounds and
    keeps each one's best, so a busy moment on a shared machine hits both."""
    best = [float('inf')] * (len(fns) + 1)
    for _ in range(rounds):
        for i, (fn, repeat) in enumerate(fns):
            best[i] = min(best[i], best_of(fn, repeat))
        best[-1] = min(best[-1], poslens(op, x))
    return best


try:
    from threadpoolctl import threadpool_info
    print('numpy BLAS:', ', '.join('%s %s %s threads' % (i['internal_api'], i.get('architecture'), i['num_threads'])
                                   for i in threadpool_info() if i['user_api'] == 'blas'))
except ImportError:
    pass

rng = np.random.default_rng(0)
rows = []

# Cosine similarity, 4096 x 1024: normalise then X @ X.T.
x = rng.standard_normal((4096, 1024)).astype(np.float32)


def numpy_cosine():
    n = x / np.linalg.norm(x, axis=1, keepdims=True)
    return n @ n.T


def numpy_cosine_gemm():
    n = x / np.linalg.norm(x, axis=1, keepdims=True)
    return n @ n.copy().T


# numpy's matmul spots X @ X.T (one buffer, transposed) and calls SSYRK itself,
# so the second row, with the transpose in another buffer, is the GEMM case.
t_np, t_gemm, t_pl = side_by_side([(numpy_cosine, REPEAT), (numpy_cosine_gemm, REPEAT)], 'cosine', x)
rows.append(('cosine 4096x1024', 'numpy normalise + X @ X.T (SSYRK)', t_np, t_pl, 1.5))
rows.append(('cosine 4096x1024', 'numpy normalise + X @ copy(X).T (GEMM)', t_gemm, t_pl, 1.5))

# PCA, first 3 components of 4096 x 1024.
t_rand, t_full, t_pl = side_by_side([(lambda: PCA(n_components=3).fit_transform(x), REPEAT),
                                      (lambda: PCA(n_components=3, svd_solver='full').fit_transform(x), 1)],
                                     'pca3', x)
rows.append(('PCA top-3 4096x1024', "sklearn PCA default (randomized)", t_rand, t_pl, 1.0))
rows.append(('PCA top-3 4096x1024', "sklearn PCA svd_solver='full'", t_full, t_pl, 10.0))

# Absolute-position probe, 512 x 768, 5 interleaved folds as the paper's code.
p = rng.standard_normal((512, 768)).astype(np.float32)
y = np.arange(512)
t_sk, t_pl = side_by_side([(lambda: cross_val_score(LinearRegression(), p, y, cv=KFold(5),
                                                    scoring='neg_mean_absolute_error'), REPEAT)],
                          'probe-absolute', p)
rows.append(('absolute probe 512x768', 'sklearn cross_val_score(LinearRegression)', t_sk, t_pl, 5.0))

print()
print('%-24s %-42s %10s %10s %8s %6s' % ('task', 'against', 'them (s)', 'Poslens', 'ratio', 'goal'))
for task, what, them, us, goal in rows:
    ratio = them / us
    print('%-24s %-42s %10.4f %10.4f %7.1fx %5.1fx %s' % (task, what, them, us, ratio, goal,
                                                          'ok' if ratio >= goal else 'MISSED'))
