#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times Poslens's table analyses against numpy / scikit-learn on the same
random float32 data, in one run, and prints the ratios (run by hand, not a test).

    /usr/bin/python3 bench/bench-analyses.py [BUILD_DIR [ROUNDS [PART...]]]

BUILD_DIR defaults to _build; PARTs are cosine, pca, probe and breakdown (all
unless named), so that one comparison can be given many rounds.

Poslens runs in bench/pl-bench-analyses (built with the project): the matrix is
loaded from an .npy before the clock starts, one warm-up run, then the best of
REPEAT single runs, each timed alone with a monotonic clock (process start and
loading excluded). Python is timed the same way: best of REPEAT after one
warm-up, with time.perf_counter around the call. The contenders alternate for
ROUNDS rounds (6 unless given as a second argument), so a busy moment on a
shared machine hits all of them; each round's ratio is one sample, and the
table gives the median ratio with its spread (min–max over the rounds), the
median wall times and the CPU time (all threads, time.process_time and
CLOCK_PROCESS_CPUTIME_ID) of the same runs. Both sides use the same OpenBLAS
with OPENBLAS_NUM_THREADS threads (2 unless set); the kernels that run are
printed first. A breakdown of Poslens's side follows: the bare SSYRK and SGEMM
products on one thread and on all (GFLOP/s, the floor both sides build on),
the cosine, and the PCA's covariance and Lanczos parts.
"""
import os
import statistics
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
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
PARTS = set(sys.argv[3:]) or {'cosine', 'pca', 'probe', 'breakdown'}
if PARTS - {'cosine', 'pca', 'probe', 'breakdown'}:
    sys.exit('unknown part(s): %s (cosine, pca, probe, breakdown)' % ', '.join(sorted(PARTS)))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, '_build')
driver = os.path.join(build, 'bench', 'pl-bench-analyses')
if not os.path.exists(driver):
    sys.exit('%s is missing: build the project first (ninja -C %s)' % (driver, build))


def best_of(fn, repeat=REPEAT):
    """(wall, cpu) of the fastest of REPEAT runs after a warm-up."""
    fn()
    best = (float('inf'), 0.0)
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall = time.perf_counter() - t
        if wall < best[0]:
            best = (wall, time.process_time() - c)
    return best


def poslens(op, path, repeat=REPEAT, env=None):
    out = subprocess.run([driver, op, path, str(repeat)], check=True, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {})))
    name, wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def side_by_side(fns, op, x, rounds=ROUNDS):
    """Alternates the Python contenders and Poslens for ROUNDS rounds; returns
    each contender's list of (wall, cpu), one per round, Poslens last."""
    samples = [[] for _ in range(len(fns) + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'x.npy')
        np.save(path, np.ascontiguousarray(x, dtype=np.float32))
        for _ in range(rounds):
            for i, (fn, repeat) in enumerate(fns):
                samples[i].append(best_of(fn, repeat))
            samples[-1].append(poslens(op, path))
    return samples


try:
    from threadpoolctl import threadpool_info
    print('numpy BLAS:  ', ', '.join('%s %s %s (%s), %s threads' % (i['internal_api'], i.get('version'), i.get('architecture'),
                                                             i['filepath'], i['num_threads'])
                                     for i in threadpool_info() if i['user_api'] == 'blas'))
except ImportError:
    print('numpy BLAS:   (threadpoolctl is missing: python3-threadpoolctl)')
print('Poslens BLAS:', subprocess.run([driver, '--blas'], check=True, capture_output=True, text=True).stdout.strip())
print('OPENBLAS_NUM_THREADS=%s; OPENBLAS_CORETYPE %s' % (os.environ['OPENBLAS_NUM_THREADS'],
                                                         os.environ.get('OPENBLAS_CORETYPE', 'unset')))
print('%d rounds; each sample the best of %d runs' % (ROUNDS, REPEAT), flush=True)

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


if 'cosine' in PARTS:
    # numpy's matmul spots X @ X.T (one buffer, transposed) and calls SSYRK itself,
    # so the second row, with the transpose in another buffer, is the GEMM case.
    t_np, t_gemm, t_pl = side_by_side([(numpy_cosine, REPEAT), (numpy_cosine_gemm, REPEAT)], 'cosine', x)
    rows.append(('cosine 4096x1024', 'numpy normalise + X @ X.T (SSYRK)', t_np, t_pl, 1.5))
    rows.append(('cosine 4096x1024', 'numpy normalise + X @ copy(X).T (GEMM)', t_gemm, t_pl, 1.5))

    # For comparison: numpy's whole path against one bare, OpenBLAS-threaded SSYRK
    # into a fresh 4096 x 4096 result as Poslens allocates it (nothing else) -- what
    # a cosine that left the threading to OpenBLAS could reach at most. Poslens's
    # cosine splits the product over its own threads instead and beats it.
    t_np2, t_syrk = side_by_side([(numpy_cosine, REPEAT)], 'ssyrk', x / np.linalg.norm(x, axis=1, keepdims=True))
    rows.append(('cosine 4096x1024', 'numpy path vs bare threaded SSYRK alone', t_np2, t_syrk, None))

if 'pca' in PARTS:
    # PCA, first 3 components of 4096 x 1024.
    t_rand, t_full, t_pl = side_by_side([(lambda: PCA(n_components=3).fit_transform(x), REPEAT),
                                          (lambda: PCA(n_components=3, svd_solver='full').fit_transform(x), 1)],
                                         'pca3', x)
    rows.append(('PCA top-3 4096x1024', "sklearn PCA default (randomized)", t_rand, t_pl, 1.0))
    rows.append(('PCA top-3 4096x1024', "sklearn PCA svd_solver='full'", t_full, t_pl, 10.0))

if 'probe' in PARTS:
    # Absolute-position probe, 512 x 768, 5 interleaved folds as the paper's code.
    p = rng.standard_normal((512, 768)).astype(np.float32)
    y = np.arange(512)
    t_sk, t_pl = side_by_side([(lambda: cross_val_score(LinearRegression(), p, y, cv=KFold(5),
                                                        scoring='neg_mean_absolute_error'), REPEAT)],
                              'probe-absolute', p)
    rows.append(('absolute probe 512x768', 'sklearn cross_val_score(LinearRegression)', t_sk, t_pl, 5.0))


def med(samples, k):
    return statistics.median(s[k] for s in samples)


print()
print('%-22s %-40s %17s %17s %6s %11s %6s' % ('task', 'against', 'them wall/cpu (s)', 'Poslens wall/cpu',
                                                'ratio', 'spread', 'goal'))
for task, what, them, us, goal in rows:
    ratios = [a[0] / b[0] for a, b in zip(them, us)]
    cpu_ratio = med(them, 1) / med(us, 1)
    ratio = statistics.median(ratios)
    verdict = '%5.1fx %s' % (goal, 'ok' if ratio >= goal else 'MISSED') if goal else '%6s   ' % '-'
    print('%-22s %-40s %8.4f/%-8.4f %8.4f/%-8.4f %5.2fx %4.2f-%-5.2f %s (cpu %.2fx)'
          % (task, what, med(them, 0), med(them, 1), med(us, 0), med(us, 1), ratio, min(ratios), max(ratios),
             verdict, cpu_ratio))

if 'breakdown' not in PARTS:
    sys.exit(0)
# Where the time goes, Poslens's side: the bare BLAS products on one thread
# and on all, and the parts of the PCA; medians over the rounds.
print()
print('breakdown (medians of %d rounds, 4096x1024 float32)' % ROUNDS)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, 'x.npy')
    np.save(path, x)
    n, d = x.shape
    parts = [('ssyrk', n * n * d, 'bare SSYRK X X^T (upper), n^2 d flops'),
             ('sgemm', 2 * n * n * d, 'bare SGEMM X X^T (both triangles), 2 n^2 d flops'),
             ('cosine', n * n * d, 'Poslens cosine, counted as n^2 d flops'),
             ('pca-covariance', d * d * n, 'PCA: means + covariance, d^2 n flops'),
             ('pca-lanczos', 0, 'PCA: Lanczos top 3 of the 1024x1024 covariance'),
             ('pca3', 0, 'PCA: whole')]
    for threads in ('1', os.environ['OPENBLAS_NUM_THREADS']):
        for op, flops, what in parts:
            if threads == '1' and op not in ('ssyrk', 'sgemm'):
                continue
            try:
                walls = sorted(poslens(op, path, env={'OPENBLAS_NUM_THREADS': threads})[0] for _ in range(ROUNDS))
            except subprocess.CalledProcessError:
                print('  %s thread(s) %-15s (not in this build\'s driver)' % (threads, op))
                continue
            wall = statistics.median(walls)
            rate = '%6.1f GFLOP/s' % (flops / wall / 1e9) if flops else ''
            print('  %s thread(s) %-15s %8.1f ms (%.1f-%.1f) %s  %s' % (threads, op, wall * 1e3, walls[0] * 1e3,
                                                                      walls[-1] * 1e3, rate, what))
