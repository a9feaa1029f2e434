#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference for bench-figure.py: what `poslens-cli similarity MODEL --out
FIG.png` does, written the usual Python way (h5py + numpy + matplotlib): read
the position table, cosine similarity of every pair of positions, a viridis
heatmap with a colour bar, 6 × 5 inches at 150 DPI.

  /usr/bin/python3 bench/bench-figure-mpl.py TF_MODEL_H5 DATASET OUT.png
"""

import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    path, dataset, out = sys.argv[1:4]
    with h5py.File(path, "r") as f:
        table = np.asarray(f[dataset], dtype=np.float32)
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    unit = table / norms
    cosine = unit @ unit.T

    fig, ax = plt.subplots(figsize=(6, 5))
    image = ax.imshow(cosine, cmap="viridis", interpolation="nearest")
    ax.set_xlabel("Position")
    ax.set_ylabel("Position")
    ax.set_title("Cosine similarity of positions")
    fig.colorbar(image, ax=ax, label="Cosine similarity")
    fig.savefig(out, dpi=150)


if __name__ == "__main__":
    main()
