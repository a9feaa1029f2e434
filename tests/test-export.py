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
  tolerances (cosine similarity 1e-3), the script's to exactly what it holds.
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

    with h5py.File(script_file, "r") as a, h5py.File(cli_file, "r") as b:
        names_a, names_b = [], []
        a.visit(names_a.append)
        b.visit(names_b.append)
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
                  ("attention/first_token_mass", 1e-4), ("hidden/position_mean", 1e-3),
                  ("maps/0/attentions", 1e-4))
        for dataset, tolerance in checks:
            d = max_diff(a[dataset][()], b[dataset][()])
            report(d < tolerance, f"{name}: {dataset} agrees within {tolerance:g}", f"max difference {d:.3g}")
        sums = b["attention/offset_profile"][()].sum(-1)
        report(max_diff(sums, np.ones_like(sums)) < 1e-5, f"{name}: every offset profile sums to 1")
        stored = {k: a[k][()] for k in ("attention/offset_profile", "attention/mean_distance",
                                         "attention/first_token_mass", "hidden/position_mean")}

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
    h = stored["hidden/position_mean"][2].astype(np.float64)
    h /= np.linalg.norm(h, axis=1, keepdims=True)
    d = max_diff(script["similarity"], h @ h.T)
    report(d < 1e-5, f"{name}: its layer 2 opens to the cosine similarity of its mean hidden states",
           f"max difference {d:.3g}")
    for key, tolerance in (("offset_profile", 1e-4), ("mean_distance", 2e-3), ("first_token_mass", 1e-4),
                           ("similarity", 1e-3)):
        d = max_diff(script[key], from_cli[key])
        report(d < tolerance, f"{name}: both files open to the same {key} within {tolerance:g}",
               f"max difference {d:.3g}")


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

    # offset_profile on a case worked by hand: T = 2, A = [[a, b], [c, d]]:
    # offset −1 holds c, offset 0 holds a + d, offset +1 holds b.
    a = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    report(module.offset_profile(a)[0, 0].tolist() == [3.0, 5.0, 2.0], "offset_profile of a 2 × 2 map")

    with tempfile.TemporaryDirectory() as tmp:
        for name in ("mini-gpt2", "mini-bert", "mini-roberta"):
            check_fixture(module, fixtures, cli, demo_dir, name, tmp)
    print(f"1..{n_tests}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
