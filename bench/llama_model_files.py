# SPDX-License-Identifier: GPL-3.0-or-later
"""A TinyLlama-1.1B-shaped model with random weights, written once in every form the llama.cpp bench reads.

The same numbers (N(0, 0.02) weights, norms 1 + N(0, 0.05), rounded to BF16 so that every form holds
them exactly) go into:

  DIR/hf-bf16/    config.json + model.safetensors, BF16, as Hugging Face saves a Llama
  DIR/hf-f32/     the same in F32
  DIR/bf16.gguf   GGUF v3 as llama.cpp's convert_hf_to_gguf.py lays a Llama out: ggml's tensor names,
  DIR/f32.gguf    the rows of attn_q / attn_k permuted for ggml's rotary pairs, 1-D tensors F32, and
                  a stand-in SentencePiece vocabulary (<unk>, <s>, </s>, 256 byte tokens, filler words)
  DIR/q8_0.gguf   quantised from f32.gguf by llama.cpp's own llama_model_quantize (its prebuilt library
  DIR/q4_k_m.gguf from node-llama-cpp, called through ctypes), as `llama-quantize` would write them

GGUF layout (ggml's docs/gguf.md): magic "GGUF", version, tensor count, metadata count, metadata
(key string, type, value), tensor infos (name, n_dims, dims fastest first, type, offset), padding
to general.alignment (32), then the data, each tensor aligned.
"""

import ctypes
import json
import os
import struct
import time

import numpy as np

TINYLLAMA = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
                 num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048, rms_norm_eps=1e-5,
                 rope_theta=10000.0, tie_word_embeddings=False)

# ggml_type
GGML_F32, GGML_F16, GGML_Q8_0, GGML_Q4_K, GGML_Q6_K, GGML_BF16 = 0, 1, 8, 12, 14, 30
# gguf_type of metadata values
GGUF_UINT32, GGUF_INT32, GGUF_FLOAT32, GGUF_STRING, GGUF_ARRAY = 4, 5, 6, 8, 9
# llama_ftype
FTYPE = {"f32": 0, "bf16": 32, "q8_0": 7, "q4_k_m": 15}
ALIGNMENT = 32


def hf_tensors(cfg):
    """(Hugging Face name, shape) in the order a safetensors file of LlamaForCausalLM lists them."""
    h, f, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    kv = cfg["num_key_value_heads"] * (h // cfg["num_attention_heads"])
    out = [("model.embed_tokens.weight", (v, h))]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        out += [(p + "input_layernorm.weight", (h,)), (p + "self_attn.q_proj.weight", (h, h)),
                (p + "self_attn.k_proj.weight", (kv, h)), (p + "self_attn.v_proj.weight", (kv, h)),
                (p + "self_attn.o_proj.weight", (h, h)), (p + "post_attention_layernorm.weight", (h,)),
                (p + "mlp.gate_proj.weight", (f, h)), (p + "mlp.up_proj.weight", (f, h)),
                (p + "mlp.down_proj.weight", (h, f))]
    out.append(("model.norm.weight", (h,)))
    out.append(("lm_head.weight", (v, h)))
    return out


GGUF_NAMES = {
    "input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def gguf_name(name):
    if name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if name == "model.norm.weight":
        return "output_norm.weight"
    if name == "lm_head.weight":
        return "output.weight"
    layer, rest = name[len("model.layers."):].split(".", 1)
    return "blk.%s.%s" % (layer, GGUF_NAMES[rest])


def rotary_rows_for_ggml(w, heads):
    """Each head's rows reordered so that ggml's neighbouring rotary pairs (2i, 2i + 1) hold what
    Hugging Face's rotate-half pairs (i, i + d/2) hold."""
    d = w.shape[0] // heads
    return w.reshape(heads, 2, d // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def bf16_bits(x):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def weights(cfg, seed):
    """Yields (name, float32 array) of every tensor, values exactly representable in BF16."""
    rng = np.random.default_rng(seed)
    for name, shape in hf_tensors(cfg):
        if name.endswith("norm.weight"):
            x = 1.0 + 0.05 * rng.standard_normal(shape, dtype=np.float32)
        else:
            x = 0.02 * rng.standard_normal(shape, dtype=np.float32)
        yield name, (bf16_bits(x).astype(np.uint32) << 16).view(np.float32)


class SafetensorsWriter:
    def __init__(self, path, tensors, dtype):
        self.dtype = dtype
        size = 2 if dtype == "BF16" else 4
        header, offset = {"__metadata__": {"format": "pt"}}, 0
        for name, shape in tensors:
            n = size * int(np.prod(shape))
            header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
            offset += n
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        self.out = open(path, "wb")
        self.out.write(struct.pack("<Q", len(text)) + text)

    def add(self, x):
        self.out.write(bf16_bits(x).tobytes() if self.dtype == "BF16" else x.astype("<f4").tobytes())

    def close(self):
        self.out.close()


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, kind, value):
    out = gguf_string(key) + struct.pack("<I", kind)
    if kind == GGUF_STRING:
        return out + gguf_string(value)
    if kind == GGUF_UINT32:
        return out + struct.pack("<I", value)
    if kind == GGUF_INT32:
        return out + struct.pack("<i", value)
    if kind == GGUF_FLOAT32:
        return out + struct.pack("<f", value)
    item, values = value
    out += struct.pack("<IQ", item, len(values))
    if item == GGUF_STRING:
        return out + b"".join(gguf_string(s) for s in values)
    return out + np.asarray(values, dtype={GGUF_FLOAT32: "<f4", GGUF_INT32: "<i4"}[item]).tobytes()


def stand_in_vocab(n):
    """A SentencePiece-style vocabulary llama.cpp accepts: ids 0-2 <unk> <s> </s>, 3-258 the bytes."""
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    tokens += ["\u2581w%d" % i for i in range(n - len(tokens))]
    types = [2, 3, 3] + [6] * 256 + [1] * (n - 259)
    scores = [0.0] * 259 + [-float(i) for i in range(n - 259)]
    return tokens, scores, types


class GgufWriter:
    def __init__(self, path, cfg, tensors, kind):
        """TENSORS: (gguf name, numpy shape); KIND "f32" or "bf16" (1-D tensors always F32)."""
        h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
        tokens, scores, types = stand_in_vocab(cfg["vocab_size"])
        kvs = [
            gguf_kv("general.architecture", GGUF_STRING, "llama"),
            gguf_kv("general.name", GGUF_STRING, "poslens-bench-tinyllama"),
            gguf_kv("general.file_type", GGUF_UINT32, FTYPE[kind]),
            gguf_kv("general.alignment", GGUF_UINT32, ALIGNMENT),
            gguf_kv("llama.context_length", GGUF_UINT32, cfg["max_position_embeddings"]),
            gguf_kv("llama.embedding_length", GGUF_UINT32, h),
            gguf_kv("llama.block_count", GGUF_UINT32, cfg["num_hidden_layers"]),
            gguf_kv("llama.feed_forward_length", GGUF_UINT32, cfg["intermediate_size"]),
            gguf_kv("llama.attention.head_count", GGUF_UINT32, nh),
            gguf_kv("llama.attention.head_count_kv", GGUF_UINT32, cfg["num_key_value_heads"]),
            gguf_kv("llama.rope.dimension_count", GGUF_UINT32, h // nh),
            gguf_kv("llama.rope.freq_base", GGUF_FLOAT32, cfg["rope_theta"]),
            gguf_kv("llama.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, cfg["rms_norm_eps"]),
            gguf_kv("llama.vocab_size", GGUF_UINT32, cfg["vocab_size"]),
            gguf_kv("tokenizer.ggml.model", GGUF_STRING, "llama"),
            gguf_kv("tokenizer.ggml.tokens", GGUF_ARRAY, (GGUF_STRING, tokens)),
            gguf_kv("tokenizer.ggml.scores", GGUF_ARRAY, (GGUF_FLOAT32, scores)),
            gguf_kv("tokenizer.ggml.token_type", GGUF_ARRAY, (GGUF_INT32, types)),
            gguf_kv("tokenizer.ggml.bos_token_id", GGUF_UINT32, 1),
            gguf_kv("tokenizer.ggml.eos_token_id", GGUF_UINT32, 2),
            gguf_kv("tokenizer.ggml.unknown_token_id", GGUF_UINT32, 0),
        ]
        infos, offset, self.types = [], 0, []
        for name, shape in tensors:
            t = GGML_BF16 if kind == "bf16" and len(shape) > 1 else GGML_F32
            self.types.append(t)
            dims = list(reversed(shape))
            infos.append(gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
                         + struct.pack("<IQ", t, offset))
            offset += (2 if t == GGML_BF16 else 4) * int(np.prod(shape))
            offset += -offset % ALIGNMENT
        head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(infos)
        head += b"\0" * (-len(head) % ALIGNMENT)
        self.out = open(path, "wb")
        self.out.write(head)
        self.next = 0

    def add(self, x):
        t = self.types[self.next]
        self.next += 1
        data = bf16_bits(x).tobytes() if t == GGML_BF16 else x.astype("<f4").tobytes()
        self.out.write(data + b"\0" * (-len(data) % ALIGNMENT))

    def close(self):
        self.out.close()


def llama_library(node_modules):
    return os.path.join(node_modules, "@node-llama-cpp", "linux-x64", "bins", "linux-x64", "libllama.v0.4.0.so")


def quantize(node_modules, source, target, kind, threads=2):
    """llama.cpp's llama_model_quantize (its defaults, as llama-quantize SOURCE TARGET KIND runs it)."""
    lib = ctypes.CDLL(llama_library(node_modules))

    class Params(ctypes.Structure):
        # llama_model_quantize_params is 64 bytes in this release; a larger buffer holds it either way
        _fields_ = [("nthread", ctypes.c_int32), ("ftype", ctypes.c_int32), ("rest", ctypes.c_uint8 * 248)]

    lib.llama_model_quantize_default_params.restype = Params
    lib.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Params)]
    lib.llama_model_quantize.restype = ctypes.c_uint32
    lib.llama_backend_init()
    params = lib.llama_model_quantize_default_params()
    params.nthread = threads
    params.ftype = FTYPE[kind]
    if lib.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params)) != 0:
        raise RuntimeError("llama_model_quantize failed on %s" % source)


def write_all(folder, node_modules, cfg=TINYLLAMA, seed=7, forms=("hf-bf16", "hf-f32", "bf16", "f32", "q8_0",
                                                                     "q4_k_m")):
    """Writes the forms missing from FOLDER; returns the paths by form."""
    paths = {"hf-bf16": os.path.join(folder, "hf-bf16"), "hf-f32": os.path.join(folder, "hf-f32")}
    paths.update({k: os.path.join(folder, k + ".gguf") for k in ("bf16", "f32", "q8_0", "q4_k_m")})
    os.makedirs(folder, exist_ok=True)
    tensors = hf_tensors(cfg)
    nh, kvh = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    writers = []
    for form in ("hf-bf16", "hf-f32"):
        if form in forms and not os.path.exists(os.path.join(paths[form], "model.safetensors")):
            os.makedirs(paths[form], exist_ok=True)
            config = dict(cfg, architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu",
                          bos_token_id=1, eos_token_id=2, rope_scaling=None,
                          torch_dtype="bfloat16" if form == "hf-bf16" else "float32")
            with open(os.path.join(paths[form], "config.json"), "w") as out:
                json.dump(config, out, indent=2)
            writers.append((SafetensorsWriter(os.path.join(paths[form], "model.safetensors.part"), tensors,
                                              "BF16" if form == "hf-bf16" else "F32"), False))
    for form in ("bf16", "f32"):
        if (form in forms or (form == "f32" and ("q8_0" in forms or "q4_k_m" in forms))) \
                and not os.path.exists(paths[form]):
            writers.append((GgufWriter(paths[form] + ".part", cfg, [(gguf_name(n), s) for n, s in tensors], form),
                            True))
    if writers:
        start = time.perf_counter()
        for name, x in weights(cfg, seed):
            permuted = x
            if name.endswith("q_proj.weight"):
                permuted = rotary_rows_for_ggml(x, nh)
            elif name.endswith("k_proj.weight"):
                permuted = rotary_rows_for_ggml(x, kvh)
            for writer, ggml in writers:
                writer.add(permuted if ggml else x)
        for writer, _ in writers:
            writer.close()
            os.rename(writer.out.name, writer.out.name[:-len(".part")])
        print("wrote %d files in %.0f s" % (len(writers), time.perf_counter() - start), flush=True)
    for form in ("q8_0", "q4_k_m"):
        if form in forms and not os.path.exists(paths[form]):
            quantize(node_modules, paths["f32"], paths[form] + ".part", form)
            os.rename(paths[form] + ".part", paths[form])
    return paths


if __name__ == "__main__":
    import sys
    write_all(sys.argv[1], sys.argv[2])
