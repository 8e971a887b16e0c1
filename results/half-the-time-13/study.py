#!/usr/bin/env python3
"""Issue 61, thirteenth step: the phases and walls of each full run, and the rates of the spare
binary against main's in the same call and on the same GPU. Reads the runs' records (callN-BIN-MODE
[-gpuK].json.gz, as four.sh, spare.sh and checks.sh wrote them, renamed by call; not kept: 3.3 MB
each) from the folder given; prints study.txt."""
import collections
import glob
import gzip
import json
import os
import statistics
import sys

folder = sys.argv[1]


def load(path):
    with gzip.open(path) as f:
        return json.load(f)


def phases(run):
    total = collections.Counter()
    for case in run["cases"]:
        for key, value in (case.get("phases") or {}).items():
            total[key] += value or 0
    sdc = [c for c in run["cases"] if c["name"].startswith("SDC memory moving inversions, free")]
    sdc = (sdc[0].get("phases") or {}) if sdc else {}
    return total, sdc


def rates(run):
    return {c["name"]: c["rate"]["value"] for c in run["cases"] if c.get("rate")}


runs = {os.path.basename(p)[: -len(".json.gz")]: load(p) for p in sorted(glob.glob(f"{folder}/call*.json.gz"))}
print("full runs: wall; the cases' phases summed, s: setup and freeing, each of the SDC free-memory pass")
print("and of the other cases")
print(f"{'run':<26}{'wall':>7}{'samples':>9}{'busy':>6}{'setup':>7}{'sdc':>6}{'other':>7}{'free':>6}{'sdc':>6}{'other':>7}{'scale':>7}")
for name, run in runs.items():
    total, sdc = phases(run)
    busy = total["samples_gpu_ms"] / 1000 / run["wall_s"]
    print(
        f"{name:<26}{run['wall_s']:>7.1f}{total['samples_ms'] / 1000:>9.1f}{busy:>6.0%}"
        f"{total['setup_ms'] / 1000:>7.2f}{sdc.get('setup_ms', 0) / 1000:>6.2f}"
        f"{(total['setup_ms'] - sdc.get('setup_ms', 0)) / 1000:>7.2f}"
        f"{total['free_ms'] / 1000:>6.2f}{sdc.get('free_ms', 0) / 1000:>6.2f}"
        f"{(total['free_ms'] - sdc.get('free_ms', 0)) / 1000:>7.2f}{total['scale_ms'] / 1000:>7.2f}"
    )

print("\nrates, spare against main, the same call and GPU: median ratio, cases within 2%, of those both timed")
for name in runs:
    if "-spare-" not in name:
        continue
    other = name.replace("-spare-", "-main-")
    if other not in runs:
        continue
    a, b = rates(runs[other]), rates(runs[name])
    ratios = [b[n] / a[n] for n in a if n in b]
    within = sum(abs(r - 1) <= 0.02 for r in ratios)
    print(f"  {name:<24} {statistics.median(ratios):.5f}  {within} of {len(ratios)} within 2%")

print("\nrates, main against main, call 5 against call 4 (two runs of one binary), the same GPU")
for gpu in range(1, 5):
    a, b = rates(runs[f"call4-main-all-gpu{gpu}"]), rates(runs[f"call5-main-all-gpu{gpu}"])
    ratios = [b[n] / a[n] for n in a if n in b]
    within = sum(abs(r - 1) <= 0.02 for r in ratios)
    print(f"  main-all-gpu{gpu:<13} {statistics.median(ratios):.5f}  {within} of {len(ratios)} within 2%")
