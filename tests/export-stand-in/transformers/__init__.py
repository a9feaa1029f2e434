# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for Hugging Face `transformers`, enough to run poslens-export's
run_model on this machine, which has no `transformers`: AutoTokenizer and
AutoModel for a Llama checkpoint folder (config.json + model.safetensors).

The model is LlamaModel's module tree as Hugging Face builds it (embed_tokens,
layers[i].self_attn.{q,k,v,o}_proj, layers[i].mlp, the two RMS norms, norm,
and rotary_emb with its inv_freq buffer), eager attention in float32, the
attention module returning (output, weights) and the model returning
hidden_states with the embedding output first and the final norm's output
last. The tokenizer maps each byte of a text to an id and names id i "t<i>".
Only test-export.py puts this folder on the Python path.
"""

import json
import os
import struct

import numpy as np
import torch

__version__ = "stand-in"


def _read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    tensors = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[8 + n + begin:8 + n + end]
        if entry["dtype"] == "BF16":
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(raw, dtype={"F16": "<f2", "F32": "<f4"}[entry["dtype"]]).astype(np.float32)
        tensors[key] = torch.from_numpy(values.reshape(entry["shape"]).copy())
    return tensors


class Config:
    def __init__(self, values):
        self._values = values
        for key, value in values.items():
            setattr(self, key, value)

    def to_dict(self):
        return dict(self._values)


class Output:
    def __init__(self, hidden_states, attentions):
        self.hidden_states = hidden_states
        self.attentions = attentions


class RMSNorm(torch.nn.Module):
    def __init__(self, width, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class RotaryEmbedding(torch.nn.Module):
    def __init__(self, dim, base):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))

    def forward(self, t):
        angles = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
        angles = torch.cat([angles, angles], dim=-1)
        return angles.cos(), angles.sin()


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin


class Attention(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_heads = config.num_attention_heads
        self.n_kv_heads = getattr(config, "num_key_value_heads", None) or self.n_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.n_heads
        bias = getattr(config, "attention_bias", False)
        width = config.hidden_size
        self.q_proj = torch.nn.Linear(width, self.n_heads * self.head_dim, bias=bias)
        self.k_proj = torch.nn.Linear(width, self.n_kv_heads * self.head_dim, bias=bias)
        self.v_proj = torch.nn.Linear(width, self.n_kv_heads * self.head_dim, bias=bias)
        self.o_proj = torch.nn.Linear(self.n_heads * self.head_dim, width, bias=bias)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        group = self.n_heads // self.n_kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(2, 3) / self.head_dim ** 0.5
        future = torch.ones(t, t, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        context = (weights @ v).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(context), weights


class MLP(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        bias = getattr(config, "mlp_bias", False)
        self.gate_proj = torch.nn.Linear(config.hidden_size, config.intermediate_size, bias=bias)
        self.up_proj = torch.nn.Linear(config.hidden_size, config.intermediate_size, bias=bias)
        self.down_proj = torch.nn.Linear(config.intermediate_size, config.hidden_size, bias=bias)

    def forward(self, x):
        return self.down_proj(torch.nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = Attention(config)
        self.mlp = MLP(config)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin):
        attended = self.self_attn(self.input_layernorm(x), cos, sin)
        x = x + attended[0]
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x, attended[1] if len(attended) > 1 else None


class LlamaModel(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        heads = config.num_attention_heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
        self.embed_tokens = torch.nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = torch.nn.ModuleList(DecoderLayer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = RotaryEmbedding(head_dim, config.rope_theta)

    def forward(self, input_ids, output_attentions=False, output_hidden_states=False, use_cache=None):
        x = self.embed_tokens(input_ids)
        cos, sin = self.rotary_emb(input_ids.shape[1])
        hidden, attentions = [], []
        for layer in self.layers:
            hidden.append(x)
            x, weights = layer(x, cos, sin)
            attentions.append(weights)
        hidden.append(self.norm(x))
        return Output(tuple(hidden) if output_hidden_states else None,
                      tuple(attentions) if output_attentions else None)


def _config(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return Config(json.load(f))


class AutoModel:
    @staticmethod
    def from_pretrained(folder, device_map=None, torch_dtype=None, attn_implementation=None):
        config = _config(folder)
        if config.model_type != "llama":
            raise ValueError(f"the stand-in builds Llama models, not {config.model_type}")
        model = LlamaModel(config)
        tensors = {k[len("model."):] if k.startswith("model.") else k: v
                   for k, v in _read_safetensors(os.path.join(folder, "model.safetensors")).items()}
        tensors = {k: v for k, v in tensors.items() if k != "lm_head.weight"}
        model.load_state_dict(tensors, strict=False)
        missing = set(model.state_dict()) - set(tensors) - {"rotary_emb.inv_freq"}
        if missing:
            raise ValueError(f"{folder} lacks {sorted(missing)}")
        return model.to(torch_dtype or torch.float32)


class Tokenizer:
    def __init__(self, config):
        self.bos_token_id = getattr(config, "bos_token_id", None)
        self.eos_token_id = getattr(config, "eos_token_id", None)
        self.all_special_ids = [i for i in (self.bos_token_id, self.eos_token_id) if i is not None]
        self.vocab_size = config.vocab_size

    def __call__(self, text, add_special_tokens=True, return_tensors=None):
        start = [self.bos_token_id] if add_special_tokens and self.bos_token_id is not None else []
        ids = start + [3 + b % (self.vocab_size - 3) for b in text.encode("utf-8")]
        return {"input_ids": torch.tensor([ids]) if return_tensors == "pt" else ids}

    def convert_ids_to_tokens(self, ids):
        return [f"t{i}" for i in ids]


class AutoTokenizer:
    @staticmethod
    def from_pretrained(folder):
        return Tokenizer(_config(folder))
