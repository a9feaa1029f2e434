#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Tokenisation speed on a 100 kB text (run by hand, not a test):
#
#   sh bench/bench-tokenizer.sh BUILD_DIR [KILOBYTES]
#
# Writes a deterministic English-like text (words drawn from bert-base-uncased's
# vocabulary with Zipf frequencies, capitals, punctuation, numbers, some
# accents and CJK) and times bench/pl-bench-tokenizer on it for WordPiece,
# byte-level BPE and the demo byte tokenizer: loading, the first encode (empty
# BPE cache) and the median of 20. Goal: well under 100 ms per 100 kB.
#
# With TOKENIZERS_JS=/path/to/@huggingface/tokenizers/dist/tokenizers.mjs and
# node on PATH, Hugging Face's tokenizers.js runs the same text with the same
# vocabularies in the same run, and the ratio is printed.
set -eu

build=${1:?usage: bench-tokenizer.sh BUILD_DIR [KILOBYTES]}
kb=${2:-100}
src=$(cd "$(dirname "$0")/.." && pwd)
driver="$build/bench/pl-bench-tokenizer"
fixtures="$src/tests/fixtures/tokenizers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$driver" ] || { echo "build $driver first: ninja -C $build bench/pl-bench-tokenizer" >&2; exit 1; }

/usr/bin/python3 - "$fixtures/bert-base-uncased-vocab.txt" "$work/text.txt" "$kb" <<'EOF'
import random, sys
vocab, out, kb = sys.argv[1], sys.argv[2], int(sys.argv[3])
words = [w for w in open(vocab, encoding="utf-8").read().split("\n")
         if w.isalpha() and w.isascii() and not w.startswith("[")]
rng = random.Random(20201116)
weights = [1.0 / (r + 10) for r in range(len(words))]
extras = ["café", "naïve", "Zürich", "日本語", "émigré", "1984", "3.14", "e-mail", "don't", "it's"]
parts, size, start = [], 0, True
while size < kb * 1024:
    w = rng.choices(words, weights)[0] if rng.random() > 0.03 else rng.choice(extras)
    if start:
        w = w.capitalize()
    start = False
    r = rng.random()
    if r < 0.06:
        w += rng.choice([".", "!", "?"]); start = True
    elif r < 0.12:
        w += rng.choice([",", ";", ":"])
    w += "\n" if start and rng.random() < 0.2 else " "
    parts.append(w); size += len(w.encode())
open(out, "w", encoding="utf-8").write("".join(parts)[: kb * 1024].rsplit(" ", 1)[0])
EOF

echo "text: $(wc -c < "$work/text.txt") bytes"
"$driver" "$fixtures/bert-base-uncased-vocab.txt" "$work/text.txt"
"$driver" "$fixtures/byte-bpe-vocab.json" "$work/text.txt"
"$driver" "$src/data/demo/mini-bert" "$work/text.txt"

if [ -n "${TOKENIZERS_JS:-}" ] && command -v node > /dev/null; then
  /usr/bin/python3 - "$fixtures" "$work" <<'EOF'
import json, sys
fx, work = sys.argv[1], sys.argv[2]
lines = open(fx + "/bert-base-uncased-vocab.txt", encoding="utf-8").read().split("\n")
vocab = {w: i for i, w in enumerate(lines) if w}
specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
json.dump({"added_tokens": [{"id": vocab[s], "content": s, "special": True, "lstrip": False, "rstrip": False,
                             "normalized": False, "single_word": False} for s in specials],
           "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                          "strip_accents": None, "lowercase": True},
           "pre_tokenizer": {"type": "BertPreTokenizer"},
           "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]},
           "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
           "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                     "max_input_chars_per_word": 100, "vocab": vocab}},
          open(work + "/wordpiece.json", "w"), ensure_ascii=False)
merges = [m.split(" ") for m in open(fx + "/byte-bpe-merges.txt", encoding="utf-8").read().split("\n")[1:] if m]
json.dump({"added_tokens": [], "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
           "post_processor": None, "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False, "byte_fallback": False,
                     "vocab": json.load(open(fx + "/byte-bpe-vocab.json")), "merges": merges}},
          open(work + "/bpe.json", "w"), ensure_ascii=False)
EOF
  cat > "$work/bench.mjs" <<EOF
import { Tokenizer } from "$TOKENIZERS_JS";
import fs from "fs";
const text = fs.readFileSync("$work/text.txt", "utf8");
for (const name of ["wordpiece", "bpe"]) {
  const tok = new Tokenizer(JSON.parse(fs.readFileSync("$work/" + name + ".json", "utf8")), {});
  const times = [];
  let n = 0;
  for (let r = 0; r < 20; r++) {
    const t0 = process.hrtime.bigint();
    n = tok.encode(text).ids.length;
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const warm = times.slice(1).sort((a, b) => a - b);
  console.log(name + " " + n + " " + times[0].toFixed(2) + " " + warm[Math.floor(warm.length / 2)].toFixed(2));
}
EOF
  node "$work/bench.mjs" > "$work/js.txt"
  "$driver" "$fixtures/bert-base-uncased-vocab.txt" "$work/text.txt" > "$work/c-wp.txt"
  "$driver" "$fixtures/byte-bpe-vocab.json" "$work/text.txt" > "$work/c-bpe.txt"
  for kind in wordpiece bpe; do
    file=$([ $kind = wordpiece ] && echo "$work/c-wp.txt" || echo "$work/c-bpe.txt")
    c_ms=$(sed 's/.*median *\([0-9.]*\) ms.*/\1/' "$file")
    c_n=$(awk '{print $4}' "$file")
    set -- $(grep "^$kind " "$work/js.txt")
    echo "$kind: Poslens $c_ms ms ($c_n tokens), tokenizers.js $4 ms ($2 tokens): tokenizers.js / Poslens = $(echo "$4 $c_ms" | awk '{printf "%.1f", $1 / $2}')"
  done
else
  echo "(set TOKENIZERS_JS to @huggingface/tokenizers' dist/tokenizers.mjs to compare with tokenizers.js)"
fi
