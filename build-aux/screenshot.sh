#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Takes the README's and the metainfo's screenshots of the real app in a real
# window, under a private Xvfb: ./build-aux/screenshot.sh [OUT_DIR]
# Needs xvfb, imagemagick and xdotool (apt-get install xvfb imagemagick xdotool).
set -eu
cd "$(dirname "$0")/.."
build_dir="${POSLENS_BUILD_DIR:-_build}"
out="${1:-data/screenshots}"
mkdir -p "$out"

display=":$(( 90 + $$ % 9 ))"
Xvfb "$display" -screen 0 1400x900x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1

# shot NAME VIEW [ARGS…]; KEYS, when set, are typed into the window first
# (the probes' Alt+R runs them), then it waits AFTER_KEYS seconds more.
shot() {
  name="$1"; view="$2"; shift 2
  DISPLAY="$display" GTK_A11Y=none GSETTINGS_BACKEND=memory \
    GSETTINGS_SCHEMA_DIR="$build_dir/data" \
    "$build_dir/src/app/poslens" --view "$view" "$@" &
  app=$!
  sleep "${POSLENS_SCREENSHOT_WAIT:-6}"
  window=$(DISPLAY="$display" xdotool search --onlyvisible --name '^Poslens' | head -n 1)
  if [ -n "${KEYS:-}" ] && [ -n "$window" ]; then
    DISPLAY="$display" xdotool windowfocus --sync "$window" key $KEYS
    sleep "${AFTER_KEYS:-30}"
  fi
  DISPLAY="$display" import -window "${window:-root}" "$out/$name.png"
  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  echo "$out/$name.png"
}

shot similarity similarity
shot trajectory trajectory
POSLENS_SCREENSHOT_WAIT=60 shot attention attention
KEYS=alt+r shot probes probes
unset KEYS
shot compare compare
shot playground playground
shot patches patches data/demo/mini-vit
