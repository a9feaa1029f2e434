#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sets Poslens up on Debian 12 / Ubuntu and then runs it or its tests:
#   ./build-aux/setup.sh run     install what is missing, build, start the app on its demo models
#   ./build-aux/setup.sh test    install what is missing, build, run every test
# Both are idempotent: the second time they only rebuild what changed.
set -eu

cd "$(dirname "$0")/.."
mode="${1:-run}"
build_dir="${POSLENS_BUILD_DIR:-_build}"

# What building and running needs, and what the tests need on top.
build_packages="build-essential meson ninja-build pkg-config gettext libglib2.0-dev
  libgtk-4-dev libadwaita-1-dev libhdf5-dev libopenblas-dev liblapacke-dev libjson-glib-dev
  desktop-file-utils appstream fonts-cantarell"
test_packages="xvfb xauth dbus librsvg2-bin poppler-utils hdf5-tools"

case "$mode" in
  run) packages="$build_packages" ;;
  test) packages="$build_packages $test_packages" ;;
  *) echo "usage: $0 run|test" >&2; exit 1 ;;
esac

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "Installing:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  meson setup "$build_dir"
fi
ninja -C "$build_dir"

if [ "$mode" = run ]; then
  exec "$build_dir/src/app/poslens"
fi

# The window tests need a display and a session bus: give them private ones
# when there is none (CI, a console).
set -- meson test -C "$build_dir" --print-errorlogs --num-processes 2
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  set -- xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
fi
status=0
dbus-run-session -- "$@" || status=$?

# One closing line any CI reads: "N passed, N failed".
log="$build_dir/meson-logs/testlog.json"
if [ -f "$log" ]; then
  passed=$(grep -c '"result": "OK"' "$log" || true)
  skipped=$(grep -c '"result": "SKIP"' "$log" || true)
  failed=$(grep -c -E '"result": "(FAIL|ERROR|TIMEOUT|UNEXPECTEDPASS)"' "$log" || true)
  echo "$passed passed, $failed failed, $skipped skipped"
fi
exit $status
