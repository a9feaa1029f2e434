#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Poslens' rotary-decoder forward pass against PyTorch, in time and memory.

Writes random BF16 weights of SmolLM-135M's shape and of TinyLlama-1.1B's
(Llama layout, config.json and model.safetensors as Hugging Face saves them;
not committed, kept in /tmp/poslens-bench-decoder-SHAPE with --keep), then:

  - time: runs bench/pl-bench-forward on it (with every layer's attention
    computed, as output_attentions does) and the same weights in PyTorch as
    Hugging Face's eager LlamaModel computes them in float32
    (output_hidden_states and output_attentions), on the same 512 ids with the
    same thread count, alternating the two round by round and pairing each
    round's times; prints the median ratio and its quartiles, and how far the
    last hidden states and the last layer's attentions differ;
  - memory: the peak RSS (GNU time's maximum resident set size) of
    `poslens-cli forward` writing every attention and hidden state of that
    input to an .h5 file, and of PyTorch's run for scale.

  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/bench-decoder.py BUILD_DIR [--shape smollm|tinyllama|both]
        [--tokens 512] [--threads 2] [--rounds 5] [--keep]
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_blas  # noqa: E402

SHAPES = {
    # HuggingFaceTB/SmolLM-135M and TinyLlama/TinyLlama-1.1B-Chat-v1.0 config.json
    "smollm": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                   num_key_value_heads=3, vocab_size=49152, max_position_embeddings=2048, rms_norm_eps=1e-5,
                   rope_theta=10000.0, tie_word_embeddings=True),
    "tinyllama": dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
                      num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048, rms_norm_eps=1e-5,
                      rope_theta=10000.0, tie_word_embeddings=False),
}


def tensor_shapes(cfg):
    h, f, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"] * hd
    shapes = [("model.embed_tokens.weight", (v, h))]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        shapes += [(p + "input_layernorm.weight", (h,)), (p + "self_attn.q_proj.weight", (h, h)),
                   (p + "self_attn.k_proj.weight", (kv, h)), (p + "self_attn.v_proj.weight", (kv, h)),
                   (p + "self_attn.o_proj.weight", (h, h)), (p + "post_attention_layernorm.weight", (h,)),
                   (p + "mlp.gate_proj.weight", (f, h)), (p + "mlp.up_proj.weight", (f, h)),
                   (p + "mlp.down_proj.weight", (h, f))]
    shapes.append(("model.norm.weight", (h,)))
    if not cfg["tie_word_embeddings"]:
        shapes.append(("lm_head.weight", (v, h)))
    return shapes


def to_bf16_bits(x):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)).astype("<u2")


def write_checkpoint(folder, cfg, seed):
    """model.safetensors, BF16, written a tensor at a time: N(0, 0.02) weights, norms 1 + N(0, 0.05)."""
    rng = np.random.default_rng(seed)
    shapes = tensor_shapes(cfg)
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in shapes:
        n = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for name, shape in shapes:
            if name.endswith("norm.weight"):
                x = 1.0 + 0.05 * rng.standard_normal(shape, dtype=np.float32)
            else:
                x = 0.02 * rng.standard_normal(shape, dtype=np.float32)
            out.write(to_bf16_bits(x).tobytes())
    config = dict(cfg, architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu",
                  bos_token_id=1, eos_token_id=2, torch_dtype="bfloat16", rope_scaling=None)
    with open(os.path.join(folder, "config.json"), "w") as out:
        json.dump(config, out, indent=2)


def read_bf16(folder):
    """The checkpoint's tensors as float32 numpy arrays (BF16 widened exactly)."""
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        bits = np.frombuffer(data[a:b], dtype="<u2").astype(np.uint32) << 16
        out[name] = bits.view(np.float32).reshape(meta["shape"])
    return out


def torch_llama(folder, cfg, threads):
    """Hugging Face's LlamaModel forward (eager attention, float32), on the same weights:
    RMSNorm, rotate-half RoPE, grouped-query heads expanded by repeat_kv, causal mask of
    the dtype's minimum, softmax in float32, SwiGLU; hidden states and attentions kept."""
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    w = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in read_bf16(folder).items() if k != "lm_head.weight"}
    h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps = h // nh, cfg["rms_norm_eps"]
    inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))

    def rms(x, name):
        return w[name] * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def rotate_half(x):
        return torch.cat((-x[..., hd // 2:], x[..., :hd // 2]), dim=-1)

    def forward(ids):
        t = ids.shape[1]
        freqs = (inv_freq[:, None] @ torch.arange(t, dtype=torch.float32)[None, :]).T
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        mask = torch.full((t, t), torch.finfo(torch.float32).min).triu(1)
        x = w["model.embed_tokens.weight"][ids]
        hidden, attentions = [], []
        for l in range(cfg["num_hidden_layers"]):
            p = "model.layers.%d." % l
            hidden.append(x)
            y = rms(x, p + "input_layernorm.weight")
            q = F.linear(y, w[p + "self_attn.q_proj.weight"]).view(1, t, nh, hd).transpose(1, 2)
            k = F.linear(y, w[p + "self_attn.k_proj.weight"]).view(1, t, kv, hd).transpose(1, 2)
            v = F.linear(y, w[p + "self_attn.v_proj.weight"]).view(1, t, kv, hd).transpose(1, 2)
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            k = k[:, :, None].expand(1, kv, nh // kv, t, hd).reshape(1, nh, t, hd)
            v = v[:, :, None].expand(1, kv, nh // kv, t, hd).reshape(1, nh, t, hd)
            scores = torch.matmul(q, k.transpose(2, 3)) * hd ** -0.5 + mask
            probs = torch.softmax(scores, dim=-1, dtype=torch.float32)
            ctx = torch.matmul(probs, v).transpose(1, 2).reshape(1, t, h)
            x = x + F.linear(ctx, w[p + "self_attn.o_proj.weight"])
            y = rms(x, p + "post_attention_layernorm.weight")
            x = x + F.linear(F.silu(F.linear(y, w[p + "mlp.gate_proj.weight"])) * F.linear(y, w[p + "mlp.up_proj.weight"]),
                             w[p + "mlp.down_proj.weight"])
            attentions.append(probs)
        hidden.append(rms(x, "model.norm.weight"))
        return hidden, attentions

    return torch, forward


TORCH_CHILD = r"""
import sys, json, importlib.util, numpy as np
spec = importlib.util.spec_from_file_location("bench_decoder", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
cfg = json.load(open(sys.argv[2] + "/config.json"))
torch, forward = m.torch_llama(sys.argv[2], cfg, int(sys.argv[3]))
ids = torch.from_numpy(np.loadtxt(sys.argv[4], delimiter=",", dtype=np.int64)[None, :])
with torch.inference_mode():
    forward(ids)
"""


def peak_mib(argv, env=None):
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv, check=True,
                       stdout=subprocess.DEVNULL, env=env)
        return int(out.read().split()[-1]) / 1024


def bench_shape(args, shape, folder):
    cfg = SHAPES[shape]
    driver = os.path.join(args.build_dir, "bench", "pl-bench-forward")
    cli = os.path.join(args.build_dir, "src", "cli", "poslens-cli")
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        start = time.perf_counter()
        write_checkpoint(folder, cfg, seed=7)
        print("%s: wrote %.2f GB of BF16 weights in %.1f s"
              % (shape, os.path.getsize(os.path.join(folder, "model.safetensors")) / 1e9, time.perf_counter() - start))
    rng = np.random.default_rng(3)
    ids = np.concatenate([[1], rng.integers(3, cfg["vocab_size"], args.tokens - 1)])
    ids_path = os.path.join(folder, "ids.txt")
    np.savetxt(ids_path, ids[None, :], fmt="%d", delimiter=",")

    # Memory first, each in a process of its own.
    import h5py
    ids_h5 = os.path.join(folder, "ids.h5")
    with h5py.File(ids_h5, "w") as f:
        f["ids"] = ids.astype(np.int64)
    out_h5 = os.path.join(folder, "forward.h5")
    ours_mib = peak_mib([cli, "forward", folder, "--ids-from", ids_h5 + ":/ids", "--out", out_h5])
    os.unlink(out_h5)
    torch_mib = peak_mib(["/usr/bin/python3", "-c", TORCH_CHILD, os.path.abspath(__file__), folder,
                          str(args.threads), ids_path])

    # Time: alternating rounds, paired.
    hidden_path = os.path.join(folder, "hidden.f32")
    proc = subprocess.Popen([driver, folder, ids_path, "0", hidden_path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    header = proc.stdout.readline()
    if not header:
        sys.exit("pl-bench-forward failed (see its message above)")

    def ask(command):
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        return proc.stdout.readline().strip()

    torch, forward = torch_llama(folder, cfg, args.threads)
    tids = torch.from_numpy(ids[None, :].astype(np.int64))
    ratios, ours_s, theirs_s = [], [], []
    with torch.inference_mode():
        hidden, attentions = forward(tids)
        ask("attentions")
        for r in range(args.rounds):
            order = ("ours", "torch") if r % 2 == 0 else ("torch", "ours")
            got = {}
            for what in order:
                time.sleep(0.3)
                if what == "torch":
                    start = time.perf_counter()
                    forward(tids)
                    got[what] = time.perf_counter() - start
                else:
                    got[what] = float(ask("attentions"))
            ours_s.append(got["ours"])
            theirs_s.append(got["torch"])
            ratios.append(got["ours"] / got["torch"])
    ask("save")
    ask("quit")
    proc.wait()
    ours = np.fromfile(hidden_path, dtype=np.float32).reshape(args.tokens, cfg["hidden_size"])
    last = hidden[-1][0].numpy()
    rel = float(np.abs(ours - last).max() / np.abs(last).max())

    q = np.percentile(ratios, [25, 50, 75])
    print("%s (%d layers, %d wide, %d heads on %d key/value heads, %d tokens, %d threads, load %.1f):"
          % (shape, cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"],
             cfg["num_key_value_heads"], args.tokens, args.threads, os.getloadavg()[0]))
    print("  Poslens forward (attentions computed): median %.3f s, best %.3f s" % (np.median(ours_s), min(ours_s)))
    print("  PyTorch %s eager float32:            median %.3f s, best %.3f s"
          % (torch.__version__, np.median(theirs_s), min(theirs_s)))
    print("  ratio Poslens / PyTorch, %d paired rounds: median %.2f (quartiles %.2f-%.2f; goal <= 0.60)"
          % (args.rounds, q[1], q[0], q[2]))
    print("  last hidden state: max |diff| / max |PyTorch| = %.2g (goal <= 1e-3)" % rel)
    print("  peak RSS: poslens-cli forward (every attention and hidden state to .h5) %.0f MiB; PyTorch %.0f MiB"
          % (ours_mib, torch_mib))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--shape", choices=["smollm", "tinyllama", "both"], default="both")
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the checkpoints in /tmp for the next run")
    args = parser.parse_args()
    bench_blas.same_kernels_as_poslens(args.build_dir)
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    for shape in (["smollm", "tinyllama"] if args.shape == "both" else [args.shape]):
        folder = os.path.join(tempfile.gettempdir(), "poslens-bench-decoder-" + shape)
        os.makedirs(folder, exist_ok=True)
        try:
            bench_shape(args, shape, folder)
        finally:
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
