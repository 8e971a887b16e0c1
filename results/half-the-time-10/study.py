#!/usr/bin/env python3
"""The two-H200 calls of this study, from their records: `study.py CALL_DIR...` (each holding
main-all-gpu{1,2}.json, stagger-all-gpu{1,2}.json and one single-GPU run, as stagger.sh left them).
Per worker: wall, phases summed over the cases, the SDC free-memory pass, samples per family where
the runs differ, cases that took 8 or more samples; per pair: the median rate ratio; and where in
each worker's run (rebuilt from the run order and each case's total) the pass and the host and copy
families fell."""
import glob
import json
import statistics
import sys
from collections import Counter


def load(path):
    return json.load(open(path))["cases"]


def phases(case):
    return case.get("phases") or {}


def timeline(cases, slot, of):
    """Each case's (start, end) in s from its run's start: baselines first, then list order, the
    pass over free memory moved as runner::assemble::stagger moves it."""
    names = [c["name"] for c in cases]
    first = []
    for c in cases:
        b = c.get("baseline")
        if b and b in names and names.index(b) not in first:
            first.append(names.index(b))
    order = first + [i for i in range(len(cases)) if i not in first]
    if slot > 0:
        moved = [i for i in order if "free memory" in cases[i]["name"]]
        rest = [i for i in order if i not in moved]
        at = len(rest) * (of - slot) // of
        order = rest[:at] + moved + rest[at:]
    t, spans = 0.0, {}
    for i in order:
        total = phases(cases[i]).get("total_ms") or 0
        spans[i] = (t / 1e3, (t + total) / 1e3)
        t += total
    return spans


def span_of(cases, spans, pick):
    idx = [i for i, c in enumerate(cases) if pick(c)]
    return min(spans[i][0] for i in idx), max(spans[i][1] for i in idx)


for call in sys.argv[1:]:
    print(f"== {call}")
    for path in sorted(glob.glob(f"{call}/*.json")):
        cases = load(path)
        sums = Counter()
        fam = Counter()
        for c in cases:
            for k, v in phases(c).items():
                sums[k] += v or 0
            fam[c["family"]] += phases(c).get("samples_ms") or 0
        free = next(c for c in cases if "free memory" in c["name"])
        many = sum(1 for c in cases if len(c.get("samples_ms") or []) >= 8)
        name = path.split("/")[-1]
        print(f"{name}: setup {sums['setup_ms'] / 1e3:.1f} s, samples {sums['samples_ms'] / 1e3:.1f} s "
              f"(GPU-timed {sums['samples_gpu_ms'] / 1e3:.1f}), scaling {sums['scale_ms'] / 1e3:.1f} s; "
              f"free-memory pass {phases(free)['total_ms'] / 1e3:.2f} s (setup {phases(free)['setup_ms'] / 1e3:.2f}); "
              f"samples host {fam['host'] / 1e3:.1f}, copy {fam['copy'] / 1e3:.1f}, dispatch {fam['dispatch'] / 1e3:.1f} s; "
              f"{many} cases took 8 or more samples")
    for mode in ("main", "stagger"):
        of = 2
        w = [load(f"{call}/{mode}-all-gpu{n}.json") for n in (1, 2)]
        for n, cases in enumerate(w):
            slot = n if mode == "stagger" else 0
            spans = timeline(cases, slot, of)
            host = span_of(cases, spans, lambda c: c["family"] == "host")
            copy = span_of(cases, spans, lambda c: c["family"] == "copy")
            free = span_of(cases, spans, lambda c: "free memory" in c["name"])
            print(f"{mode} gpu{n + 1} timeline (s from its start): host {host[0]:.0f}-{host[1]:.0f}, "
                  f"copy {copy[0]:.0f}-{copy[1]:.0f}, pass over free memory {free[0]:.0f}-{free[1]:.0f}")
    for n in (1, 2):
        a = {c["name"]: c["median_ms"] for c in load(f"{call}/main-all-gpu{n}.json") if c.get("median_ms")}
        b = {c["name"]: c["median_ms"] for c in load(f"{call}/stagger-all-gpu{n}.json") if c.get("median_ms")}
        ratios = [a[k] / b[k] for k in a if k in b]
        within = sum(abs(r - 1) <= 0.02 for r in ratios)
        print(f"gpu{n} rate, stagger against main: median ratio {statistics.median(ratios):.5f} over "
              f"{len(ratios)} cases, {within} within 2%")
