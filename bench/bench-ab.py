#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Paired A/B timing of two builds of pl-bench-analyses (run by hand, not a test).

    /usr/bin/python3 bench/bench-ab.py OP DRIVER_A DRIVER_B [--rounds N] [--env-b K=V ...]
                                     [--op-b OP_B] [--shape ROWSxCOLS]

OP is one of the driver's operations (cosine, pca3, pca-lanczos, ...), run on
the benchmark's random float32 table (4096 x 1024 unless --shape); --op-b runs
another operation for B (cosine-plain against cosine: a tuned path against its
plain reference, DRIVER_B then usually the same as DRIVER_A). On a shared machine the
speed drifts by 10-30 % within minutes, so two builds timed one after the other
cannot be told apart by a few percent. Here A and B alternate for ROUNDS rounds
(30 unless --rounds; the order flips each round), each sample the best of 3 runs
in a fresh process, and the summary is the median of the per-round ratios B/A
with its quartiles: a change is real when the interquartile range stays on one
side of 1. --env-b sets environment variables for B only, so one binary with
an experimental switch can be compared against itself.

OP forward (or attentions, the forward pass returning every attention map)
times two builds' pl-bench-forward on one checkpoint instead, --shape naming
its folder (holding ids.txt, as bench-engines.py writes them): both drivers
stay open in their command mode and answer in turn, so the model is read once.

OP attention times pl-bench-forward's attention of one layer, --shape
TxHEADSxDIM[xcausal], e.g. bench/bench-ab.py attention BUILD_A/bench/pl-bench-forward
BUILD_B/bench/pl-bench-forward --shape 1024x12x64xcausal --cpu (OP attention-plain runs
the plain path where the fused one would run: attention-plain DRIVER DRIVER --op-b
attention compares the two in one build); --cpu compares the
processor time of the process (all its threads) instead of the wall time, which
a machine shared by many jobs inflates unevenly; with forward and attentions it is
read from /proc (10 ms ticks).

OP linear times pl-bench-forward's linear layer on the AMX tiles, --shape TxKxN[xgelu]
(X [T, K] times W [K, N]); linear-plain the same on OpenBLAS: linear-plain DRIVER DRIVER
--op-b linear compares the two in one build.

OP stored times pl-bench-forward's product by a stored weight on pl_stored_gemm's tuned path,
--shape TxKxN[xbf16|f32] (W [N, K] in that type, BF16 by default); stored-plain the same on
the plain path: stored-plain DRIVER DRIVER --op-b stored compares the two in one build.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

import numpy as np


def forward_samples(args, env_b):
    """Paired forward passes of two pl-bench-forward drivers kept open."""
    folder = args.shape

    def start(driver, extra):
        proc = subprocess.Popen([driver, folder, os.path.join(folder, 'ids.txt'), '0', os.devnull],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ, **extra))
        proc.stdout.readline()
        return proc

    def cpu_s(proc):
        with open('/proc/%d/stat' % proc.pid) as stat:
            fields = stat.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

    def ask(proc, op):
        cpu0 = cpu_s(proc)
        proc.stdin.write(op + '\n')
        proc.stdin.flush()
        wall = float(proc.stdout.readline())
        return cpu_s(proc) - cpu0 if args.cpu else wall

    pa, pb = start(args.driver_a, {}), start(args.driver_b, env_b)
    op_b = args.op_b or args.op
    ask(pa, args.op)
    ask(pb, op_b)
    a, b = [], []
    for r in range(args.rounds):
        if r % 2 == 0:
            a.append(ask(pa, args.op))
            b.append(ask(pb, op_b))
        else:
            b.append(ask(pb, op_b))
            a.append(ask(pa, args.op))
    for proc in (pa, pb):
        proc.stdin.write('quit\n')
        proc.stdin.close()
        proc.wait()
    return a, b


def sampled(args, env_b):
    """Paired samples, each the best of 3 runs in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'x.npy')
        if args.op.startswith(('attention', 'linear', 'stored')):
            path = args.shape
        else:
            rows, cols = (int(v) for v in args.shape.split('x'))
            np.save(path, np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32))

        def run(driver, op, extra):
            out = subprocess.run([driver, op, path, '3'], check=True, capture_output=True, text=True,
                                 env=dict(os.environ, **extra))
            return float(out.stdout.split()[2 if args.cpu else 1])

        op_b = args.op_b or args.op
        a, b = [], []
        for r in range(args.rounds):
            if r % 2 == 0:
                a.append(run(args.driver_a, args.op, {}))
                b.append(run(args.driver_b, op_b, env_b))
            else:
                b.append(run(args.driver_b, op_b, env_b))
                a.append(run(args.driver_a, args.op, {}))

    return a, b, op_b


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('op')
    parser.add_argument('driver_a')
    parser.add_argument('driver_b')
    parser.add_argument('--rounds', type=int, default=30)
    parser.add_argument('--op-b', help='the operation B runs (default: OP)')
    parser.add_argument('--shape', default='4096x1024', help='the table, ROWSxCOLS')
    parser.add_argument('--env-b', action='append', default=[], metavar='K=V',
                        help='an environment variable for B only (repeatable)')
    parser.add_argument('--cpu', action='store_true', help='compare processor time (attention, forward, attentions)')
    args = parser.parse_args()
    env_b = dict(kv.split('=', 1) for kv in args.env_b)
    os.environ.setdefault('OPENBLAS_NUM_THREADS', '2')

    if args.op in ('forward', 'attentions'):
        a, b = forward_samples(args, env_b)
        op_b = args.op_b or args.op
    else:
        a, b, op_b = sampled(args, env_b)
    ratios = sorted(y / x for x, y in zip(a, b))
    q = statistics.quantiles(ratios, n=4)
    print('%s, OPENBLAS_NUM_THREADS=%s' % (args.shape, os.environ['OPENBLAS_NUM_THREADS']))
    print('A %s %s: median %.1f ms, min %.1f ms' % (args.driver_a, args.op, statistics.median(a) * 1e3, min(a) * 1e3))
    print('B %s %s%s: median %.1f ms, min %.1f ms' % (args.driver_b, op_b, ' ' + str(env_b) if env_b else '',
                                                     statistics.median(b) * 1e3, min(b) * 1e3))
    print('B/A over %d paired rounds: median %.3f, quartiles %.3f-%.3f' % (args.rounds, statistics.median(ratios),
                                                                           q[0], q[2]))


main()
