#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# poslens-cli under valgrind's memcheck over the fixtures and over damaged
# files: every command on every demo checkpoint and the fixture
# files, and `info` on the fuzz targets' seeds and regressions. Fails on any
# invalid read or write, use of uninitialised memory, or definite leak.
#   tests/valgrind-cli.sh [BUILD_DIR]     (default _build; a build without sanitizers)
# Not part of the test suite: valgrind makes each run 20-50 times slower.
set -u

cd "$(dirname "$0")/.."
build_dir="${1:-_build}"
cli="$build_dir/src/cli/poslens-cli"
[ -x "$cli" ] || { echo "build $cli first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }

out=$(mktemp -d /tmp/poslens-valgrind-XXXXXX)
trap 'rm -rf "$out"' EXIT
export OPENBLAS_NUM_THREADS=1 G_SLICE=always-malloc
failed=0
runs=0

# Runs the CLI under memcheck; EXPECT is the exit status it must give (0
# for good input, 2 for an unusable file).
check () {
  expect=$1; shift
  runs=$((runs + 1))
  log="$out/log"
  valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --suppressions=tests/sanitizers/valgrind.supp \
    --log-file="$log" "$cli" "$@" > "$out/stdout" 2> "$out/stderr"
  status=$?
  if [ "$status" -ne "$expect" ]; then
    failed=$((failed + 1))
    echo "not ok $runs poslens-cli $* (exit $status, expected $expect)"
    sed 's/^/#   /' "$log" "$out/stderr" | head -40
  else
    echo "ok $runs poslens-cli $*"
  fi
}

# Every command once, on both file formats; `info` on every layout.
for model in data/demo/mini-gpt2 data/demo/mini-bert data/demo/mini-roberta \
             tests/fixtures/mini-gpt2/model.safetensors; do
  check 0 info "$model"
done
for model in data/demo/mini-roberta tests/fixtures/mini-gpt2/model.safetensors; do
  check 0 similarity "$model" --metric l2 --center --out "$out/s.csv"
  check 0 pca "$model" --out "$out/p.h5"
  check 0 probe "$model" --pairs 64
done
check 0 similarity tests/fixtures/sinusoid-512x768.h5 --dataset /position_embeddings --rows 0:64 --out "$out/s.png"
check 0 pca builtin:sinusoidal:128x64 --out "$out/p.svg"
check 0 tokenize data/demo/mini-bert --text "Hello, wörld! 你好"
check 0 forward data/demo/mini-gpt2 --text "Position embeddings" --out "$out/f.h5"
check 0 attention data/demo/mini-roberta --sequences 1 --length 8 --out "$out/a.h5"

# Damaged files: a clear error (exit 2), and nothing else.
mkdir -p "$out/bad"
for f in tests/fuzz/corpus/hdf5/*; do
  cp "$f" "$out/bad/tf_model.h5"
  check 0 info "$out/bad/tf_model.h5"
done
for f in tests/fuzz/regressions/hdf5/*; do
  cp "$f" "$out/bad/tf_model.h5"
  check 2 info "$out/bad/tf_model.h5"
done
printf '\377\377\377\377\377\377\377\377{' > "$out/bad/model.safetensors"
check 2 info "$out/bad/model.safetensors"
head -c 300 tests/fuzz/corpus/safetensors/gpt2-f32 > "$out/bad/model.safetensors"
check 2 info "$out/bad/model.safetensors"
rm "$out/bad/model.safetensors"
head -c 4000 tests/fuzz/corpus/hdf5/tf-gpt2 > "$out/bad/tf_model.h5"
check 2 info "$out/bad/tf_model.h5"
printf '{"model_type": "gpt2", "n_head": "four"' > "$out/bad/config.json"
cp tests/fuzz/corpus/hdf5/tf-gpt2 "$out/bad/tf_model.h5"
check 2 info "$out/bad"

# PyTorch: every layout read, every hostile fixture refused.
for model in tests/fixtures/pytorch/bert-zip tests/fixtures/pytorch/bert-legacy tests/fixtures/pytorch/bert-sharded \
             tests/fixtures/pytorch/views.pt tests/fixtures/pytorch/views-legacy.pt tests/fixtures/pytorch/train.pth; do
  check 0 check "$model"
done
check 0 similarity tests/fixtures/pytorch/gpt2-f16 --out "$out/s.csv"
check 0 forward tests/fixtures/pytorch/llama-bf16 --ids 1,5,7,3 --out "$out/f.h5"
for f in tests/fixtures/pytorch/hostile/*; do
  check 2 check "$f"
done

echo "1..$runs"
echo "$((runs - failed)) clean, $failed failed"
[ "$failed" -eq 0 ]
