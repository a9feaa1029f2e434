#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Peak memory of position analyses on a large checkpoint: near the tensors
used, not the file.

Builds bench-open.py's ~1 GB BERT-large-shaped checkpoint (a 514 × 1024
float32 position table, 2 MiB, among 1 GB of other weights) as tf_model.h5
and model.safetensors, then runs `poslens-cli info`, `similarity`, `pca` and
`probe` on each in a fresh process and reports each one's peak RSS
(GNU time's maximum resident set size), against:
  - the same command on a plain 514 × 1024 table alone in a small file: what
    the analysis needs whatever the checkpoint around it (libraries, table,
    results);
  - numpy doing the same analysis from that table (cosine similarity; PCA by
    SVD; no probes) in a fresh process, for scale.
The figure that matters is Poslens on the 1 GB checkpoint minus Poslens on
the 2 MiB file: what the other 1 GB of weights costs (should be ~0).

  /usr/bin/python3 bench/bench-memory.py BUILD_DIR [--keep]
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_open", os.path.join(here, "bench-open.py"))
bench_open = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_open)

NUMPY_CHILD = r"""
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    t = f["position_embeddings"][...].astype(np.float32)
if sys.argv[2] == "similarity":
    n = t / np.linalg.norm(t, axis=1, keepdims=True)
    s = n @ n.T
    np.save(sys.argv[3], s)
else:
    c = t - t.mean(axis=0)
    u, sv, vt = np.linalg.svd(c, full_matrices=False)
    np.save(sys.argv[3], c @ vt[:3].T)
"""


def peak_mib(argv):
    """Runs ARGV alone and returns its peak RSS in MiB. Through /usr/bin/time
    (GNU time, %M): a fork of this Python process would count Python's own
    pages in the child's maximum, which survives exec."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv, check=True,
                       stdout=subprocess.DEVNULL)
        return int(out.read().split()[-1]) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir")
    parser.add_argument("--keep", action="store_true", help="keep the files in /tmp")
    args = parser.parse_args()
    cli = os.path.abspath(os.path.join(args.build_dir, "src", "cli", "poslens-cli"))
    if not os.path.exists(cli):
        sys.exit("build %s first" % cli)

    folder = tempfile.mkdtemp(prefix="poslens-bench-memory-", dir="/tmp")
    try:
        subprocess.run([sys.executable, os.path.join(here, "bench-open.py"), args.build_dir,
                        "--build-into", folder], check=True)
        h5 = os.path.join(folder, "h5", "tf_model.h5")
        st = os.path.join(folder, "st", "model.safetensors")
        dataset = "/roberta/" + bench_open.PREFIX + "embeddings/position_embeddings/embeddings:0"
        table = os.path.join(folder, "table.h5")
        with h5py.File(h5, "r") as f, h5py.File(table, "w") as out:
            out["position_embeddings"] = f[dataset][2:]   # the real positions (rows 0, 1: RoBERTa padding)
        out_dir = os.path.join(folder, "out")
        os.makedirs(out_dir)
        table_mib = bench_open.ROWS * bench_open.H * 4 / 2**20
        print("checkpoint: %.0f MiB tf_model.h5, %.0f MiB model.safetensors; position table %.1f MiB"
              % (os.path.getsize(h5) / 2**20, os.path.getsize(st) / 2**20, table_mib))
        print("peak RSS in MiB (fresh process each):")
        print("  %-11s %12s %12s %12s %12s %12s" % ("command", "table alone", "tf_model.h5", "safetensors",
                                                   "h5 − alone", "numpy"))
        commands = {
            "info": [],
            "similarity": ["--out", os.path.join(out_dir, "s.npy")],
            "pca": ["--out", os.path.join(out_dir, "p.npy")],
            "probe": ["--json"],
        }
        worst = 0.0
        for name, extra in commands.items():
            alone = peak_mib([cli, name, table] + extra)
            on_h5 = peak_mib([cli, name, os.path.dirname(h5)] + extra)
            on_st = peak_mib([cli, name, os.path.dirname(st)] + extra)
            numpy = "—"
            if name in ("similarity", "pca"):
                numpy = "%.1f" % peak_mib([sys.executable, "-c", NUMPY_CHILD, table, name,
                                            os.path.join(out_dir, "n.npy")])
            worst = max(worst, on_h5 - alone, on_st - alone)
            print("  %-11s %12.1f %12.1f %12.1f %+12.1f %12s" % (name, alone, on_h5, on_st, on_h5 - alone, numpy))
        print("the other %.0f MiB of weights cost at most %.1f MiB of peak memory (%.2f%% of the file)"
              % (os.path.getsize(h5) / 2**20 - table_mib, worst, 100 * worst / (os.path.getsize(h5) / 2**20)))
    finally:
        if args.keep:
            print("kept", folder)
        else:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
