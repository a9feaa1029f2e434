#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Opening a BERT-base pytorch_model.bin and reading its position table: Poslens vs torch.load.

Writes a 440 MB BERT-base-sized state dict (hidden 768, 12 layers, FFN 3072, vocab 30522, 512
positions, Hugging Face's BertForMaskedLM names) with Debian's python3-torch, in the legacy format
bert-base-uncased's pytorch_model.bin still has and in the zip format of PyTorch >= 1.6, each beside
a config.json, in /tmp (not kept). Then, in fresh processes, alternating round by round (the
machine is shared: each round's ratio compares runs made minutes apart at most):
  - Poslens (bench/pl-bench-open): open the folder, recognise BERT from the tensor names, read the
    512 rows of the position table;
  - PyTorch: torch.load (path, weights_only=True), then the same table as float32 numpy rows
    (torch imported before the clock starts).
Prints per format the median over rounds of the first open's wall time, of a later open in the same
process, the peak RSS the open added (VmHWM after minus before), bytes read (/proc/self/io rchar),
and the median of the per-round ratios Poslens / torch.load with their quartiles.

  /usr/bin/python3 bench/bench-pytorch.py BUILD_DIR [--rounds 7]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

H, LAYERS, FFN, VOCAB, POSITIONS, TYPES = 768, 12, 3072, 30522, 512, 2
TABLE = "bert.embeddings.position_embeddings.weight"


def build(folder):
    from collections import OrderedDict

    import torch

    g = torch.Generator().manual_seed(0)
    r = lambda *shape: torch.randn(*shape, generator=g) * 0.02
    sd = OrderedDict()
    sd["bert.embeddings.word_embeddings.weight"] = r(VOCAB, H)
    sd[TABLE] = r(POSITIONS, H)
    sd["bert.embeddings.token_type_embeddings.weight"] = r(TYPES, H)
    sd["bert.embeddings.LayerNorm.weight"] = torch.ones(H)
    sd["bert.embeddings.LayerNorm.bias"] = torch.zeros(H)
    for l in range(LAYERS):
        p = "bert.encoder.layer.%d." % l
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            sd[p + name + ".weight"] = r(H, H)
            sd[p + name + ".bias"] = torch.zeros(H)
        sd[p + "attention.output.LayerNorm.weight"] = torch.ones(H)
        sd[p + "attention.output.LayerNorm.bias"] = torch.zeros(H)
        sd[p + "intermediate.dense.weight"] = r(FFN, H)
        sd[p + "intermediate.dense.bias"] = torch.zeros(FFN)
        sd[p + "output.dense.weight"] = r(H, FFN)
        sd[p + "output.dense.bias"] = torch.zeros(H)
        sd[p + "output.LayerNorm.weight"] = torch.ones(H)
        sd[p + "output.LayerNorm.bias"] = torch.zeros(H)
    sd["bert.pooler.dense.weight"] = r(H, H)
    sd["bert.pooler.dense.bias"] = torch.zeros(H)
    sd["cls.predictions.bias"] = torch.zeros(VOCAB)
    sd["cls.predictions.transform.dense.weight"] = r(H, H)
    sd["cls.predictions.transform.dense.bias"] = torch.zeros(H)
    sd["cls.predictions.transform.LayerNorm.weight"] = torch.ones(H)
    sd["cls.predictions.transform.LayerNorm.bias"] = torch.zeros(H)
    sd["cls.predictions.decoder.weight"] = sd["bert.embeddings.word_embeddings.weight"]   # tied
    config = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "hidden_size": H,
              "num_hidden_layers": LAYERS, "num_attention_heads": 12, "intermediate_size": FFN,
              "vocab_size": VOCAB, "max_position_embeddings": POSITIONS, "type_vocab_size": TYPES,
              "layer_norm_eps": 1e-12, "hidden_act": "gelu", "pad_token_id": 0}
    for name, legacy in (("legacy", True), ("zip", False)):
        d = os.path.join(folder, name)
        os.makedirs(d)
        torch.save(sd, os.path.join(d, "pytorch_model.bin"), _use_new_zipfile_serialization=not legacy)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f)


TORCH_CHILD = r"""
import json, sys, time
def rchar():
    for line in open("/proc/self/io"):
        if line.startswith("rchar:"):
            return int(line.split()[1])
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
import numpy as np
import torch
base_rss = hwm()
io0 = rchar(); t0 = time.perf_counter()
sd = torch.load(sys.argv[1], weights_only=True)
rows = sd[sys.argv[2]].float().numpy()
t1 = time.perf_counter(); io1 = rchar(); peak = hwm()
checksum = float(rows.sum(dtype=np.float64))
del sd, rows
warm = []
for _ in range(3):
    s0 = time.perf_counter()
    sd = torch.load(sys.argv[1], weights_only=True)
    again = sd[sys.argv[2]].float().numpy()
    del sd, again
    warm.append(time.perf_counter() - s0)
print(json.dumps({"total_s": t1 - t0, "warm_s": sorted(warm)[1], "maxrss_kb": peak, "base_rss_kb": base_rss,
                  "bytes_read": io1 - io0, "checksum": checksum, "rows": 512}))
"""


def run(argv):
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], statistics.median(values), q[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--build-into", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_into:
        build(args.build_into)
        return
    helper = os.path.join(args.build_dir, "bench", "pl-bench-open")
    if not os.path.exists(helper):
        sys.exit("build %s first (ninja -C %s)" % (helper, args.build_dir))

    folder = tempfile.mkdtemp(prefix="poslens-bench-pytorch-", dir="/tmp")
    try:
        # Written by another process: this one stays small.
        subprocess.run([sys.executable, __file__, args.build_dir, "--build-into", folder], check=True)
        for fmt in ("legacy", "zip"):
            d = os.path.join(folder, fmt)
            path = os.path.join(d, "pytorch_model.bin")
            poslens, torch_, ratios = [], [], {"first": [], "again": [], "memory": [], "read": []}
            for i in range(args.rounds):
                pair = {}
                for who in (("poslens", "torch") if i % 2 == 0 else ("torch", "poslens")):
                    pair[who] = run([helper, d] if who == "poslens" else
                                    [sys.executable, "-c", TORCH_CHILD, path, TABLE])
                assert pair["poslens"]["rows"] == pair["torch"]["rows"] == POSITIONS
                assert abs(pair["poslens"]["checksum"] - pair["torch"]["checksum"]) < 1e-3
                assert pair["poslens"]["family"] == "bert"
                poslens.append(pair["poslens"])
                torch_.append(pair["torch"])
                added = {w: (pair[w]["maxrss_kb"] - pair[w]["base_rss_kb"]) for w in pair}
                ratios["first"].append(pair["poslens"]["total_s"] / pair["torch"]["total_s"])
                ratios["again"].append(pair["poslens"]["warm_s"] / pair["torch"]["warm_s"])
                ratios["memory"].append(max(added["poslens"], 1) / max(added["torch"], 1))
                ratios["read"].append(pair["poslens"]["bytes_read"] / pair["torch"]["bytes_read"])
            print("%s pytorch_model.bin, %.0f MB; %d rounds, warm page cache, medians:"
                  % (fmt, os.path.getsize(path) / 1e6, args.rounds))
            for name, rs in (("Poslens (open, recognise, read table)", poslens),
                             ("torch.load (weights_only=True)", torch_)):
                print("  %-40s first %8.2f ms, again %8.2f ms, peak RSS +%7.1f MiB, read %7.2f MiB"
                      % (name, statistics.median(r["total_s"] for r in rs) * 1e3,
                         statistics.median(r["warm_s"] for r in rs) * 1e3,
                         statistics.median((r["maxrss_kb"] - r["base_rss_kb"]) for r in rs) / 1024,
                         statistics.median(r["bytes_read"] for r in rs) / 2**20))
            for key in ("first", "again", "memory", "read"):
                lo, mid, hi = quartiles(ratios[key])
                print("  ratio Poslens / torch.load, %-7s %.4f  (quartiles %.4f-%.4f)" % (key + ":", mid, lo, hi))
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
