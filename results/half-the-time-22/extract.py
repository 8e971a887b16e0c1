#!/usr/bin/env python3
"""Reads the GPU tests' libtest logs in data/ (`--report-time`, two threads) and writes
data/gpu-tests.tsv: each test's seconds by run, and for each run the wall the harness printed,
the sum of the tests, and, replaying the harness's order (tests started by name, one a thread,
each as a thread frees) with the measured durations, the wall it predicts and the seconds one
thread ran alone at the end."""

import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
RUNS = ["base-1", "head-1", "base-2", "head-2", "base-warm"]
THREADS = 2
# The Android baseline's test, renamed between base and head: one row in the table.
SAME = {"a_simulated_android_baseline_verifies_or_skips_with_reasons":
        "simulate::cli_the_android_baseline_verifies_or_skips_with_reasons"}
LINE = re.compile(r"^test (\S+) \.\.\. ok <([0-9.]+)s>$")
WALL = re.compile(r"finished in ([0-9.]+)s")


def read(run):
    text = (DATA / f"libtest-{run}.txt").read_text()
    times = {m.group(1): float(m.group(2)) for m in map(LINE.match, text.splitlines()) if m}
    return times, float(WALL.search(text).group(1))


def replay(times):
    """The harness's schedule: the predicted wall, and how long one thread ran alone at the end,
    and which test that was."""
    free = [0.0] * THREADS
    ends = []
    for name in sorted(times):
        t = min(range(THREADS), key=lambda i: free[i])
        free[t] += times[name]
        ends.append((free[t], name))
    ends.sort()
    wall = ends[-1][0]
    return wall, wall - sorted(free)[-2], ends[-1][1]


def main():
    runs = {run: read(run) for run in RUNS}
    named = {run: {SAME.get(n, n): t for n, t in times.items()} for run, (times, _) in runs.items()}
    names = sorted(set().union(*named.values()), key=lambda n: -named["base-1"][n])
    rows = ["test (base's name)\t" + "\t".join(f"{run} (s)" for run in RUNS)]
    for name in names:
        rows.append(name + "\t" + "\t".join(f"{named[r][name]:.3f}" for r in RUNS))
    rows.append("")
    rows.append("run\tharness wall (s)\tsum of the tests (s)\treplayed wall (s)\talone at the end (s)\tthe last test")
    for run, (times, wall) in runs.items():
        predicted, alone, last = replay(times)
        rows.append(f"{run}\t{wall:.1f}\t{sum(times.values()):.1f}\t{predicted:.1f}\t{alone:.1f}\t{last}")
    (DATA / "gpu-tests.tsv").write_text("\n".join(rows) + "\n")
    print("\n".join(rows[-len(RUNS) - 1:]))


if __name__ == "__main__":
    main()
