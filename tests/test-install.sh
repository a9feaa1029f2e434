#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `meson install` into a temporary prefix gives a working app.
#
# Usage: test-install.sh SOURCE_ROOT APP_ID
#
# The binaries have the prefix compiled in (DEMO_DIR_INSTALLED, LOCALEDIR), so
# a DESTDIR copy of the test build would still look in /usr/local. Instead
# this configures a second build of the same tree with --prefix=<tmp>/prefix,
# builds only what is installed, installs it (post-install scripts included,
# as for a user), and then runs the installed poslens-cli and poslens from
# there, with nothing pointing back into the source or build tree. Prints TAP.
set -u

src=$(cd "$1" && pwd)
app_id=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poslens-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix="$tmp/prefix"
build="$tmp/build"
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip () { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check () { what=$1; shift; if out=$("$@" 2>&1); then ok "$what"; else not_ok "$what" "$(printf '%s' "$out" | tail -n 8 | tr '\n' '|')"; fi; }
finish () { echo "1..$n"; [ "$failed" -eq 0 ]; exit $?; }

# Nothing from the test run's environment may help the installed binaries.
unset POSLENS_DEMO_DIR POSLENS_CLI GSETTINGS_SCHEMA_DIR G_TEST_SRCDIR G_TEST_BUILDDIR
export GSETTINGS_BACKEND=memory

development=false
case "$app_id" in *.Devel) development=true ;; esac

if ! meson setup "$build" "$src" --prefix="$prefix" -Dbuildtype=plain -Ddevelopment="$development" \
     >"$tmp/setup.log" 2>&1; then
  not_ok "meson setup --prefix=<tmp>" "$(tail -n 5 "$tmp/setup.log" | tr '\n' '|')"
  finish
fi
ok "meson setup --prefix=<tmp>"

# Build only the installed targets (no tests, no benchmarks): half the time.
targets=$(meson introspect --targets "$build" | python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if t.get("installed"):
        for f in t["filename"]:
            print(os.path.relpath(f, build))
' "$build")
# shellcheck disable=SC2086
if ! ninja -C "$build" -j 2 $targets >"$tmp/build.log" 2>&1; then
  not_ok "build the installed targets" "$(grep -m 5 -E 'error|Error' "$tmp/build.log" | tr '\n' '|')"
  finish
fi
ok "build the installed targets"

if ! meson install -C "$build" --no-rebuild >"$tmp/install.log" 2>&1; then
  not_ok "meson install into <tmp>/prefix" "$(tail -n 5 "$tmp/install.log" | tr '\n' '|')"
  finish
fi
ok "meson install into <tmp>/prefix"

# As after a real install, the build tree is gone: the installed files must do.
rm -rf "$build"

share="$prefix/share"
bin="$prefix/bin"
for f in "$bin/poslens" "$bin/poslens-cli" \
         "$share/applications/$app_id.desktop" \
         "$share/metainfo/$app_id.metainfo.xml" \
         "$share/glib-2.0/schemas/$app_id.gschema.xml" \
         "$share/glib-2.0/schemas/gschemas.compiled" \
         "$share/icons/hicolor/scalable/apps/$app_id.svg" \
         "$share/icons/hicolor/symbolic/apps/$app_id-symbolic.svg" \
         "$share/locale/de/LC_MESSAGES/poslens.mo" \
         "$share/poslens/demo/mini-gpt2/tf_model.h5" "$share/poslens/demo/mini-gpt2/config.json" \
         "$share/poslens/demo/mini-bert/tf_model.h5" "$share/poslens/demo/mini-bert/config.json" \
         "$share/poslens/demo/mini-roberta/tf_model.h5" "$share/poslens/demo/mini-roberta/config.json" \
         "$share/poslens/demo/mini-vit/model.safetensors" "$share/poslens/demo/mini-vit/config.json"; do
  if [ -f "$f" ]; then ok "installed ${f#"$prefix"/}"; else not_ok "installed ${f#"$prefix"/}"; fi
done

# The installed demo folders are whole copies of the source ones (tokenizer files too).
for d in mini-gpt2 mini-bert mini-roberta mini-vit; do
  check "installed demo $d equals data/demo/$d" diff -r "$src/data/demo/$d" "$share/poslens/demo/$d"
done

if command -v desktop-file-validate >/dev/null; then
  check "installed desktop file validates" desktop-file-validate "$share/applications/$app_id.desktop"
else
  skip "installed desktop file validates" "no desktop-file-validate"
fi
if command -v appstreamcli >/dev/null; then
  check "installed metainfo validates" appstreamcli validate --no-net "$share/metainfo/$app_id.metainfo.xml"
else
  skip "installed metainfo validates" "no appstreamcli"
fi
check "installed schema compiles (--strict)" glib-compile-schemas --strict --dry-run "$share/glib-2.0/schemas"

# Every key the source schema declares, and no other.
expected=$(sed -n 's/.*<key name="\([a-z0-9-]*\)".*/\1/p' "$src"/data/*.gschema.xml.in | sort | tr '\n' ' ' | sed 's/ $//')
keys=$(gsettings --schemadir "$share/glib-2.0/schemas" list-keys "$app_id" 2>&1 | sort | tr '\n' ' ' | sed 's/ $//')
n_keys=$(echo "$expected" | wc -w)
if [ "$n_keys" -ge 20 ] && [ "$keys" = "$expected" ]; then
  ok "installed schema $app_id has the source schema's $n_keys keys"
else
  not_ok "installed schema $app_id has the source schema's $n_keys keys" "got: $keys" "want: $expected"
fi
dflt=$(gsettings --schemadir "$share/glib-2.0/schemas" get "$app_id" colormap 2>&1)
if [ "$dflt" = "'viridis'" ]; then ok "colormap defaults to viridis"; else not_ok "colormap defaults to viridis" "got: $dflt"; fi

# The installed binaries look for demo models in the installed prefix
# (DEMO_DIR_INSTALLED, compiled in; the source tree is only a fallback).
demo_dir="$share/poslens/demo"
if grep -a -q "$demo_dir" "$bin/poslens"; then ok "poslens has the installed demo dir compiled in"
else not_ok "poslens has the installed demo dir compiled in" "no $demo_dir in the binary"; fi
if grep -a -q "$demo_dir" "$bin/poslens-cli"; then ok "poslens-cli has the installed demo dir compiled in"
else skip "poslens-cli has the installed demo dir compiled in" "poslens-cli does not look up demo models"; fi

# Run the installed CLI from an unrelated directory.
cd "$tmp" || exit 1
check "installed poslens-cli --help" "$bin/poslens-cli" --help
# poslens-export runs where a model runs; its --help needs only Python.
if command -v python3 >/dev/null; then
  check "installed poslens-export --help" "$bin/poslens-export" --help
else
  skip "installed poslens-export --help" "no python3"
fi
help=$("$bin/poslens-cli" --help 2>&1)
if printf '%s\n' "$help" | grep -q '^  info '; then
  for d in mini-gpt2 mini-bert mini-roberta mini-vit; do
    check "installed poslens-cli info on installed demo $d" "$bin/poslens-cli" info "$demo_dir/$d"
  done
else
  skip "installed poslens-cli info on the installed demos" "poslens-cli has no info command yet"
fi

# The German catalogue is installed and loaded when the locale asks for it.
en=$(LANGUAGE= LC_ALL=C.UTF-8 "$bin/poslens-cli" --help 2>&1)
de=$(LANGUAGE=de LC_ALL=C.UTF-8 "$bin/poslens-cli" --help 2>&1)
if [ -n "$de" ] && [ "$de" != "$en" ]; then ok "LANGUAGE=de: installed poslens-cli --help is German"
else not_ok "LANGUAGE=de: installed poslens-cli --help is German" "$(printf '%s' "$de" | head -n 3 | tr '\n' '|')"; fi
probe=$(TEXTDOMAINDIR="$share/locale" LANGUAGE=de LC_ALL=C.UTF-8 gettext -d poslens "See what position embeddings learn")
if [ "$probe" != "See what position embeddings learn" ]; then ok "installed catalogue translates the summary: $probe"
else not_ok "installed catalogue translates the summary"; fi

# The installed app: --help needs no display; with one, it must start, find
# its schema through XDG_DATA_DIRS (as in a real /usr/local install), open the
# installed demo models and keep running.
check "installed poslens --help" "$bin/poslens" --help
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  tracer=""
  command -v strace >/dev/null && tracer="strace -f -qq -s 512 -e trace=open,openat,execve -o $tmp/trace"
  # A file of the user's: opened first by the installed poslens-cli beside the app.
  mkdir -p "$tmp/user"
  cp "$demo_dir/mini-gpt2/tf_model.h5" "$demo_dir/mini-gpt2/config.json" "$tmp/user/"
  # shellcheck disable=SC2086
  XDG_DATA_DIRS="$share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}" G_DEBUG=fatal-criticals GTK_A11Y=none \
    $tracer timeout 8 "$bin/poslens" "$tmp/user/tf_model.h5" >"$tmp/app.log" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ]; then ok "installed poslens runs for 8 s"
  else not_ok "installed poslens runs for 8 s" "exit $rc: $(tail -n 5 "$tmp/app.log" | tr '\n' '|')"; fi
  if grep -q "schema.*not installed" "$tmp/app.log"; then not_ok "installed poslens finds its settings schema" "$(grep -m 1 schema "$tmp/app.log")"
  else ok "installed poslens finds its settings schema"; fi
  if [ -n "$tracer" ]; then
    if grep -q "\"$demo_dir/mini-gpt2" "$tmp/trace"; then ok "installed poslens opens the installed demo models"
    else not_ok "installed poslens opens the installed demo models" "no open of $demo_dir/mini-gpt2"; fi
    if grep -q -e "\"$src/" -e "\"$build/" "$tmp/trace"; then
      not_ok "installed poslens reads nothing from the source or build tree" "$(grep -m 3 -e "\"$src/" -e "\"$build/" "$tmp/trace" | tr '\n' '|')"
    else ok "installed poslens reads nothing from the source or build tree"; fi
    if grep -q "execve(\"$bin/poslens-cli\", \\[\"$bin/poslens-cli\", \"check\", \"$tmp/user/tf_model.h5\"" "$tmp/trace"; then
      ok "installed poslens checks a user's file with the installed poslens-cli"
    else not_ok "installed poslens checks a user's file with the installed poslens-cli" "$(grep -m 3 execve "$tmp/trace" | tr '\n' '|')"; fi
    if grep -q "$share/glib-2.0/schemas/gschemas.compiled" "$tmp/trace"; then ok "the installed schemas are on the app's lookup path"
    else not_ok "the installed schemas are on the app's lookup path" "no open of $share/glib-2.0/schemas/gschemas.compiled"; fi
  else
    skip "installed poslens opens the installed demo models" "no strace"
  fi
else
  skip "installed poslens runs" "no display"
fi

finish
