#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Translations: POTFILES.in complete, catalogues valid, complete and loadable.

Usage: test-po.py SOURCE_ROOT BUILD_ROOT
Prints TAP. German is kept complete: a string without its translation fails.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# What xgettext extracts (meson's "glib" preset) and what GtkBuilder marks.
MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|Q_|g_dngettext|g_dpgettext2|ngettext)\s*\(|translatable="yes"')
SCANNED_DIRS = ('src', 'ui')
SCANNED_EXT = ('.c', '.h', '.ui')
XGETTEXT_ARGS = [
    '--from-code=UTF-8', '--add-comments=Translators',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2', '--keyword=Q_:1g',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format', '--flag=g_printf:1:c-format',
    '--flag=g_fprintf:2:c-format', '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
]

results = []


def check(ok, what, detail=''):
    results.append((bool(ok), what, detail))


def read_potfiles(source_root):
    entries = []
    with open(os.path.join(source_root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                entries.append(line)
    return entries


def files_with_strings(source_root):
    found = []
    for top in SCANNED_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SCANNED_EXT):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    text = open(path, encoding='utf-8', errors='replace').read()
                except OSError:
                    continue
                # Ignore the markers in comments: /* _("x") */ is not a string.
                code = re.sub(r'/\*.*?\*/|//[^\n]*|<!--.*?-->', '', text, flags=re.S)
                if MARKERS.search(code):
                    found.append(os.path.relpath(path, source_root))
    return found


# Properties and elements of GtkBuilder files that a user reads.
UI_VISIBLE_PROPERTIES = {
    'label', 'title', 'subtitle', 'tooltip-text', 'tooltip-markup', 'placeholder-text', 'description',
    'heading', 'body', 'text', 'secondary-text', 'comments', 'copyright', 'application-name',
}
UI_VISIBLE_ELEMENTS = {'item', 'response'}
# GTK/libadwaita/GIO calls whose string arguments a user reads.
C_VISIBLE_CALLS = [
    'gtk_label_new', 'gtk_label_set_text', 'gtk_label_set_label', 'gtk_label_set_markup',
    'gtk_button_new_with_label', 'gtk_button_new_with_mnemonic', 'gtk_button_set_label',
    'gtk_check_button_new_with_label', 'gtk_check_button_set_label', 'gtk_window_set_title',
    'gtk_widget_set_tooltip_text', 'gtk_widget_set_tooltip_markup', 'gtk_file_filter_set_name',
    'gtk_file_chooser_native_new', 'gtk_file_dialog_set_title', 'gtk_file_dialog_set_accept_label',
    'gtk_string_list_append', 'gtk_entry_set_placeholder_text', 'gtk_text_set_placeholder_text',
    'adw_toast_new', 'adw_toast_set_title', 'adw_toast_set_button_label',
    'adw_status_page_set_title', 'adw_status_page_set_description',
    'adw_window_title_new', 'adw_window_title_set_title', 'adw_window_title_set_subtitle',
    'adw_preferences_row_set_title', 'adw_action_row_set_subtitle', 'adw_expander_row_set_subtitle',
    'adw_preferences_group_set_title', 'adw_preferences_group_set_description',
    'adw_preferences_page_set_title', 'adw_message_dialog_new', 'adw_message_dialog_set_heading',
    'adw_message_dialog_set_body', 'adw_message_dialog_format_heading', 'adw_message_dialog_format_body',
    'adw_message_dialog_add_response', 'adw_view_stack_add_titled', 'adw_tab_page_set_title',
    'adw_combo_row_set_title', 'g_menu_append', 'g_menu_item_new', 'g_menu_insert', 'g_menu_prepend',
]
GETTEXT_CALLS = {'_', 'N_', 'C_', 'NC_', 'Q_', 'gettext', 'ngettext', 'g_dgettext', 'g_dngettext',
                 'g_dpgettext2', 'dgettext', 'g_strip_context'}


def reads_as_words(text):
    """Text a translator would translate: has lower-case letters and is not an identifier
    (action names like "win.export", response ids like "cancel")."""
    text = text.strip()
    if not re.search(r'[a-z]', text):
        return False  # acronyms (PNG), numbers, symbols
    if re.fullmatch(r'[a-z0-9_.:-]+', text):
        return False
    return True


def untranslated_ui_strings(path, rel):
    import xml.etree.ElementTree as ET
    found = []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return [f'{rel}: not well-formed XML ({e})']
    for el in root.iter():
        name = el.get('name')
        visible = ((el.tag == 'property' and name in UI_VISIBLE_PROPERTIES) or
                   (el.tag == 'attribute' and name == 'label') or
                   (el.tag in UI_VISIBLE_ELEMENTS and len(el) == 0))
        if visible and el.text and reads_as_words(el.text) and el.get('translatable') not in ('yes', 'true', '1'):
            found.append(f'{rel}: <{el.tag}{" name=" + repr(name) if name else ""}>{el.text.strip()[:40]}')
    return found


def untranslated_c_strings(path, rel):
    text = open(path, encoding='utf-8', errors='replace').read()
    code = re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
    token = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[()]|.', re.S)
    found = []
    for m in re.finditer(r'\b(' + '|'.join(C_VISIBLE_CALLS) + r')\s*\(', code):
        stack = [m.group(1)]
        last_ident = None
        pos = m.end()
        while stack and pos < len(code):
            t = token.match(code, pos)
            pos = t.end()
            tok = t.group(0)
            if tok == '(':
                stack.append(last_ident)
                last_ident = None
            elif tok == ')':
                stack.pop()
            elif tok.startswith('"'):
                if reads_as_words(tok[1:-1]) and not (GETTEXT_CALLS & set(stack)):
                    line = code.count('\n', 0, t.start()) + 1
                    found.append(f'{rel}:{line}: {m.group(1)} ({tok[:40]})')
            elif not tok.isspace():
                last_ident = tok if re.match(r'[A-Za-z_]', tok) else None
    return found


def untranslated_strings(source_root):
    found = []
    for top in SCANNED_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, source_root)
                if name.endswith('.ui'):
                    found += untranslated_ui_strings(path, rel)
                elif name.endswith('.c') and rel.startswith(os.path.join('src', 'app')):
                    found += untranslated_c_strings(path, rel)
    return found


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


def main():
    source_root, build_root = (os.path.abspath(p) for p in sys.argv[1:3])
    potfiles = read_potfiles(source_root)
    linguas = open(os.path.join(source_root, 'po', 'LINGUAS'), encoding='utf-8').read().split()

    # (a) POTFILES.in complete, sorted, and every entry exists.
    missing = [f for f in files_with_strings(source_root) if f not in potfiles]
    check(not missing, 'every file under src/ and ui/ with translatable strings is in po/POTFILES.in',
          'missing: ' + ', '.join(missing))
    plain = untranslated_strings(source_root)
    check(not plain, 'every user-visible string in ui/*.ui and the window code (src/app) is marked translatable',
          '\n'.join(plain[:20]))
    gone = [f for f in potfiles if not os.path.isfile(os.path.join(source_root, f))]
    check(not gone, 'every file in po/POTFILES.in exists', 'gone: ' + ', '.join(gone))
    check(potfiles == sorted(potfiles), 'po/POTFILES.in is sorted')
    check('de' in linguas, 'German is in po/LINGUAS')

    tools = {t: shutil.which(t) for t in ('xgettext', 'msgfmt', 'gettext')}
    absent = [t for t, p in tools.items() if not p]
    if absent:
        check(False, 'gettext tools are installed', 'missing: ' + ', '.join(absent))
        return report()

    with tempfile.TemporaryDirectory() as tmp:
        # The template as it is now, from the files listed.
        pot = os.path.join(tmp, 'poslens.pot')
        existing = [f for f in potfiles if f not in gone]
        r = run(['xgettext', '--package-name=poslens', '--directory=' + source_root, '--output=' + pot]
                + XGETTEXT_ARGS + existing)
        check(r.returncode == 0, 'xgettext extracts the template', r.stderr.strip())
        template = {key(e) for e in parse_po(pot)} if r.returncode == 0 else set()
        check(len(template) > 0, 'the template has messages', str(len(template)))

        for lang in linguas:
            po = os.path.join(source_root, 'po', lang + '.po')
            # (b) the catalogue compiles with all checks (format strings, headers, accelerators).
            r = run(['msgfmt', '--check', '--check-accelerators=_', '--statistics', '-o', os.devnull, po])
            check(r.returncode == 0, f'{lang}.po compiles with msgfmt --check', r.stderr.strip())
            print(f'# {lang}.po: {r.stderr.strip()}')
            entries = parse_po(po)
            fuzzy = [e['id'] for e in entries if e['fuzzy']]
            check(not fuzzy, f'{lang}.po has no fuzzy translations', f'{len(fuzzy)} fuzzy: ' + '; '.join(fuzzy[:5]))

            # Translations of markup must stay markup GTK can parse.
            broken = [e['id'][:50] for e in entries if markup_ok(e['id']) is True and
                      any(markup_ok(t) is False for t in e['strs'].values() if t)]
            check(not broken, f'{lang}.po keeps the Pango markup of marked-up messages well-formed', '; '.join(broken[:5]))

            # Complete: every message of the current template translated.
            translated = translated_keys(entries)
            untranslated = sorted(k[1] for k in template - translated)
            check(not untranslated, f'{lang}.po translates every message of the current template',
                  f'{len(untranslated)} new or changed: ' + '; '.join(m[:60] for m in untranslated[:8]))

        # (c) the compiled German catalogue is loaded when the locale asks for it.
        mo_dir = os.path.join(build_root, 'po')
        mo = os.path.join(mo_dir, 'de', 'LC_MESSAGES', 'poslens.mo')
        check(os.path.isfile(mo), 'the build compiles po/de/LC_MESSAGES/poslens.mo', mo)
        samples = [(m, t) for m, t in po_pairs(os.path.join(source_root, 'po', 'de.po')) if m and t and m != t]
        env = dict(os.environ, LANGUAGE='de', LC_ALL='C.UTF-8', TEXTDOMAINDIR=mo_dir)
        wrong = []
        for msgid, msgstr in samples:
            out = run(['gettext', '-d', 'poslens', '-e', '--', msgid], env=env).stdout
            if out != msgstr:
                wrong.append(f'{msgid[:40]!r} -> {out[:40]!r}')
        check(samples and not wrong, f'LANGUAGE=de LC_ALL=C.UTF-8 loads all {len(samples)} German strings from the build',
              '; '.join(wrong[:5]))
        env_c = dict(env, LANGUAGE='', LC_ALL='C.UTF-8')
        if samples:
            out = run(['gettext', '-d', 'poslens', '--', samples[0][0]], env=env_c).stdout
            check(out == samples[0][0], 'without LANGUAGE=de the English original is shown')

        # The merged desktop file and metainfo carry German.
        data_dir = os.path.join(build_root, 'data')
        built = sorted(os.listdir(data_dir)) if os.path.isdir(data_dir) else []
        desktop = [f for f in built if f.endswith('.desktop')]
        dtext = ''.join(open(os.path.join(build_root, 'data', f), encoding='utf-8').read() for f in desktop)
        check('Comment[de]=' in dtext, 'the built desktop file has a German comment')
        metainfo = [f for f in built if f.endswith('.metainfo.xml')]
        mtext = ''.join(open(os.path.join(build_root, 'data', f), encoding='utf-8').read() for f in metainfo)
        check('xml:lang="de"' in mtext, 'the built metainfo has German text')

    return report()


def unescape(s):
    return re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t', 'r': '\r'}.get(m.group(1), m.group(1)), s)


def parse_po(path):
    """Entries of a PO file or template: dicts with ctxt, id, plural, strs, fuzzy (obsolete ones dropped)."""
    entries, cur, field = [], None, None

    def flush():
        if cur is not None and cur.get('id') is not None:
            entries.append(cur)

    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.strip()
            if line.startswith('#~') or not line:
                if not line:
                    flush()
                    cur, field = None, None
                continue
            if cur is None:
                cur = {'ctxt': None, 'id': None, 'plural': None, 'strs': {}, 'fuzzy': False}
            if line.startswith('#,'):
                cur['fuzzy'] = cur['fuzzy'] or 'fuzzy' in line
                continue
            if line.startswith('#'):
                continue
            m = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"(.*)"$', line)
            if m:
                key, idx, text = m.group(1), m.group(2), unescape(m.group(3))
                if key == 'msgctxt':
                    field = ('ctxt', None)
                elif key == 'msgid':
                    field = ('id', None)
                elif key == 'msgid_plural':
                    field = ('plural', None)
                else:
                    field = ('strs', int(idx or 0))
            elif line.startswith('"') and field:
                text = unescape(line[1:-1])
            else:
                continue
            name, idx = field
            if name == 'strs':
                cur['strs'][idx] = cur['strs'].get(idx, '') + text if m is None else text
            else:
                cur[name] = (cur[name] or '') + text if m is None else text
    flush()
    return [e for e in entries if e['id'] != '' or e['ctxt'] is not None]


def markup_ok(text):
    """True when text has tags and is well-formed, False when it has tags and is not, None without tags."""
    import xml.etree.ElementTree as ET
    if not re.search(r'</?[a-z]+[ >]', text):
        return None
    try:
        ET.fromstring('<markup>' + text + '</markup>')
        return True
    except ET.ParseError:
        return False


def key(e):
    return (e['ctxt'], e['id'], e['plural'])


def translated_keys(entries):
    return {key(e) for e in entries if not e['fuzzy'] and e['strs'] and all(e['strs'].values())}


def po_pairs(path):
    """(msgid, msgstr) of translated singular, non-fuzzy, context-free messages."""
    return [(e['id'], e['strs'][0]) for e in parse_po(path)
            if not e['fuzzy'] and e['ctxt'] is None and e['plural'] is None and e['strs'].get(0)]


def report():
    print(f'1..{len(results)}')
    failed = 0
    for n, (ok, what, detail) in enumerate(results, 1):
        print(('ok' if ok else 'not ok') + f' {n} - {what}')
        if not ok:
            failed += 1
            if detail:
                print('# ' + detail.replace('\n', '\n# '))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
