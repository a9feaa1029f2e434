#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs a command beside N processes that each keep a processor busy, as on
# a machine shared with other work, and exits with the command's status:
#   ./build-aux/busy.sh N COMMAND [ARGUMENT…]
# The CI runs the test suite a second time this way (.ci/run): tests wait
# for the events they test, never a time, so they pass however slow the
# machine is.
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 N COMMAND [ARGUMENT...]" >&2
  exit 1
fi
n="$1"
shift

pids=""
stop_busy () {
  # shellcheck disable=SC2086
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
}
trap stop_busy EXIT INT TERM
i=0
while [ "$i" -lt "$n" ]; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done

status=0
"$@" || status=$?
exit "$status"
