#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""poslens-export's statistics against Poslens's, and the two writers' files.

Usage: test-export.py SCRIPT FIXTURES POSLENS_CLI DEMO_DIR

On the fixtures' Hugging Face attentions and hidden states (reference.h5,
hf/text and hf/random: transformers' own fp32 eager forward pass):
- the script's offset profile, mean distance and first-token mass equal a
  plain float64 loop over the same attentions (float32 sums: 2e-6 for the
  masses, 1e-5 for distances of up to 127 positions);
- the activations file the script's functions write from those tensors and
  the one `poslens-cli forward --stats-out` writes from Poslens's own forward
  pass over the same ids hold the same datasets and attributes, and the same
  numbers within the forward pass's agreement with Hugging Face: attention
  mass 1e-4, mean distance 2e-3 (each probability weighs up to 127
  positions), mean hidden state 1e-3, attention maps 1e-4;
- both files open in Poslens like a model (`poslens-cli attention FILE`,
  `poslens-cli similarity FILE --layer 2`) to the same figures within those
  tolerances (cosine similarity 1e-3), the script's to exactly what it holds;
- a model wider than its inputs keeps each layer's positional component as
  coordinates (position_coordinates, check_coordinates): on the rows' span
  an orthonormal basis that gives the rows back, and the file opens to the
  similarity, PCA (signs included) and probes of the full rows, against
  numpy and against the same file holding the rows (check_compact), for
  both writers; a tiny model 1024 wide keeps a fraction of the bytes;
- split_fused_qkv takes GPT-NeoX's and Phi-3's fused queries and keys where
  Hugging Face's modelling code does (exactly, on index-valued outputs);
- on the tiny rotary fixtures (Llama, GPT-NeoX, Phi-3: separate, per-head
  fused and stacked fused projections), the script's hooks and
  rotary_plane_norms on the fixture's hidden states equal the fixture's own
  per-plane norms and the C file's /rotary datasets (1e-5 of the largest);
- `poslens-cli info --json` describes every file written here as h5py
  reads it;
- run_model, the Hugging Face loading around the statistics, on the tiny
  Llama through a stand-in for `transformers` (check_run_model).
Prints TAP; skips only when torch, numpy or h5py cannot be imported.
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

n_tests = 0
failures = 0


def report(ok, what, detail=""):
    global n_tests, failures
    n_tests += 1
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'not ok'} {n_tests} - {what}")
    if not ok and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")


def load_script(path):
    loader = importlib.machinery.SourceFileLoader("poslens_export", path)
    spec = importlib.util.spec_from_loader("poslens_export", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def reference_statistics(attentions):
    """Offset profile, mean distance, first-token mass of [B, H, T, T] by a
    plain loop over queries, in float64."""
    import numpy as np

    a = np.asarray(attentions, dtype=np.float64)
    b, h, t, _ = a.shape
    profile = np.zeros((h, 2 * t - 1))
    offsets = np.arange(t)
    for i in range(t):
        profile[:, offsets - i + t - 1] += a[:, :, i, :].sum(0)
    distance = (a * np.abs(offsets[None, :] - offsets[:, None])).sum((0, 2, 3))
    first = a[:, :, :, 0].sum((0, 2))
    return profile / (b * t), distance / (b * t), first / (b * t)


def max_diff(x, y):
    import numpy as np

    return float(np.max(np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64))))


def dataset_names(f):
    """Every group and dataset in the open h5py file F."""
    names = []
    f.visit(names.append)
    return names


def reference_text(ids, wrapped):
    """The fixtures' texts are bytes: id = byte + 4, BERT and RoBERTa's
    wrapped in their start and end ids."""
    body = ids[1:-1] if wrapped else ids
    return bytes(int(i) - 4 for i in body)


def check_fixture(module, fixtures, cli, demo_dir, name, tmp):
    import h5py
    import numpy as np
    import torch

    reference = os.path.join(fixtures, name, "reference.h5")
    with h5py.File(reference, "r") as f:
        ids = np.stack([f["hf/text/input_ids"][()], f["hf/random/input_ids"][()]])
        attentions = [torch.from_numpy(f[f"hf/{g}/attentions"][()]) for g in ("text", "random")]
        hidden = [torch.from_numpy(f[f"hf/{g}/hidden_states"][()]) for g in ("text", "random")]
    n_layers, n_heads, t, _ = attentions[0].shape

    # The functions against the loop, over both inputs as one batch.
    worst = [0.0, 0.0, 0.0]
    for layer in range(n_layers):
        batch = torch.stack([attentions[0][layer], attentions[1][layer]])
        got = module.attention_statistics(batch)
        want = reference_statistics(batch.numpy())
        worst = [max(w, max_diff(g.numpy(), r)) for w, g, r in zip(worst, got, want)]
    report(worst[0] < 2e-6 and worst[1] < 1e-5 and worst[2] < 2e-6,
           f"{name}: attention_statistics equals a float64 loop over HF's attentions",
           f"profile {worst[0]:.3g}, distance {worst[1]:.3g}, first token {worst[2]:.3g}")

    # Both inputs as two batches of one: the accumulator weighs them equally.
    accumulator = module.StatisticsAccumulator(n_layers)
    for s in range(2):
        for layer in range(n_layers):
            accumulator.add_attentions(layer, attentions[s][layer][None])
        for k in range(n_layers + 1):
            accumulator.add_hidden_states(k, hidden[s][k][None])
    wrapped = name != "mini-gpt2"
    text = reference_text(ids[0], wrapped)
    tokens = [[chr(int(i) - 4) if int(i) >= 4 else f"<{int(i)}>" for i in row] for row in ids]
    script_file = os.path.join(tmp, f"{name}-script.h5")
    module.write_activations(script_file, accumulator, ids, name, {"model_type": name}, name == "mini-gpt2",
                             tokens=tokens, maps=[(ids[0], tokens[0], attentions[0])])

    ids_file = os.path.join(tmp, f"{name}-ids.h5")
    with h5py.File(ids_file, "w") as f:
        f["ids"] = ids
    cli_file = os.path.join(tmp, f"{name}-cli.h5")
    run = subprocess.run([cli, "forward", os.path.join(demo_dir, name), "--ids-from", f"{ids_file}:/ids",
                          "--map-text", text, "--stats-out", cli_file], capture_output=True, text=True)
    report(run.returncode == 0, f"{name}: poslens-cli forward --stats-out", run.stderr)
    if run.returncode != 0:
        return

    check_info(cli, script_file, f"{name}: the script's file")
    check_info(cli, cli_file, f"{name}: the C file")
    with h5py.File(script_file, "r") as a, h5py.File(cli_file, "r") as b:
        names_a, names_b = dataset_names(a), dataset_names(b)
        report(sorted(names_a) == sorted(names_b), f"{name}: both files hold the same groups and datasets",
               f"script {sorted(names_a)}\ncli {sorted(names_b)}")
        same_shapes = all(a[n].shape == b[n].shape and a[n].dtype == b[n].dtype
                          for n in names_a if isinstance(a[n], h5py.Dataset) and n in b)
        report(same_shapes, f"{name}: with the same shapes and types")
        attrs = ("format", "format_version", "causal")
        report(all(a.attrs[k] == b.attrs[k] for k in attrs) and
               set(a.attrs.keys()) == set(b.attrs.keys()),
               f"{name}: and the same attributes",
               f"{dict(a.attrs)}\n{dict(b.attrs)}")
        report(np.array_equal(a["inputs/input_ids"][()], b["inputs/input_ids"][()]) and
               np.array_equal(a["maps/0/input_ids"][()], b["maps/0/input_ids"][()]),
               f"{name}: the same inputs")
        checks = (("attention/offset_profile", 1e-4), ("attention/mean_distance", 2e-3),
                  ("attention/first_token_mass", 1e-4), ("maps/0/attentions", 1e-4))
        for dataset, tolerance in checks:
            d = max_diff(a[dataset][()], b[dataset][()])
            report(d < tolerance, f"{name}: {dataset} agrees within {tolerance:g}", f"max difference {d:.3g}")
        sums = b["attention/offset_profile"][()].sum(-1)
        report(max_diff(sums, np.ones_like(sums)) < 1e-5, f"{name}: every offset profile sums to 1")
        # The positional components, 256 wide over 128 positions, are kept
        # as coordinates: the same dot products (1e-5 of the largest, the
        # forward passes' agreement).
        report("hidden/position_coordinates" in a and int(a.attrs["hidden_size"]) == hidden[0].shape[-1],
               f"{name}: the positional components are kept as coordinates, hidden_size {hidden[0].shape[-1]}")
        d = max(gram_error(a["hidden/position_coordinates"][k], b["hidden/position_coordinates"][k])
                for k in range(n_layers + 1))
        report(d < 1e-5, f"{name}: both files' coordinates have the same dot products within 1e-5 of the largest",
               f"max difference {d:.3g}")
        stored = {k: a[k][()] for k in ("attention/offset_profile", "attention/mean_distance",
                                         "attention/first_token_mass")}
    raw = [((hidden[0][k] + hidden[1][k]) / 2).numpy().astype(np.float64) for k in range(n_layers + 1)]
    check_compact(cli, tmp, script_file, raw, f"{name}: the script's file", layer=2)
    check_compact(cli, tmp, cli_file, raw, f"{name}: the C file", layer=2, tolerance=1e-5, probes=False)

    # Both files opened like a model by Poslens: the attention statistics
    # and a layer's positional component (its cosine similarity) agree as
    # the files do, and the script's file reads back as written.
    opened = {}
    for which, path in (("script", script_file), ("cli", cli_file)):
        attention = os.path.join(tmp, f"{name}-{which}-attention.h5")
        similarity = os.path.join(tmp, f"{name}-{which}-similarity.h5")
        for args in (["attention", path, "-o", attention], ["similarity", path, "--layer", "2", "-o", similarity]):
            run = subprocess.run([cli] + args, capture_output=True, text=True)
            report(run.returncode == 0, f"{name}: poslens-cli {args[0]} opens the {which}'s file", run.stderr)
            if run.returncode != 0:
                return
        with h5py.File(attention, "r") as f, h5py.File(similarity, "r") as g:
            opened[which] = {k: f[k][()] for k in ("offset_profile", "mean_distance", "first_token_mass")}
            opened[which]["similarity"] = g["similarity"][()]
            report("position_only" not in f, f"{name}: no position-only term without weights")
    script, from_cli = opened["script"], opened["cli"]
    report(np.array_equal(script["offset_profile"], stored["attention/offset_profile"].reshape(-1, 2 * t - 1)) and
           np.array_equal(script["mean_distance"], stored["attention/mean_distance"]) and
           np.array_equal(script["first_token_mass"], stored["attention/first_token_mass"]),
           f"{name}: the script's file opens to the numbers it holds")
    h = raw[2] / np.linalg.norm(raw[2], axis=1, keepdims=True)
    d = max_diff(script["similarity"], h @ h.T)
    report(d < 1e-5, f"{name}: its layer 2 opens to the cosine similarity of the mean hidden states",
           f"max difference {d:.3g}")
    for key, tolerance in (("offset_profile", 1e-4), ("mean_distance", 2e-3), ("first_token_mass", 1e-4),
                           ("similarity", 1e-3)):
        d = max_diff(script[key], from_cli[key])
        report(d < tolerance, f"{name}: both files open to the same {key} within {tolerance:g}",
               f"max difference {d:.3g}")


def gram_error(x, y):
    """max |X Xᵀ − Y Yᵀ| over max |X Xᵀ|, in float64: rows in two bases
    compared by what every analysis of them sees."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    gx, gy = x @ x.T, y @ y.T
    return float(np.abs(gx - gy).max() / np.abs(gx).max())


def reference_pca(rows, k):
    """The first K principal components' projections of ROWS (numpy SVD of
    the centred rows), each signed as Poslens signs its loadings (the first
    largest |loading| positive), and their ratios of variance."""
    import numpy as np

    centred = rows - rows.mean(0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    signs = np.sign(vt[np.arange(k), np.abs(vt[:k]).argmax(1)])
    return centred @ (vt[:k] * signs[:, None]).T, (s[:k] ** 2) / (s ** 2).sum()


def write_full(compact, path, raw):
    """A copy of the activations file COMPACT holding the rows RAW (per
    layer [T, D]) in version 1's /hidden/position_mean, as 0.2.0 wrote it."""
    import shutil

    import h5py
    import numpy as np

    shutil.copyfile(compact, path)
    with h5py.File(path, "r+") as f:
        del f["hidden/position_coordinates"]
        del f.attrs["hidden_size"]
        f.attrs["format_version"] = np.int64(1)
        f["hidden/position_mean"] = np.stack(raw).astype(np.float32)


def cli_figures(cli, tmp, path, layer, probes):
    """What Poslens makes of a file's layer: the cosine similarity, three
    principal components and (with PROBES) one interleaved probe run."""
    import json

    import h5py

    base = os.path.join(tmp, os.path.basename(path))
    out = {}
    for command, extra in (("similarity", []), ("pca", ["--components", "3"])):
        run = subprocess.run([cli, command, path, "--layer", str(layer), "-o", f"{base}-{command}.h5"] + extra,
                             capture_output=True, text=True)
        if run.returncode != 0:
            return None, f"{command}: {run.stderr}"
        with h5py.File(f"{base}-{command}.h5", "r") as f:
            out.update({k: f[k][()] for k in f.keys()})
    if probes:
        run = subprocess.run([cli, "probe", path, "--layer", str(layer), "--protocol", "interleaved", "--seed", "0",
                              "--json"], capture_output=True, text=True)
        if run.returncode != 0:
            return None, f"probe: {run.stderr}"
        out["probe"] = json.loads(run.stdout)
    return out, ""


def probe_numbers(result):
    """The numbers of `probe --json`'s one run, flattened."""
    numbers = []

    def walk(value):
        if isinstance(value, dict):
            for k in sorted(value):
                walk(value[k])
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            numbers.append(float(value))
    walk(result)
    return numbers


def check_compact(cli, tmp, path, raw, what, layer, tolerance=1e-6, probes=True):
    """A file keeping its positional components as coordinates opens to the
    figures of the rows RAW themselves: each layer's coordinates have RAW's
    dot products (within TOLERANCE of the largest: float32 rounding for the
    script's own rows, the forward passes' agreement for the C file's); its
    LAYER's cosine similarity equals numpy's on RAW (1e-5) and so do the
    three principal components' projections with their signs (1e-4 of the
    largest) and ratios (1e-5); and against
    the same file holding RAW as rows (version 1), Poslens's similarity
    (1e-5), PCA (projections 1e-4 of the largest, ratios 1e-5) and, with
    PROBES, one interleaved probe run (same pairs; errors within 1e-9) agree."""
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        coordinates = f["hidden/position_coordinates"][()]
        hidden = int(f.attrs["hidden_size"])
    t = coordinates.shape[1]
    report(coordinates.shape == (len(raw), t, t) and hidden == raw[0].shape[1] > t,
           f"{what}: position_coordinates is [L + 1, T, T] for rows {hidden} wide",
           f"{coordinates.shape}, hidden_size {hidden}")
    d = max(gram_error(c, r) for c, r in zip(coordinates, raw))
    report(d < tolerance, f"{what}: every layer's coordinates have the rows' dot products within {tolerance:g}",
           f"max difference {d:.3g}")

    full = path[:-3] + "-full.h5"
    write_full(path, full, raw)
    got, error = cli_figures(cli, tmp, path, layer, probes)
    want, error_full = cli_figures(cli, tmp, full, layer, probes)
    report(got is not None and want is not None, f"{what}: Poslens opens it and the full file (version 1)",
           error + error_full)
    if got is None or want is None:
        return
    rows = raw[layer] / np.linalg.norm(raw[layer], axis=1, keepdims=True)
    projection, ratios = reference_pca(raw[layer], 3)
    scale = np.abs(projection).max()
    d = (max_diff(got["similarity"], rows @ rows.T), max_diff(got["projection"], projection) / scale,
         max_diff(got["explained_variance_ratio"].ravel(), ratios))
    report(d[0] < 1e-5 and d[1] < 1e-4 and d[2] < 1e-5,
           f"{what}: layer {layer} opens to numpy's cosine similarity and PCA of the rows (signs included)",
           f"similarity {d[0]:.3g}, projection {d[1]:.3g} of the largest, ratios {d[2]:.3g}")
    d = (max_diff(got["similarity"], want["similarity"]),
         max_diff(got["projection"], want["projection"]) / np.abs(want["projection"]).max(),
         max_diff(got["explained_variance_ratio"], want["explained_variance_ratio"]))
    report(d[0] < 1e-5 and d[1] < 1e-4 and d[2] < 1e-5,
           f"{what}: Poslens's similarity and PCA of layer {layer} are the full file's",
           f"similarity {d[0]:.3g}, projection {d[1]:.3g} of the largest, ratios {d[2]:.3g}")
    if probes:
        a, b = probe_numbers(got["probe"]), probe_numbers(want["probe"])
        report(len(a) == len(b) and max_diff(a, b) < 1e-9,
               f"{what}: one interleaved probe run on layer {layer} is the full file's (pairs, errors, folds)",
               f"{got['probe']}\n{want['probe']}")


def check_coordinates(module, cli, tmp):
    """position_coordinates on rows whose every direction carries weight
    (uniform noise around an offset, 24 rows of 96): a [T, T] result, an
    orthonormal basis (B Bᵀ = I within 1e-12) that gives the rows back
    (1e-12 of the largest), each coordinate holding at least 1e-3 of the
    squared norms (a dropped or zeroed one cannot pass), the centred
    coordinates' columns the principal components with numpy's projections
    and Poslens's signs (1e-10). Then a tiny model 1024 wide (2 layers, 16
    positions) written by the script: its file keeps 16 coordinates a row,
    a fraction of the full file's bytes, and opens to the same figures."""
    import h5py
    import numpy as np
    import torch

    generator = torch.Generator().manual_seed(25)
    rows = torch.rand(24, 96, generator=generator, dtype=torch.float64) * 2 - 1
    rows[:, :5] += 3
    coordinates, basis = module.position_coordinates(rows, basis=True)
    c, b, x = coordinates.numpy(), basis.numpy(), rows.numpy()
    report(c.shape == (24, 24) and b.shape == (24, 96), "position_coordinates: [T, T] coordinates, [T, D] basis",
           f"{c.shape} {b.shape}")
    d = (max_diff(b @ b.T, np.eye(24)), max_diff(c @ b, x) / np.abs(x).max())
    report(d[0] < 1e-12 and d[1] < 1e-12, "position_coordinates: an orthonormal basis that gives the rows back",
           f"B Bᵀ − I {d[0]:.3g}, C B − X {d[1]:.3g}")
    weights = (c ** 2).sum(0)
    report(weights.min() > 1e-3 * weights.sum(), "position_coordinates: every coordinate carries weight",
           f"{weights}")
    projection, _ = reference_pca(x, 23)
    d = max_diff((c - c.mean(0))[:, :23], projection)
    report(d < 1e-10, "position_coordinates: its axes are the principal components, signed as Poslens signs them",
           f"max difference {d:.3g}")

    # A tiny model far wider than its inputs.
    n_layers, n_heads, t, width, s = 2, 2, 16, 1024, 3
    positions = torch.arange(t, dtype=torch.float64)[:, None]
    frequencies = torch.exp(-torch.arange(width // 2, dtype=torch.float64) * 8 / width)[None, :]
    table = torch.cat([torch.sin(positions * frequencies), torch.cos(positions * frequencies)], 1)
    accumulator = module.StatisticsAccumulator(n_layers)
    raw = []
    for k in range(n_layers + 1):
        states = table[None] * (k + 1) + torch.randn(s, t, width, generator=generator, dtype=torch.float64)
        accumulator.add_hidden_states(k, states.float())
        raw.append(states.float().double().mean(0).numpy())
    for layer in range(n_layers):
        scores = torch.randn(s, n_heads, t, t, generator=generator)
        accumulator.add_attentions(layer, scores.softmax(-1))
    ids = np.arange(s * t).reshape(s, t) % 50
    path = os.path.join(tmp, "wide.h5")
    module.write_activations(path, accumulator, ids, "wide", {"model_type": "wide"}, True)
    full = os.path.join(tmp, "wide-full.h5")
    write_full(path, full, raw)
    saved = (n_layers + 1) * t * (width - t) * 4
    sizes = os.path.getsize(path), os.path.getsize(full)
    report(sizes[0] < 20000 and sizes[1] - sizes[0] > 0.95 * saved,
           f"a model 1024 wide over 16 positions: {sizes[0]} bytes instead of {sizes[1]}",
           f"saved {sizes[1] - sizes[0]} of the {saved} the rows' extra width takes")
    with h5py.File(path, "r") as f:
        report("hidden/position_mean" not in f and f["hidden/position_coordinates"].shape == (3, 16, 16),
               "the wide model's file holds [3, 16, 16] coordinates and no rows")
    check_compact(cli, tmp, path, raw, "the wide model's file", layer=1)


def read_safetensors(path):
    """The tensors of a safetensors file as float32 torch tensors (BF16, F16
    and F32 only: what the rotary fixtures hold)."""
    import json
    import struct

    import numpy as np
    import torch

    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    tensors = {}
    for key, entry in header.items():
        if key == "__metadata__" or entry["dtype"] not in ("BF16", "F16", "F32"):
            continue
        begin, end = entry["data_offsets"]
        raw = data[8 + n + begin:8 + n + end]
        if entry["dtype"] == "BF16":
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(raw, dtype="<f2" if entry["dtype"] == "F16" else "<f4").astype(np.float32)
        tensors[key] = torch.from_numpy(values.reshape(entry["shape"]).copy())
    return tensors


class HeadNorm:
    """Qwen 3's q_norm or k_norm: an RMSNorm over each head's head_dim
    values, a torch module so hooks on it fire."""

    def __new__(cls, weight, eps):
        import torch

        class Norm(torch.nn.Module):
            def forward(self, x):
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
        return Norm()


class Attention:
    """A rotary fixture's attention as Hugging Face builds it: its query and
    key projections as torch modules under HF's names (q_proj and k_proj,
    GPT-NeoX's query_key_value, Phi-3's qkv_proj) with the fixture's weights,
    after the layer's input norm (Gemma's and Gemma 2's: 1 + w), and Qwen 3's
    q_norm and k_norm on each head after them. Calling it runs the
    projections and norms, so the script's hooks on them fire."""

    def __init__(self, tensors, config, layer):
        import torch

        kind = config["model_type"]
        prefix = f"gpt_neox.layers.{layer}." if kind == "gpt_neox" else f"model.layers.{layer}."
        self.norm_weight = tensors[prefix + "input_layernorm.weight"]
        if kind in ("gemma", "gemma2"):
            self.norm_weight = 1.0 + self.norm_weight
        self.norm_bias = tensors.get(prefix + "input_layernorm.bias")
        self.eps = config.get("layer_norm_eps", config.get("rms_norm_eps"))
        self.head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
        if kind in ("qwen3", "qwen3_moe"):
            self.q_norm = HeadNorm(tensors[prefix + "self_attn.q_norm.weight"], self.eps)
            self.k_norm = HeadNorm(tensors[prefix + "self_attn.k_norm.weight"], self.eps)
        self.projections = []
        names = {"gpt_neox": ("attention.query_key_value",), "phi3": ("self_attn.qkv_proj",)}
        for name in names.get(kind, ("self_attn.q_proj", "self_attn.k_proj")):
            weight = tensors[prefix + name + ".weight"]
            bias = tensors.get(prefix + name + ".bias")
            linear = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
            with torch.no_grad():
                linear.weight.copy_(weight)
                if bias is not None:
                    linear.bias.copy_(bias)
            setattr(self, name.split(".")[-1], linear)
            self.projections.append(linear)

    def __call__(self, hidden):
        import torch

        if self.norm_bias is not None:
            x = torch.nn.functional.layer_norm(hidden, hidden.shape[-1:], self.norm_weight, self.norm_bias, self.eps)
        else:
            x = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + self.eps) * self.norm_weight
        for projection in self.projections:
            out = projection(x)
            if hasattr(self, "q_norm"):
                (self.q_norm if projection is self.q_proj else self.k_norm)(out.unflatten(-1, (-1, self.head_dim)))


def check_rotary(module, fixtures, cli, tmp, name):
    """A rotary fixture's per-plane norms: the script's hooks on HF-named
    projections fed the fixture's hidden states (its reference forward pass,
    float64) against the file `poslens-cli forward --stats-out` writes from
    Poslens's float32 forward pass over the same ids (1e-5 of the largest
    norm), and both against the fixture's own norms of its queries and keys
    (1e-5 relative, as test-rope-decoders holds Poslens to)."""
    import json

    import h5py
    import numpy as np
    import torch

    folder = os.path.join(fixtures, "rope", name)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    with h5py.File(os.path.join(folder, "reference.h5"), "r") as f:
        ids = f["long/input_ids"][()].reshape(1, -1)
        hidden = torch.from_numpy(f["long/hidden_states"][()].astype(np.float32))
        attentions = torch.from_numpy(f["long/attentions"][()].astype(np.float32))
        want_query = f["long/rope_query_norm"][()]
        want_key = f["long/rope_key_norm"][()]
        want_frequency = f["long/rope_inv_freq"][()]
    n_layers, n_heads = attentions.shape[:2]
    n_kv_heads = config.get("num_key_value_heads") or n_heads
    head_dim = config.get("head_dim") or config["hidden_size"] // n_heads
    rotary_dim = 2 * want_frequency.shape[0]

    tensors = read_safetensors(os.path.join(folder, "model.safetensors"))
    accumulator = module.StatisticsAccumulator(n_layers)
    for layer in range(n_layers):
        attention = Attention(tensors, config, layer)
        handles = module.rotary_projection_hooks(attention, layer, accumulator, rotary_dim, head_dim,
                                                 n_heads, n_kv_heads)
        with torch.no_grad():
            attention(hidden[layer][None])
        for handle in handles:
            handle.remove()
        accumulator.add_attentions(layer, attentions[layer][None])
    for k in range(n_layers + 1):
        accumulator.add_hidden_states(k, hidden[k][None])
    report(accumulator.has_rotary(), f"{name}: the script's hooks see every layer's queries and keys")
    if not accumulator.has_rotary():
        return
    script_query = np.stack([accumulator.layer_rotary(layer)[0].numpy() for layer in range(n_layers)])
    script_key = np.stack([accumulator.layer_rotary(layer)[1].numpy() for layer in range(n_layers)])
    scale = max(np.abs(want_query).max(), np.abs(want_key).max())
    d = max(max_diff(script_query, want_query), max_diff(script_key, want_key))
    report(d < 1e-5 * scale, f"{name}: the script's plane norms equal the fixture's own",
           f"max difference {d:.3g} of {scale:.3g}")

    ids_file = os.path.join(tmp, f"{name}-ids.h5")
    with h5py.File(ids_file, "w") as f:
        f["ids"] = ids
    cli_file = os.path.join(tmp, f"{name}-cli.h5")
    run = subprocess.run([cli, "forward", folder, "--ids-from", f"{ids_file}:/ids", "--stats-out", cli_file],
                         capture_output=True, text=True)
    report(run.returncode == 0, f"{name}: poslens-cli forward --stats-out", run.stderr)
    if run.returncode != 0:
        return
    script_file = os.path.join(tmp, f"{name}-script.h5")
    module.write_activations(script_file, accumulator, ids, name, config, True, rotary_frequency=want_frequency)
    check_info(cli, script_file, f"{name}: the script's rotary file")
    check_info(cli, cli_file, f"{name}: the C rotary file")

    with h5py.File(script_file, "r") as a, h5py.File(cli_file, "r") as b:
        # Tokens are written by whoever has the model's tokenizer: here Poslens (the tiny Llama's
        # tokenizer.json), not the script's functions, which are given ids only.
        names_a, names_b = (sorted(n for n in dataset_names(f) if n != "inputs/tokens") for f in (a, b))
        report(names_a == names_b, f"{name}: both files hold the same groups and datasets besides tokens",
               f"script {names_a}\ncli {names_b}")
        rotary = ("rotary/query_norm", "rotary/key_norm", "rotary/frequency")
        report(all(n in a and n in b and a[n].shape == b[n].shape and a[n].dtype == b[n].dtype for n in rotary),
               f"{name}: the rotary datasets have the same shapes and types")
        if not all(n in b for n in rotary):
            return
        cli_query, cli_key = b["rotary/query_norm"][()], b["rotary/key_norm"][()]
        report(cli_query.shape == (n_layers, n_heads, rotary_dim // 2) and
               cli_key.shape == (n_layers, n_kv_heads, rotary_dim // 2),
               f"{name}: /rotary norms are [layers, heads, planes] and [layers, kv_heads, planes]",
               f"{cli_query.shape} {cli_key.shape}")
        d = max(max_diff(a["rotary/query_norm"][()], cli_query), max_diff(a["rotary/key_norm"][()], cli_key))
        report(d < 1e-5 * scale, f"{name}: rotary_plane_norms agrees with the C file within 1e-5 of the largest",
               f"max difference {d:.3g} of {scale:.3g}")
        d = max(max_diff(cli_query, want_query), max_diff(cli_key, want_key))
        report(d < 1e-5 * scale, f"{name}: the C file's norms equal the fixture's own",
               f"max difference {d:.3g} of {scale:.3g}")
        d = max_diff(b["rotary/frequency"][()], want_frequency)
        report(d < 1e-6, f"{name}: the C file's frequencies are the fixture's", f"max difference {d:.3g}")


def check_info(cli, path, what):
    """`poslens-cli info FILE --json` describes an activations file as h5py
    reads it: format and version, model name, S and T from the inputs, L and
    H from the offset profile, hidden size, rotary planes and key heads,
    maps, and the groups at its root that hold datasets."""
    import json

    import h5py

    run = subprocess.run([cli, "info", path, "--json"], capture_output=True, text=True)
    report(run.returncode == 0, f"{what}: poslens-cli info --json opens it", run.stderr)
    if run.returncode != 0:
        return
    info = json.loads(run.stdout)
    got = info.get("activations") or {}
    with h5py.File(path, "r") as f:
        s, t = f["inputs/input_ids"].shape
        n_layers, n_heads, _ = f["attention/offset_profile"].shape
        rotary = None
        if "rotary" in f:
            rotary = {"planes": f["rotary/query_norm"].shape[2], "kv_heads": f["rotary/key_norm"].shape[1]}
        groups = sorted(k for k in f.keys() if any(isinstance(o, h5py.Dataset) for o in _datasets(f[k])))
        want = {
            "format_version": int(f.attrs["format_version"]),
            "model_name": f.attrs["model_name"],
            "writer": f.attrs["writer"],
            "sequences": s, "tokens": t, "layers": n_layers, "heads": n_heads,
            "hidden": int(f.attrs["hidden_size"]),
            "rotary": rotary,
            "maps": len(f["maps"]) if "maps" in f else 0,
        }
        format_name = f.attrs["format"]
    differ = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
    report(info.get("format") == format_name and not differ and sorted(got.get("groups", [])) == groups,
           f"{what}: info --json says what the file holds",
           f"differ {differ}\nformat {info.get('format')}\ngroups {got.get('groups')} want {groups}")


def _datasets(group):
    """The datasets under an h5py group, at any depth."""
    import h5py

    found = []
    group.visititems(lambda name, obj: found.append(obj) if isinstance(obj, h5py.Dataset) else None)
    return found


def check_split(module):
    """split_fused_qkv on fused projections whose output holds each entry's
    own index (zero weights, bias 0, 1, 2, …), so each query and key entry
    says where it was taken from: GPT-NeoX's query_key_value (heads [q|k|v]
    one after another) and Phi-3's qkv_proj (q heads, k heads, v heads;
    grouped-query, fewer key heads), as modeling_gpt_neox.py and
    modeling_phi3.py split them."""
    import torch

    n_heads, n_kv_heads, head_dim = 4, 2, 6
    cases = (("per_head", 3 * n_heads * head_dim, n_heads,
              lambda h, d: h * 3 * head_dim + d, lambda h, d: h * 3 * head_dim + head_dim + d),
             ("stacked", (n_heads + 2 * n_kv_heads) * head_dim, n_kv_heads,
              lambda h, d: h * head_dim + d, lambda h, d: (n_heads + h) * head_dim + d))
    for layout, width, key_heads, query_at, key_at in cases:
        linear = torch.nn.Linear(5, width)
        with torch.no_grad():
            linear.weight.zero_()
            linear.bias.copy_(torch.arange(width, dtype=torch.float32))
        qkv = linear(torch.randn(2, 3, 5))
        queries, keys = module.split_fused_qkv(qkv, layout, n_heads, key_heads, head_dim)
        want_q = torch.tensor([[query_at(h, d) for d in range(head_dim)] for h in range(n_heads)],
                              dtype=torch.float32).expand(2, 3, n_heads, head_dim)
        want_k = torch.tensor([[key_at(h, d) for d in range(head_dim)] for h in range(key_heads)],
                              dtype=torch.float32).expand(2, 3, key_heads, head_dim)
        report(queries.shape == want_q.shape and keys.shape == want_k.shape and
               torch.equal(queries, want_q) and torch.equal(keys, want_k),
               f"split_fused_qkv takes {layout} queries and keys where Hugging Face does",
               f"queries {tuple(queries.shape)} {queries[0, 0].tolist()}\nkeys {tuple(keys.shape)} {keys[0, 0].tolist()}")


def check_run_model(script, fixtures, cli, tmp):
    """run_model, the Hugging Face layer around the statistics, run end to end
    on the tiny Llama fixture through a stand-in for `transformers`
    (tests/export-stand-in: LlamaModel's module tree in torch, float32 eager
    attention): two batches of inputs, a kept sentence's maps. Its file holds
    the same datasets as the one `poslens-cli forward --stats-out` writes for
    the ids the script drew, with the same numbers within float32 agreement of
    two forward passes: attention mass 1e-5, mean distance 1e-4, hidden means
    and rotary norms 1e-5 of the largest; the maps equal Poslens's attentions
    for the sentence's ids within 1e-5."""
    import h5py
    import numpy as np

    folder = os.path.join(fixtures, "rope", "llama")
    script_file = os.path.join(tmp, "run-model.h5")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                   "export-stand-in"), env.get("PYTHONPATH"))))
    run = subprocess.run([sys.executable, script, folder, "--out", script_file, "--sequences", "3", "--length", "20",
                          "--batch-size", "2", "--dtype", "float32", "--device-map", "cpu",
                          "--map-text", "Position matters."], capture_output=True, text=True, env=env)
    report(run.returncode == 0, "run_model: poslens-export runs a model through (stand-in) transformers", run.stderr)
    if run.returncode != 0:
        return
    cli_file = os.path.join(tmp, "run-model-cli.h5")
    run = subprocess.run([cli, "forward", folder, "--ids-from", f"{script_file}:/inputs/input_ids",
                          "--stats-out", cli_file], capture_output=True, text=True)
    report(run.returncode == 0, "run_model: poslens-cli forward --stats-out on the script's inputs", run.stderr)
    if run.returncode != 0:
        return
    with h5py.File(script_file, "r") as a, h5py.File(cli_file, "r") as b:
        ids = a["inputs/input_ids"][()]
        report(ids.shape == (3, 20) and (ids[:, 0] == 1).all() and not np.isin(ids[:, 1:], (1, 2)).any(),
               "run_model: 3 inputs of 20 tokens, the start id first, no special ids after it", f"{ids}")
        report(a["inputs/tokens"].shape == (3, 20) and a["inputs/tokens"][0, 0].decode() == "t1",
               "run_model: the inputs' tokens as the tokenizer names them")
        report("stand-in" in a.attrs["writer"], "run_model: the writer names the transformers version",
               a.attrs["writer"])
        names_a, names_b = dataset_names(a), dataset_names(b)
        common = sorted(n for n in names_a if not n.startswith("maps"))
        report(common == sorted(names_b), "run_model: both files hold the same datasets besides the maps",
               f"script {sorted(names_a)}\ncli {sorted(names_b)}")
        # The stand-in tokenizer names ids "t<id>"; Poslens names them from the fixture's tokenizer.json.
        report("inputs/tokens" in b and b["inputs/tokens"][0, 0].decode() == "<s>",
               "run_model: Poslens names the inputs' tokens from the model's tokenizer.json")
        for name, tolerance, relative in (("attention/offset_profile", 1e-5, False),
                                          ("attention/first_token_mass", 1e-5, False),
                                          ("attention/mean_distance", 1e-4, False),
                                          ("rotary/query_norm", 1e-5, True),
                                          ("rotary/key_norm", 1e-5, True),
                                          ("rotary/frequency", 1e-7, False)):
            if name not in a or name not in b:
                report(False, f"run_model: {name} in both files")
                continue
            x, y = a[name][()], b[name][()]
            scale = float(np.abs(y).max()) if relative else 1.0
            d = max_diff(x, y) if x.shape == y.shape else float("inf")
            report(d <= tolerance * scale, f"run_model: {name} equals Poslens's within {tolerance:g}"
                   + (" of the largest" if relative else ""), f"max difference {d:.3g} of {scale:.3g}, "
                   f"shapes {x.shape} {y.shape}")
        name = "hidden/position_coordinates"
        d = max(gram_error(a[name][k], b[name][k]) for k in range(a[name].shape[0])) \
            if name in a and name in b else float("inf")
        report(d <= 1e-5, "run_model: its positional components' coordinates have the dot products of Poslens's "
               "within 1e-5 of the largest", f"max difference {d:.3g}")
        map_ids = a["maps/0/input_ids"][()] if "maps/0/input_ids" in a else None
        maps = a["maps/0/attentions"][()] if "maps/0/attentions" in a else None
    report(map_ids is not None and maps is not None and map_ids.shape == (1, 18) and map_ids[0, 0] == 1,
           "run_model: the kept sentence's ids (start id + 17 bytes) and maps",
           f"{None if map_ids is None else map_ids.shape}")
    if map_ids is None or maps is None:
        return
    out = os.path.join(tmp, "run-model-map.h5")
    run = subprocess.run([cli, "forward", folder, "--ids", ",".join(str(i) for i in map_ids[0]), "--out", out],
                         capture_output=True, text=True)
    report(run.returncode == 0, "run_model: poslens-cli forward on the sentence's ids", run.stderr)
    if run.returncode != 0:
        return
    with h5py.File(out, "r") as f:
        want = f["attentions"][()]
    d = max_diff(maps, want) if maps.shape == want.shape else float("inf")
    report(d < 1e-5, "run_model: the kept maps equal Poslens's attentions within 1e-5",
           f"max difference {d:.3g}, shapes {maps.shape} {want.shape}")


def main():
    script, fixtures, cli, demo_dir = sys.argv[1:5]
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
        import torch
    except ImportError as e:
        print(f"1..0 # SKIP {e}")
        return 0
    torch.set_num_threads(1)
    module = load_script(script)
    # poslens-cli's files are compared with float32 torch: its float32 products, not the BF16 dot
    # products that round the fixtures' activations to BF16 where the processor has them (README;
    # test-rope-decoders holds those to their own reference).
    os.environ["POSLENS_DISABLE_SIMD"] = "1"

    # offset_profile on a case worked by hand: T = 2, A = [[a, b], [c, d]]:
    # offset −1 holds c, offset 0 holds a + d, offset +1 holds b.
    a = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    report(module.offset_profile(a)[0, 0].tolist() == [3.0, 5.0, 2.0], "offset_profile of a 2 × 2 map")

    check_split(module)

    with tempfile.TemporaryDirectory() as tmp:
        for name in ("mini-gpt2", "mini-bert", "mini-roberta"):
            check_fixture(module, fixtures, cli, demo_dir, name, tmp)
        check_coordinates(module, cli, tmp)
        for name in ("llama", "gpt-neox", "phi3", "qwen3", "gemma2", "qwen3-moe"):
            check_rotary(module, fixtures, cli, tmp, name)
        check_run_model(script, fixtures, cli, tmp)
    print(f"1..{n_tests}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
