#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The speed a user feels at start: from launching the app to the frame that
first shows the Similarity heatmap of the first demo model.

Runs bench/pl-bench-startup (the real application, which prints the time of
that frame and quits) RUNS + 1 times in fresh processes; the first run warms
the disk cache and is left out. Each time is measured from just before the
process is spawned, so it includes loading the program and its libraries.
Needs a display: run it under xvfb-run on a machine without one. It runs
itself under dbus-run-session when there is no session bus, as a desktop
session has one: without it GDBus forks dbus-launch three times before the
window shows, and at each fork OpenBLAS stops and restarts its idle threads
(its fork handlers), which a loaded machine turns into half a second.

  xvfb-run -a /usr/bin/python3 bench/bench-startup.py BUILD_DIR [--runs 7] [--against DRIVER]

--against DRIVER (another build's bench/pl-bench-startup, e.g. a copy kept
from before a change) alternates the two, the order flipping each round, and
prints each one's medians and the median of the per-round ratios of CPU time
and of wall time (this build / DRIVER) with their quartiles: on a loaded
machine a change is real when the quartiles stay on one side of 1.

Goal: the median at most 500 ms. The CPU time the process spent by that
frame (all threads) and the load average are printed beside it: on a
shared machine the wall time mostly measures the others' work.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

GOAL_MS = 500.0


def main():
    if not os.environ.get('DBUS_SESSION_BUS_ADDRESS') and shutil.which('dbus-run-session'):
        os.execvp('dbus-run-session', ['dbus-run-session', '--', sys.executable] + sys.argv)
    parser = argparse.ArgumentParser()
    parser.add_argument('build_dir')
    parser.add_argument('--runs', type=int, default=7)
    parser.add_argument('--against', help="another build's pl-bench-startup, run in turn with this one")
    args = parser.parse_args()

    build = os.path.abspath(args.build_dir)
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ,
               GSETTINGS_BACKEND='memory',
               GSETTINGS_SCHEMA_DIR=os.path.join(build, 'data'),
               GTK_A11Y='none',
               POSLENS_DEMO_DIR=os.path.join(source, 'data', 'demo'),
               POSLENS_CLI=os.path.join(build, 'src', 'cli', 'poslens-cli'))
    driver = os.path.join(build, 'bench', 'pl-bench-startup')

    def start(path):
        """Wall ms from spawn to the heatmap's frame, CPU ms by then, frames painted before it."""
        spawned = time.time()
        out = subprocess.run([path], env=env, capture_output=True, text=True, timeout=60, check=True)
        line = [l for l in out.stdout.splitlines() if l.startswith('{')][-1]
        frame = json.loads(line)
        return (frame['first_frame_us'] / 1e6 - spawned) * 1000, frame['cpu_us'] / 1000, frame.get('frames_before', 0)

    if args.against:
        this, other = [], []
        start(driver)
        start(args.against)
        for run in range(args.runs):
            pair = [(this, driver), (other, args.against)]
            for samples, path in (pair if run % 2 == 0 else pair[::-1]):
                samples.append(start(path))
        for name, samples in (('this build', this), ('against', other)):
            print(f"{name}: wall {statistics.median(s[0] for s in samples):.0f} ms, "
                  f"CPU {statistics.median(s[1] for s in samples):.0f} ms, "
                  f"frames before the heatmap's {statistics.median(s[2] for s in samples):.0f}")
        for k, what in ((1, 'CPU'), (0, 'wall')):
            ratios = sorted(a[k] / b[k] for a, b in zip(this, other))
            q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            print(f"{what} this/against: median {statistics.median(ratios):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f}, "
                  f"{len(ratios)} rounds)")
        print(f"load average {os.getloadavg()[0]:.1f}")
        return 0

    times = []
    cpu = []
    for run in range(args.runs + 1):
        ms, cpu_ms, _ = start(driver)
        if run > 0:
            times.append(ms)
            cpu.append(cpu_ms)
    median = statistics.median(times)
    print(f"startup: first heatmap frame {median:.0f} ms after launch (median of {len(times)} warm runs, "
          f"{min(times):.0f}-{max(times):.0f}), goal <= {GOAL_MS:.0f} ms: {'met' if median <= GOAL_MS else 'NOT met'}; "
          f"CPU time by then {statistics.median(cpu):.0f} ms; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
