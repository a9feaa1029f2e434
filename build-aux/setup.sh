#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sets Poslens up on Debian 12 / Ubuntu and then runs it or its tests:
#   ./build-aux/setup.sh run     install what is missing, build, start the app on its demo models
#   ./build-aux/setup.sh test    install what is missing, build, run every test
#   ./build-aux/setup.sh sanitize   the same tests built with AddressSanitizer and
#                                UBSan in _build-sanitize (slower: not part of test)
# Arguments after test or sanitize go to meson test (e.g. --no-suite install).
# Both are idempotent: the second time they only rebuild what changed.
set -eu

cd "$(dirname "$0")/.."
mode="${1:-run}"
[ $# -eq 0 ] || shift
build_dir="${POSLENS_BUILD_DIR:-_build}"

# What building and running needs, and what the tests need on top.
build_packages="build-essential meson ninja-build pkg-config gettext libglib2.0-dev
  libgtk-4-dev libadwaita-1-dev libhdf5-dev libopenblas-dev liblapacke-dev libjson-glib-dev libpng-dev
  desktop-file-utils appstream fonts-cantarell"
test_packages="xvfb xauth dbus librsvg2-bin poppler-utils libpoppler-glib-dev hdf5-tools"

case "$mode" in
  run) packages="$build_packages" ;;
  test|sanitize) packages="$build_packages $test_packages" ;;
  *) echo "usage: $0 run|test|sanitize" >&2; exit 1 ;;
esac

# Sanitizers: any leak, invalid access or undefined behaviour fails its test;
# suppressions only for system libraries' one-time caches.
setup_args=""
if [ "$mode" = sanitize ]; then
  build_dir="${POSLENS_SANITIZE_BUILD_DIR:-_build-sanitize}"
  setup_args="-Db_sanitize=address,undefined -Db_lundef=false"
  export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:print_summary=1"
  export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
  # The tests draw with cairo; Mesa's GL driver, loaded and unloaded at
  # display start, leaks where no suppression can name it.
  export GDK_DEBUG=gl-disable
fi

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
  # shellcheck disable=SC2086
  meson setup "$build_dir" $setup_args
elif [ -n "$missing" ]; then
  # A build configured before these were installed looks for them again
  # (the figure-layout test reads PDF with poppler-glib).
  meson setup --reconfigure "$build_dir" >/dev/null
fi
ninja -C "$build_dir"

if [ "$mode" = run ]; then
  exec "$build_dir/src/app/poslens"
fi

# The window tests need a display and a session bus: give them private ones
# when there is none (CI, a console).
set -- meson test -C "$build_dir" --print-errorlogs --num-processes 2 "$@"
if [ "$mode" = sanitize ]; then
  # The install test builds the tree again, without sanitizers.
  set -- "$@" --no-suite install --timeout-multiplier 4
fi
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
