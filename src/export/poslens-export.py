#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""poslens-export: the activations file of a Hugging Face model, for Poslens.

Runs a model where it already runs (GPUs, `accelerate` spreading it over
devices) and writes what Poslens's views need of its forward pass into the
HDF5 layout of Poslens's README ("Activations files"), which Poslens opens
like a model and `poslens-cli forward --stats-out` also writes.

The statistics are plain torch functions on tensors (offset_profile,
attention_statistics, position_mean, position_coordinates,
rotary_plane_norms), computed on the device the tensors live on;
`StatisticsAccumulator` averages them over batches a layer at a time;
`write_activations` writes the file with h5py.
The Hugging Face part (`run_model`) is a thin layer around them: it loads
the model with `transformers` (device_map="auto", bf16, eager attention),
runs the inputs in batches and feeds each layer's attentions, hidden states
and rotary queries and keys to the accumulator from forward hooks.
"""

import argparse
import json
import sys

FORMAT = "poslens-activations"
FORMAT_VERSION = 2
VERSION = "@VERSION@"


# --- Statistics: plain functions on tensors ----------------------------------

def offset_profile(attentions):
    """Attention mass by offset, summed over queries.

    attentions: [..., T, T], row query i, column key j.
    Returns [..., 2T - 1]: column (j - i) + T - 1 holds the sum over queries i
    of A[i, j]; divided by T it is the mean mass at that offset.
    """
    import torch

    t = attentions.shape[-1]
    # Flipping the keys puts A[i, j] at column T - 1 - j; padding each row to
    # 2T and reading the flat rows 2T - 1 wide shifts row i right by i, so
    # A[i, j] lands at column i + T - 1 - j = (T - 1) - (j - i).
    flipped = attentions.flip(-1)
    padded = torch.nn.functional.pad(flipped, (0, t))
    skewed = padded.flatten(-2)[..., : t * (2 * t - 1)].unflatten(-1, (t, 2 * t - 1))
    return skewed.sum(-2).flip(-1)


def attention_statistics(attentions):
    """One layer's attention statistics over a batch.

    attentions: [B, H, T, T] (any float dtype; computed in float32).
    Returns (profile [H, 2T - 1], mean_distance [H], first_token_mass [H]),
    each averaged over the B inputs and the T queries: the mass at offset
    j - i (each row sums to 1), the mean of |j - i| under the attention, and
    the mass on the first token.
    """
    import torch

    a = attentions.float()
    b, _, t, _ = a.shape
    positions = torch.arange(t, device=a.device, dtype=torch.float32)
    distance = (positions[None, :] - positions[:, None]).abs()
    profile = offset_profile(a).sum(0) / (b * t)
    mean_distance = (a * distance).sum((-1, -2)).sum(0) / (b * t)
    first = a[..., 0].sum(-1).sum(0) / (b * t)
    return profile, mean_distance, first


def position_mean(hidden_states):
    """The positional component of one layer: hidden_states [B, T, hidden]
    averaged over the batch, [T, hidden] in float32."""
    return hidden_states.float().mean(0)


def position_coordinates(rows, basis=False):
    """A layer's positional component rows [T, D], D > T, as T coordinates
    each in an orthonormal basis of a T-dimensional subspace holding them:
    rows = coordinates @ B, with B [T, D] orthonormal rows. Dot products,
    norms, distances and the centred PCA of the rows are the coordinates'.

    B's rows are the rows' own axes: the principal axes of the centred rows,
    largest variance first, then the rest of their span (the mean's
    direction outside those axes); each signed so that its first largest
    |entry| is positive, as Poslens signs PCA loadings, so Poslens's PCA of
    the coordinates has the signs it has on the rows. Computed in float64:
    Householder QR of rows.T (coordinates R.T in Q), then the SVD of the
    centred T x T coordinates turns Q onto the principal axes.
    Returns the coordinates [T, T] in float64, with B when BASIS.
    """
    import torch

    x = rows.double()
    t = x.shape[0]
    q, r = torch.linalg.qr(x.T)                  # x.T = q r: q [D, T], r [T, T]
    c0 = r.T
    _, _, wt = torch.linalg.svd(c0 - c0.mean(0, keepdim=True))
    b = wt @ q.T                                 # [T, D]: row k is axis k
    largest = b.gather(1, b.abs().argmax(1, keepdim=True))
    signs = torch.where(largest < 0, -1.0, 1.0).to(x.dtype)
    b = b * signs
    coordinates = c0 @ (wt * signs).T
    return (coordinates, b) if basis else coordinates


def rotary_plane_norms(x, rotary_dim):
    """Per-plane norms of rotary queries or keys.

    x: [B, T, heads, head_dim], before or after the rotation (a rotation
    keeps each plane's norm). RoPE in Hugging Face's rotate-half form turns
    dims p and p + rotary_dim / 2 together: plane p. Returns [heads, planes],
    the mean over inputs and positions of the norm of (x_p, x_{p + rot/2}).
    """
    half = rotary_dim // 2
    x = x.float()
    norms = (x[..., :half] ** 2 + x[..., half:rotary_dim] ** 2).sqrt()
    return norms.mean((0, 1))


class StatisticsAccumulator:
    """Averages the statistics over batches, layer by layer, in float64 on
    the tensors' device, weighing each batch by its size."""

    def __init__(self, n_layers):
        self.n_layers = n_layers
        self.attention = [None] * n_layers   # per layer: [sums...], count
        self.hidden = [None] * (n_layers + 1)
        self.query_norms = [None] * n_layers
        self.key_norms = [None] * n_layers

    @staticmethod
    def _add(slot, values, count):
        values = [v.double() * count for v in values]
        if slot is None:
            return [values, count]
        slot[0] = [s + v.to(s.device) for s, v in zip(slot[0], values)]
        slot[1] += count
        return slot

    @staticmethod
    def _mean(slot):
        return [(s / slot[1]).float().cpu() for s in slot[0]]

    def add_attentions(self, layer, attentions):
        """attentions [B, H, T, T] of layer LAYER (0-based)."""
        self.attention[layer] = self._add(self.attention[layer], attention_statistics(attentions),
                                          attentions.shape[0])

    def add_hidden_states(self, k, hidden_states):
        """hidden_states[k] [B, T, hidden] (k = 0: the embedding output)."""
        self.hidden[k] = self._add(self.hidden[k], [position_mean(hidden_states)], hidden_states.shape[0])

    def add_rotary(self, layer, queries, keys, rotary_dim):
        """queries [B, T, heads, head_dim] and keys [B, T, kv_heads, head_dim]."""
        b = queries.shape[0]
        self.query_norms[layer] = self._add(self.query_norms[layer], [rotary_plane_norms(queries, rotary_dim)], b)
        self.key_norms[layer] = self._add(self.key_norms[layer], [rotary_plane_norms(keys, rotary_dim)], b)

    def layer_attention(self, layer):
        return self._mean(self.attention[layer])

    def layer_hidden(self, k):
        return self._mean(self.hidden[k])[0]

    def layer_hidden_stored(self, k):
        """What the file keeps of hidden_states[k]: the mean rows [T, D], or
        their position_coordinates [T, T] when D > T (float32, on the CPU)."""
        total, count = self.hidden[k]
        mean = total[0] / count
        if mean.shape[1] > mean.shape[0]:
            mean = position_coordinates(mean)
        return mean.float().cpu()

    def has_rotary(self):
        return all(n is not None for n in self.query_norms)

    def layer_rotary(self, layer):
        return self._mean(self.query_norms[layer])[0], self._mean(self.key_norms[layer])[0]


# --- The file -----------------------------------------------------------------

def _token_array(rows):
    """Token strings as an array for h5py; HDF5's strings end at a NUL, so a
    NUL in a token is written as the text \\x00."""
    import numpy as np

    return np.array([[str(token).replace("\0", "\\x00") for token in row] for row in rows], dtype=object)


def write_activations(path, accumulator, input_ids, model_name, config, causal, tokens=None,
                      rotary_frequency=None, maps=(), writer=None):
    """Writes the activations file at PATH, each dataset a layer at a time.

    input_ids: [S, T] integers; tokens: S lists of T strings, or None;
    config: config.json as a dict; rotary_frequency: [planes] radians per
    token, for rotary models; maps: (input_ids [T], tokens or None,
    attentions [L, H, T, T]) for each sentence whose maps are kept.
    """
    import h5py
    import numpy as np

    n_layers = accumulator.n_layers
    ids = np.asarray(input_ids, dtype=np.int64)
    string = h5py.string_dtype("utf-8")
    with h5py.File(path, "w") as f:
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = np.int64(FORMAT_VERSION)
        f.attrs["model_name"] = model_name
        f.attrs["config"] = json.dumps(config)
        f.attrs["writer"] = writer or f"poslens-export {VERSION}"
        f.attrs["causal"] = np.int64(1 if causal else 0)
        f["inputs/input_ids"] = ids
        if tokens is not None:
            f.create_dataset("inputs/tokens", data=_token_array(tokens), dtype=string)

        s, t = ids.shape
        profile, _, _ = accumulator.layer_attention(0)
        n_heads = profile.shape[0]
        hidden = accumulator.layer_hidden(0).shape[-1]
        f.attrs["hidden_size"] = np.int64(hidden)
        # Wider than long, a layer's rows are kept as their coordinates.
        hidden_name = "hidden/position_coordinates" if hidden > t else "hidden/position_mean"
        d_profile = f.create_dataset("attention/offset_profile", (n_layers, n_heads, 2 * t - 1), "<f4")
        d_distance = f.create_dataset("attention/mean_distance", (n_layers, n_heads), "<f4")
        d_first = f.create_dataset("attention/first_token_mass", (n_layers, n_heads), "<f4")
        d_hidden = f.create_dataset(hidden_name, (n_layers + 1, t, min(t, hidden)), "<f4")
        for layer in range(n_layers):
            profile, distance, first = accumulator.layer_attention(layer)
            d_profile[layer] = profile.numpy()
            d_distance[layer] = distance.numpy()
            d_first[layer] = first.numpy()
        for k in range(n_layers + 1):
            d_hidden[k] = accumulator.layer_hidden_stored(k).numpy()

        if accumulator.has_rotary():
            q0, k0 = accumulator.layer_rotary(0)
            d_q = f.create_dataset("rotary/query_norm", (n_layers,) + tuple(q0.shape), "<f4")
            d_k = f.create_dataset("rotary/key_norm", (n_layers,) + tuple(k0.shape), "<f4")
            for layer in range(n_layers):
                q, k = accumulator.layer_rotary(layer)
                d_q[layer] = q.numpy()
                d_k[layer] = k.numpy()
            if rotary_frequency is not None:
                f["rotary/frequency"] = np.asarray(rotary_frequency, dtype=np.float32)

        for m, (map_ids, map_tokens, attentions) in enumerate(maps):
            map_ids = np.asarray(map_ids, dtype=np.int64).reshape(1, -1)
            f[f"maps/{m}/input_ids"] = map_ids
            if map_tokens is not None:
                f.create_dataset(f"maps/{m}/tokens", data=_token_array([map_tokens]), dtype=string)
            d_maps = f.create_dataset(f"maps/{m}/attentions", tuple(attentions.shape), "<f4")
            for layer in range(attentions.shape[0]):
                d_maps[layer] = attentions[layer].float().cpu().numpy()


# --- Hugging Face: a thin layer around the above ------------------------------

def _decoder_layers(model):
    """The list of transformer blocks of common Hugging Face models."""
    for path in ("model.layers", "transformer.h", "gpt_neox.layers", "model.decoder.layers",
                 "bert.encoder.layer", "roberta.encoder.layer", "encoder.layer", "layers", "h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        return list(obj)
    raise SystemExit("poslens-export: cannot find the layers of this model")


def _rotary(model, config):
    """(rotary_dim, head_dim, inverse frequencies) for rotary models, else
    None."""
    rotary = None
    for name, module in model.named_modules():
        if name.endswith("rotary_emb") and hasattr(module, "inv_freq"):
            rotary = module
            break
    if rotary is None:
        return None
    heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    rotary_dim = 2 * rotary.inv_freq.numel()
    return rotary_dim, head_dim, rotary.inv_freq.detach().float().cpu()


def split_fused_qkv(qkv, layout, n_heads, n_kv_heads, head_dim):
    """Queries [..., heads, head_dim] and keys [..., kv_heads, head_dim] of
    a fused projection's output qkv [..., width], split as Hugging Face's
    attention splits it. LAYOUT "per_head" (GPT-NeoX's query_key_value):
    head after head, each head's query, key and value of head_dim each.
    "stacked" (Phi-3's qkv_proj): every query head, then every key head,
    then the value heads."""
    if layout == "per_head":
        heads = qkv.unflatten(-1, (n_heads, 3 * head_dim))
        return heads[..., :head_dim], heads[..., head_dim:2 * head_dim]
    if layout == "stacked":
        q_width, k_width = n_heads * head_dim, n_kv_heads * head_dim
        queries = qkv[..., :q_width].unflatten(-1, (n_heads, head_dim))
        keys = qkv[..., q_width:q_width + k_width].unflatten(-1, (n_kv_heads, head_dim))
        return queries, keys
    raise ValueError(f"unknown fused QKV layout {layout!r}")


def rotary_projection_hooks(attention, layer, accumulator, rotary_dim, head_dim, n_heads, n_kv_heads):
    """Forward hooks on an attention module's query and key projections that
    feed layer LAYER's per-plane norms to ACCUMULATOR: separate q_proj and
    k_proj (Llama, Mistral, Qwen2, Gemma, Gemma 2), GPT-NeoX's
    query_key_value or Phi-3's qkv_proj. The projections' outputs are the
    queries and keys before the rotation, which keeps each plane's norm;
    where the attention norms them first (Qwen 3's q_norm and k_norm, each
    head apart), the norms' outputs are. Returns the hooks' handles, empty
    when the module has none of these."""
    if hasattr(attention, "q_proj") and hasattr(attention, "k_proj"):
        store = {}
        normed = hasattr(attention, "q_norm") and hasattr(attention, "k_norm")
        query, key = (attention.q_norm, attention.k_norm) if normed else (attention.q_proj, attention.k_proj)

        def separate_hook(which):
            def hook(module, inputs, output):
                heads = output.detach()
                # a projection's [..., heads · head_dim]; Qwen 3's norms give [..., heads, head_dim]
                if heads.dim() < 4 or heads.shape[-1] != head_dim:
                    heads = heads.unflatten(-1, (-1, head_dim))
                store[which] = heads
                if "q" in store and "k" in store:
                    accumulator.add_rotary(layer, store.pop("q"), store.pop("k"), rotary_dim)
            return hook
        return [query.register_forward_hook(separate_hook("q")),
                key.register_forward_hook(separate_hook("k"))]

    for name, layout in (("query_key_value", "per_head"), ("qkv_proj", "stacked")):
        projection = getattr(attention, name, None)
        if projection is not None:
            def fused_hook(module, inputs, output, layout=layout):
                queries, keys = split_fused_qkv(output.detach(), layout, n_heads, n_kv_heads, head_dim)
                accumulator.add_rotary(layer, queries, keys, rotary_dim)
            return [projection.register_forward_hook(fused_hook)]
    return []


def sample_inputs(tokenizer, args, vocab_size, special_ids):
    """[S, T] ids: chunks of T tokens of --text-file, or --random inputs of T
    random non-special ids (with the tokenizer's start id first)."""
    import torch

    t = args.length
    if args.text_file:
        with open(args.text_file, encoding="utf-8") as f:
            ids = tokenizer(f.read(), add_special_tokens=False)["input_ids"]
        chunks = [ids[i:i + t] for i in range(0, len(ids) - t + 1, t)][: args.sequences]
        if not chunks:
            raise SystemExit(f"poslens-export: {args.text_file} holds fewer than {t} tokens")
        return torch.tensor(chunks, dtype=torch.long)
    generator = torch.Generator().manual_seed(args.seed)
    allowed = torch.tensor([i for i in range(vocab_size) if i not in special_ids])
    picks = torch.randint(len(allowed), (args.sequences, t), generator=generator)
    ids = allowed[picks]
    if tokenizer.bos_token_id is not None:
        ids[:, 0] = tokenizer.bos_token_id
    return ids


def run_model(args):
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
    model = transformers.AutoModel.from_pretrained(
        args.model, device_map=args.device_map, torch_dtype=getattr(torch, args.dtype),
        attn_implementation="eager")
    model.eval()
    config = model.config
    layers = _decoder_layers(model)
    n_layers = len(layers)
    accumulator = StatisticsAccumulator(n_layers)
    rotary = _rotary(model, config)
    special = set(tokenizer.all_special_ids)
    input_ids = sample_inputs(tokenizer, args, config.vocab_size, special)

    # Each layer's attention weights are reduced in its hook and not kept.
    state = {"maps": None}

    def attention_hook(layer):
        # The weights are the one 4-D tensor after the output (without a
        # cache: (output, weights), or GPT-NeoX's older (output, None, weights)).
        def hook(module, inputs, output):
            if not isinstance(output, tuple):
                return None
            for i in range(1, len(output)):
                weights = output[i]
                if torch.is_tensor(weights) and weights.dim() == 4:
                    if state["maps"] is not None:
                        state["maps"].append(weights[0].detach().float().cpu())
                    else:
                        accumulator.add_attentions(layer, weights.detach())
                    return output[:i] + (None,) + output[i + 1:]
            return None
        return hook

    n_heads = config.num_attention_heads
    n_kv_heads = getattr(config, "num_key_value_heads", None) or n_heads
    handles, rotary_handles = [], []
    for layer, block in enumerate(layers):
        attention = getattr(block, "self_attn", None) or getattr(block, "attn", None) \
            or getattr(block, "attention", None)
        handles.append(attention.register_forward_hook(attention_hook(layer)))
        if rotary is not None:
            hooks = rotary_projection_hooks(attention, layer, accumulator, rotary[0], rotary[1], n_heads, n_kv_heads)
            if not hooks:
                print(f"poslens-export: layer {layer}'s attention has no query and key projections it knows; "
                      "the file gets no rotary norms", file=sys.stderr)
            rotary_handles += hooks

    device = next(model.parameters()).device
    with torch.inference_mode():
        for start in range(0, input_ids.shape[0], args.batch_size):
            batch = input_ids[start:start + args.batch_size].to(device)
            out = model(input_ids=batch, output_attentions=True, output_hidden_states=True, use_cache=False)
            for k, h in enumerate(out.hidden_states):
                accumulator.add_hidden_states(k, h.detach())
            print(f"poslens-export: {min(start + args.batch_size, input_ids.shape[0])} of "
                  f"{input_ids.shape[0]} inputs", file=sys.stderr)

        # The kept sentences' queries and keys are not sample inputs.
        for handle in rotary_handles:
            handle.remove()
        maps = []
        for text in args.map_text or ():
            ids = tokenizer(text, return_tensors="pt")["input_ids"]
            state["maps"] = []
            model(input_ids=ids.to(device), output_attentions=True, use_cache=False)
            tokens = tokenizer.convert_ids_to_tokens(ids[0].tolist())
            maps.append((ids[0].tolist(), tokens, torch.stack(state["maps"])))
            state["maps"] = None
    for handle in handles:
        handle.remove()

    tokens = [tokenizer.convert_ids_to_tokens(row.tolist()) for row in input_ids]
    causal = not getattr(config, "is_encoder_decoder", False) and \
        any(a.endswith("ForCausalLM") for a in (config.architectures or ()))
    write_activations(args.out, accumulator, input_ids.numpy(), args.model, config.to_dict(), causal,
                      tokens=tokens, rotary_frequency=rotary[2] if rotary is not None else None, maps=maps,
                      writer=f"poslens-export {VERSION} (transformers {transformers.__version__}, "
                             f"torch {torch.__version__})")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="poslens-export",
        description="Run a Hugging Face model and write the activations file Poslens opens like a model.")
    parser.add_argument("model", help="a Hugging Face model id or folder")
    parser.add_argument("--out", "-o", required=True, help="the activations file to write (.h5)")
    parser.add_argument("--sequences", type=int, default=8, help="number of sample inputs (default 8)")
    parser.add_argument("--length", type=int, default=512, help="tokens per sample input (default 512)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--text-file", help="take the sample inputs from this text, LENGTH tokens each")
    parser.add_argument("--map-text", action="append", help="keep this sentence's full attention maps")
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16", "float32"))
    parser.add_argument("--device-map", default="auto")
    args = parser.parse_args(argv)
    if args.sequences < 1 or args.length < 1 or args.batch_size < 1:
        parser.error("--sequences, --length and --batch-size must be at least 1")
    try:
        import transformers  # noqa: F401
    except ImportError:
        raise SystemExit("poslens-export needs PyTorch and Hugging Face transformers: pip install torch "
                         "transformers accelerate h5py")
    run_model(args)


if __name__ == "__main__":
    main()
