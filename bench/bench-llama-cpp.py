#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Poslens' forward pass of a 1B model against llama.cpp's prompt evaluation, in time and memory.

A TinyLlama-1.1B-shaped model (22 layers, width 2048, 32 heads on 4 key/value heads, feed-forward
5632, random weights at the real shapes) is written once by bench/llama_model_files.py into DIR (not
committed; /work/scratch/speed/tinyllama by default): a Hugging Face folder in BF16 and in F32, and
the same numbers as GGUF for llama.cpp (BF16, F32, and Q8_0 and Q4_K_M made by llama.cpp's own
quantiser). llama.cpp is node-llama-cpp 3.21.1's prebuilt CPU library (npm i -E
node-llama-cpp@3.21.1 --ignore-scripts), run by bench/llama-cpp-eval.mjs with its defaults (mmap,
flash attention "auto", F16 KV cache) and a context and batch of the whole prompt. Poslens runs the
Hugging Face folder of the same precision (or, with --poslens-gguf, the GGUF file itself).

For each format, on the same 512 ids (the bos id, then random ids) with the same thread count:

  - the pass alone: bench/pl-bench-forward (pl_transformer_run without attentions) and llama.cpp's
    evaluation of the prompt in a fresh sequence, both processes kept open and asked in turn,
    alternating which goes first, after one warm-up each (Poslens prepares each layer on its first
    use; llama.cpp's first evaluation faults its mapped file in);
  - the whole process: `poslens-cli forward FOLDER --ids-from ... --no-attentions
    --no-hidden-states` against `node llama-cpp-eval.mjs ... once` (start, open, prepare, evaluate,
    exit), alternating, wall time and peak RSS (GNU time), after one warm-up each so that both read
    their files from the page cache;
  - agreement: the last token's final hidden state (after the final norm) of both, as a cosine.

Each line gives the medians, the paired ratio Poslens / llama.cpp per round as median (quartiles),
and the load average around the runs. The machine is shared: read ratios, not single times.

  /usr/bin/python3 bench/bench-llama-cpp.py BUILD_DIR --node-modules DIR/node_modules
      [--dir DIR] [--formats bf16,f32] [--rounds 5] [--process-rounds 3] [--threads 2] [--tokens 512]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_blas  # noqa: E402
import llama_model_files  # noqa: E402


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def load():
    return os.getloadavg()[0]


class Driver:
    """A process answering one command a line."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.header = self.proc.stdout.readline()
        if not self.header:
            sys.exit("%s failed (see its message above)" % argv[0])

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def close(self):
        self.ask("quit")
        self.proc.wait()


def timed(argv, env=None):
    """Wall seconds and peak RSS (MiB) of one process."""
    with tempfile.NamedTemporaryFile("r") as out:
        start = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv, check=True,
                       stdout=subprocess.DEVNULL, env=env)
        wall = time.perf_counter() - start
        return wall, int(out.read().split()[-1]) / 1024


def report(what, ours, theirs, unit="s"):
    ratios = [a / b for a, b in zip(ours, theirs)]
    q1, med, q3 = quartiles(ratios)
    print("  %-34s Poslens %8.3f %s, llama.cpp %8.3f %s, ratio %.2f (%.2f-%.2f), %d rounds"
          % (what, statistics.median(ours), unit, statistics.median(theirs), unit, med, q1, q3, len(ratios)),
          flush=True)


def bench_format(args, form, paths, ids_txt, ids_h5):
    driver = os.path.join(args.build_dir, "bench", "pl-bench-forward")
    cli = os.path.join(args.build_dir, "src", "cli", "poslens-cli")
    node = [args.node, os.path.join(HERE, "llama-cpp-eval.mjs"), args.node_modules, paths[form], ids_txt,
            str(args.threads)]
    ours_model = paths[form] if args.poslens_gguf or form not in ("bf16", "f32") else paths["hf-" + form]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads))
    loads = [load()]
    print("%s: Poslens on %s, llama.cpp on %s" % (form, ours_model, paths[form]), flush=True)

    # The pass alone.
    hidden_out = os.path.join(args.dir, "poslens-last-%s.f32" % form)
    llama_out = os.path.join(args.dir, "llama-last-%s.f32" % form)
    ours, theirs = Driver([driver, ours_model, ids_txt, "0", hidden_out], env), Driver(node + ["serve"])
    print("  llama.cpp runs with %s" % theirs.header.strip(), flush=True)
    ours.ask("forward")
    theirs.ask("eval")
    a, b = [], []
    for r in range(args.rounds):
        loads.append(load())
        for who in (("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")):
            if who == "ours":
                a.append(float(ours.ask("forward")))
            else:
                b.append(float(theirs.ask("eval")))
    ours.ask("save")
    theirs.ask("embed " + llama_out)
    ours.close()
    theirs.close()
    report("the %d-token pass alone" % args.tokens, a, b)
    mine = np.fromfile(hidden_out, dtype=np.float32).reshape(args.tokens, -1)[-1]
    other = np.fromfile(llama_out, dtype=np.float32)
    cosine = float(mine @ other / np.linalg.norm(mine) / np.linalg.norm(other))
    print("  last token's final hidden state: cosine %.7f, max |diff| / max |llama.cpp| %.2g"
          % (cosine, np.abs(mine - other).max() / np.abs(other).max()), flush=True)

    # The whole process.
    out_h5 = os.path.join(args.dir, "poslens-forward.h5")
    ours_argv = [cli, "forward", ours_model, "--ids-from", ids_h5 + ":/ids", "--no-attentions",
                 "--no-hidden-states", "--out", out_h5]
    timed(ours_argv, env)
    timed(node + ["once"])
    walls, peaks = ([], []), ([], [])
    for r in range(args.process_rounds):
        loads.append(load())
        for who in ((0, 1) if r % 2 == 0 else (1, 0)):
            wall, peak = timed(ours_argv, env) if who == 0 else timed(node + ["once"])
            walls[who].append(wall)
            peaks[who].append(peak)
    loads.append(load())
    report("whole process: open, run, exit", *walls)
    report("whole process: peak RSS", *peaks, unit="MiB")
    print("  load average %.1f-%.1f" % (min(loads), max(loads)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--node-modules", required=True, help="the node_modules folder holding node-llama-cpp")
    parser.add_argument("--dir", default="/work/scratch/speed/tinyllama")
    parser.add_argument("--formats", default="bf16,f32")
    parser.add_argument("--poslens-gguf", action="store_true", help="Poslens opens the GGUF files too")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--process-rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--node", default="node")
    args = parser.parse_args()
    bench_blas.same_kernels_as_poslens(args.build_dir)
    forms = args.formats.split(",")
    paths = llama_model_files.write_all(args.dir, args.node_modules,
                                        forms=forms + ["hf-" + f for f in forms if f in ("bf16", "f32")])
    rng = np.random.default_rng(3)
    ids = np.concatenate([[1], rng.integers(259, llama_model_files.TINYLLAMA["vocab_size"], args.tokens - 1)])
    ids_txt, ids_h5 = os.path.join(args.dir, "ids.txt"), os.path.join(args.dir, "ids.h5")
    np.savetxt(ids_txt, ids[None, :], fmt="%d", delimiter=",")
    import h5py
    with h5py.File(ids_h5, "w") as f:
        f["ids"] = ids.astype(np.int64)
    print("TinyLlama-1.1B shape, %d tokens, %d threads, %s" % (args.tokens, args.threads,
                                                               time.strftime("%H:%M UTC", time.gmtime())))
    for form in forms:
        bench_format(args, form, paths, ids_txt, ids_h5)


if __name__ == "__main__":
    main()
