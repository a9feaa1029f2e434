#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Poslens' forward pass against ONNX Runtime and PyTorch: BERT-base at 512 tokens, GPT-2 small at 1024.

For each model, random weights of the real size are written as a checkpoint Poslens opens (BERT as
Hugging Face's tf_model.h5, GPT-2 as model.safetensors), and the same weights are built into a PyTorch
module written as Hugging Face's eager code computes (Debian's python3-torch). The module is exported
twice with torch.onnx.export, once returning the last hidden state and once also every layer's
attentions, and each export runs in ONNX Runtime (npm onnxruntime-node, CPU, all graph optimisations)
through bench/ort-forward.js. The engines then run alternating, round by round (the machine is
shared: each round sees the same load), with the same thread count; the best time of each is kept,
and the goal (Poslens at or below ONNX Runtime's time) is judged on the median of the rounds'
paired ratios, with and without attentions.

Prints, per model and with/without attentions, each engine's time, GFLOP/s, the share of the
processor's peak it reaches and its ratio to ONNX Runtime; and the largest difference of each
engine's last hidden state from PyTorch's, relative to its largest magnitude. The peak is
FMA units x 16 float lanes x 2 flops x clock x threads, with the clock measured in the same run by
pl-bench-forward (a chain of dependent additions) and the FMA unit count given (2 on Xeon Scalable
Gold/Platinum with AVX-512). Where the processor has AMX-BF16, Poslens' linear layers run on its tiles
(each float32 split into two BF16 numbers), which the float32 peak does not bound: its share can pass 100 %.

  npm install --prefix DIR --ignore-scripts onnxruntime-node
  /usr/bin/python3 bench/bench-engines.py BUILD_DIR --ort DIR/node_modules/onnxruntime-node
      [--models bert,gpt2] [--threads 2] [--rounds 5] [--fma-units 2]
"""

import argparse
import importlib.util
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_blas  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def load_bench_forward():
    spec = importlib.util.spec_from_file_location("bench_forward", os.path.join(HERE, "bench-forward.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BERT = {
    "model_type": "bert", "architectures": ["BertForMaskedLM"],
    "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": 30522, "pad_token_id": 0,
}

GPT2 = {
    "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new",
    "n_embd": 768, "n_layer": 12, "n_head": 12, "n_inner": 3072, "n_positions": 1024,
    "layer_norm_epsilon": 1e-5, "vocab_size": 50257, "bos_token_id": 50256, "eos_token_id": 50256,
    "scale_attn_weights": True, "tie_word_embeddings": True,
}


def write_safetensors(path, tensors):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, value in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + value.nbytes]}
        offset += value.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for value in tensors.values():
            out.write(np.ascontiguousarray(value, dtype=np.float32).tobytes())


def write_gpt2(folder, cfg, seed):
    rng = np.random.default_rng(seed)
    h, f = cfg["n_embd"], cfg["n_inner"]
    w = {}

    def normal(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)

    def ln(name):
        w[name + ".weight"] = (1 + 0.1 * rng.standard_normal(h)).astype(np.float32)
        w[name + ".bias"] = (0.02 * rng.standard_normal(h)).astype(np.float32)

    w["transformer.wte.weight"] = normal(cfg["vocab_size"], h)
    w["transformer.wpe.weight"] = normal(cfg["n_positions"], h)
    for l in range(cfg["n_layer"]):
        p = "transformer.h.%d." % l
        ln(p + "ln_1")
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = normal(h, 3 * h), normal(3 * h)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = normal(h, h), normal(h)
        ln(p + "ln_2")
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = normal(h, f), normal(f)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = normal(f, h), normal(h)
    ln("transformer.ln_f")
    write_safetensors(os.path.join(folder, "model.safetensors"), w)
    with open(os.path.join(folder, "config.json"), "w") as out:
        json.dump(cfg, out, indent=2)
    return w


def torch_modules(torch, kind, weights, cfg):
    """Hugging Face's eager BERT / GPT-2 forward on the given weights, as a module ONNX can export."""
    import torch.nn.functional as F

    class Encoder(torch.nn.Module):
        def __init__(self, attentions):
            super().__init__()
            self.attentions = attentions
            self.forward_bert = load_bench_forward().torch_bert(weights, cfg, torch.get_num_threads())[1]

        def forward(self, ids):
            maps = []
            x = self.forward_bert(ids, maps)
            return (x, *maps) if self.attentions else x

    class Decoder(torch.nn.Module):
        def __init__(self, attentions):
            super().__init__()
            self.attentions = attentions
            self.t = {k: torch.from_numpy(v) for k, v in weights.items()}

        def forward(self, ids):
            t, h, nh = self.t, cfg["n_embd"], cfg["n_head"]
            d, n = h // nh, ids.shape[1]
            # GPT-2's Conv1D stores [in, out]: x @ W + b
            def conv(x, name):
                return torch.addmm(t[name + ".bias"], x.view(-1, x.shape[-1]), t[name + ".weight"]).view(1, n, -1)

            def norm(x, name):
                return F.layer_norm(x, (h,), t[name + ".weight"], t[name + ".bias"], cfg["layer_norm_epsilon"])

            def heads(y):
                return y.view(1, n, nh, d).transpose(1, 2)

            future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
            x = t["transformer.wte.weight"][ids] + t["transformer.wpe.weight"][:n]
            maps = []
            for l in range(cfg["n_layer"]):
                p = "transformer.h.%d." % l
                q, k, v = conv(norm(x, p + "ln_1"), p + "attn.c_attn").split(h, dim=2)
                scores = torch.matmul(heads(q), heads(k).transpose(-1, -2)) / (d ** 0.5)
                probs = torch.softmax(scores.masked_fill(future, torch.finfo(scores.dtype).min), dim=-1)
                maps.append(probs)
                ctx = torch.matmul(probs, heads(v)).transpose(1, 2).reshape(1, n, h)
                x = x + conv(ctx, p + "attn.c_proj")
                inner = F.gelu(conv(norm(x, p + "ln_2"), p + "mlp.c_fc"), approximate="tanh")
                x = x + conv(inner, p + "mlp.c_proj")
            x = norm(x, "transformer.ln_f")
            return (x, *maps) if self.attentions else x

    cls = Encoder if kind == "bert" else Decoder
    return cls(False), cls(True)


class Server:
    """A process answering one command per line with one line."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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


def amx_bf16():
    """Whether /proc/cpuinfo lists AMX-BF16 (Linux)."""
    try:
        with open("/proc/cpuinfo") as info:
            return any(line.startswith("flags") and " amx_bf16" in line for line in info)
    except OSError:
        return False


def bench_model(kind, args, torch, folder, peak_per_ghz):
    bf = load_bench_forward()
    if kind == "bert":
        cfg, tokens = BERT, 512
        weights = bf.write_checkpoint(folder, cfg, seed=1)
        rng = np.random.default_rng(2)
        ids = np.concatenate([[101], rng.integers(1000, cfg["vocab_size"], tokens - 2), [102]])
        hidden = cfg["hidden_size"]
    else:
        cfg, tokens = GPT2, 1024
        weights = write_gpt2(folder, cfg, seed=1)
        rng = np.random.default_rng(2)
        ids = np.concatenate([[cfg["bos_token_id"]], rng.integers(0, cfg["vocab_size"] - 1, tokens - 1)])
        hidden = cfg["n_embd"]
    ids_path = os.path.join(folder, "ids.txt")
    np.savetxt(ids_path, ids[None, :], fmt="%d", delimiter=",")

    plain, with_maps = torch_modules(torch, kind, weights, cfg)
    tids = torch.from_numpy(ids[None, :].astype(np.int64))
    onnx = {}
    for name, module in (("plain", plain), ("maps", with_maps)):
        onnx[name] = os.path.join(folder, kind + "-" + name + ".onnx")
        layers = cfg.get("num_hidden_layers", cfg.get("n_layer"))
        outputs = ["last_hidden_state"] + (["attention_%d" % l for l in range(layers)] if name == "maps" else [])
        with torch.no_grad():
            torch.onnx.export(module, (tids,), onnx[name], input_names=["input_ids"], output_names=outputs,
                              opset_version=14, do_constant_folding=True)

    poslens = Server([os.path.join(args.build_dir, "bench", "pl-bench-forward"), folder, ids_path, "0",
                      os.path.join(folder, "poslens.f32")])
    gflop = json.loads(poslens.header)["forward_gflop"]
    ort = {name: Server(["node", os.path.join(HERE, "ort-forward.js"), args.ort, path, ids_path, str(args.threads)])
           for name, path in onnx.items()}

    def run_torch(module):
        start = time.perf_counter()
        module(tids)
        return time.perf_counter() - start

    jobs = {
        ("Poslens", False): lambda: float(poslens.ask("forward")),
        ("Poslens", True): lambda: float(poslens.ask("attentions")),
        ("ONNX Runtime", False): lambda: float(ort["plain"].ask("run")),
        ("ONNX Runtime", True): lambda: float(ort["maps"].ask("run")),
        ("PyTorch", False): lambda: run_torch(plain),
        ("PyTorch", True): lambda: run_torch(with_maps),
    }
    times = {key: [] for key in jobs}
    clock = 0.0
    with torch.inference_mode():
        reference = plain(tids)[0].numpy()
        for job in jobs.values():       # warm up: first runs pack weights and fault pages in
            job()
        for _ in range(args.rounds):
            clock = max(clock, float(poslens.ask("clock")))
            for key, job in jobs.items():
                time.sleep(0.2)
                times[key].append(job())

    poslens.ask("save")
    ort["plain"].ask("save " + os.path.join(folder, "ort.f32"))
    poslens.close()
    for server in ort.values():
        server.close()
    scale = float(np.abs(reference).max())
    diff = {
        "Poslens": float(np.abs(np.fromfile(os.path.join(folder, "poslens.f32"), np.float32).reshape(tokens, hidden)
                                - reference).max()) / scale,
        "ONNX Runtime": float(np.abs(np.fromfile(os.path.join(folder, "ort.f32"), np.float32).reshape(tokens, hidden)
                                     - reference).max()) / scale,
    }
    best = {key: min(values) for key, values in times.items()}
    peak = peak_per_ghz * clock
    print("\n%s, %d tokens (%.1f GFLOP); clock %.2f GHz, so peak %.0f GFLOP/s over %d threads"
          % ("BERT-base" if kind == "bert" else "GPT-2 small", tokens, gflop, clock, peak, args.threads))
    print("  %-14s %-11s %9s %9s %7s %10s" % ("engine", "attentions", "best s", "GFLOP/s", "% peak", "/ ORT"))
    for attentions in (False, True):
        anchor = best[("ONNX Runtime", attentions)]
        for engine in ("Poslens", "ONNX Runtime", "PyTorch"):
            seconds = best[(engine, attentions)]
            print("  %-14s %-11s %9.3f %9.1f %6.0f%% %10.2f" % (engine, "returned" if attentions else "-", seconds,
                                                             gflop / seconds, 100 * gflop / seconds / peak,
                                                             seconds / anchor))
    met = True
    for attentions in (False, True):
        # the same round's times: both engines saw the same load
        ratios = sorted(p / o for p, o in zip(times[("Poslens", attentions)], times[("ONNX Runtime", attentions)]))
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        median = statistics.median(ratios)
        met = met and median <= 1.0
        print("  Poslens / ONNX Runtime, attentions %s, per round: median %.2f (quartiles %.2f-%.2f); "
              "goal <= 1.00 %s" % ("returned" if attentions else "not returned", median, q[0], q[2],
                                   "met" if median <= 1.0 else "MISSED"))
    for engine, value in diff.items():
        met = met and (engine != "Poslens" or value <= 1e-4)
        print("  last hidden state, max |%s - PyTorch| / max |PyTorch|: %.2g (goal <= 1e-4)" % (engine, value))
    print("  goal for this model: %s" % ("met" if met else "MISSED"))
    return {engine: best[(engine, False)] / best[("ONNX Runtime", False)] for engine in ("Poslens", "PyTorch")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--ort", required=True, help="the onnxruntime-node package folder")
    parser.add_argument("--models", default="bert,gpt2")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fma-units", type=int, default=2)
    args = parser.parse_args()
    bench_blas.same_kernels_as_poslens(args.build_dir)

    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import torch
    torch.set_num_threads(args.threads)
    peak_per_ghz = args.fma_units * 16 * 2 * args.threads
    print("threads %d; best of %d alternating rounds after a warm-up; %d FMA units x 16 lanes assumed; "
          "load average %.1f; PyTorch %s" % (args.threads, args.rounds, args.fma_units, os.getloadavg()[0],
                                             torch.__version__))
    if amx_bf16() and "POSLENS_DISABLE_SIMD" not in os.environ:
        print("AMX-BF16 here: Poslens' linear layers multiply on its tiles, past the float32 peak's bound")
    for kind in args.models.split(","):
        with tempfile.TemporaryDirectory(prefix="poslens-engines-") as folder:
            ratios = bench_model(kind, args, torch, folder, peak_per_ghz)
            print("  ratio Poslens / ONNX Runtime: %.2f (goal <= 1.00); PyTorch / ONNX Runtime: %.2f"
                  % (ratios["Poslens"], ratios["PyTorch"]))
    print("OPENBLAS_CORETYPE %s; load average at the end %.1f"
          % (os.environ.get("OPENBLAS_CORETYPE", "unset (OpenBLAS's own choice)"), os.getloadavg()[0]))


if __name__ == "__main__":
    main()
