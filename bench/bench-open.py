#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Opening a large checkpoint and reading its position table: Poslens vs h5py.

Builds a ~1 GB BERT-large-shaped checkpoint (hidden 1024, 18 layers, FFN 4096,
vocab 30522, 514 positions RoBERTa-style) in /tmp twice: as a Hugging Face
TensorFlow-layout tf_model.h5 and as model.safetensors, with config.json.
Then, in fresh processes, N times each:
  - Poslens (bench/pl-bench-open): recognise the model from its tensor names,
    read the 512 real-position rows;
  - h5py: open the file, slice the same rows of the same dataset (the name is
    given to it: h5py does no recognition);
  - safetensors through numpy.memmap of the header's offsets (what a careful
    Python reader does), for the safetensors file.
A third file has the same position table among MANY (--many, 100000) tiny
tensors: a header of 8 MB, where parsing it is the cost.
Prints the median wall time of the first open in a fresh process and of later
opens in the same process (h5py's import has already initialised HDF5; the
app pays Poslens' initialisation once per session), peak RSS (VmHWM) and what
the open added to it, bytes read (/proc/self/io rchar), and the Poslens/h5py
ratios measured in this run.

  /usr/bin/python3 bench/bench-open.py BUILD_DIR [--runs 5] [--keep]
"""

import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

H, LAYERS, FFN, VOCAB, ROWS = 1024, 18, 4096, 30522, 514
PREFIX = "roberta/tf_roberta_for_masked_lm/roberta/"


def tensors(rng):
    """(keras name, pytorch name, array in the file's own orientation for HDF5,
    and for safetensors) for every weight."""
    block = rng.standard_normal((H, FFN), dtype=np.float32) * 0.02
    yield ("embeddings/word_embeddings/weight:0", "roberta.embeddings.word_embeddings.weight",
           rng.standard_normal((VOCAB, H), dtype=np.float32) * 0.02)
    pos = rng.standard_normal((ROWS, H), dtype=np.float32) * 0.02
    pos[1] = 0
    yield ("embeddings/position_embeddings/embeddings:0", "roberta.embeddings.position_embeddings.weight", pos)
    for l in range(LAYERS):
        k = "encoder/layer_._%d/" % l
        p = "roberta.encoder.layer.%d." % l
        for tf, pt in (("attention/self/query", "attention.self.query"),
                       ("attention/self/key", "attention.self.key"),
                       ("attention/self/value", "attention.self.value"),
                       ("attention/output/dense", "attention.output.dense")):
            yield (k + tf + "/kernel:0", p + pt + ".weight", block[:, :H])
        yield (k + "intermediate/dense/kernel:0", p + "intermediate.dense.weight", block)
        yield (k + "output/dense/kernel:0", p + "output.dense.weight", block.T)


def build(folder):
    rng = np.random.default_rng(0)
    config = {"model_type": "roberta", "hidden_size": H, "num_hidden_layers": LAYERS,
              "num_attention_heads": 16, "intermediate_size": FFN, "layer_norm_eps": 1e-5,
              "hidden_act": "gelu", "pad_token_id": 1, "max_position_embeddings": ROWS,
              "vocab_size": VOCAB}
    h5_dir = os.path.join(folder, "h5")
    st_dir = os.path.join(folder, "st")
    os.makedirs(h5_dir)
    os.makedirs(st_dir)
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    with h5py.File(os.path.join(h5_dir, "tf_model.h5"), "w") as out:
        out.attrs["layer_names"] = [b"roberta"]
        for tf, pt, array in tensors(rng):
            out.create_dataset("roberta/" + PREFIX + tf, data=array)
            data = np.ascontiguousarray(array.T if tf.endswith("kernel:0") else array)
            header[pt] = {"dtype": "F32", "shape": list(data.shape),
                          "data_offsets": [offset, offset + data.nbytes]}
            offset += data.nbytes
            chunks.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(st_dir, "model.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for c in chunks:
            out.write(c.tobytes())
    for d in (h5_dir, st_dir):
        with open(os.path.join(d, "config.json"), "w") as out:
            json.dump(config, out)
    return h5_dir, st_dir


def build_many(folder, many):
    """The position table and MANY one-element tensors."""
    rng = np.random.default_rng(1)
    many_dir = os.path.join(folder, "many")
    os.makedirs(many_dir)
    pos = rng.standard_normal((ROWS, H), dtype=np.float32) * 0.02
    header = {"__metadata__": {"format": "pt"},
              "roberta.embeddings.position_embeddings.weight":
                  {"dtype": "F32", "shape": [ROWS, H], "data_offsets": [0, pos.nbytes]}}
    for i in range(many):
        header["roberta.extra.%d.bias" % i] = {"dtype": "F32", "shape": [1],
                                               "data_offsets": [pos.nbytes + 4 * i, pos.nbytes + 4 * i + 4]}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(many_dir, "model.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        out.write(pos.tobytes())
        out.write(np.arange(many, dtype=np.float32).tobytes())
    with open(os.path.join(many_dir, "config.json"), "w") as out:
        json.dump({"model_type": "roberta", "max_position_embeddings": ROWS, "hidden_size": H}, out)
    return many_dir


# Fresh processes so peak RSS and bytes read belong to one open + read each.
H5PY_CHILD = r"""
import json, os, resource, sys, time
def rchar():
    for line in open("/proc/self/io"):
        if line.startswith("rchar:"):
            return int(line.split()[1])
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
import h5py, numpy as np
base_rss = hwm()
io0 = rchar(); t0 = time.perf_counter()
with h5py.File(sys.argv[1], "r") as f:
    rows = f[sys.argv[2]][2:].astype(np.float32)
t1 = time.perf_counter(); io1 = rchar(); peak = hwm()
warm = []
for _ in range(7):
    s0 = time.perf_counter()
    with h5py.File(sys.argv[1], "r") as f:
        again = f[sys.argv[2]][2:].astype(np.float32)
    warm.append(time.perf_counter() - s0)
print(json.dumps({"total_s": t1 - t0, "warm_s": sorted(warm)[3], "maxrss_kb": peak,
                  "base_rss_kb": base_rss, "bytes_read": io1 - io0, "checksum": float(rows.sum(dtype=np.float64)),
                  "rows": rows.shape[0]}))
"""

MEMMAP_CHILD = r"""
import json, resource, struct, sys, time
def rchar():
    for line in open("/proc/self/io"):
        if line.startswith("rchar:"):
            return int(line.split()[1])
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
import numpy as np
base_rss = hwm()
io0 = rchar(); t0 = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
info = header[sys.argv[2]]
begin, end = info["data_offsets"]
m = np.memmap(sys.argv[1], dtype=np.float32, mode="r", offset=8 + n + begin, shape=tuple(info["shape"]))
rows = np.array(m[2:])
t1 = time.perf_counter(); io1 = rchar(); peak = hwm()
del m
warm = []
for _ in range(7):
    s0 = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    info = header[sys.argv[2]]
    m = np.memmap(sys.argv[1], dtype=np.float32, mode="r", offset=8 + n + info["data_offsets"][0],
                  shape=tuple(info["shape"]))
    again = np.array(m[2:])
    del m
    warm.append(time.perf_counter() - s0)
print(json.dumps({"total_s": t1 - t0, "warm_s": sorted(warm)[3], "maxrss_kb": peak,
                  "base_rss_kb": base_rss, "bytes_read": io1 - io0, "checksum": float(rows.sum(dtype=np.float64)),
                  "rows": rows.shape[0]}))
"""


def run(argv, runs):
    results = []
    for _ in range(runs):
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def summary(name, results):
    t = statistics.median(r["total_s"] for r in results)
    w = statistics.median(r["warm_s"] for r in results)
    rss = max(r["maxrss_kb"] for r in results) / 1024
    base = max(r["base_rss_kb"] for r in results) / 1024
    io = max(r["bytes_read"] for r in results) / 2**20
    print("  %-34s first %7.2f ms, again %7.2f ms   peak RSS %6.1f MiB (+%5.1f by the open)   read %7.2f MiB"
          % (name, t * 1e3, w * 1e3, rss, rss - base, io))
    return t, w, rss - base, io


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the files in /tmp")
    parser.add_argument("--many", type=int, default=100000, help="tensors beside the table in the third file")
    parser.add_argument("--many-only", action="store_true", help="only the third file (no 1 GB checkpoints)")
    parser.add_argument("--build-into", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_into:
        if not args.many_only:
            build(args.build_into)
        build_many(args.build_into, args.many)
        return
    helper = os.path.join(args.build_dir, "bench", "pl-bench-open")
    if not os.path.exists(helper):
        sys.exit("build %s first (ninja -C %s)" % (helper, args.build_dir))

    folder = tempfile.mkdtemp(prefix="poslens-bench-open-", dir="/tmp")
    try:
        # Built in another process: this one stays small, so the children
        # it starts measure only themselves.
        subprocess.run([sys.executable, __file__, args.build_dir, "--build-into", folder, "--many", str(args.many)]
                       + (["--many-only"] if args.many_only else []), check=True)
        if not args.many_only:
            compare_large(helper, folder, args.runs)
        many = os.path.join(folder, "many")
        pl_many = run([helper, many], args.runs)
        py_many = run([sys.executable, "-c", MEMMAP_CHILD, os.path.join(many, "model.safetensors"),
                       "roberta.embeddings.position_embeddings.weight"], args.runs)
        assert pl_many[0]["rows"] == py_many[0]["rows"] == 512, (pl_many[0], py_many[0])
        assert abs(pl_many[0]["checksum"] - py_many[0]["checksum"]) < 1e-3
        print("safetensors with %d more tensors (header %.1f MB), %d runs each, median:"
              % (args.many, (os.path.getsize(os.path.join(many, "model.safetensors")) - ROWS * H * 4) / 1e6,
                 args.runs))
        t5, w5, m5, io5 = summary("Poslens (recognise + rows 2..513)", pl_many)
        t6, w6, m6, io6 = summary("json.loads + numpy.memmap", py_many)
        print("  ratio Poslens/Python: first %.2f, again %.2f, memory added %.2f"
              % (t5 / t6, w5 / w6, m5 / max(m6, 1e-3)))
    finally:
        if args.keep:
            print("kept", folder)
        else:
            shutil.rmtree(folder)


def compare_large(helper, folder, runs):
    """The 1 GB checkpoints: Poslens against h5py and numpy.memmap."""
    h5_dir, st_dir = os.path.join(folder, "h5"), os.path.join(folder, "st")
    h5 = os.path.join(h5_dir, "tf_model.h5")
    st = os.path.join(st_dir, "model.safetensors")
    print("checkpoint: %.2f GB tf_model.h5, %.2f GB model.safetensors; %d runs each, warm page cache, median"
          % (os.path.getsize(h5) / 1e9, os.path.getsize(st) / 1e9, runs))
    dataset = "/roberta/" + PREFIX + "embeddings/position_embeddings/embeddings:0"

    pl_h5 = run([helper, h5_dir], runs)
    py_h5 = run([sys.executable, "-c", H5PY_CHILD, h5, dataset], runs)
    pl_st = run([helper, st_dir], runs)
    py_st = run([sys.executable, "-c", MEMMAP_CHILD, st, "roberta.embeddings.position_embeddings.weight"],
                runs)
    for a, b in ((pl_h5, py_h5), (pl_st, py_st), (pl_h5, pl_st)):
        assert a[0]["rows"] == b[0]["rows"] == 512, (a[0], b[0])
        assert abs(a[0]["checksum"] - b[0]["checksum"]) < 1e-3, (a[0]["checksum"], b[0]["checksum"])

    print("HDF5 (tf_model.h5):")
    t1, w1, m1, io1 = summary("Poslens (recognise + rows 2..513)", pl_h5)
    t2, w2, m2, io2 = summary("h5py (named dataset, rows 2..)", py_h5)
    print("  ratio Poslens/h5py: first %.2f, again %.2f, memory added %.2f, bytes read %.2f"
          % (t1 / t2, w1 / w2, m1 / max(m2, 1e-3), io1 / max(io2, 1e-9)))
    print("safetensors (model.safetensors):")
    t3, w3, m3, io3 = summary("Poslens (recognise + rows 2..513)", pl_st)
    t4, w4, m4, io4 = summary("numpy.memmap (header + slice)", py_st)
    print("  ratio Poslens/numpy: first %.2f, again %.2f, memory added %.2f"
          % (t3 / t4, w3 / w4, m3 / max(m4, 1e-3)))
    table_mib = ROWS * H * 4 / 2**20
    print("position table is %.2f MiB of a %.0f MiB file: Poslens read %.2f MiB (HDF5), %.2f MiB (safetensors)"
          % (table_mib, os.path.getsize(h5) / 2**20, io1, io3))


if __name__ == "__main__":
    main()
