#!/usr/bin/env python3
"""Issue 61, fourteenth step: the phases and walls of each full run, the rates of each run against
the call's first on the same GPU, the cases a counts run ran at the count the run before settled
at, and where the kept counts' runs still scaled. Reads the runs' records (N-BIN-HOME.json.gz as
full.sh wrote them, allN-BIN-HOME-gpuK.json.gz as all.sh did; not kept: 3.3 MB each) from the
folder given; prints callN-study.txt."""
import collections
import glob
import gzip
import json
import os
import statistics
import sys

folder = sys.argv[1]
runs = {}
for path in sorted(glob.glob(f"{folder}/*.json.gz")):
    with gzip.open(path) as f:
        runs[os.path.basename(path)[: -len(".json.gz")]] = json.load(f)


def total(run):
    sums = collections.Counter()
    for case in run["cases"]:
        for key, value in (case.get("phases") or {}).items():
            sums[key] += (value or 0) / 1000
    return sums


def timed(run):
    return {c["name"]: c for c in run["cases"] if c.get("rate")}


print("full runs, H200s: wall; the cases' phases summed, s; scaling runs (warm-up runs before the samples)")
head = f"{'run':<22}{'wall':>7}{'samples':>9}{'busy':>6}{'setup':>7}{'free':>6}{'scale':>7}{'warm':>6}{'rewarm':>7}{'remeas':>7}{'outside':>8}{'runs':>7}"
print(head)
for name, run in runs.items():
    t = total(run)
    named = sum(t[k] for k in ("pipeline_ms", "setup_ms", "free_ms", "scale_ms", "warm_ms", "samples_ms",
                               "rewarm_ms", "remeasure_ms", "verify_ms", "energy_ms"))
    runs_before = sum(c.get("warmup_runs", 0) for c in run["cases"] if c.get("rate"))
    print(f"{name:<22}{run['wall_s']:>7.1f}{t['samples_ms']:>9.1f}{t['samples_gpu_ms'] / run['wall_s']:>6.0%}"
          f"{t['setup_ms']:>7.2f}{t['free_ms']:>6.2f}{t['scale_ms']:>7.2f}{t['warm_ms']:>6.2f}{t['rewarm_ms']:>7.2f}"
          f"{t['remeasure_ms']:>7.2f}{run['wall_s'] - named:>8.2f}{runs_before:>7}")

def gpu(name):
    """The GPU a run's record is of: its -gpuK suffix under --all-devices, else the one."""
    return name.rsplit("-", 1)[1] if "-gpu" in name else ""


firsts = {}
for name in runs:
    firsts.setdefault(gpu(name), name)
print("\nrates against the call's first run on the same GPU: median ratio; cases within 2%;")
print("cases whose dispatch count is the same")
for name, run in runs.items():
    first = firsts[gpu(name)]
    if name == first:
        continue
    a, b = timed(runs[first]), timed(run)
    both = [n for n in a if n in b]
    ratios = [b[n]["rate"]["value"] / a[n]["rate"]["value"] for n in both]
    within = sum(abs(r - 1) <= 0.02 for r in ratios)
    same = sum(a[n]["dispatch"]["count"] == b[n]["dispatch"]["count"] for n in both)
    print(f"  {name:<12} against {first}: {statistics.median(ratios):.5f}  {within} of {len(ratios)} within 2%  same count {same}")

print("\na counts run on a home used before against the run before it on that home and GPU: cases at the")
print("count it settled at")
before = {}
for name in runs:
    parts = name.split("-")
    key = ("-".join(parts[1:3]), gpu(name))
    if key[0].startswith("counts") and key in before:
        b, c = timed(runs[before[key]]), timed(runs[name])
        both = [n for n in b if n in c]
        same = sum(b[n]["dispatch"]["count"] == c[n]["dispatch"]["count"] for n in both)
        print(f"  {name:<22} against {before[key]}: {same} of {len(both)}")
    before[key] = name

if "2-counts-c" not in runs or "3-counts-c" not in runs:
    sys.exit()
print("\nrun 3 (counts, a home used before) against run 2 (counts, the same home): dispatch counts")
b, c = timed(runs["2-counts-c"]), timed(runs["3-counts-c"])
both = [n for n in b if n in c]
same = [n for n in both if b[n]["dispatch"]["count"] == c[n]["dispatch"]["count"]]
print(f"  {len(same)} of {len(both)} cases ran at the count run 2 settled at")
scaled = sorted(((c[n]["phases"]["scale_ms"], n) for n in both), reverse=True)
print(f"  scaling still took {sum(s for s, _ in scaled) / 1000:.2f} s; the ten longest, ms:")
for ms, n in scaled[:10]:
    print(f"    {ms:7.1f}  {n}  (count {b[n]['dispatch']['count']} -> {c[n]['dispatch']['count']})")
