#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time and peak memory of `poslens-cli check` on PyTorch files built to cost a reader out of proportion
to their size (issue 38), against the goal: peak resident memory at most 2 × the pickle's size + 64 MiB,
and an answer in seconds, whatever the file.

Writes the files with tests/fixtures/make-pytorch-hostile.py --scale full (about 400 MB: 1.5 MB to 250 MB
each) into a scratch folder, then runs `poslens-cli check` on each in a fresh process through GNU time
(%e seconds, %M peak RSS; a fork of this Python would count Python's pages), one at a time, and prints a
line per file: its size, exit status, seconds, peak MiB, the goal and whether it is met. A run past
--timeout seconds is stopped and reported as such.

  /usr/bin/python3 bench/bench-hostile-pickles.py BUILD_DIR [--folder DIR] [--timeout S] [NAME...]
"""

import argparse
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
MIB = 1 << 20


def pickle_size(path):
    """The bytes of the file's pickle: data.pkl in a zip, the whole file for a legacy one."""
    import zipfile
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            sizes = [i.file_size for i in z.infolist() if i.filename.endswith('/data.pkl')]
            if sizes:
                return sizes[0]
    return os.path.getsize(path)


def run(cli, path, timeout):
    with tempfile.NamedTemporaryFile('r') as out:
        try:
            proc = subprocess.run(['/usr/bin/time', '-f', '%e %M', '-o', out.name, cli, 'check', path],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, timeout, None, 'stopped after %d s' % timeout
        fields = out.read().split()
        message = proc.stderr.decode(errors='replace').strip().splitlines()
        return proc.returncode, float(fields[-2]), int(fields[-1]) / 1024, message[-1] if message else ''


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('build_dir')
    parser.add_argument('--folder', default=None, help='where the files are written (default: a temporary one)')
    parser.add_argument('--timeout', type=int, default=300)
    parser.add_argument('names', nargs='*', help='only these files (e.g. nones.pt)')
    args = parser.parse_intermixed_args()
    cli = os.path.abspath(os.path.join(args.build_dir, 'src', 'cli', 'poslens-cli'))
    if not os.path.exists(cli):
        sys.exit('build %s first' % cli)
    folder = args.folder or tempfile.mkdtemp(prefix='poslens-hostile-')
    if not os.path.exists(os.path.join(folder, 'nones.pt')):
        subprocess.run([sys.executable, os.path.join(root, 'tests', 'fixtures', 'make-pytorch-hostile.py'),
                        '--scale', 'full', folder], check=True, stderr=subprocess.DEVNULL)
    with open('/proc/loadavg') as f:
        print('load average: %s' % ' '.join(f.read().split()[:3]))
    print('%-26s %10s %5s %8s %9s %9s  %s' % ('file', 'pickle', 'exit', 'seconds', 'peak MiB', 'goal MiB', 'message'))
    failed = 0
    for name in sorted(args.names or os.listdir(folder)):
        path = os.path.join(folder, name)
        size = pickle_size(path)
        goal = 2 * size / MIB + 64
        status, seconds, peak, message = run(cli, path, args.timeout)
        met = status is not None and peak <= goal
        failed += not met
        print('%-26s %10d %5s %8.2f %9s %9.1f  %s%s' % (
            name, size, '-' if status is None else status, seconds, '-' if peak is None else '%.1f' % peak, goal,
            '' if met else 'MISSED: ', message[:110]))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
