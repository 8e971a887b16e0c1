#!/usr/bin/env python3
"""Holds `perftest history`'s change-point search against Apache Otava's own on the same series.

Needs Apache Otava 0.8.0 in the Python that runs it, and cargo (perftest's search runs as the
ignored test `series_from_file`):

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava==0.8.0
    /tmp/otava/bin/python results/history-at-scale/vs_otava.py > results/history-at-scale/vs_otava.txt

Series (seeded; 100 of each kind, a noise of 0.5% unless said) are written to series.csv, each
tool's change points to perftest-*.txt and otava-*.txt, once at Otava's defaults (no floor) and
once with the 1% floor `history` uses (Otava's min_magnitude 0.01).
"""
import os, pathlib, random, subprocess, sys

import otava.analysis as oa
from otava.analysis import TTestSignificanceTester, compute_change_points

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent
rng = random.Random(60)


def noise(n, cv, level):
    return [level(i) * (1.0 + rng.gauss(0.0, cv)) for i in range(n)]


def lone_first(n):
    s = noise(n, 0.005, lambda i: 1.0 if i < 30 else 0.97)
    s[0] *= 0.5
    return s


def lone_last(n):
    s = noise(n, 0.005, lambda i: 1.0)
    s[-1] *= 0.5
    return s


def heavy(n):
    return [x * (0.8 if rng.random() < 0.05 else 1.0) for x in noise(n, 0.005, lambda i: 1.0)]


def random_step():
    at = rng.randrange(5, 55)
    return noise(60, 0.005, lambda i: 1.0 if i < at else 0.97), at


KINDS = [
    # (name, make, where the step is, or None)
    ("noise only", lambda: (noise(60, 0.005, lambda i: 1.0), None)),
    ("a 2% step at run 30", lambda: (noise(60, 0.005, lambda i: 1.0 if i < 30 else 0.98), 30)),
    ("a 3% step anywhere in 5-55", random_step),
    ("a -2% drift over 60 runs", lambda: (noise(60, 0.005, lambda i: 1.0 - 0.02 * i / 59), None)),
    ("a lone first run at -50%, a 3% step at 30", lambda: (lone_first(60), 30)),
    ("a lone last run at -50%", lambda: (lone_last(60), None)),
    ("heavy tails: 5% of runs at -20%", lambda: (heavy(60), None)),
    ("12 runs, a 2% step at run 6", lambda: (noise(12, 0.005, lambda i: 1.0 if i < 6 else 0.98), 6)),
    ("a 2% step at run 30, noise 1%", lambda: (noise(60, 0.01, lambda i: 1.0 if i < 30 else 0.98), 30)),
]
EACH = 100

series, kinds, steps = [], [], []
for name, make in KINDS:
    for _ in range(EACH):
        s, at = make()
        series.append(s)
        kinds.append(name)
        steps.append(at)
(here / "series.csv").write_text("".join(",".join(f"{x:.9g}" for x in s) + "\n" for s in series))


def perftest(floor):
    out = here / f"perftest-{floor}.txt"
    env = dict(os.environ, PERFTEST_SERIES=str(here / "series.csv"), PERFTEST_SERIES_OUT=str(out),
               PERFTEST_SERIES_FLOOR=str(floor))
    subprocess.run(["cargo", "test", "--release", "--lib", "--quiet", "series_from_file", "--", "--ignored"],
                   cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    return [[int(i) for i in line.split(",") if i] for line in out.read_text().splitlines()]


def merge_both_neighbours(change_points, series, max_pvalue, min_magnitude):
    """Otava's merge step as perftest runs it: after a point is dropped, the two points whose
    segments changed (left and right of it) are tested again; Otava's own re-tests the right one
    and the one after it (apache/otava PR #96)."""
    tester = TTestSignificanceTester(max_pvalue)
    while change_points:
        weakest = max(change_points, key=lambda c: c.stats.pvalue)
        if weakest.stats.pvalue < max_pvalue:
            weakest = min(change_points, key=lambda c: c.stats.change_magnitude())
            if weakest.stats.change_magnitude() > min_magnitude:
                return change_points
        at = change_points.index(weakest)
        del change_points[at]
        intervals = tester.get_intervals(change_points)
        for k in (at - 1, at):
            if 0 <= k < len(change_points):
                change_points[k] = tester.change_point(change_points[k].to_candidate(), series, intervals)
    return change_points


def otava(floor, merge=None):
    found = []
    original = oa.merge
    if merge:
        oa.merge = merge
    try:
        for s in series:
            points, _ = compute_change_points(s, window_len=50, max_pvalue=0.001, min_magnitude=floor)
            found.append(sorted(int(p.index) for p in points))
    finally:
        oa.merge = original
    name = "otava-both" if merge else "otava"
    (here / f"{name}-{floor}.txt").write_text("".join(",".join(map(str, f)) + "\n" for f in found))
    return found


print(f"{len(series)} series, {EACH} of each kind; change points of perftest history's search and of Apache Otava 0.8.0")
print("(compute_change_points, window 50, p <= 0.001), at Otava's default floor (0) and at history's (1%).\n")
for floor in (0.0, 0.01):
    mine, theirs, both = perftest(floor), otava(floor), otava(floor, merge_both_neighbours)
    print(f"## floor {floor:g}\n")
    print("| series | same change points as Otava | as Otava re-testing both neighbours | perftest: step found (within 2 runs) / a change elsewhere | Otava: the same |")
    print("|---|---|---|---|---|")
    total = total_both = 0
    for name, _ in KINDS:
        idx = [i for i, k in enumerate(kinds) if k == name]
        same = sum(mine[i] == theirs[i] for i in idx)
        same_both = sum(mine[i] == both[i] for i in idx)
        total += same
        total_both += same_both

        def score(found):
            hit = sum(steps[i] is not None and any(abs(p - steps[i]) <= 2 for p in found[i]) for i in idx)
            other = sum(any(steps[i] is None or abs(p - steps[i]) > 2 for p in found[i]) for i in idx)
            return f"{hit}% / {other}%" if steps[idx[0]] is not None else f"- / {other}%"

        print(f"| {name} | {same}% | {same_both}% | {score(mine)} | {score(theirs)} |")
    n = len(series)
    print(f"\nthe same change points as Otava in {total} of {n} series ({100 * total / n:.1f}%); as Otava with")
    print(f"perftest's merge (both neighbours re-tested) in {total_both} ({100 * total_both / n:.1f}%)")
    for i in [i for i in range(n) if mine[i] != both[i]][:10]:
        print(f"  series {i} ({kinds[i]}): perftest {mine[i]}, Otava re-testing both {both[i]}, Otava {theirs[i]}")
    print()
