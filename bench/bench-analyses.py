#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times Poslens's table analyses against numpy / scikit-learn on the same
random float32 data, in one run, and prints the ratios (run by hand, not a test).

    /usr/bin/python3 bench/bench-analyses.py [BUILD_DIR [ROUNDS [PART...]]]

BUILD_DIR defaults to _build; PARTs are cosine, pca, probe, stepping and breakdown
(all unless named), so that one comparison can be given many rounds.

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

The stepping part holds Page Down in the real window (bench/pl-bench-stepping,
under xvfb-run when there is no display) through the 12 layers of a 1024-position
GPT-2 written here, ROUNDS times, and prints the share of the executor's
processor time spent on superseded questions (goal <= 10 %) and how many
computations still ran 100 ms after the last press (goal <= 1).
"""
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

os.environ.setdefault('OPENBLAS_NUM_THREADS', '2')

import bench_blas  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.model_selection import KFold, cross_val_score  # noqa: E402

REPEAT = 3
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
ALL_PARTS = {'cosine', 'pca', 'probe', 'stepping', 'breakdown'}
PARTS = set(sys.argv[3:]) or ALL_PARTS
if PARTS - ALL_PARTS:
    sys.exit('unknown part(s): %s (%s)' % (', '.join(sorted(PARTS - ALL_PARTS)), ', '.join(sorted(ALL_PARTS))))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, '_build')
driver = os.path.join(build, 'bench', 'pl-bench-analyses')
if not os.path.exists(driver):
    sys.exit('%s is missing: build the project first (ninja -C %s)' % (driver, build))
bench_blas.same_kernels_as_poslens(build)


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


def side_by_side(fns, op, x, rounds=ROUNDS, repeat=REPEAT):
    """Alternates the Python contenders and Poslens (best of REPEAT runs) for
    ROUNDS rounds; returns each contender's list of (wall, cpu), one per round,
    Poslens last."""
    samples = [[] for _ in range(len(fns) + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'x.npy')
        np.save(path, np.ascontiguousarray(x, dtype=np.float32))
        for _ in range(rounds):
            for i, (fn, repeat) in enumerate(fns):
                samples[i].append(best_of(fn, repeat))
            samples[-1].append(poslens(op, path, repeat))
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
print('%d rounds; each sample the best of %d runs (%d for the 10 ms cosine)' % (ROUNDS, REPEAT, 4 * REPEAT), flush=True)

rng = np.random.default_rng(0)
rows = []

# Cosine similarity: normalise then X @ X.T, at 4096 x 1024 and 1024 x 768.
x = rng.standard_normal((4096, 1024)).astype(np.float32)
x_small = np.random.default_rng(1).standard_normal((1024, 768)).astype(np.float32)


def numpy_cosine_of(table):
    def cosine():
        n = table / np.linalg.norm(table, axis=1, keepdims=True)
        return n @ n.T
    return cosine


numpy_cosine = numpy_cosine_of(x)


def numpy_cosine_gemm():
    n = x / np.linalg.norm(x, axis=1, keepdims=True)
    return n @ n.copy().T


if 'cosine' in PARTS:
    # numpy's matmul spots X @ X.T (one buffer, transposed) and calls SSYRK itself,
    # so the second row, with the transpose in another buffer, is the GEMM case.
    t_np, t_gemm, t_pl = side_by_side([(numpy_cosine, REPEAT), (numpy_cosine_gemm, REPEAT)], 'cosine', x)
    rows.append(('cosine 4096x1024', 'numpy normalise + X @ X.T (SSYRK)', t_np, t_pl, 1.5))
    rows.append(('cosine 4096x1024', 'numpy normalise + X @ copy(X).T (GEMM)', t_gemm, t_pl, 1.5))
    # Ten milliseconds: the best of more runs on both sides, so that one
    # busy moment of the shared machine does not decide a round.
    t_np, t_pl = side_by_side([(numpy_cosine_of(x_small), 4 * REPEAT)], 'cosine', x_small, repeat=4 * REPEAT)
    rows.append(('cosine 1024x768', 'numpy normalise + X @ X.T (SSYRK)', t_np, t_pl, 1.5))

    # For comparison: numpy's whole path against one bare, OpenBLAS-threaded SSYRK
    # into a fresh 4096 x 4096 result as Poslens allocates it (nothing else) -- what
    # a cosine that left the threading to OpenBLAS could reach at most. Poslens's
    # cosine splits the product over its own threads instead.
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


def write_gpt2(folder, layers=12, positions=1024, hidden=64, heads=2, vocab=256):
    """A random GPT-2 as model.safetensors (Conv1D weights [in, out]) + config.json."""
    g = np.random.default_rng(3)

    def normal(*shape, scale=0.2):
        return (g.standard_normal(shape) * scale).astype(np.float32)

    t = {'wte.weight': normal(vocab, hidden, scale=1), 'wpe.weight': normal(positions, hidden, scale=1),
         'ln_f.weight': 1 + normal(hidden, scale=0.1), 'ln_f.bias': normal(hidden, scale=0.1)}
    for l in range(layers):
        p = 'h.%d.' % l
        for ln in ('ln_1', 'ln_2'):
            t[p + ln + '.weight'] = 1 + normal(hidden, scale=0.1)
            t[p + ln + '.bias'] = normal(hidden, scale=0.1)
        for name, n_in, n_out in (('attn.c_attn', hidden, 3 * hidden), ('attn.c_proj', hidden, hidden),
                                  ('mlp.c_fc', hidden, 4 * hidden), ('mlp.c_proj', 4 * hidden, hidden)):
            t[p + name + '.weight'] = normal(n_in, n_out)
            t[p + name + '.bias'] = normal(n_out, scale=0.1)
    header, blobs, offset = {}, [], 0
    for name, a in t.items():
        header[name] = {'dtype': 'F32', 'shape': list(a.shape), 'data_offsets': [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    with open(os.path.join(folder, 'model.safetensors'), 'wb') as out:
        out.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))
    with open(os.path.join(folder, 'config.json'), 'w') as out:
        json.dump({'model_type': 'gpt2', 'n_embd': hidden, 'n_layer': layers, 'n_head': heads,
                   'n_positions': positions, 'vocab_size': vocab, 'layer_norm_epsilon': 1e-5,
                   'activation_function': 'gelu_new'}, out)


stepping = []
if 'stepping' in PARTS:
    # Each round a fresh process: nothing is cached, every step waits for the
    # forward passes of all layers, which the steps share.
    stepper = os.path.join(build, 'bench', 'pl-bench-stepping')
    command = [stepper] if os.environ.get('DISPLAY') else ['xvfb-run', '-a', '-s', '-screen 0 1600x1000x24', stepper]
    with tempfile.TemporaryDirectory() as tmp:
        write_gpt2(tmp)
        for _ in range(ROUNDS):
            out = subprocess.run(command + [tmp], check=True, capture_output=True, text=True,
                                 env=dict(os.environ, OPENBLAS_NUM_THREADS=os.environ['OPENBLAS_NUM_THREADS']))
            line = [l for l in out.stdout.splitlines() if l.startswith('stepping ')][-1].split()
            stepping.append((int(line[2]), float(line[3]), float(line[4]), float(line[5])))


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

if stepping:
    shares = [s[3] / s[2] for s in stepping]
    print()
    print('stepping 12 layers x 1024 positions (Page Down every 33 ms, %d rounds): superseded questions took %.1f %% '
          'of the processor time (median; max %.1f %%), goal <= 10 %% %s; computations running 100 ms after the last '
          'press: at most %d, goal <= 1 %s; last answer %.2f s after the last press, %.2f s of processor time (medians)'
          % (len(stepping), 100 * statistics.median(shares), 100 * max(shares),
             'ok' if statistics.median(shares) <= 0.10 else 'MISSED', max(s[0] for s in stepping),
             'ok' if max(s[0] for s in stepping) <= 1 else 'MISSED', statistics.median(s[1] for s in stepping),
             statistics.median(s[2] for s in stepping)))

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
