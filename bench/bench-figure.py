#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Figure speed, by hand (not a test).

1. `poslens-cli similarity` of the demo GPT-2 to a PNG, the whole process,
   against bench-figure-mpl.py doing the same with h5py + numpy + matplotlib
   (same 6 × 5 in at 150 DPI). Wall time (median of --runs) and peak RSS from
   /usr/bin/time -v. Goals: at least 7× faster, at most a third of the memory.
2. Redrawing a 1024 × 1024 heatmap at new zoom windows from its cached image
   (bench/pl-bench-figure). Goal: well under a frame (16 ms).

  /usr/bin/python3 bench/bench-figure.py BUILD_DIR [--runs 5] [--cli PATH]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "data", "demo", "mini-gpt2", "tf_model.h5")
DATASET = "/transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0"


def measure(cmd, runs):
    """Median wall seconds, median CPU seconds (user + system) and median peak
    RSS (MiB) of CMD over RUNS runs. On a loaded machine the wall time mostly
    measures waiting for a core; the CPU time is the steadier comparison."""
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), done.stderr))
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        rss.append(int(match.group(1)) / 1024)
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", done.stderr).group(1))
        system = float(re.search(r"System time \(seconds\): ([\d.]+)", done.stderr).group(1))
        cpus.append(user + system)
    return statistics.median(walls), statistics.median(cpus), statistics.median(rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", help="poslens-cli to time (default: BUILD_DIR/src/cli/poslens-cli)")
    args = parser.parse_args()

    cli = args.cli or os.path.join(args.build_dir, "src", "cli", "poslens-cli")
    driver = os.path.join(args.build_dir, "bench", "pl-bench-figure")
    results = {}

    with tempfile.TemporaryDirectory() as tmp:
        help_text = subprocess.run([cli, "similarity", "--help"], capture_output=True, text=True).stdout
        has_similarity = "--colormap" in help_text
        if has_similarity:
            ours_png = os.path.join(tmp, "poslens.png")
            theirs_png = os.path.join(tmp, "matplotlib.png")
            ours = measure([cli, "similarity", MODEL, "--out", ours_png, "--size", "432x360", "--dpi", "150"],
                           args.runs)
            theirs = measure(["/usr/bin/python3", os.path.join(ROOT, "bench", "bench-figure-mpl.py"),
                              MODEL, DATASET, theirs_png], args.runs)
            results["similarity_png"] = {
                "poslens_wall_s": round(ours[0], 4), "poslens_cpu_s": round(ours[1], 3),
                "poslens_peak_mib": round(ours[2], 1),
                "matplotlib_wall_s": round(theirs[0], 4), "matplotlib_cpu_s": round(theirs[1], 3),
                "matplotlib_peak_mib": round(theirs[2], 1),
                "speedup_wall": round(theirs[0] / ours[0], 2),
                "speedup_cpu": round(theirs[1] / max(ours[1], 1e-3), 2),
                "memory_ratio": round(ours[2] / theirs[2], 3),
                "goal": "speedup >= 7, memory_ratio <= 0.333",
            }
        else:
            results["similarity_png"] = "skipped: poslens-cli similarity does not write figures yet"

    zoom = subprocess.run([driver], capture_output=True, text=True, check=True)
    results["heatmap_zoom_redraw"] = json.loads(zoom.stdout)
    results["heatmap_zoom_redraw"]["goal"] = "median well under 16 ms"
    results["load_average"] = os.getloadavg()

    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
