#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check the Flatpak manifest without building it (no network here), and that
the metainfo's screenshots are in the repository.

Usage: test-flatpak.py MANIFEST APP_ID SOURCE_ROOT BUILD_ROOT
Prints TAP.
"""

import json
import os
import re
import sys

results = []


def check(ok, what, detail=''):
    results.append((bool(ok), what, detail, False))


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError('duplicate keys: ' + ', '.join(sorted(dup)))
    return dict(pairs)


def main():
    manifest_path, app_id, source_root, build_root = sys.argv[1:5]
    manifest_dir = os.path.dirname(os.path.abspath(manifest_path))

    try:
        with open(manifest_path, encoding='utf-8') as f:
            m = json.load(f, object_pairs_hook=no_duplicates)
        check(True, 'manifest is strict JSON')
    except (OSError, ValueError) as e:
        print('1..1\nnot ok 1 - manifest is strict JSON # ' + str(e))
        return 1

    mid = m.get('id', m.get('app-id'))
    check(mid == app_id, 'id is the app id', f'{mid!r} != {app_id!r}')
    stem = os.path.basename(manifest_path)[:-len('.json')]
    check(stem == mid, 'file is named after the id', f'{stem!r} vs {mid!r}')

    check(m.get('runtime') == 'org.gnome.Platform', 'runtime is org.gnome.Platform')
    check(m.get('sdk') == 'org.gnome.Sdk', 'sdk is org.gnome.Sdk')
    rv = str(m.get('runtime-version', ''))
    check(re.fullmatch(r'\d+', rv) and int(rv) >= 47, 'runtime-version is a GNOME release >= 47', rv)

    # command must be the app's executable
    app_meson = os.path.join(source_root, 'src', 'app', 'meson.build')
    try:
        text = open(app_meson, encoding='utf-8').read()
    except OSError:
        text = ''
    check(m.get('command') == 'poslens', 'command is poslens', str(m.get('command')))
    check(re.search(r"executable\(\s*'poslens'", text), 'src/app/meson.build builds the poslens executable',
          'no executable(\'poslens\' ...) yet')

    wanted = {'--share=ipc', '--socket=fallback-x11', '--socket=wayland', '--device=dri'}
    fa = m.get('finish-args', [])
    check(len(fa) == len(set(fa)), 'finish-args have no duplicates')
    check(set(fa) == wanted, 'finish-args are exactly the minimal set',
          'extra: %s missing: %s' % (sorted(set(fa) - wanted), sorted(wanted - set(fa))))
    check(not any(a.startswith('--filesystem') for a in fa), 'no filesystem access (files come through the portal)')

    modules = m.get('modules', [])
    names = [mod.get('name') if isinstance(mod, dict) else mod for mod in modules]
    check(all(isinstance(mod, dict) for mod in modules), 'modules are inline (nothing to fetch unpinned)')
    check(names[:1] != [] and names[-1] == 'poslens', 'poslens is the last module', str(names))
    for dep in ('openblas', 'hdf5'):
        check(dep in names and names.index(dep) < len(names) - 1, f'{dep} is built before poslens', str(names))

    hexre = re.compile(r'[0-9a-f]{64}')
    for i, mod in enumerate(m for m in modules if isinstance(m, dict)):
        last = i == len(modules) - 1
        srcs = mod.get('sources', [])
        check(srcs, f'module {mod.get("name")} has sources')
        for s in srcs:
            t = s.get('type')
            label = f'{mod.get("name")}: {t} source {s.get("url", s.get("path", ""))}'
            if t in ('archive', 'file'):
                check(str(s.get('url', '')).startswith('https://'), label + ' is fetched over HTTPS')
                check(hexre.fullmatch(str(s.get('sha256', ''))), label + ' is pinned by sha256')
            elif t == 'git':
                check(re.fullmatch(r'[0-9a-f]{40}', str(s.get('commit', ''))), label + ' is pinned to a commit')
            elif t == 'dir':
                root = os.path.realpath(os.path.join(manifest_dir, s.get('path', '')))
                check(last, label + ' only in the last module')
                check(root == os.path.realpath(source_root), label + ' is the source tree', root)
            elif t in ('patch', 'shell'):
                check('path' in s or 'commands' in s, label + ' is local')
            else:
                check(False, label + ' has a known, pinned type')
    if modules and isinstance(modules[-1], dict):
        check(modules[-1].get('buildsystem') == 'meson', 'poslens builds with meson')

    # Nothing may clean away Poslens' own data (demo models, schema, icons).
    cleanups = list(m.get('cleanup', []))
    for mod in modules:
        if isinstance(mod, dict) and mod.get('name') == 'poslens':
            cleanups += mod.get('cleanup', [])
    bad = [c for c in cleanups if c in ('/share', '/share/poslens', '/share/glib-2.0', '/share/icons') or
           c.startswith('/share/poslens')]
    check(not bad, 'cleanup keeps /app/share/poslens, schemas and icons', str(bad))

    # The demo checkpoints ship with the app: `meson install` (what the meson
    # module runs) installs them.
    installed_json = os.path.join(build_root, 'meson-info', 'intro-installed.json')
    try:
        installed = json.load(open(installed_json, encoding='utf-8'))
    except (OSError, ValueError) as e:
        installed = {}
        check(False, 'meson-info/intro-installed.json readable', str(e))
    dests = [d.replace(os.sep, '/') for d in installed.values()]
    for demo, weights in (('mini-gpt2', 'tf_model.h5'), ('mini-bert', 'tf_model.h5'),
                          ('mini-roberta', 'tf_model.h5'), ('mini-vit', 'model.safetensors')):
        check(os.path.isfile(os.path.join(source_root, 'data', 'demo', demo, weights)),
              f'demo {demo} is in the source tree')
        check(any(d.endswith('/poslens/demo/' + demo) or ('/poslens/demo/' + demo + '/') in d for d in dests),
              f'meson install puts demo {demo} under pkgdatadir/demo')

    # The metainfo's screenshots point into the repository (data/screenshots,
    # made by build-aux/screenshot.sh): each must be there once any is.
    metainfo = os.path.join(source_root, 'data', 'org.poslens.Poslens.metainfo.xml.in')
    shots = re.findall(r'<image>[^<]*/-/raw/[^/<]+/(data/screenshots/[^<]+)</image>', open(metainfo, encoding='utf-8').read())
    check(shots, 'the metainfo has screenshots from data/screenshots')
    have_dir = os.path.isdir(os.path.join(source_root, 'data', 'screenshots'))
    for shot in shots:
        present = os.path.isfile(os.path.join(source_root, shot))
        results.append((present, f'screenshot {shot} is in the repository',
                        '' if have_dir else 'build-aux/screenshot.sh has not been run yet', not have_dir))

    print(f'1..{len(results)}')
    failed = 0
    for n, (ok, what, detail, todo) in enumerate(results, 1):
        print(('ok' if ok else 'not ok') + f' {n} - {what}' + (f' # TODO {detail}' if todo and not ok else ''))
        if not ok and not todo:
            failed += 1
            if detail:
                print('# ' + detail)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
