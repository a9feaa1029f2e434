#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds the libFuzzer targets (clang, AddressSanitizer + UBSan) in
# _build-fuzz and runs one of them for a while on a copy of its seed corpus:
#   build-aux/fuzz.sh TARGET [SECONDS] [extra libFuzzer options]
# TARGET: safetensors, hdf5, config, model, tokenizer, unigram, pickle, pytorch or gguf.
# SECONDS defaults to 60. Inputs are mutated with
# tests/fuzz/dictionaries/TARGET.dict where there is one.
# Crashes are written to _build-fuzz/findings/TARGET/; keep each one, once
# fixed, as tests/fuzz/regressions/TARGET/<name>: the normal test suite
# replays it (fuzz-replay-TARGET).
set -eu

cd "$(dirname "$0")/.."
target="${1:?usage: $0 safetensors|hdf5|config|model|tokenizer|unigram|pickle|pytorch|gguf [SECONDS]}"
seconds="${2:-60}"
[ $# -ge 2 ] && shift 2 || shift $#
build_dir="${POSLENS_FUZZ_BUILD_DIR:-_build-fuzz}"

if ! command -v clang >/dev/null; then
  echo "fuzzing needs clang with libFuzzer: apt-get install clang" >&2
  exit 1
fi
if [ ! -f "$build_dir/build.ninja" ]; then
  CC=clang CFLAGS="-fsanitize=fuzzer-no-link" \
    meson setup "$build_dir" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$build_dir" -j 2 "tests/fuzz/fuzz-$target"

work="$build_dir/fuzz-corpus/$target"
findings="$build_dir/findings/$target"
mkdir -p "$work" "$findings"
# Leaks are checked by the ASan test suite; here they would stop the run on
# GLib's and HDF5's one-time allocations.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# libhdf5 allocates what a damaged object header claims (GBs) before it
# reads and rejects it; untouched, such memory costs nothing: only the RSS
# limit applies to that target.
# Claims beyond memory fail in malloc, which libhdf5 handles: let ASan's
# malloc return NULL as glibc's does.
malloc_limit=2048
if [ "$target" = hdf5 ]; then
  malloc_limit=65536
  ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1"
fi
# A target's dictionary (tests/fuzz/dictionaries/TARGET.dict), when it has one.
dict=""
[ -f "tests/fuzz/dictionaries/$target.dict" ] && dict="-dict=tests/fuzz/dictionaries/$target.dict"
exec "$build_dir/tests/fuzz/fuzz-$target" "$work" "tests/fuzz/corpus/$target" $dict \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -malloc_limit_mb="$malloc_limit" \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@"
