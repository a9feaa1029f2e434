#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/): small
valid inputs of each kind, from which libFuzzer mutates. Run from anywhere;
needs Debian's numpy, h5py and python3-torch (/usr/bin/python3)."""
import json
import os
import struct
import sys
import tempfile

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
corpus = os.path.join(here, 'corpus')


def out(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# Tiny models: names as Hugging Face writes them, shapes a few wide.
H, P, V, F = 4, 6, 8, 8
gpt2 = {
    'transformer.wte.weight': (V, H), 'transformer.wpe.weight': (P, H),
    'transformer.h.0.ln_1.weight': (H,), 'transformer.h.0.ln_1.bias': (H,),
    'transformer.h.0.attn.c_attn.weight': (H, 3 * H), 'transformer.h.0.attn.c_attn.bias': (3 * H,),
    'transformer.h.0.attn.c_proj.weight': (H, H), 'transformer.h.0.mlp.c_fc.weight': (H, F),
    'transformer.ln_f.weight': (H,),
}
bert = {
    'bert.embeddings.word_embeddings.weight': (V, H),
    'bert.embeddings.position_embeddings.weight': (P, H),
    'bert.embeddings.token_type_embeddings.weight': (2, H),
    'bert.embeddings.LayerNorm.weight': (H,),
    'bert.encoder.layer.0.attention.self.query.weight': (H, H),
    'bert.encoder.layer.0.attention.self.query.bias': (H,),
    'bert.encoder.layer.0.intermediate.dense.weight': (F, H),
}


def safetensors(tensors, dtype='F32', meta=True):
    header, blobs, off = {}, [], 0
    np_dtype = {'F32': np.float32, 'F16': np.float16, 'F64': np.float64}.get(dtype)
    for i, (name, shape) in enumerate(tensors.items()):
        a = (np.arange(int(np.prod(shape))) * 0.25 + i).astype(np_dtype or np.float32)
        raw = a.tobytes()
        if dtype == 'BF16':
            raw = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        header[name] = {'dtype': dtype, 'shape': list(shape), 'data_offsets': [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    if meta:
        header['__metadata__'] = {'format': 'pt'}
    h = json.dumps(header).encode()
    h += b' ' * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + b''.join(blobs)


out('safetensors', 'gpt2-f32', safetensors(gpt2))
out('safetensors', 'bert-f16', safetensors(bert, 'F16'))
out('safetensors', 'gpt2-bf16', safetensors({k: v for k, v in list(gpt2.items())[:3]}, 'BF16', False))
out('safetensors', 'table-f64', safetensors({'position_embeddings': (P, H)}, 'F64'))


# Sparse files (fuzz-safetensors.c): the bytes, then "HOLE" and how many MiB
# of never-written file follow them.
def sparse(header, data, hole_mib):
    h = json.dumps(header).encode()
    h += b' ' * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + data + b'HOLE' + struct.pack('<I', hole_mib)


def in_hole(name, dtype, shape, size):
    return sparse({name: {'dtype': dtype, 'shape': shape, 'data_offsets': [0, size]}}, b'', -(-size // (1 << 20)))


out('safetensors', 'sparse-f32-20000', in_hole('position_embeddings', 'F32', [20000, 20000], 20000 * 20000 * 4))
out('safetensors', 'sparse-bf16-45000', in_hole('transformer.wpe.weight', 'BF16', [45000, 45000], 45000 * 45000 * 2))
# Real rows, then a hole that the next tensor lies in, then a small one that
# is let through (zeros a sparse copy may leave).
rows = (np.arange(P * H, dtype=np.float32) * 0.5 + 1).tobytes()
out('safetensors', 'sparse-after-table', sparse({
    'position_embeddings': {'dtype': 'F32', 'shape': [P, H], 'data_offsets': [0, len(rows)]},
    'wte': {'dtype': 'F16', 'shape': [4096, 1024], 'data_offsets': [len(rows), len(rows) + (8 << 20)]},
    'bias': {'dtype': 'F32', 'shape': [2, 8, 1024], 'data_offsets': [len(rows) + (8 << 20), len(rows) + (8 << 20) + 65536]},
    '__metadata__': {'format': 'pt'}}, rows, 9))


def h5(name, build):
    path = '/tmp/poslens-corpus.h5'
    with h5py.File(path, 'w', libver='earliest') as f:
        build(f)
    with open(path, 'rb') as f:
        out('hdf5', name, f.read())
    os.unlink(path)


def tf_gpt2(f):
    # As transformers' save_weights lays out tf_model.h5.
    base = 'transformer/tfgp_t2lm_head_model/transformer/'
    f.attrs['layer_names'] = [b'transformer']
    g = f.require_group('transformer')
    g.attrs['weight_names'] = [(base + n).encode() for n in ('wpe/embeddings:0', 'wte/weight:0')]
    f[base + 'wpe/embeddings:0'] = np.arange(P * H, dtype=np.float32).reshape(P, H)
    f[base + 'wte/weight:0'] = np.ones((V, H), np.float32)
    f[base + 'h_._0/attn/c_attn/weight:0'] = np.ones((H, 3 * H), np.float32)
    f[base + 'h_._0/attn/c_attn/bias:0'] = np.ones((1, 3 * H), np.float32)
    f[base + 'h_._0/ln_1/gamma:0'] = np.ones((H,), np.float32)


def table(f):
    f['position_embeddings'] = np.arange(P * H, dtype=np.float32).reshape(P, H)
    f['reference/cos'] = np.ones((P, P), np.float64)


def chunked(f):
    f.create_dataset('position_embeddings', data=np.arange(P * H, dtype=np.float16).reshape(P, H),
                     chunks=(2, H), compression='gzip')


h5('tf-gpt2', tf_gpt2)
h5('table', table)
h5('chunked-gzip', chunked)

# config.json: the first byte picks the tensors' family (0 gpt2, 1 bert,
# 2 roberta, 3 distilbert).
for i, family in enumerate(('mini-gpt2', 'mini-bert', 'mini-roberta')):
    with open(os.path.join(root, 'data', 'demo', family, 'config.json'), 'rb') as f:
        out('config', family, bytes([i if i < 2 else 2]) + f.read())
out('config', 'distilbert', bytes([3]) + json.dumps(
    {'model_type': 'distilbert', 'n_heads': 2, 'activation': 'gelu', 'dim': 16}).encode())


def listing(tensors, path=None, dtype=None):
    lines = (['@' + path] if path else []) + [
        '%s %s%s' % (n, ','.join(map(str, s)), ' ' + dtype if dtype else '') for n, s in tensors.items()]
    return '\n'.join(lines).encode()


out('model', 'gpt2', listing(gpt2))
out('model', 'bert', listing(bert, '/models/bert-tiny/model.safetensors', 'F16'))
tf = {'transformer/tfgp_t2lm_head_model/transformer/wpe/embeddings:0': (P, H),
      'transformer/tfgp_t2lm_head_model/transformer/h_._0/attn/c_attn/weight:0': (H, 3 * H),
      'transformer/tfgp_t2lm_head_model/transformer/h_._1/attn/c_attn/weight:0': (H, 3 * H)}
out('model', 'tf-gpt2', listing(tf))
out('model', 'plain-table', listing({'position_embeddings': (P, H), 'other': (2, 2, 2)}))
# Rotary decoders: no position table, recognised by their layer names.
out('model', 'llama', listing({
    'model.embed_tokens.weight': (V, H), 'model.layers.0.self_attn.q_proj.weight': (H, H),
    'model.layers.0.self_attn.k_proj.weight': (H // 2, H), 'model.layers.0.self_attn.v_proj.weight': (H // 2, H),
    'model.layers.0.self_attn.o_proj.weight': (H, H), 'model.layers.0.input_layernorm.weight': (H,),
    'model.layers.0.mlp.gate_proj.weight': (F, H), 'model.layers.0.mlp.down_proj.weight': (H, F),
    'model.norm.weight': (H,)}, '/models/llama-tiny/model.safetensors', 'BF16'))
out('model', 'gpt-neox', listing({
    'gpt_neox.embed_in.weight': (V, H), 'gpt_neox.layers.0.attention.query_key_value.weight': (3 * H, H),
    'gpt_neox.layers.0.attention.query_key_value.bias': (3 * H,), 'gpt_neox.layers.0.attention.bias': (1, 1, 4, 4),
    'gpt_neox.layers.0.mlp.dense_4h_to_h.weight': (H, F), 'gpt_neox.final_layer_norm.weight': (H,)}))

# tokenizer.json: first byte * 4 = length of the text that follows.
text = 'Hello, wörld! 你好 [MASK] <s>'.encode()
assert len(text) % 4 == 0 or True
pad = text + b' ' * (-len(text) % 4)
wordpiece = {
    'version': '1.0', 'added_tokens': [{'id': 0, 'content': '[PAD]', 'special': True},
                                       {'id': 1, 'content': '[UNK]', 'special': True},
                                       {'id': 2, 'content': '[CLS]', 'special': True},
                                       {'id': 3, 'content': '[SEP]', 'special': True},
                                       {'id': 4, 'content': '[MASK]', 'special': True}],
    'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                   'strip_accents': None, 'lowercase': True},
    'pre_tokenizer': {'type': 'BertPreTokenizer'},
    'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
              'max_input_chars_per_word': 100,
              'vocab': {'[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, '[MASK]': 4, 'hello': 5,
                        ',': 6, 'w': 7, '##or': 8, '##ld': 9, '!': 10, '你': 11, '好': 12}},
}
bpe = {
    'version': '1.0', 'added_tokens': [{'id': 9, 'content': '<s>', 'special': True}],
    'normalizer': None,
    'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True},
    'decoder': {'type': 'ByteLevel'},
    'model': {'type': 'BPE', 'dropout': None, 'unk_token': None,
              'vocab': {'H': 0, 'e': 1, 'l': 2, 'o': 3, 'He': 4, 'll': 5, 'Hell': 6, 'Ġ': 7, ',': 8},
              'merges': ['H e', 'l l', 'He ll']},
}
bpe_pairs = json.loads(json.dumps(bpe))
bpe_pairs['model']['merges'] = [m.split(' ') for m in bpe['model']['merges']]
# Today's shapes (tests/fixtures/make-tokenizers.js has them whole): Llama 2's normalizers with byte
# fallback, Mistral's Metaspace, Gemma's Split, Llama 3's regex before ByteLevel, Qwen2's NFC.
sp_vocab = {'<unk>': 0, '<s>': 1, '</s>': 2, '<0x0A>': 3, '<0xE4>': 4, '<0xBD>': 5, '<0xA0>': 6,
            '▁': 7, 'H': 8, 'e': 9, 'l': 10, 'o': 11, '▁H': 12, 'll': 13, '▁Hell': 14, ',': 15}
sp_model = {'type': 'BPE', 'dropout': None, 'unk_token': '<unk>', 'fuse_unk': True, 'byte_fallback': True,
            'vocab': sp_vocab, 'merges': [['▁', 'H'], ['l', 'l'], ['▁H', 'e'], ['▁He', 'll']]}
sp_vocab['▁He'] = 16
sp_added = [{'id': i, 'content': c, 'special': True, 'normalized': False, 'lstrip': False, 'rstrip': False}
            for i, c in enumerate(['<unk>', '<s>', '</s>'])]
bos = {'type': 'TemplateProcessing', 'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}},
                                                {'Sequence': {'id': 'A', 'type_id': 0}}],
       'special_tokens': {'<s>': {'id': '<s>', 'ids': [1], 'tokens': ['<s>']}}}
sp_decoder = {'type': 'Sequence', 'decoders': [{'type': 'Replace', 'pattern': {'String': '▁'}, 'content': ' '},
                                               {'type': 'ByteFallback'}, {'type': 'Fuse'},
                                               {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}]}
llama2 = {'version': '1.0', 'added_tokens': sp_added, 'post_processor': bos, 'decoder': sp_decoder,
          'normalizer': {'type': 'Sequence', 'normalizers': [
              {'type': 'Prepend', 'prepend': '▁'}, {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '▁'}]},
          'pre_tokenizer': None, 'model': sp_model}
mistral = dict(llama2, normalizer=None,
               pre_tokenizer={'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'first', 'split': False},
               decoder={'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'first', 'split': False})
gemma = dict(llama2, normalizer={'type': 'Replace', 'pattern': {'String': ' '}, 'content': '▁'},
             pre_tokenizer={'type': 'Split', 'pattern': {'String': ' '}, 'behavior': 'MergedWithPrevious',
                            'invert': False})
tiktoken = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
            "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
llama3 = dict(bpe, model=dict(bpe['model'], ignore_merges=True), pre_tokenizer={'type': 'Sequence', 'pretokenizers': [
    {'type': 'Split', 'pattern': {'Regex': tiktoken}, 'behavior': 'Isolated', 'invert': False},
    {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': False}]})
qwen2 = dict(llama3, normalizer={'type': 'NFC'}, pre_tokenizer={'type': 'Sequence', 'pretokenizers': [
    {'type': 'Split', 'pattern': {'Regex': tiktoken.replace('{1,3}', '')}, 'behavior': 'Isolated', 'invert': False},
    {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False}]})
# Added tokens and each post-processor, whose ids the fuzzer's dictionary
# (tests/fuzz/dictionaries/tokenizer.dict) replaces with large ones.
bpe_template = json.loads(json.dumps(bpe_pairs))
bpe_template['added_tokens'] += [{'id': 10, 'content': '</s>', 'special': True, 'rstrip': True},
                                 {'id': 11, 'content': '<mask>', 'special': True, 'lstrip': True}]
bpe_template['post_processor'] = {
    'type': 'TemplateProcessing',
    'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
               {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
    'special_tokens': {'<s>': {'id': '<s>', 'ids': [9], 'tokens': ['<s>']},
                       '</s>': {'id': '</s>', 'ids': [10], 'tokens': ['</s>']}}}
wordpiece_bert = json.loads(json.dumps(wordpiece))
wordpiece_bert['post_processor'] = {'type': 'BertProcessing', 'sep': ['[SEP]', 3], 'cls': ['[CLS]', 2]}
bpe_roberta = json.loads(json.dumps(bpe_template))
bpe_roberta['post_processor'] = {'type': 'Sequence', 'processors': [
    {'type': 'ByteLevel', 'trim_offsets': False},
    {'type': 'RobertaProcessing', 'sep': ['</s>', 10], 'cls': ['<s>', 9]}]}
for name, tok in (('wordpiece', wordpiece), ('bpe', bpe), ('bpe-pairs', bpe_pairs), ('llama2', llama2),
                  ('mistral', mistral), ('gemma', gemma), ('llama3', llama3), ('qwen2', qwen2),
                  ('bpe-template', bpe_template), ('wordpiece-bert', wordpiece_bert),
                  ('bpe-roberta', bpe_roberta)):
    out('tokenizer', name, bytes([len(pad) // 4]) + pad + json.dumps(tok).encode())


def charsmap(mapping):
    """SentencePiece's precompiled charsmap for MAPPING (bytes -> bytes): a Darts double-array trie of
    32-bit units (label in the low byte, has_leaf bit 8, offset above bit 10, XORed with a node's
    place to give its children's base; a leaf's value unit, bit 31 set, is its child for byte 0),
    then the replacements, each ended by a NUL."""
    normalized, values = b'', {}
    for key, rep in mapping.items():
        values[key] = len(normalized)
        normalized += rep + b'\0'
    children = {}
    for key in mapping:
        for i in range(len(key)):
            children.setdefault(key[:i], set()).add(key[i])
    units = [0] * 4096
    used = {0}

    def place(prefix, pos):
        labels = sorted(children.get(prefix, ())) + ([0] if prefix in mapping and prefix else [])
        base = next(b for b in range(1, 4096) if all(b ^ c not in used and b ^ c < 4096 for c in labels))
        offset = pos ^ base
        assert offset < 1 << 21
        units[pos] |= offset << 10 | (256 if prefix in mapping and prefix else 0)
        for c in labels:
            used.add(base ^ c)
        if prefix in mapping and prefix:
            units[base] = 1 << 31 | values[prefix]
        for c in sorted(children.get(prefix, ())):
            units[base ^ c] = c
            place(prefix + bytes([c]), base ^ c)
    place(b'', 0)
    n = max(used) + 1
    return struct.pack('<I', 4 * n) + struct.pack('<%dI' % n, *units[:n]) + normalized


# Unigram (SentencePiece's) on T5's, XLM-RoBERTa's, ALBERT's and DeBERTa-v3's pipelines, with a small
# Precompiled charsmap (full-width letters, a ligature, a composed accent, a hyphen-like dash).
nfkc = {'Ａ'.encode(): b'A', 'ｂ'.encode(): b'b', 'ﬁ'.encode(): b'fi', 'e\u0301'.encode(): 'é'.encode(),
        '\u2010'.encode(): b'-', '①'.encode(): b'1'}
precompiled = {'type': 'Precompiled', 'precompiled_charsmap': __import__('base64').b64encode(charsmap(nfkc)).decode()}
unigram_vocab = [['<pad>', 0.0], ['</s>', 0.0], ['<unk>', 0.0], ['▁', -2.0], ['▁Hello', -8.0], ['H', -5.0],
                 ['e', -3.0], ['l', -3.5], ['o', -3.2], ['▁w', -6.0], ['ö', -9.0], ['rld', -7.0], ['你', -10.0],
                 ['<0xE5>', 0.0], ['<0xA5>', 0.0], ['<0xBD>', 0.0], [',', -4.0], ['▁fi', -6.5], ['é', -8.5]]
metaspace = {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'always', 'split': True}
t5 = {'version': '1.0', 'added_tokens': [{'id': i, 'content': c, 'special': True} for i, c in
                                         enumerate(['<pad>', '</s>', '<unk>'])],
      'normalizer': precompiled,
      'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [{'type': 'WhitespaceSplit'}, metaspace]},
      'post_processor': {'type': 'TemplateProcessing', 'single': [{'Sequence': {'id': 'A', 'type_id': 0}},
                                                                 {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
                         'special_tokens': {'</s>': {'id': '</s>', 'ids': [1], 'tokens': ['</s>']}}},
      'decoder': metaspace, 'model': {'type': 'Unigram', 'unk_id': 2, 'byte_fallback': False,
                                      'vocab': unigram_vocab}}
xlmr = dict(t5, normalizer={'type': 'Sequence', 'normalizers': [
    precompiled, {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': ' '}]}, pre_tokenizer=metaspace,
    model={'unk_id': 2, 'vocab': unigram_vocab})
albert = dict(t5, normalizer={'type': 'Sequence', 'normalizers': [
    {'type': 'Replace', 'pattern': {'String': '``'}, 'content': '"'}, {'type': 'NFKD'},
    {'type': 'StripAccents'}, {'type': 'Lowercase'}, precompiled]})
deberta = dict(xlmr, normalizer={'type': 'Sequence', 'normalizers': [
    {'type': 'Strip', 'strip_left': True, 'strip_right': True}, precompiled]},
    model=dict(t5['model'], byte_fallback=True))
for name, tok in (('unigram-t5', t5), ('unigram-xlmr', xlmr), ('unigram-albert', albert),
                  ('unigram-deberta', deberta)):
    out('tokenizer', name, bytes([len(pad) // 4]) + pad + json.dumps(tok).encode())

# The charsmap alone (fuzz-unigram): first byte * 4 = length of the text, then the charsmap's bytes.
uni_text = 'Ａｂ ﬁne e\u0301 \u2010 ① x'.encode()
uni_text += b' ' * (-len(uni_text) % 4)
out('unigram', 'small', bytes([len(uni_text) // 4]) + uni_text + charsmap(nfkc))
out('unigram', 'one-key', bytes([1]) + b'ab a' + charsmap({b'a': b'A'}))


# PyTorch files as torch.save writes them (zip and legacy, pickle protocols
# 2 and 4), and their pickles alone for the unpickler.
import io
import pickle
import pickletools
import zipfile
from collections import OrderedDict

import torch


def state_dict(tensors, dtype=torch.float32):
    return OrderedDict((n, (torch.arange(float(np.prod(s))) * 0.25 + i).reshape(s).to(dtype))
                       for i, (n, s) in enumerate(tensors.items()))


def torch_bytes(obj, legacy=False, protocol=2):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy, pickle_protocol=protocol)
    return buf.getvalue()


def object_pickle(data):
    """The pickle of the object in a zip's data.pkl or after a legacy file's three head pickles."""
    if data[:4] == b'PK\x03\x04':
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return z.read(next(n for n in z.namelist() if n.endswith('/data.pkl')))
    f = io.BytesIO(data)
    for _ in range(3):
        pickle.load(f)
    start = f.tell()
    for _ in pickletools.genops(f):
        pass
    return data[start:f.tell()]


views = OrderedDict()
base = torch.arange(20.0).reshape(4, 5)
views['transformer.wpe.weight'] = base
views['transposed'] = base.t()
views['offset'] = base[1:, 2:]
views['tied'] = base
views['bf16'] = base.bfloat16()[::2]
views['scalar'] = torch.tensor(2.5)
views['ids'] = torch.arange(6).expand(2, 6)
seeds = {
    'gpt2-zip': torch_bytes(state_dict(gpt2)),
    'bert-legacy-f16': torch_bytes(state_dict(bert, torch.float16), legacy=True),
    'views-protocol4': torch_bytes(views, protocol=4),
    'train-legacy': torch_bytes({'epoch': 2, 'state_dict': views, 'optimizer': {'lr': 0.5, 'groups': [[0, 1], []]}},
                                legacy=True),
}
for name, data in seeds.items():
    out('pytorch', name, data)
    out('pickle', name, object_pickle(data))

# The same in zip64 form (sizes and offsets in zip64 fields), with
# tests/fixtures/make-pytorch.py's writer.
import importlib.util
import tempfile
spec = importlib.util.spec_from_file_location('make_pytorch', os.path.join(root, 'tests', 'fixtures', 'make-pytorch.py'))
make_pytorch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_pytorch)
with tempfile.TemporaryDirectory() as tmp:
    source, zip64 = os.path.join(tmp, 'a.pt'), os.path.join(tmp, 'b.pt')
    with open(source, 'wb') as f:
        f.write(seeds['views-protocol4'])
    make_pytorch.rewrite_as_zip64(source, zip64)
    with open(zip64, 'rb') as f:
        out('pytorch', 'views-zip64', f.read())

# A legacy file whose last storage, GPT-2's position table of 4096 × 4096
# float32, is a hole (fuzz-pytorch.c: the bytes, then "HOLE" and how many
# MiB of never-written file follow them).
hole_bytes = 4096 * 4096 * 4
legacy = torch_bytes(OrderedDict([('transformer.wpe.weight', torch.zeros(4096, 4096))]), legacy=True)
out('pytorch', 'sparse-legacy', legacy[:-hole_bytes] + b'HOLE' + struct.pack('<I', hole_bytes >> 20))

# Issue 38's costs, small (tests/fixtures/make-pytorch-hostile.py): an expanded view (stride 0, one stored
# float, rows of 2^20) named 200 times through the memo, which `check` reads row by row; and a pickle
# that names one tensor 3,000 times through the memo and PUTs far past what it built.
spec = importlib.util.spec_from_file_location('make_hostile', os.path.join(root, 'tests', 'fixtures',
                                                                             'make-pytorch-hostile.py'))
make_hostile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_hostile)
with tempfile.TemporaryDirectory() as tmp:
    for name, make, n in (('stride0-names', make_hostile.expanded_names, 200),
                          ('memo-aliases', make_hostile.aliases, 3000)):
        make(os.path.join(tmp, name), n)
        with open(os.path.join(tmp, name), 'rb') as f:
            data = f.read()
        out('pytorch', name, data)
        out('pickle', name, object_pickle(data))
memo_far = b'\x80\x02X\x08\x00\x00\x00abcdefghr\x00\x00\x00\x01.'
out('pickle', 'memo-far', memo_far)

# GGUF (fuzz-gguf.c), written by tests/fixtures/gguf_tools.py: a tiny Llama with its tokenizer's
# arrays, every tensor type, and one whose token embedding lies in a hole.
sys.path.insert(0, os.path.join(root, 'tests', 'fixtures'))
import gguf_tools  # noqa: E402


def gguf_bytes(metadata, tensors, **kw):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'seed.gguf')
        gguf_tools.write(path, metadata, tensors, **kw)
        with open(path, 'rb') as f:
            return f.read()


def gguf_tensor(name, tname, shape):
    x = (np.arange(int(np.prod(shape))) % 13 * 0.25 - 1.5).astype(np.float32).reshape(-1, shape[-1])
    return (name, tname, shape, gguf_tools.quantize(tname, x))


llama_meta = {
    'general.architecture': 'llama', 'llama.context_length': 16, 'llama.embedding_length': 32,
    'llama.block_count': 1, 'llama.feed_forward_length': 32, 'llama.attention.head_count': 2,
    'llama.attention.head_count_kv': 1, 'llama.rope.dimension_count': 16, 'llama.rope.freq_base': 10000.0,
    'llama.attention.layer_norm_rms_epsilon': 1e-5, 'tokenizer.ggml.model': 'llama',
    'tokenizer.ggml.tokens': ['<unk>', '<s>', '</s>', '\u2581', 'a', 'b', '\u2581a', '<0x0A>'],
    'tokenizer.ggml.scores': [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -4.0, 0.0],
    'tokenizer.ggml.token_type': gguf_tools.Value(gguf_tools.ARRAY, [2, 3, 3, 1, 1, 1, 1, 6], sub=gguf_tools.INT32),
    'tokenizer.ggml.bos_token_id': 1, 'tokenizer.ggml.add_bos_token': True,
}
llama_tensors = [gguf_tensor('token_embd.weight', 'Q8_0', (8, 32)),
                 gguf_tensor('blk.0.attn_norm.weight', 'F32', (32,)),
                 gguf_tensor('blk.0.attn_q.weight', 'Q4_0', (32, 32)),
                 gguf_tensor('blk.0.attn_k.weight', 'F16', (16, 32)),
                 gguf_tensor('blk.0.attn_v.weight', 'BF16', (16, 32)),
                 gguf_tensor('blk.0.attn_output.weight', 'Q5_1', (32, 32)),
                 gguf_tensor('blk.0.ffn_norm.weight', 'F32', (32,)),
                 gguf_tensor('blk.0.ffn_gate.weight', 'Q4_1', (32, 32)),
                 gguf_tensor('blk.0.ffn_up.weight', 'Q5_0', (32, 32)),
                 gguf_tensor('blk.0.ffn_down.weight', 'Q8_0', (32, 32)),
                 gguf_tensor('output_norm.weight', 'F32', (32,))]
out('gguf', 'llama-mixed', gguf_bytes(llama_meta, llama_tensors))
out('gguf', 'k-quants-v2', gguf_bytes({'general.architecture': 'llama', 'nested': gguf_tools.Value(
    gguf_tools.ARRAY, [gguf_tools.Value(gguf_tools.ARRAY, [1], sub=gguf_tools.INT8)], sub=gguf_tools.ARRAY)},
    [gguf_tensor('q4_k', 'Q4_K', (2, 256)), gguf_tensor('q5_k', 'Q5_K', (1, 256)),
     gguf_tensor('q6_k', 'Q6_K', (1, 256)), gguf_tensor('f64', 'F32', (3,))], version=2, alignment=8))
gpt2_meta = {'general.architecture': 'gpt2', 'gpt2.context_length': 8, 'gpt2.embedding_length': 32,
             'gpt2.block_count': 1, 'gpt2.attention.head_count': 2, 'tokenizer.ggml.model': 'gpt2',
             'tokenizer.ggml.pre': 'gpt-2', 'tokenizer.ggml.tokens': ['a', 'b', 'ab', '\u0120'],
             'tokenizer.ggml.merges': ['a b']}
out('gguf', 'gpt2-table', gguf_bytes(gpt2_meta, [gguf_tensor('position_embd.weight', 'F32', (8, 32)),
                                                gguf_tensor('token_embd.weight', 'F16', (4, 32))]))
# A Q8_0 token embedding of 32768 × 4096 (4.25 GiB) in a hole
big = gguf_bytes(llama_meta, [('token_embd.weight', 'Q8_0', (32768, 4096), b'')])
out('gguf', 'sparse-q8_0', big + b'HOLE' + struct.pack('<I', 32768 * 4096 // 32 * 34 >> 20))
